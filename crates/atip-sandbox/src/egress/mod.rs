//! The egress proxy: the only way out of a run whose policy lists the hosts it may reach
//! ([`crate::hosts::Egress`]).
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
//! to an address it checked ([`Egress::check_resolved`]), never to one a second lookup
//! returns; addresses in any notation are read into one form first ([`Host::parse`]).
//!
//! What a proxy cannot see is in the crate's RELIABILITY.md: inside a `CONNECT` tunnel the TLS
//! server name and the HTTP `Host` are the client's business (domain fronting reaches any site
//! of an allowed CDN), and programs that ignore the proxy variables fail instead of connecting.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use crate::hosts::{Egress, Host, Refusal};

mod http;
mod socks;
mod tunnel;

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
pub(super) const BUFFER_BYTES: usize = 256 * 1024;

/// Connections one run may have open through its proxy at once; more wait in the listening
/// socket's backlog. A tunnel holds six descriptors in the runner (its two sockets and a pipe
/// each way), so one run holds at most 384: a runner that serves several runs with egress
/// rules at once wants a soft `RLIMIT_NOFILE` above the common 1,024.
pub const MAX_CONNECTIONS: usize = 64;

/// How long a client has to send its first byte, a complete request head, or a SOCKS5
/// greeting and command, and how long a name may take to resolve.
pub(super) const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Name lookups one run's proxy has in flight at once. The system resolver blocks a thread of
/// tokio's blocking pool until it returns, which can be long after the proxy gave up on it
/// (10 s; a resolver with three silent name servers takes 30 s): a lookup
/// counts until it really ends, so that names whose servers never answer cannot pile up
/// threads in the runner as connection slots free. A connection that finds every lookup taken
/// waits for one until its own time is up, then is refused.
pub const MAX_LOOKUPS: usize = 8;

/// Name lookups all the runs of the process have inside the resolver at once: runs that end
/// leave their unanswered lookups behind (the resolver cannot be interrupted), and without a
/// bound across runs they would add up until tokio's blocking pool (512 threads) had none left
/// for anything else. Beyond it, a lookup waits like one beyond [`MAX_LOOKUPS`].
pub const MAX_PROCESS_LOOKUPS: usize = 64;

/// The [`MAX_PROCESS_LOOKUPS`] permits of the process.
static PROCESS_LOOKUPS: tokio::sync::Semaphore =
    tokio::sync::Semaphore::const_new(MAX_PROCESS_LOOKUPS);

/// Name lookups the runs of one program (by file name: `curl`, `gh`) have inside the resolver
/// at once, across the process: a quarter of [`MAX_PROCESS_LOOKUPS`]. A tool allowed a
/// wildcard over names whose servers never answer holds at most these until the resolver gives
/// up on them (about 30 s), and other programs' lookups still find permits. The share is the
/// file name's, not a tool's: tools run through one interpreter (`python3`, `node`) share it,
/// and meanwhile later runs of that program find none (their connections are refused). The
/// sandbox's proxy counts them ([`EgressProxy::start_for_program`]; a program whose path was
/// not resolved counts as the one named `""`); [`EgressProxy::start`] does not.
pub const MAX_PROGRAM_LOOKUPS: usize = 16;

/// How many runs' proxies hold `program`'s share of name lookups now ([`MAX_PROGRAM_LOOKUPS`]):
/// 0 when none of its runs is going. For tests of the runner, which starts the proxies.
#[doc(hidden)]
pub fn program_lookups_held(program: &str) -> usize {
    // Holders besides the registry and the handle taken here.
    Arc::strong_count(&program_lookups(program)).saturating_sub(2)
}

/// The [`MAX_PROGRAM_LOOKUPS`] permits of `program`, shared by all its runs in the process.
fn program_lookups(program: &str) -> Arc<tokio::sync::Semaphore> {
    static PROGRAMS: std::sync::OnceLock<Mutex<HashMap<String, Arc<tokio::sync::Semaphore>>>> =
        std::sync::OnceLock::new();
    let mut programs = PROGRAMS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    // A program no proxy and no lookup holds has all its permits: forget it.
    programs.retain(|_, permits| Arc::strong_count(permits) > 1);
    let permits = programs
        .entry(program.to_owned())
        .or_insert_with(|| Arc::new(tokio::sync::Semaphore::new(MAX_PROGRAM_LOOKUPS)));
    Arc::clone(permits)
}

