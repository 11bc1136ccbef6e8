//! Confined MCP servers (`atip mcp wrap`): a stdio MCP server started in the sandbox for its
//! whole life ([`Runner::start`]) and re-served on this process's stdio, with the policy in
//! front of every `tools/call` and redaction behind it.
//!
//! The wrapper relays JSON-RPC messages (MCP's stdio transport: one message per line) both
//! ways unchanged, except:
//!
//! * `tools/list` results are read for each tool's annotations, which become its effects on
//!   the safe side ([`effects_of`]: an absent hint is unknown);
//! * a `tools/call` is judged by the policy on those effects
//!   ([`Policy::evaluate_effects`](atip_runtime::Policy::evaluate_effects)): allowed, it goes
//!   to the server; denied, the client gets an error result naming the rules (`isError`), and
//!   the server never sees it; one that needs confirmation is put to the client's user by
//!   elicitation (a form with one required boolean, `confirm`) when the client declared the
//!   capability at `initialize`, and held until the answer — refused without it;
//! * everything the server sends but the protocol's own fields is redacted: results (text,
//!   structured content, embedded resources), errors, log and progress messages, its requests
//!   to the client, and its standard error;
//! * one audit line per call (`server`, `tool`, `decision`, `reasons`, `confirmedBy`,
//!   `redactions`, `isError`) goes to the runner's audit log.
//!
//! Progress, cancellation, list changes and the server's own requests to the client pass
//! through. The server's annotations are its own claims: a server that lies about them gets
//! past the policy, not past the sandbox, which holds it to the effects it was started with.

mod hints;
mod redact;

use std::collections::{HashMap, HashSet};
use std::fmt;

use atip_runtime::exec::AuditLog;
use atip_runtime::{Effects, Invocation, RunError, Runner};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

pub use hints::effects_of;

/// The elicitation form's required field: `true` runs the call.
const CONFIRM_FIELD: &str = "confirm";

/// How long a server whose client has gone is given to exit before it is killed.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

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
}

