//! ATIP tools served over the Model Context Protocol, on the official Rust SDK (`rmcp`).
//!
//! The server sits on top of `atip-runtime`: every call goes through the same dispatch,
//! [`Policy`](atip_runtime::Policy) gate, sandbox and redaction as a call from any other
//! provider. Feature `search` (off) adds the meta-tools front (`McpServer::from_files_with_meta_tools`).
//!
//! [`McpServer`] answers `tools/list` with the MCP definitions of every command (annotations
//! from their effects, see [`atip_runtime::providers`]) and `tools/call` by dispatching the call (the
//! same checks as every provider's calls), gating it on the [`Runner`]'s policy, running it and
//! returning the filtered output. Failures (unknown tool, bad arguments, refusal, non-zero exit,
//! timeout) are results with `isError: true`, so the model sees them; only protocol misuse is a
//! JSON-RPC error.
//!
//! | MCP feature | what the server does |
//! |---|---|
//! | `instructions` (initialize result) | the [`atip_runtime::safety_prompt`] of the served commands |
//! | elicitation (form mode) | a call the policy wants confirmed is put to the client's user as a form with a required boolean, `confirm`, and an optional one, `forSession`; only an accepted form with `confirm: true` runs it, and `forSession: true` also lets later calls of that command with the same reasons run without asking while the server runs (a session grant, [`atip_runtime::exec::grants`]). A client without the capability gets an error result naming the reasons |
//! | `notifications/cancelled` | the call's future is dropped, which kills its process group |
//! | `notifications/progress` | every [`McpServer::progress_interval`] (default 1 s) while a call that carried a `progressToken` runs: seconds elapsed |
//! | `notifications/tools/list_changed` | servers built with [`McpServer::from_files`] poll their files (every [`McpServer::watch_interval`], default 1 s) and reload them on change |
//! | concurrent `tools/call` | run side by side unless they conflict ([`atip_runtime::exec::conflicts`]); conflicting calls wait for each other ([`ConflictGate`]) |
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use atip_mcp::McpServer;
//! use atip_runtime::Runner;
//! let server = McpServer::from_files(vec!["atip/git.json".into()], Runner::new())?;
//! server.serve_stdio().await?;
//! # Ok(()) }
//! ```
//!
//! For a generated module, `McpServer::for_module::<git::Call>(Runner::new())`.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod answer;
mod confirm;
mod tools;
mod watch;
pub mod wrap;

pub use tools::{
    McpTools, McpToolsError, MAX_LIST_BYTES, MAX_PROPERTIES, MAX_TOOLS, MAX_TOOL_PROPERTIES,
    START_TIMEOUT,
};

#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};

use atip_runtime::command::dispatch::{CommandSet, GeneratedCommands, ToolSet};
use atip_runtime::exec::ConflictGate;
use atip_runtime::providers::Provider;
use atip_runtime::{LoadedCommands, Runner};

/// An MCP server for ATIP tools. Cheap to clone: clones share the tools, the conflict gate and
/// the watched files; each clone is one client session with its own session grants (the
/// runner's, [`Runner::grants`]: a clone of the runner starts with none), so a person's "yes
/// for this session" in one client never runs another client's calls. Serve one clone per
/// session (what rmcp's streamable HTTP service factory does with `|| Ok(server.clone())`).
pub struct McpServer {
    shared: Arc<Shared>,
    /// This session's runner: the shared one's configuration, its own grants.
    runner: Runner,
    progress_every: Duration,
    watch_every: Duration,
}

impl Clone for McpServer {
    /// Another session: the same tools and configuration, no session grants.
    fn clone(&self) -> Self {
        McpServer {
            shared: Arc::clone(&self.shared),
            runner: self.runner.clone(),
            progress_every: self.progress_every,
            watch_every: self.watch_every,
        }
    }
}

/// What every clone shares.
struct Shared {
    /// The tools now served; replaced whole when watched files change.
    tools: RwLock<Arc<Tools>>,
    /// The runner as configured: its policy judges reloaded tools; sessions run clones of it.
    runner: Runner,
    gate: ConflictGate,
    /// Metadata files to watch (empty: nothing to watch), and how they looked when read.
    files: Vec<PathBuf>,
    stamps: Mutex<Vec<watch::Stamp>>,
    watching: AtomicBool,
    /// How reloaded files become the served set (plain, or behind meta-tools).
    wrap: Wrap,
}