/// Resolves a name and port to socket addresses, blocking: the system resolver
/// (`getaddrinfo`), or a stand-in in tests.
pub(super) type Resolver =
    Arc<dyn Fn(&str, u16) -> io::Result<Vec<SocketAddr>> + Send + Sync + 'static>;

/// The system resolver.
fn system_resolver() -> Resolver {
    Arc::new(|name: &str, port: u16| {
        use std::net::ToSocketAddrs;
        Ok((name, port).to_socket_addrs()?.collect())
    })
}

/// The largest request head the HTTP side reads (hyper's read buffer).
pub(super) const MAX_HEAD_BYTES: usize = 64 * 1024;

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

/// Traffic with the hosts a log does not list one by one ([`MAX_REACHED`]), added up.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OtherHosts {
    /// Connections opened to them.
    pub connections: u64,
    /// Bytes sent by the command to them.
    pub bytes_out: u64,
    /// Bytes received from them.
    pub bytes_in: u64,
}

/// What went through the egress proxy during one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EgressLog {
    /// Hosts reached, in the order first reached, with their traffic: the first
    /// [`MAX_REACHED`], then the [`MAX_HEAVIEST`] of the later ones with the most traffic
    /// (bytes either way); the traffic with the rest is in [`EgressLog::other_hosts`].
    pub reached: Vec<Reached>,
    /// Traffic with the hosts [`EgressLog::reached`] leaves out, added up; `None` when every
    /// host is listed. A command allowed a wildcard can make up any number of names below it:
    /// the log, the tool result's metadata and the audit line stay bounded, and a destination
    /// hidden behind made-up names still shows when it carries more than they do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_hosts: Option<OtherHosts>,
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

/// Hosts a log lists one by one in the order first reached ([`EgressLog::reached`]); of later
/// ones it lists the [`MAX_HEAVIEST`] with the most traffic and adds up the rest in
/// [`EgressLog::other_hosts`].
pub const MAX_REACHED: usize = 64;

/// Hosts reached after the first [`MAX_REACHED`] that a log still lists: those with the most
/// traffic (bytes either way), among the first [`MAX_TRACKED`] hosts.
pub const MAX_HEAVIEST: usize = 16;

/// Hosts whose traffic a proxy counts one by one; traffic with hosts reached after them is
/// only added up (the proxy's memory stays bounded however many names a command makes up).
pub const MAX_TRACKED: usize = 1_024;

#[derive(Default)]
pub(super) struct Traffic {
    connections: AtomicU64,
    pub(super) bytes_out: AtomicU64,
    pub(super) bytes_in: AtomicU64,
}

impl Traffic {
    /// The counts so far.
    fn totals(&self) -> OtherHosts {
        OtherHosts {
            connections: self.connections.load(Ordering::Relaxed),
            bytes_out: self.bytes_out.load(Ordering::Relaxed),
            bytes_in: self.bytes_in.load(Ordering::Relaxed),
        }
    }
}

#[derive(Default)]
struct Journal {
    reached: Vec<(String, Arc<Traffic>)>,
    index: HashMap<String, usize>,
    /// Traffic with hosts beyond [`MAX_TRACKED`].
    others: Option<Arc<Traffic>>,
    refused: Vec<Refused>,
    refused_omitted: u64,
}

pub(super) struct Shared {
    pub(super) rules: Egress,
    pub(super) slots: Arc<tokio::sync::Semaphore>,
    /// The run's [`MAX_LOOKUPS`] permits, each held by a lookup until the resolver returns.
    run_lookups: Arc<tokio::sync::Semaphore>,
    lookups: Lookups,
    journal: Mutex<Journal>,
    tasks: Mutex<JoinSet<()>>,
}

