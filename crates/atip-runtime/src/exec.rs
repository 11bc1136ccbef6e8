//! Running commands with tokio: no shell, own process group, timeout, capped output.
//!
//! Every run goes through the [`Policy`] gate first. The child gets `/dev/null` as stdin, runs
//! in its own process group (Unix) and is killed with its whole group on timeout (SIGTERM,
//! then SIGKILL after a grace period), when it finishes (leftover background processes), and
//! when the run future is dropped. stdout and stderr are read concurrently into one combined
//! byte budget; what does not fit is read and counted, so the child never blocks on a full
//! pipe.

use std::ffi::OsString;
use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};

use crate::policy::{Decision, Policy, Reason};
use crate::{ArgvError, Invocation, ToInvocation, ToolResult};

/// Default timeout: 30 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default cap on captured stdout + stderr: 1 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 1024 * 1024;
/// Default time between SIGTERM and SIGKILL on timeout: 2 s.
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_secs(2);

/// What a confirmation handler is asked about: the command, its argv, merged effects, trust
/// and every reason it needs confirmation.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmationRequest {
    /// The command as it would run.
    pub invocation: Invocation,
    /// Why it needs confirmation.
    pub reasons: Vec<Reason>,
}

impl fmt::Display for ConfirmationRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` needs confirmation (", self.invocation.name)?;
        for (i, r) in self.reasons.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{r}")?;
        }
        write!(f, "): {}", shown_argv(&self.invocation.argv))
    }
}

/// Asks a person whether a command may run. Implemented for async closures
/// `Fn(ConfirmationRequest) -> impl Future<Output = bool>`.
pub trait Confirm: Send + Sync {
    /// `true` to run the command, `false` to refuse it.
    fn confirm(
        &self,
        request: ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = bool> + Send + '_>>;
}

impl<F, Fut> Confirm for F
where
    F: Fn(ConfirmationRequest) -> Fut + Send + Sync,
    Fut: Future<Output = bool> + Send + 'static,
{
    fn confirm(
        &self,
        request: ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = bool> + Send + '_>> {
        Box::pin(self(request))
    }
}

/// Why a command did not run (or could not be started).
#[derive(Debug)]
#[non_exhaustive]
pub enum RunError {
    /// The argv could not be built (NUL bytes, bad values).
    Argv(ArgvError),
    /// The policy refused the command.
    Denied {
        /// The command.
        invocation: Invocation,
        /// Every violation.
        reasons: Vec<Reason>,
    },
    /// The command needs confirmation and no handler is set. Ask a person, then retry with
    /// [`Runner::run_confirmed`].
    NeedsConfirmation(ConfirmationRequest),
    /// The confirmation handler said no.
    Declined(ConfirmationRequest),
    /// The program could not be started.
    Spawn {
        /// argv\[0\].
        program: OsString,
        /// The OS error.
        source: std::io::Error,
    },
    /// Reading output or waiting for the child failed.
    Io(std::io::Error),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Argv(e) => write!(f, "{e}"),
            RunError::Denied {
                invocation,
                reasons,
            } => {
                write!(f, "policy refuses `{}`: ", invocation.name)?;
                for (i, r) in reasons.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{r}")?;
                }
                Ok(())
            }
            RunError::NeedsConfirmation(req) => write!(f, "{req}; no confirmation handler is set"),
            RunError::Declined(req) => write!(f, "{req}; confirmation was declined"),
            RunError::Spawn { program, source } => {
                write!(f, "cannot start {:?}: {source}", program.to_string_lossy())
            }
            RunError::Io(e) => write!(f, "i/o error while running the command: {e}"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Argv(e) => Some(e),
            RunError::Spawn { source, .. } => Some(source),
            RunError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ArgvError> for RunError {
    fn from(e: ArgvError) -> Self {
        RunError::Argv(e)
    }
}

/// How a finished command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// It exited with this code.
    Code(i32),
    /// It was killed by this signal (Unix).
    Signal(i32),
}

impl ExitStatus {
    /// Exit code 0.
    pub fn success(self) -> bool {
        self == ExitStatus::Code(0)
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitStatus::Code(c) => write!(f, "exit code {c}"),
            ExitStatus::Signal(s) => write!(f, "killed by signal {s}"),
        }
    }
}

/// The result of a command that ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// Flattened name of the command.
    pub name: String,
    /// The argv it ran with.
    pub argv: Vec<OsString>,
    /// How it ended.
    pub status: ExitStatus,
    /// Captured stdout (within the combined cap).
    pub stdout: Vec<u8>,
    /// Captured stderr (within the combined cap).
    pub stderr: Vec<u8>,
    /// Bytes read beyond the cap and discarded, stdout and stderr together.
    pub dropped_bytes: u64,
    /// Whether it was stopped because it ran out of time.
    pub timed_out: bool,
    /// Wall-clock time from spawn to exit.
    pub duration: Duration,
}

impl Output {
    /// Exit code 0 and no timeout.
    pub fn success(&self) -> bool {
        self.status.success() && !self.timed_out
    }

    /// Whether output was cut at the cap.
    pub fn truncated(&self) -> bool {
        self.dropped_bytes > 0
    }

    /// stdout as UTF-8, invalid sequences replaced.
    pub fn stdout_lossy(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// stderr as UTF-8, invalid sequences replaced.
    pub fn stderr_lossy(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// The result to send back to the model: stdout, then stderr under a `[stderr]` line,
    /// then a status line (`[exit code 0]`, `[killed by signal 9]`, `[timed out after 30000
    /// ms]`) and, when output was cut, `[output truncated: N bytes dropped]`. An error result
    /// unless the command exited 0 in time.
    pub fn to_tool_result(&self) -> ToolResult {
        let mut text = self.stdout_lossy();
        let stderr = self.stderr_lossy();
        if !stderr.is_empty() {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("[stderr]\n");
            text.push_str(&stderr);
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        if self.timed_out {
            text.push_str(&format!(
                "[timed out after {} ms]",
                self.duration.as_millis()
            ));
        } else {
            text.push_str(&format!("[{}]", self.status));
        }
        if self.dropped_bytes > 0 {
            text.push_str(&format!(
                "\n[output truncated: {} bytes dropped]",
                self.dropped_bytes
            ));
        }
        ToolResult {
            content: text,
            is_error: !self.success(),
        }
    }
}

impl RunError {
    /// The error result to send back to the model for a call that did not run: the reason,
    /// with every policy reason listed.
    pub fn to_tool_result(&self) -> ToolResult {
        ToolResult::error(self.to_string())
    }
}

/// Runs commands through a [`Policy`] with limits. Cheap to clone.
///
/// ```no_run
/// # async fn demo() -> Result<(), atip_runtime::RunError> {
/// use atip_runtime::{Invocation, Runner};
/// let runner = Runner::new().timeout(std::time::Duration::from_secs(5));
/// let ls = Invocation {
///     name: "ls".into(),
///     argv: vec!["ls".into(), "-l".into()],
///     effects: std::borrow::Cow::Owned(atip_runtime::Effects::UNKNOWN),
///     trust: None,
/// };
/// let out = runner.run(&ls).await?;
/// println!("{}", out.stdout_lossy());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Runner {
    policy: Policy,
    timeout: Duration,
    kill_grace: Duration,
    max_output_bytes: usize,
    cwd: Option<PathBuf>,
    env: Vec<(OsString, Option<OsString>)>,
    env_clear: bool,
    confirm: Option<Arc<dyn Confirm>>,
}

