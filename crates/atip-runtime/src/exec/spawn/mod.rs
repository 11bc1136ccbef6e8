//! Starting one child process: the file to run with its argv and whole environment, no shell,
//! stdin from a pipe or `/dev/null`, stdout and stderr into pipes, as a session of its own
//! (`setsid`: one process group, no controlling terminal, so `TIOCSTI` has no terminal to push
//! into), with close-on-exec set on every other descriptor the host left open, and the
//! sandbox's setup applied before `exec`.
//!
//! On Linux the child is started the way `posix_spawn` starts one — `clone(CLONE_VM |
//! CLONE_VFORK)`, so its cost does not grow with the runner's memory as `fork`'s page-table copy
//! does — and does its setup on a stack of its own (see `vfork`); its exit is watched through a
//! pidfd. Elsewhere tokio's process support starts it.

use std::ffi::OsString;
use std::io;
use std::path::Path;

use tokio::io::{AsyncRead, AsyncWrite};

#[cfg(target_os = "linux")]
mod vfork;

/// What to start.
pub(crate) struct Spec<'a> {
    /// The file to execute (a path, or `/proc/self/fd/N` for a verified program).
    pub program: &'a Path,
    /// The argument vector, `argv[0]` as the child sees it.
    pub argv: &'a [OsString],
    /// The child's whole environment.
    pub env: &'a [(OsString, OsString)],
    /// The working directory (`None`: the runner's).
    pub cwd: Option<&'a Path>,
    /// Whether stdin is a pipe (else `/dev/null`).
    pub stdin: bool,
    /// A descriptor the child keeps open across `exec` (the verified program, which a script's
    /// interpreter opens again by its `/proc/self/fd` name).
    pub keep_fd: Option<i32>,
}

/// A started child: its pipes and how to learn its exit. Dropped before it was reaped, it is
/// killed (`SIGKILL`) and reaped in the background, so no zombie is left.
pub(crate) struct Child {
    pub stdin: Option<Box<dyn AsyncWrite + Send + Unpin>>,
    pub stdout: Option<Box<dyn AsyncRead + Send + Unpin>>,
    pub stderr: Option<Box<dyn AsyncRead + Send + Unpin>>,
    pid: u32,
    exit: Exit,
    /// Its private namespaces, let go in the background when it has been reaped.
    #[cfg(target_os = "linux")]
    _namespaces: vfork::Held,
}

impl Child {
    /// The child's process id (also its process group's and session's).
    pub fn id(&self) -> u32 {
        self.pid
    }
}

/// Starts `spec`, applying `sandbox`'s child-side setup (Linux) before `exec`.
///
/// # Errors
///
/// The OS error of the step that failed: creating the pipes, the spawn itself, or in the child
/// the setup or `exec` (an `exec` error is returned as the OS reported it, so a missing program
/// is [`io::ErrorKind::NotFound`]; a setup error names its step).
pub(crate) fn spawn(spec: &Spec<'_>, sandbox: &super::sandbox::Prepared) -> io::Result<Child> {
    #[cfg(target_os = "linux")]
    {
        vfork::spawn(spec, sandbox.child_setup())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = sandbox;
        portable::spawn(spec)
    }
}

#[cfg(target_os = "linux")]
use vfork::Exit;

#[cfg(not(target_os = "linux"))]
use portable::Exit;

impl Child {
    /// Waits for the child to exit and reaps it.
    ///
    /// # Errors
    ///
    /// The OS error of waiting (not expected for a child of this process).
    pub async fn wait(&mut self) -> io::Result<std::process::ExitStatus> {
        self.exit.wait(self.pid).await
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.exit.abandon(self.pid);
    }
}

#[cfg(not(target_os = "linux"))]
mod portable {
    //! Other operating systems: tokio's process support, with the session set up in a
    //! `pre_exec` hook where there is one (Unix).

    use super::{Child, Spec};
    use std::io;
    use std::process::Stdio;

    pub(super) struct Exit(tokio::process::Child);

    impl Exit {
        pub(super) async fn wait(&mut self, _pid: u32) -> io::Result<std::process::ExitStatus> {
            self.0.wait().await
        }

        pub(super) fn abandon(&mut self, _pid: u32) {
            // `kill_on_drop`: tokio kills and reaps it.
        }
    }

    pub(super) fn spawn(spec: &Spec<'_>) -> io::Result<Child> {
        let mut cmd = tokio::process::Command::new(spec.program);
        #[cfg(unix)]
        cmd.arg0(&spec.argv[0]);
        cmd.args(&spec.argv[1..])
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
            exit: Exit(child),
        })
    }
}
