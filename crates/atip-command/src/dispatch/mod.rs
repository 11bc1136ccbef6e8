//! From a model's tool call to a command: argument checking, typed and untyped dispatch, and
//! action-discriminator groups (spec §8.2 rule 3, strategy B).
//!
//! Arguments are checked against the command's [`ToolSpec`](atip_core::ToolSpec) before anything else, and every
//! problem is reported at once — unknown tool, invalid JSON, missing required parameter, wrong
//! type, value outside the allowed ones, unknown parameter — with the parameter's name and what
//! was expected, so the message can go straight back to the model. Only safe coercions happen:
//! a string holding a whole number for an integer (`"42"` → `42`), `"true"`/`"false"` for a
//! boolean, a number for a string or an enumeration value spelled as that number, an integral
//! float for an integer (`3.0` → `3`, never `3.5`). An explicit `null` means absent (OpenAI strict
//! mode sends one for every unset parameter).
//!
//! Arguments that are still JSON text (OpenAI's `function.arguments`, a streamed call) can be
//! read straight into the command — [`typed_from_json_text`], generated `Call::from_json_text`,
//! [`LoadedCommands::invocation_from_json_text`](loaded::LoadedCommands::invocation_from_json_text) —
//! without a map in between; the result, errors included, is that of the parsed [`ToolCall`].

//!
//! One module per step: [`call`] (the call and its arguments object), [`check`] (arguments
//! against a [`ToolSpec`](atip_core::ToolSpec)), [`typed`] (into a generated command, part of the command contract), [`loaded`] (metadata
//! loaded at run time), [`set`] (what a turn driver dispatches over) and [`group`] (one tool
//! for several commands).

pub mod call;
pub mod check;
pub mod group;
pub mod loaded;
pub mod set;

pub use crate::contract::{dispatch_to, typed, typed_from_json_text, CallInput};
pub use call::{
    arguments_from_text, arguments_from_value, ArgumentsError, DispatchError, Problem, ToolCall,
    LISTED_VALUES,
};
pub use check::{check_arguments, expected, Arguments, FromArgument};
pub use group::{GroupError, ToolGroup};
pub use loaded::LoadedCommands;
pub use set::{CommandSet, Dispatch, GeneratedCommands, ToolSet};
