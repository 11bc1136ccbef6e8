//! One child process: started by `super::spawn` (no shell, a session of its own, the host's
//! descriptors kept out), fed its stdin, drained concurrently under a byte cap, and killed with
//! its whole group on timeout, on exit (leftover background processes) and when the future is
//! dropped.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use super::error::RunError;
use super::output::{ExitStatus, Output};
use super::sandbox::Prepared;
use crate::command::argv::{ArgvError, ArgvProblem};
use crate::Invocation;
use atip_spawn::Signal;

/// Which stream a chunk of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamKind {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Output as it arrives, for [`super::Run::stream_to`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputChunk {
    /// Where it came from.
    pub stream: StreamKind,
    /// The next piece of that stream, redacted: UTF-8 text (invalid bytes as U+FFFD).
    pub bytes: Vec<u8>,
}

/// Where streamed output goes, and the filter that redacts it on the way.
pub(crate) struct Stream<'a> {
    pub tx: &'a mpsc::Sender<OutputChunk>,
    pub filter: &'a crate::filter::ResultFilter,
}

/// Everything about a child except what to run.
#[derive(Debug, Clone)]
pub(crate) struct ProcessSettings {
    pub timeout: Duration,
    pub kill_grace: Duration,
    pub max_output_bytes: usize,
    pub cwd: Option<PathBuf>,
    pub env_base: super::environment::EnvBase,
    pub env: Vec<(OsString, Option<OsString>)>,
    pub stdin: Option<Arc<[u8]>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    Terminating,
    Killed,
}

struct Capture {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    budget: usize,
    stdout_dropped: u64,
    stderr_dropped: u64,
}

/// Refuses an argv holding NUL bytes, which never reach the OS (it would cut or refuse them).
pub(crate) fn refuse_nul(argv: &[OsString]) -> Result<(), RunError> {
    let nul: Vec<ArgvProblem> = argv
        .iter()
        .enumerate()
        .filter(|(_, a)| a.as_encoded_bytes().contains(&0))
        .map(|(i, _)| ArgvProblem::Nul {
            param: format!("argv[{i}]"),
        })
        .collect();
    if nul.is_empty() {
        Ok(())
    } else {
        Err(RunError::Argv(ArgvError { problems: nul }))
    }
}

