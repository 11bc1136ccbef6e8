//! The run's private mount namespace (Linux): protected paths bound read-only over themselves,
//! credential stores and daemon sockets covered by empty mounts. Landlock cannot take a path
//! out of a tree it grants, a read-only mount can: writes there fail with `EROFS`, whoever
//! the process is, and the paths cannot be renamed or removed (`EBUSY`).
//!
//! The namespace belongs to the run: every mount disappears with its last process. Offline runs
//! that already unshared a user namespace of their own (with their network namespace) unshare a
//! mount namespace inside it; other runs unshare a user namespace (mapping the runner's uid and
//! gid onto themselves) with it, or, when the runner is root, only the mount namespace.

use std::ffi::{CStr, CString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

use super::protect::{Hidden, Shield};

/// How the child gets the right to mount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Entry {
    /// It already entered a user namespace of its own, holding every capability there
    /// (offline and egress runs of a runner that is not root).
    Joined,
    /// The runner is root in the initial user namespace: a mount namespace alone.
    Root,
    /// A user namespace of its own, mapping the runner's ids onto themselves.
    OwnUserNamespace,
}

/// One mount, prepared in the parent.
#[derive(Debug)]
enum Step {
    /// Bind a directory onto itself (with what is mounted below it): a mount point cannot be
    /// renamed or removed, so the directory stays where protected paths are looked for.
    Pin { path: CString },
    /// Bind a symbolic link onto itself through an `O_PATH` descriptor opened in the run's
    /// own mount namespace (`/proc/self/fd/N` names the link, not its target): the link
    /// cannot be removed or replaced.
    PinLink { path: CString },
    /// A size-limited tmpfs over the run's scratch directory.
    Scratch { path: CString, options: CString },
    /// Bind `path` over itself, then remount it read-only keeping `locked` flags.
    ReadOnly {
        path: CString,
        locked: libc::c_ulong,
    },
    /// An empty, permission-less tmpfs over a directory.
    EmptyDir { path: CString },
    /// `/dev/null`, read-only, over a file or socket.
    EmptyFile {
        path: CString,
        locked: libc::c_ulong,
    },
}

/// Everything the child does in its mount namespace, prepared in the parent: no allocation
/// happens in the child.
#[derive(Debug)]
pub(crate) struct Mounts {
    entry: Entry,
    steps: Vec<Step>,
    /// The scratch directory's tmpfs and the Landlock rights it gets (0: none to grant).
    scratch: Option<(CString, u64)>,
    /// The placeholders and scaffolds the steps bind, held until the run is over.
    _held: Vec<super::protect::placeholders::Held>,
}

/// Whether this process can give a run a mount namespace: root can; others need unprivileged
/// user namespaces (probed once, in a child process).
pub(crate) fn available(root: bool) -> bool {
    static PROBE: OnceLock<bool> = OnceLock::new();
    root || *PROBE.get_or_init(|| {
        // SAFETY: the child only makes system calls and `_exit`s.
        match unsafe { libc::fork() } {
            0 => unsafe {
                let ok = libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) == 0;
                libc::_exit(if ok { 0 } else { 1 })
            },
            pid if pid > 0 => {
                let mut status = 0;
                // SAFETY: waits for the child forked above.
                unsafe { libc::waitpid(pid, &mut status, 0) };
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
            }
            _ => false,
        }
    })
}

fn c_path(path: &Path) -> Option<CString> {
    CString::new(path.as_os_str().as_bytes()).ok()
}

/// The mount flags of the mount holding `path` that a user namespace may not change on a
/// bind mount of it (`nosuid`, `nodev`, `noexec`, the atime flags, `ro`).
fn locked_flags(path: &CString) -> libc::c_ulong {
    // SAFETY: statvfs fills the zeroed struct for a NUL-terminated path.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 {
        return 0;
    }
    let f = st.f_flag;
    let mut flags = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if f & st_flag != 0 {
            flags |= ms_flag;
        }
    }
    flags
}

