//! The egress proxy: the only way out of a run whose policy lists the hosts it may reach
//! ([`crate::policy::Egress`]).
//!
//! Such a run gets a network namespace of its own whose only route is a listening socket on
//! its loopback (`127.0.0.1:`[`PROXY_PORT`]) that the runner accepts on from the host side;
//! `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY` (both cases) point there and `NO_PROXY` is
//! removed. A connection that does not go through the proxy has no route. On that one port
//! the proxy speaks, told apart by the first byte:
//!
//! * HTTP `CONNECT host:port` (HTTPS and anything else tunnelled), answered `200` once the
//!   upstream connection is open, `403` with the reason when refused;
//! * plain HTTP with an absolute URI (`GET http://host/path`), forwarded when the URI's host is
//!   allowed **and** the `Host` header names the same host and port (`403` otherwise);
//! * SOCKS5 `CONNECT` without authentication (`socks5h://`: the proxy resolves names), with
//!   reply `0x02` (not allowed by ruleset) when refused; `BIND` and `UDP ASSOCIATE` are refused.
//!
//! Every request is judged on its own (a keep-alive connection cannot carry a second request to
//! another host under the first one's verdict). The proxy resolves names itself and connects
//! to an address it checked ([`EgressRules::check_resolved`]), never to one a second lookup
//! returns; addresses in any notation are read into one form first ([`Host::parse`]).
//!
//! What a proxy cannot see is in the crate's RELIABILITY.md: inside a `CONNECT` tunnel the TLS
//! server name and the HTTP `Host` are the client's business (domain fronting reaches any site
//! of an allowed CDN), and programs that ignore the proxy variables fail instead of connecting.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use crate::policy::{EgressRules, Host, Refusal};

/// The port of the proxy on a run's own loopback (inside its network namespace, where no other
/// program listens).
pub const PROXY_PORT: u16 = 3128;

/// How long the proxy waits for an upstream connection to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long [`EgressProxy::finish`] lets open connections end on their own after the run.
const FINISH_GRACE: Duration = Duration::from_millis(200);

/// Copy buffer per direction of a tunnel: large enough that a bulk download keeps most of a
/// direct connection's rate (BENCHMARKS.md), small enough that [`MAX_CONNECTIONS`] tunnels
/// stay a bounded amount of memory.
const BUFFER_BYTES: usize = 256 * 1024;

/// Connections one run may have open through its proxy at once; more wait in the listening
/// socket's backlog. A tunnel holds six descriptors in the runner (its two sockets and a pipe
/// each way), so one run holds at most 384: a runner that serves several runs with egress
/// rules at once wants a soft `RLIMIT_NOFILE` above the common 1,024.
pub const MAX_CONNECTIONS: usize = 64;

/// How long a client has to send its first byte, a complete request head, or a SOCKS5
/// greeting and command, and how long a name may take to resolve.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest request head the HTTP side reads (hyper's read buffer).
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// The longest host or reason the proxy keeps in a refusal, in characters (the runner cuts it
/// further, to [`MAX_REFUSAL_TEXT`], after redacting it).
const MAX_LOGGED_TEXT: usize = 2_000;

/// The longest host or reason of a refusal a tool result shows, in characters: the text is the
/// command's own and ends up before a model.
pub const MAX_REFUSAL_TEXT: usize = 200;

/// Traffic with one host (`host:port` as the command asked for it) during a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reached {
    /// `host:port` as requested (a name, or an address in its canonical form).
    pub host: String,
    /// Connections opened.
    pub connections: u64,
    /// Bytes sent by the command to the host.
    pub bytes_out: u64,
    /// Bytes received from the host.
    pub bytes_in: u64,
}

/// A connection or request the proxy refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refused {
    /// `connect` (HTTP `CONNECT` or SOCKS5) or `request` (plain HTTP).
    pub kind: &'static str,
    /// `host:port` as the command asked for it.
    pub target: String,
    /// Why, as a sentence.
    pub reason: String,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "egress: refused {} to {} — {}",
            self.kind, self.target, self.reason
        )
    }
}

