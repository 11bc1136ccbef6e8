//! Confined MCP servers (`atip mcp wrap`): a stdio MCP server started in the sandbox for its
//! whole life ([`Runner::start`]) and re-served on this process's stdio, with the policy in
//! front of every `tools/call` and redaction behind it.
//!
//! The wrapper relays JSON-RPC 2.0 messages (MCP's stdio transport, protocol revision
//! 2025-06-18: one message per line, UTF-8) both ways unchanged, except:
//!
//! * `tools/list` results are read for each tool's annotations, which become its effects on
//!   the safe side ([`effects_of_annotations`](atip_runtime::canonical::effects_of_annotations):
//!   an absent hint is unknown);
//! * a `tools/call` is judged by the policy on those effects
//!   ([`Policy::evaluate_effects`](atip_runtime::Policy::evaluate_effects)): allowed, it goes
//!   to the server; denied, the client gets an error result naming the rules (`isError`), and
//!   the server never sees it; one that needs confirmation is put to the client's user by
//!   elicitation (`elicitation/create`, a form with one required boolean, `confirm`) when the
//!   client declared the capability at `initialize`, and held until the answer — refused
//!   without it; the model is told the rules by name ([`Reason::for_model`]), not the policy;
//! * everything the server sends but the protocol's own fields is redacted: results (text,
//!   structured content, embedded resources), errors, log and progress messages, its requests
//!   to the client, and its standard error;
//! * one line per call goes to the runner's audit log, in its shape (`time`, `callId`,
//!   `tool`, `decision`: `allowed`, `confirmed`, `denied`, `declined` or `unconfirmed`,
//!   `reasons` as `{code, message}`, `confirmedBy`), with `server`, `redactions` and `isError`.
//!
//! Progress, cancellation, list changes and the server's own requests to the client pass
//! through. The server's annotations are its own claims: a server that lies about them gets
//! past the policy, not past the sandbox, which holds it to the effects it was started with.

pub(crate) mod redact;
mod server;
#[cfg(all(test, target_os = "linux"))]
mod tests;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use atip_runtime::exec::AuditLog;
use atip_runtime::policy::Reason;
use atip_runtime::{Effects, Invocation, RunError, Runner};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

pub use server::{name_of_program, ServerFilesystem, ServerSpec, ServerSpecError};

use crate::confirm::CONFIRM_FIELD;

/// How long a server whose client has gone is given to exit before it is killed.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// The longest message relayed, in bytes: a longer line is dropped (the client's answered
/// with an error).
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// The most bytes held for a peer that does not read them before the server is ended.
const MAX_QUEUED_BYTES: usize = 64 << 20;

/// JSON-RPC's error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// Why a wrapped server could not be served.
#[derive(Debug)]
pub enum WrapError {
    /// The server could not be started (checksum, sandbox, spawn).
    Start(RunError),
    /// Reading or writing a stream failed.
    Io(std::io::Error),
}

impl fmt::Display for WrapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WrapError::Start(e) => write!(f, "cannot start the server: {e}"),
            WrapError::Io(e) => write!(f, "relaying the server's messages: {e}"),
        }
    }
}

impl std::error::Error for WrapError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WrapError::Start(e) => Some(e),
            WrapError::Io(e) => Some(e),
        }
    }
}

/// A stdio MCP server to run confined and re-serve: its command line and the effects it may
/// have for its whole life (`server.effects`: writes in the runner's working directory and
/// writable paths when `filesystem.write` is not `false`, the network only when `network` is
/// `true`, then only to the policy's hosts when it lists any), started by `runner`, whose
/// policy judges its tools' calls and whose filter redacts what it says.
pub struct Wrapper {
    runner: Runner,
    server: Invocation,
    described: HashMap<String, Effects>,
}

impl Wrapper {
    /// The wrapper of `server` (its `argv`, `effects` and declared `env`), run by `runner`.
    pub fn new(runner: Runner, server: Invocation) -> Self {
        Wrapper {
            runner,
            server,
            described: HashMap::new(),
        }
    }

    /// The wrapper of the server `spec` describes, run by `runner` (whose policy and sandbox
    /// should come from [`ServerSpec::add_to`] and [`ServerSpec::sandbox`]), with its tools'
    /// effects.
    pub fn from_spec(runner: Runner, spec: &ServerSpec) -> Self {
        Wrapper::new(runner, spec.invocation()).tool_effects(spec.tools.clone())
    }