/// Starts `invocation`'s program in `sandbox`: argv checked for NUL bytes, `program` (argv\[0\]
/// resolved) or the `verified` copy executed in `settings.cwd`, `env` (or the runner's, with
/// `settings.env`'s changes) with the sandbox's scratch directory as `TMPDIR` and its egress
/// proxy's variables, stdin a pipe when `stdin`; then the egress proxy started. Dropping the
/// child kills its process group; dropping the proxy stops it.
pub(crate) fn launch(
    invocation: &Invocation,
    settings: &ProcessSettings,
    stdin: bool,
    program: Option<&std::path::Path>,
    verified: Option<std::fs::File>,
    env: Option<&[(OsString, OsString)]>,
    sandbox: &mut Prepared,
) -> Result<(atip_spawn::Child, Option<atip_sandbox::egress::EgressProxy>), RunError> {
    if invocation.argv.is_empty() {
        return Err(RunError::Spawn {
            program: OsString::new(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty argv"),
        });
    }
    refuse_nul(&invocation.argv)?;

    // The checked copy must not sit on 0-2, which the child's standard streams overwrite.
    #[cfg(target_os = "linux")]
    let verified = verified
        .map(|f| atip_spawn::above_stdio(f.into()).map(std::fs::File::from))
        .transpose()
        .map_err(RunError::Io)?;
    #[cfg(target_os = "linux")]
    let by_fd = verified.as_ref().map(|f| {
        use std::os::fd::AsRawFd;
        (
            f.as_raw_fd(),
            PathBuf::from(format!("/proc/self/fd/{}", f.as_raw_fd())),
        )
    });
    #[cfg(not(target_os = "linux"))]
    let by_fd: Option<(i32, PathBuf)> = None;
    let program_name = &invocation.argv[0];
    let spawn_error = |source| RunError::Spawn {
        program: program_name.clone(),
        source,
    };
    let file: PathBuf = match by_fd.as_ref().map(|(_, p)| p.as_path()).or(program) {
        Some(path) => path.to_path_buf(),
        // Not found on the child's PATH: a name with a slash is run as it is.
        None if program_name.as_encoded_bytes().contains(&b'/') => PathBuf::from(program_name),
        None => return Err(spawn_error(std::io::ErrorKind::NotFound.into())),
    };
    let mut vars: Vec<(OsString, OsString)> = match env {
        // Built: exactly these (the caller's settings are in them).
        Some(vars) => vars.to_vec(),
        // Inherited, with the caller's settings on top.
        None => {
            let mut vars: Vec<(OsString, OsString)> = std::env::vars_os().collect();
            for (k, v) in &settings.env {
                vars.retain(|(key, _)| key != k);
                if let Some(v) = v {
                    vars.push((k.clone(), v.clone()));
                }
            }
            vars
        }
    };
    if let Some(dir) = sandbox.tmpdir() {
        vars.retain(|(key, _)| key != "TMPDIR");
        vars.push(("TMPDIR".into(), dir.as_os_str().to_owned()));
    }
    let proxy_env = sandbox.proxy_env();
    if !proxy_env.is_empty() {
        vars.retain(|(key, _)| {
            !proxy_env.iter().any(|(k, _)| key == k)
                && !Prepared::PROXY_ENV_REMOVED.iter().any(|k| key == k)
        });
        vars.extend(proxy_env.into_iter().map(|(k, v)| (k.into(), v.into())));
    }
    let spec = atip_spawn::Spec {
        program: &file,
        argv: &invocation.argv,
        env: &vars,
        cwd: settings.cwd.as_deref(),
        stdin,
        keep_fd: by_fd.as_ref().map(|(fd, _)| *fd),
    };
    // From here on, dropping `child` (an early return, or the caller's future dropped) kills
    // its whole process group and reaps it.
    let child = sandbox.spawn(&spec).map_err(spawn_error)?;
    drop(verified);
    // After the spawn, so that a proxy that cannot start takes the child down with it.
    let proxy = sandbox.start_egress().map_err(RunError::Io)?;
    Ok((child, proxy))
}

/// Runs `invocation` to completion (or its timeout) and collects its output. `program` is the
/// file argv\[0\] resolved to (spawned directly, argv\[0\] kept as given); `verified`, when
/// set, is that file already open and checked against its checksum, and is what runs (on Linux
/// through `/proc/self/fd/N`, so a file swapped in at the path after the check does not);
/// `env` is the child's whole environment when it is built (`None`: the runner's, with the
/// settings' changes); `sandbox` holds the limits to install in the child.
pub(crate) async fn run(
    invocation: Invocation,
    settings: &ProcessSettings,
    sink: Option<Stream<'_>>,
    program: Option<&std::path::Path>,
    verified: Option<std::fs::File>,
    env: Option<&[(OsString, OsString)]>,
    sandbox: &mut Prepared,
) -> Result<Output, RunError> {
    let started = Instant::now();
    let (mut child, proxy) = launch(
        &invocation,
        settings,
        settings.stdin.is_some(),
        program,
        verified,
        env,
        sandbox,
    )?;
    let capture = Mutex::new(Capture {
        stdout: Vec::new(),
        stderr: Vec::new(),
        budget: settings.max_output_bytes,
        stdout_dropped: 0,
        stderr_dropped: 0,
    });
    let stdin = child.stdin.take();
    let stdin_bytes = settings.stdin.clone();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let name = invocation.name.clone();
    let mut reading = std::pin::pin!(async {
        let feed = async {
            if let (Some(mut pipe), Some(bytes)) = (stdin, stdin_bytes) {
                // A child that exits without reading its input is not an error.
                let _ = pipe.write_all(&bytes).await;
                let _ = pipe.shutdown().await;
            }
            Ok::<(), std::io::Error>(())
        };
        let tool: &str = &name;
        let (a, b, c) = tokio::join!(
            pump(stdout, StreamKind::Stdout, &capture, sink.as_ref(), tool),
            pump(stderr, StreamKind::Stderr, &capture, sink.as_ref(), tool),
            feed
        );
        a.and(b).and(c)
    });

    let mut status = None;
    let mut read_done = false;
    let mut timed_out = false;
    let mut phase = Phase::Running;
    let mut deadline = tokio::time::Instant::now() + settings.timeout;
    loop {
        tokio::select! {
            // Cancel-safe: a wait given up for another branch starts again next time round.
            s = child.wait(), if status.is_none() => {
                status = Some(s.map_err(RunError::Io)?);
                // Kill what the command left running in its group: no orphans.
                child.kill_group(Signal::Kill);
                if phase == Phase::Running {
                    phase = Phase::Killed;
                    deadline = tokio::time::Instant::now() + settings.kill_grace;
                }
            }
            r = &mut reading, if !read_done => {
                r.map_err(RunError::Io)?;
                read_done = true;
            }
            _ = tokio::time::sleep_until(deadline) => match phase {
                Phase::Running => {
                    timed_out = true;
                    child.kill_group(Signal::Term);
                    phase = Phase::Terminating;
                    deadline = tokio::time::Instant::now() + settings.kill_grace;
                }
                Phase::Terminating => {
                    child.kill_group(Signal::Kill);
                    phase = Phase::Killed;
                    deadline = tokio::time::Instant::now() + settings.kill_grace;
                }
                // Pipes held open by a process outside the group: stop reading.
                Phase::Killed => break,
            },
        }
        if status.is_some() && read_done {
            break;
        }
    }
    // Every process of the group has been sent SIGKILL; the child normally ends at once. One
    // stuck in the kernel (uninterruptible sleep) is left to tokio, which reaps it when it
    // ends: the call reports it as killed rather than wait without bound.
    let status = match status {
        Some(s) => exit_status(s),
        None => {
            child.kill_group(Signal::Kill);
            match tokio::time::timeout(settings.kill_grace, child.wait()).await {
                Ok(s) => exit_status(s.map_err(RunError::Io)?),
                Err(_) => ExitStatus::Signal(9),
            }
        }
    };
    let duration = started.elapsed();
    if let Some(proxy) = proxy {
        sandbox.report.egress = Some(proxy.finish().await);
    }
    let mut capture = capture.lock().unwrap_or_else(|p| p.into_inner());
    Ok(Output {
        name: invocation.name.into_owned(),
        argv: invocation.argv,
        status,
        stdout: std::mem::take(&mut capture.stdout),
        stderr: std::mem::take(&mut capture.stderr),
        stdout_dropped: capture.stdout_dropped,
        stderr_dropped: capture.stderr_dropped,
        timed_out,
        timeout: settings.timeout,
        duration,
        sandbox: std::mem::take(&mut sandbox.report),
        known_secrets: crate::filter::KnownSecrets::default(),
        tight_first: false,
    })
}

async fn pump<R: AsyncRead + Unpin>(
    reader: Option<R>,
    stream: StreamKind,
    capture: &Mutex<Capture>,
    sink: Option<&Stream<'_>>,
    tool: &str,
) -> std::io::Result<()> {
    let Some(mut reader) = reader else {
        return Ok(());
    };
    let mut redactor = sink.map(|s| crate::filter::StreamRedactor::new(s.filter, Some(tool)));
    let mut buf = vec![0u8; READ_BYTES];
    loop {
        // When nothing comes for a moment, the output has paused: the stream passes on what its
        // redactor kept back only to save work (a prompt after a long held key), before waiting
        // for more. Not at every empty pipe: each flush may read up to 64 KiB held again.
        let n = match redactor.as_mut() {
            None => reader.read(&mut buf).await?,
            // What the pipe already holds, without a timer (one per read cost 3% of a run).
            Some(r) => match ready_now(reader.read(&mut buf)) {
                Some(read) => read?,
                None => match tokio::time::timeout(PAUSE, reader.read(&mut buf)).await {
                    Ok(read) => read?,
                    Err(_) => {
                        if let Some(s) = sink {
                            send(s, stream, r.flush()).await;
                        }
                        reader.read(&mut buf).await?
                    }
                },
            },
        };
        if n == 0 {
            if let (Some(s), Some(r)) = (sink, redactor.take()) {
                send(s, stream, r.finish()).await;
            }
            return Ok(());
        }
        {
            let mut c = capture.lock().unwrap_or_else(|p| p.into_inner());
            let keep = n.min(c.budget);
            c.budget -= keep;
            let dropped = (n - keep) as u64;
            match stream {
                StreamKind::Stdout => {
                    c.stdout.extend_from_slice(&buf[..keep]);
                    c.stdout_dropped += dropped;
                }
                StreamKind::Stderr => {
                    c.stderr.extend_from_slice(&buf[..keep]);
                    c.stderr_dropped += dropped;
                }
            }
        }
        if let (Some(s), Some(r)) = (sink, redactor.as_mut()) {
            send(s, stream, r.push(&buf[..n])).await;
        }
    }
}

/// `future`'s output if it is ready at its first poll, else `None` (the future is dropped: a
/// read of a pipe that is not ready has read nothing).
fn ready_now<F: std::future::Future>(future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    match future
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    {
        std::task::Poll::Ready(output) => Some(output),
        std::task::Poll::Pending => None,
    }
}

/// How long a streamed command's pipe stays empty before its output counts as paused
/// (`StreamRedactor::flush`).
const PAUSE: Duration = Duration::from_millis(10);

/// How much one read of a child's pipe asks for, in bytes: a Linux pipe's default capacity, so
/// that a child writing faster than it is read is drained in one read. The redactor reads a
/// larger piece faster per byte (`BENCHMARKS.md`, run time 4).
const READ_BYTES: usize = 64 * 1024;

/// Sends a redacted piece of output, unless it is empty. A receiver that went away only stops
/// the stream, not the run.
async fn send(sink: &Stream<'_>, stream: StreamKind, text: String) {
    if !text.is_empty() {
        let _ = sink
            .tx
            .send(OutputChunk {
                stream,
                bytes: text.into_bytes(),
            })
            .await;
    }
}

fn exit_status(s: std::process::ExitStatus) -> ExitStatus {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return ExitStatus::Signal(sig);
        }
    }
    ExitStatus::Code(s.code().unwrap_or(-1))
}
