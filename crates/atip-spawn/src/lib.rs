//! Start one child process: the file to run with its argv and whole environment, no shell,
//! stdin from a pipe or `/dev/null`, stdout and stderr into pipes, as a session of its own
//! (`setsid`: one process group, no controlling terminal, so `TIOCSTI` has no terminal to push
//! into), with close-on-exec set on every other descriptor the host left open, and a setup
//! hook ([`PreExec`]) applied before `exec`.
//!
//! On Linux the child is started the way `posix_spawn` starts one — `clone(CLONE_VM |
//! CLONE_VFORK)`, so its cost does not grow with the caller's memory as `fork`'s page-table
//! copy does — and does its setup on a stack of its own; its exit is watched through a pidfd.
//! Elsewhere the standard library (or tokio) starts it, with `setsid` in a `pre_exec` hook on
//! Unix, and the hook is not called.
//!
//! Two faces, one spawner:
//!
//! * `spawn` and `Child` at the root (feature `tokio`, off by default): pipes as tokio's
//!   `AsyncRead`/`AsyncWrite`, the exit awaited — what `atip-runtime`'s runner uses;
//! * [`blocking::spawn`]: pipes as [`Read`](std::io::Read)/[`Write`](std::io::Write), the exit
//!   waited for with a deadline ([`blocking::Child::wait_until`]) — what `atip-core`'s
//!   discovery (`TOOL --agent`, in build scripts) and `atip-fig`'s worker processes use.
//!
//! Either way a dropped [`Child`](blocking::Child) takes its whole process group with it
//! (`SIGKILL`) and is reaped, and [`kill_group`](blocking::Child::kill_group) signals the group
//! on demand. The program is a path: the spawner does not look it up on `PATH`.
//!
//! ```
//! use std::ffi::OsString;
//! use std::io::Read;
//! use std::path::Path;
//! use std::time::{Duration, Instant};
//!
//! let argv: Vec<OsString> = vec!["echo".into(), "hello".into()];
//! let env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
//! let spec = atip_spawn::Spec {
//!     program: Path::new("/bin/echo"),
//!     argv: &argv,
//!     env: &env,
//!     cwd: None,
//!     stdin: false,
//!     keep_fd: None,
//! };
//! let mut child = atip_spawn::blocking::spawn(&spec, None)?;
//! let mut out = String::new();
//! child.stdout.take().unwrap().read_to_string(&mut out)?;
//! match child.wait_until(Instant::now() + Duration::from_secs(5))? {
//!     Some(status) => assert!(status.success()),
//!     None => child.kill_group(atip_spawn::Signal::Kill),
//! }
//! assert_eq!(out, "hello\n");
//! # Ok::<(), std::io::Error>(())
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

use std::ffi::OsString;
use std::io;
use std::path::Path;

pub mod blocking;
#[cfg(feature = "tokio")]
mod nonblocking;
#[cfg(all(test, target_os = "linux"))]
mod tests;
#[cfg(target_os = "linux")]
mod vfork;

#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use nonblocking::{spawn, Child};

/// What to start. Its `Debug` form names the environment's variables, not their values.
#[derive(Clone, Copy)]
pub struct Spec<'a> {
    /// The file to execute: a path (no `PATH` lookup), or `/proc/self/fd/N` for a file held
    /// open in [`Spec::keep_fd`]. (The fallback off Linux hands it to
    /// [`std::process::Command`], which would look a bare name up; do not rely on that.)
    pub program: &'a Path,
    /// The argument vector, `argv[0]` as the child sees it.
    pub argv: &'a [OsString],
    /// The child's whole environment (nothing is inherited that is not here).
    pub env: &'a [(OsString, OsString)],
    /// The working directory (`None`: the caller's).
    pub cwd: Option<&'a Path>,
    /// Whether stdin is a pipe (else `/dev/null`).
    pub stdin: bool,
    /// A descriptor the child keeps open across `exec` (Linux; ignored elsewhere): a verified
    /// program, which a script's interpreter opens again by its `/proc/self/fd` name. It must
    /// not be 0, 1 or 2, which the child's standard streams take (see [`above_stdio`]).
    pub keep_fd: Option<i32>,
}

impl std::fmt::Debug for Spec<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spec")
            .field("program", &self.program)
            .field("argv", &self.argv)
            .field("env", &self.env.iter().map(|(k, _)| k).collect::<Vec<_>>())
            .field("cwd", &self.cwd)
            .field("stdin", &self.stdin)
            .field("keep_fd", &self.keep_fd)
            .finish()
    }
}

/// What a child does between its start and `exec`, besides the spawner's own steps, on Linux:
/// the hook through which a sandbox confines the child (`atip-runtime`'s implements it).
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
pub unsafe trait PreExec: Sync {
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

/// A signal for a child's process group: [`blocking::Child::kill_group`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
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
pub fn above_stdio(fd: std::os::fd::OwnedFd) -> io::Result<std::os::fd::OwnedFd> {
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
