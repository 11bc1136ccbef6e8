//! The child's side: requests on standard input, the process's limits, replies on standard
//! output.

use std::io::{BufRead, Read, Write};
use std::process::ExitCode;

use super::{reply_header, Request, MAX_REQUEST_BYTES};
use crate::engine::{Engine, EvalError, Evaluated, Limits};

/// Serves the requests of the importer's parent process, one at a time, until standard input
/// ends: reads a request (one line of at most [`MAX_REQUEST_BYTES`]), limits this process,
/// evaluates the module in this process as [`Engine::evaluate`] does, and writes the reply to
/// standard output (the protocol is in the [module](super) documentation).
///
/// The limits, set before each evaluation and only ever lowered (the CPU-time limit is moved
/// up to what is used plus the request's time): on Unix `RLIMIT_CORE` 0 and `RLIMIT_CPU` the
/// CPU time used so far plus the time limit, rounded up to seconds, plus one (`SIGXCPU` ends
/// the process); on Linux `RLIMIT_AS` the address space this process mapped when `serve` began
/// plus [`Limits::memory_bytes`] plus [`ADDRESS_SPACE_HEADROOM`](super::ADDRESS_SPACE_HEADROOM)
/// (where `/proc/self/status` cannot be read, no address-space limit: it could fall below what
/// the program maps).
///
/// Call it from `main` when the program is started as the child (with the arguments given in
/// [`Isolation::ChildProcess`](super::Isolation)), first thing, return its exit code, and do
/// nothing else in that process: the limits stay in force, and the process has evaluated
/// untrusted code. It reads no arguments, no environment and no other input.
///
/// Exit status 0 when standard input ended, or after the reply to a request that could not be
/// read (the rest of the input is not trusted); 1 when reading or writing failed.
pub fn serve() -> ExitCode {
    let mapped = address_space_in_use();
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    loop {
        let mut line = Vec::new();
        match input
            .by_ref()
            .take(MAX_REQUEST_BYTES as u64)
            .read_until(b'\n', &mut line)
        {
            Ok(0) => return ExitCode::SUCCESS,
            Ok(_) => {}
            Err(e) => {
                eprintln!("cannot read the request: {e}");
                return ExitCode::FAILURE;
            }
        }
        let request = if line.last() != Some(&b'\n') && line.len() >= MAX_REQUEST_BYTES {
            Err(format!("a request of more than {MAX_REQUEST_BYTES} bytes"))
        } else {
            Request::decode(&line)
        };
        let readable = request.is_ok();
        let result = match request {
            Ok(request) => answer(&request, mapped),
            Err(why) => Err(EvalError::Child {
                module: String::new(),
                reason: format!("was sent a bad request ({why})"),
            }),
        };
        let written = out
            .write_all(&reply_header(&result))
            .and_then(|()| match &result {
                Ok(Evaluated::Json(text)) => out.write_all(text.as_bytes()),
                _ => Ok(()),
            })
            .and_then(|()| out.flush());
        if let Err(e) = written {
            eprintln!("cannot write the reply: {e}");
            return ExitCode::FAILURE;
        }
        if !readable {
            return ExitCode::SUCCESS;
        }
    }
}

/// Limits this process (`mapped`: the address space it mapped when it began, if known), then
/// evaluates the request's module.
pub(super) fn answer(request: &Request, mapped: Option<usize>) -> Result<Evaluated, EvalError> {
    limit_process(&request.limits, mapped).map_err(|why| EvalError::Child {
        module: request.module.clone(),
        reason: format!("could not limit itself ({why}), so it evaluated nothing"),
    })?;
    evaluate(request)
}

/// Evaluates the request's module in this process, as [`Engine::evaluate`] does.
pub(super) fn evaluate(request: &Request) -> Result<Evaluated, EvalError> {
    let engine = Engine::new(&request.root, request.limits)?;
    let module = engine.module_path(&request.module)?;
    engine.evaluate_module(&module)
}

/// Sets this process's limits for `limits` (Unix; elsewhere nothing is set).
#[cfg(unix)]
fn limit_process(limits: &Limits, mapped: Option<usize>) -> Result<(), String> {
    // Each resource constant has its platform's type: a macro, not a function.
    macro_rules! lower {
        ($resource:expr, $name:literal, $soft:expr, $hard:expr) => {{
            let mut old = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: `old` is a valid rlimit for getrlimit to fill.
            if unsafe { libc::getrlimit($resource, &mut old) } != 0 {
                return Err(format!(
                    "getrlimit({}): {}",
                    $name,
                    std::io::Error::last_os_error()
                ));
            }
            let hard = (($hard) as libc::rlim_t).min(old.rlim_max);
            let new = libc::rlimit {
                rlim_cur: (($soft) as libc::rlim_t).min(hard),
                rlim_max: hard,
            };
            // SAFETY: `new` is a valid rlimit; a soft limit within the hard one, and a lower hard
            // one, need no privilege.
            if unsafe { libc::setrlimit($resource, &new) } != 0 {
                return Err(format!(
                    "setrlimit({}): {}",
                    $name,
                    std::io::Error::last_os_error()
                ));
            }
        }};
    }
    lower!(libc::RLIMIT_CORE, "RLIMIT_CORE", 0, 0);
    // The CPU time limit counts the whole life of the process: it is moved to what has been
    // used plus this request's time (a soft limit may go up to the hard one, left as it was).
    // SIGXCPU ends the process.
    let seconds = (cpu_time_used() + limits.time.as_secs_f64()).ceil() as u64 + 1;
    lower!(libc::RLIMIT_CPU, "RLIMIT_CPU", seconds, libc::RLIM_INFINITY);
    // What the program maps before evaluating anything is not the spec's: its code, and what
    // its allocator reserves up front (mimalloc, in `atip`, reserves a 1 GiB arena). Where
    // that cannot be read, a limit could fall below it: none is set.
    if let Some(mapped) = mapped {
        let address = mapped
            .saturating_add(limits.memory_bytes)
            .saturating_add(super::ADDRESS_SPACE_HEADROOM);
        lower!(libc::RLIMIT_AS, "RLIMIT_AS", address, address);
    }
    Ok(())
}

/// CPU time (user and system) this process has used, in seconds.
#[cfg(unix)]
fn cpu_time_used() -> f64 {
    // SAFETY: an all-zero rusage is valid, and getrusage fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid rusage for getrusage to fill.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0.0;
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The address space this process maps now, in bytes: `VmSize` of `/proc/self/status`
/// (Linux); `None` where that cannot be read.
#[cfg(unix)]
fn address_space_in_use() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse::<usize>()
        .ok()?;
    Some(kib.saturating_mul(1024))
}

/// Sets nothing: process limits are Unix-only here (the parent still kills at the time limit).
#[cfg(not(unix))]
fn limit_process(_limits: &Limits, _mapped: Option<usize>) -> Result<(), String> {
    Ok(())
}

/// Unknown off Unix.
#[cfg(not(unix))]
fn address_space_in_use() -> Option<usize> {
    None
}
