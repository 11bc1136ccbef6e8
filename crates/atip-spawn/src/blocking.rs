//! The blocking face: pipes as [`Read`]/[`Write`], the exit waited for with or without a
//! deadline (through a pidfd on Linux), no async runtime. For callers that start one program
//! at a time from a plain thread: a build script's discovery, a worker process fed requests.
//!
//! The child is started as the asynchronous face (`spawn`, feature `tokio`) starts it — the
//! same `clone(CLONE_VM | CLONE_VFORK)` path on Linux, the same session of its own, the same
//! descriptors kept out — and elsewhere with [`std::process::Command`] (with `setsid` in a
//! `pre_exec` hook on Unix).

use std::fmt;
use std::io::{self, Read, Write};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use super::{signal_group, PreExec, Signal, Spec};

#[cfg(target_os = "linux")]
type StdinPipe = io::PipeWriter;
#[cfg(target_os = "linux")]
type OutputPipe = io::PipeReader;
#[cfg(not(target_os = "linux"))]
type StdinPipe = std::process::ChildStdin;
#[cfg(not(target_os = "linux"))]
type OutputPipe = std::process::ChildStdout;
#[cfg(not(target_os = "linux"))]
type ErrorPipe = std::process::ChildStderr;
#[cfg(target_os = "linux")]
type ErrorPipe = io::PipeReader;

/// The writing end of a child's stdin. Dropping it closes the child's input; a write after
/// the child closed its end is an [`io::ErrorKind::BrokenPipe`] error.
pub struct ChildStdin(StdinPipe);

/// The reading end of a child's stdout: end of file once every process holding the other end
/// (the child, and whatever it started with it) has closed it.
pub struct ChildStdout(OutputPipe);

/// The reading end of a child's stderr, as [`ChildStdout`].
pub struct ChildStderr(ErrorPipe);

impl Write for ChildStdin {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.0.write_vectored(bufs)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl Read for ChildStdout {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }

    fn read_vectored(&mut self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        self.0.read_vectored(bufs)
    }
}

impl Read for ChildStderr {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }

    fn read_vectored(&mut self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        self.0.read_vectored(bufs)
    }
}

macro_rules! pipe_common {
    ($($pipe:ident),*) => {$(
        impl fmt::Debug for $pipe {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($pipe)).finish_non_exhaustive()
            }
        }

        #[cfg(unix)]
        impl std::os::fd::AsFd for $pipe {
            fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
                self.0.as_fd()
            }
        }
    )*};
}
pipe_common!(ChildStdin, ChildStdout, ChildStderr);

/// A started child: its pipes and its exit, waited for on the calling thread.
///
/// Dropped, it kills its whole process group (`SIGKILL`: what the child left running goes
/// with it), and the child itself if it was not reaped, which is then reaped without blocking
/// the caller (on a thread of its own when it does not end at once), so no zombie is left.
pub struct Child {
    /// The writing end of its stdin, when [`Spec::stdin`] asked for a pipe.
    pub stdin: Option<ChildStdin>,
    /// The reading end of its stdout.
    pub stdout: Option<ChildStdout>,
    /// The reading end of its stderr.
    pub stderr: Option<ChildStderr>,
    pid: u32,
    /// Its exit status, once reaped.
    status: Option<ExitStatus>,
    exit: Exit,
}

