//! The parent's side: a running child ([`Worker`]) that is sent requests and read within the
//! caps and the time limit, killed when either is passed, and reaped when it is let go.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use atip_spawn::blocking::{self, Child, ChildStderr, ChildStdin, ChildStdout};
use atip_spawn::Signal;

use serde_json::Value;

use super::{decode_reply, Request, MAX_HEADER_BYTES};
use crate::engine::{EvalError, Export, Limits, MAX_SPEC_JSON_BYTES};

/// Most bytes of the child's stderr kept for messages: 4 KiB (the rest is read and dropped, so
/// that the child never waits on a full pipe).
const STDERR_KEPT: u64 = 4096;

/// Most characters of the child's stderr quoted in an [`EvalError::Child`]: 600.
const STDERR_QUOTED: usize = 600;

/// How long a child whose input was closed may take to exit before it is killed: 1 s.
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// A reply as read: the header and the spec's JSON (empty unless the header announced one).
struct Reply {
    header: Value,
    body: Vec<u8>,
}

/// Why no reply was read.
struct NoReply {
    /// The child is gone or going (end of file, broken pipe): its exit status says more.
    ended: bool,
    /// What happened, for [`EvalError::Child`].
    reason: String,
}

/// A child process serving requests, with the threads that talk to it.
pub(super) struct Worker {
    child: Child,
    /// Requests for the I/O thread; dropped to close the child's input.
    requests: Option<mpsc::Sender<Vec<u8>>>,
    replies: mpsc::Receiver<Result<Reply, NoReply>>,
    /// The start of stderr, sent once stderr has ended.
    stderr: mpsc::Receiver<Vec<u8>>,
    served: usize,
    finished: bool,
}

impl Worker {
    /// Starts `program args…` with piped standard streams, the caller's environment and
    /// working directory, as a session of its own (`atip-spawn`); `Err(reason)` when it cannot
    /// be.
    pub(super) fn start(program: &Path, args: &[OsString]) -> Result<Worker, String> {
        let not_started =
            |e: std::io::Error| format!("could not be started ({}: {e})", program.display());
        let file = find(program).ok_or_else(|| not_started(std::io::ErrorKind::NotFound.into()))?;
        let argv: Vec<OsString> = std::iter::once(program.as_os_str().to_owned())
            .chain(args.iter().cloned())
            .collect();
        let env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
        let spec = atip_spawn::Spec {
            program: &file,
            argv: &argv,
            env: &env,
            cwd: None,
            stdin: true,
            keep_fd: None,
        };
        let mut child = blocking::spawn(&spec, None).map_err(not_started)?;
        let (stdin, stdout, stderr) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (requests, to_send) = mpsc::channel();
        let (read, replies) = mpsc::channel();
        let (errors, stderr_read) = mpsc::channel();
        // Neither thread is joined: each ends when the child's pipes do, which a program that
        // left a process of its own holding them could delay for ever.
        let threads = std::thread::Builder::new()
            .name("fig-child-io".into())
            .spawn(move || talk(stdin, stdout, &to_send, &read))
            .and_then(|_| {
                std::thread::Builder::new()
                    .name("fig-child-stderr".into())
                    .spawn(move || {
                        let _ = errors.send(read_stderr(stderr));
                    })
            });
        let mut worker = Worker {
            child,
            requests: Some(requests),
            replies,
            stderr: stderr_read,
            served: 0,
            finished: false,
        };
        match threads {
            Ok(_) => Ok(worker),
            Err(e) => {
                worker.finish(Instant::now());
                Err(format!("could not be talked to: no thread ({e})"))
            }
        }
    }

    /// Requests evaluated by this child so far.
    pub(super) fn served(&self) -> usize {
        self.served
    }

    /// Sends `request` and reads the reply, killing the child when [`Limits::time`] has passed
    /// since the request was sent or when the reply breaks the protocol or the caps. After an
    /// error of any kind the worker is not to be used again.
    pub(super) fn evaluate(&mut self, request: &Request) -> Result<Export, EvalError> {
        let line = request.encode()?;
        let module = request.module.as_str();
        let limits = request.limits;
        self.served += 1;
        let deadline = Instant::now() + limits.time;
        let sent = self.requests.as_ref().is_some_and(|r| r.send(line).is_ok());
        let read = if sent {
            self.replies
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        } else {
            Err(mpsc::RecvTimeoutError::Disconnected)
        };
        let timeout = || EvalError::Timeout {
            module: module.into(),
            limit: limits.time,
        };
        let failed = |reason: String| EvalError::Child {
            module: module.into(),
            reason,
        };
        let reply = match read {
            Ok(reply) => reply,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.finish(Instant::now());
                return Err(timeout());
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(NoReply {
                ended: true,
                reason: "exited without a reply".into(),
            }),
        };
        match reply {
            Ok(reply) => match decode_reply(&reply.header, &reply.body, module, limits) {
                Ok(result) => result,
                Err(why) => {
                    let (_, stderr) = self.finish(Instant::now());
                    Err(failed(format!("replied with {why}{}", quote(&stderr))))
                }
            },
            // Gone or going: its exit status tells why, if it exits before the deadline.
            Err(NoReply {
                ended: true,
                reason,
            }) => match self.finish(deadline) {
                (Some(status), stderr) if !status.success() => {
                    Err(died(status, &stderr, module, limits))
                }
                (Some(_), stderr) => Err(failed(format!("{reason}{}", quote(&stderr)))),
                (None, _) => Err(timeout()),
            },
            Err(NoReply { reason, .. }) => {
                let (_, stderr) = self.finish(Instant::now());
                Err(failed(format!("{reason}{}", quote(&stderr))))
            }
        }
    }

