//! Starting one child process: the file to run with its argv and whole environment, no shell,
//! stdin from a pipe or `/dev/null`, stdout and stderr into pipes, as a session of its own
//! (`setsid`: one process group, no controlling terminal, so `TIOCSTI` has no terminal to push
//! into), with close-on-exec set on every other descriptor the host left open, and a setup
//! hook ([`PreExec`], the sandbox's) applied before `exec`.
//!
//! On Linux the child is started the way `posix_spawn` starts one — `clone(CLONE_VM |
//! CLONE_VFORK)`, so its cost does not grow with the runner's memory as `fork`'s page-table copy
//! does — and does its setup on a stack of its own (see `vfork`); its exit is watched through a
//! pidfd. Elsewhere tokio's process support starts it.

use std::ffi::OsString;
use std::io;
use std::path::Path;

mod nonblocking;
#[cfg(target_os = "linux")]
mod vfork;

pub(crate) use nonblocking::{spawn, Child};

/// What to start.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spec<'a> {
    /// The file to execute: a path (no `PATH` lookup), or `/proc/self/fd/N` for a file held
    /// open in [`Spec::keep_fd`].
    pub program: &'a Path,
    /// The argument vector, `argv[0]` as the child sees it.
    pub argv: &'a [OsString],
    /// The child's whole environment (nothing is inherited that is not here).
    pub env: &'a [(OsString, OsString)],
    /// The working directory (`None`: the caller's).
    pub cwd: Option<&'a Path>,
    /// Whether stdin is a pipe (else `/dev/null`).
    pub stdin: bool,
    /// A descriptor the child keeps open across `exec` (the verified program, which a script's
    /// interpreter opens again by its `/proc/self/fd` name). It must not be 0, 1 or 2 (see
    /// [`above_stdio`]).
    pub keep_fd: Option<i32>,
}

/// What a child does between its start and `exec`, besides the spawner's own steps, on Linux.
///
/// The spawner's child, after `clone(CLONE_VM | CLONE_VFORK)`, resets every signal handler to
/// the default, connects its standard streams, calls `setsid` and marks the other descriptors
/// close-on-exec; then it calls [`PreExec::enter_namespaces`], changes to the working
/// directory, calls [`PreExec::restrict`] and `exec`s. Other systems do not call the hook.
///
/// # Safety
///
/// [`PreExec::enter_namespaces`] and [`PreExec::restrict`] run in the child, on the parent's
/// memory and a stack of the spawner's, while the thread that called the spawn is suspended
/// (and the parent's other threads run on). An implementation must therefore only make
/// system calls on data prepared beforehand and borrowed from `self`: no allocation or
/// deallocation (the allocator's lock may be held by a thread that does not exist in the
/// child), no lock, no destructor of anything shared, no panic, nothing that is not
/// async-signal-safe. Its errors must carry an OS error code only
/// ([`io::Error::from_raw_os_error`], [`io::Error::last_os_error`]), which allocate nothing;
/// the spawner keeps only the code. What the child changes must concern the child alone (its
/// namespaces, limits, credentials): it must not write to memory the parent reads, except
/// through atomics.
pub(crate) unsafe trait PreExec: Sync {
    /// The namespaces (`/proc/PID/ns/` names such as `"mnt"` or `"net"`) the child creates for
    /// itself alone. Their teardown when the child ends (unmounting a mount namespace waits for
    /// an RCU grace period) is worth keeping off the caller's path: the spawner opens them once
    /// the child has called `exec`, and closes them on a background thread after the child is
    /// reaped. Called in the parent, after `exec`; the default is none.
    fn private_namespaces(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// The first half of the setup, in the child before it changes to its working directory
    /// (so that a directory entered inside a new mount namespace is the one under its mounts).
    /// The default does nothing.
    ///
    /// # Errors
    ///
    /// The OS error of the step that failed: the spawn fails with it.
    fn enter_namespaces(&self) -> io::Result<()> {
        Ok(())
    }

    /// The second half, in the child in its working directory, just before `exec`: limits,
    /// credentials, Landlock, seccomp. The default does nothing.
    ///
    /// # Errors
    ///
    /// As for [`PreExec::enter_namespaces`].
    fn restrict(&self) -> io::Result<()> {
        Ok(())
    }

    /// What the setup is, for the message of a spawn that failed in it: "could not start:
    /// {what}: {OS error}". The default is "its setup before exec".
    fn what(&self) -> &'static str {
        "its setup before exec"
    }
}

/// A signal for a child's process group: [`Child::kill_group`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Signal {
    /// `SIGTERM`: asks the processes to end.
    Term,
    /// `SIGKILL`: ends them.
    Kill,
}

/// `fd`, or a duplicate of it above stderr (close-on-exec) when it is 0, 1 or 2: a descriptor
/// the child still needs must not be one its `dup2` of the standard streams overwrites (a host
/// that closed its stdin or stdout gets those numbers back from `open`).
///
/// # Errors
///
/// The OS error of `fcntl(F_DUPFD_CLOEXEC)`.
#[cfg(unix)]
pub(crate) fn above_stdio(fd: std::os::fd::OwnedFd) -> io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::{AsRawFd, FromRawFd};
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    // SAFETY: duplicates a descriptor owned here; the original closes when `fd` drops.
    let dup = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
    if dup < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `dup` was just created and is owned by nothing else.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(dup) })
}

/// Sends `signal` to the process group `pid` leads and, when `leader` (the child is not reaped
/// yet, so its pid cannot have been reused), to the process itself.
fn signal_group(pid: u32, signal: Signal, leader: bool) {
    #[cfg(unix)]
    if let Some(pid) = i32::try_from(pid).ok().filter(|p| *p > 0) {
        let sig = match signal {
            Signal::Term => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
        };
        // SAFETY: plain system calls on integers. The negative pid addresses the group the
        // child leads (it called setsid); the positive one the child, which holds its pid
        // until it is reaped. ESRCH when they are gone is fine.
        unsafe {
            libc::kill(-pid, sig);
            if leader {
                libc::kill(pid, sig);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = (pid, signal, leader);
}
