//! Linux: Landlock (through the `landlock` crate) for files, TCP, abstract Unix sockets and
//! signals; a network namespace for the rest of the network; `no_new_privs` and `setrlimit`.
//! This module decides what to enforce and reports it; what the child does before `exec` is
//! prepared here and applied by `child::ChildSetup`.
//!
//! A root runner's offline runs share one network namespace per process (see
//! `offline_network`). It has no interface but a loopback that is down, so nothing leaves
//! the machine; two offline runs that overlap in time could in principle bring the loopback up
//! and exchange UDP between themselves (TCP stays denied by Landlock), which is not a way out.
//! Other runners' offline runs unshare a user and network namespace each: a child that shares
//! the runner's memory until `exec` cannot join an existing user namespace.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, Scope, ABI,
};
use nix::fcntl::{open, OFlag};
use nix::sched::CloneFlags;
use nix::sys::stat::Mode;
use nix::unistd::ForkResult;

use super::{Plan, SandboxError};
use crate::{Containment, SandboxReport};

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
pub(crate) fn landlock_abi() -> i32 {
    support().abi
}

/// Whether offline runs get their network namespace here.
pub(crate) fn offline_namespaces_available() -> bool {
    offline_network().is_some()
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

/// How offline runs get their network namespace here, decided once per process; `None` where
/// this process may not create one (not root, and unprivileged user namespaces are disabled).
///
/// A root runner creates one network namespace, owned by the initial user namespace, with no
/// usable interface, and every offline run joins it: far cheaper than creating and tearing down
/// a namespace per run. It must not belong to a user namespace root created, for the creator
/// of a user namespace holds every capability in it whatever its own capability sets: a child
/// that dropped them all could still configure the namespace. Other runners cannot join a
/// namespace from a child that shares their memory until `exec`, so each offline run unshares
/// its own (the probe here tells whether it may).
pub(super) fn offline_network() -> Option<super::child::Network> {
    use super::child::Network;
    static SHARED: OnceLock<Option<OwnedFd>> = OnceLock::new();
    static PROBE: OnceLock<bool> = OnceLock::new();
    // SAFETY: a plain syscall without arguments.
    if unsafe { libc::geteuid() } == 0 {
        SHARED
            .get_or_init(|| network_namespace(true))
            .as_ref()
            .map(Network::Join)
    } else {
        PROBE
            .get_or_init(|| network_namespace(false).is_some())
            .then_some(Network::Fresh)
    }
}

/// A new network namespace — for `root` owned by the initial user namespace, otherwise inside
/// a new user namespace mapping this process's ids onto themselves — held by a short-lived
/// child until the descriptor returned is open.
fn network_namespace(root: bool) -> Option<OwnedFd> {
    let maps = super::mounts::IdMaps::of_runner();
    let (ready_r, ready_w) = nix::unistd::pipe2(OFlag::O_CLOEXEC).ok()?;
    let (done_r, done_w) = nix::unistd::pipe2(OFlag::O_CLOEXEC).ok()?;
    // SAFETY: the child makes only async-signal-safe system calls on data prepared above, then
    // `_exit`s; it never returns into the parent's code.
    match unsafe { nix::unistd::fork() } {
        Ok(ForkResult::Child) => {
            let ok = if root {
                nix::sched::unshare(CloneFlags::CLONE_NEWNET).is_ok()
            } else {
                nix::sched::unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET).is_ok()
                    && maps.write().is_ok()
            };
            let _ = nix::unistd::write(&ready_w, &[u8::from(ok)]);
            // Stay until the parent holds the namespace: it closes its end of `done` then, and
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
            let fd = if ready {
                let path = format!("/proc/{}/ns/net", child.as_raw());
                open(
                    path.as_str(),
                    OFlag::O_RDONLY | OFlag::O_CLOEXEC,
                    Mode::empty(),
                )
                .ok()
                .and_then(|fd| atip_spawn::above_stdio(fd).ok())
            } else {
                None
            };
            drop(done_w);
            let _ = nix::sys::wait::waitpid(child, None);
            fd
        }
        Err(_) => None,
    }
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
) -> Result<(super::child::ChildSetup, SandboxReport), SandboxError> {
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
) -> Result<(super::child::ChildSetup, SandboxReport), SandboxError> {
    use super::child::{CapabilityDrop, ChildSetup};
    use super::mounts::IdMaps;
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
    let network = if plan.no_network && plan.network_namespace {
        offline_network()
    } else {
        None
    };
    if plan.no_network {
        if network.is_some() {
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
    let egress = match &plan.egress {
        Some(rules) if !plan.no_network => Some(egress_child(rules, root, &mut report)?),
        _ => None,
    };
    let has_egress = egress.is_some();
    let landlock_egress = has_egress && support.net();
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

    // The rights the scratch directory gets: the run's own tmpfs is mounted over it, a new
    // inode, so the child grants them again to what it mounted.
    let scratch_access: u64 = grants
        .iter()
        .filter(|(p, _)| Some(p.as_path()) == scratch)
        .fold(BitFlags::<AccessFs>::EMPTY, |acc, (_, r)| acc | *r)
        .bits();
    let needs_ruleset =
        !handled_fs.is_empty() || landlock_net || landlock_egress || !scopes.is_empty();
    let ruleset = if needs_ruleset {
        let mut rs = Ruleset::default().set_compatibility(CompatLevel::HardRequirement);
        if !handled_fs.is_empty() {
            rs = rs
                .handle_access(handled_fs)
                .map_err(|e| fail("file rights", &e))?;
        }
        if landlock_net || landlock_egress {
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
        if landlock_egress {
            // The proxy's port is the only TCP connection left (its namespace has no other
            // route anyway); no bind.
            created = created
                .add_rule(NetPort::new(
                    crate::egress::PROXY_PORT,
                    AccessNet::ConnectTcp,
                ))
                .map_err(|e| fail("rule for the egress proxy's port", &e))?;
        }
        // Without a descriptor (no Landlock at all) the child sets only `no_new_privs`.
        Option::<OwnedFd>::from(created)
            .map(atip_spawn::above_stdio)
            .transpose()
            .map_err(|e| fail("ruleset", &e))?
    } else {
        None
    };
    report.enforced.extend(fs_containment);
    if scopes.contains(Scope::Signal) {
        report.enforced.push(Containment::NoSignalsOut);
    }
    report.enforced.push(Containment::NoNewPrivs);
    report.enforced.push(Containment::NoCapabilities);

    // Unix sockets by allow-list: a run opens none unless its program owns a daemon's socket
    // or the policy lists one.
    let roots = plan.writable_roots();
    let owner = plan.trusted_program_name(&roots);
    let owned = super::protect::owned_sockets(&plan.places, owner.as_deref());
    let listed: Vec<PathBuf> = plan
        .unix_sockets
        .iter()
        .filter(|p| p.exists())
        .cloned()
        .collect();
    let unix_allowed = !owned.is_empty() || !listed.is_empty();
    let seccomp_rules = super::seccomp::Rules {
        metadata: matches!(&plan.writes, Some(paths) if paths.is_empty()),
        ipc: plan.writes.is_some(),
        offline: plan.no_network,
        inet_only: has_egress,
        no_unix: !unix_allowed && !plan.no_network && !has_egress,
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
            if seccomp_rules.inet_only {
                report.enforced.push(Containment::InetSocketsOnly);
            }
            if seccomp_rules.no_unix {
                report.enforced.push(Containment::NoUnixSockets);
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
    // A daemon behind a pathname socket (dockerd, the D-Bus buses) acts for whoever connects.
    // A run that may open Unix sockets (its program owns one, or the policy lists one) could
    // reach any other socket file too, until Landlock can refuse that by path; the session's
    // known sockets are hidden from it meanwhile.
    if unix_allowed && !plan.no_network && !has_egress && !support.resolve_unix() {
        let mut granted: Vec<String> = owned
            .iter()
            .chain(&listed)
            .map(|p| p.display().to_string())
            .collect();
        granted.dedup();
        report.not_enforced.push(kernel(
            9,
            &format!(
                "connections to pathname Unix sockets other than {} (the run may open Unix \
                 sockets for those; the session's known sockets are hidden)",
                granted.join(", ")
            ),
        ));
    }

    let joined = ChildSetup::own_user_namespace(network)
        || egress.as_ref().is_some_and(|e| e.user_namespace);
    let mounts = super::mounts::plan(
        plan,
        root,
        joined,
        &super::protect::Target {
            writable: plan.writes.as_ref().map(|_| roots.as_slice()),
            working_dir: &plan.working_dir,
            declared: &plan.declared,
            program: plan.program.as_deref(),
            unix_sockets: unix_allowed,
            listed_sockets: &listed,
        },
        owner.as_deref(),
        scratch,
        scratch_access,
        &mut report,
    )?;
    let own_user_namespace = joined
        || mounts
            .as_ref()
            .is_some_and(|(m, _)| m.enters_user_namespace());

    let mut limits = plan.limits;
    // RLIMIT_NPROC counts the processes of a user: per run only in a user namespace of the
    // run's own, and never for root (uid 0). The default is dropped where it would count
    // something else or nothing; a limit the policy sets is reported.
    if root || !own_user_namespace {
        if limits.processes == Some(crate::limits::DEFAULT_PROCESSES) {
            limits.processes = None;
        } else if limits.processes.is_some() {
            if root {
                report.not_enforced.push(
                    "limit on processes: RLIMIT_NPROC does not apply to root (uid 0), which \
                     runs this agent"
                        .to_owned(),
                );
                limits.processes = None;
            } else {
                report.not_enforced.push(
                    "limit on processes counted per run: no user namespace of the run's own \
                     here, so RLIMIT_NPROC counts every process of the user"
                        .to_owned(),
                );
            }
        }
    }
    let mut shown = limits;
    shown.scratch_bytes = mounts.as_ref().and_then(|(_, s)| *s);
    if shown.any() || shown.scratch_bytes.is_some() {
        report.enforced.push(Containment::Limits(shown));
    }
    if scratch.is_some() && plan.limits.scratch_bytes.is_some() && shown.scratch_bytes.is_none() {
        report.not_enforced.push(
            "size of the scratch directory: no mount namespace here, so a run can fill the \
             disk through it"
                .to_owned(),
        );
    }
    let mounts = mounts.map(|(m, _)| m);
    Ok((
        ChildSetup {
            ruleset,
            network,
            egress,
            limits,
            capabilities: Some(CapabilityDrop {
                privileged: root || network.is_some() || has_egress || mounts.is_some(),
                last: last_capability(),
            }),
            id_maps: IdMaps::of_runner(),
            // SAFETY: a plain syscall without arguments.
            runner: unsafe { libc::getpid() },
            mounts,
            seccomp,
        },
        report,
    ))
}

/// The egress step of a run with egress rules: the socket pair its proxy listener comes
/// through, and the report's line.
///
/// # Errors
///
/// Egress rules fail closed: without a network namespace (not root, unprivileged user
/// namespaces off) the run is refused, for a direct connection could not be stopped.
fn egress_child(
    rules: &crate::hosts::Egress,
    root: bool,
    report: &mut SandboxReport,
) -> Result<super::child::EgressChild, SandboxError> {
    use std::os::fd::FromRawFd;
    if !root && !matches!(offline_network(), Some(super::child::Network::Fresh)) {
        return Err(SandboxError {
            message: "the policy limits which hosts this command may reach (egress rules), but \
                      this system cannot give the run a network namespace of its own: \
                      unprivileged user namespaces are off (`atip doctor` says how to turn them \
                      on)"
            .to_owned(),
        });
    }
    let mut pair = [0 as libc::c_int; 2];
    // SAFETY: socketpair into a local array.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            pair.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(SandboxError {
            message: format!(
                "cannot set up the sandbox (egress channel): {}",
                std::io::Error::last_os_error()
            ),
        });
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    let (runner, channel) =
        unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) };
    let channel = atip_spawn::above_stdio(channel).map_err(|e| SandboxError {
        message: format!("cannot set up the sandbox (egress channel): {e}"),
    })?;
    report.enforced.push(Containment::EgressProxy {
        allow: rules.allow.iter().map(|p| p.as_str().to_owned()).collect(),
        deny: rules.deny.iter().map(|p| p.as_str().to_owned()).collect(),
    });
    Ok(super::child::EgressChild {
        user_namespace: !root,
        channel,
        runner: Some(runner),
    })
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
            egress: None,
            extra_writable: Vec::new(),
            limits: crate::limits::ResourceLimits::default(),
            notes: Vec::new(),
            working_dir: PathBuf::from("/nonexistent-atip-test"),
            declared: Vec::new(),
            places: Default::default(),
            program_name: None,
            program: None,
            credentials: Vec::new(),
            unix_sockets: Vec::new(),
            make_dirs: Vec::new(),
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
        // An online run opens no Unix socket at all; one whose policy lists a socket may open
        // Unix sockets, and could reach another socket file before ABI 9.
        let mut online = offline_read_only();
        online.no_network = false;
        let (_, report) = prepare_on(Support { abi: 8 }, false, &online, None, None).unwrap();
        assert!(report.enforces(&Containment::NoUnixSockets), "{report}");
        assert!(!has(&report.not_enforced, "Unix sockets"), "{report}");
        let listed = tempfile::NamedTempFile::new().unwrap();
        online.unix_sockets = vec![listed.path().to_path_buf()];
        let (_, report) = prepare_on(Support { abi: 8 }, false, &online, None, None).unwrap();
        assert!(!report.enforces(&Containment::NoUnixSockets), "{report}");
        assert!(
            has(&report.not_enforced, "pathname Unix sockets other than"),
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
            .any(|c| matches!(c, Containment::Limits(l) if l.processes.is_some())));
        let (_, user) = prepare_on(Support { abi: 7 }, false, &plan, None, None).unwrap();
        assert!(user.not_enforced.is_empty(), "{user}");
        let shown = crate::limits::ResourceLimits {
            scratch_bytes: None,
            ..plan.limits
        };
        assert!(user.enforces(&Containment::Limits(shown)), "{user}");
        // The default is dropped for root, which the kernel does not count: no report line.
        let plan = offline_read_only();
        let (_, root) = prepare_on(Support { abi: 7 }, true, &plan, None, None).unwrap();
        assert!(root.not_enforced.is_empty(), "{root}");
    }
}