    /// Judges the tools named in `tools` on the effects given there instead of their
    /// annotations (the person's word over the server's claims; an effect left out is
    /// unknown).
    #[must_use]
    pub fn tool_effects(mut self, tools: impl IntoIterator<Item = (String, Effects)>) -> Self {
        self.described.extend(tools);
        self
    }

    /// Serves on this process's standard input and output.
    ///
    /// # Errors
    ///
    /// As [`Wrapper::serve`].
    pub async fn serve_stdio(self) -> Result<std::process::ExitStatus, WrapError> {
        self.serve(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Starts the server and relays between it and a client that writes to `input` and reads
    /// `output`, until the server exits (its exit status) or the client closes `input` (the
    /// server's stdin is closed; it is killed if it has not exited after 5 s).
    ///
    /// # Errors
    ///
    /// [`WrapError::Start`] when the server cannot start; [`WrapError::Io`] when a stream
    /// fails.
    pub async fn serve<R, W>(
        self,
        input: R,
        output: W,
    ) -> Result<std::process::ExitStatus, WrapError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let mut started = self
            .runner
            .start(&self.server)
            .await
            .map_err(WrapError::Start)?;
        let name = self.server.name.to_string();
        // What the sandbox could not hold the server to, said before anything is served.
        for line in &started.report().not_enforced {
            eprintln!("atip mcp wrap: {name}: not enforced: {line}");
        }
        let filter = started.filter().clone();
        let queued = std::sync::Arc::new(AtomicUsize::new(0));
        let (to_client, client_out) = mpsc::unbounded_channel::<Vec<u8>>();
        let (to_server, server_in) = mpsc::unbounded_channel::<Vec<u8>>();
        let client_writer = tokio::spawn(write_lines(client_out, output, queued.clone()));
        let server_stdin = started.stdin.take().expect("started with a stdin pipe");
        let server_writer = tokio::spawn(write_lines(server_in, server_stdin, queued.clone()));
        let (client_tx, mut client_rx) = mpsc::channel(2);
        let client_reader = tokio::spawn(read_lines(input, client_tx));
        let (server_tx, mut server_rx) = mpsc::channel(2);
        let stdout = started.stdout.take().expect("started with a stdout pipe");
        let server_reader = tokio::spawn(read_lines(stdout, server_tx));
        if let Some(stderr) = started.stderr.take() {
            let (filter, tool) = (filter.clone(), name.clone());
            let (tx, mut rx) = mpsc::channel(2);
            tokio::spawn(read_lines(stderr, tx));
            tokio::spawn(async move {
                let mut out = tokio::io::stderr();
                while let Some(incoming) = rx.recv().await {
                    let text = match incoming {
                        Incoming::Line(line) => {
                            filter.redact_for(Some(&tool), &line).0.into_owned()
                        }
                        // Skipped, and the server's stderr read on: a broken pipe would end it.
                        Incoming::TooLong => format!(
                            "{tool}: a line longer than {MAX_MESSAGE_BYTES} bytes was dropped"
                        ),
                    };
                    let _ = out.write_all(format!("{text}\n").as_bytes()).await;
                }
            });
        }
        let mut relay = Relay {
            server: name,
            policy: self.runner.current_policy().clone(),
            audit: self.runner.current_audit_log().cloned(),
            filter,
            to_client,
            to_server: Some(to_server),
            queued,
            tools: self.described.clone(),
            described: self.described.into_keys().collect(),
            lists: HashSet::new(),
            calls: HashMap::new(),
            asked: HashMap::new(),
            elicits: false,
        };
        let mut signals = Signals::new();
        // When the client went: the server is killed if it has not exited by then.
        let mut deadline: Option<tokio::time::Instant> = None;
        let status = loop {
            if relay.queued.load(Ordering::Relaxed) > MAX_QUEUED_BYTES {
                // A reader that does not read: stop rather than hold its messages.
                eprintln!("atip mcp wrap: a peer stopped reading; ending the server");
                started.kill();
                break started.wait().await.map_err(WrapError::Io)?;
            }
            tokio::select! {
                incoming = client_rx.recv(), if deadline.is_none() => match incoming {
                    Some(Incoming::Line(line)) => relay.client_said(&line),
                    Some(Incoming::TooLong) => relay.reply_error(
                        Value::Null,
                        INVALID_REQUEST,
                        &format!("message longer than {MAX_MESSAGE_BYTES} bytes"),
                    ),
                    None => {
                        // The client has gone: close the server's stdin, let it exit.
                        relay.to_server = None;
                        deadline = Some(tokio::time::Instant::now() + EXIT_GRACE);
                    }
                },
                incoming = server_rx.recv() => match incoming {
                    Some(Incoming::Line(line)) => relay.server_said(&line),
                    Some(Incoming::TooLong) => eprintln!(
                        "{}: a message longer than {MAX_MESSAGE_BYTES} bytes was dropped",
                        relay.server
                    ),
                    None => break wait_or_kill(&mut started).await.map_err(WrapError::Io)?,
                },
                () = sleep_until_some(deadline) => {
                    started.kill();
                    break started.wait().await.map_err(WrapError::Io)?;
                }
                () = signals.recv() => {
                    // The wrapper is asked to stop (its client stopping it): the server's
                    // whole process group goes first.
                    started.kill();
                    break started.wait().await.map_err(WrapError::Io)?;
                }
            }
        };
        // What the server left running in its group goes too, before anything is awaited.
        started.kill();
        drop(started);
        drop(relay);
        server_writer.abort();
        server_reader.abort();
        client_reader.abort();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), client_writer).await;
        Ok(status)
    }
}

