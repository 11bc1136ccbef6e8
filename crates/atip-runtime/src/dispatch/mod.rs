//! From a model's tool call to a command: argument checking, typed and untyped dispatch, and
//! action-discriminator groups (spec §8.2 rule 3, strategy B).
//!
//! Arguments are checked against the command's [`ToolSpec`](crate::ToolSpec) before anything else, and every
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
//! [`RuntimeTool::invocation_from_json_text`](loaded::RuntimeTool::invocation_from_json_text) —
//! without a map in between; the result, errors included, is that of the parsed [`ToolCall`].

//!
//! One module per step: [`check`] (arguments against a [`ToolSpec`](crate::ToolSpec)),
//! [`typed`] (into a generated command), [`loaded`] (metadata loaded at run time) and
//! [`group`] (one tool for several commands).

use std::fmt;

use serde_json::{Map, Value};

use crate::command::Command;

pub mod check;
pub mod group;
pub mod loaded;
pub mod set;

pub use check::{check_arguments, expected, Arguments, FromArgument};
pub use group::{GroupError, ToolGroup};
pub use loaded::RuntimeTool;
pub use set::{CommandSet, Dispatch, GeneratedCommands};

/// One tool call parsed from a provider response.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The id the result must echo: Chat `tool_calls[].id`, Responses `call_id`, Anthropic
    /// `tool_use.id`, Gemini `functionCall.id` (usually absent).
    pub id: Option<String>,
    /// The tool name the model called.
    pub name: String,
    /// The arguments object, or why there is none usable (invalid or truncated JSON).
    pub arguments: Result<Map<String, Value>, ArgumentsError>,
    /// Gemini's `thoughtSignature` of the part holding this call, to send back unchanged.
    pub thought_signature: Option<String>,
}

/// Why a call's arguments cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentsError {
    /// The arguments as the provider sent them, when they came as text.
    pub raw: Option<String>,
    /// What is wrong with them.
    pub message: String,
}

impl fmt::Display for ArgumentsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ArgumentsError {}

impl ToolCall {
    /// The arguments, or the dispatch error for arguments that are not a usable JSON object
    /// (invalid JSON, not an object, cut off).
    ///
    /// # Errors
    ///
    /// [`DispatchError`] with one [`Problem::InvalidArguments`].
    pub fn checked_arguments(&self) -> Result<&Map<String, Value>, DispatchError> {
        self.arguments.as_ref().map_err(|e| {
            DispatchError::new(
                self,
                vec![Problem::InvalidArguments {
                    message: e.message.clone(),
                }],
            )
        })
    }

    /// A call with an arguments object.
    pub fn new(id: Option<String>, name: impl Into<String>, arguments: Map<String, Value>) -> Self {
        ToolCall {
            id,
            name: name.into(),
            arguments: Ok(arguments),
            thought_signature: None,
        }
    }

    /// A call whose arguments arrive as JSON text (OpenAI). Empty text means `{}` (some
    /// OpenAI-compatible servers send it for functions without parameters); anything that is
    /// not a JSON object is kept as an [`ArgumentsError`].
    pub fn from_json_text(id: Option<String>, name: impl Into<String>, raw: &str) -> Self {
        let arguments = if raw.trim().is_empty() {
            Ok(Map::new())
        } else {
            match serde_json::from_str::<Value>(raw) {
                Ok(Value::Object(m)) => Ok(m),
                Ok(other) => Err(ArgumentsError {
                    raw: Some(raw.to_owned()),
                    message: format!(
                        "arguments must be a JSON object, found {}",
                        crate::diagnostic::describe(&other)
                    ),
                }),
                Err(e) => Err(ArgumentsError {
                    raw: Some(raw.to_owned()),
                    message: format!("arguments are not valid JSON ({e})"),
                }),
            }
        };
        ToolCall {
            id,
            name: name.into(),
            arguments,
            thought_signature: None,
        }
    }
}

/// Allowed values a [`Problem::NotAllowed`] message lists in full; past this it gives their
/// count and the nearest one.
pub const LISTED_VALUES: usize = 24;

