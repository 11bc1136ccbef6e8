//! The Linux spawn: `clone(CLONE_VM | CLONE_VFORK)`, as `posix_spawn` does it, with our own
//! setup between the clone and `exec`.
//!
//! The child runs on the parent's memory, on a stack mapped for it, while the calling thread
//! waits (`CLONE_VFORK`) until it has called `exec` or exited. It therefore only makes system
//! calls on data prepared here and borrowed through `Context`: no allocation, no destructor,
//! no lock, and its one write to shared memory is the failure word the parent reads after the
//! clone returns. Signals are blocked around the clone, and the child resets every handler to
//! the default before unblocking them, so no handler of the parent ever runs on the child's
//! stack. The child does not share the parent's descriptor table, working directory, signal
//! handlers or credentials (no `CLONE_FILES`, `CLONE_FS`, `CLONE_SIGHAND`, `CLONE_THREAD`),
//! so `dup2`, `chdir`, `setsid`, namespaces, Landlock and seccomp apply to it alone.

use std::ffi::{c_void, CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, OnceLock};

use super::{above_stdio, PreExec, Spec};

/// The child's stack: deep enough for the setup's calls, mapped lazily by the kernel.
const STACK_BYTES: usize = 256 * 1024;

/// Where the child failed, for the error message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
enum Step {
    Stdio = 1,
    WorkingDir = 2,
    Session = 3,
    Descriptors = 4,
    Sandbox = 5,
    Exec = 6,
}

impl Step {
    fn from_code(code: u32) -> Step {
        match code {
            1 => Step::Stdio,
            2 => Step::WorkingDir,
            3 => Step::Session,
            4 => Step::Descriptors,
            5 => Step::Sandbox,
            _ => Step::Exec,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Step::Stdio => "connecting its standard streams",
            Step::WorkingDir => "changing to its working directory",
            Step::Session => "starting its own session",
            Step::Descriptors => "marking inherited descriptors close-on-exec",
            Step::Sandbox => "its setup before exec",
            Step::Exec => "exec",
        }
    }
}

/// Everything the child reads, prepared by the parent.
struct Context<'a> {
    program: &'a CString,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    cwd: Option<&'a CString>,
    /// The child's stdin, stdout and stderr (all above 2, close-on-exec).
    stdio: [RawFd; 3],
    keep_fd: Option<RawFd>,
    setup: Option<&'a dyn PreExec>,
    /// `step << 32 | errno` when the child failed before `exec`; 0 when `exec` succeeded.
    failure: AtomicU64,
}

/// A NUL-terminated array of pointers into `strings`, which must outlive it.
fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

fn c_string(s: &std::ffi::OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "an argument, variable or path holds a NUL byte",
        )
    })
}

/// A pipe whose both ends are close-on-exec and above the standard descriptors, so that the
/// child's `dup2` onto 0–2 never overwrites one it still needs.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned here.
    let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((above_stdio(r)?, above_stdio(w)?))
}

