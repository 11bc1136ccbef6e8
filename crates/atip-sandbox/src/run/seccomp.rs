//! The system-call filter of a sandboxed run (seccomp, through the `seccompiler` crate): the
//! calls Landlock and namespaces do not cover fail with `EPERM`, for the run and everything it
//! starts. The filter is compiled in the parent, once per distinct set of rules, and only
//! installed in the child (`prctl` and `seccomp`, no allocation).
//!
//! | set | refused calls | why |
//! |---|---|---|
//! | always | `setsid`, `setpgid` | the run is one session and one process group, killed as one: a process that left the group would outlive the run |
//! | always | `clone` with `CLONE_PARENT` or any `CLONE_NEW*` flag; `clone3` answers `ENOSYS` (C libraries then use `clone`, whose flags the filter can read) | a process made the runner's own child would stay a zombie in the agent, unreaped; a namespace of the run's own would give it capabilities there (the kernel's attack surface) |
//! | always | `ioctl(fd, TIOCSTI)`, `ioctl(fd, TIOCLINUX)` | pushing input into a terminal runs commands in the person's shell after the agent exits (the bubblewrap CVE-2017-5226 class); the request is compared on its low 32 bits, which is all the kernel reads |
//! | always | `io_uring_setup`, `io_uring_enter`, `io_uring_register` | io_uring operations (set extended attributes, open, connect) never pass through this filter |
//! | always | `ptrace`, `process_vm_readv`, `process_vm_writev` | reading or steering another process's memory |
//! | always | `bpf`, `perf_event_open`, `userfaultfd` | kernel attack surface no command-line tool needs |
//! | always | `keyctl`, `add_key`, `request_key` | the kernel keyrings hold the user's and the session's secrets |
//! | always | `mount`, `umount2`, `pivot_root`, `unshare`, `setns`, `open_tree`, `move_mount`, `fsopen`, `fsconfig`, `fsmount`, `fspick`, `mount_setattr`, `open_tree_attr` (after the sandbox's own setup) | a run that made namespaces or mounts of its own could undo the read-only and hidden paths |
//! | always | `kexec_load`, `kexec_file_load`, `init_module`, `finit_module`, `delete_module`, `reboot`, `swapon`, `swapoff`, `acct` | the machine itself (refused already without capabilities) |
//! | always | `prlimit64`, `sched_setaffinity`, `sched_setscheduler`, `sched_setparam`, `sched_setattr` of another process (pid not 0); `setpriority` of another process, of a process group named by number, or of a user (`PRIO_USER`); `ioprio_set` the same way | the kernel lets a process change the limits, priority, CPU affinity and scheduling of every process of its user without any ptrace check, which Landlock does not hook: a run could starve or, through `RLIMIT_CPU` and `RLIMIT_FSIZE`, kill the agent and other programs |
//! | always, x86-64 | every x32 system call (number with bit 30 set) | the same calls under another number would pass a filter keyed by number |
//! | writes limited | System V IPC (`shmget`, `shmat`, `shmctl`, `msgget`, `msgsnd`, `msgrcv`, `msgctl`, `semget`, `semop`, `semtimedop`, `semctl`) and POSIX message queues (`mq_open`, `mq_unlink`, `mq_timedsend`, `mq_timedreceive`, `mq_notify`, `mq_getsetattr`) | not namespaced and not files to Landlock (a queue is made and removed past its path hooks): a run could write another process's shared memory, drain or remove its queues, or leave queues behind |
//! | `filesystem.write: false` | `chmod`, `fchmod`, `fchmodat`, `fchmodat2`, `chown`, `fchown`, `lchown`, `fchownat`, `utime`, `utimes`, `futimesat`, `utimensat`, the `*xattr` calls that set or remove, `file_setattr`, `ioctl` `FS_IOC_SETFLAGS` / `FS_IOC_FSSETXATTR` | Landlock does not cover metadata changes: a read-only run could make a 0600 file 0666 |
//! | `network: false` | `socket` of any family but `AF_NETLINK`; `socketpair` of any type but `SOCK_STREAM` and `SOCK_SEQPACKET` | no connection to a pathname Unix socket (a daemon such as dockerd acts for whoever connects, journald forwards what it is sent), which Landlock covers only from ABI 9: a datagram pair may `connect` to any socket file |
//! | egress rules | `socket` of any family but `AF_INET`, `AF_INET6` and `AF_NETLINK`; `socketpair` of any type but `SOCK_STREAM` and `SOCK_SEQPACKET` | a pathname Unix socket outside the run's network namespace (a local proxy, an ssh control socket, a DNS stub, the system log) would relay traffic past the egress proxy |
//! | other runs, unless the program owns a daemon's socket or the policy lists one | `socket(AF_UNIX)`; `socketpair` of any type but `SOCK_STREAM` and `SOCK_SEQPACKET` | a daemon behind a pathname socket (the D-Bus session bus and `systemd-run --user`, systemd, the display, tmux, dockerd) acts for whoever connects, outside the sandbox |
//!
//! Programs built for another architecture than the runtime's (i386 binaries on x86-64) are
//! killed at their first system call: the filter cannot vouch for a second numbering.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};