/// Turns the tools loaded from files into the set a server serves.
type Wrap = fn(Vec<LoadedCommands>) -> Box<dyn ToolSet>;

fn plain(tools: Vec<LoadedCommands>) -> Box<dyn ToolSet> {
    Box::new(tools)
}

#[cfg(feature = "search")]
fn behind_meta_tools(tools: Vec<LoadedCommands>) -> Box<dyn ToolSet> {
    Box::new(atip_runtime::search::MetaTools::new(tools))
}

/// One consistent set of tools: what dispatches calls, what `tools/list` returns, and the
/// instructions.
struct Tools {
    set: Box<dyn ToolSet>,
    definitions: Vec<Tool>,
    instructions: String,
}

impl Tools {
    /// Checks the runner's policy against `set`, rejects duplicate names and converts the
    /// definitions.
    fn build(set: Box<dyn ToolSet>, runner: &Runner) -> Result<Tools, McpError> {
        let commands = set.commands();
        let policy = runner.current_policy();
        policy
            .check_against(commands.iter().copied())
            .map_err(McpError::Policy)?;
        let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        policy
            .check_examples(&*set, &here)
            .map_err(McpError::PolicyExamples)?;
        let mut names = HashSet::new();
        if let Some(dup) = commands.iter().find(|s| !names.insert(s.name.as_ref())) {
            return Err(McpError::DuplicateTool(dup.name.to_string()));
        }
        let specs = set.specs();
        let definitions = mcp_tools(specs.iter().copied())?;
        let instructions = atip_runtime::safety_prompt(specs.iter().copied());
        Ok(Tools {
            set,
            definitions,
            instructions,
        })
    }
}

/// Why a server could not be built or run.
#[derive(Debug)]
#[non_exhaustive]
pub enum McpError {
    /// Two tools define a command with the same flattened name.
    DuplicateTool(String),
    /// A definition did not convert to `rmcp`'s `Tool` (a bug: ours are MCP-valid).
    Definition(serde_json::Error),
    /// The MCP session failed (transport or protocol).
    Session(String),
    /// The runner's policy names commands or parameters none of the tools has.
    Policy(atip_runtime::PolicyError),
    /// The runner's policy carries examples that do not hold for these tools
    /// ([`atip_runtime::Policy::check_examples`], judged in the server's working directory).
    PolicyExamples(atip_runtime::policy::ExamplesError),
    /// A metadata file did not load ([`McpServer::from_files`]); the message names the file.
    Load(String),
}

impl std::fmt::Display for McpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            McpError::DuplicateTool(name) => {
                write!(f, "two tools define a command named `{name}`")
            }
            McpError::Definition(e) => write!(f, "an MCP tool definition did not convert: {e}"),
            McpError::Session(e) => write!(f, "MCP session failed: {e}"),
            McpError::Policy(e) => write!(f, "{e}"),
            McpError::PolicyExamples(e) => write!(f, "{e}"),
            McpError::Load(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for McpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            McpError::Definition(e) => Some(e),
            McpError::Policy(e) => Some(e),
            McpError::PolicyExamples(e) => Some(e),
            _ => None,
        }
    }
}

/// The MCP definitions of every command of `tool`, as `rmcp` [`Tool`]s.
///
/// # Errors
///
/// [`McpError::Definition`] if a definition does not deserialise as an `rmcp` `Tool`.
pub fn tools_of(tool: &LoadedCommands) -> Result<Vec<Tool>, McpError> {
    mcp_tools(tool.specs())
}

/// Each spec's MCP definition as an `rmcp` [`Tool`], converted as a JSON value (no text).
fn mcp_tools<'a>(
    specs: impl IntoIterator<Item = &'a atip_runtime::ToolSpec>,
) -> Result<Vec<Tool>, McpError> {
    specs
        .into_iter()
        .map(|spec| {
            serde_json::from_value(atip_runtime::providers::tool_definition(
                spec,
                Provider::Mcp,
            ))
            .map_err(McpError::Definition)
        })
        .collect()
}

/// How often a running call reports progress, and watched files are checked, by default.
const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