    /// Ends the child: closes its input, waits for its exit until `deadline` (killing it then)
    /// and a moment for the end of its stderr. Its exit status (`None` when it was killed
    /// here, or could not be waited for) and the start of its stderr.
    fn finish(&mut self, deadline: Instant) -> (Option<ExitStatus>, Vec<u8>) {
        self.finished = true;
        drop(self.requests.take());
        let status = wait_until(&mut self.child, deadline);
        let stderr = self
            .stderr
            .recv_timeout(Duration::from_millis(200))
            .unwrap_or_default();
        (status, stderr)
    }
}

impl Drop for Worker {
    /// A child that is let go has its input closed, is given [`EXIT_GRACE`] to exit, killed
    /// otherwise, and reaped.
    fn drop(&mut self) {
        if !self.finished {
            self.finish(Instant::now() + EXIT_GRACE);
        }
    }
}

/// The I/O thread: for each request, writes it and reads the reply; ends when the requests
/// do (closing the child's input) or when no reply could be read.
fn talk(
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    requests: &mpsc::Receiver<Vec<u8>>,
    replies: &mpsc::Sender<Result<Reply, NoReply>>,
) {
    let (Some(mut stdin), Some(stdout)) = (stdin, stdout) else {
        return;
    };
    let mut stdout = BufReader::new(stdout);
    for request in requests {
        let reply = match stdin.write_all(&request).and_then(|()| stdin.flush()) {
            Ok(()) => read_reply(&mut stdout),
            // Its input is closed: it has exited, or is exiting.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(NoReply {
                ended: true,
                reason: "exited without a reply".into(),
            }),
            Err(e) => Err(NoReply {
                ended: true,
                reason: format!("could not be sent the request ({e})"),
            }),
        };
        let failed = reply.is_err();
        if replies.send(reply).is_err() || failed {
            return;
        }
    }
}

/// Reads one reply: a header line of at most [`MAX_HEADER_BYTES`], then the spec's JSON it
/// announces, at most [`MAX_SPEC_JSON_BYTES`] — never more.
fn read_reply(stdout: &mut BufReader<ChildStdout>) -> Result<Reply, NoReply> {
    let broken = |reason: String| NoReply {
        ended: false,
        reason,
    };
    let ended = |reason: String| NoReply {
        ended: true,
        reason,
    };
    let mut line = Vec::new();
    let read = stdout
        .by_ref()
        .take(MAX_HEADER_BYTES as u64)
        .read_until(b'\n', &mut line)
        .map_err(|e| ended(format!("could not be read ({e})")))?;
    if read == 0 {
        return Err(ended("exited without a reply".into()));
    }
    if line.last() != Some(&b'\n') {
        return Err(if line.len() >= MAX_HEADER_BYTES {
            broken(format!(
                "replied with a header line longer than {MAX_HEADER_BYTES} bytes (the cap) and was killed"
            ))
        } else {
            ended("stopped in the middle of its reply".into())
        });
    }
    let header: Value = serde_json::from_slice(&line)
        .map_err(|e| broken(format!("replied with a header that is not JSON ({e})")))?;
    let bytes = header["bytes"].as_u64().unwrap_or(0);
    if bytes > MAX_SPEC_JSON_BYTES as u64 {
        return Err(broken(format!(
            "announced a spec of {bytes} bytes, more than {MAX_SPEC_JSON_BYTES} (the cap), and was killed"
        )));
    }
    let mut body = Vec::new();
    stdout
        .by_ref()
        .take(bytes)
        .read_to_end(&mut body)
        .map_err(|e| ended(format!("could not be read ({e})")))?;
    if (body.len() as u64) < bytes {
        return Err(ended("stopped in the middle of its reply".into()));
    }
    Ok(Reply { header, body })
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

/// The file `program` names: itself when it holds a `/`, else the first executable of that
/// name on `PATH`, as `execvp` finds it. (Off Unix the spawner's fallback looks it up itself.)
fn find(program: &Path) -> Option<PathBuf> {
    match program.to_str() {
        Some(name) if cfg!(unix) && !name.contains('/') => atip_core::shim::resolve_program(name),
        _ => Some(program.to_path_buf()),
    }
}

/// Waits for the child's exit until `deadline`, then kills it (`None`).
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    match child.wait_until(deadline) {
        Ok(Some(status)) => Some(status),
        Ok(None) | Err(_) => {
            // Killing a child that has just exited is harmless: it is not reaped yet.
            child.kill_group(Signal::Kill);
            let _ = child.wait();
            None
        }
    }
}

/// What a child that did not exit successfully means: out of CPU time is a timeout, a failed
/// allocation is out of memory, anything else is [`EvalError::Child`].
fn died(status: ExitStatus, stderr: &[u8], module: &str, limits: Limits) -> EvalError {
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

/// `; it said: <the start of stderr>` on one line, or nothing when stderr is empty.
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