use seccompiler::{
    sock_filter, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition,
    SeccompFilter, SeccompRule, TargetArch,
};

/// Which rules a run's filter holds, beyond those every sandboxed run gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Rules {
    /// Refuse changes of file modes, owners, times, flags and extended attributes.
    pub metadata: bool,
    /// Refuse System V IPC and POSIX message queues.
    pub ipc: bool,
    /// Refuse sockets of every family but netlink.
    pub offline: bool,
    /// Refuse sockets of every family but IPv4, IPv6 and netlink (egress through the proxy:
    /// a Unix socket could reach a relay outside the run's network namespace).
    pub inet_only: bool,
    /// Refuse Unix sockets (a daemon behind one acts for whoever connects).
    pub no_unix: bool,
}

/// The compiled filter for `rules`, or why this system cannot have one (an architecture the
/// filter compiler does not know, or a compiler error), as a sentence for the report.
pub(crate) fn program(rules: Rules) -> Result<&'static BpfProgram, String> {
    type Cache = Mutex<HashMap<Rules, Result<&'static BpfProgram, String>>>;
    static PROGRAMS: OnceLock<Cache> = OnceLock::new();
    let mut programs = PROGRAMS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    programs
        .entry(rules)
        // At most 8 programs per process, kept for its lifetime.
        .or_insert_with(|| compile(rules).map(|p| &*Box::leak(Box::new(p))))
        .clone()
}

/// Installs `program` on the calling thread (the child before `exec`). Sets
/// `no_new_privs` first, as seccomp requires of an unprivileged process.
pub(super) fn install(program: &BpfProgram) -> std::io::Result<()> {
    seccompiler::apply_filter(program).map_err(|e| match e {
        seccompiler::Error::Prctl(io) | seccompiler::Error::Seccomp(io) => io,
        // The only other error is an empty program, which `compile` never makes.
        _ => std::io::Error::from_raw_os_error(libc::EINVAL),
    })
}

const TIOCSTI: u64 = 0x5412;
const TIOCLINUX: u64 = 0x541C;
/// `_IOW('f', 2, long)` and its 32-bit form `_IOW('f', 2, int)`.
const FS_IOC_SETFLAGS: u64 = 0x4008_6602;
const FS_IOC32_SETFLAGS: u64 = 0x4004_6602;
/// `_IOW('X', 32, struct fsxattr)`.
const FS_IOC_FSSETXATTR: u64 = 0x401C_5820;
const CLONE_PARENT: u64 = 0x8000;
/// `CLONE_NEWNS`, `CLONE_NEWCGROUP`, `CLONE_NEWUTS`, `CLONE_NEWIPC`, `CLONE_NEWUSER`,
/// `CLONE_NEWPID`, `CLONE_NEWNET`.
const CLONE_NAMESPACES: [u64; 7] = [
    0x0002_0000,
    0x0200_0000,
    0x0400_0000,
    0x0800_0000,
    0x1000_0000,
    0x2000_0000,
    0x4000_0000,
];
/// `open_tree_attr` (Linux 6.15), the same number on every architecture.
const SYS_OPEN_TREE_ATTR: i64 = 467;
/// `SOCK_STREAM` and `SOCK_SEQPACKET`: the only socket-pair types a run that may not reach
/// Unix sockets keeps (any other type — `SOCK_DGRAM`, and `SOCK_RAW`, which Unix sockets
/// treat as a datagram — may `connect` to a socket file).
const PAIR_TYPES_KEPT: [u64; 2] = [1, 5];
const SYS_CLONE3: u32 = 435;
const AF_NETLINK: u64 = 16;
const AF_INET: u64 = 2;
/// The socket type without `SOCK_NONBLOCK` and `SOCK_CLOEXEC`.
const SOCKET_TYPE_MASK: u64 = 0xf;
const AF_INET6: u64 = 10;
const AF_UNIX: u64 = 1;

