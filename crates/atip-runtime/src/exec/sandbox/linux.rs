//! Linux: Landlock (through the `landlock` crate) for files, TCP, abstract Unix sockets and
//! signals; an unprivileged user + network namespace for the rest of the network; `no_new_privs`
//! and `setrlimit` (through `nix`). Everything the child does between `fork` and `exec` is a
//! handful of system calls on data prepared in the parent: no allocation, no locks.
//!
//! Offline runs share one network namespace per process (see `offline_namespaces`). It has no
//! interface but a loopback that is down, so nothing leaves the machine; two offline runs that
//! overlap in time could in principle bring the loopback up and exchange UDP between themselves
//! (TCP stays denied by Landlock), which is not a way out.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope, ABI,
};
use nix::fcntl::{open, OFlag};
use nix::sched::CloneFlags;
use nix::sys::resource::Resource;
use nix::sys::stat::Mode;
use nix::unistd::ForkResult;

use super::{Containment, Plan, SandboxError, SandboxReport};
use crate::policy::ResourceLimits;

/// What this kernel supports, probed once per process.
#[derive(Debug, Clone, Copy)]
struct Support {
    /// Landlock file access rights up to ABI 3 (writes, removals, renames, truncation).
    fs: bool,
    /// Landlock TCP bind/connect (ABI 4).
    net: bool,
    /// Landlock scoping of abstract Unix sockets and signals (ABI 6).
    scope: bool,
}

fn support() -> Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    *SUPPORT.get_or_init(|| {
        let hard = || Ruleset::default().set_compatibility(CompatLevel::HardRequirement);
        let fs = hard()
            .handle_access(AccessFs::from_all(ABI::V3))
            .and_then(|r| r.create())
            .is_ok();
        let net = hard()
            .handle_access(AccessNet::from_all(ABI::V4))
            .and_then(|r| r.create())
            .is_ok();
        let scope = hard()
            .scope(Scope::from_all(ABI::V6))
            .and_then(|r| r.create())
            .is_ok();
        Support { fs, net, scope }
    })
}

/// One user namespace (mapping this process's uid and gid to themselves) and one network
/// namespace inside it with no usable interface, created once per process and kept alive by
/// these two descriptors. Offline runs join them (`setns`), which costs far less than creating
/// and tearing down a network namespace per run. `None` where unprivileged user namespaces
/// are not allowed.
fn offline_namespaces() -> Option<&'static (OwnedFd, OwnedFd)> {
    static NAMESPACES: OnceLock<Option<(OwnedFd, OwnedFd)>> = OnceLock::new();
    NAMESPACES.get_or_init(create_offline_namespaces).as_ref()
}

fn create_offline_namespaces() -> Option<(OwnedFd, OwnedFd)> {
    let uid = nix::unistd::getuid().as_raw();
    let gid = nix::unistd::getgid().as_raw();
    let uid_map = format!("{uid} {uid} 1\n");
    let gid_map = format!("{gid} {gid} 1\n");
    let (ready_r, ready_w) = nix::unistd::pipe2(OFlag::O_CLOEXEC).ok()?;
    let (done_r, done_w) = nix::unistd::pipe2(OFlag::O_CLOEXEC).ok()?;
    // SAFETY: the child makes only async-signal-safe system calls on data prepared above, then
    // `_exit`s; it never returns into the parent's code.
    match unsafe { nix::unistd::fork() } {
        Ok(ForkResult::Child) => {
            let ok = nix::sched::unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET)
                .is_ok()
                && write_proc(c"/proc/self/setgroups", b"deny").is_ok()
                && write_proc(c"/proc/self/uid_map", uid_map.as_bytes()).is_ok()
                && write_proc(c"/proc/self/gid_map", gid_map.as_bytes()).is_ok();
            let _ = nix::unistd::write(&ready_w, &[u8::from(ok)]);
            // Stay until the parent holds the namespaces: it closes its end of `done` then, and
            // this copy of that end must be closed too for the read to see it.
            drop(done_w);
            let _ = nix::unistd::read(&done_r, &mut [0u8]);
            // SAFETY: ends the child without running the parent's destructors.
            unsafe { libc::_exit(0) }
        }
        Ok(ForkResult::Parent { child }) => {
            drop(ready_w);
            drop(done_r);
            let mut status = [0u8];
            let ready = nix::unistd::read(&ready_r, &mut status).ok() == Some(1) && status[0] == 1;
            let open_ns = |kind: &str| {
                let path = format!("/proc/{}/ns/{kind}", child.as_raw());
                open(
                    path.as_str(),
                    OFlag::O_RDONLY | OFlag::O_CLOEXEC,
                    Mode::empty(),
                )
                .ok()
            };
            let fds = if ready {
                open_ns("user").zip(open_ns("net"))
            } else {
                None
            };
            drop(done_w);
            let _ = nix::sys::wait::waitpid(child, None);
            fds
        }
        Err(_) => None,
    }
}

