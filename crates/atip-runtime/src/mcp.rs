//! ATIP tools served over the Model Context Protocol, on the official Rust SDK (`rmcp`).
//!
//! [`McpServer`] answers `tools/list` with the MCP definitions of every command of the loaded
//! tools (annotations from their effects, see [`crate::providers`]) and `tools/call` by
//! dispatching the call (the same checks as every provider's calls), gating it on the
//! [`Runner`]'s policy, running it and returning the filtered output. A call the policy wants
//! confirmed is answered with an error result that says so and why — an MCP server cannot ask
//! the person at the keyboard, so nothing that needs confirmation runs. Failures (unknown tool,
//! bad arguments, refusal, non-zero exit, timeout) are results with `isError: true`, so the
//! model sees them; only protocol misuse is a JSON-RPC error.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use atip_runtime::{mcp::McpServer, Document, LoadedTool, Mode, Runner};
//! let doc = Document::from_path("atip/git.json".as_ref(), Mode::Strict, &Default::default())?;
//! let server = McpServer::new(vec![LoadedTool::new(doc, None)], Runner::new())?;
//! server.serve_stdio().await?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as Content,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::providers::Provider;
use crate::{Invocation, LoadedTool, RunError, Runner, ToolCall, ToolResult};

/// An MCP server for loaded ATIP tools. Cheap to clone (shared state).
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    source: Source,
    definitions: Vec<Tool>,
    runner: Runner,
}

/// Where calls are dispatched.
enum Source {
    /// Metadata loaded at run time; tool name → index in `tools`.
    Loaded {
        tools: Vec<LoadedTool>,
        owner: HashMap<String, usize>,
    },
    /// A generated module's `Call::from_tool_call` (see [`McpServer::generated`]).
    Generated(GeneratedDispatch),
}

/// Dispatches a call to a generated module's commands: the invocation, or a message for the
/// model. See [`McpServer::generated`].
pub type GeneratedDispatch = fn(&ToolCall) -> Result<Invocation, String>;

/// Why a server could not be built or run.
#[derive(Debug)]
#[non_exhaustive]
pub enum McpError {
    /// Two loaded tools define a command with the same flattened name.
    DuplicateTool(String),
    /// A definition did not convert to `rmcp`'s `Tool` (a bug: ours are MCP-valid).
    Definition(serde_json::Error),
    /// The MCP session failed (transport or protocol).
    Session(String),
    /// The runner's policy names commands or parameters none of the tools has.
    Policy(crate::PolicyError),
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
        }
    }
}

impl std::error::Error for McpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            McpError::Definition(e) => Some(e),
            McpError::Policy(e) => Some(e),
            _ => None,
        }
    }
}

/// The MCP definitions of every command of `tool`, as `rmcp` [`Tool`]s.
///
/// # Errors
///
/// [`McpError::Definition`] if a definition does not deserialise as an `rmcp` `Tool`.
pub fn tools_of(tool: &LoadedTool) -> Result<Vec<Tool>, McpError> {
    mcp_tools(tool.specs())
}

/// Each spec's MCP definition as an `rmcp` [`Tool`], converted as a JSON value (no text).
fn mcp_tools(specs: &[crate::ToolSpec]) -> Result<Vec<Tool>, McpError> {
    specs
        .iter()
        .map(|spec| {
            serde_json::from_value(crate::providers::tool_definition(spec, Provider::Mcp))
                .map_err(McpError::Definition)
        })
        .collect()
}

impl McpServer {
    /// A server for `tools`, running calls with `runner` (its policy, timeouts, output cap,
    /// environment and result filter).
    ///
    /// # Errors
    ///
    /// [`McpError::DuplicateTool`] when two tools share a command name; [`McpError::Policy`]
    /// when the runner's policy names a command or parameter none of them has (for a generated
    /// module, check with `Policy::check_against(module::TOOLS)`).
    pub fn new(tools: Vec<LoadedTool>, runner: Runner) -> Result<Self, McpError> {
        runner
            .current_policy()
            .check_against(tools.iter().flat_map(LoadedTool::specs))
            .map_err(McpError::Policy)?;
        let mut definitions = Vec::new();
        let mut owner = HashMap::new();
        for (i, tool) in tools.iter().enumerate() {
            for def in tools_of(tool)? {
                if owner.insert(def.name.to_string(), i).is_some() {
                    return Err(McpError::DuplicateTool(def.name.to_string()));
                }
                definitions.push(def);
            }
        }
        Ok(McpServer {
            inner: Arc::new(Inner {
                source: Source::Loaded { tools, owner },
                definitions,
                runner,
            }),
        })
    }