impl Mounts {
    /// The mounts for `shield`, entered as `entry`, with a tmpfs of `scratch.1` bytes over the
    /// scratch directory `scratch.0` when given. Steps go shallowest path first, so that a
    /// directory is pinned or made read-only before anything is mounted inside it.
    pub(super) fn prepare(
        shield: Shield,
        entry: Entry,
        scratch: Option<(&Path, u64, u64)>,
    ) -> io::Result<Mounts> {
        let mut steps: Vec<(usize, Step)> = Vec::new();
        let depth = |p: &Path| p.components().count();
        for p in &shield.pins {
            if let Some(path) = c_path(p) {
                steps.push((depth(p), Step::Pin { path }));
            }
        }
        for p in &shield.link_pins {
            if let Some(path) = c_path(p) {
                steps.push((depth(p), Step::PinLink { path }));
            }
        }
        for p in &shield.read_only {
            if let Some(path) = c_path(p) {
                let locked = locked_flags(&path);
                steps.push((depth(p), Step::ReadOnly { path, locked }));
            }
        }
        let null = c"/dev/null".to_owned();
        let null_locked = locked_flags(&null);
        for hidden in &shield.hidden {
            let p = hidden.path();
            let Some(path) = c_path(p) else {
                continue;
            };
            let step = match hidden {
                Hidden::Dir(_) => Step::EmptyDir { path },
                Hidden::File(_) => Step::EmptyFile {
                    path,
                    locked: null_locked,
                },
            };
            steps.push((depth(p), step));
        }
        let mut scratch_rule = None;
        if let Some((dir, bytes, access)) = scratch {
            if let Some(path) = c_path(dir) {
                let options =
                    CString::new(format!("size={bytes},mode=0700")).map_err(io::Error::other)?;
                scratch_rule = Some((path.clone(), access));
                steps.push((depth(dir), Step::Scratch { path, options }));
            }
        }
        // Stable: at one depth, pins before read-only binds before covers, as pushed.
        steps.sort_by_key(|(d, _)| *d);
        Ok(Mounts {
            entry,
            steps: steps.into_iter().map(|(_, s)| s).collect(),
            scratch: scratch_rule,
            // Dropped in order: a placeholder before the scaffold that holds it.
            _held: shield.held.into_iter().rev().collect(),
        })
    }