fn compile(rules: Rules) -> Result<BpfProgram, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|_| {
        format!(
            "system-call filter: seccompiler has no filters for {}",
            std::env::consts::ARCH
        )
    })?;
    let fail = |e: seccompiler::BackendError| format!("system-call filter: {e}");
    let arg = |index: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value)
            .and_then(|c| SeccompRule::new(vec![c]))
            .map_err(fail)
    };
    let mut map: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let always = [
        libc::SYS_setsid,
        libc::SYS_setpgid,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        SYS_OPEN_TREE_ATTR,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_acct,
    ];
    for call in always {
        map.insert(call, Vec::new());
    }
    // `CLONE_PARENT`, and every namespace flag: a run may not make namespaces of its own,
    // through `unshare` or through `clone`.
    let mut clone = vec![arg(0, SeccompCmpOp::MaskedEq(CLONE_PARENT), CLONE_PARENT)?];
    for flag in CLONE_NAMESPACES {
        clone.push(arg(0, SeccompCmpOp::MaskedEq(flag), flag)?);
    }
    map.insert(libc::SYS_clone, clone);
    let mut ioctl = vec![
        arg(1, SeccompCmpOp::Eq, TIOCSTI)?,
        arg(1, SeccompCmpOp::Eq, TIOCLINUX)?,
    ];
    if rules.metadata {
        for request in [FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR] {
            ioctl.push(arg(1, SeccompCmpOp::Eq, request)?);
        }
        for call in metadata_calls() {
            map.insert(call, Vec::new());
        }
    }
    map.insert(libc::SYS_ioctl, ioctl);
    // Another process's limits, priority, affinity and scheduling: pid (argument 0) not 0.
    for call in [
        libc::SYS_prlimit64,
        libc::SYS_sched_setaffinity,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setparam,
        libc::SYS_sched_setattr,
    ] {
        map.insert(call, vec![arg(0, SeccompCmpOp::Ne, 0)?]);
    }
    // `setpriority(which, who, …)` and `ioprio_set(which, who, …)`: a user's processes
    // whoever is named, or anyone but the caller (who not 0). `PRIO_USER` is 2,
    // `IOPRIO_WHO_USER` 3.
    map.insert(
        libc::SYS_setpriority,
        vec![
            arg(0, SeccompCmpOp::Eq, PRIO_USER)?,
            arg(1, SeccompCmpOp::Ne, 0)?,
        ],
    );
    map.insert(
        libc::SYS_ioprio_set,
        vec![
            arg(0, SeccompCmpOp::Eq, IOPRIO_WHO_USER)?,
            arg(1, SeccompCmpOp::Ne, 0)?,
        ],
    );
    if rules.ipc {
        for call in ipc_calls() {
            map.insert(call, Vec::new());
        }
    }
    if rules.offline || rules.inet_only || rules.no_unix {
        // A datagram socket pair may `connect` or `sendto` any Unix socket file: the way to a
        // relay outside the network namespace that `socket(AF_UNIX)` would otherwise be. Every
        // type but stream and seqpacket is refused (Unix sockets read `SOCK_RAW` as datagram).
        let refused: Vec<SeccompRule> = (0..=SOCKET_TYPE_MASK)
            .filter(|t| !PAIR_TYPES_KEPT.contains(t))
            .map(|t| arg(1, SeccompCmpOp::MaskedEq(SOCKET_TYPE_MASK), t))
            .collect::<Result<_, _>>()?;
        map.insert(libc::SYS_socketpair, refused);
    }
    if rules.offline {
        map.insert(
            libc::SYS_socket,
            vec![arg(0, SeccompCmpOp::Ne, AF_NETLINK)?],
        );
    } else if rules.inet_only {
        let not = |family: u64| {
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, family)
                .map_err(fail)
        };
        map.insert(
            libc::SYS_socket,
            vec![
                SeccompRule::new(vec![not(AF_INET)?, not(AF_INET6)?, not(AF_NETLINK)?])
                    .map_err(fail)?,
            ],
        );
    } else if rules.no_unix {
        map.insert(libc::SYS_socket, vec![arg(0, SeccompCmpOp::Eq, AF_UNIX)?]);
    }
    let filter = SeccompFilter::new(
        map,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(fail)?;
    let body: BpfProgram = filter.try_into().map_err(fail)?;
    let mut program = prologue(arch);
    program.extend(body);
    Ok(program)
}