/// What went through the egress proxy during one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EgressLog {
    /// Hosts reached, in the order first reached, with their traffic.
    pub reached: Vec<Reached>,
    /// Connections and requests refused, in order (at most [`MAX_REFUSALS`] kept).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Refused>,
    /// Refusals beyond [`MAX_REFUSALS`], counted only.
    #[serde(skip_serializing_if = "is_zero")]
    pub refused_omitted: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Refusals a log keeps one by one; later ones are counted in [`EgressLog::refused_omitted`].
pub const MAX_REFUSALS: usize = 32;

#[derive(Default)]
struct Traffic {
    connections: AtomicU64,
    bytes_out: AtomicU64,
    bytes_in: AtomicU64,
}

#[derive(Default)]
struct Journal {
    reached: Vec<(String, Arc<Traffic>)>,
    index: HashMap<String, usize>,
    refused: Vec<Refused>,
    refused_omitted: u64,
}

struct Shared {
    rules: EgressRules,
    slots: Arc<tokio::sync::Semaphore>,
    journal: Mutex<Journal>,
    tasks: Mutex<JoinSet<()>>,
}

impl Shared {
    fn journal(&self) -> std::sync::MutexGuard<'_, Journal> {
        self.journal.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        let mut tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        // Reap what has ended, so a long run does not accumulate finished tasks.
        while tasks.try_join_next().is_some() {}
        tasks.spawn(task);
    }

    fn refuse(&self, kind: &'static str, target: &str, why: &Refusal) {
        // The host and reason are the command's own words: only the audit line (redacted)
        // carries them.
        let _ = (target, why);
        tracing::info!(kind, "egress refused");
        let mut j = self.journal();
        if j.refused.len() < MAX_REFUSALS {
            j.refused.push(Refused {
                kind,
                target: printable(target, MAX_LOGGED_TEXT),
                reason: printable(&why.to_string(), MAX_LOGGED_TEXT),
            });
        } else {
            j.refused_omitted += 1;
        }
    }

    fn traffic(&self, target: &str) -> Arc<Traffic> {
        let mut j = self.journal();
        let t = match j.index.get(target) {
            Some(&i) => Arc::clone(&j.reached[i].1),
            None => {
                let t = Arc::new(Traffic::default());
                let i = j.reached.len();
                j.reached.push((target.to_owned(), Arc::clone(&t)));
                j.index.insert(target.to_owned(), i);
                t
            }
        };
        t.connections.fetch_add(1, Ordering::Relaxed);
        t
    }
}

/// `text` with control characters escaped (what a command wrote into a request cannot add
/// lines to a tool result), cut to at most `max` characters by [`cut_at_word`].
fn printable(text: &str, max: usize) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
        if out.len() > 4 * max {
            break;
        }
    }
    cut_at_word(&out, max)
}

/// `text` cut to at most `max` characters, never inside a word (letters, digits, `_`, `-`,
/// `+`, `/`, `=`, `.`): a word the cut would split is left out whole, so that a secret is
/// either kept for redaction to find or dropped, never left as a fragment redaction cannot
/// recognise. `…` marks a cut.
pub fn cut_at_word(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '+' | '/' | '=' | '.');
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let mut head = &text[..end];
    if text[end..].starts_with(word) {
        head = head.trim_end_matches(word);
    }
    format!("{head}…")
}

/// A running egress proxy. Dropping it stops it and every connection through it.
pub struct EgressProxy {
    shared: Arc<Shared>,
    accept: tokio::task::JoinHandle<()>,
}

impl fmt::Debug for EgressProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EgressProxy")
            .field("rules", &self.shared.rules)
            .finish_non_exhaustive()
    }
}