/// A line read, or one over [`MAX_MESSAGE_BYTES`] (skipped to its end).
pub(crate) enum Incoming {
    Line(String),
    TooLong,
}

/// Reads `input` line by line (invalid UTF-8 replaced, lines over [`MAX_MESSAGE_BYTES`]
/// skipped and reported as such) into `tx`, until the end of `input` or of the receiver.
pub(crate) async fn read_lines<R: AsyncRead + Unpin>(input: R, tx: mpsc::Sender<Incoming>) {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let mut too_long = false;
        loop {
            let available = match reader.fill_buf().await {
                Ok(available) => available,
                Err(_) => return,
            };
            if available.is_empty() {
                if line.is_empty() && !too_long {
                    return;
                }
                break;
            }
            let (take, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (available.len(), false),
            };
            if !too_long {
                line.extend_from_slice(&available[..take]);
                if line.len() > MAX_MESSAGE_BYTES {
                    too_long = true;
                    line = Vec::new();
                }
            }
            reader.consume(take + usize::from(done));
            if done {
                break;
            }
        }
        let item = if too_long {
            Incoming::TooLong
        } else {
            Incoming::Line(String::from_utf8_lossy(&line).into_owned())
        };
        if tx.send(item).await.is_err() {
            return;
        }
    }
}

/// Waits until `deadline`, or forever without one.
async fn sleep_until_some(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// SIGTERM, SIGINT and SIGHUP to this process, those that can be listened to.
struct Signals {
    term: Option<tokio::signal::unix::Signal>,
    interrupt: Option<tokio::signal::unix::Signal>,
    hangup: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    fn new() -> Self {
        use tokio::signal::unix::{signal, SignalKind};
        Signals {
            term: signal(SignalKind::terminate()).ok(),
            interrupt: signal(SignalKind::interrupt()).ok(),
            hangup: signal(SignalKind::hangup()).ok(),
        }
    }

    /// The next of them.
    async fn recv(&mut self) {
        async fn one(signal: &mut Option<tokio::signal::unix::Signal>) {
            if let Some(s) = signal {
                if s.recv().await.is_some() {
                    return;
                }
            }
            std::future::pending().await
        }
        tokio::select! {
            () = one(&mut self.term) => {}
            () = one(&mut self.interrupt) => {}
            () = one(&mut self.hangup) => {}
        }
    }
}

/// Waits for the server whose stdout closed, killing it if it lingers.
async fn wait_or_kill(
    started: &mut atip_runtime::exec::Started,
) -> std::io::Result<std::process::ExitStatus> {
    match tokio::time::timeout(EXIT_GRACE, started.wait()).await {
        Ok(status) => status,
        Err(_) => {
            started.kill();
            started.wait().await
        }
    }
}

/// Writes each message of `rx` as one line to `out`, until every sender is gone; `queued`
/// counts the bytes sent and not yet written.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut rx: mpsc::UnboundedReceiver<Vec<u8>>,
    mut out: W,
    queued: std::sync::Arc<AtomicUsize>,
) {
    while let Some(mut line) = rx.recv().await {
        let len = line.len();
        line.push(b'\n');
        let written = out.write_all(&line).await.is_ok() && out.flush().await.is_ok();
        queued.fetch_sub(len, Ordering::Relaxed);
        if !written {
            break;
        }
    }
    let _ = out.shutdown().await;
}