/// Instructions put before the compiled filter (whose jumps are relative, so it runs unchanged
/// after them): load the call number; `clone3` answers `ENOSYS`; on x86-64 every x32 call
/// (bit 30, `__X32_SYSCALL_BIT`) answers `EPERM`.
fn prologue(arch: TargetArch) -> Vec<sock_filter> {
    const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const BPF_JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const BPF_JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K
    const X32_BIT: u32 = 0x4000_0000;
    let ret = |errno: i32| sock_filter {
        code: BPF_RET_K,
        jt: 0,
        jf: 0,
        k: libc::SECCOMP_RET_ERRNO | errno as u32,
    };
    let jump = |code: u16, k: u32| sock_filter {
        code,
        jt: 0,
        jf: 1,
        k,
    };
    let mut program = vec![
        // seccomp_data.nr is at offset 0.
        sock_filter {
            code: BPF_LD_W_ABS,
            jt: 0,
            jf: 0,
            k: 0,
        },
    ];
    if matches!(arch, TargetArch::x86_64) {
        program.extend([jump(BPF_JGE_K, X32_BIT), ret(libc::EPERM)]);
    }
    program.extend([jump(BPF_JEQ_K, SYS_CLONE3), ret(libc::ENOSYS)]);
    program
}

/// Calls that change a file's mode, owner, times, flags or extended attributes.
fn metadata_calls() -> Vec<i64> {
    // Numbers the generic table shares on every architecture (Linux 6.6+, 6.13+, 6.17+);
    // older kernels answer ENOSYS, which is a refusal too.
    const SYS_FCHMODAT2: i64 = 452;
    const SYS_SETXATTRAT: i64 = 463;
    const SYS_REMOVEXATTRAT: i64 = 466;
    const SYS_FILE_SETATTR: i64 = 469;
    let mut calls = vec![
        libc::SYS_fchmod,
        libc::SYS_fchmodat,
        SYS_FCHMODAT2,
        libc::SYS_fchown,
        libc::SYS_fchownat,
        libc::SYS_utimensat,
        libc::SYS_setxattr,
        libc::SYS_lsetxattr,
        libc::SYS_fsetxattr,
        libc::SYS_removexattr,
        libc::SYS_lremovexattr,
        libc::SYS_fremovexattr,
        SYS_SETXATTRAT,
        SYS_REMOVEXATTRAT,
        SYS_FILE_SETATTR,
    ];
    // The older path-based calls exist only on some architectures.
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        libc::SYS_chmod,
        libc::SYS_chown,
        libc::SYS_lchown,
        libc::SYS_utime,
        libc::SYS_utimes,
        libc::SYS_futimesat,
    ]);
    calls
}

/// `setpriority`'s `which` for every process of a user.
const PRIO_USER: u64 = 2;
/// `ioprio_set`'s `which` for every process of a user.
const IOPRIO_WHO_USER: u64 = 3;

/// System V IPC and POSIX message queue calls.
fn ipc_calls() -> Vec<i64> {
    vec![
        libc::SYS_mq_open,
        libc::SYS_mq_unlink,
        libc::SYS_mq_timedsend,
        libc::SYS_mq_timedreceive,
        libc::SYS_mq_notify,
        libc::SYS_mq_getsetattr,
        libc::SYS_shmget,
        libc::SYS_shmat,
        libc::SYS_shmctl,
        libc::SYS_msgget,
        libc::SYS_msgsnd,
        libc::SYS_msgrcv,
        libc::SYS_msgctl,
        libc::SYS_semget,
        libc::SYS_semop,
        libc::SYS_semtimedop,
        libc::SYS_semctl,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_compile_for_this_machine_and_the_guards_come_first() {
        let none = Rules {
            metadata: false,
            ipc: false,
            offline: false,
            inet_only: false,
            no_unix: false,
        };
        let all = Rules {
            metadata: true,
            ipc: true,
            offline: true,
            inet_only: false,
            no_unix: false,
        };
        let egress = Rules {
            offline: false,
            inet_only: true,
            ..all
        };
        assert!(program(egress).unwrap().len() > program(none).unwrap().len());
        let plain = program(none).unwrap();
        let full = program(all).unwrap();
        assert!(full.len() > plain.len());
        assert!(std::ptr::eq(plain, program(none).unwrap()), "compiled once");
        let returns: Vec<u32> = plain
            .iter()
            .filter(|i| i.code == 0x06)
            .map(|i| i.k)
            .collect();
        assert!(returns.contains(&(libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32)));
        if cfg!(target_arch = "x86_64") {
            assert_eq!(plain[1].k, 0x4000_0000);
            assert_eq!(plain[2].k, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32);
        }
    }
}