impl EgressProxy {
    /// Serves `listener` (on the current tokio runtime) under `rules` until
    /// [`EgressProxy::finish`] or drop. The sandbox starts one per run on the run's own
    /// listening socket; a caller may start one on any listener, e.g. to test its rules.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime (it spawns its tasks on the current one).
    pub fn start(listener: TcpListener, rules: EgressRules) -> EgressProxy {
        let shared = Arc::new(Shared {
            rules,
            slots: Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS)),
            journal: Mutex::new(Journal::default()),
            tasks: Mutex::new(JoinSet::new()),
        });
        let serving = Arc::clone(&shared);
        let accept = tokio::spawn(async move {
            loop {
                // A free slot first: connections beyond it wait in the backlog.
                let Ok(slot) = Arc::clone(&serving.slots).acquire_owned().await else {
                    return;
                };
                let Ok((stream, _)) = listener.accept().await else {
                    // Out of descriptors or the like: let the command see refused connections.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                let shared = Arc::clone(&serving);
                serving.spawn(async move {
                    connection(stream, shared).await;
                    drop(slot);
                });
            }
        });
        EgressProxy { shared, accept }
    }

    /// What the proxy has seen so far.
    pub fn log(&self) -> EgressLog {
        let j = self.shared.journal();
        EgressLog {
            reached: j
                .reached
                .iter()
                .map(|(host, t)| Reached {
                    host: host.clone(),
                    connections: t.connections.load(Ordering::Relaxed),
                    bytes_out: t.bytes_out.load(Ordering::Relaxed),
                    bytes_in: t.bytes_in.load(Ordering::Relaxed),
                })
                .collect(),
            refused: j.refused.clone(),
            refused_omitted: j.refused_omitted,
        }
    }

    /// Stops accepting, lets open connections end for a moment (the run is over, so their
    /// client side is normally closed already), stops the rest and returns the log.
    pub async fn finish(self) -> EgressLog {
        self.accept.abort();
        let mut tasks =
            std::mem::take(&mut *self.shared.tasks.lock().unwrap_or_else(|p| p.into_inner()));
        let _ = tokio::time::timeout(FINISH_GRACE, async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
        tasks.abort_all();
        self.log()
    }
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.shared
            .tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .abort_all();
    }
}

/// One accepted connection: SOCKS5 when it starts with version byte 5, else HTTP.
async fn connection(stream: TcpStream, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let mut first = [0u8; 1];
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, stream.peek(&mut first)).await {
        Ok(Ok(1)) if first[0] == 5 => socks5(stream, shared).await,
        Ok(Ok(1)) => http(stream, shared).await,
        _ => {}
    }
}

/// Why an upstream connection was not opened.
enum Failure {
    Refused(Refusal),
    Unreachable(io::Error),
}

/// `host:port` for logs, with IPv6 addresses in brackets.
fn target(host: &Host, port: u16) -> String {
    format!("{host}:{port}")
}

/// Checks `host:port` against the rules, resolves a name, checks each address, and connects
/// to the first allowed one that answers.
async fn open(shared: &Shared, host: &Host, port: u16) -> Result<TcpStream, Failure> {
    shared.rules.check(host, port).map_err(Failure::Refused)?;
    let candidates: Vec<SocketAddr> = match host {
        Host::Address(a) => vec![SocketAddr::new(*a, port)],
        Host::Name(name) => {
            let lookup = tokio::net::lookup_host((name.as_str(), port));
            let resolved: Vec<SocketAddr> = tokio::time::timeout(HANDSHAKE_TIMEOUT, lookup)
                .await
                .map_err(|_| Failure::Refused(Refusal::Unresolved("timed out".to_owned())))?
                .map_err(|e| Failure::Refused(Refusal::Unresolved(e.to_string())))?
                .collect();
            let mut allowed = Vec::new();
            let mut refused = Vec::new();
            for sa in resolved {
                match shared.rules.check_resolved(sa.ip(), port) {
                    Ok(()) => allowed.push(sa),
                    Err(why) => refused.push((sa.ip(), why)),
                }
            }
            if allowed.is_empty() {
                return Err(Failure::Refused(if refused.is_empty() {
                    Refusal::Unresolved("no address".to_owned())
                } else {
                    Refusal::Resolved(refused)
                }));
            }
            allowed
        }
    };
    let mut last = io::Error::from(io::ErrorKind::NotFound);
    for sa in candidates {
        match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(sa)).await {
            Ok(Ok(s)) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Ok(Err(e)) => last = e,
            Err(_) => last = io::Error::from(io::ErrorKind::TimedOut),
        }
    }
    Err(Failure::Unreachable(last))
}

