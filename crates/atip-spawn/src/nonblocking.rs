//! The asynchronous face (tokio): pipes as `AsyncRead`/`AsyncWrite`, the exit awaited through
//! a pidfd registered with the reactor (Linux), or tokio's process support elsewhere.

use std::io;

use tokio::io::{AsyncRead, AsyncWrite};

use super::{signal_group, PreExec, Signal, Spec};

/// A started child: its pipes and how to learn its exit.
///
/// Dropped, it kills its whole process group (`SIGKILL`: what the child left running goes
/// with it), and the child itself if it was not reaped, which is then reaped in the background,
/// so no zombie is left.
pub struct Child {
    /// The writing end of its stdin, when [`Spec::stdin`] asked for a pipe.
    pub stdin: Option<Box<dyn AsyncWrite + Send + Unpin>>,
    /// The reading end of its stdout.
    pub stdout: Option<Box<dyn AsyncRead + Send + Unpin>>,
    /// The reading end of its stderr.
    pub stderr: Option<Box<dyn AsyncRead + Send + Unpin>>,
    pid: u32,
    exit: Exit,
    /// Its private namespaces, let go in the background when it has been reaped.
    #[cfg(target_os = "linux")]
    _namespaces: super::vfork::Held,
}

/// Starts `spec` as a child of this process, applying `setup` (Linux) before `exec`. Call it
/// inside a tokio runtime (with I/O enabled): the pipes and the exit are registered with it.
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
        let pid = started.pid;
        // From here on a failure drops `child`, which kills and reaps the process.
        let mut child = Child {
            stdin: None,
            stdout: None,
            stderr: None,
            pid: pid as u32,
            exit: Exit::watch(pid),
            _namespaces: started.namespaces,
        };
        let reader = |fd| -> io::Result<Box<dyn AsyncRead + Send + Unpin>> {
            Ok(Box::new(tokio::net::unix::pipe::Receiver::from_owned_fd(
                fd,
            )?))
        };
        child.stdout = Some(reader(started.stdout)?);
        child.stderr = Some(reader(started.stderr)?);
        if let Some(w) = started.stdin {
            child.stdin = Some(Box::new(tokio::net::unix::pipe::Sender::from_owned_fd(w)?));
        }
        Ok(child)
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

    /// Waits for the child to exit and reaps it. Cancel-safe: a wait given up (in a `select!`)
    /// can be started again.
    ///
    /// # Errors
    ///
    /// The OS error of waiting (not expected for a child of this process).
    pub async fn wait(&mut self) -> io::Result<std::process::ExitStatus> {
        self.exit.wait(self.pid).await
    }

    /// Sends `signal` to the process group the child leads — what it started and left in its
    /// group too — and to the child itself while it is not reaped (in case it left the group).
    /// Processes already gone are no error. (Off Unix there are no groups: the child alone is
    /// ended, whatever the signal.)
    pub fn kill_group(&mut self, signal: Signal) {
        let unreaped = !self.exit.reaped();
        signal_group(self.pid, signal, unreaped);
        #[cfg(not(unix))]
        if unreaped {
            let _ = self.exit.child.start_kill();
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill_group(Signal::Kill);
        self.exit.abandon(self.pid);
    }
}

#[cfg(target_os = "linux")]
use linux::Exit;

#[cfg(not(target_os = "linux"))]
use portable::Exit;

#[cfg(target_os = "linux")]
mod linux {
    use std::io;
    use std::os::fd::OwnedFd;
    use std::os::unix::process::ExitStatusExt;

    use tokio::io::unix::AsyncFd;

    use super::super::vfork::{pidfd, reap};

    /// How the child's exit is learnt.
    pub(super) enum Exit {
        /// A pidfd, readable once the child has exited (Linux 5.3+).
        Watching(AsyncFd<OwnedFd>),
        /// No pidfd here: a blocking thread waits.
        Waiting(tokio::task::JoinHandle<io::Result<Option<i32>>>),
        /// Reaped.
        Reaped(std::process::ExitStatus),
    }

    impl Exit {
        pub(super) fn watch(pid: libc::pid_t) -> Exit {
            if let Some(fd) = pidfd(pid) {
                // SAFETY: an owned descriptor, open for as long as the `AsyncFd` holds it.
                let watch =
                    unsafe { AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE) };
                if let Ok(watch) = watch {
                    return Exit::Watching(watch);
                }
            }
            Exit::Waiting(tokio::task::spawn_blocking(move || reap(pid, 0)))
        }

        pub(super) fn reaped(&self) -> bool {
            matches!(self, Exit::Reaped(_))
        }

        pub(super) async fn wait(&mut self, pid: u32) -> io::Result<std::process::ExitStatus> {
            let pid = pid as libc::pid_t;
            loop {
                let raw = match self {
                    Exit::Reaped(status) => return Ok(*status),
                    Exit::Watching(fd) => {
                        let mut ready = fd.readable().await?;
                        match reap(pid, libc::WNOHANG)? {
                            Some(raw) => raw,
                            None => {
                                ready.clear_ready();
                                continue;
                            }
                        }
                    }
                    Exit::Waiting(thread) => thread
                        .await
                        .map_err(io::Error::other)??
                        .ok_or_else(|| io::Error::other("waitpid returned without a status"))?,
                };
                *self = Exit::Reaped(std::process::ExitStatus::from_raw(raw));
            }
        }

        /// The child is being dropped (and was sent `SIGKILL` if not reaped): reap it without
        /// blocking the caller.
        pub(super) fn abandon(&mut self, pid: u32) {
            let pid = pid as libc::pid_t;
            match self {
                // Its waiting thread reaps it.
                Exit::Reaped(_) | Exit::Waiting(_) => {}
                Exit::Watching(_) => {
                    if !matches!(reap(pid, libc::WNOHANG), Ok(None)) {
                        return;
                    }
                    // Stuck in the kernel for a moment: a thread reaps it when it ends.
                    let _ = std::thread::Builder::new()
                        .name("atip-reap".into())
                        .spawn(move || reap(pid, 0));
                }
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod portable {
    //! Other operating systems: tokio's process support, with the session set up in a
    //! `pre_exec` hook where there is one (Unix).

    use super::{Child, Spec};
    use std::io;
    use std::process::Stdio;

    pub(super) struct Exit {
        pub(super) child: tokio::process::Child,
        reaped: bool,
    }

    impl Exit {
        pub(super) async fn wait(&mut self, _pid: u32) -> io::Result<std::process::ExitStatus> {
            let status = self.child.wait().await?;
            self.reaped = true;
            Ok(status)
        }

        pub(super) fn reaped(&self) -> bool {
            self.reaped
        }

        pub(super) fn abandon(&mut self, _pid: u32) {
            // `kill_on_drop`: tokio kills and reaps it.
        }
    }

    pub(super) fn spawn(spec: &Spec<'_>) -> io::Result<Child> {
        let mut cmd = tokio::process::Command::new(spec.program);
        #[cfg(unix)]
        if let Some(arg0) = spec.argv.first() {
            cmd.arg0(arg0);
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
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(dir) = spec.cwd {
            cmd.current_dir(dir);
        }
        #[cfg(unix)]
        // SAFETY: the hook makes one async-signal-safe system call.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = cmd.spawn()?;
        let pid = child.id().unwrap_or(0);
        Ok(Child {
            stdin: child
                .stdin
                .take()
                .map(|p| Box::new(p) as Box<dyn tokio::io::AsyncWrite + Send + Unpin>),
            stdout: child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
            stderr: child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
            pid,
            exit: Exit {
                child,
                reaped: false,
            },
        })
    }
}