/// The relay's state: what it learnt of the server's tools and the calls in flight.
struct Relay {
    server: String,
    policy: atip_runtime::Policy,
    audit: Option<AuditLog>,
    filter: atip_runtime::filter::ResultFilter,
    to_client: mpsc::UnboundedSender<Vec<u8>>,
    /// `None` once the client has gone (the server's stdin is then closed).
    to_server: Option<mpsc::UnboundedSender<Vec<u8>>>,
    /// Bytes sent to either peer and not yet written.
    queued: std::sync::Arc<AtomicUsize>,
    /// Each tool's effects: from the description, else from its annotations once listed.
    tools: HashMap<String, Effects>,
    /// The tools whose effects the description gives: their annotations are not read.
    described: HashSet<String>,
    /// The ids (as JSON text) of `tools/list` requests in flight.
    lists: HashSet<String>,
    /// The ids (as JSON text) of calls sent to the server, with their tool and decision.
    calls: HashMap<String, Call>,
    /// The wrapper's elicitation requests in flight, with the call each holds.
    asked: HashMap<String, Held>,
    /// Whether the client declared elicitation at `initialize`.
    elicits: bool,
}

/// A call sent to the server.
struct Call {
    /// Its JSON-RPC id, as the client sent it.
    id: Value,
    tool: String,
    decision: &'static str,
    reasons: Vec<Reason>,
}

/// A call held while its user is asked.
struct Held {
    request: Value,
    tool: String,
    reasons: Vec<Reason>,
}

impl Relay {
    fn send_client(&self, message: &Value) {
        let line = message.to_string().into_bytes();
        self.queued.fetch_add(line.len(), Ordering::Relaxed);
        let _ = self.to_client.send(line);
    }

    /// Sends `message` to the server as this wrapper serialises it: the server parses exactly
    /// what was judged.
    fn send_server(&self, message: &Value) {
        if let Some(tx) = &self.to_server {
            let line = message.to_string().into_bytes();
            self.queued.fetch_add(line.len(), Ordering::Relaxed);
            let _ = tx.send(line);
        }
    }