/// Relays bytes both ways until either side closes, counting them for `target`.
async fn tunnel<C>(mut client: C, upstream: TcpStream, traffic: Arc<Traffic>)
where
    C: AsyncRead + AsyncWrite + Unpin,
{
    let mut upstream = Counted {
        inner: upstream,
        traffic,
    };
    let _ = tokio::io::copy_bidirectional_with_sizes(
        &mut client,
        &mut upstream,
        BUFFER_BYTES,
        BUFFER_BYTES,
    )
    .await;
}

/// Relays bytes both ways between two TCP connections until either side is done, counting
/// them for the upstream's host. On Linux the bytes never enter the runner's memory: each
/// direction moves them through a pipe with `splice(2)`, which keeps a bulk download close to
/// a direct connection's rate on a machine whose cores the client, the proxy and the server
/// share.
async fn tcp_tunnel(client: TcpStream, upstream: TcpStream, traffic: Arc<Traffic>) {
    #[cfg(target_os = "linux")]
    {
        // Downloads get the larger pipe: that is where bulk traffic goes.
        let mut out = std::pin::pin!(splice::one_way(
            &client,
            &upstream,
            &traffic.bytes_out,
            None
        ));
        let mut back = std::pin::pin!(splice::one_way(
            &upstream,
            &client,
            &traffic.bytes_in,
            Some(splice::DOWNLOAD_PIPE_BYTES)
        ));
        // A direction that ended cleanly waits for the other (a half-closed connection); one
        // that failed ends both.
        tokio::select! {
            r = &mut out => if r.is_ok() { let _ = back.await; },
            r = &mut back => if r.is_ok() { let _ = out.await; },
        }
    }
    #[cfg(not(target_os = "linux"))]
    tunnel(client, upstream, traffic).await;
}

#[cfg(target_os = "linux")]
mod splice {
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::sync::atomic::{AtomicU64, Ordering};

    use tokio::io::Interest;
    use tokio::net::TcpStream;

    /// Bytes one `splice` call asks for (at most what the pipe holds).
    const PIPE_BYTES: usize = 1 << 20;

    /// The pipe of a tunnel's download direction: 512 KiB (128 pages). The upload direction
    /// keeps the default 64 KiB, so that [`super::MAX_CONNECTIONS`] tunnels take 9,216 pages,
    /// within the kernel's per-user pipe budget (`pipe-user-pages-soft`, 16,384 pages), beyond
    /// which every new pipe of the user would shrink to two pages. With default pipes both
    /// ways a 1 GiB download ran at half the rate (BENCHMARKS.md).
    pub(super) const DOWNLOAD_PIPE_BYTES: usize = 512 * 1024;

