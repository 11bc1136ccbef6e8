//! What the sandbox can do on this machine, layer by layer, and how to fix what is missing:
//! the answer to "the sandbox will not start here, and it does not say why" (`atip doctor`).

use std::fmt;

/// One layer of the sandbox on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The layer: `landlock`, `user namespaces`, `seccomp`, …
    pub layer: &'static str,
    /// Whether a default run gets everything this layer gives.
    pub ok: bool,
    /// What a default run gets from it here, or what it lacks.
    pub detail: String,
    /// How to get what is missing (empty when nothing is).
    pub fix: String,
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = if self.ok { "ok     " } else { "MISSING" };
        write!(f, "{mark} {:<16} {}", self.layer, self.detail)?;
        if !self.fix.is_empty() {
            write!(f, "\n        {:<16} fix: {}", "", self.fix)?;
        }
        Ok(())
    }
}

/// Every layer, probed now. A default run is complete here when every check is `ok`.
pub fn checks() -> Vec<Check> {
    #[cfg(target_os = "linux")]
    {
        linux_checks()
    }
    #[cfg(not(target_os = "linux"))]
    {
        vec![Check {
            layer: "sandbox",
            ok: false,
            detail: format!(
                "{}: no sandbox; the policy, argument rules, checksums and redaction still apply",
                std::env::consts::OS
            ),
            fix: "run agents that need the sandbox on Linux 6.12+".to_owned(),
        }]
    }
}

#[cfg(target_os = "linux")]
fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_owned())
}

#[cfg(target_os = "linux")]
fn linux_checks() -> Vec<Check> {
    let mut out = Vec::new();
    let abi = crate::run::linux::landlock_abi();
    let kernel = read("/proc/sys/kernel/osrelease").unwrap_or_default();
    out.push(match abi {
        0 => Check {
            layer: "landlock",
            ok: false,
            detail: format!("not available (kernel {kernel}): no file, TCP or scope limits"),
            fix: "a kernel built with CONFIG_SECURITY_LANDLOCK and `landlock` in the `lsm=` boot \
                  parameter (Linux 6.12+ for every right used here)"
                .to_owned(),
        },
        1..=5 => Check {
            layer: "landlock",
            ok: false,
            detail: format!(
                "ABI {abi} (kernel {kernel}): {}",
                [
                    (3, "file writes"),
                    (4, "TCP"),
                    (5, "device ioctl"),
                    (6, "signal and abstract-socket scoping")
                ]
                .iter()
                .filter(|(need, _)| abi < *need)
                .map(|(need, what)| format!("no {what} (ABI {need})"))
                .collect::<Vec<_>>()
                .join(", ")
            ),
            fix: "Linux 6.12 or newer".to_owned(),
        },
        _ => Check {
            layer: "landlock",
            ok: true,
            detail: format!(
                "ABI {abi}: file writes, TCP, device ioctl, abstract sockets and signals{}",
                if abi >= 9 {
                    ", pathname sockets"
                } else {
                    " (pathname Unix sockets of online read-only runs need ABI 9, Linux 7.1)"
                }
            ),
            fix: String::new(),
        },
    });
    // SAFETY: a plain syscall without arguments.
    let root = unsafe { libc::geteuid() } == 0;
    let userns = crate::run::linux::offline_namespaces_available();
    let mounts = crate::run::mounts::available(root);
    let blocked_by = || {
        let mut why = Vec::new();
        if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
            why.push("sysctl kernel.unprivileged_userns_clone=0 (set it to 1)");
        }
        if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
            why.push("sysctl user.max_user_namespaces=0 (set it above 0)");
        }
        if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
            why.push(
                "AppArmor restricts unprivileged user namespaces (sysctl \
                 kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile with \
                 `userns,` for the agent)",
            );
        }
        if why.is_empty() {
            "allow unprivileged user namespaces (a container runtime's seccomp profile may \
             refuse unshare: run the agent's container with a profile that allows it)"
                .to_owned()
        } else {
            why.join("; ")
        }
    };
    out.push(Check {
        layer: "user namespaces",
        ok: userns && mounts,
        detail: match (userns, mounts) {
            (true, true) => "network namespaces for offline runs and for runs with egress rules \
                             (the egress proxy), a mount namespace per run (protected paths, \
                             hidden credential stores)"
                .to_owned(),
            (false, true) => "mount namespaces only: offline runs keep Landlock's TCP denial \
                              and the socket filter, not a network namespace; runs with egress \
                              rules are refused"
                .to_owned(),
            (true, false) => "no mount namespace: protected paths and credential stores are \
                              not enforced"
                .to_owned(),
            (false, false) => "none: no network namespace for offline runs (runs with egress \
                               rules are refused), no protected paths or hidden credential \
                               stores"
                .to_owned(),
        },
        fix: if userns && mounts {
            String::new()
        } else {
            blocked_by()
        },
    });
    let seccomp_mode = read("/proc/self/status")
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Seccomp:").map(|v| v.trim().to_owned()))
        })
        .is_some();
    let program = crate::run::seccomp::program(crate::run::seccomp::Rules {
        metadata: false,
        ipc: false,
        offline: false,
        inet_only: false,
        no_unix: false,
    });
    out.push(Check {
        layer: "seccomp",
        ok: seccomp_mode && program.is_ok(),
        detail: match (&program, seccomp_mode) {
            (Ok(_), true) => "one session and process group per run, no io_uring, ptrace, \
                              key rings, mounts or namespaces; metadata changes refused for \
                              read-only runs, sockets for offline runs"
                .to_owned(),
            (Err(why), _) => why.clone(),
            (_, false) => "the kernel has no seccomp filters".to_owned(),
        },
        fix: if seccomp_mode && program.is_ok() {
            String::new()
        } else {
            "a kernel with CONFIG_SECCOMP_FILTER on x86-64, aarch64 or riscv64".to_owned()
        },
    });
    out.push(Check {
        layer: "capabilities",
        ok: true,
        detail: if root {
            "the agent runs as root: every run drops every capability; RLIMIT_NPROC does not \
             apply to root, so a `processes` limit is reported as not enforced"
                .to_owned()
        } else {
            "every run drops every capability".to_owned()
        },
        fix: String::new(),
    });
    out.push(Check {
        layer: "cgroups",
        ok: true,
        detail: "not used: a run's processes are contained by its session and the seccomp \
                 filter, killed with its process group"
            .to_owned(),
        fix: String::new(),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layer_is_reported_with_a_fix_when_it_is_missing() {
        let checks = checks();
        assert!(checks.len() >= 3);
        for c in &checks {
            assert_eq!(c.ok, c.fix.is_empty(), "{c}");
            assert!(!c.detail.is_empty());
        }
        if cfg!(target_os = "linux") {
            let layers: Vec<&str> = checks.iter().map(|c| c.layer).collect();
            assert_eq!(
                layers,
                [
                    "landlock",
                    "user namespaces",
                    "seccomp",
                    "capabilities",
                    "cgroups"
                ]
            );
        }
    }
}