    /// Answers the client's request `id` with a JSON-RPC error.
    fn reply_error(&self, id: Value, code: i64, message: &str) {
        self.send_client(&json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": code, "message": message}
        }));
    }

    /// One line in the runner's audit log, in its shape (`time`, `callId`, `tool`,
    /// `decision`, `reasons`, …) with the server's name and what `extra` adds.
    fn audit(&self, request: &Value, tool: &str, decision: &str, reasons: &[Reason], extra: Value) {
        if let Some(log) = &self.audit {
            let mut record = json!({
                "time": humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
                "callId": request.get("id"),
                "server": self.server,
                "tool": tool,
                "decision": decision,
                "reasons": reasons.iter().map(Reason::audit_json).collect::<Vec<_>>(),
            });
            if let (Value::Object(r), Value::Object(e)) = (&mut record, extra) {
                r.extend(e);
            }
            log.append(&record);
        }
    }

    /// A line from the client. Only single messages that parse are relayed, re-serialised:
    /// what the server reads is what was judged (a line this parser rejects but the server's
    /// would accept never reaches it).
    fn client_said(&mut self, line: &str) {
        let message = match serde_json::from_str::<Value>(line) {
            Ok(message @ Value::Object(_)) => message,
            Ok(Value::Array(_)) => {
                return self.reply_error(
                    Value::Null,
                    INVALID_REQUEST,
                    "batches are not relayed: send one message per line",
                )
            }
            Ok(_) => return self.reply_error(Value::Null, INVALID_REQUEST, "not a message"),
            Err(e) => return self.reply_error(Value::Null, PARSE_ERROR, &e.to_string()),
        };
        let id = message.get("id").map(Value::to_string);
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match (method.as_deref(), id) {
            (None, Some(id)) if self.asked.contains_key(&id) => {
                let held = self.asked.remove(&id).expect("checked");
                self.answered(held, &message);
            }
            (Some("initialize"), _) => {
                self.elicits = message
                    .pointer("/params/capabilities/elicitation")
                    .is_some_and(Value::is_object);
                self.send_server(&message);
            }
            (Some("tools/list"), Some(id)) => {
                self.lists.insert(id);
                self.send_server(&message);
            }
            (Some("tools/call"), Some(_)) => self.call(message),
            // A call without an id cannot be answered, so cannot be refused: not relayed.
            (Some("tools/call"), None) => {}
            (Some("notifications/cancelled"), _) => {
                // A held call cancelled before its user answered: forget it.
                let cancelled = message.pointer("/params/requestId").map(Value::to_string);
                self.asked
                    .retain(|_, held| held.request.get("id").map(Value::to_string) != cancelled);
                self.send_server(&message);
            }
            // Requests, notifications and the answers to the server's own requests.
            _ => self.send_server(&message),
        }
    }

    /// A `tools/call` request: judged, then sent, refused or put to the user.
    fn call(&mut self, request: Value) {
        let tool = request
            .pointer("/params/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let effects = self.tools.get(&tool).cloned().unwrap_or(Effects::UNKNOWN);
        let decision = self.policy.evaluate_effects(&tool, &effects);
        let reasons = decision.reasons().to_vec();
        match decision {
            atip_runtime::Decision::Allow => self.forward(request, tool, "allowed", reasons),
            atip_runtime::Decision::Deny(_) => {
                self.refuse(&request, &tool, "denied", &reasons, None)
            }
            atip_runtime::Decision::NeedsConfirmation(_) if !self.elicits => self.refuse(
                &request,
                &tool,
                "unconfirmed",
                &reasons,
                Some(
                    "it needs a person's confirmation, and this client cannot ask (no elicitation)",
                ),
            ),
            atip_runtime::Decision::NeedsConfirmation(_) => {
                // Unguessable: the server, which may send the client requests of its own,
                // cannot make the user's answer to its question answer this one.
                let id = format!("atip-wrap-{}", random_hex());
                // The name quoted and escaped (`{:?}`): a name cannot rewrite the question.
                let message = format!(
                    "The MCP server `{}` wants to run its tool {:?}:\n{}\nRun it?",
                    self.server,
                    tool,
                    reasons
                        .iter()
                        .map(|r| format!("- {r}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                );
                self.send_client(&json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "method": "elicitation/create",
                    "params": {
                        "message": message,
                        "requestedSchema": {
                            "type": "object",
                            "properties": {CONFIRM_FIELD: {
                                "type": "boolean",
                                "title": "Run this tool",
                                "description": "Tick to let the tool run; leave unticked or decline to refuse"
                            }},
                            "required": [CONFIRM_FIELD]
                        }
                    }
                }));
                self.asked.insert(
                    serde_json::to_string(&id).expect("a string"),
                    Held {
                        request,
                        tool,
                        reasons,
                    },
                );
            }
        }
    }

    /// The client's answer to the elicitation that holds `held`.
    fn answered(&mut self, held: Held, answer: &Value) {
        let yes = answer.pointer("/result/action").and_then(Value::as_str) == Some("accept")
            && answer.pointer(&format!("/result/content/{CONFIRM_FIELD}"))
                == Some(&Value::Bool(true));
        if yes {
            self.forward(held.request, held.tool, "confirmed", held.reasons);
        } else {
            self.refuse(
                &held.request,
                &held.tool,
                "declined",
                &held.reasons,
                Some("the user declined"),
            );
        }
    }

    fn forward(
        &mut self,
        request: Value,
        tool: String,
        decision: &'static str,
        reasons: Vec<Reason>,
    ) {
        let id = request.get("id").map(Value::to_string).unwrap_or_default();
        self.calls.insert(
            id,
            Call {
                id: request.get("id").cloned().unwrap_or(Value::Null),
                tool,
                decision,
                reasons,
            },
        );
        self.send_server(&request);
    }

    fn refuse(
        &self,
        request: &Value,
        tool: &str,
        decision: &str,
        reasons: &[Reason],
        why: Option<&str>,
    ) {
        // As the runtime tells a model: the rules by name, not the policy's contents.
        let mut text = format!("`{tool}` was not run");
        if let Some(why) = why {
            text.push_str(": ");
            text.push_str(why);
        }
        if !reasons.is_empty() {
            let shown: Vec<String> = reasons.iter().map(Reason::for_model).collect();
            text.push_str(&format!(" ({})", shown.join("; ")));
        }
        self.send_client(&json!({
            "jsonrpc": "2.0",
            "id": request.get("id").cloned().unwrap_or(Value::Null),
            "result": {"content": [{"type": "text", "text": text}], "isError": true}
        }));
        self.audit(
            request,
            tool,
            decision,
            reasons,
            json!({"confirmedBy": null}),
        );
    }

    /// A line from the server: each message in it (a batch is taken apart) redacted whole
    /// and passed on; the answers to the client's requests read on the way.
    fn server_said(&mut self, line: &str) {
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Array(messages)) => {
                for message in messages {
                    self.server_message(message);
                }
            }
            Ok(message) => self.server_message(message),
            Err(_) => {
                // Not a message (a server must write only messages to stdout): to stderr,
                // redacted, so that the client's stream stays valid.
                let (clean, _) = self.filter.redact_for(Some(&self.server), line);
                eprintln!("{}: not an MCP message: {clean}", self.server);
            }
        }
    }

    fn server_message(&mut self, mut message: Value) {
        let id = match message.get("method") {
            None => message.get("id").map(Value::to_string),
            Some(_) => None,
        };
        if let Some(id) = &id {
            if self.lists.remove(id) {
                self.learn(&message);
            }
        }
        let call = id.as_ref().and_then(|id| self.calls.remove(id));
        let tool = call
            .as_ref()
            .map_or(self.server.as_str(), |c| c.tool.as_str())
            .to_owned();
        let redactions = redact::message(&self.filter, Some(&tool), &mut message);
        if let Some(call) = call {
            let is_error = message.get("error").is_some()
                || message.pointer("/result/isError") == Some(&Value::Bool(true));
            self.audit(
                &json!({"id": call.id}),
                &call.tool,
                call.decision,
                &call.reasons,
                json!({
                    "confirmedBy": (call.decision == "confirmed").then_some("elicitation"),
                    "redactions": redactions,
                    "isError": is_error,
                }),
            );
        }
        self.send_client(&message);
    }

    /// Reads a `tools/list` result for each tool's effects: a described tool keeps the
    /// description's; a name outside MCP's tool-name characters (1 to 128 of ASCII letters,
    /// digits, `_`, `-`, `.`), one that differs from a described name only by case, or one the
    /// list names twice, is unknown whatever its annotations say (`DEL` or `"del "` beside a
    /// described `del`; a client may show the first of two entries, the server mean the
    /// second); every other tool gets its annotations' effects ([`effects_of_annotations`](atip_runtime::canonical::effects_of_annotations)).
    fn learn(&mut self, message: &Value) {
        let Some(tools) = message.pointer("/result/tools").and_then(Value::as_array) else {
            return;
        };
        let mut seen = HashSet::new();
        for tool in tools {
            let name = tool.get("name").and_then(Value::as_str);
            let Some(name) = name.filter(|n| !self.described.contains(*n)) else {
                continue;
            };
            let twice = !seen.insert(name);
            let lookalike = self.described.iter().any(|d| d.eq_ignore_ascii_case(name));
            let effects = if server::plain_tool_name(name) && !lookalike && !twice {
                atip_runtime::canonical::effects_of_annotations(
                    tool.get("annotations").and_then(Value::as_object),
                )
            } else {
                Effects::UNKNOWN
            };
            self.tools.insert(name.to_owned(), effects);
        }
    }
}

/// 128 random bits from the kernel, as hex (a clock-derived value if `/dev/urandom` cannot be
/// read, which no Linux system lacks).
fn random_hex() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_err()
    {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        bytes = now.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
