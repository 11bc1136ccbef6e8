//! An MCP server's tools in Rust: the server started confined, its tools typed, gated,
//! redacted and audited like commands — for a turn driver that mixes them with ATIP tools, and
//! for typed calls generated from a saved `tools/list`.
//!
//! [`McpTools::start`] starts the server with [`Runner::start`] (its sandbox for its whole
//! life, as `atip mcp wrap` does), talks MCP to it as a client (rmcp), lists its tools and
//! reads them as an ATIP document ([`mcp_to_atip`], losses in [`McpTools::warnings`]).
//! [`McpTools::commands`] dispatches a model's calls of them ([`LoadedCommands`], one
//! [`Dispatch`](atip_runtime::command::dispatch::Dispatch) source beside others); the runner
//! it is attached to ([`McpTools::attach`], [`Runner::tool_server`]) gates each call on its
//! effects (the tool's annotations on the safe side, or the description's), asks, audits,
//! and then — instead of starting a process — sends it to the server as a `tools/call`,
//! within the call's time limit, and redacts the answer.
//!
//! What the server says reaches the model, the saved list and this crate's own log lines
//! redacted. rmcp logs some of it at its own targets (`rmcp`, the handshake at `info`, whole
//! messages at `trace`): an application that collects tracing events should keep that target
//! at `warn` (`RUST_LOG=…,rmcp=warn`), or the server's words reach its log as they are.
//!
//! ```no_run
//! # async fn demo(body: &str) -> Result<(), Box<dyn std::error::Error>> {
//! use atip_mcp::McpTools;
//! use atip_runtime::agent::TurnDriver;
//! use atip_runtime::{Document, Invocation, LoadedCommands, Provider, Runner, Effects};
//! let server = Invocation::new("time", vec!["mcp-server-time".into()], Effects::UNKNOWN);
//! let runner = Runner::new();
//! let time = McpTools::start(&runner, &server).await?;
//! let git = Document::from_path("atip/git.json".as_ref(), Default::default(), &Default::default())?;
//! let tools = vec![LoadedCommands::new(git, None), time.commands().clone()];
//! let mut driver = TurnDriver::new(Provider::Anthropic, tools, time.attach(runner));
//! let outcome = driver.turn(body).await?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};

use atip_runtime::canonical::{mcp_to_atip, ConvertError, Warning};
use atip_runtime::exec::{ServedCall, ServedReply, Started, ToolServer};
use atip_runtime::{Effects, Invocation, LoadedCommands, RunError, Runner};

use crate::wrap::{name_of_program, read_lines, Incoming, ServerSpec};