impl fmt::Debug for Runner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runner")
            .field("policy", &self.policy)
            .field("timeout", &self.timeout)
            .field("kill_grace", &self.kill_grace)
            .field("max_output_bytes", &self.max_output_bytes)
            .field("cwd", &self.cwd)
            .field("env", &self.env)
            .field("env_clear", &self.env_clear)
            .field("confirm", &self.confirm.is_some())
            .finish()
    }
}

impl Default for Runner {
    fn default() -> Self {
        Runner::new()
    }
}

impl Runner {
    /// Default policy, 30 s timeout, 1 MiB output cap, inherited environment and directory,
    /// no confirmation handler.
    pub fn new() -> Self {
        Runner {
            policy: Policy::default(),
            timeout: DEFAULT_TIMEOUT,
            kill_grace: DEFAULT_KILL_GRACE,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            cwd: None,
            env: Vec::new(),
            env_clear: false,
            confirm: None,
        }
    }

    /// Uses `policy`.
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Kills a command still running after `timeout`.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Time between SIGTERM and SIGKILL when a command times out.
    pub fn kill_grace(mut self, grace: Duration) -> Self {
        self.kill_grace = grace;
        self
    }

    /// Keeps at most `bytes` of stdout and stderr together.
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = bytes;
        self
    }

    /// Runs commands in `dir`.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets an environment variable for commands.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), Some(value.into())));
        self
    }

    /// Removes an environment variable for commands.
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Self {
        self.env.push((key.into(), None));
        self
    }

    /// Starts commands with an empty environment (plus what [`Runner::env`] sets).
    pub fn env_clear(mut self) -> Self {
        self.env_clear = true;
        self
    }

    /// Asks `handler` when a command needs confirmation.
    pub fn confirm_with(mut self, handler: impl Confirm + 'static) -> Self {
        self.confirm = Some(Arc::new(handler));
        self
    }

    /// The policy in use.
    pub fn current_policy(&self) -> &Policy {
        &self.policy
    }

    /// Checks `command` against the policy and runs it. A command needing confirmation is
    /// put to the confirmation handler; without one it is refused with
    /// [`RunError::NeedsConfirmation`], which carries everything a person needs to decide.
    ///
    /// # Errors
    ///
    /// [`RunError`]: bad argv, refused or unconfirmed by policy, not startable, or I/O
    /// failure. A command that runs and fails (non-zero exit, timeout) is an `Ok` [`Output`].
    pub async fn run(&self, command: &(impl ToInvocation + ?Sized)) -> Result<Output, RunError> {
        self.gate_and_run(command.to_invocation()?, false).await
    }

    /// Like [`Runner::run`], but the caller has already obtained confirmation from a person:
    /// a command that needs confirmation runs. Commands the policy refuses stay refused.
    ///
    /// # Errors
    ///
    /// As [`Runner::run`], except [`RunError::NeedsConfirmation`] and
    /// [`RunError::Declined`].
    pub async fn run_confirmed(
        &self,
        command: &(impl ToInvocation + ?Sized),
    ) -> Result<Output, RunError> {
        self.gate_and_run(command.to_invocation()?, true).await
    }

    async fn gate_and_run(
        &self,
        invocation: Invocation,
        confirmed: bool,
    ) -> Result<Output, RunError> {
        match self.policy.evaluate(&invocation) {
            Decision::Allow => {}
            Decision::Deny(reasons) => {
                return Err(RunError::Denied {
                    invocation,
                    reasons,
                })
            }
            Decision::NeedsConfirmation(_) if confirmed => {}
            Decision::NeedsConfirmation(reasons) => {
                let request = ConfirmationRequest {
                    invocation,
                    reasons,
                };
                match &self.confirm {
                    None => return Err(RunError::NeedsConfirmation(request)),
                    Some(handler) => {
                        if !handler.confirm(request.clone()).await {
                            return Err(RunError::Declined(request));
                        }
                        return self.execute(request.invocation).await;
                    }
                }
            }
        }
        self.execute(invocation).await
    }

    /// Runs `invocation` without consulting the policy.
    ///
    /// # Errors
    ///
    /// [`RunError::Spawn`] or [`RunError::Io`].
    pub async fn execute(&self, invocation: Invocation) -> Result<Output, RunError> {
        let Some(program) = invocation.argv.first() else {
            return Err(RunError::Spawn {
                program: OsString::new(),
                source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty argv"),
            });
        };
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(&invocation.argv[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        if self.env_clear {
            cmd.env_clear();
        }
        for (k, v) in &self.env {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }

        let started = Instant::now();
        let mut child = cmd.spawn().map_err(|source| RunError::Spawn {
            program: program.clone(),
            source,
        })?;
        let group = GroupGuard(child.id());
        let capture = Mutex::new(Capture {
            stdout: Vec::new(),
            stderr: Vec::new(),
            budget: self.max_output_bytes,
            dropped: 0,
        });
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let mut reading = std::pin::pin!(async {
            let (a, b) = tokio::join!(
                pump(stdout, Stream::Stdout, &capture),
                pump(stderr, Stream::Stderr, &capture)
            );
            a.and(b)
        });
        let mut waiting = std::pin::pin!(child.wait());

        let mut status = None;
        let mut read_done = false;
        let mut timed_out = false;
        let mut phase = Phase::Running;
        let mut deadline = tokio::time::Instant::now() + self.timeout;
        loop {
            tokio::select! {
                s = &mut waiting, if status.is_none() => {
                    status = Some(s.map_err(RunError::Io)?);
                    // Reap what the command left running in its group: no orphans.
                    group.kill(Signal::Kill);
                    if phase == Phase::Running {
                        phase = Phase::Killed;
                        deadline = tokio::time::Instant::now() + self.kill_grace;
                    }
                }
                r = &mut reading, if !read_done => {
                    r.map_err(RunError::Io)?;
                    read_done = true;
                }
                _ = tokio::time::sleep_until(deadline) => match phase {
                    Phase::Running => {
                        timed_out = true;
                        group.kill(Signal::Term);
                        phase = Phase::Terminating;
                        deadline = tokio::time::Instant::now() + self.kill_grace;
                    }
                    Phase::Terminating => {
                        group.kill(Signal::Kill);
                        phase = Phase::Killed;
                        deadline = tokio::time::Instant::now() + self.kill_grace;
                    }
                    // Pipes held open by a process outside the group: stop reading.
                    Phase::Killed => break,
                },
            }
            if status.is_some() && read_done {
                break;
            }
        }
        let status = match status {
            Some(s) => s,
            None => (&mut waiting).await.map_err(RunError::Io)?,
        };
        let duration = started.elapsed();
        let mut capture = capture.lock().unwrap_or_else(|p| p.into_inner());
        Ok(Output {
            name: invocation.name.into_owned(),
            argv: invocation.argv,
            status: exit_status(status),
            stdout: std::mem::take(&mut capture.stdout),
            stderr: std::mem::take(&mut capture.stderr),
            dropped_bytes: capture.dropped,
            timed_out,
            duration,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    Terminating,
    Killed,
}

#[derive(Clone, Copy)]
enum Stream {
    Stdout,
    Stderr,
}

struct Capture {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    budget: usize,
    dropped: u64,
}

async fn pump<R: AsyncRead + Unpin>(
    reader: Option<R>,
    stream: Stream,
    capture: &Mutex<Capture>,
) -> std::io::Result<()> {
    let Some(mut reader) = reader else {
        return Ok(());
    };
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = reader.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        let mut c = capture.lock().unwrap_or_else(|p| p.into_inner());
        let keep = n.min(c.budget);
        c.budget -= keep;
        c.dropped += (n - keep) as u64;
        let target = match stream {
            Stream::Stdout => &mut c.stdout,
            Stream::Stderr => &mut c.stderr,
        };
        target.extend_from_slice(&buf[..keep]);
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

fn shown_argv(argv: &[OsString]) -> String {
    argv.iter()
        .map(|a| format!("{:?}", a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

/// Kills the child's process group when dropped (the run was cancelled or finished).
struct GroupGuard(Option<u32>);

impl GroupGuard {
    fn kill(&self, signal: Signal) {
        #[cfg(unix)]
        if let Some(pid) = self
            .0
            .and_then(|p| i32::try_from(p).ok())
            .filter(|p| *p > 0)
        {
            let sig = match signal {
                Signal::Term => libc::SIGTERM,
                Signal::Kill => libc::SIGKILL,
            };
            // SAFETY: plain syscall; a negative pid addresses the process group the child
            // leads (it was spawned with process_group(0)). ESRCH when it is gone is fine.
            unsafe {
                libc::kill(-pid, sig);
            }
        }
        #[cfg(not(unix))]
        let _ = signal;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill(Signal::Kill);
    }
}