impl McpServer {
    /// A server for `set` (loaded tools, several of them, or a generated module), running
    /// calls with `runner`.
    fn serving(
        set: Box<dyn ToolSet>,
        runner: Runner,
        files: Vec<PathBuf>,
        wrap: Wrap,
    ) -> Result<Self, McpError> {
        let tools = Tools::build(set, &runner)?;
        let stamps = files.iter().map(|f| watch::stamp(f)).collect();
        Ok(McpServer {
            runner: runner.clone(),
            shared: Arc::new(Shared {
                tools: RwLock::new(Arc::new(tools)),
                runner,
                gate: ConflictGate::new(),
                files,
                stamps: Mutex::new(stamps),
                watching: AtomicBool::new(false),
                wrap,
            }),
            progress_every: DEFAULT_INTERVAL,
            watch_every: DEFAULT_INTERVAL,
        })
    }

    /// A server for `tools`, running calls with `runner` (its policy, timeouts, output cap,
    /// environment and result filter). Nothing is watched: see [`McpServer::from_files`].
    ///
    /// # Errors
    ///
    /// [`McpError::DuplicateTool`] when two tools share a command name; [`McpError::Policy`]
    /// when the runner's policy names a command or parameter none of them has.
    pub fn new(tools: Vec<LoadedCommands>, runner: Runner) -> Result<Self, McpError> {
        Self::serving(Box::new(tools), runner, Vec::new(), plain)
    }

    /// A server for any tool set ([`ToolSet`]): meta-tools over a large tool
    /// (`search::MetaTools`), a generated module ([`GeneratedCommands`]), several loaded tools. Nothing is
    /// watched.
    ///
    /// # Errors
    ///
    /// As [`McpServer::new`], checked against [`atip_runtime::Dispatch::commands`].
    pub fn with_tools(set: impl ToolSet + 'static, runner: Runner) -> Result<Self, McpError> {
        Self::serving(Box::new(set), runner, Vec::new(), plain)
    }

    /// A server for the metadata `files` (loaded strictly, as `atip serve` loads them), which
    /// it watches: when one changes, the tools are reloaded and the client receives
    /// `notifications/tools/list_changed`. A change that does not load (or no longer passes
    /// the policy check) keeps the tools served before, with a `tracing` warning.
    ///
    /// # Errors
    ///
    /// [`McpError::Load`] for a file that does not load, and the errors of [`McpServer::new`].
    pub fn from_files(files: Vec<PathBuf>, runner: Runner) -> Result<Self, McpError> {
        let tools = watch::load(&files)?;
        Self::serving(plain(tools), runner, files, plain)
    }

    /// [`McpServer::from_files`] behind meta-tools (`search::MetaTools`): the client lists
    /// three tools — search the commands, describe one, run one — that stand for every command
    /// of the files, for tools too large to list.
    ///
    /// # Errors
    ///
    /// As [`McpServer::from_files`].
    #[cfg(feature = "search")]
    #[cfg_attr(docsrs, doc(cfg(feature = "search")))]
    pub fn from_files_with_meta_tools(
        files: Vec<PathBuf>,
        runner: Runner,
    ) -> Result<Self, McpError> {
        let tools = watch::load(&files)?;
        Self::serving(behind_meta_tools(tools), runner, files, behind_meta_tools)
    }

    /// [`McpServer::from_files`] for files the caller has loaded already (to print their
    /// diagnostics, as `atip serve` does): `tools` holds one tool per file, in order, loaded
    /// strictly with default [`FlattenOptions`](atip_runtime::FlattenOptions). They are served as they are — a large file is
    /// not read twice before the server is ready — and the files are watched and reloaded as
    /// `from_files` does; a change made after the caller loaded them and before this call is
    /// seen at the next change.
    ///
    /// # Errors
    ///
    /// [`McpError::Load`] when `tools` and `files` differ in number, and the errors of
    /// [`McpServer::new`].
    pub fn from_loaded_files(
        files: Vec<PathBuf>,
        tools: Vec<LoadedCommands>,
        runner: Runner,
    ) -> Result<Self, McpError> {
        watch::one_per_file(&files, &tools)?;
        Self::serving(plain(tools), runner, files, plain)
    }

