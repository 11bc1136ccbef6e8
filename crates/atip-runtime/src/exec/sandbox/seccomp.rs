//! The system-call filter of a sandboxed run (seccomp, through the `seccompiler` crate): the
//! calls Landlock and namespaces do not cover fail with `EPERM`, for the run and everything it
//! starts. The filter is compiled in the parent, once per distinct set of rules, and only
//! installed in the child (`prctl` and `seccomp`, no allocation).
//!
//! | set | refused calls | why |
//! |---|---|---|
//! | always | `setsid`, `setpgid` | the run is one session and one process group, killed as one: a process that left the group would outlive the run |
//! | always | `ioctl(fd, TIOCSTI)`, `ioctl(fd, TIOCLINUX)` | pushing input into a terminal runs commands in the person's shell after the agent exits (the bubblewrap CVE-2017-5226 class); the request is compared on its low 32 bits, which is all the kernel reads |
//! | always, x86-64 | every x32 system call (number with bit 30 set) | the same calls under another number would pass a filter keyed by number |
//! | `filesystem.write: false` | `chmod`, `fchmod`, `fchmodat`, `fchmodat2`, `chown`, `fchown`, `lchown`, `fchownat`, `utime`, `utimes`, `futimesat`, `utimensat`, the `*xattr` calls that set or remove | Landlock does not cover metadata changes: a read-only run could make a 0600 file 0666 |
//!
//! Programs built for another architecture than the runtime's (i386 binaries on x86-64) are
//! killed at their first system call: the filter cannot vouch for a second numbering.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use seccompiler::{
    sock_filter, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition,
    SeccompFilter, SeccompRule, TargetArch,
};

/// Which rules a run's filter holds, beyond those every sandboxed run gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Rules {
    /// Refuse changes of file modes, owners, times and extended attributes.
    pub metadata: bool,
}

/// The compiled filter for `rules`, or why this system cannot have one (an architecture the
/// filter compiler does not know, or a compiler error), as a sentence for the report.
pub(super) fn program(rules: Rules) -> Result<&'static BpfProgram, String> {
    static PLAIN: OnceLock<Result<BpfProgram, String>> = OnceLock::new();
    static METADATA: OnceLock<Result<BpfProgram, String>> = OnceLock::new();
    let cell = if rules.metadata { &METADATA } else { &PLAIN };
    cell.get_or_init(|| compile(rules))
        .as_ref()
        .map_err(Clone::clone)
}

/// Installs `program` on the calling thread (the child between `fork` and `exec`). Sets
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

fn compile(rules: Rules) -> Result<BpfProgram, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|_| {
        format!(
            "system-call filter: seccompiler has no filters for {}",
            std::env::consts::ARCH
        )
    })?;
    let mut map: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for call in [libc::SYS_setsid, libc::SYS_setpgid] {
        map.insert(call, Vec::new());
    }
    let request = |value: u64| {
        SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value)
            .and_then(|c| SeccompRule::new(vec![c]))
    };
    let ioctl = [request(TIOCSTI), request(TIOCLINUX)]
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("system-call filter: {e}"))?;
    map.insert(libc::SYS_ioctl, ioctl);
    if rules.metadata {
        for call in metadata_calls() {
            map.insert(call, Vec::new());
        }
    }
    let filter = SeccompFilter::new(
        map,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| format!("system-call filter: {e}"))?;
    let body: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| format!("system-call filter: {e}"))?;
    Ok(match arch {
        TargetArch::x86_64 => {
            let mut program = refuse_x32();
            program.extend(body);
            program
        }
        _ => body,
    })
}

/// Three instructions put before the compiled filter on x86-64: load the call number and
/// answer `EPERM` when bit 30 (`__X32_SYSCALL_BIT`) is set. The compiled filter's jumps are
/// relative, so it runs unchanged after them.
fn refuse_x32() -> Vec<sock_filter> {
    const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const BPF_JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K
    const X32_BIT: u32 = 0x4000_0000;
    vec![
        // seccomp_data.nr is at offset 0.
        sock_filter {
            code: BPF_LD_W_ABS,
            jt: 0,
            jf: 0,
            k: 0,
        },
        sock_filter {
            code: BPF_JGE_K,
            jt: 0,
            jf: 1,
            k: X32_BIT,
        },
        sock_filter {
            code: BPF_RET_K,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
        },
    ]
}

/// Calls that change a file's mode, owner, times or extended attributes.
fn metadata_calls() -> Vec<i64> {
    // Numbers the generic table shares on every architecture (Linux 6.6+ and 6.13+); older
    // kernels answer ENOSYS, which is a refusal too.
    const SYS_FCHMODAT2: i64 = 452;
    const SYS_SETXATTRAT: i64 = 463;
    const SYS_REMOVEXATTRAT: i64 = 466;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_compile_for_this_machine_and_the_x32_guard_comes_first() {
        let plain = program(Rules { metadata: false }).unwrap();
        let metadata = program(Rules { metadata: true }).unwrap();
        assert!(metadata.len() > plain.len());
        if cfg!(target_arch = "x86_64") {
            assert_eq!(plain[1].k, 0x4000_0000);
            assert_eq!(plain[2].k, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32);
        }
    }
}