/// Everything the child does before `exec`, prepared in the parent.
pub(crate) struct ChildSetup {
    ruleset: Option<RulesetCreated>,
    /// The user and network namespaces to join, for offline runs.
    namespaces: Option<&'static (OwnedFd, OwnedFd)>,
    limits: ResourceLimits,
}

/// The device file programs write to even when they write no file of their own (`> /dev/null`).
const DEV_NULL: &str = "/dev/null";

/// The directories a program needs to read to start and run at all.
const SYSTEM_READS: [&str; 12] = [
    "/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/opt", "/proc", "/sys", "/dev",
    "/run",
];

pub(crate) fn prepare(
    plan: &Plan,
    scratch: Option<&Path>,
    program: Option<&Path>,
) -> Result<(ChildSetup, SandboxReport), SandboxError> {
    let support = support();
    let mut report = SandboxReport::default();
    let fail = |what: &str, e: &dyn std::fmt::Display| SandboxError {
        message: format!("cannot set up the sandbox ({what}): {e}"),
    };

    // File access rights handled by the ruleset, and the rules that grant some back.
    let abi = ABI::V3;
    let write_rights = AccessFs::from_write(abi);
    let read_rights = AccessFs::ReadFile | AccessFs::ReadDir;
    let mut handled_fs: BitFlags<AccessFs> = BitFlags::EMPTY;
    // (path, rights, is a directory): files may only get the rights a file can have.
    let mut grants: Vec<(PathBuf, BitFlags<AccessFs>, bool)> = Vec::new();
    let mut fs_containment = Vec::new();
    if let Some(paths) = &plan.writes {
        if support.fs {
            handled_fs |= write_rights;
            let mut writable: Vec<PathBuf> = scratch.map(Path::to_path_buf).into_iter().collect();
            writable.extend(plan.extra_writable.iter().cloned());
            let mut kept = writable.clone();
            for p in paths {
                if p.exists() {
                    kept.push(p.clone());
                    writable.push(p.clone());
                } else {
                    report.not_enforced.push(format!(
                        "declared writable path {} does not exist, so nothing may be written there",
                        p.display()
                    ));
                }
            }
            for p in &writable {
                grants.push((p.clone(), write_rights, true));
            }
            grants.push((
                PathBuf::from(DEV_NULL),
                AccessFs::WriteFile | AccessFs::Truncate,
                false,
            ));
            fs_containment.push(if paths.is_empty() {
                Containment::NoWrites { writable: kept }
            } else {
                Containment::WritesConfined { writable: kept }
            });
        } else {
            report.not_enforced.push(
                "file writes: this kernel has no Landlock with file rights (ABI 3, Linux 6.2+)"
                    .to_owned(),
            );
        }
    }
    if let Some(extra) = &plan.reads {
        if support.fs {
            handled_fs |= read_rights;
            let mut readable: Vec<PathBuf> = SYSTEM_READS.iter().map(PathBuf::from).collect();
            if let Some(dir) = program.and_then(Path::parent) {
                readable.push(dir.to_path_buf());
            }
            readable.extend(scratch.map(Path::to_path_buf));
            readable.extend(extra.iter().cloned());
            readable.retain(|p| p.exists());
            for p in &readable {
                grants.push((p.clone(), read_rights, true));
            }
            fs_containment.push(Containment::ReadsConfined { readable });
        } else {
            report.not_enforced.push(
                "file reads: this kernel has no Landlock with file rights (ABI 3, Linux 6.2+)"
                    .to_owned(),
            );
        }
    }
    let landlock_net = plan.no_network && support.net;
    let scopes: BitFlags<Scope> = if support.scope {
        if plan.no_network {
            Scope::from_all(ABI::V6)
        } else {
            Scope::Signal.into()
        }
    } else {
        BitFlags::EMPTY
    };
    let namespaces = if plan.no_network && plan.network_namespace {
        offline_namespaces()
    } else {
        None
    };
    if plan.no_network {
        if namespaces.is_some() {
            report.enforced.push(Containment::NetworkNamespace);
        } else if plan.network_namespace {
            report.not_enforced.push(
                "network namespace: unprivileged user namespaces are not available here, so \
                 UDP and other non-TCP traffic stay possible"
                    .to_owned(),
            );
        }
        if landlock_net {
            report.enforced.push(Containment::NoTcp);
        } else {
            report.not_enforced.push(
                "TCP: this kernel has no Landlock network rights (ABI 4, Linux 6.7+)".to_owned(),
            );
        }
        if scopes.contains(Scope::AbstractUnixSocket) {
            report.enforced.push(Containment::NoAbstractUnixSockets);
        }
    }

    let needs_ruleset = !handled_fs.is_empty() || landlock_net || !scopes.is_empty();
    let ruleset = if needs_ruleset {
        let mut rs = Ruleset::default().set_compatibility(CompatLevel::HardRequirement);
        if !handled_fs.is_empty() {
            rs = rs
                .handle_access(handled_fs)
                .map_err(|e| fail("file rights", &e))?;
        }
        if landlock_net {
            rs = rs
                .handle_access(AccessNet::from_all(ABI::V4))
                .map_err(|e| fail("network rights", &e))?;
        }
        if !scopes.is_empty() {
            rs = rs.scope(scopes).map_err(|e| fail("scopes", &e))?;
        }
        let mut created = rs.create().map_err(|e| fail("ruleset", &e))?;
        for (path, rights, dir) in grants {
            let Ok(fd) = PathFd::new(&path) else {
                continue;
            };
            let rights = if dir {
                rights
            } else {
                rights & AccessFs::from_file(abi)
            };
            created = created
                .add_rule(PathBeneath::new(fd, rights))
                .map_err(|e| fail(&format!("rule for {}", path.display()), &e))?;
        }
        Some(created)
    } else {
        None
    };
    report.enforced.extend(fs_containment);
    if scopes.contains(Scope::Signal) {
        report.enforced.push(Containment::NoSignalsOut);
    }
    report.enforced.push(Containment::NoNewPrivs);
    if plan.limits.any() {
        report.enforced.push(Containment::Limits(plan.limits));
    }

    Ok((
        ChildSetup {
            ruleset,
            namespaces,
            limits: plan.limits,
        },
        report,
    ))
}

