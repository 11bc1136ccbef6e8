//! What the sandbox did for one run: every limit it enforced ([`Containment`]) and what it
//! could not enforce, in a [`SandboxReport`].

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use crate::limits::ResourceLimits;

/// One limit a run was held to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Containment {
    /// No file writes, creations, renames or removals outside `writable`.
    NoWrites {
        /// Where writing stayed possible: the scratch directory and the caller's additions.
        writable: Vec<PathBuf>,
    },
    /// Writes only under `writable` (the declared `filesystem.paths`, the scratch directory
    /// and the caller's additions).
    WritesConfined {
        /// Where writing stayed possible.
        writable: Vec<PathBuf>,
    },
    /// Reads only under `readable`.
    ReadsConfined {
        /// Where reading stayed possible.
        readable: Vec<PathBuf>,
    },
    /// A private network namespace: no network at all.
    NetworkNamespace,
    /// A private network namespace whose only way out is the egress proxy, which lets through
    /// connections to the hosts of `allow` but not `deny` ([`crate::hosts::Egress`]); with
    /// Landlock ABI 4+ TCP connections only to the proxy's port as well.
    EgressProxy {
        /// The allow entries, as written.
        allow: Vec<String>,
        /// The deny entries, as written.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        deny: Vec<String>,
    },
    /// Landlock denies TCP `bind` and `connect`.
    NoTcp,
    /// Landlock denies connecting to abstract Unix sockets created outside the sandbox.
    NoAbstractUnixSockets,
    /// Landlock denies signals to processes outside the sandbox.
    NoSignalsOut,
    /// `no_new_privs`: setuid and file capabilities grant nothing.
    NoNewPrivs,
    /// The run is a session of its own with no controlling terminal, and no process of it can
    /// start another session or process group (seccomp: `setsid`, `setpgid` fail with
    /// `EPERM`), so the whole tree stays in the one group that is killed; terminal input
    /// injection (`TIOCSTI`, `TIOCLINUX`) is refused too.
    NoNewSessions,
    /// No changes to file modes, owners, times or extended attributes (seccomp: `chmod`,
    /// `chown`, `utimensat`, `setxattr` and their relatives fail with `EPERM`). Landlock does
    /// not cover these, so runs whose writes are denied get them refused this way.
    NoMetadataChanges,
    /// Paths kept read-only inside writable roots (protected paths: repositories, editor,
    /// agent and build-tool configuration, shell start-up files; [`protect`](super::protect)), placeholders of
    /// those that do not exist among them.
    ReadOnly {
        /// The paths.
        paths: Vec<PathBuf>,
    },
    /// Directories (and symbolic links) that are mount points for the run, so that it can
    /// neither rename nor remove them: those that hold protected paths, up to the writable
    /// root ([`protect`](super::protect)).
    Pinned {
        /// The paths.
        paths: Vec<PathBuf>,
    },
    /// No Unix sockets (seccomp: `socket(AF_UNIX)` and datagram socket pairs fail with
    /// `EPERM`): no connection to a daemon's socket, which acts for whoever connects. A run
    /// whose program owns a daemon's socket, or whose policy lists one, is not held to this.
    NoUnixSockets,
    /// Credential stores and daemon sockets the program does not own, replaced by empty ones
    /// ([`protect::stores::CREDENTIAL_STORES`](super::protect::stores::CREDENTIAL_STORES), [`protect::stores::DAEMON_SOCKETS`](super::protect::stores::DAEMON_SOCKETS)).
    Hidden {
        /// The paths.
        paths: Vec<PathBuf>,
    },
    /// No System V IPC (seccomp): shared memory, message queues and semaphores are neither
    /// namespaced nor files, so Landlock cannot limit them.
    NoSystemVIpc,
    /// No sockets but netlink ones and stream or seqpacket socket pairs (seccomp): no
    /// connection to a daemon's pathname Unix socket, whatever the Landlock ABI.
    NoSockets,
    /// No sockets but IPv4, IPv6, netlink and stream or seqpacket socket pairs (seccomp; runs
    /// with egress rules): no Unix socket that a relay outside the run's network namespace
    /// listens on.
    InetSocketsOnly,
    /// Every capability dropped (effective, permitted, inheritable, ambient and the bounding
    /// set; `SECBIT_NOROOT` locked), because the runner is root or the run joined a user
    /// namespace: a root runner's children are root without root's powers.
    NoCapabilities,
    /// Resource limits.
    Limits(ResourceLimits),
}

