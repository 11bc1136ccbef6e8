//! The sandbox: a command's merged effects turned into kernel-enforced limits for its whole
//! process tree, so that metadata that lies (spec §11.1: metadata is descriptive, not
//! prescriptive) cannot do more than it declared.
//!
//! | declared | enforced on Linux |
//! |---|---|
//! | `filesystem.write: false` | no file may be created, written, truncated, renamed, linked or removed, no device `ioctl` (Landlock, ABI 3+, devices ABI 5+), except in the run's own scratch directory given as `TMPDIR` and `/dev/null`; no mode, owner, time or extended-attribute change anywhere (seccomp) |
//! | `filesystem.write: true` with `filesystem.paths` | writes only under those paths (`./` is the working directory, `~/` the home directory; a declared file gets a file's rights; a path that is or passes through a symbolic link below its base is not granted) and the scratch directory |
//! | a call with `file`/`directory` arguments held to path roots by the policy | writes also confined to those roots (unless the command may not write at all), so a path swapped for a link after the check leads nowhere outside |
//! | `filesystem.delete: false` | enforced only through `write: false` (no removal either) or `filesystem.paths` (removals only there): Landlock counts a rename as a removal, and every atomic write (git's index, editors) renames, so "writes but never deletes" cannot be told apart from an honest write |
//! | `network: false` | a private network namespace (no interface but a down loopback: no TCP, UDP, ICMP or abstract Unix sockets) where unprivileged user namespaces are allowed, and Landlock TCP bind/connect denial (ABI 4+) in any case |
//! | `network: true` or undeclared, with the policy's egress rules ([`hosts::Egress`]) | a private network namespace whose only way out is the egress proxy ([`egress`]), which reaches the allowed hosts; Landlock TCP connect only to the proxy's port (ABI 4+); no sockets but IPv4, IPv6, netlink and stream socket pairs (seccomp). Refused where no network namespace can be had, and with [`Sandbox::off`] |
//! | writes limited, or `network: false` | no connection to abstract Unix sockets created outside the sandbox (X11, D-Bus: Landlock ABI 6+) and, on ABI 9+, to pathname Unix sockets outside writable paths |
//! | writes in a writable root | by allow-list ([`protect`]): every repository under it read-only to every program but git, and to git but for what git writes; the protected names read-only, held by a placeholder when missing; the directories that hold them mount points, so nothing is renamed and replaced |
//! | every run but offline and egress ones | no Unix sockets (seccomp) unless the program owns a daemon's socket or the policy lists one (`Policy::unix_sockets`); such runs find the session's sockets hidden |
//! | every run | credential stores and daemon sockets empty to every program but their owners, wherever the tools' variables put them; resource limits ([`limits::ResourceLimits`]: memory, processes, file size, a tmpfs scratch directory); no automatic git maintenance ([`environment::GIT_SETTINGS`]) |
//! | always | one session and process group with no controlling terminal, which no process of the run can leave (seccomp refuses `setsid` and `setpgid`), so the whole tree is killed with it; no terminal input injection (`TIOCSTI`, `TIOCLINUX`); no capabilities (also for a root runner); `no_new_privs`; descriptors the host left open do not reach it; Landlock signal scoping (ABI 6+: no signals to processes outside the sandbox); the policy's resource limits (`setrlimit`) |
//!
//! Not contained anywhere: reads (effects say nothing reliable about them; a caller can confine
//! them with [`Sandbox::confine_reads`]); other pathname Unix sockets of a run that may open
//! Unix sockets, before Landlock ABI 9; a repository the run creates below a writable root; mode,
//! owner and time changes by a command that may write (Landlock has no right for them, and the
//! system-call filter cannot tell paths apart); and anything an undeclared (unknown) effect
//! leaves open — unknown effects get no file or network limit, the policy asks a person
//! instead. On other operating systems nothing is enforced and every run's [`SandboxReport`]
//! says so.
//!
//! A run's [`SandboxReport`] (in `Output::sandbox` and the tool result's metadata) lists what
//! was enforced and what the effects called for but this system could not enforce; with
//! `Policy::require_sandbox` such a run is refused instead.

//!
//! The crate's vocabulary — resource limits ([`limits`]) and host patterns ([`hosts`]) — is
//! there without features, for a policy to name; enforcing it (feature `enforce`, on by
//! default) brings Landlock, seccomp, namespaces, the egress proxy and tokio. Users reach it
//! through `atip-runtime`.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

pub mod hosts;
pub mod limits;

#[cfg(feature = "enforce")]
pub mod doctor;
#[cfg(feature = "enforce")]
pub mod egress;
#[cfg(feature = "enforce")]
pub mod environment;
#[cfg(feature = "enforce")]
pub mod protect;
#[cfg(feature = "enforce")]
mod report;
#[cfg(feature = "enforce")]
mod run;

#[cfg(feature = "enforce")]
pub use report::{Containment, SandboxReport};
#[cfg(feature = "enforce")]
pub use run::{prepare, Plan, Prepared, Sandbox, SandboxError};