/// One problem with a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// No tool has this name.
    UnknownTool {
        /// The nearest known name (same up to case and `-`/`_`, or a few edits away), if any.
        suggestion: Option<String>,
    },
    /// The arguments are not a usable JSON object.
    InvalidArguments {
        /// Why.
        message: String,
    },
    /// A required parameter is absent or `null`.
    Missing {
        /// Parameter name.
        param: String,
        /// What it takes.
        expected: String,
    },
    /// A value of the wrong type.
    WrongType {
        /// Parameter name, with `[i]` for a list element.
        param: String,
        /// What it takes.
        expected: String,
        /// What came.
        found: String,
    },
    /// A value outside the allowed ones.
    NotAllowed {
        /// Parameter name, with `[i]` for a list element.
        param: String,
        /// The allowed values.
        allowed: Vec<String>,
        /// What came.
        found: String,
    },
    /// A parameter the tool does not have.
    UnknownParameter {
        /// Parameter name as sent.
        param: String,
    },
    /// A grouped tool's parameter that the chosen action does not take.
    NotForAction {
        /// Parameter name.
        param: String,
        /// The chosen action.
        action: String,
    },
    /// A string value holds a NUL byte, which no command line can carry.
    Nul {
        /// Parameter name, with `[i]` for a list element.
        param: String,
    },
    /// The argv could not be built from otherwise valid values (a positional after an omitted
    /// one, a value the command line cannot carry).
    Argv {
        /// Why.
        message: String,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::UnknownTool {
                suggestion: Some(s),
            } => {
                write!(f, "no tool of that name; did you mean `{s}`?")
            }
            Problem::UnknownTool { suggestion: None } => f.write_str("no tool of that name"),
            Problem::InvalidArguments { message } => write!(f, "{message}"),
            Problem::Missing { param, expected } => {
                write!(f, "parameter `{param}` is required: {expected}")
            }
            Problem::WrongType {
                param,
                expected,
                found,
            } => write!(f, "parameter `{param}`: expected {expected}, found {found}"),
            // A long list (an enum of instance types) is not repeated to the model: the count
            // and the nearest value instead.
            Problem::NotAllowed {
                param,
                allowed,
                found,
            } if allowed.len() > LISTED_VALUES => {
                // `found` reads `string "m5.larg"`: the value is what is quoted.
                let unquoted = match (found.find('"'), found.rfind('"')) {
                    (Some(a), Some(b)) if a < b => &found[a + 1..b],
                    _ => found.as_str(),
                };
                write!(
                    f,
                    "parameter `{param}`: expected one of {} allowed values, found {found}",
                    allowed.len()
                )?;
                match atip_core::diagnostic::nearest(unquoted, allowed) {
                    Some(near) => write!(f, "; did you mean {near:?}?"),
                    None => Ok(()),
                }
            }
            Problem::NotAllowed {
                param,
                allowed,
                found,
            } => write!(
                f,
                "parameter `{param}`: expected one of {}, found {found}",
                allowed
                    .iter()
                    .map(|a| format!("{a:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Problem::UnknownParameter { param } => {
                write!(f, "unknown parameter `{param}`")
            }
            Problem::NotForAction { param, action } => {
                write!(f, "parameter `{param}` does not apply to action {action:?}")
            }
            Problem::Nul { param } => write!(
                f,
                "parameter `{param}` contains a NUL byte, which no command line can carry"
            ),
            Problem::Argv { message } => f.write_str(message),
        }
    }
}

/// Why a tool call cannot be turned into a command: every problem found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchError {
    /// The tool name the model called.
    pub tool: String,
    /// The call's id, to answer it with an error result.
    pub call_id: Option<String>,
    /// The problems; never empty.
    pub problems: Vec<Problem>,
}

impl DispatchError {
    pub(crate) fn new(call: &ToolCall, problems: Vec<Problem>) -> Self {
        DispatchError {
            tool: call.name.clone(),
            call_id: call.id.clone(),
            problems,
        }
    }

    /// The error for a call to a name that is not among `known`.
    pub fn unknown_tool<S: AsRef<str>>(call: &ToolCall, known: &[S]) -> Self {
        let mut e = Self::unknown_name(&call.name, known);
        e.call_id.clone_from(&call.id);
        e
    }

    /// [`DispatchError::unknown_tool`] for a call known only by its name (no id).
    pub(crate) fn unknown_name<S: AsRef<str>>(name: &str, known: &[S]) -> Self {
        let suggestion = crate::diagnostic::nearest(name, known).map(str::to_owned);
        DispatchError {
            tool: name.to_owned(),
            call_id: None,
            problems: vec![Problem::UnknownTool { suggestion }],
        }
    }
}

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool call `{}`: ", self.tool)?;
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for DispatchError {}