    /// A server for a generated module: its `TOOLS` and a function that dispatches a call
    /// through its `Call`:
    ///
    /// ```
    /// # mod git { atip_runtime::include_atip!("../../examples/atip/git.json"); }
    /// use atip_runtime::{mcp::McpServer, Runner, ToInvocation};
    /// let server = McpServer::generated(git::TOOLS, |call| {
    ///     let command = git::Call::from_tool_call(call).map_err(|e| e.to_string())?;
    ///     command.to_invocation().map_err(|e| e.to_string())
    /// }, Runner::new())?;
    /// assert_eq!(server.definitions().len(), git::Call::NAMES.len());
    /// # Ok::<(), atip_runtime::mcp::McpError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`McpError::Policy`] when the runner's policy names a command or parameter the module
    /// does not have; [`McpError::Definition`] if a definition does not convert to `rmcp`'s
    /// `Tool` (a bug).
    pub fn generated(
        tools: &[crate::ToolSpec],
        dispatch: GeneratedDispatch,
        runner: Runner,
    ) -> Result<Self, McpError> {
        runner
            .current_policy()
            .check_against(tools)
            .map_err(McpError::Policy)?;
        let definitions = mcp_tools(tools)?;
        Ok(McpServer {
            inner: Arc::new(Inner {
                source: Source::Generated(dispatch),
                definitions,
                runner,
            }),
        })
    }

    /// The definitions `tools/list` returns.
    pub fn definitions(&self) -> &[Tool] {
        &self.inner.definitions
    }

    /// Answers one `tools/call`: dispatch, policy, run, filtered output. Never an `Err`:
    /// every failure is a result with `is_error` set and a message for the model.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> CallToolResult {
        let inner = &self.inner;
        let call = ToolCall::new(None, name, arguments.unwrap_or_default());
        let invocation = match &inner.source {
            Source::Loaded { tools, owner } => match owner.get(name) {
                Some(&i) => tools[i].invocation(&call).map_err(|e| e.to_string()),
                None => {
                    let names: Vec<&str> = owner.keys().map(String::as_str).collect();
                    Err(crate::DispatchError::unknown_tool(&call, &names).to_string())
                }
            },
            Source::Generated(dispatch) => dispatch(&call),
        };
        let result = match invocation {
            Err(e) => ToolResult::error(e),
            Ok(inv) => match inner.runner.run(&inv).await {
                Ok(output) => inner.runner.tool_result(&output),
                // The one answer that differs from other paths: nobody can confirm here.
                Err(RunError::NeedsConfirmation(request)) => {
                    let reasons: Vec<String> = request
                        .reasons
                        .iter()
                        .map(|r| format!("{}: {}", r.code.as_str(), r.message))
                        .collect();
                    ToolResult::error(format!(
                        "`{name}` was not run: it needs a person's confirmation ({}), which this \
                         MCP server cannot ask for; the server's policy must allow it",
                        reasons.join("; ")
                    ))
                }
                Err(e) => inner.runner.error_result(&e),
            },
        };
        let content = vec![Content::text(result.content)];
        let mut answer = if result.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        // JSON output as data (MCP's structuredContent is an object: anything else is wrapped).
        if let (Some(data), false) = (result.structured, result.is_error) {
            answer.structured_content = Some(match data {
                serde_json::Value::Object(_) => data,
                other => serde_json::json!({ "result": other }),
            });
        }
        // Exit status, duration, what the sandbox enforced and redactions travel as `_meta`.
        if !result.meta.is_empty() {
            answer.meta = Some(result.meta.into());
        }
        answer
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

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("atip", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.inner.definitions.clone(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(self.call(&request.name, request.arguments).await.into())
    }
}
