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
pub(super) struct Support {
    /// The Landlock ABI version the kernel reports (0: no Landlock).
    pub abi: i32,
}

impl Support {
    /// File rights strong enough to confine writes (ABI 3: truncation is covered).
    fn fs(self) -> bool {
        self.abi >= 3
    }
    /// TCP bind/connect (ABI 4).
    fn net(self) -> bool {
        self.abi >= 4
    }
    /// `ioctl` on devices (ABI 5).
    fn ioctl_dev(self) -> bool {
        self.abi >= 5
    }
    /// Scoping of abstract Unix sockets and signals (ABI 6).
    fn scope(self) -> bool {
        self.abi >= 6
    }
    /// Connecting to pathname Unix sockets (ABI 9).
    fn resolve_unix(self) -> bool {
        self.abi >= 9
    }
    /// The ABI as the `landlock` crate names it (the newest it knows for newer kernels).
    fn landlock_abi(self) -> ABI {
        ABI::from(self.abi)
    }
}

/// The Landlock ABI version of the running kernel: `landlock_create_ruleset(NULL, 0,
/// LANDLOCK_CREATE_RULESET_VERSION)`, or 0 where Landlock is missing or disabled.
fn probe_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: the documented way to ask for the version: no ruleset attribute, size 0.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(version).unwrap_or(0).max(0)
}

/// The Landlock ABI version of the running kernel (0: none).
pub(super) fn landlock_abi() -> i32 {
    support().abi
}

/// Whether offline runs get their network namespace here.
pub(super) fn offline_namespaces_available() -> bool {
    offline_namespaces().is_some()
}

fn support() -> Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    *SUPPORT.get_or_init(|| Support { abi: probe_abi() })
}

/// The highest capability number this kernel knows (`/proc/sys/kernel/cap_last_cap`).
fn last_capability() -> u32 {
    static LAST: OnceLock<u32> = OnceLock::new();
    *LAST.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(63)
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
    /// Drop capabilities; `privileged`: the child holds `CAP_SETPCAP` (root, or a joined user
    /// namespace), so the bounding set and securebits can go too.
    capabilities: Option<CapabilityDrop>,
    /// The run's mount namespace: protected paths, hidden credential stores.
    mounts: Option<super::mounts::Mounts>,
    seccomp: Option<&'static seccompiler::BpfProgram>,
}

#[derive(Debug, Clone, Copy)]
struct CapabilityDrop {
    privileged: bool,
    last: u32,
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
    // SAFETY: a plain syscall without arguments.
    let root = unsafe { libc::geteuid() } == 0;
    prepare_on(support(), root, plan, scratch, program)
}