impl Wrapper {
    /// The wrapper of `server` (its `argv`, `effects` and declared `env`), run by `runner`.
    pub fn new(runner: Runner, server: Invocation) -> Self {
        Wrapper { runner, server }
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
        R: AsyncRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let mut started = self
            .runner
            .start(&self.server)
            .await
            .map_err(WrapError::Start)?;
        let name = self.server.name.to_string();
        let filter = started.filter().clone();
        let (to_client, client_rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let (to_server, server_rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let client_writer = tokio::spawn(write_lines(client_rx, output));
        let server_stdin = started.stdin.take().expect("started with a stdin pipe");
        let server_writer = tokio::spawn(write_lines(server_rx, server_stdin));
        if let Some(stderr) = started.stderr.take() {
            let (filter, tool) = (filter.clone(), name.clone());
            tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                let mut out = tokio::io::stderr();
                while let Ok(Some(line)) = lines.next_line().await {
                    let (clean, _) = filter.redact_for(Some(&tool), &line);
                    let _ = out.write_all(format!("{clean}\n").as_bytes()).await;
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
            tools: HashMap::new(),
            lists: HashSet::new(),
            calls: HashMap::new(),
            asked: HashMap::new(),
            elicits: false,
            next: 0,
        };
        let mut client = BufReader::new(input).lines();
        let mut server = BufReader::new(started.stdout.take().expect("a stdout pipe")).lines();
        let mut client_open = true;
        let status = loop {
            tokio::select! {
                line = client.next_line(), if client_open => match line.map_err(WrapError::Io)? {
                    Some(line) => relay.client_said(&line),
                    None => {
                        // The client has gone: close the server's stdin, let it exit.
                        client_open = false;
                        relay.to_server = None;
                    }
                },
                line = server.next_line() => match line.map_err(WrapError::Io)? {
                    Some(line) => relay.server_said(&line),
                    None => break wait_or_kill(&mut started).await.map_err(WrapError::Io)?,
                },
                _ = tokio::time::sleep(EXIT_GRACE), if !client_open => {
                    started.kill();
                    break started.wait().await.map_err(WrapError::Io)?;
                }
            }
        };
        drop(relay);
        let _ = server_writer.await;
        let _ = client_writer.await;
        Ok(status)
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

/// Writes each message of `rx` as one line to `out`, until every sender is gone.
async fn write_lines<W: AsyncWrite + Unpin>(mut rx: mpsc::UnboundedReceiver<Vec<u8>>, mut out: W) {
    while let Some(mut line) = rx.recv().await {
        line.push(b'\n');
        if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
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
    /// Each listed tool's effects, from its annotations.
    tools: HashMap<String, Effects>,
    /// The ids (as JSON text) of `tools/list` requests in flight.
    lists: HashSet<String>,
    /// The ids (as JSON text) of calls sent to the server, with their tool and decision.
    calls: HashMap<String, Call>,
    /// The wrapper's elicitation requests in flight, with the call each holds.
    asked: HashMap<String, Held>,
    /// Whether the client declared elicitation at `initialize`.
    elicits: bool,
    next: u64,
}

/// A call sent to the server.
struct Call {
    tool: String,
    decision: &'static str,
    reasons: Vec<String>,
}

/// A call held while its user is asked.
struct Held {
    request: Value,
    tool: String,
    reasons: Vec<String>,
}

impl Relay {
    fn send_client(&self, message: &Value) {
        let _ = self.to_client.send(message.to_string().into_bytes());
    }

    fn send_server(&self, line: Vec<u8>) {
        if let Some(tx) = &self.to_server {
            let _ = tx.send(line);
        }
    }

    fn audit(&self, tool: &str, decision: &str, reasons: &[String], extra: Value) {
        if let Some(log) = &self.audit {
            let mut record = json!({
                "server": self.server,
                "tool": tool,
                "decision": decision,
                "reasons": reasons,
            });
            if let (Value::Object(r), Value::Object(e)) = (&mut record, extra) {
                r.extend(e);
            }
            log.append(&record);
        }
    }

    /// A message from the client.
    fn client_said(&mut self, line: &str) {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            // Not JSON: the server answers it with a parse error.
            return self.send_server(line.as_bytes().to_vec());
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
                    .is_some_and(|e| !e.is_null());
                self.send_server(line.as_bytes().to_vec());
            }
            (Some("tools/list"), Some(id)) => {
                self.lists.insert(id);
                self.send_server(line.as_bytes().to_vec());
            }
            (Some("tools/call"), Some(_)) => self.call(message),
            (Some("notifications/cancelled"), _) => {
                // A held call cancelled before its user answered: forget it.
                let cancelled = message.pointer("/params/requestId").map(Value::to_string);
                self.asked
                    .retain(|_, held| held.request.get("id").map(Value::to_string) != cancelled);
                self.send_server(line.as_bytes().to_vec());
            }
            // Requests, notifications and the answers to the server's own requests.
            _ => self.send_server(line.as_bytes().to_vec()),
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
        let reasons: Vec<String> = decision.reasons().iter().map(ToString::to_string).collect();
        match decision {
            atip_runtime::Decision::Allow => self.forward(request, tool, "allowed", reasons),
            atip_runtime::Decision::Deny(_) => {
                self.refuse(&request, &tool, "denied", &reasons, None)
            }
            atip_runtime::Decision::NeedsConfirmation(_) if !self.elicits => self.refuse(
                &request,
                &tool,
                "refused",
                &reasons,
                Some(
                    "it needs a person's confirmation, and this client cannot ask (no elicitation)",
                ),
            ),
            atip_runtime::Decision::NeedsConfirmation(_) => {
                self.next += 1;
                let id = format!("atip-wrap-{}-{}", std::process::id(), self.next);
                let message = format!(
                    "The MCP server `{}` wants to run its tool `{tool}`:\n{}\nRun it?",
                    self.server,
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
        reasons: Vec<String>,
    ) {
        let id = request.get("id").map(Value::to_string).unwrap_or_default();
        self.calls.insert(
            id,
            Call {
                tool,
                decision,
                reasons,
            },
        );
        self.send_server(request.to_string().into_bytes());
    }

    fn refuse(
        &self,
        request: &Value,
        tool: &str,
        decision: &str,
        reasons: &[String],
        why: Option<&str>,
    ) {
        let mut text = format!("`{tool}` was not run");
        if let Some(why) = why {
            text.push_str(": ");
            text.push_str(why);
        }
        if !reasons.is_empty() {
            text.push_str(". The policy: ");
            text.push_str(&reasons.join("; "));
        }
        self.send_client(&json!({
            "jsonrpc": "2.0",
            "id": request.get("id").cloned().unwrap_or(Value::Null),
            "result": {"content": [{"type": "text", "text": text}], "isError": true}
        }));
        self.audit(tool, decision, reasons, json!({"confirmedBy": null}));
    }

    /// A message from the server.
    fn server_said(&mut self, line: &str) {
        let Ok(mut message) = serde_json::from_str::<Value>(line) else {
            // Not a message (a server must write only messages to stdout): to stderr,
            // redacted, so that the client's stream stays valid.
            let (clean, _) = self.filter.redact_for(Some(&self.server), line);
            eprintln!("{}: not an MCP message: {clean}", self.server);
            return;
        };
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

    /// Reads a `tools/list` result for each tool's effects.
    fn learn(&mut self, message: &Value) {
        let Some(tools) = message.pointer("/result/tools").and_then(Value::as_array) else {
            return;
        };
        for tool in tools {
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                self.tools
                    .insert(name.to_owned(), effects_of(tool.get("annotations")));
            }
        }
    }
}