impl Shared {
    fn journal(&self) -> std::sync::MutexGuard<'_, Journal> {
        self.journal.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        let mut tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        // Reap what has ended, so a long run does not accumulate finished tasks.
        while tasks.try_join_next().is_some() {}
        tasks.spawn(task);
    }

    pub(super) fn refuse(&self, kind: &'static str, target: &str, why: &Refusal) {
        // The host and reason are the command's own words: only the audit line (redacted)
        // carries them, not the runner's log.
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

    pub(super) fn traffic(&self, target: &str) -> Arc<Traffic> {
        let mut j = self.journal();
        let t = match j.index.get(target) {
            Some(&i) => Arc::clone(&j.reached[i].1),
            None if j.reached.len() >= MAX_TRACKED => Arc::clone(j.others.get_or_insert_default()),
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

/// `text` with every character but printable ASCII escaped (`\n`, `\u{2028}`), cut to at
/// most `max` characters by [`cut_at_word`]. What a command wrote into a request cannot add
/// lines to a tool result, whatever a reader takes for a line end (Unicode's line and paragraph
/// separators, `U+0085`), nor reorder or hide text (bidirectional and zero-width format
/// characters), nor pass one host off as another in look-alike letters. Host names are ASCII
/// (internationalised ones travel as `xn--` labels) and the proxy's own reasons are too. Line ends
/// stay `\n`, `\r`, `\t` and backslashes stay single, the forms the redaction rules know
/// (a JSON-escaped private key, a quoted value with `\"`); a token right after such an escape
/// is found by the filter's search after escapes.
pub(super) fn printable(text: &str, max: usize) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c == ' ' || c.is_ascii_graphic() {
            out.push(c);
        } else {
            out.extend(c.escape_default());
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
    pub fn start(listener: TcpListener, rules: Egress) -> EgressProxy {
        let lookups = Lookups {
            resolver: system_resolver(),
            timeout: HANDSHAKE_TIMEOUT,
            process: &PROCESS_LOOKUPS,
            program: None,
        };
        EgressProxy::start_with(listener, rules, lookups)
    }

    /// [`EgressProxy::start`] for a run of `program` (its file name): its name lookups also
    /// count against the [`MAX_PROGRAM_LOOKUPS`] the program's runs share, so that one tool
    /// cannot hold every lookup of the process. What the sandbox starts for each run.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime (it spawns its tasks on the current one).
    pub fn start_for_program(listener: TcpListener, rules: Egress, program: &str) -> EgressProxy {
        let lookups = Lookups {
            resolver: system_resolver(),
            timeout: HANDSHAKE_TIMEOUT,
            process: &PROCESS_LOOKUPS,
            program: Some(program_lookups(program)),
        };
        EgressProxy::start_with(listener, rules, lookups)
    }

    /// [`EgressProxy::start`] with names resolved as `lookups` says.
    fn start_with(listener: TcpListener, rules: Egress, lookups: Lookups) -> EgressProxy {
        let shared = Arc::new(Shared {
            rules,
            slots: Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS)),
            run_lookups: Arc::new(tokio::sync::Semaphore::new(MAX_LOOKUPS)),
            lookups,
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
        let reached = |host: &str, t: &Traffic| {
            let t = t.totals();
            Reached {
                host: host.to_owned(),
                connections: t.connections,
                bytes_out: t.bytes_out,
                bytes_in: t.bytes_in,
            }
        };
        let first = j.reached.len().min(MAX_REACHED);
        let mut listed: Vec<Reached> = j.reached[..first]
            .iter()
            .map(|(h, t)| reached(h, t))
            .collect();
        let later: Vec<Reached> = j.reached[first..]
            .iter()
            .map(|(h, t)| reached(h, t))
            .collect();
        // The heaviest of the later hosts, listed in the order first reached (a stable sort:
        // of equal ones, the earlier).
        let mut by_weight: Vec<usize> = (0..later.len()).collect();
        by_weight.sort_by_key(|&i| std::cmp::Reverse(later[i].bytes_out + later[i].bytes_in));
        let mut heavy = vec![false; later.len()];
        for &i in by_weight.iter().take(MAX_HEAVIEST) {
            heavy[i] = true;
        }
        let mut others = j.others.as_ref().map(|t| t.totals());
        for (r, heavy) in later.into_iter().zip(heavy) {
            if heavy {
                listed.push(r);
            } else {
                let o = others.get_or_insert_default();
                o.connections += r.connections;
                o.bytes_out += r.bytes_out;
                o.bytes_in += r.bytes_in;
            }
        }
        EgressLog {
            reached: listed,
            other_hosts: others,
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
        Ok(Ok(1)) if first[0] == 5 => socks::serve(stream, shared).await,
        Ok(Ok(1)) => http::serve(stream, shared).await,
        _ => {}
    }
}

/// Why an upstream connection was not opened.
pub(super) enum Failure {
    Refused(Refusal),
    Unreachable(io::Error),
}

/// `host:port` for logs, with IPv6 addresses in brackets.
pub(super) fn target(host: &Host, port: u16) -> String {
    format!("{host}:{port}")
}

/// Checks `host:port` against the rules, resolves a name, checks each address, and connects
/// to the first allowed one that answers.
pub(super) async fn open(shared: &Shared, host: &Host, port: u16) -> Result<TcpStream, Failure> {
    shared.rules.check(host, port).map_err(Failure::Refused)?;
    let candidates: Vec<SocketAddr> = match host {
        Host::Address(a) => vec![SocketAddr::new(*a, port)],
        Host::Name(name) => {
            let resolved = resolve(shared, name, port)
                .await
                .map_err(Failure::Refused)?;
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

/// How a proxy resolves names: the resolver, how long a lookup may take, the permits of the
/// process ([`MAX_PROCESS_LOOKUPS`]) and of the program that runs ([`MAX_PROGRAM_LOOKUPS`],
/// when known); tests bring their own.
struct Lookups {
    resolver: Resolver,
    timeout: Duration,
    process: &'static tokio::sync::Semaphore,
    program: Option<Arc<tokio::sync::Semaphore>>,
}

/// Resolves `name` on the blocking pool, holding one of the run's [`MAX_LOOKUPS`] permits, one
/// of its program's [`MAX_PROGRAM_LOOKUPS`] and one of the process's [`MAX_PROCESS_LOOKUPS`]
/// until the resolver returns, whether or not the proxy still waits for it.
async fn resolve(shared: &Shared, name: &str, port: u16) -> Result<Vec<SocketAddr>, Refusal> {
    let deadline = tokio::time::Instant::now() + shared.lookups.timeout;
    let unresolved = |why: &str| Refusal::Unresolved(why.to_owned());
    let busy = || unresolved("too many name lookups in flight");
    let run = tokio::time::timeout_at(deadline, Arc::clone(&shared.run_lookups).acquire_owned())
        .await
        .map_err(|_| busy())?
        .map_err(|_| busy())?;
    let program = match &shared.lookups.program {
        Some(permits) => Some(
            tokio::time::timeout_at(deadline, Arc::clone(permits).acquire_owned())
                .await
                .map_err(|_| busy())?
                .map_err(|_| busy())?,
        ),
        None => None,
    };
    let process = tokio::time::timeout_at(deadline, shared.lookups.process.acquire())
        .await
        .map_err(|_| busy())?
        .map_err(|_| busy())?;
    let resolver = Arc::clone(&shared.lookups.resolver);
    let name = name.to_owned();
    let lookup = tokio::task::spawn_blocking(move || {
        let resolved = resolver(&name, port);
        drop((run, program, process));
        resolved
    });
    match tokio::time::timeout_at(deadline, lookup).await {
        Err(_) => Err(unresolved("timed out")),
        Ok(Err(_)) => Err(unresolved("the lookup failed")),
        Ok(Ok(resolved)) => resolved.map_err(|e| Refusal::Unresolved(e.to_string())),
    }
}

#[cfg(test)]
mod tests;
