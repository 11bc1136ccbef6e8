//! The parent's side: start the child, send the request, read the reply within the cap and the
//! time limit, kill the child when either is passed, and say what happened.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{decode_reply, Request, MAX_REPLY_BYTES};
use crate::engine::{EvalError, Export};

/// Most bytes of the child's stderr kept for messages: 4 KiB (the rest is read and dropped, so
/// that the child never waits on a full pipe).
const STDERR_KEPT: u64 = 4096;

/// Most characters of the child's stderr quoted in an [`EvalError::Child`]: 600.
const STDERR_QUOTED: usize = 600;

/// How the reading ended.
enum End {
    /// Standard output ended: the whole reply, at most [`MAX_REPLY_BYTES`].
    Reply(Vec<u8>),
    /// The reply passed [`MAX_REPLY_BYTES`]; the child was killed.
    TooLarge,
    /// The time limit passed; the child was killed.
    TimedOut,
    /// Standard output could not be read; the child was killed.
    ReadFailed(std::io::Error),
}

/// Evaluates `request` in a child started as `program args…`.
pub(super) fn evaluate(
    program: &Path,
    args: &[OsString],
    request: &Request,
) -> Result<Export, EvalError> {
    let bytes = request.encode()?;
    let module = request.module.as_str();
    let limits = request.limits;
    let failed = |reason: String| EvalError::Child {
        module: module.into(),
        reason,
    };
    let deadline = Instant::now() + limits.time;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("could not be started ({}: {e})", program.display())))?;
    let (end, status, stderr) = watch(&mut child, &bytes, deadline);
    let timeout = || EvalError::Timeout {
        module: module.into(),
        limit: limits.time,
    };
    match end {
        End::TimedOut => Err(timeout()),
        End::TooLarge => Err(failed(format!(
            "replied with more than {MAX_REPLY_BYTES} bytes (the cap) and was killed"
        ))),
        End::ReadFailed(e) => Err(failed(format!("could not be read ({e}) and was killed"))),
        End::Reply(reply) => match status {
            Some(s) if s.success() => match decode_reply(&reply, module, limits) {
                Ok(result) => result,
                Err(_) if reply.is_empty() => {
                    Err(failed(format!("exited without a reply{}", quote(&stderr))))
                }
                Err(why) => Err(failed(format!("replied with {why}{}", quote(&stderr)))),
            },
            Some(s) => Err(died(s, &stderr, module, limits)),
            None => Err(timeout()),
        },
    }
}

/// Sends the request, reads the reply and stderr, and waits for the child's end, killing it at
/// `deadline`: how the reading ended, the exit status (`None` when the child was killed at the
/// deadline after its reply, or could not be waited for), and the start of stderr.
fn watch(
    child: &mut Child,
    request: &[u8],
    deadline: Instant,
) -> (End, Option<ExitStatus>, Vec<u8>) {
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        s.spawn(move || {
            let _ = tx.send(exchange(stdin, stdout, request));
        });
        let errors = s.spawn(move || read_stderr(stderr));
        let end = match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Ok(reply)) if reply.len() > MAX_REPLY_BYTES => End::TooLarge,
            Ok(Ok(reply)) => End::Reply(reply),
            Ok(Err(e)) => End::ReadFailed(e),
            Err(mpsc::RecvTimeoutError::Timeout) => End::TimedOut,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                End::ReadFailed(std::io::Error::other("the reading thread ended"))
            }
        };
        let status = match end {
            End::Reply(_) => wait_until(child, deadline),
            _ => {
                // Killing a child that has just exited is harmless: it is not reaped yet.
                let _ = child.kill();
                child.wait().ok()
            }
        };
        let stderr = errors.join().unwrap_or_default();
        (end, status, stderr)
    })
}

/// Writes the request and closes standard input, then reads standard output to its end or to
/// one byte past [`MAX_REPLY_BYTES`].
fn exchange(
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    request: &[u8],
) -> std::io::Result<Vec<u8>> {
    if let Some(mut stdin) = stdin {
        // An error means the child is gone or reads nothing: its status and reply say more.
        let _ = stdin.write_all(request);
    }
    let mut reply = Vec::new();
    if let Some(stdout) = stdout {
        stdout
            .take(MAX_REPLY_BYTES as u64 + 1)
            .read_to_end(&mut reply)?;
    }
    Ok(reply)
}

/// The first [`STDERR_KEPT`] bytes of stderr; the rest is read to the end and dropped.
fn read_stderr(stderr: Option<ChildStderr>) -> Vec<u8> {
    let mut kept = Vec::new();
    if let Some(mut stderr) = stderr {
        let _ = (&mut stderr).take(STDERR_KEPT).read_to_end(&mut kept);
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
    }
    kept
}

/// Waits for the child's exit until `deadline`, then kills it (`None`).
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    let mut pause = Duration::from_micros(50);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
                pause = (pause * 2).min(Duration::from_millis(5));
            }
            Ok(None) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// What a child that did not exit successfully means: out of CPU time is a timeout, a failed
/// allocation is out of memory, anything else is [`EvalError::Child`].
fn died(
    status: ExitStatus,
    stderr: &[u8],
    module: &str,
    limits: crate::engine::Limits,
) -> EvalError {
    let text = String::from_utf8_lossy(stderr);
    // What Rust's allocation-failure handler prints before it aborts, and what a C library
    // says when it cannot allocate.
    if text.contains("memory allocation of") || text.contains("out of memory") {
        return EvalError::OutOfMemory {
            module: module.into(),
            limit: limits.memory_bytes,
        };
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            if signal == libc::SIGXCPU {
                return EvalError::Timeout {
                    module: module.into(),
                    limit: limits.time,
                };
            }
            let name = match signal {
                libc::SIGKILL => " (SIGKILL, not sent by the importer: the system's out-of-memory killer sends it)",
                libc::SIGABRT => " (SIGABRT)",
                libc::SIGSEGV => " (SIGSEGV)",
                libc::SIGBUS => " (SIGBUS)",
                libc::SIGILL => " (SIGILL)",
                _ => "",
            };
            return EvalError::Child {
                module: module.into(),
                reason: format!("was killed by signal {signal}{name}{}", quote(stderr)),
            };
        }
    }
    EvalError::Child {
        module: module.into(),
        reason: format!("failed ({status}){}", quote(stderr)),
    }
}

/// `: <the start of stderr>` on one line, or nothing when stderr is empty.
fn quote(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let joined = lines.join(" | ");
    match joined.char_indices().nth(STDERR_QUOTED) {
        Some((end, _)) => format!("; it said: {}…", &joined[..end]),
        None => format!("; it said: {joined}"),
    }
}
