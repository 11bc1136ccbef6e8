//! The child's side: one request on standard input, the process's limits, one reply on
//! standard output.

use std::io::{Read, Write};
use std::process::ExitCode;

use super::{reply_header, Request, MAX_REQUEST_BYTES};
use crate::engine::{Engine, EvalError, Evaluated, Limits};

/// Serves one request of the importer's parent process: reads the request from standard input
/// (at most [`MAX_REQUEST_BYTES`], then its end), limits this process — on Unix
/// `RLIMIT_CORE` to 0, `RLIMIT_CPU` to the time limit in whole seconds plus one, and on Linux
/// `RLIMIT_AS` to the address space it already maps plus [`Limits::memory_bytes`] plus
/// [`ADDRESS_SPACE_HEADROOM`](super::ADDRESS_SPACE_HEADROOM) (where `/proc/self/status`
/// cannot be read, no address-space limit: it could fall below what the program maps); limits
/// are only ever lowered — evaluates the module in this process, and writes the reply to
/// standard output (the protocol is in the [module](super) documentation).
///
/// Call it from `main` when the program is started as the child (with the arguments given in
/// [`Isolation::ChildProcess`](super::Isolation)), return its exit code, and do nothing else
/// in that process: the limits stay in force, and the process has evaluated untrusted code.
/// It reads no arguments, no environment and no other input.
///
/// Exit status 0 when a reply was written (an evaluation error is a reply too), 1 when the
/// reply could not be written (the parent reads that as a failed child).
pub fn serve() -> ExitCode {
    let mut input = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_REQUEST_BYTES as u64 + 1)
        .read_to_end(&mut input);
    let request = match read {
        Err(e) => Err(format!("cannot read the request: {e}")),
        Ok(_) if input.len() > MAX_REQUEST_BYTES => {
            Err(format!("a request of more than {MAX_REQUEST_BYTES} bytes"))
        }
        Ok(_) => Request::decode(&input),
    };
    let result = match request {
        Ok(request) => answer(&request),
        Err(why) => Err(EvalError::Child {
            module: String::new(),
            reason: format!("was sent a bad request ({why})"),
        }),
    };
    let mut out = std::io::stdout().lock();
    let written = out
        .write_all(&reply_header(&result))
        .and_then(|()| match &result {
            Ok(Evaluated::Json(text)) => out.write_all(text.as_bytes()),
            _ => Ok(()),
        })
        .and_then(|()| out.flush());
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cannot write the reply: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Limits this process, then evaluates the request's module.
pub(super) fn answer(request: &Request) -> Result<Evaluated, EvalError> {
    limit_process(&request.limits).map_err(|why| EvalError::Child {
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
fn limit_process(limits: &Limits) -> Result<(), String> {
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
            // SAFETY: `new` is a valid rlimit; lowering a limit needs no privilege.
            if unsafe { libc::setrlimit($resource, &new) } != 0 {
                return Err(format!(
                    "setrlimit({}): {}",
                    $name,
                    std::io::Error::last_os_error()
                ));
            }
        }};
    }
    let seconds = limits.time.as_secs() + u64::from(limits.time.subsec_nanos() > 0) + 1;
    lower!(libc::RLIMIT_CORE, "RLIMIT_CORE", 0, 0);
    // SIGXCPU at the soft limit, SIGKILL a second later if that is caught or ignored.
    lower!(libc::RLIMIT_CPU, "RLIMIT_CPU", seconds, seconds + 1);
    // What the program maps before evaluating anything is not the spec's: its code, and what
    // its allocator reserves up front (mimalloc, in `atip`, reserves a 1 GiB arena). Where
    // that cannot be read, a limit could fall below it: none is set.
    if let Some(in_use) = address_space_in_use() {
        let address = in_use
            .saturating_add(limits.memory_bytes)
            .saturating_add(super::ADDRESS_SPACE_HEADROOM);
        lower!(libc::RLIMIT_AS, "RLIMIT_AS", address, address);
    }
    Ok(())
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
fn limit_process(_limits: &Limits) -> Result<(), String> {
    Ok(())
}