    /// In the child, before `landlock_restrict_self`: grants the scratch directory's rights
    /// to the tmpfs mounted over it (a new inode the parent's rule does not cover). System
    /// calls on data prepared in the parent.
    pub(super) fn grant_scratch(&self, ruleset: libc::c_int) -> io::Result<()> {
        const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
        #[repr(C, packed)]
        struct PathBeneath {
            allowed_access: u64,
            parent_fd: i32,
        }
        let Some((path, access)) = &self.scratch else {
            return Ok(());
        };
        if *access == 0 {
            return Ok(());
        }
        // SAFETY: open, landlock_add_rule and close on a NUL-terminated path owned by `self`
        // and a struct on the stack.
        unsafe {
            let fd = libc::open(
                path.as_ptr(),
                libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY,
            );
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            let attr = PathBeneath {
                allowed_access: *access,
                parent_fd: fd,
            };
            let rc = libc::syscall(
                libc::SYS_landlock_add_rule,
                ruleset,
                LANDLOCK_RULE_PATH_BENEATH,
                std::ptr::from_ref(&attr),
                0 as libc::c_uint,
            );
            let e = io::Error::last_os_error();
            libc::close(fd);
            if rc != 0 {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Whether the child enters a user namespace of its own with these mounts.
    pub(super) fn enters_user_namespace(&self) -> bool {
        self.entry == Entry::OwnUserNamespace
    }

    /// In the child: enters a mount namespace of its own (with a user namespace mapped by
    /// `maps` for [`Entry::OwnUserNamespace`]) and mounts every step. Only system calls on
    /// data prepared in the parent.
    pub(super) fn apply(&self, maps: &IdMaps) -> io::Result<()> {
        // SAFETY (every block below): system calls on NUL-terminated strings owned by `self`.
        unsafe {
            match self.entry {
                Entry::Joined | Entry::Root => check(libc::unshare(libc::CLONE_NEWNS))?,
                Entry::OwnUserNamespace => {
                    check(libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS))?;
                    maps.write()?;
                }
            }
            // Nothing mounted here propagates back to the runner's namespace.
            check(libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            for step in &self.steps {
                match step {
                    Step::Pin { path } => check(libc::mount(
                        path.as_ptr(),
                        path.as_ptr(),
                        std::ptr::null(),
                        libc::MS_BIND | libc::MS_REC,
                        std::ptr::null(),
                    ))?,
                    Step::PinLink { path } => pin_link(path)?,
                    Step::Scratch { path, options } => check(libc::mount(
                        c"none".as_ptr(),
                        path.as_ptr(),
                        c"tmpfs".as_ptr(),
                        libc::MS_NOSUID | libc::MS_NODEV,
                        options.as_ptr().cast(),
                    ))?,
                    Step::ReadOnly { path, locked } => bind_read_only(path, path, *locked)?,
                    Step::EmptyDir { path } => check(libc::mount(
                        c"none".as_ptr(),
                        path.as_ptr(),
                        c"tmpfs".as_ptr(),
                        libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                        c"size=4k,mode=000".as_ptr().cast(),
                    ))?,
                    Step::EmptyFile { path, locked } => {
                        bind_read_only(c"/dev/null", path, *locked)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Binds the symbolic link at `path` onto itself: opened with `O_PATH | O_NOFOLLOW` here, in
/// the run's mount namespace (a descriptor from the runner's namespace cannot be mounted on),
/// and named by `/proc/self/fd/N`, written into a buffer on the stack. System calls only.
fn pin_link(path: &CStr) -> io::Result<()> {
    // SAFETY: open, mount and close on NUL-terminated strings on the stack or borrowed.
    unsafe {
        let fd = libc::open(
            path.as_ptr(),
            libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut name = [0u8; 32];
        let prefix = b"/proc/self/fd/";
        name[..prefix.len()].copy_from_slice(prefix);
        let mut digits = [0u8; 10];
        let mut n = fd as u32;
        let mut len = 0;
        loop {
            digits[len] = b'0' + (n % 10) as u8;
            len += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        for i in 0..len {
            name[prefix.len() + i] = digits[len - 1 - i];
        }
        let name = name.as_ptr().cast::<libc::c_char>();
        let rc = libc::mount(
            name,
            name,
            std::ptr::null(),
            libc::MS_BIND,
            std::ptr::null(),
        );
        let e = io::Error::last_os_error();
        libc::close(fd);
        if rc != 0 {
            return Err(e);
        }
    }
    Ok(())
}

/// The run's mount namespace for `plan` (protected paths, hidden credential stores and
/// sockets, the scratch directory's size), with the report's lines for it, and the scratch
/// size it enforces; `None` when there is no mount namespace to be had here.
///
/// Every run that can have one gets a user namespace of its own with it, so that its process
/// limit counts its own processes.
#[allow(clippy::too_many_arguments)]
pub(super) fn plan(
    plan: &super::Plan,
    root: bool,
    joined: bool,
    target: &super::protect::Target<'_>,
    owner: Option<&str>,
    scratch: Option<&Path>,
    scratch_access: u64,
    report: &mut super::SandboxReport,
) -> Result<Option<(Mounts, Option<u64>)>, super::SandboxError> {
    let shield = super::protect::plan(target, &plan.places, owner, &plan.credentials);
    report.not_enforced.extend(shield.notes.iter().cloned());
    // Root needs no user namespace to mount, and gains nothing from one (the kernel never
    // counts uid 0's processes); others get theirs, which also makes their process limit
    // count the run alone.
    let entry = if joined {
        Entry::Joined
    } else if root {
        Entry::Root
    } else if available(root) {
        Entry::OwnUserNamespace
    } else {
        if !shield.is_empty() {
            report.not_enforced.push(
                "protected paths and credential stores: no mount namespace here \
                 (unprivileged user namespaces are disabled); see `atip doctor`"
                    .to_owned(),
            );
        }
        return Ok(None);
    };
    report.placeholders = shield.placeholders();
    if !shield.read_only.is_empty() {
        report.enforced.push(crate::Containment::ReadOnly {
            paths: shield.read_only.clone(),
        });
    }
    if !shield.pins.is_empty() || !shield.link_pins.is_empty() {
        report.enforced.push(crate::Containment::Pinned {
            paths: shield
                .pins
                .iter()
                .chain(&shield.link_pins)
                .cloned()
                .collect(),
        });
    }
    if !shield.hidden.is_empty() {
        report.enforced.push(crate::Containment::Hidden {
            paths: shield
                .hidden
                .iter()
                .map(|h| h.path().to_path_buf())
                .collect(),
        });
    }
    let scratch_bytes = plan.limits.scratch_bytes.filter(|_| scratch.is_some());
    let mounts = Mounts::prepare(
        shield,
        entry,
        scratch
            .zip(scratch_bytes)
            .map(|(dir, bytes)| (dir, bytes, scratch_access)),
    )
    .map_err(|e| super::SandboxError {
        message: format!("cannot set up the sandbox (mounts): {e}"),
    })?;
    Ok(Some((mounts, scratch_bytes)))
}

/// `Ok` for a system call's 0, else the OS error (`errno`, no allocation).
pub(super) fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Binds `source` over `target`, then remounts the bind read-only keeping the `locked` flags
/// (a user namespace may not clear them). System calls only.
fn bind_read_only(source: &CStr, target: &CStr, locked: libc::c_ulong) -> io::Result<()> {
    // SAFETY: mount(2) on NUL-terminated strings borrowed for the call.
    unsafe {
        check(libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND,
            std::ptr::null(),
        ))?;
        check(libc::mount(
            std::ptr::null(),
            target.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | locked,
            std::ptr::null(),
        ))
    }
}

/// The runner's uid and gid mapped onto themselves, as `/proc/self/{uid,gid}_map` take them.
#[derive(Debug)]
pub(super) struct IdMaps {
    uid: CString,
    gid: CString,
}

impl IdMaps {
    pub(super) fn of_runner() -> IdMaps {
        // SAFETY: plain syscalls without arguments.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        IdMaps {
            uid: CString::new(format!("{uid} {uid} 1\n")).unwrap_or_default(),
            gid: CString::new(format!("{gid} {gid} 1\n")).unwrap_or_default(),
        }
    }

    /// In a user namespace just unshared: deny `setgroups` (required before an unprivileged
    /// gid map) and write both maps.
    pub(super) fn write(&self) -> io::Result<()> {
        write_file(c"/proc/self/setgroups", b"deny")?;
        write_file(c"/proc/self/uid_map", self.uid.as_bytes())?;
        write_file(c"/proc/self/gid_map", self.gid.as_bytes())
    }
}

/// Writes `contents` to the file at `path` with raw system calls (no allocation).
fn write_file(path: &std::ffi::CStr, contents: &[u8]) -> io::Result<()> {
    // SAFETY: open, write and close on a NUL-terminated path and a borrowed buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = libc::write(fd, contents.as_ptr().cast(), contents.len());
        let e = io::Error::last_os_error();
        libc::close(fd);
        if n < 0 || n as usize != contents.len() {
            return Err(e);
        }
    }
    Ok(())
}