/// How long a server has to answer `initialize`, and then to list all its tools: 30 s each.
pub const START_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The most tools a server may list: 10,000 (the aws CLI has about 13,000 commands, an MCP
/// server's list a few dozen).
pub const MAX_TOOLS: usize = 10_000;

/// The most bytes a server's tool list may take, every page and cursor together, as JSON:
/// 16 MiB.
pub const MAX_LIST_BYTES: usize = 16 << 20;

/// The most parameters (input schema properties) one tool may have: 500. Each costs a few KiB
/// once read as ATIP; real servers' tools have a handful.
pub const MAX_TOOL_PROPERTIES: usize = 500;

/// The most parameters all of a server's tools may have together: 20,000.
pub const MAX_PROPERTIES: usize = 20_000;

/// The most pages a tool list may come in: 100.
const MAX_PAGES: usize = 100;

/// The longest cursor to a next page, in bytes: 4 KiB (counted in [`MAX_LIST_BYTES`] too).
const MAX_CURSOR_BYTES: usize = 4096;

/// Every page of `service`'s tools, as JSON, within [`MAX_TOOLS`], [`MAX_LIST_BYTES`],
/// [`MAX_TOOL_PROPERTIES`] and [`MAX_PROPERTIES`], checked before a page is read further.
async fn list_tools(service: &RunningService<RoleClient, ()>) -> Result<Vec<Value>, String> {
    let mut tools = Vec::new();
    let (mut bytes, mut properties) = (0, 0);
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let mut params = rmcp::model::PaginatedRequestParams::default();
        params.cursor = cursor;
        let page = service
            .list_tools(Some(params))
            .await
            .map_err(|e| e.to_string())?;
        if tools.len() + page.tools.len() > MAX_TOOLS {
            return Err(format!("it lists more than {MAX_TOOLS} tools"));
        }
        for tool in &page.tools {
            let count = tool
                .input_schema
                .get("properties")
                .and_then(Value::as_object)
                .map_or(0, Map::len);
            if count > MAX_TOOL_PROPERTIES {
                return Err(format!(
                    "its tool `{}` has more than {MAX_TOOL_PROPERTIES} parameters",
                    tool.name
                ));
            }
            properties += count;
            if properties > MAX_PROPERTIES {
                return Err(format!(
                    "its tools have more than {MAX_PROPERTIES} parameters in all"
                ));
            }
            let tool = serde_json::to_value(tool).map_err(|e| e.to_string())?;
            bytes += tool.to_string().len();
            if bytes > MAX_LIST_BYTES {
                return Err(format!("its tools take more than {MAX_LIST_BYTES} bytes"));
            }
            tools.push(tool);
        }
        match page.next_cursor {
            Some(next) if next.len() > MAX_CURSOR_BYTES => {
                return Err(format!("a cursor longer than {MAX_CURSOR_BYTES} bytes"));
            }
            Some(next) => {
                bytes += next.len();
                cursor = Some(next);
            }
            None => return Ok(tools),
        }
    }
    Err(format!("its tools come in more than {MAX_PAGES} pages"))
}

