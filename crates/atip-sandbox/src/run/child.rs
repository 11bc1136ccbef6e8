//! What the child does between the spawn and `exec` (Linux), prepared in the parent.
//!
//! The child is started with `clone(CLONE_VM | CLONE_VFORK)` (see `atip_spawn`): it runs on
//! the parent's memory until it calls `exec`, so [`ChildSetup`]'s [`PreExec`] steps work on
//! borrowed data only — system calls on values prepared in the parent, no allocation, no
//! destructor, no lock.
//! One consequence shapes the network step: a process that shares its memory may not join an
//! existing user namespace (`setns` refuses it), so an offline run either joins the shared
//! network namespace directly (root, which needs no user namespace for that) or unshares a
//! user and network namespace of its own.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

use nix::sys::resource::Resource;

use super::mounts::check;

use crate::limits::ResourceLimits;
use atip_spawn::PreExec;

/// How an offline run gets its network namespace.
#[derive(Debug, Clone, Copy)]
pub(super) enum Network {
    /// Join the process's shared offline network namespace (a root runner: `CAP_SYS_ADMIN`
    /// over it without entering its user namespace).
    Join(&'static OwnedFd),
    /// Unshare a user namespace (mapping the runner's ids onto themselves) and a network
    /// namespace of its own.
    Fresh,
}

/// The network step of a run whose egress goes through the proxy: a network namespace of its
/// own (with a user namespace unless the runner is root), its loopback up, and a listening
/// socket on `127.0.0.1:PROXY_PORT` handed to the runner over `channel`, which accepts on it
/// from outside.
pub(super) struct EgressChild {
    /// Unshare a user namespace too (not root).
    pub user_namespace: bool,
    /// The child's end of a `SOCK_SEQPACKET` pair: the listening socket goes through it.
    pub channel: OwnedFd,
    /// The runner's end, taken after the spawn.
    pub runner: Option<OwnedFd>,
}

/// Everything the child does before `exec`, prepared in the parent.
pub(crate) struct ChildSetup {
    /// The Landlock ruleset to restrict the child with; `None`: only `no_new_privs`.
    pub(super) ruleset: Option<OwnedFd>,
    /// The network namespace of an offline run.
    pub(super) network: Option<Network>,
    /// The network namespace and proxy listener of a run with egress rules.
    pub(super) egress: Option<EgressChild>,
    pub(super) limits: ResourceLimits,
    /// Drop capabilities; `privileged`: the child holds `CAP_SETPCAP` (root, or a user
    /// namespace of its own), so the bounding set and securebits can go too.
    pub(super) capabilities: Option<CapabilityDrop>,
    /// The run's mount namespace: protected paths, hidden credential stores.
    pub(super) mounts: Option<super::mounts::Mounts>,
    pub(super) seccomp: Option<&'static seccompiler::BpfProgram>,
    /// `/proc/self/uid_map` and `gid_map` contents for a user namespace of its own.
    pub(super) id_maps: super::mounts::IdMaps,
    /// The runner's process id: the child asks to be killed when the thread that started it
    /// ends (`PR_SET_PDEATHSIG`), and checks that this process is still its parent.
    pub(super) runner: libc::pid_t,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct CapabilityDrop {
    pub privileged: bool,
    pub last: u32,
}

impl ChildSetup {
    /// Whether the child enters a user namespace of its own before its mounts.
    pub(super) fn own_user_namespace(network: Option<Network>) -> bool {
        matches!(network, Some(Network::Fresh))
    }
}

// SAFETY: both steps make system calls on descriptors, strings and values prepared in the
// parent and owned by `self` (the mounts' and id maps' buffers included), build their errors
// from OS error codes only, and change the child alone: its namespaces, mounts, limits,
// capabilities, Landlock domain and seccomp filter. Nothing allocates, locks or panics.
unsafe impl PreExec for ChildSetup {
    /// The namespaces the child creates for itself alone: its mount namespace, and its network
    /// namespace when it does not join the shared offline one.
    fn private_namespaces(&self) -> Vec<&'static str> {
        let mnt = self.mounts.is_some().then_some("mnt");
        let net = (matches!(self.network, Some(Network::Fresh)) || self.egress.is_some())
            .then_some("net");
        mnt.into_iter().chain(net).collect()
    }

