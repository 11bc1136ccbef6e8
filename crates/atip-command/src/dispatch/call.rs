//! One tool call as a provider sent it: [`ToolCall`], its arguments read into a JSON object
//! ([`arguments_from_text`], [`arguments_from_value`] — the one reader every response format,
//! stream and server uses), and why it cannot become a command: every [`Problem`] at once, in
//! a [`DispatchError`] worded for the model.

use std::fmt;

use serde_json::{Map, Value};

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
        ToolCall {
            id,
            name: name.into(),
            arguments: arguments_from_text(raw),
            thought_signature: None,
        }
    }
}

/// A call's arguments from JSON text, as OpenAI sends them: an object, or empty text for `{}`
/// (some OpenAI-compatible servers send it for functions without parameters).
///
/// # Errors
///
/// [`ArgumentsError`] (keeping the text) when the text is not JSON or not an object.
pub fn arguments_from_text(raw: &str) -> Result<Map<String, Value>, ArgumentsError> {
    if raw.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(not_an_object(raw.to_owned(), &other)),
        Err(e) => Err(ArgumentsError {
            raw: Some(raw.to_owned()),
            message: format!("arguments are not valid JSON ({e})"),
        }),
    }
}

/// A call's arguments from a JSON value, as Anthropic (`input`) and Gemini (`args`) send them:
/// absent or `null` is `{}`, an object is itself, a string is JSON text (a streamed input cut
/// short, some compatible servers) read by [`arguments_from_text`].
///
/// # Errors
///
/// [`ArgumentsError`] for text that is not an object, and for any other kind of value.
pub fn arguments_from_value(input: Option<&Value>) -> Result<Map<String, Value>, ArgumentsError> {
    match input {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(Value::String(text)) => arguments_from_text(text),
        Some(other) => Err(not_an_object(other.to_string(), other)),
    }
}

fn not_an_object(raw: String, found: &Value) -> ArgumentsError {
    ArgumentsError {
        raw: Some(raw),
        message: format!(
            "arguments must be a JSON object, found {}",
            atip_core::diagnostic::describe(found)
        ),
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
    /// The error for `call` with `problems` (never empty), answering the call by its id.
    pub fn new(call: &ToolCall, problems: Vec<Problem>) -> Self {
        DispatchError {
            tool: call.name.clone(),
            call_id: call.id.clone(),
            problems,
        }
    }

    /// The error for a call whose checked arguments still make no argv (a NUL byte, a value
    /// that cannot be written): one [`Problem::Argv`] per problem.
    pub(crate) fn from_argv(call: &ToolCall, e: &crate::argv::ArgvError) -> Self {
        let problems = e
            .problems
            .iter()
            .map(|p| Problem::Argv {
                message: p.to_string(),
            })
            .collect();
        Self::new(call, problems)
    }

    /// The error for a call to a name that is not among `known`.
    pub fn unknown_tool<S: AsRef<str>>(call: &ToolCall, known: &[S]) -> Self {
        let mut e = Self::unknown_name(&call.name, known);
        e.call_id.clone_from(&call.id);
        e
    }

    /// [`DispatchError::unknown_tool`] for a call known only by its name (no id).
    pub(crate) fn unknown_name<S: AsRef<str>>(name: &str, known: &[S]) -> Self {
        let suggestion = atip_core::diagnostic::nearest(name, known).map(str::to_owned);
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