/// Why [`McpTools::start`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpToolsError {
    /// The server could not be started (checksum, sandbox, spawn).
    #[error("the MCP server could not start: {0}")]
    Start(#[source] RunError),
    /// The server did not answer `initialize` or `tools/list` in MCP, or not within
    /// [`START_TIMEOUT`].
    #[error("the MCP server {server:?} did not answer {step}: {reason}")]
    Protocol {
        /// The server's name.
        server: String,
        /// `initialize` or `tools/list`.
        step: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// Its tools are not MCP tool definitions, or its name is no ATIP tool name.
    #[error("the MCP server's tools cannot be read: {0}")]
    Tools(#[source] ConvertError),
    /// The ATIP document made of its tools does not load (a tool name too long for a
    /// provider, …).
    #[error("the MCP server's tools do not load as ATIP: {0}")]
    Load(String),
}

/// A running MCP server's tools; see the module documentation. Cheap to clone: clones share
/// the server, which ends (its process group killed) when the last clone is dropped — a
/// runner it is attached to holds one.
#[derive(Clone)]
pub struct McpTools {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    commands: LoadedCommands,
    listed: Value,
    warnings: Vec<Warning>,
    /// By the tool's name on the server: how its parameters go back into JSON.
    tools: HashMap<String, Called>,
    known: atip_runtime::filter::KnownSecrets,
    /// The runner's filter with the server's secret values: for what it says outside results.
    filter: atip_runtime::ResultFilter,
    sandbox: atip_runtime::SandboxReport,
    // Dropped in this order: the session (its stdin closed), then the process group.
    service: RunningService<RoleClient, ()>,
    /// Held, never used: `Started` is not `Sync`.
    _started: std::sync::Mutex<Started>,
}

/// What a call of one tool needs: each parameter's property and JSON type.
struct Called {
    /// The tool's effects as its current listing (and the description) give them.
    effects: Effects,
    /// By provider parameter name: the property, its JSON type, and whether it is a list.
    params: HashMap<String, (String, &'static str, bool)>,
}

impl std::fmt::Debug for McpTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTools")
            .field("name", &self.inner.name)
            .field("tools", &self.inner.tools.len())
            .field("warnings", &self.inner.warnings.len())
            .finish_non_exhaustive()
    }
}

impl McpTools {
    /// Starts `server` (its argv, effects and declared variables: the sandbox it gets for its
    /// life, as [`Runner::start`] says) with `runner`, initializes an MCP session with it on
    /// its stdin and stdout, lists its tools and reads them as ATIP ([`mcp_to_atip`], under
    /// the server's name: `server.name`, or [`name_of_program`] of its argv\[0\] when that is
    /// no ATIP tool name). The server's stderr is read and dropped (a debug line each,
    /// redacted). Call it inside a tokio runtime.
    ///
    /// # Errors
    ///
    /// [`McpToolsError`]: the server did not start, answer in MCP, or list tools that load.
    pub async fn start(runner: &Runner, server: &Invocation) -> Result<McpTools, McpToolsError> {
        McpTools::start_described(runner, server, &HashMap::new()).await
    }

    /// [`McpTools::start`] for the server `spec` describes, with `runner` (whose policy and
    /// sandbox should come from [`ServerSpec::add_to`] and [`ServerSpec::sandbox`]): the
    /// tools the description names get its effects instead of their annotations, and a tool
    /// whose name differs from a described one only by ASCII case is unknown whatever its
    /// annotations say.
    ///
    /// # Errors
    ///
    /// As [`McpTools::start`].
    pub async fn from_spec(runner: &Runner, spec: &ServerSpec) -> Result<McpTools, McpToolsError> {
        McpTools::start_described(runner, &spec.invocation(), &spec.tools).await
    }

    async fn start_described(
        runner: &Runner,
        server: &Invocation,
        described: &HashMap<String, Effects>,
    ) -> Result<McpTools, McpToolsError> {
        let mut started = runner.start(server).await.map_err(McpToolsError::Start)?;
        let name = if atip_runtime::formats::is_tool_name(&server.name) {
            server.name.to_string()
        } else {
            name_of_program(server.argv.first().map_or("".as_ref(), |p| p.as_os_str()))
        };
        let filter = started.filter().clone();
        if let Some(stderr) = started.stderr.take() {
            // Line by line, each at most a message's size (a line without end is skipped,
            // not held), redacted.
            let (filter, tool) = (filter.clone(), name.clone());
            let (tx, mut rx) = tokio::sync::mpsc::channel(2);
            tokio::spawn(read_lines(stderr, tx));
            tokio::spawn(async move {
                while let Some(incoming) = rx.recv().await {
                    // Read always (the server must not block on a full pipe), redacted and
                    // logged only when someone listens, at most 4 KiB of a line.
                    let Incoming::Line(line) = incoming else {
                        continue;
                    };
                    if !tracing::enabled!(tracing::Level::DEBUG) {
                        continue;
                    }
                    let shown = if line.len() > 4096 {
                        let cut = line.floor_char_boundary(4096);
                        atip_runtime::filter::drop_partial_tail(&line[..cut]).0
                    } else {
                        &line
                    };
                    let shown = filter.redact_for(Some(&tool), shown).0.into_owned();
                    tracing::debug!(server = %tool, "{shown}");
                }
            });
        }
        let protocol = |step: &'static str| {
            let (server, filter) = (name.clone(), filter.clone());
            move |e: &dyn std::fmt::Display| McpToolsError::Protocol {
                step,
                // The server's own words can be in it.
                reason: filter
                    .redact_for(Some(&server), &e.to_string())
                    .0
                    .into_owned(),
                server,
            }
        };
        let (Some(stdout), Some(stdin)) = (started.stdout.take(), started.stdin.take()) else {
            return Err(protocol("initialize")(
                &"its standard streams are not pipes",
            ));
        };
        let late =
            |step| protocol(step)(&format!("no answer within {} s", START_TIMEOUT.as_secs()));
        let service = tokio::time::timeout(START_TIMEOUT, ().serve((stdout, stdin)))
            .await
            .map_err(|_| late("initialize"))?
            .map_err(|e| protocol("initialize")(&e))?;
        // Pages are read once: rmcp's cache would keep each, by cursor.
        service
            .peer()
            .set_response_cache_config(rmcp::service::ClientCacheConfig::disabled())
            .await;
        // Every page, within the same time and the same bounds (a server that pages forever,
        // or lists without end, is cut off).
        let list = tokio::time::timeout(START_TIMEOUT, list_tools(&service))
            .await
            .map_err(|_| late("tools/list"))?
            .map_err(|e| protocol("tools/list")(&e))?;
        let server_info = service
            .peer_info()
            .and_then(|i| i.server_info.as_ref().map(serde_json::to_value))
            .and_then(Result::ok);
        let mut listed = Map::new();
        if let Some(info) = server_info {
            listed.insert("serverInfo".into(), info);
        }
        listed.insert("tools".into(), Value::Array(list));
        let mut listed = Value::Object(listed);
        // Its descriptions, names and defaults reach the model and the saved list: redacted
        // like everything else it says.
        crate::wrap::redact::message(&filter, Some(&name), &mut listed);
        // Read as ATIP off the runtime's threads, within the time a start has.
        let read = {
            let (name, described) = (name.clone(), described.clone());
            tokio::task::spawn_blocking(move || read_as_atip(listed, &name, &described))
        };
        let ReadList {
            listed,
            warnings,
            commands,
            called,
        } = tokio::time::timeout(START_TIMEOUT, read)
            .await
            .map_err(|_| late("tools/list"))?
            .map_err(|e| McpToolsError::Load(e.to_string()))??;
        Ok(McpTools {
            inner: Arc::new(Inner {
                known: started.known_secrets().clone(),
                filter: started.filter().clone(),
                sandbox: started.report().clone(),
                name,
                commands,
                listed,
                warnings,
                tools: called,
                service,
                _started: std::sync::Mutex::new(started),
            }),
        })
    }

    /// The server's name: the ATIP tool name of its document, the prefix of its flattened
    /// tool names and the name a runner knows it by ([`McpTools::attach`]).
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Its tools as loaded ATIP commands: what a model is offered and its calls dispatched by
    /// (a [`Dispatch`](atip_runtime::command::dispatch::Dispatch) source; several in a
    /// `Vec<LoadedCommands>` with ATIP tools).
    pub fn commands(&self) -> &LoadedCommands {
        &self.inner.commands
    }

    /// Its tools as it listed them, with the `initialize` result's `serverInfo` beside them:
    /// `{"serverInfo": {…}, "tools": […]}`, what `include_atip!` and `atip_build` type from
    /// when saved (`atip mcp tools` prints it).
    pub fn tools_list(&self) -> &Value {
        &self.inner.listed
    }

    /// What reading its tools as ATIP lost ([`mcp_to_atip`]): parameters and tools left
    /// out, types rewritten, keywords moved into descriptions.
    pub fn warnings(&self) -> &[Warning] {
        &self.inner.warnings
    }

    /// `runner` with this server attached under its name ([`Runner::tool_server`]): calls of
    /// its tools go to it.
    pub fn attach(&self, runner: Runner) -> Runner {
        runner.tool_server(self.inner.name.clone(), Arc::new(self.clone()))
    }
}