    /// The first half of the setup, before the child changes to its working directory: the
    /// network namespace, then the mount namespace. (A working directory entered before the
    /// mounts would keep the directory underneath them: a relative path would pass a
    /// protected or hidden path by.)
    ///
    /// # Errors
    ///
    /// The OS error of the first step that failed (an [`io::Error`] holding only an errno,
    /// which does not allocate).
    fn enter_namespaces(&self) -> io::Result<()> {
        // SAFETY (both blocks): system calls on a descriptor owned by `self` and constants.
        match self.network {
            Some(Network::Join(net)) => unsafe {
                check(libc::setns(net.as_raw_fd(), libc::CLONE_NEWNET))?;
            },
            Some(Network::Fresh) => {
                unsafe { check(libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET))? };
                self.id_maps.write()?;
            }
            None => {}
        }
        if let Some(egress) = &self.egress {
            let mut flags = libc::CLONE_NEWNET;
            if egress.user_namespace {
                flags |= libc::CLONE_NEWUSER;
            }
            unsafe { check(libc::unshare(flags))? };
            if egress.user_namespace {
                self.id_maps.write()?;
            }
            proxy_listener(egress.channel.as_raw_fd())?;
        }
        if let Some(mounts) = &self.mounts {
            mounts.apply(&self.id_maps)?;
        }
        Ok(())
    }

    /// The second half, in the working directory: resource limits, capabilities, Landlock
    /// (with `no_new_privs`), seccomp.
    ///
    /// # Errors
    ///
    /// As for [`PreExec::enter_namespaces`].
    fn restrict(&self) -> io::Result<()> {
        let l = self.limits;
        for (resource, value, slack) in [
            (Resource::RLIMIT_CPU, l.cpu_seconds, 1),
            (Resource::RLIMIT_DATA, l.memory_bytes, 0),
            (Resource::RLIMIT_NPROC, l.processes, 0),
            (Resource::RLIMIT_FSIZE, l.file_size_bytes, 0),
        ] {
            if let Some(v) = value {
                // RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL a second later.
                nix::sys::resource::setrlimit(resource, v, v.saturating_add(slack))
                    .map_err(|e| io::Error::from_raw_os_error(e as i32))?;
            }
        }
        // No core dumps: where `core_pattern` pipes them to a handler (systemd-coredump,
        // apport), a crash would store the run's memory outside the sandbox.
        nix::sys::resource::setrlimit(Resource::RLIMIT_CORE, 0, 0)
            .map_err(|e| io::Error::from_raw_os_error(e as i32))?;
        if let Some(drop) = self.capabilities {
            drop_capabilities(drop)?;
        }
        // Killed with the runner: an agent that dies (even by SIGKILL) does not leave its
        // run going past its time limit. The signal follows the thread that started the
        // child, which is one of the runtime's for as long as the run lasts.
        // SAFETY: plain system calls on constants.
        unsafe {
            check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0))?;
            if libc::getppid() != self.runner {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
        }
        // Landlock requires no_new_privs of an unprivileged process; set it in every case.
        unsafe { check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))? };
        if let Some(ruleset) = &self.ruleset {
            if let Some(mounts) = &self.mounts {
                mounts.grant_scratch(ruleset.as_raw_fd())?;
            }
            // Restricts this process and every child it starts.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_landlock_restrict_self,
                    ruleset.as_raw_fd(),
                    0 as libc::c_uint,
                )
            };
            if rc != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        // Last: the filter refuses nothing the steps above need, but keep it that way.
        if let Some(program) = self.seccomp {
            super::seccomp::install(program)?;
        }
        Ok(())
    }

    fn what(&self) -> &'static str {
        "setting up the sandbox"
    }
}