    /// A pipe of `size` bytes (the default where the kernel refuses it).
    fn pipe(size: Option<usize>) -> io::Result<(OwnedFd, OwnedFd)> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 into a local array; both descriptors are new and owned here.
        unsafe {
            if libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) != 0 {
                return Err(io::Error::last_os_error());
            }
            let (r, w) = (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]));
            if let Some(size) = size {
                libc::fcntl(w.as_raw_fd(), libc::F_SETPIPE_SZ, size as libc::c_int);
            }
            Ok((r, w))
        }
    }

    /// `SIOCATMARK` (`<asm-generic/sockios.h>`; the libc crate does not define it).
    const SIOCATMARK: libc::c_ulong = 0x8905;

    /// Whether `fd`'s next byte is TCP urgent data (`SIOCATMARK`): `splice` stops there.
    fn at_urgent_mark(fd: libc::c_int) -> bool {
        let mut mark: libc::c_int = 0;
        // SAFETY: ioctl with a pointer to a local integer.
        unsafe { libc::ioctl(fd, SIOCATMARK as _, &mut mark) == 0 && mark != 0 }
    }

    /// Past an urgent byte, which `splice` does not cross: reads what is there with `recv`
    /// (which steps over the urgent byte unless the socket reads it inline, as a direct
    /// connection's reader would) and writes it to `dst`. `Ok(false)` at the end of the
    /// stream.
    async fn past_urgent_mark(
        src: &TcpStream,
        dst: &TcpStream,
        count: &AtomicU64,
    ) -> io::Result<bool> {
        let mut buf = vec![0u8; 16 * 1024];
        let n = match src.try_io(Interest::READABLE, || {
            // SAFETY: recv into a buffer owned here.
            let n = unsafe {
                libc::recv(
                    src.as_raw_fd(),
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    libc::MSG_DONTWAIT,
                )
            };
            if n < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(n as usize)
            }
        }) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
            Err(e) => return Err(e),
        };
        let mut sent = 0;
        while sent < n {
            match dst.try_write(&buf[sent..n]) {
                Ok(k) => {
                    sent += k;
                    count.fetch_add(k as u64, Ordering::Relaxed);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => dst.writable().await?,
                Err(e) => return Err(e),
            }
        }
        Ok(n > 0)
    }

    fn splice(from: libc::c_int, to: libc::c_int, len: usize) -> io::Result<usize> {
        // SAFETY: splice between two descriptors the caller holds, without offsets.
        let n = unsafe {
            libc::splice(
                from,
                std::ptr::null_mut(),
                to,
                std::ptr::null_mut(),
                len,
                libc::SPLICE_F_MOVE | libc::SPLICE_F_NONBLOCK,
            )
        };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    /// Moves bytes from `src` to `dst` until `src` ends (then shuts `dst` for writing) or
    /// either fails, adding what reached `dst` to `count`.
    pub(super) async fn one_way(
        src: &TcpStream,
        dst: &TcpStream,
        count: &AtomicU64,
        pipe_size: Option<usize>,
    ) -> io::Result<()> {
        let (r, w) = pipe(pipe_size)?;
        let mut in_pipe = 0usize;
        loop {
            if in_pipe == 0 {
                let n = loop {
                    src.readable().await?;
                    if at_urgent_mark(src.as_raw_fd()) {
                        if past_urgent_mark(src, dst, count).await? {
                            continue;
                        }
                        break 0;
                    }
                    match src.try_io(Interest::READABLE, || {
                        splice(src.as_raw_fd(), w.as_raw_fd(), PIPE_BYTES)
                    }) {
                        Ok(n) => break n,
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                        Err(e) => return Err(e),
                    }
                };
                if n == 0 {
                    // SAFETY: shutdown of a descriptor `dst` owns.
                    unsafe { libc::shutdown(dst.as_raw_fd(), libc::SHUT_WR) };
                    return Ok(());
                }
                in_pipe = n;
            }
            dst.writable().await?;
            match dst.try_io(Interest::WRITABLE, || {
                splice(r.as_raw_fd(), dst.as_raw_fd(), in_pipe)
            }) {
                Ok(n) => {
                    in_pipe -= n;
                    count.fetch_add(n as u64, Ordering::Relaxed);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// An upstream connection that counts the bytes through it as they pass (so a tunnel cut short
/// still has its traffic counted).
struct Counted<S> {
    inner: S,
    traffic: Arc<Traffic>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        let n = (buf.filled().len() - before) as u64;
        self.traffic.bytes_in.fetch_add(n, Ordering::Relaxed);
        r
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &r {
            self.traffic
                .bytes_out
                .fetch_add(*n as u64, Ordering::Relaxed);
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

async fn socks5(stream: TcpStream, shared: Arc<Shared>) {
    use fast_socks5::server::Socks5ServerProtocol;
    use fast_socks5::util::target_addr::TargetAddr;
    use fast_socks5::{ReplyError, Socks5Command};
    let handshake = async {
        let proto = Socks5ServerProtocol::accept_no_auth(stream).await.ok()?;
        proto.read_command().await.ok()
    };
    let Ok(Some((proto, command, to))) = tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await
    else {
        return;
    };
    let (host, port) = match &to {
        TargetAddr::Ip(sa) => (Ok(Host::Address(sa.ip())), sa.port()),
        TargetAddr::Domain(name, port) => (Host::parse(name), *port),
    };
    let shown = match &host {
        Ok(h) => target(h, port),
        Err(_) => to.to_string(),
    };
    if !matches!(command, Socks5Command::TCPConnect) {
        shared.refuse(
            "connect",
            &shown,
            &Refusal::Request("SOCKS5 BIND and UDP ASSOCIATE are not relayed".to_owned()),
        );
        let _ = proto.reply_error(&ReplyError::CommandNotSupported).await;
        return;
    }
    let host = match host {
        Ok(h) => h,
        Err(why) => {
            shared.refuse("connect", &shown, &Refusal::Request(why));
            let _ = proto.reply_error(&ReplyError::ConnectionNotAllowed).await;
            return;
        }
    };
    match open(&shared, &host, port).await {
        Ok(upstream) => {
            let local = upstream
                .local_addr()
                .unwrap_or_else(|_| SocketAddr::from(([0, 0, 0, 0], 0)));
            let traffic = shared.traffic(&shown);
            if let Ok(client) = proto.reply_success(local).await {
                tcp_tunnel(client, upstream, traffic).await;
            }
        }
        Err(Failure::Refused(why)) => {
            shared.refuse("connect", &shown, &why);
            let _ = proto.reply_error(&ReplyError::ConnectionNotAllowed).await;
        }
        Err(Failure::Unreachable(_)) => {
            let _ = proto.reply_error(&ReplyError::HostUnreachable).await;
        }
    }
}

type Body = BoxBody<Bytes, hyper::Error>;

fn text(status: StatusCode, message: String) -> Response<Body> {
    let mut response = Response::new(
        Full::new(Bytes::from(message + "\n"))
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = status;
    response
}

/// `403` naming the reason, also in the `X-Atip-Egress` header.
fn forbidden(shared: &Shared, kind: &'static str, shown: &str, why: &Refusal) -> Response<Body> {
    shared.refuse(kind, shown, why);
    let why = printable(&why.to_string(), MAX_REFUSAL_TEXT);
    let line = format!(
        "egress: refused {kind} to {} — {why}",
        printable(shown, MAX_REFUSAL_TEXT)
    );
    let mut response = text(StatusCode::FORBIDDEN, line);
    // The connection ends with a refusal: nothing more is read from a client that tried.
    response.headers_mut().insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("close"),
    );
    if let Ok(v) = hyper::header::HeaderValue::from_str(&why) {
        response.headers_mut().insert("x-atip-egress", v);
    }
    response
}

async fn http(stream: TcpStream, shared: Arc<Shared>) {
    let service = hyper::service::service_fn(move |req| {
        let shared = Arc::clone(&shared);
        async move { Ok::<_, Infallible>(request(req, shared).await) }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HANDSHAKE_TIMEOUT)
        .max_buf_size(MAX_HEAD_BYTES)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades()
        .await;
}

/// An authority or URL with any user information (`user:password@`) replaced by
/// `<userinfo>@`: a password is never repeated back.
fn without_userinfo(text: &str) -> String {
    match text.rsplit_once('@') {
        Some((head, host)) => {
            let scheme = head.find("://").map_or("", |i| &head[..i + 3]);
            format!("{scheme}<userinfo>@{host}")
        }
        None => text.to_owned(),
    }
}

/// A host and port from an authority (`host:port`, `[v6]:port`), with `default` when it has
/// none.
fn authority(a: &hyper::http::uri::Authority, default: Option<u16>) -> Result<(Host, u16), String> {
    let port = a
        .port_u16()
        .or(default)
        .ok_or_else(|| format!("`{a}` has no port"))?;
    if a.as_str().contains('@') {
        return Err(format!(
            "`{}` holds user information",
            without_userinfo(a.as_str())
        ));
    }
    Ok((Host::parse(a.host())?, port))
}

async fn request(req: Request<Incoming>, shared: Arc<Shared>) -> Response<Body> {
    if req.method() == Method::CONNECT {
        return connect(req, shared).await;
    }
    let uri = req.uri().clone();
    let Some(auth) = uri.authority() else {
        return forbidden(
            &shared,
            "request",
            "(no host)",
            &Refusal::Request(
                "not a proxy request: the URL must be absolute (http://host/path)".to_owned(),
            ),
        );
    };
    let shown_raw = without_userinfo(auth.as_str());
    if uri.scheme_str() != Some("http") {
        return forbidden(
            &shared,
            "request",
            &shown_raw,
            &Refusal::Request(format!(
                "only http:// is forwarded as a request; use CONNECT for {}",
                uri.scheme_str().unwrap_or("this scheme")
            )),
        );
    }
    let (host, port) = match authority(auth, Some(80)) {
        Ok(hp) => hp,
        Err(why) => return forbidden(&shared, "request", &shown_raw, &Refusal::Request(why)),
    };
    let shown = target(&host, port);
    // The Host header must name what the URL names: a server picks its site by the header.
    if req.headers().get_all(hyper::header::HOST).iter().count() > 1 {
        return forbidden(
            &shared,
            "request",
            &shown,
            &Refusal::Request("more than one Host header".to_owned()),
        );
    }
    if let Some(h) = req.headers().get(hyper::header::HOST) {
        let same = h
            .to_str()
            .ok()
            .and_then(|h| h.parse::<hyper::http::uri::Authority>().ok())
            .and_then(|a| authority(&a, Some(80)).ok())
            .is_some_and(|hp| hp == (host.clone(), port));
        if !same {
            return forbidden(
                &shared,
                "request",
                &shown,
                &Refusal::Request(format!(
                    "the Host header `{}` names another host than the URL",
                    String::from_utf8_lossy(h.as_bytes())
                )),
            );
        }
    }
    let upstream = match open(&shared, &host, port).await {
        Ok(s) => s,
        Err(Failure::Refused(why)) => return forbidden(&shared, "request", &shown, &why),
        Err(Failure::Unreachable(e)) => {
            return text(
                StatusCode::BAD_GATEWAY,
                format!("egress: cannot reach {shown}: {e}"),
            )
        }
    };
    let traffic = shared.traffic(&shown);
    let counted = Counted {
        inner: upstream,
        traffic,
    };
    let (mut sender, conn) =
        match hyper::client::conn::http1::handshake(TokioIo::new(counted)).await {
            Ok(pair) => pair,
            Err(e) => return text(StatusCode::BAD_GATEWAY, format!("egress: {shown}: {e}")),
        };
    shared.spawn(async move {
        let _ = conn.await;
    });
    let (mut parts, body) = req.into_parts();
    strip_hop_by_hop(&mut parts.headers);
    if parts.headers.get(hyper::header::HOST).is_none() {
        if let Ok(v) = hyper::header::HeaderValue::from_str(auth.as_str()) {
            parts.headers.insert(hyper::header::HOST, v);
        }
    }
    parts.uri = match uri.path_and_query() {
        Some(pq) => pq
            .as_str()
            .parse()
            .unwrap_or_else(|_| hyper::Uri::from_static("/")),
        None => hyper::Uri::from_static("/"),
    };
    match sender.send_request(Request::from_parts(parts, body)).await {
        Ok(response) => {
            let (mut parts, body) = response.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            Response::from_parts(parts, body.boxed())
        }
        Err(e) => text(StatusCode::BAD_GATEWAY, format!("egress: {shown}: {e}")),
    }
}

/// Removes the headers that concern one connection only (RFC 9110 §7.6.1), and those the
/// `Connection` header names.
fn strip_hop_by_hop(headers: &mut hyper::HeaderMap) {
    let named: Vec<String> = headers
        .get_all(hyper::header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect();
    for name in named {
        headers.remove(name.as_str());
    }
    for name in [
        "connection",
        "proxy-connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "upgrade",
    ] {
        headers.remove(name);
    }
}

async fn connect(req: Request<Incoming>, shared: Arc<Shared>) -> Response<Body> {
    let raw = without_userinfo(&req.uri().to_string());
    let (host, port) = match req
        .uri()
        .authority()
        .ok_or_else(|| "CONNECT needs host:port".to_owned())
        .and_then(|a| authority(a, None))
    {
        Ok(hp) => hp,
        Err(why) => return forbidden(&shared, "connect", &raw, &Refusal::Request(why)),
    };
    let shown = target(&host, port);
    let upstream = match open(&shared, &host, port).await {
        Ok(s) => s,
        Err(Failure::Refused(why)) => return forbidden(&shared, "connect", &shown, &why),
        Err(Failure::Unreachable(e)) => {
            return text(
                StatusCode::BAD_GATEWAY,
                format!("egress: cannot reach {shown}: {e}"),
            )
        }
    };
    let traffic = shared.traffic(&shown);
    let upgrade = hyper::upgrade::on(req);
    // The tunnel outlives this connection's HTTP side (and its slot): it takes a slot of its
    // own.
    let slots = Arc::clone(&shared.slots);
    shared.spawn(async move {
        let Ok(slot) = slots.acquire_owned().await else {
            return;
        };
        let Ok(upgraded) = upgrade.await else {
            return;
        };
        // The client's own connection, when hyper hands it back: bytes it read past the
        // request head go upstream first.
        match upgraded.downcast::<TokioIo<TcpStream>>() {
            Ok(parts) => {
                use tokio::io::AsyncWriteExt;
                let mut upstream = upstream;
                if !parts.read_buf.is_empty() {
                    if upstream.write_all(&parts.read_buf).await.is_err() {
                        return;
                    }
                    traffic
                        .bytes_out
                        .fetch_add(parts.read_buf.len() as u64, Ordering::Relaxed);
                }
                tcp_tunnel(parts.io.into_inner(), upstream, traffic).await;
            }
            Err(upgraded) => tunnel(TokioIo::new(upgraded), upstream, traffic).await,
        }
        drop(slot);
    });
    Response::new(
        http_body_util::Empty::new()
            .map_err(|never| match never {})
            .boxed(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_leave_no_fragment_of_a_word() {
        let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";
        let text = format!("{} {token} tail", "x ".repeat(90));
        let cut = cut_at_word(&text, 200);
        assert!(cut.ends_with(" …") || cut.ends_with('…'), "{cut}");
        assert!(
            !cut.contains("ghp_"),
            "the token straddling the cut goes whole: {cut}"
        );
        assert_eq!(cut_at_word("short", 200), "short");
        assert_eq!(
            cut_at_word(&"y".repeat(500), 10),
            "…",
            "one long word goes whole"
        );
        assert_eq!(printable("a\nb", 200), "a\\nb");
        assert_eq!(
            without_userinfo("http://alice:pw@example.com/x"),
            "http://<userinfo>@example.com/x"
        );
        assert_eq!(without_userinfo("a:b@host:80"), "<userinfo>@host:80");
        assert_eq!(without_userinfo("host:80"), "host:80");
    }
}