/// A tool list read as ATIP: the list, what reading it lost, its commands and how to call
/// each (what [`McpTools`] holds).
struct ReadList {
    listed: Value,
    warnings: Vec<Warning>,
    commands: LoadedCommands,
    called: HashMap<String, Called>,
}

/// Reads `listed` as ATIP under the server's `name`, with the description's effects.
fn read_as_atip(
    listed: Value,
    name: &str,
    described: &HashMap<String, Effects>,
) -> Result<ReadList, McpToolsError> {
    let version = listed
        .pointer("/serverInfo/version")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut converted = mcp_to_atip(&listed, name, version).map_err(McpToolsError::Tools)?;
    describe(&mut converted.value, described);
    let document = atip_runtime::Document::parse(
        &converted.value.to_string(),
        &atip_runtime::LoadOptions::default(),
        &atip_runtime::FlattenOptions::default(),
    )
    .map_err(|e| McpToolsError::Load(e.to_string()))?;
    let commands = LoadedCommands::new(document, None);
    let called = called(&commands, &listed["tools"]);
    Ok(ReadList {
        listed,
        warnings: converted.warnings,
        commands,
        called,
    })
}

/// The description's effects for the tools it names; unknown effects for a tool whose name
/// differs from a described one only by ASCII case.
fn describe(document: &mut Value, described: &HashMap<String, Effects>) {
    let Some(commands) = document.get_mut("commands").and_then(Value::as_object_mut) else {
        return;
    };
    for (name, command) in commands.iter_mut() {
        let effects = match described.get(name) {
            Some(effects) => effects.clone(),
            None if described.keys().any(|d| d.eq_ignore_ascii_case(name)) => Effects::UNKNOWN,
            None => continue,
        };
        command["effects"] =
            serde_json::to_value(effects).unwrap_or_else(|_| Value::Object(Map::new()));
    }
}