/// [`prepare`] for a kernel with `support`, run by root or not: what the report says depends
/// on both, which the tests vary.
pub(super) fn prepare_on(
    support: Support,
    root: bool,
    plan: &Plan,
    scratch: Option<&Path>,
    program: Option<&Path>,
) -> Result<(ChildSetup, SandboxReport), SandboxError> {
    let mut report = SandboxReport::default();
    report.not_enforced.extend(plan.notes.iter().cloned());
    let fail = |what: &str, e: &dyn std::fmt::Display| SandboxError {
        message: format!("cannot set up the sandbox ({what}): {e}"),
    };
    let abi = support.landlock_abi();
    let kernel = |need: u8, what: &str| {
        format!(
            "{what}: needs Landlock ABI {need}, this kernel has {}",
            if support.abi == 0 {
                "no Landlock".to_owned()
            } else {
                format!("ABI {}", support.abi)
            }
        )
    };

    // File access rights handled by the ruleset, and the rules that grant some back. Writes
    // cover what the kernel's ABI covers: removal and renames (ABI 1-2), truncation (3), device
    // ioctls (5), connecting to pathname Unix sockets (9).
    let write_rights = AccessFs::from_write(abi);
    let read_rights = AccessFs::ReadFile | AccessFs::ReadDir;
    let mut handled_fs: BitFlags<AccessFs> = BitFlags::EMPTY;
    // (path, rights): a file gets only the rights a file can have.
    let mut grants: Vec<(PathBuf, BitFlags<AccessFs>)> = Vec::new();
    let mut fs_containment = Vec::new();
    if let Some(paths) = &plan.writes {
        if support.fs() {
            handled_fs |= write_rights;
            let mut writable: Vec<PathBuf> = scratch.map(Path::to_path_buf).into_iter().collect();
            writable.extend(plan.extra_writable.iter().cloned());
            for p in paths {
                if p.exists() {
                    writable.push(p.clone());
                } else {
                    report.not_enforced.push(format!(
                        "declared writable path {} does not exist, so nothing may be written there",
                        p.display()
                    ));
                }
            }
            for p in &writable {
                grants.push((p.clone(), write_rights));
            }
            grants.push((
                PathBuf::from(DEV_NULL),
                AccessFs::WriteFile | AccessFs::Truncate,
            ));
            fs_containment.push(if paths.is_empty() {
                Containment::NoWrites { writable }
            } else {
                Containment::WritesConfined { writable }
            });
            if !support.ioctl_dev() {
                report
                    .not_enforced
                    .push(kernel(5, "ioctl on devices (terminals, block devices)"));
            }
        } else {
            report
                .not_enforced
                .push(kernel(3, "file writes (Linux 6.2+)"));
        }
    }
    if let Some(extra) = &plan.reads {
        if support.fs() {
            handled_fs |= read_rights;
            let mut readable: Vec<PathBuf> = SYSTEM_READS.iter().map(PathBuf::from).collect();
            if let Some(dir) = program.and_then(Path::parent) {
                readable.push(dir.to_path_buf());
            }
            readable.extend(scratch.map(Path::to_path_buf));
            readable.extend(extra.iter().cloned());
            readable.retain(|p| p.exists());
            for p in &readable {
                grants.push((p.clone(), read_rights));
            }
            fs_containment.push(Containment::ReadsConfined { readable });
        } else {
            report
                .not_enforced
                .push(kernel(3, "file reads (Linux 6.2+)"));
        }
    }
    let landlock_net = plan.no_network && support.net();
    // Abstract Unix sockets reach the X server, D-Bus and other local services without any
    // file: closed to offline runs and to runs whose writes are limited.
    let want_abstract = plan.no_network || plan.writes.is_some();
    let scopes: BitFlags<Scope> = if support.scope() {
        if want_abstract {
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
            report
                .not_enforced
                .push(kernel(4, "TCP bind and connect (Linux 6.7+)"));
        }
    }
    if want_abstract {
        if scopes.contains(Scope::AbstractUnixSocket) {
            report.enforced.push(Containment::NoAbstractUnixSockets);
        } else {
            report
                .not_enforced
                .push(kernel(6, "abstract Unix sockets (Linux 6.12+)"));
        }
    }
    if !scopes.contains(Scope::Signal) {
        report.not_enforced.push(kernel(
            6,
            "signals to processes outside the sandbox (Linux 6.12+)",
        ));
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
        for (path, rights) in grants {
            let Ok(fd) = PathFd::new(&path) else {
                continue;
            };
            let rights = if path.is_dir() {
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
    report.enforced.push(Containment::NoCapabilities);

    let seccomp_rules = super::seccomp::Rules {
        metadata: matches!(&plan.writes, Some(paths) if paths.is_empty()),
        ipc: plan.writes.is_some(),
        offline: plan.no_network,
    };
    let seccomp = match super::seccomp::program(seccomp_rules) {
        Ok(program) => {
            report.enforced.push(Containment::NoNewSessions);
            if seccomp_rules.metadata {
                report.enforced.push(Containment::NoMetadataChanges);
            }
            if seccomp_rules.ipc {
                report.enforced.push(Containment::NoSystemVIpc);
            }
            if seccomp_rules.offline {
                report.enforced.push(Containment::NoSockets);
            }
            Some(program)
        }
        Err(why) => {
            report.not_enforced.push(format!(
                "{why}: processes of the run can leave its process group and outlive it"
            ));
            None
        }
    };
    // A daemon behind a pathname socket (dockerd, the D-Bus buses) acts for whoever connects:
    // a read-only run that reaches one can have it write. Offline runs have no sockets at all.
    if seccomp_rules.metadata && !seccomp_rules.offline && !support.resolve_unix() {
        report.not_enforced.push(kernel(
            9,
            "connections to pathname Unix sockets outside writable paths (a daemon such as \
             dockerd could write for the run)",
        ));
    }

    let mounts = shield(plan, root, namespaces.is_some(), &mut report);

    let limits = plan.limits;
    if root && limits.processes.is_some() {
        // RLIMIT_NPROC is never checked for the initial user's root.
        report.not_enforced.push(
            "limit on processes: RLIMIT_NPROC does not apply to root (uid 0), which runs this \
             agent"
                .to_owned(),
        );
    }
    let mut shown = limits;
    if root {
        shown.processes = None;
    }
    if shown.any() {
        report.enforced.push(Containment::Limits(shown));
    }
    Ok((
        ChildSetup {
            ruleset,
            namespaces,
            limits,
            capabilities: Some(CapabilityDrop {
                privileged: root || namespaces.is_some() || mounts.is_some(),
                last: last_capability(),
            }),
            mounts,
            seccomp,
        },
        report,
    ))
}

/// The run's mount namespace for `plan` (protected paths, hidden credential stores and
/// sockets), with the report's lines for it; `None` when there is nothing to mount, or no
/// mount namespace to be had here.
fn shield(
    plan: &Plan,
    root: bool,
    joined: bool,
    report: &mut SandboxReport,
) -> Option<super::mounts::Mounts> {
    let roots: Option<Vec<PathBuf>> = plan
        .writes
        .as_ref()
        .map(|paths| paths.iter().chain(&plan.extra_writable).cloned().collect());
    let roots = roots.unwrap_or_else(|| vec![plan.working_dir.clone()]);
    let writable = plan.writes.as_ref().map(|_| roots.as_slice());
    let shield = super::protect::plan(
        Some(writable.unwrap_or(&roots)),
        &plan.declared,
        &plan.places,
        plan.program_name.as_deref(),
        &plan.credentials,
    );
    report.not_enforced.extend(shield.notes.iter().cloned());
    report.created = shield.created.clone();
    if shield.is_empty() {
        return None;
    }
    use super::mounts::{available, Entry, Mounts};
    let entry = if joined {
        Entry::Joined
    } else if root {
        Entry::Root
    } else if available(false) {
        Entry::OwnUserNamespace
    } else {
        report.not_enforced.push(
            "protected paths and credential stores: no mount namespace here (unprivileged user \
             namespaces are disabled); see `atip doctor`"
                .to_owned(),
        );
        return None;
    };
    if !shield.read_only.is_empty() {
        report.enforced.push(Containment::ReadOnly {
            paths: shield.read_only.clone(),
        });
    }
    if !shield.hidden.is_empty() {
        report.enforced.push(Containment::Hidden {
            paths: shield
                .hidden
                .iter()
                .map(|h| h.path().to_path_buf())
                .collect(),
        });
    }
    Some(Mounts::prepare(&shield, entry))
}

impl ChildSetup {
    /// Registers the setup to run in the child between `fork` and `exec`.
    pub fn install(self, cmd: &mut tokio::process::Command) {
        let mut setup = Some(self);
        // SAFETY: the hook runs in the forked child of a possibly multi-threaded parent, so it
        // may only make async-signal-safe calls. It makes system calls on data prepared above
        // (`setns`, `setrlimit`, `prctl`, `capset`, `landlock_restrict_self`, `seccomp`) and
        // builds errors from raw OS error codes, which does not allocate.
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
        if let Some(mounts) = &self.mounts {
            mounts.apply()?;
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
        if let Some(drop) = self.capabilities {
            drop_capabilities(drop)?;
        }
        match self.ruleset {
            // Sets no_new_privs, then restricts this process and every child it starts.
            Some(ruleset) => {
                ruleset.restrict_self().map_err(|e| os_error_in(&e))?;
            }
            None => nix::sys::prctl::set_no_new_privs().map_err(errno)?,
        }
        // Last: the filter refuses nothing the steps above need, but keep it that way.
        if let Some(program) = self.seccomp {
            super::seccomp::install(program)?;
        }
        Ok(())
    }
}

/// Drops every capability of the calling process (the child before `exec`): with
/// `CAP_SETPCAP` (root or a joined user namespace) also the bounding set, and `SECBIT_NOROOT`
/// and its relatives are set and locked, so that `exec` grants uid 0 nothing; always the
/// ambient set and the effective, permitted and inheritable sets (`capset`).
fn drop_capabilities(drop: CapabilityDrop) -> io::Result<()> {
    const SECURE_BITS: libc::c_ulong = 0b1110_1111; // NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED, NO_CAP_AMBIENT_RAISE, each with its lock
    const CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    // SAFETY (every block below): plain system calls on values built here.
    if drop.privileged {
        if unsafe { libc::prctl(libc::PR_SET_SECUREBITS, SECURE_BITS, 0, 0, 0) } != 0 {
            return Err(io::Error::last_os_error());
        }
        for cap in 0..=drop.last {
            if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, libc::c_ulong::from(cap), 0, 0, 0) } != 0
            {
                let e = io::Error::last_os_error();
                // A number the kernel does not know (cap_last_cap unreadable): done.
                if e.raw_os_error() == Some(libc::EINVAL) {
                    break;
                }
                return Err(e);
            }
        }
    }
    // EINVAL: a kernel before 4.3 has no ambient set to clear.
    if unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        )
    } != 0
    {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINVAL) {
            return Err(e);
        }
    }
    let mut header = Header {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [Data {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    if unsafe { libc::syscall(libc::SYS_capset, &mut header as *mut Header, data.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The OS error inside a `landlock` error (the errno of the failed call itself, not one read
/// again later), or `EPERM` when it holds none.
fn os_error_in(e: &(dyn std::error::Error + 'static)) -> io::Error {
    let mut at: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = at {
        if let Some(code) = err
            .downcast_ref::<io::Error>()
            .and_then(io::Error::raw_os_error)
        {
            return io::Error::from_raw_os_error(code);
        }
        at = err.source();
    }
    io::Error::from_raw_os_error(libc::EPERM)
}

fn errno(e: nix::errno::Errno) -> io::Error {
    io::Error::from_raw_os_error(e as i32)
}

fn write_proc(path: &std::ffi::CStr, contents: &[u8]) -> io::Result<()> {
    let fd = open(path, OFlag::O_WRONLY | OFlag::O_CLOEXEC, Mode::empty()).map_err(errno)?;
    nix::unistd::write(&fd, contents).map_err(errno)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offline_read_only() -> Plan {
        Plan {
            writes: Some(Vec::new()),
            reads: None,
            no_network: true,
            network_namespace: false,
            extra_writable: Vec::new(),
            limits: ResourceLimits::default(),
            notes: Vec::new(),
            working_dir: PathBuf::from("/nonexistent-atip-test"),
            declared: Vec::new(),
            places: Default::default(),
            program_name: None,
            credentials: Vec::new(),
        }
    }

    fn not_enforced(abi: i32) -> Vec<String> {
        let (_, report) =
            prepare_on(Support { abi }, false, &offline_read_only(), None, None).unwrap();
        report.not_enforced
    }

    #[test]
    fn every_layer_an_older_kernel_lacks_is_reported() {
        let has = |lines: &[String], what: &str| lines.iter().any(|l| l.contains(what));
        let v5 = not_enforced(5);
        assert!(
            has(&v5, "signals to processes outside the sandbox"),
            "{v5:?}"
        );
        assert!(has(&v5, "abstract Unix sockets"), "{v5:?}");
        assert!(
            v5.iter().all(|l| l.contains("needs Landlock ABI 6")),
            "{v5:?}"
        );
        let v4 = not_enforced(4);
        assert!(has(&v4, "ioctl on devices"), "{v4:?}");
        let none = not_enforced(0);
        for what in ["file writes", "TCP", "signals", "abstract Unix sockets"] {
            assert!(has(&none, what), "{what}: {none:?}");
        }
        assert!(none
            .iter()
            .any(|l| l.contains("this kernel has no Landlock")));
        // This machine's kernel (the CI machines have ABI 7) lacks none of them for an
        // offline run, which has no sockets at all.
        let here = support();
        if here.abi >= 6 {
            assert!(not_enforced(here.abi).is_empty());
        }
        // An online read-only run could reach a daemon's socket before ABI 9.
        let mut online = offline_read_only();
        online.no_network = false;
        let (_, report) = prepare_on(Support { abi: 8 }, false, &online, None, None).unwrap();
        assert!(
            has(&report.not_enforced, "pathname Unix sockets"),
            "{report}"
        );
        if here.abi >= 9 {
            let (_, report) = prepare_on(here, false, &online, None, None).unwrap();
            assert!(report.not_enforced.is_empty(), "{report}");
        }
    }

    #[test]
    fn a_process_limit_is_reported_not_enforced_for_root_only() {
        let mut plan = offline_read_only();
        plan.limits.processes = Some(5);
        let (_, root) = prepare_on(Support { abi: 7 }, true, &plan, None, None).unwrap();
        assert!(root.not_enforced.iter().any(|l| l.contains("RLIMIT_NPROC")));
        assert!(!root
            .enforced
            .iter()
            .any(|c| matches!(c, Containment::Limits(_))));
        let (_, user) = prepare_on(Support { abi: 7 }, false, &plan, None, None).unwrap();
        assert!(user.not_enforced.is_empty(), "{user}");
        assert!(user.enforces(&Containment::Limits(plan.limits)));
    }
}