fn dev_null() -> io::Result<OwnedFd> {
    // SAFETY: open of a NUL-terminated path.
    let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened.
    above_stdio(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// A stack for the child, with an inaccessible guard page below it; unmapped when dropped.
struct Stack {
    base: *mut c_void,
}

impl Stack {
    fn map() -> io::Result<Stack> {
        // SAFETY: an anonymous private mapping; the guard page is inside it.
        unsafe {
            let base = libc::mmap(
                std::ptr::null_mut(),
                STACK_BYTES,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            );
            if base == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            let stack = Stack { base };
            let page = usize::try_from(libc::sysconf(libc::_SC_PAGESIZE)).unwrap_or(4096);
            if libc::mprotect(base, page, libc::PROT_NONE) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(stack)
        }
    }

    fn top(&self) -> *mut c_void {
        // SAFETY: one past the end of the mapping, which `clone` takes as the stack's top.
        unsafe { self.base.cast::<u8>().add(STACK_BYTES).cast() }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping made in `map`, which nothing uses any more (the child
        // has called exec or exited before `clone` returned).
        unsafe { libc::munmap(self.base, STACK_BYTES) };
    }
}

/// A child that has called `exec`: its pid (also its process group's and session's), the
/// parent's ends of its pipes, and its private namespaces.
///
/// Not reaped: whoever takes it must wait for it (or kill and reap it).
pub(super) struct Started {
    pub pid: libc::pid_t,
    /// The writing end of its stdin, when [`Spec::stdin`] asked for a pipe.
    pub stdin: Option<OwnedFd>,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    pub namespaces: Held,
}

/// Starts `spec`, with `setup` applied in the child before `exec`.
pub(super) fn spawn(spec: &Spec<'_>, setup: Option<&dyn PreExec>) -> io::Result<Started> {
    let program = c_string(spec.program.as_os_str())?;
    let argv: Vec<CString> = spec
        .argv
        .iter()
        .map(|a| c_string(a))
        .collect::<io::Result<_>>()?;
    let envp: Vec<CString> = spec
        .env
        .iter()
        .map(|(k, v)| {
            let mut kv = OsString::with_capacity(k.len() + v.len() + 1);
            kv.push(k);
            kv.push("=");
            kv.push(v);
            c_string(&kv)
        })
        .collect::<io::Result<_>>()?;
    let argv_ptrs = pointers(&argv);
    let envp_ptrs = pointers(&envp);
    let cwd = spec.cwd.map(|d| c_string(d.as_os_str())).transpose()?;

    let (stdin_child, stdin_parent) = if spec.stdin {
        let (r, w) = pipe()?;
        (r, Some(w))
    } else {
        (dev_null()?, None)
    };
    let (stdout_parent, stdout_child) = pipe()?;
    let (stderr_parent, stderr_child) = pipe()?;
    let stack = Stack::map()?;
    let context = Context {
        program: &program,
        argv: argv_ptrs.as_ptr(),
        envp: envp_ptrs.as_ptr(),
        cwd: cwd.as_ref(),
        stdio: [
            stdin_child.as_raw_fd(),
            stdout_child.as_raw_fd(),
            stderr_child.as_raw_fd(),
        ],
        keep_fd: spec.keep_fd,
        setup,
        failure: AtomicU64::new(0),
    };

    // SAFETY: signals are blocked across the clone (the child unblocks them after resetting
    // every handler); `child_main` only reads `context`, which outlives the child's use of it
    // (the calling thread is suspended until the child has called exec or exited).
    let pid = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let pid = libc::clone(
            child_main,
            stack.top(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::from_ref(&context).cast_mut().cast(),
        );
        let e = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if pid < 0 {
            return Err(e);
        }
        pid
    };
    drop(stack);
    let failure = context.failure.load(Ordering::Acquire);
    if failure != 0 {
        // The child exited without exec: reap it and say why.
        reap(pid, 0)?;
        let step = Step::from_code((failure >> 32) as u32);
        let os = io::Error::from_raw_os_error((failure & 0xffff_ffff) as i32);
        return Err(match (step, setup) {
            (Step::Exec, _) => os,
            (Step::Sandbox, Some(setup)) => {
                io::Error::new(os.kind(), format!("{}: {os}", setup.what()))
            }
            _ => io::Error::new(os.kind(), format!("{}: {os}", step.what())),
        });
    }
    drop((stdin_child, stdout_child, stderr_child));
    // The child has called exec; it normally still runs, so its private namespaces can be held
    // (a child that already exited simply holds nothing).
    let namespaces = Held(
        setup
            .map(PreExec::private_namespaces)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|kind| {
                let path = CString::new(format!("/proc/{pid}/ns/{kind}")).ok()?;
                // SAFETY: open of a NUL-terminated path; the pid is our unreaped child's.
                let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
                // SAFETY: `fd` was just opened.
                (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
            })
            .collect(),
    );
    Ok(Started {
        pid,
        stdin: stdin_parent,
        stdout: stdout_parent,
        stderr: stderr_parent,
        namespaces,
    })
}

/// The child, on its own stack. Returns only by `exec` or `_exit`.
extern "C" fn child_main(arg: *mut c_void) -> libc::c_int {
    // SAFETY: `arg` is the `Context` the parent keeps alive while this runs.
    let context = unsafe { &*arg.cast::<Context<'_>>() };
    let (step, errno) = prepare_and_exec(context);
    context.failure.store(
        (u64::from(step as u32) << 32) | u64::from(errno as u32),
        Ordering::Release,
    );
    // SAFETY: ends the child without running anything of the parent's.
    unsafe { libc::_exit(127) }
}

/// Everything between the clone and `exec`; returns the step that failed and its errno.
fn prepare_and_exec(c: &Context<'_>) -> (Step, i32) {
    let errno = || {
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EINVAL)
    };
    // SAFETY: system calls (every call in this block) on descriptors, strings and arrays the
    // parent prepared and keeps alive; the hook's steps keep to `PreExec`'s contract.
    unsafe {
        // The parent's handlers must never run here: every signal to its default.
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        for signal in 1..=64 {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                // Numbers the C library reserves answer EINVAL: nothing to reset there.
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
        for (target, fd) in c.stdio.iter().enumerate() {
            if libc::dup2(*fd, target as RawFd) < 0 {
                return (Step::Stdio, errno());
            }
        }
        if libc::setsid() == -1 {
            return (Step::Session, errno());
        }
        if let Err(e) = cloexec_above_stdio(c.keep_fd) {
            return (Step::Descriptors, e.raw_os_error().unwrap_or(libc::EINVAL));
        }
        // Namespaces first, then the working directory (entered inside the new mounts), then
        // the limits.
        if let Some(setup) = c.setup {
            if let Err(e) = setup.enter_namespaces() {
                return (Step::Sandbox, e.raw_os_error().unwrap_or(libc::EPERM));
            }
        }
        if let Some(dir) = c.cwd {
            if libc::chdir(dir.as_ptr()) != 0 {
                return (Step::WorkingDir, errno());
            }
        }
        if let Some(setup) = c.setup {
            if let Err(e) = setup.restrict() {
                return (Step::Sandbox, e.raw_os_error().unwrap_or(libc::EPERM));
            }
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        libc::execve(c.program.as_ptr(), c.argv, c.envp);
        (Step::Exec, errno())
    }
}

/// Marks every descriptor above stderr close-on-exec except `keep`, which loses the flag.
fn cloexec_above_stdio(keep: Option<RawFd>) -> io::Result<()> {
    match keep {
        Some(fd) if fd > 3 => {
            cloexec_range(3, fd as u32 - 1)?;
            cloexec_range(fd as u32 + 1, u32::MAX)?;
        }
        Some(3) => cloexec_range(4, u32::MAX)?,
        _ => cloexec_range(3, u32::MAX)?,
    }
    if let Some(fd) = keep {
        // SAFETY: fcntl on an integer.
        if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } == -1 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Marks descriptors `first..=last` close-on-exec: `close_range(2)` (Linux 5.11+), else one
/// `fcntl` per descriptor up to the descriptor limit.
fn cloexec_range(first: u32, last: u32) -> io::Result<()> {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: plain system calls on integers.
    unsafe {
        if libc::syscall(libc::SYS_close_range, first, last, CLOSE_RANGE_CLOEXEC) == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::ENOSYS) && e.raw_os_error() != Some(libc::EINVAL) {
            return Err(e);
        }
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            u32::try_from(limit.rlim_cur)
                .unwrap_or(u32::MAX)
                .min(1 << 20)
        } else {
            1024
        };
        for fd in first..=last.min(top) {
            let flags = libc::fcntl(fd as i32, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(fd as i32, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
    Ok(())
}

/// `waitpid(pid, flags)`, retried on `EINTR`: the raw status, or `None` with `WNOHANG` while
/// the child runs.
pub(super) fn reap(pid: libc::pid_t, flags: libc::c_int) -> io::Result<Option<i32>> {
    loop {
        let mut status = 0;
        // SAFETY: waits for a child of this process.
        match unsafe { libc::waitpid(pid, &mut status, flags) } {
            0 => return Ok(None),
            p if p == pid => return Ok(Some(status)),
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

/// Namespaces of a run, held open so that their teardown happens when they are let go — on a
/// background thread — rather than in the child's exit, which the caller waits for.
pub(super) struct Held(Vec<OwnedFd>);

impl Drop for Held {
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        static RELEASER: OnceLock<Option<mpsc::Sender<Vec<OwnedFd>>>> = OnceLock::new();
        let releaser = RELEASER.get_or_init(|| {
            let (tx, rx) = mpsc::channel::<Vec<OwnedFd>>();
            std::thread::Builder::new()
                .name("atip-namespaces".into())
                .spawn(move || rx.into_iter().for_each(drop))
                .ok()
                .map(|_| tx)
        });
        let fds = std::mem::take(&mut self.0);
        if let Some(tx) = releaser {
            // A releaser that is gone hands them back: they close here then.
            let _ = tx.send(fds);
        }
    }
}

/// A pidfd for our unreaped child `pid` (Linux 5.3+): readable once it has exited.
pub(super) fn pidfd(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: pidfd_open on our own unreaped child, whose pid cannot be reused meanwhile.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: `fd` was just created and is owned by nothing else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}