/// For each loaded command, by its tool's name: how each parameter goes back into JSON (the
/// property its flag names, the JSON type of a value or of a list's items).
fn called(commands: &LoadedCommands, tools: &Value) -> HashMap<String, Called> {
    // The first definition of each name, as `mcp_to_atip` keeps it.
    let mut schemas: HashMap<&str, &Value> = HashMap::new();
    for tool in tools.as_array().into_iter().flatten() {
        if let Some(name) = tool["name"].as_str() {
            schemas
                .entry(name)
                .or_insert(&tool["inputSchema"]["properties"]);
        }
    }
    let schema_of = |tool: &str| schemas.get(tool).copied();
    let mut out = HashMap::new();
    for (flat, spec) in commands.document().commands.iter().zip(commands.specs()) {
        let Some(tool) = flat.path.first() else {
            continue;
        };
        let properties = schema_of(tool);
        let mut params = HashMap::new();
        for param in spec.params.iter() {
            // The flag is `--` and the property's name, whatever that name starts with.
            let label = param.argv.label();
            let property = label.strip_prefix("--").unwrap_or(label).to_owned();
            let schema = properties.and_then(|p| p.get(&property));
            let typed = schema.map_or(Value::Null, |s| {
                if param.multiple {
                    s["items"].clone()
                } else {
                    s.clone()
                }
            });
            params.insert(
                param.name.to_string(),
                (property, json_type(&typed), param.multiple),
            );
        }
        out.insert(
            tool.clone(),
            Called {
                effects: spec.effects.clone(),
                params,
            },
        );
    }
    out
}

/// The JSON type a schema's values have: its one non-null `type` (also in an `anyOf` or
/// `oneOf` with a `null` branch), else `string`.
fn json_type(schema: &Value) -> &'static str {
    let named = |t: &Value| match t.as_str() {
        Some("integer") => Some("integer"),
        Some("number") => Some("number"),
        Some("boolean") => Some("boolean"),
        Some("string") => Some("string"),
        _ => None,
    };
    let of = |s: &Value| match &s["type"] {
        Value::Array(types) => types.iter().find_map(named),
        t => named(t),
    };
    of(schema)
        .or_else(|| {
            ["anyOf", "oneOf"]
                .iter()
                .filter_map(|k| schema[*k].as_array())
                .flatten()
                .find_map(of)
        })
        .unwrap_or("string")
}

/// One value as its JSON type; text that does not parse as the type stays text (the server
/// judges it).
fn json_value(text: &str, json_type: &str) -> Value {
    match json_type {
        "integer" => text
            .parse::<i64>()
            .map_or_else(|_| Value::from(text), Value::from),
        "number" => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::from(text), Value::Number),
        "boolean" => match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            other => Value::from(other),
        },
        _ => Value::from(text),
    }
}