impl fmt::Debug for Child {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Child")
            .field("pid", &self.pid)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

/// Starts `spec` as a child of this process, applying `setup` (Linux) before `exec`.
///
/// # Errors
///
/// The OS error of the step that failed: creating the pipes, the spawn itself, or in the child
/// the setup or `exec` (an `exec` error is returned as the OS reported it, so a missing program
/// is [`io::ErrorKind::NotFound`] and a file still open for writing
/// [`io::ErrorKind::ExecutableFileBusy`]; an error of another step names it).
pub fn spawn(spec: &Spec<'_>, setup: Option<&dyn PreExec>) -> io::Result<Child> {
    #[cfg(target_os = "linux")]
    {
        let started = super::vfork::spawn(spec, setup)?;
        Ok(Child {
            stdin: started.stdin.map(|fd| ChildStdin(fd.into())),
            stdout: Some(ChildStdout(started.stdout.into())),
            stderr: Some(ChildStderr(started.stderr.into())),
            pid: started.pid as u32,
            status: None,
            exit: Exit {
                pidfd: super::vfork::pidfd(started.pid),
                _namespaces: started.namespaces,
            },
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = setup;
        portable::spawn(spec)
    }
}

impl Child {
    /// The child's process id (also its process group's and session's).
    pub fn id(&self) -> u32 {
        self.pid
    }

    /// Its exit status if it has exited (and reaps it then), `None` while it runs.
    ///
    /// # Errors
    ///
    /// The OS error of waiting (not expected for a child of this process).
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if self.status.is_none() {
            self.status = self.exit.reap(self.pid, false)?;
        }
        Ok(self.status)
    }

    /// Waits for the child to exit and reaps it.
    ///
    /// # Errors
    ///
    /// As [`Child::try_wait`].
    pub fn wait(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        let status = self
            .exit
            .reap(self.pid, true)?
            .ok_or_else(|| io::Error::other("waitpid returned without a status"))?;
        self.status = Some(status);
        Ok(status)
    }

    /// Waits for the child to exit until `deadline`: its exit status (it is reaped), or `None`
    /// when it still runs at the deadline (a deadline already past only looks). On Linux the
    /// wait sleeps on a pidfd and wakes when the child exits; elsewhere (or on a kernel before
    /// 5.3) it looks every few milliseconds.
    ///
    /// # Errors
    ///
    /// As [`Child::try_wait`].
    pub fn wait_until(&mut self, deadline: Instant) -> io::Result<Option<ExitStatus>> {
        let mut pause = Duration::from_micros(50);
        loop {
            if let Some(status) = self.try_wait()? {
                return Ok(Some(status));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            if !self.exit.sleep(left) {
                std::thread::sleep(pause.min(left));
                pause = (pause * 2).min(Duration::from_millis(5));
            }
        }
    }

    /// Sends `signal` to the process group the child leads — what it started and left in its
    /// group too — and to the child itself while it is not reaped (in case it left the group).
    /// Processes already gone are no error. (Off Unix there are no groups: the child alone is
    /// ended, whatever the signal.)
    pub fn kill_group(&mut self, signal: Signal) {
        let unreaped = self.status.is_none();
        signal_group(self.pid, signal, unreaped);
        #[cfg(not(unix))]
        if unreaped {
            self.exit.kill();
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill_group(Signal::Kill);
        if self.status.is_none() && !matches!(self.exit.reap(self.pid, false), Ok(Some(_))) {
            // Stuck in the kernel for a moment: a thread reaps it when it ends.
            self.exit.reap_in_background(self.pid);
        }
    }
}

/// How the child's exit is learnt (Linux): a pidfd, readable once it has exited.
#[cfg(target_os = "linux")]
struct Exit {
    /// `None` on a kernel before 5.3.
    pidfd: Option<std::os::fd::OwnedFd>,
    /// Its private namespaces, let go in the background when the child is dropped.
    _namespaces: super::vfork::Held,
}

#[cfg(target_os = "linux")]
impl Exit {
    /// `waitpid`, blocking or not; the status when the child was reaped.
    fn reap(&mut self, pid: u32, block: bool) -> io::Result<Option<ExitStatus>> {
        use std::os::unix::process::ExitStatusExt;
        let flags = if block { 0 } else { libc::WNOHANG };
        Ok(super::vfork::reap(pid as libc::pid_t, flags)?.map(ExitStatus::from_raw))
    }

    /// Sleeps until the child exits or `at_most` has passed; `false` when there is no pidfd to
    /// sleep on.
    fn sleep(&self, at_most: Duration) -> bool {
        use std::os::fd::AsRawFd;
        let Some(fd) = &self.pidfd else {
            return false;
        };
        let mut poll = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // Rounded up, so that the deadline is not missed by a spin of zero-length polls.
        let ms = at_most
            .as_micros()
            .div_ceil(1000)
            .min(libc::c_int::MAX as u128) as libc::c_int;
        // SAFETY: poll on one pollfd on the stack, for a descriptor owned by `self`. An EINTR
        // or error only ends this sleep early; the caller looks again.
        unsafe { libc::poll(&mut poll, 1, ms) };
        true
    }

    fn reap_in_background(&mut self, pid: u32) {
        let pid = pid as libc::pid_t;
        let _ = std::thread::Builder::new()
            .name("atip-reap".into())
            .spawn(move || super::vfork::reap(pid, 0));
    }
}

#[cfg(not(target_os = "linux"))]
use portable::Exit;

#[cfg(not(target_os = "linux"))]
mod portable {
    //! Other operating systems: [`std::process::Command`], with the session set up in a
    //! `pre_exec` hook where there is one (Unix).

    use std::io;
    use std::process::{ExitStatus, Stdio};
    use std::time::Duration;

    use super::{Child, ChildStderr, ChildStdin, ChildStdout, Spec};

    pub(super) struct Exit(Option<std::process::Child>);

    impl Exit {
        pub(super) fn reap(&mut self, _pid: u32, block: bool) -> io::Result<Option<ExitStatus>> {
            let Some(child) = self.0.as_mut() else {
                return Ok(None);
            };
            if block {
                child.wait().map(Some)
            } else {
                child.try_wait()
            }
        }

        pub(super) fn sleep(&self, _at_most: Duration) -> bool {
            false
        }

        #[cfg(not(unix))]
        pub(super) fn kill(&mut self) {
            if let Some(child) = self.0.as_mut() {
                let _ = child.kill();
            }
        }

        pub(super) fn reap_in_background(&mut self, _pid: u32) {
            if let Some(mut child) = self.0.take() {
                let _ = std::thread::Builder::new()
                    .name("atip-reap".into())
                    .spawn(move || child.wait());
            }
        }
    }

    pub(super) fn spawn(spec: &Spec<'_>) -> io::Result<Child> {
        let mut cmd = std::process::Command::new(spec.program);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            if let Some(arg0) = spec.argv.first() {
                cmd.arg0(arg0);
            }
            // SAFETY: the hook makes one async-signal-safe system call.
            unsafe {
                cmd.pre_exec(|| {
                    if libc::setsid() == -1 {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        cmd.args(spec.argv.get(1..).unwrap_or_default())
            .env_clear()
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(if spec.stdin {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = spec.cwd {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn()?;
        Ok(Child {
            stdin: child.stdin.take().map(ChildStdin),
            stdout: child.stdout.take().map(ChildStdout),
            stderr: child.stderr.take().map(ChildStderr),
            pid: child.id(),
            status: None,
            exit: Exit(Some(child)),
        })
    }
}