impl ChildSetup {
    /// Registers the setup to run in the child between `fork` and `exec`.
    pub fn install(self, cmd: &mut tokio::process::Command) {
        let mut setup = Some(self);
        // SAFETY: the hook runs in the forked child of a possibly multi-threaded parent, so it
        // may only make async-signal-safe calls. It makes system calls on data prepared above
        // (`setns`, `setrlimit`, `prctl`, `landlock_restrict_self`) and builds errors from raw
        // OS error codes, which does not allocate.
        unsafe {
            cmd.pre_exec(move || match setup.take() {
                Some(s) => s.apply(),
                None => Ok(()),
            });
        }
    }

    fn apply(self) -> io::Result<()> {
        if let Some((user, net)) = self.namespaces {
            // The user namespace first: it grants what joining its network namespace needs.
            nix::sched::setns(user.as_fd(), CloneFlags::CLONE_NEWUSER).map_err(errno)?;
            nix::sched::setns(net.as_fd(), CloneFlags::CLONE_NEWNET).map_err(errno)?;
        }
        let l = self.limits;
        for (resource, value, slack) in [
            (Resource::RLIMIT_CPU, l.cpu_seconds, 1),
            (Resource::RLIMIT_AS, l.memory_bytes, 0),
            (Resource::RLIMIT_NPROC, l.processes, 0),
            (Resource::RLIMIT_FSIZE, l.file_size_bytes, 0),
        ] {
            if let Some(v) = value {
                // RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL a second later.
                nix::sys::resource::setrlimit(resource, v, v.saturating_add(slack))
                    .map_err(errno)?;
            }
        }
        match self.ruleset {
            // Sets no_new_privs, then restricts this process and every child it starts.
            Some(ruleset) => {
                ruleset
                    .restrict_self()
                    .map_err(|_| io::Error::last_os_error())?;
            }
            None => nix::sys::prctl::set_no_new_privs().map_err(errno)?,
        }
        Ok(())
    }
}

fn errno(e: nix::errno::Errno) -> io::Error {
    io::Error::from_raw_os_error(e as i32)
}

fn write_proc(path: &std::ffi::CStr, contents: &[u8]) -> io::Result<()> {
    let fd = open(path, OFlag::O_WRONLY | OFlag::O_CLOEXEC, Mode::empty()).map_err(errno)?;
    nix::unistd::write(&fd, contents).map_err(errno)?;
    Ok(())
}