/// Dispatches `call` to the generated command `C`: checks the arguments against `C::tool()`,
/// then builds the command from them. Used by generated `Call::from_tool_call`.
///
/// # Errors
///
/// [`DispatchError`] with every problem of the arguments.
pub fn typed<C>(call: &ToolCall) -> Result<C, DispatchError>
where
    C: Command,
{
    dispatch_to::<C, C>(CallInput::Call(call))
}

/// What a generated `Call` dispatches: a parsed [`ToolCall`], or a tool
/// name with its arguments still as the provider's JSON text.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum CallInput<'a> {
    /// `Call::from_tool_call`.
    Call(&'a ToolCall),
    /// `Call::from_json_text`.
    Text {
        /// The tool name.
        name: &'a str,
        /// The arguments object as JSON text.
        arguments: &'a str,
    },
}

impl CallInput<'_> {
    pub(crate) fn name(&self) -> &str {
        match self {
            CallInput::Call(call) => &call.name,
            CallInput::Text { name, .. } => name,
        }
    }
}

/// A generated `Call`'s dispatch function for command `C`, and the implementation of
/// [`typed`] and [`typed_from_json_text`] (`T = C`): the arguments
/// checked against `C::tool()` (read straight from the text for [`CallInput::Text`]; a text
/// that fails is read again as a [`ToolCall`], which words every problem),
/// the command built, then the variant (`T: From<C>`). Generated code keeps these in a table
/// sorted by tool name and finds a call's entry by binary search, instead of a `match` on
/// thousands of strings.
///
/// # Errors
///
/// As [`typed`].
#[doc(hidden)]
pub fn dispatch_to<C, T>(input: CallInput<'_>) -> Result<T, DispatchError>
where
    C: Command,
    T: From<C>,
{
    // Only what needs `C` is here, so that each command costs one small instance: reading
    // and checking the arguments and wording errors are compiled once.
    let mut text_call = None;
    let mut args = input_arguments(input, C::tool(), &mut text_call)?;
    let command = C::from_arguments(&mut args);
    match args.finish() {
        Ok(()) => Ok(T::from(command)),
        Err(e) => Err(not_fitting(input, C::NAME, &e)),
    }
}

/// The checked arguments of `input` against `tool`: read straight from the text for
/// [`CallInput::Text`]; a text that fails there is read again
/// as a [`ToolCall`] (kept in `text_call`), which words every problem, so that both
/// inputs give the same result.
fn input_arguments<'a>(
    input: CallInput<'a>,
    tool: &'a crate::ToolSpec,
    text_call: &'a mut Option<ToolCall>,
) -> Result<Arguments<'a>, DispatchError> {
    let call = match input {
        CallInput::Call(call) => call,
        CallInput::Text { name, arguments } => {
            if let Some(args) = Arguments::from_json_text(tool, arguments) {
                return Ok(args);
            }
            &*text_call.insert(ToolCall::from_json_text(None, name, arguments))
        }
    };
    let args = call.checked_arguments()?;
    Arguments::check(tool, args).map_err(|p| DispatchError::new(call, p))
}

/// The error of checked arguments that do not convert to command `name`'s fields (a generator
/// bug, never a model's mistake).
fn not_fitting(input: CallInput<'_>, name: &str, e: &str) -> DispatchError {
    let problems = vec![Problem::InvalidArguments {
        message: format!("arguments do not fit `{name}`: {e}"),
    }];
    match input {
        CallInput::Call(call) => DispatchError::new(call, problems),
        CallInput::Text { name, arguments } => {
            DispatchError::new(&ToolCall::from_json_text(None, name, arguments), problems)
        }
    }
}

/// Dispatches a call given as its tool name and its arguments as the provider's JSON text
/// (OpenAI's `function.arguments` string, a streamed call's accumulated text) to the typed
/// command `C`, reading the arguments straight from the text into the command: no
/// [`ToolCall`], no intermediate map, strings moved rather than copied. The result is the
/// one [`typed`] gives for `ToolCall::from_json_text(None, name, arguments)`, errors included
/// (a call that fails is read again through that path, which words every problem). Used by
/// generated `Call::from_json_text`.
///
/// # Errors
///
/// As [`typed`]: the arguments are not a JSON object, or [`DispatchError`] with every
/// problem.
pub fn typed_from_json_text<C>(name: &str, arguments: &str) -> Result<C, DispatchError>
where
    C: Command,
{
    dispatch_to::<C, C>(CallInput::Text { name, arguments })
}