impl fmt::Display for Containment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let paths = |p: &[PathBuf]| {
            p.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Containment::NoWrites { writable } => {
                write!(f, "no file writes except under {}", paths(writable))
            }
            Containment::WritesConfined { writable } => {
                write!(f, "file writes only under {}", paths(writable))
            }
            Containment::ReadsConfined { readable } => {
                write!(f, "file reads only under {}", paths(readable))
            }
            Containment::NetworkNamespace => f.write_str("no network (private network namespace)"),
            Containment::EgressProxy { allow, deny } => {
                let list = |l: &[String]| {
                    if l.is_empty() {
                        "nothing".to_owned()
                    } else {
                        l.join(", ")
                    }
                };
                write!(
                    f,
                    "network only through the egress proxy (private network namespace) to {}",
                    list(allow)
                )?;
                if !deny.is_empty() {
                    write!(f, ", never to {}", deny.join(", "))?;
                }
                Ok(())
            }
            Containment::NoTcp => f.write_str("no TCP bind or connect (Landlock)"),
            Containment::NoAbstractUnixSockets => {
                f.write_str("no abstract Unix sockets outside the sandbox (Landlock)")
            }
            Containment::NoSignalsOut => {
                f.write_str("no signals to processes outside the sandbox (Landlock)")
            }
            Containment::NoNewPrivs => f.write_str("no_new_privs"),
            Containment::NoNewSessions => {
                f.write_str("one session and process group, no controlling terminal (seccomp)")
            }
            Containment::NoMetadataChanges => {
                f.write_str("no changes to file modes, owners, times or attributes (seccomp)")
            }
            Containment::NoCapabilities => f.write_str("no capabilities"),
            Containment::NoSystemVIpc => f.write_str("no System V IPC (seccomp)"),
            Containment::ReadOnly { paths: p } => write!(f, "read-only: {}", paths(p)),
            Containment::Pinned { paths: p } => {
                write!(f, "neither renamed nor removed: {}", paths(p))
            }
            Containment::NoUnixSockets => f.write_str("no Unix sockets (seccomp)"),
            Containment::Hidden { paths: p } => write!(f, "hidden: {}", paths(p)),
            Containment::NoSockets => {
                f.write_str("no sockets but netlink and stream socket pairs (seccomp)")
            }
            Containment::InetSocketsOnly => {
                f.write_str("no sockets but IPv4, IPv6, netlink and stream socket pairs (seccomp)")
            }
            Containment::Limits(l) => {
                let mut parts = Vec::new();
                if let Some(v) = l.cpu_seconds {
                    parts.push(format!("CPU {v} s per process"));
                }
                if let Some(v) = l.memory_bytes {
                    parts.push(format!("memory {v} bytes per process"));
                }
                if let Some(v) = l.processes {
                    parts.push(format!("{v} processes of the run"));
                }
                if let Some(v) = l.file_size_bytes {
                    parts.push(format!("files up to {v} bytes"));
                }
                if let Some(v) = l.scratch_bytes {
                    parts.push(format!("scratch directory of {v} bytes"));
                }
                write!(f, "limits: {}", parts.join(", "))
            }
        }
    }
}

/// What the sandbox did for one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SandboxReport {
    /// Every limit the run was held to.
    pub enforced: Vec<Containment>,
    /// What the effects (or the policy) called for but this system could not enforce, one
    /// sentence each; empty when everything asked for was enforced.
    pub not_enforced: Vec<String>,
    /// The private scratch directory given as `TMPDIR`: created for this run alone (mode
    /// 0700) and removed with everything in it after the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scratch_dir: Option<PathBuf>,
    /// Protected names that did not exist, held for the run by an empty read-only placeholder
    /// so that it could not create them (`.vscode`, `.envrc`, `.git/hooks`, …); removed after
    /// it if unchanged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placeholders: Vec<PathBuf>,
    /// Names (never values) of the runner's environment variables the command did not get:
    /// neither in the base set, nor declared by the command, nor passed or allowed by the
    /// caller (see [`crate::environment`]). Sorted.
    #[serde(rename = "envRemoved", skip_serializing_if = "Vec::is_empty")]
    pub env_removed: Vec<String>,
    /// What went through the egress proxy (runs with egress rules): hosts reached with their
    /// traffic, connections refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub egress: Option<crate::egress::EgressLog>,
}

impl SandboxReport {
    /// Whether `containment` was enforced.
    pub fn enforces(&self, containment: &Containment) -> bool {
        self.enforced.contains(containment)
    }

    /// Whether writes were limited (denied or confined).
    pub fn limits_writes(&self) -> bool {
        self.enforced.iter().any(|c| {
            matches!(
                c,
                Containment::NoWrites { .. } | Containment::WritesConfined { .. }
            )
        })
    }

    /// Whether network access was cut or narrowed (namespace, TCP denial, egress proxy).
    pub fn limits_network(&self) -> bool {
        self.enforced.iter().any(|c| {
            matches!(
                c,
                Containment::NetworkNamespace
                    | Containment::NoTcp
                    | Containment::EgressProxy { .. }
            )
        })
    }
}

impl fmt::Display for SandboxReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.enforced.is_empty() {
            f.write_str("sandbox: nothing enforced")?;
        } else {
            f.write_str("sandbox: ")?;
            for (i, c) in self.enforced.iter().enumerate() {
                if i > 0 {
                    f.write_str("; ")?;
                }
                write!(f, "{c}")?;
            }
        }
        if !self.not_enforced.is_empty() {
            write!(f, "; not enforced: {}", self.not_enforced.join("; "))?;
        }
        Ok(())
    }
}
