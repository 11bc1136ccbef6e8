//! Tool sets: what a turn driver or a server dispatches a model's calls to — metadata loaded
//! at run time ([`LoadedCommands`], several of them) or a generated module ([`GeneratedCommands`]).

use super::call::{DispatchError, ToolCall};
use super::loaded::LoadedCommands;
use atip_core::ToolSpec;

use crate::invocation::Invocation;

/// Turns a model's tool call into an [`Invocation`]: the tools a driver offers.
pub trait Dispatch: Send + Sync {
    /// What a model sees of every command, in the order the tools are sent.
    fn specs(&self) -> Vec<&ToolSpec>;

    /// Checks `call` and builds the command line it asks for.
    ///
    /// # Errors
    ///
    /// [`DispatchError`] with every problem found, or the unknown tool name with a suggestion.
    fn invocation(&self, call: &ToolCall) -> Result<Invocation, DispatchError>;

    /// Every command a call can reach, for policy checks (the runtime's `Policy::check_against`):
    /// the same as [`Dispatch::specs`] unless the tools sent stand for others (meta-tools).
    fn commands(&self) -> Vec<&ToolSpec> {
        self.specs()
    }

    /// The invocation of a call to one of [`Dispatch::commands`] by its own flattened name:
    /// what a call through the tools sent comes to. The same as [`Dispatch::invocation`]
    /// unless the tools sent stand for others (meta-tools run a command through
    /// `run_command`). For checks of a policy's examples (the runtime's `Policy::check_examples`).
    ///
    /// # Errors
    ///
    /// As [`Dispatch::invocation`].
    fn command_invocation(&self, call: &ToolCall) -> Result<Invocation, DispatchError> {
        self.invocation(call)
    }
}

/// The tools a model is offered, as a turn driver or a server sees them: [`Dispatch`], and the
/// calls the set answers itself without running a command (meta-tools that search or describe
/// commands, atip-runtime's `search::MetaTools`). A type of your own that implements
/// [`Dispatch`] opts in with `impl ToolSet for MyTools {}`.
pub trait ToolSet: Dispatch {
    /// The answer to `call` when the set gives it itself; `None` (the default) for calls that
    /// go through [`Dispatch::invocation`] and the runner.
    fn answer(&self, _call: &ToolCall) -> Option<crate::result::ToolResult> {
        None
    }
}

impl ToolSet for LoadedCommands {}
impl ToolSet for [LoadedCommands] {}
impl ToolSet for Vec<LoadedCommands> {}
impl<C: CommandSet> ToolSet for GeneratedCommands<C> {}

impl Dispatch for LoadedCommands {
    fn specs(&self) -> Vec<&ToolSpec> {
        LoadedCommands::specs(self).iter().collect()
    }

    fn invocation(&self, call: &ToolCall) -> Result<Invocation, DispatchError> {
        LoadedCommands::invocation(self, call)
    }
}

/// Several loaded tools, offered together (their command names must differ): as a slice, for
/// callers that hold them so (the runtime's `Policy::check_examples` takes `&[LoadedCommands]`).
impl Dispatch for [LoadedCommands] {
    fn specs(&self) -> Vec<&ToolSpec> {
        self.iter().flat_map(LoadedCommands::specs).collect()
    }

    fn invocation(&self, call: &ToolCall) -> Result<Invocation, DispatchError> {
        match self.iter().find(|t| t.has_command(&call.name)) {
            Some(t) => t.invocation(call),
            None => {
                let names: Vec<&str> = self.iter().flat_map(LoadedCommands::names).collect();
                Err(DispatchError::unknown_tool(call, &names))
            }
        }
    }
}

/// Several loaded tools, offered together (their command names must differ).
impl Dispatch for Vec<LoadedCommands> {
    fn specs(&self) -> Vec<&ToolSpec> {
        self.as_slice().specs()
    }

    fn invocation(&self, call: &ToolCall) -> Result<Invocation, DispatchError> {
        self.as_slice().invocation(call)
    }
}

/// A generated module's `Call` enum: implemented by generated code, for [`GeneratedCommands`].
pub trait CommandSet: crate::invocation::ToInvocation + Sized + Send + Sync + 'static {
    /// The module's `TOOLS`.
    fn specs() -> &'static [ToolSpec];

    /// The module's `Call::from_tool_call`.
    ///
    /// # Errors
    ///
    /// [`DispatchError`] with every problem of the call.
    fn dispatch(call: &ToolCall) -> Result<Self, DispatchError>;

    /// The module's `Call::from_json_text`: a call given as its tool name and its arguments
    /// as JSON text, dispatched straight from the text. The result equals
    /// `Self::dispatch(&ToolCall::from_json_text(None, name, arguments))`, which is also what
    /// this default does.
    ///
    /// # Errors
    ///
    /// [`DispatchError`] with every problem of the call.
    fn dispatch_json_text(name: &str, arguments: &str) -> Result<Self, DispatchError> {
        Self::dispatch(&ToolCall::from_json_text(None, name, arguments))
    }
}

/// The commands of a generated module, for a turn driver (`agent::TurnDriver`): `GeneratedCommands::<git::Call>::new()`.
pub struct GeneratedCommands<C>(std::marker::PhantomData<fn() -> C>);

impl<C> GeneratedCommands<C> {
    /// The module whose `Call` is `C`.
    pub fn new() -> Self {
        GeneratedCommands(std::marker::PhantomData)
    }
}

impl<C> Default for GeneratedCommands<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C> std::fmt::Debug for GeneratedCommands<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GeneratedCommands<{}>", std::any::type_name::<C>())
    }
}

impl<C: CommandSet> Dispatch for GeneratedCommands<C> {
    fn specs(&self) -> Vec<&ToolSpec> {
        C::specs().iter().collect()
    }

    fn invocation(&self, call: &ToolCall) -> Result<Invocation, DispatchError> {
        let command = C::dispatch(call)?;
        let mut invocation = command
            .to_invocation()
            .map_err(|e| DispatchError::from_argv(call, &e))?;
        invocation.call_id.clone_from(&call.id);
        Ok(invocation)
    }
}