    /// [`McpServer::from_loaded_files`] behind meta-tools, as
    /// [`McpServer::from_files_with_meta_tools`].
    ///
    /// # Errors
    ///
    /// As [`McpServer::from_loaded_files`].
    #[cfg(feature = "search")]
    #[cfg_attr(docsrs, doc(cfg(feature = "search")))]
    pub fn from_loaded_files_with_meta_tools(
        files: Vec<PathBuf>,
        tools: Vec<LoadedCommands>,
        runner: Runner,
    ) -> Result<Self, McpError> {
        watch::one_per_file(&files, &tools)?;
        Self::serving(behind_meta_tools(tools), runner, files, behind_meta_tools)
    }

    /// A server for a generated module, named by its `Call` enum:
    ///
    /// ```
    /// # mod git { atip_runtime::include_atip!("../../examples/atip/git.json"); }
    /// use atip_mcp::McpServer;
    /// use atip_runtime::Runner;
    /// let server = McpServer::for_module::<git::Call>(Runner::new())?;
    /// assert_eq!(server.definitions().len(), git::Call::NAMES.len());
    /// # Ok::<(), atip_mcp::McpError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`McpError::Policy`] when the runner's policy names a command or parameter the module
    /// does not have; [`McpError::Definition`] if a definition does not convert (a bug).
    pub fn for_module<C: CommandSet>(runner: Runner) -> Result<Self, McpError> {
        Self::serving(
            Box::new(GeneratedCommands::<C>::new()),
            runner,
            Vec::new(),
            plain,
        )
    }

    /// How often a call that carried a `progressToken` reports progress while it runs
    /// (default 1 s).
    pub fn progress_interval(mut self, every: Duration) -> Self {
        self.progress_every = every.max(Duration::from_millis(10));
        self
    }

    /// How often files given to [`McpServer::from_files`] are checked for changes (default
    /// 1 s).
    pub fn watch_interval(mut self, every: Duration) -> Self {
        self.watch_every = every.max(Duration::from_millis(10));
        self
    }

    /// The tools served now.
    fn tools(&self) -> Arc<Tools> {
        Arc::clone(&self.shared.tools.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The definitions `tools/list` returns now.
    pub fn definitions(&self) -> Vec<Tool> {
        self.tools().definitions.clone()
    }

    /// The `instructions` the server sends when a client initializes: the safety prompt of
    /// the commands served ([`atip_runtime::safety_prompt`]).
    pub fn instructions(&self) -> String {
        self.tools().instructions.clone()
    }

    /// Answers one `tools/call` without a client to ask, notify or cancel (for tests and
    /// other transports): dispatch, policy, run, filtered output. A call that needs
    /// confirmation is refused with the reasons. Never an `Err`: every failure is a result
    /// with `is_error` set and a message for the model.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> CallToolResult {
        self.answer(name, arguments, None).await
    }

    /// Starts watching the files (once per server), with `peer` to notify.
    fn watch(&self, peer: &Peer<RoleServer>) {
        if self.shared.files.is_empty() || self.shared.watching.swap(true, Ordering::SeqCst) {
            return;
        }
        tokio::spawn(watch::run(
            Arc::downgrade(&self.shared),
            peer.clone(),
            self.watch_every,
        ));
    }

    /// Serves on stdin/stdout until the client disconnects.
    ///
    /// # Errors
    ///
    /// [`McpError::Session`] when the session cannot start or ends with an error.
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        let service = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| McpError::Session(e.to_string()))?;
        service
            .waiting()
            .await
            .map_err(|e| McpError::Session(e.to_string()))?;
        Ok(())
    }
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("tools", &self.tools().definitions.len())
            .field("files", &self.shared.files)
            .field("progress_every", &self.progress_every)
            .field("watch_every", &self.watch_every)
            .finish_non_exhaustive()
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools();
        if !self.shared.files.is_empty() {
            capabilities = capabilities.enable_tool_list_changed();
        }
        ServerConfig::new(capabilities.build())
            .with_server_info(Implementation::new("atip", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.watch(&context.peer);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // Sessions without `initialize` (protocol 2026-07-28) start watching here.
        self.watch(&context.peer);
        Ok(ListToolsResult::with_all_items(self.definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.watch(&context.peer);
        Ok(self
            .answer(&request.name, request.arguments, Some(&context))
            .await
            .into())
    }
}