impl Inner {
    /// The tool `invocation` calls and how: a served tool's argv is the server, then the
    /// tool's name (its one-element command path), then its options — what metadata made by
    /// `mcp_to_atip` gives, loaded here or generated from a saved list.
    fn called(&self, invocation: &Invocation) -> Option<(&String, &Called)> {
        let tool = invocation.argv.get(1)?.to_str()?;
        self.tools.get_key_value(tool)
    }

    /// `invocation`'s JSON arguments, from the values it records by parameter.
    ///
    /// # Errors
    ///
    /// A value of a parameter the server's current list does not have (typed code from an
    /// older list): the call is not sent without it.
    fn arguments(
        &self,
        called: &Called,
        invocation: &Invocation,
    ) -> std::io::Result<Map<String, Value>> {
        let mut arguments = Map::new();
        for value in &invocation.arguments {
            let Some((property, json_type, multiple)) = called.params.get(&*value.param) else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!(
                        "the MCP server {:?} no longer lists the parameter {:?} of {:?}: the \
                         call was not sent",
                        self.name, &*value.param, &*invocation.name
                    ),
                ));
            };
            let item = json_value(&value.value.to_string_lossy(), json_type);
            if *multiple {
                let list = arguments
                    .entry(property.clone())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(items) = list {
                    items.push(item);
                }
            } else {
                arguments.insert(property.clone(), item);
            }
        }
        Ok(arguments)
    }

    async fn call(&self, invocation: &Invocation) -> std::io::Result<ServedReply> {
        let Some((tool, called)) = self.called(invocation) else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!(
                    "the MCP server {:?} lists no tool for {:?}",
                    self.name, &*invocation.name
                ),
            ));
        };
        let mut params = CallToolRequestParams::new(tool.clone());
        params.arguments = Some(self.arguments(called, invocation)?);
        let result = self.service.call_tool(params).await.map_err(|e| {
            // The server's own words (a JSON-RPC error's message) reach the model in the
            // error result: redacted with its variables' values too.
            let said = format!("MCP server {:?}: {e}", self.name);
            std::io::Error::other(
                self.filter
                    .redact_for(Some(&self.name), &said)
                    .0
                    .into_owned(),
            )
        })?;
        Ok(ServedReply {
            text: text_of(&result),
            is_error: result.is_error == Some(true),
            known_secrets: self.known.clone(),
        })
    }
}

/// A result as text: its text content, the text of embedded resources, a line naming every
/// other block (images, audio, links) and, when there is no text, the structured content as
/// JSON.
fn text_of(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        let block = serde_json::to_value(block).unwrap_or_default();
        let kind = block["type"].as_str().unwrap_or("content");
        match (block["text"].as_str(), block["resource"]["text"].as_str()) {
            (Some(text), _) | (None, Some(text)) => parts.push(text.to_owned()),
            _ => {
                let mime = block["mimeType"]
                    .as_str()
                    .or_else(|| block["resource"]["mimeType"].as_str())
                    .unwrap_or("");
                let uri = block["uri"]
                    .as_str()
                    .or_else(|| block["resource"]["uri"].as_str())
                    .unwrap_or("");
                parts.push(
                    format!("[{kind} {mime} {uri}]")
                        .replace("  ", " ")
                        .replace(" ]", "]"),
                );
            }
        }
    }
    if parts.is_empty() {
        if let Some(structured) = &result.structured_content {
            parts.push(structured.to_string());
        }
    }
    parts.join("\n")
}

impl ToolServer for McpTools {
    fn call<'a>(&'a self, invocation: &'a Invocation) -> ServedCall<'a> {
        Box::pin(self.inner.call(invocation))
    }

    fn sandbox(&self) -> atip_runtime::SandboxReport {
        self.inner.sandbox.clone()
    }

    fn effects(&self, invocation: &Invocation) -> Option<Effects> {
        self.inner
            .called(invocation)
            .map(|(_, called)| called.effects.clone())
    }
}

#[cfg(test)]
mod tests;
