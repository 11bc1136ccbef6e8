//! rig-core 0.44: every generated command as a rig tool, and conversions between rig's tool
//! definitions and calls and ours.
//!
//! [`RigTool<C>`] implements rig's `PortableTool` for any generated command type `C`: its name
//! is the command's tool name, its parameters the command's JSON Schema (as Anthropic gets it),
//! and calling it checks the arguments exactly like every other dispatch path, builds the typed
//! command, gates it on the runner's policy, runs it and returns the filtered output. A refusal,
//! a failed run or bad arguments are the tool's error, with the message the model should see.
//!
//! ```
//! # mod git { atip_runtime::include_atip!("../../examples/atip/git.json"); }
//! use atip_runtime::{interop::rig::RigTool, Runner};
//! use rig_core::tool::PortableTool;
//! let tool = RigTool::<git::Status>::new(Runner::new()); // e.g. for an agent builder's `.tool(…)`
//! assert_eq!(<RigTool<git::Status> as PortableTool>::NAME, "git_status");
//! ```

use std::marker::PhantomData;
use std::sync::Arc;

use rig_core::completion::message::ToolName;
use rig_core::completion::ToolDefinition;
use rig_core::tool::PortableTool;
use serde_json::{Map, Value};

use crate::command::dispatch::typed;
use crate::providers::{tool_definition, Provider};
use crate::{Command, Runner, ToolCall, ToolSpec};

/// A generated command `C` as a rig tool, run by a shared [`Runner`].
pub struct RigTool<C> {
    runner: Arc<Runner>,
    command: PhantomData<fn() -> C>,
}

impl<C> RigTool<C> {
    /// The tool, running calls with `runner` (its policy, timeouts, output cap and filter).
    pub fn new(runner: impl Into<Arc<Runner>>) -> Self {
        RigTool {
            runner: runner.into(),
            command: PhantomData,
        }
    }
}

impl<C> Clone for RigTool<C> {
    fn clone(&self) -> Self {
        RigTool {
            runner: self.runner.clone(),
            command: PhantomData,
        }
    }
}

/// Why a [`RigTool`] call failed: the message for the model (the same text a tool result of
/// any other path would carry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RigToolError(pub String);

impl std::fmt::Display for RigToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RigToolError {}

/// rig's definition of the command described by `spec`: its tool name, its description with
/// the safety flags, and its parameters' JSON Schema (Anthropic's `input_schema`).
pub fn rig_definition(spec: &ToolSpec) -> ToolDefinition {
    let def = tool_definition(spec, Provider::Anthropic);
    ToolDefinition {
        name: ToolName::new(spec.name.to_string()).unwrap_or_else(|_| {
            // Tool names are never empty (the loader requires a name).
            ToolName::new("unnamed").expect("non-empty")
        }),
        description: def["description"].as_str().unwrap_or_default().to_owned(),
        parameters: def["input_schema"].clone(),
    }
}

/// Our [`ToolCall`] for one of rig's tool calls (id, name and arguments kept).
pub fn from_rig_call(call: &rig_core::completion::message::ToolCall) -> ToolCall {
    ToolCall::new(
        Some(call.id.to_string()),
        call.function.name.as_str(),
        call.function.arguments.clone(),
    )
}

impl<C> PortableTool for RigTool<C>
where
    C: Command + Send + Sync + 'static,
{
    const NAME: &'static str = C::NAME;
    type Args = Map<String, Value>;
    type Output = String;
    type Error = RigToolError;

    fn description(&self) -> String {
        rig_definition(C::tool()).description
    }

    fn parameters(&self) -> Value {
        rig_definition(C::tool()).parameters
    }

    async fn call(&self, arguments: Self::Args) -> Result<Self::Output, Self::Error> {
        let call = ToolCall::new(None, C::NAME, arguments);
        let command: C = typed(&call).map_err(|e| RigToolError(e.to_string()))?;
        let result = self.runner.run(&command).tool_result().await;
        if result.is_error {
            Err(RigToolError(result.content))
        } else {
            Ok(result.content)
        }
    }
}