/// In a new network namespace: brings the loopback up, listens on
/// `127.0.0.1:`[`PROXY_PORT`](crate::egress::PROXY_PORT) and sends the listening socket
/// over `channel` (`SCM_RIGHTS`) to the runner, which serves the proxy on it from outside. The
/// child's own copies close at `exec`. System calls on stack values only.
fn proxy_listener(channel: libc::c_int) -> io::Result<()> {
    use std::mem::{size_of, zeroed};
    // SAFETY (every block): system calls on values built here on the stack.
    unsafe {
        let ctl = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if ctl < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut req: libc::ifreq = zeroed();
        for (i, b) in b"lo\0".iter().enumerate() {
            req.ifr_name[i] = *b as libc::c_char;
        }
        req.ifr_ifru.ifru_flags = (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        let up = libc::ioctl(ctl, libc::SIOCSIFFLAGS as _, &req);
        let up_error = io::Error::last_os_error();
        libc::close(ctl);
        if up != 0 {
            return Err(up_error);
        }
        let listener = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if listener < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut addr: libc::sockaddr_in = zeroed();
        addr.sin_family = libc::AF_INET as libc::sa_family_t;
        addr.sin_port = crate::egress::PROXY_PORT.to_be();
        addr.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
        let bound = libc::bind(
            listener,
            std::ptr::from_ref(&addr).cast(),
            size_of::<libc::sockaddr_in>() as libc::socklen_t,
        );
        if bound != 0 || libc::listen(listener, 1024) != 0 {
            let e = io::Error::last_os_error();
            libc::close(listener);
            return Err(e);
        }
        let sent = with_fd_message(|msg| {
            let cmsg = libc::CMSG_FIRSTHDR(msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(size_of::<libc::c_int>() as u32) as _;
            std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>(), listener);
            libc::sendmsg(channel, msg, libc::MSG_NOSIGNAL)
        });
        let e = io::Error::last_os_error();
        libc::close(listener);
        if sent != 1 {
            return Err(e);
        }
    }
    Ok(())
}

/// Receives the listening socket [`proxy_listener`] sent over `channel` (already queued: the
/// child sent it before `exec`, and the spawn returns after).
///
/// # Errors
///
/// The OS error, or `InvalidData` when no descriptor came.
pub(crate) fn receive_listener(channel: &OwnedFd) -> io::Result<OwnedFd> {
    // SAFETY: recvmsg into buffers on the stack; the descriptor read from the control message
    // is new in this process and owned by nothing else.
    unsafe {
        with_fd_message(|msg| {
            let n = libc::recvmsg(
                channel.as_raw_fd(),
                msg,
                libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC,
            );
            if n < 0 {
                return Err(io::Error::last_os_error());
            }
            let cmsg = libc::CMSG_FIRSTHDR(msg);
            if n != 1
                || cmsg.is_null()
                || (*cmsg).cmsg_level != libc::SOL_SOCKET
                || (*cmsg).cmsg_type != libc::SCM_RIGHTS
            {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the run sent no listening socket for its egress proxy",
                ));
            }
            let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>());
            Ok(std::os::fd::FromRawFd::from_raw_fd(fd))
        })
    }
}

/// Calls `f` with a message of one byte and room for one descriptor's control message, all
/// on the stack (the child may not allocate).
///
/// # Safety
///
/// `f` receives pointers into this frame, valid only during the call.
unsafe fn with_fd_message<R>(f: impl FnOnce(&mut libc::msghdr) -> R) -> R {
    use std::mem::{size_of, zeroed};
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // Aligned for `cmsghdr`; room for one `c_int` (CMSG_SPACE(4) is 24 bytes on 64-bit).
    let mut control = [0u64; 4];
    // SAFETY: a zeroed msghdr is valid; its pointers are set to the buffers above.
    let mut msg: libc::msghdr = unsafe { zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    // SAFETY: a constant computation.
    msg.msg_controllen = unsafe { libc::CMSG_SPACE(size_of::<libc::c_int>() as u32) } as _;
    f(&mut msg)
}

/// Drops every capability of the calling process (the child before `exec`): with
/// `CAP_SETPCAP` (root or a user namespace of its own) also the bounding set, and
/// `SECBIT_NOROOT` and its relatives are set and locked, so that `exec` grants uid 0 nothing;
/// always the ambient set and the effective, permitted and inheritable sets (`capset`).
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
