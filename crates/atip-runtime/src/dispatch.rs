//! From a model's tool call to a command: argument checking, typed and untyped dispatch, and
//! action-discriminator groups (spec §8.2 rule 3, strategy B).
//!
//! Arguments are checked against the command's [`ToolSpec`] before anything else, and every
//! problem is reported at once — unknown tool, invalid JSON, missing required parameter, wrong
//! type, value outside the allowed ones, unknown parameter — with the parameter's name and what
//! was expected, so the message can go straight back to the model. Only safe coercions happen:
//! a string holding a whole number for an integer (`"42"` → `42`), `"true"`/`"false"` for a
//! boolean, a number for a string or an enumeration value spelled as that number, an integral
//! float for an integer (`3.0` → `3`, never `3.5`). An explicit `null` means absent (OpenAI strict
//! mode sends one for every unset parameter).

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt;

use serde_json::{Map, Value};

use crate::argv::{ArgvBuilder, ArgvError, Url};
use crate::command::{Command, Invocation};
use crate::effects::{Effects, Text};
use crate::flatten::{FlatCommand, ParamKind};
use crate::load::Document;
use crate::model::TrustSource;
use crate::tool::{ParamSpec, ToolSpec, ValueKind};

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

/// One problem with a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// No tool has this name.
    UnknownTool {
        /// A known name that differs only in case or `-`/`_`, if any.
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
    /// The argv could not be built from otherwise valid values (e.g. a NUL byte).
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
    fn new(call: &ToolCall, problems: Vec<Problem>) -> Self {
        DispatchError {
            tool: call.name.clone(),
            call_id: call.id.clone(),
            problems,
        }
    }

    /// The error for a call to a name that is not among `known`.
    pub fn unknown_tool<S: AsRef<str>>(call: &ToolCall, known: &[S]) -> Self {
        let norm = |s: &str| s.to_ascii_lowercase().replace('-', "_");
        let wanted = norm(&call.name);
        let suggestion = known
            .iter()
            .map(AsRef::as_ref)
            .find(|k| norm(k) == wanted)
            .map(str::to_owned);
        DispatchError::new(call, vec![Problem::UnknownTool { suggestion }])
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

/// What a parameter takes, in words (`an array of file paths`).
pub fn expected(p: &ParamSpec) -> String {
    let one = match (&p.values, p.kind) {
        (Some(values), _) => format!(
            "one of {}",
            values
                .iter()
                .map(|v| format!("{v:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (None, ValueKind::String) => "a string".to_owned(),
        (None, ValueKind::Integer) => "an integer".to_owned(),
        (None, ValueKind::Number) => "a number".to_owned(),
        (None, ValueKind::Boolean) => "a boolean".to_owned(),
        (None, ValueKind::File) => "a file path (string)".to_owned(),
        (None, ValueKind::Directory) => "a directory path (string)".to_owned(),
        (None, ValueKind::Url) => "an absolute URL (string)".to_owned(),
        (None, ValueKind::Enum) => "a string".to_owned(),
    };
    if p.multiple {
        format!("an array whose items are {one}")
    } else {
        one
    }
}

/// Checks `args` against `spec` and returns them normalised: only present parameters, in the
/// spec's order, coerced where safe, `null`s removed.
///
/// # Errors
///
/// Every [`Problem`] found.
pub fn check_arguments(
    spec: &ToolSpec,
    args: &Map<String, Value>,
) -> Result<Map<String, Value>, Vec<Problem>> {
    Ok(Arguments::check(spec, args)?
        .slots
        .into_iter()
        .filter_map(|(name, value)| Some((name.to_owned(), value?.into_owned())))
        .collect())
}

/// Arguments that passed [`check_arguments`], read field by field into a typed command.
///
/// Generated commands implement [`FromArguments`] with these getters; each getter converts one
/// already checked value, so a failure means the command and its `TOOL` spec disagree. Names
/// and values are borrowed (from the spec and the tool call) unless a coercion changed a
/// value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments<'a> {
    /// One slot per parameter of the spec, in its order: the name and the value, if present.
    slots: Vec<(&'a str, Option<Cow<'a, Value>>)>,
    /// The slot after the last one read: generated code reads fields in spec order, so the
    /// next field is almost always there.
    next: usize,
    /// Problems met reading fields.
    problems: Vec<String>,
}

impl<'a> Arguments<'a> {
    /// Checks `args` against `spec` with the rules of [`check_arguments`]; the present
    /// parameters in the spec's order, borrowed unless coerced.
    ///
    /// # Errors
    ///
    /// Every [`Problem`] found.
    pub fn check(spec: &'a ToolSpec, args: &'a Map<String, Value>) -> Result<Self, Vec<Problem>> {
        let mut problems = Vec::new();
        // One slot per parameter; each argument is matched to its parameter by comparing
        // names: a few short comparisons cost less than hashing every parameter name.
        let mut slots: Vec<(&'a str, Option<Cow<'a, Value>>)> = spec
            .params
            .iter()
            .map(|p| (p.name.as_ref(), None))
            .collect();
        for (key, value) in args {
            match spec.params.iter().position(|p| p.name == key.as_str()) {
                Some(i) => slots[i].1 = Some(Cow::Borrowed(value)),
                None => problems.push(Problem::UnknownParameter { param: key.clone() }),
            }
        }
        for (p, slot) in spec.params.iter().zip(slots.iter_mut()) {
            let Some(Cow::Borrowed(v)) = slot.1 else {
                if p.required {
                    problems.push(Problem::Missing {
                        param: p.name.to_string(),
                        expected: expected(p),
                    });
                }
                continue;
            };
            slot.1 = match v {
                Value::Null => {
                    if p.required {
                        problems.push(Problem::Missing {
                            param: p.name.to_string(),
                            expected: expected(p),
                        });
                    }
                    None
                }
                Value::Array(items) if p.multiple => {
                    let mut coerced: Option<Vec<Value>> = None;
                    for (i, item) in items.iter().enumerate() {
                        match check_value(p, item, || format!("{}[{i}]", p.name)) {
                            Ok(Cow::Borrowed(_)) => {
                                if let Some(c) = &mut coerced {
                                    c.push(item.clone());
                                }
                            }
                            Ok(Cow::Owned(v)) => {
                                coerced.get_or_insert_with(|| items[..i].to_vec()).push(v);
                            }
                            Err(e) => problems.push(e),
                        }
                    }
                    Some(match coerced {
                        Some(c) => Cow::Owned(Value::Array(c)),
                        None => Cow::Borrowed(v),
                    })
                }
                other if p.multiple => {
                    problems.push(Problem::WrongType {
                        param: p.name.to_string(),
                        expected: expected(p),
                        found: crate::diagnostic::describe(other),
                    });
                    None
                }
                v => match check_value(p, v, || p.name.to_string()) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        problems.push(e);
                        None
                    }
                },
            };
        }
        if problems.is_empty() {
            Ok(Arguments {
                slots,
                next: 0,
                problems: Vec::new(),
            })
        } else {
            Err(problems)
        }
    }

    fn take(&mut self, name: &str) -> Option<Cow<'a, Value>> {
        let i = match self.slots.get(self.next) {
            Some((k, _)) if *k == name => self.next,
            _ => self.slots.iter().position(|(k, _)| *k == name)?,
        };
        self.next = i + 1;
        self.slots[i].1.take()
    }

    /// The field called `name`, converted to the field's type: absent is `false` for a flag,
    /// `None` for an option, empty for a list. A problem (a required value absent, a value
    /// that does not convert) is kept for [`Arguments::finish`], which then discards the command,
    /// and [`FromArgument::unread`] is returned so that generated code builds the command in one
    /// expression.
    pub fn field<T: FromArgument>(&mut self, name: &str) -> T {
        let value = self.take(name);
        match T::from_argument(value.as_deref()) {
            Ok(v) => v,
            Err(e) => {
                self.problems.push(format!("parameter `{name}`: {e}"));
                T::unread()
            }
        }
    }

    /// The command built from the fields, or every problem found reading them.
    ///
    /// # Errors
    ///
    /// The problems, joined by `; `.
    pub fn finish<C>(self, command: C) -> Result<C, String> {
        if self.problems.is_empty() {
            Ok(command)
        } else {
            Err(self.problems.join("; "))
        }
    }
}

/// A field type of a generated command, read from a checked argument (`None`: absent).
///
/// Implemented for `bool`, the [`Scalar`](crate::__private::Scalar) values (strings, paths,
/// numbers, generated enumerations), and `Option`s and `Vec`s of them. A small trait of this
/// crate rather than serde's `DeserializeOwned`, whose higher-ranked bound costs compile time
/// in every field of every generated command.
pub trait FromArgument: Sized {
    /// Converts the value.
    ///
    /// # Errors
    ///
    /// What is wrong with it.
    fn from_argument(value: Option<&Value>) -> Result<Self, String>;

    /// The value a field holds while its argument could not be read; never observed, since
    /// [`Arguments::finish`] then returns the problem instead of the command.
    fn unread() -> Self;
}

impl FromArgument for bool {
    fn unread() -> Self {
        false
    }

    fn from_argument(value: Option<&Value>) -> Result<Self, String> {
        match value {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format!(
                "expected a boolean, found {}",
                crate::diagnostic::describe(other)
            )),
        }
    }
}

impl<T: crate::__private::Scalar> FromArgument for T {
    fn unread() -> Self {
        T::unread()
    }

    fn from_argument(value: Option<&Value>) -> Result<Self, String> {
        match value {
            None => Err("is required".to_owned()),
            Some(v) => T::from_json(v),
        }
    }
}

impl<T: crate::__private::Scalar> FromArgument for Option<T> {
    fn unread() -> Self {
        None
    }

    fn from_argument(value: Option<&Value>) -> Result<Self, String> {
        value.map(T::from_json).transpose()
    }
}

impl<T: crate::__private::Scalar> FromArgument for Vec<T> {
    fn unread() -> Self {
        Vec::new()
    }

    fn from_argument(value: Option<&Value>) -> Result<Self, String> {
        match value {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items.iter().map(T::from_json).collect(),
            Some(other) => Err(format!(
                "expected an array, found {}",
                crate::diagnostic::describe(other)
            )),
        }
    }
}

/// Commands that can be built from checked [`Arguments`]; implemented by generated code.
pub trait FromArguments: Sized {
    /// Builds the command.
    ///
    /// # Errors
    ///
    /// A message when an argument does not convert to its field (a bug in the generator).
    fn from_arguments(args: Arguments<'_>) -> Result<Self, String>;
}

/// Checks one value (one item of a list); the label names it in problems. The value comes back
/// borrowed when it is already in its normal form, owned when a coercion changed it.
fn check_value<'a>(
    p: &ParamSpec,
    v: &'a Value,
    label: impl Fn() -> String,
) -> Result<Cow<'a, Value>, Problem> {
    let wrong = |ignore_values: bool| {
        let one = ParamSpec {
            multiple: false,
            values: if ignore_values {
                None
            } else {
                p.values.clone()
            },
            ..p.clone()
        };
        Problem::WrongType {
            param: label(),
            expected: expected(&one),
            found: crate::diagnostic::describe(v),
        }
    };
    let value: Cow<'a, Value> = match p.kind {
        ValueKind::Boolean => match v {
            Value::Bool(_) => Cow::Borrowed(v),
            Value::String(s) if s == "true" => Cow::Owned(Value::Bool(true)),
            Value::String(s) if s == "false" => Cow::Owned(Value::Bool(false)),
            _ => return Err(wrong(false)),
        },
        ValueKind::Integer => match (v, integer(v)) {
            (Value::Number(n), Some(i)) if n.as_i64() == Some(i) => Cow::Borrowed(v),
            (_, Some(i)) => Cow::Owned(Value::from(i)),
            (_, None) => return Err(wrong(true)),
        },
        ValueKind::Number => match number(v) {
            Some(_) if v.is_number() => Cow::Borrowed(v),
            Some(n) => Cow::Owned(Value::from(n)),
            None => return Err(wrong(true)),
        },
        ValueKind::String
        | ValueKind::File
        | ValueKind::Directory
        | ValueKind::Url
        | ValueKind::Enum => {
            let value = match v {
                Value::String(_) => Cow::Borrowed(v),
                Value::Number(n) => Cow::Owned(Value::String(n.to_string())),
                _ => return Err(wrong(false)),
            };
            if p.kind == ValueKind::Url
                && !crate::formats::is_uri(value.as_str().unwrap_or_default())
            {
                return Err(wrong(false));
            }
            value
        }
    };
    if let Some(values) = &p.values {
        let allowed = match (p.kind, &*value) {
            (ValueKind::Integer | ValueKind::Number, value) => {
                let found = match value {
                    Value::String(s) => s.parse::<f64>().ok(),
                    other => other.as_f64(),
                };
                values
                    .iter()
                    .any(|a| a.parse::<f64>().is_ok() && a.parse::<f64>().ok() == found)
            }
            (_, Value::String(s)) => values.iter().any(|a| a == s),
            (_, other) => {
                let text = other.to_string();
                values.iter().any(|a| *a == text)
            }
        };
        if !allowed {
            return Err(Problem::NotAllowed {
                param: label(),
                allowed: values.iter().map(|s| s.to_string()).collect(),
                found: crate::diagnostic::describe(v),
            });
        }
    }
    Ok(value)
}

/// An integer, from an integer, an integral float within ±2^53, or a decimal string.
fn integer(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0)
                .map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    }
}

/// A finite number, from a number or a decimal string.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

/// Dispatches `call` to the generated command `C`: checks the arguments against `C::TOOL`,
/// then builds the command from them. Used by generated `Call::from_tool_call`.
///
/// # Errors
///
/// [`DispatchError`] with every problem of the arguments.
pub fn typed<C>(call: &ToolCall) -> Result<C, DispatchError>
where
    C: Command + FromArguments,
{
    let args = call.arguments.as_ref().map_err(|e| {
        DispatchError::new(
            call,
            vec![Problem::InvalidArguments {
                message: e.message.clone(),
            }],
        )
    })?;
    let tool = C::TOOL;
    let args = Arguments::check(&tool, args).map_err(|p| DispatchError::new(call, p))?;
    C::from_arguments(args).map_err(|e| {
        DispatchError::new(
            call,
            vec![Problem::InvalidArguments {
                message: format!("arguments do not fit `{}`: {e}", C::NAME),
            }],
        )
    })
}

/// Metadata loaded at run time, ready for dispatch: the counterpart of a generated module.
///
/// The [`ToolSpec`]s are built on first use of [`LoadedTool::tools`] (or
/// [`LoadedTool::command`]); dispatch and [`LoadedTool::definitions_json`] do not need them
/// all, so a large document costs only what it holds.
#[derive(Debug, Clone)]
pub struct LoadedTool {
    document: Document,
    program: String,
    specs: std::sync::OnceLock<Vec<ToolSpec>>,
    index: HashMap<String, usize>,
    assigned_trust: Option<TrustSource>,
    metadata: Option<String>,
}

impl LoadedTool {
    /// Prepares `document`; `program` overrides the executable (default: the tool's `name`).
    pub fn new(document: Document, program: Option<String>) -> Self {
        let index = document
            .commands
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.clone(), i))
            .collect();
        LoadedTool {
            program: program.unwrap_or_else(|| document.tool.name.clone()),
            document,
            specs: std::sync::OnceLock::new(),
            index,
            assigned_trust: None,
            metadata: None,
        }
    }

    /// Records where the metadata was read from (a file path), so that trust can be assigned
    /// by metadata location (the runtime's trust rules).
    #[must_use]
    pub fn metadata_path(mut self, path: impl Into<String>) -> Self {
        self.metadata = Some(path.into());
        self
    }

    /// Assigns the trust of this metadata, overriding its own `trust.source` claim (spec
    /// §3.2.2: where metadata comes from is for the caller to say, not for the file).
    #[must_use]
    pub fn assign_trust(mut self, trust: TrustSource) -> Self {
        self.assigned_trust = Some(trust);
        self
    }

    /// `trust.integrity.checksum` (or 0.4's `trust.checksum`): what the binary must hash to.
    pub fn checksum(&self) -> Option<&str> {
        self.document.tool.trust.as_ref()?.binary_checksum()
    }

    /// The trust, checksum and metadata location every invocation of this tool carries.
    fn stamp(&self, invocation: &mut Invocation) {
        invocation.trust = self.trust();
        invocation.trust_assigned = self.assigned_trust.is_some();
        invocation.checksum = self.checksum().map(|c| Cow::Owned(c.to_owned()));
        invocation.metadata = self.metadata.clone().map(Cow::Owned);
    }

    /// The document.
    pub fn document(&self) -> &Document {
        &self.document
    }

    /// One spec per command, in declaration order (built on first call).
    pub fn tools(&self) -> &[ToolSpec] {
        self.specs.get_or_init(|| {
            self.document
                .commands
                .iter()
                .map(|c| ToolSpec::from_flat(&self.document.tool.name, c))
                .collect()
        })
    }

    /// The names of the commands, in declaration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.document.commands.iter().map(|c| c.name.as_str())
    }

    /// `(name, effects)` of every command, e.g. for [`crate::prompt::safety_prompt`].
    pub fn effects(&self) -> impl Iterator<Item = (&str, &Effects)> {
        self.document
            .commands
            .iter()
            .map(|c| (c.name.as_str(), &c.effects))
    }

    /// The command called `name`.
    pub fn command(&self, name: &str) -> Option<(&FlatCommand, &ToolSpec)> {
        self.index
            .get(name)
            .map(|&i| (&self.document.commands[i], &self.tools()[i]))
    }

    /// Whether a command is called `name`.
    pub fn has_command(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Every command as `provider` tool definitions: a compact JSON array, the same text as
    /// [`crate::providers::tool_definitions_json`] over [`LoadedTool::tools`], written one
    /// command at a time without building every spec first.
    pub fn definitions_json(&self, provider: crate::providers::Provider) -> String {
        if let Some(specs) = self.specs.get() {
            return crate::providers::tool_definitions_json(specs, provider);
        }
        // The text is as large as the document: grown by estimate, not by doubling, so that
        // it never holds much more than it needs.
        const SAMPLE: usize = 64;
        let commands = &self.document.commands;
        let mut out = String::from("[");
        for (i, c) in commands.iter().enumerate() {
            if i == SAMPLE && commands.len() > 2 * SAMPLE {
                let estimate = out.len() / SAMPLE * commands.len();
                out.reserve_exact(estimate + estimate / 16 - out.len());
            } else if out.capacity() - out.len() < 4096 {
                out.reserve_exact((out.len() / 4).max(1 << 16));
            }
            if i > 0 {
                out.push(',');
            }
            let spec = ToolSpec::from_flat(&self.document.tool.name, c);
            crate::providers::write_definition(&mut out, &spec, provider);
        }
        out.push(']');
        out.shrink_to_fit();
        out
    }

    /// The spec of command `i`, built if the specs are not.
    fn spec(&self, i: usize) -> std::borrow::Cow<'_, ToolSpec> {
        match self.specs.get() {
            Some(specs) => std::borrow::Cow::Borrowed(&specs[i]),
            None => std::borrow::Cow::Owned(ToolSpec::from_flat(
                &self.document.tool.name,
                &self.document.commands[i],
            )),
        }
    }

    /// Checks `call` and builds the command line it asks for, with the same rules as a
    /// generated `Call::from_tool_call` followed by `to_invocation`.
    ///
    /// # Errors
    ///
    /// [`DispatchError`] with every problem found, including values no argv can carry.
    pub fn invocation(&self, call: &ToolCall) -> Result<Invocation, DispatchError> {
        let Some(&i) = self.index.get(&call.name) else {
            let names: Vec<&str> = self.names().collect();
            return Err(DispatchError::unknown_tool(call, &names));
        };
        let (cmd, spec) = (&self.document.commands[i], self.spec(i));
        let args = call.arguments.as_ref().map_err(|e| {
            DispatchError::new(
                call,
                vec![Problem::InvalidArguments {
                    message: e.message.clone(),
                }],
            )
        })?;
        let normalised = check_arguments(&spec, args).map_err(|p| DispatchError::new(call, p))?;
        let (argv, arguments) =
            argv_and_arguments(&self.program, cmd, &normalised).map_err(|e| {
                DispatchError::new(
                    call,
                    e.problems
                        .iter()
                        .map(|p| Problem::Argv {
                            message: p.to_string(),
                        })
                        .collect(),
                )
            })?;
        let mut invocation = Invocation::new(cmd.name.clone(), argv, cmd.effects.clone());
        invocation.title = Some(spec.title.clone().into_owned().into());
        invocation.arguments = arguments;
        self.stamp(&mut invocation);
        Ok(invocation)
    }

    /// For partial metadata (`partial: true`, spec §3.1.1): an invocation of a command that is
    /// not in the loaded metadata, from its subcommand `path` and raw `args`, with the tool's
    /// own effects and `unlisted` set from `omitted.safetyAssumption`, so the policy treats it
    /// as the metadata says (by default it needs confirmation).
    ///
    /// # Errors
    ///
    /// When the metadata is not partial, the command is in fact listed, or a value holds NUL.
    pub fn unlisted_invocation(&self, path: &[&str], args: &[&str]) -> Result<Invocation, String> {
        let tool = &self.document.tool;
        if tool.partial != Some(true) {
            return Err(format!(
                "`{}` metadata is complete (not `partial`): only its listed commands can run",
                tool.name
            ));
        }
        let name = crate::names::tool_name(&tool.name, path);
        if self.index.contains_key(&name) {
            return Err(format!("`{name}` is listed; dispatch it with `invocation`"));
        }
        let mut b = ArgvBuilder::new(self.program.as_str());
        b.subcommand(path);
        for a in args {
            b.raw(a);
        }
        let argv = b.finish().map_err(|e| e.to_string())?;
        let assumption = tool
            .omitted
            .as_ref()
            .and_then(|o| o.safety_assumption)
            .unwrap_or(crate::model::SafetyAssumption::Unknown);
        let mut invocation = Invocation::new(name, argv, tool.effects.clone().unwrap_or_default());
        invocation.title = Some(
            std::iter::once(tool.name.as_str())
                .chain(path.iter().copied())
                .collect::<Vec<_>>()
                .join(" ")
                .into(),
        );
        invocation.unlisted = Some(assumption);
        self.stamp(&mut invocation);
        Ok(invocation)
    }

    /// The trust assigned with [`LoadedTool::assign_trust`], else the metadata's own
    /// `trust.source` claim.
    pub fn trust(&self) -> Option<TrustSource> {
        self.assigned_trust
            .or_else(|| self.document.tool.trust.as_ref().and_then(|t| t.source))
    }
}

/// The argv of `cmd` for normalised arguments (see [`check_arguments`]), in the same order and
/// forms as generated `write_argv`.
///
/// # Errors
///
/// [`ArgvError`] for values no command line can carry.
pub fn argv_from_json(
    program: &str,
    cmd: &FlatCommand,
    args: &Map<String, Value>,
) -> Result<Vec<OsString>, ArgvError> {
    argv_and_arguments(program, cmd, args).map(|(argv, _)| argv)
}

/// [`argv_from_json`] and the values each parameter put on it, for argument rules.
fn argv_and_arguments(
    program: &str,
    cmd: &FlatCommand,
    args: &Map<String, Value>,
) -> Result<(Vec<OsString>, Vec<crate::argv::ArgumentValue>), ArgvError> {
    let mut b = ArgvBuilder::new(program);
    for o in cmd.options.iter().filter(|o| o.is_global()) {
        write_param(&mut b, o, args.get(&o.name));
    }
    b.subcommand(&cmd.path);
    for o in cmd.options.iter().filter(|o| !o.is_global()) {
        write_param(&mut b, o, args.get(&o.name));
    }
    for a in &cmd.arguments {
        write_param(&mut b, a, args.get(&a.name));
    }
    b.finish_recorded()
}

fn write_param(b: &mut ArgvBuilder, p: &crate::flatten::FlatParam, value: Option<&Value>) {
    let boolean = p.ty == crate::model::ParamType::Boolean && p.enum_values.is_none();
    let path = matches!(
        p.ty,
        crate::model::ParamType::File | crate::model::ParamType::Directory
    ) && p.enum_values.is_none();
    b.parameter(p.name.clone(), path);
    let (label, flag) = match &p.kind {
        ParamKind::Option { flag, .. } => (flag.text.as_str(), Some(flag)),
        ParamKind::Argument => (p.declared_name.as_str(), None),
    };
    let write_one = |b: &mut ArgvBuilder, v: &Value| {
        let text = value_text(p, v);
        let url = p.ty == crate::model::ParamType::Url && p.enum_values.is_none();
        match (flag, url) {
            (Some(f), true) => b.option(&f.text, f.attached, &Url(&text)),
            (Some(f), false) => b.option(&f.text, f.attached, text.as_str()),
            (None, true) => b.positional(label, &Url(&text)),
            (None, false) => b.positional(label, text.as_str()),
        }
    };
    if boolean {
        let on = value == Some(&Value::Bool(true));
        match flag {
            Some(f) => {
                if on {
                    b.flag(&f.text)
                }
            }
            None => b.positional(label, if on { "true" } else { "false" }),
        }
        return;
    }
    if p.multiple {
        let items: &[Value] = match value {
            Some(Value::Array(items)) => items,
            _ => &[],
        };
        if p.required {
            b.require_values(label, items.len());
        }
        if items.is_empty() && flag.is_none() {
            b.omit_positional(label);
        }
        for v in items {
            write_one(b, v);
        }
    } else if let Some(v) = value {
        write_one(b, v);
    } else if flag.is_none() {
        b.omit_positional(label);
    }
}

/// A normalised value as generated code would write it: integers and numbers through `i64`
/// and `f64` so both paths print them alike.
fn value_text(p: &crate::flatten::FlatParam, v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) if p.ty == crate::model::ParamType::Number && p.enum_values.is_none() => {
            n.as_f64().map_or_else(|| n.to_string(), |f| f.to_string())
        }
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// Several commands compiled into one tool whose required `action` parameter selects the
/// command (spec §8.2 rule 3, strategy B); [`ToolGroup::resolve`] maps a call back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolGroup {
    spec: ToolSpec,
    actions: Vec<(String, ToolSpec)>,
}

/// Why commands cannot be grouped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupError {
    /// What conflicts.
    pub message: String,
}

impl fmt::Display for GroupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for GroupError {}

impl ToolGroup {
    /// Groups `actions` (action value, command spec) into one tool named `name`.
    ///
    /// Parameters with the same name in several commands must have the same kind, list-ness
    /// and allowed values; none may be called `action`. In the grouped schema only `action`
    /// is required (what else is required depends on the action and is checked on dispatch);
    /// effects are merged conservatively over the commands, so the flags warn about the
    /// riskiest action.
    ///
    /// # Errors
    ///
    /// [`GroupError`] for no commands, duplicate actions or conflicting parameters.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        actions: impl IntoIterator<Item = (String, ToolSpec)>,
    ) -> Result<Self, GroupError> {
        let name = name.into();
        let actions: Vec<(String, ToolSpec)> = actions.into_iter().collect();
        if actions.is_empty() {
            return Err(GroupError {
                message: format!("group `{name}` has no commands"),
            });
        }
        let mut params: Vec<(ParamSpec, Vec<String>)> = Vec::new();
        let mut seen_actions: Vec<&str> = Vec::new();
        for (action, spec) in &actions {
            if seen_actions.contains(&action.as_str()) {
                return Err(GroupError {
                    message: format!("group `{name}`: action {action:?} appears twice"),
                });
            }
            seen_actions.push(action);
            for p in spec.params.iter() {
                if p.name == "action" {
                    return Err(GroupError {
                        message: format!(
                            "group `{name}`: `{}` has its own parameter `action`, which the group needs",
                            spec.name
                        ),
                    });
                }
                match params.iter_mut().find(|(q, _)| q.name == p.name) {
                    Some((q, users)) => {
                        if q.kind != p.kind || q.multiple != p.multiple || q.values != p.values {
                            return Err(GroupError {
                                message: format!(
                                    "group `{name}`: parameter `{}` differs between actions {:?} and {action:?}",
                                    p.name, users[0]
                                ),
                            });
                        }
                        users.push(action.clone());
                    }
                    None => params.push((p.clone(), vec![action.clone()])),
                }
            }
        }
        let mut union = vec![ParamSpec {
            name: Text::Borrowed("action"),
            description: Text::Borrowed("Which command to run"),
            kind: ValueKind::Enum,
            required: true,
            multiple: false,
            values: Some(std::borrow::Cow::Owned(
                actions
                    .iter()
                    .map(|(a, _)| Text::Owned(a.clone()))
                    .collect(),
            )),
            default: None,
        }];
        for (mut p, users) in params {
            let note = format!("(actions: {})", users.join(", "));
            p.description = Text::Owned(if p.description.trim().is_empty() {
                note
            } else {
                format!("{} {note}", p.description.trim())
            });
            p.required = false;
            union.push(p);
        }
        let effects = actions
            .iter()
            .fold(Effects::UNKNOWN, |acc, (_, s)| acc.merged_with(&s.effects));
        let first = &actions[0].1;
        let path: Vec<Text> = common_prefix(actions.iter().map(|(_, s)| &s.path[..]));
        let title = first
            .title
            .split(' ')
            .take(path.len() + 1)
            .collect::<Vec<_>>()
            .join(" ");
        let spec = ToolSpec {
            name: Text::Owned(name),
            title: Text::Owned(title),
            path: std::borrow::Cow::Owned(path),
            description: Text::Owned(description.into()),
            effects,
            params: std::borrow::Cow::Owned(union),
        };
        Ok(ToolGroup { spec, actions })
    }

    /// Groups the commands of `tools` below `path` (e.g. `["pr"]` for every `gh pr …`). Each
    /// action is the rest of the command's path joined with spaces (`"create"`,
    /// `"deploy-key add"`); the command standing for the group itself (a `""` child) gets the
    /// group's last segment.
    ///
    /// # Errors
    ///
    /// As [`ToolGroup::new`]; also when no command lies below `path`.
    pub fn from_path(
        tools: &[ToolSpec],
        path: &[&str],
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Result<Self, GroupError> {
        let members = tools
            .iter()
            .filter(|t| t.path.len() >= path.len() && t.path.iter().zip(path).all(|(a, b)| a == b))
            .map(|t| {
                let rest: Vec<&str> = t.path[path.len()..].iter().map(|s| s.as_ref()).collect();
                let action = if rest.is_empty() {
                    path.last().copied().unwrap_or_default().to_owned()
                } else {
                    rest.join(" ")
                };
                (action, t.clone())
            });
        ToolGroup::new(name, description, members)
    }

    /// The grouped tool, for [`crate::providers::tool_definition`].
    pub fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// The actions and the commands they select.
    pub fn actions(&self) -> &[(String, ToolSpec)] {
        &self.actions
    }

    /// Turns a call of the grouped tool into a call of the command its `action` selects:
    /// `action` removed, `null`s of other actions' parameters dropped. The result goes to the
    /// normal dispatch, which checks the remaining arguments.
    ///
    /// # Errors
    ///
    /// [`DispatchError`] for a missing or unknown action, and for non-null parameters that
    /// belong to other actions or to none.
    pub fn resolve(&self, call: &ToolCall) -> Result<ToolCall, DispatchError> {
        if call.name != self.spec.name {
            return Err(DispatchError::unknown_tool(
                call,
                &[self.spec.name.as_ref()],
            ));
        }
        let args = call.arguments.as_ref().map_err(|e| {
            DispatchError::new(
                call,
                vec![Problem::InvalidArguments {
                    message: e.message.clone(),
                }],
            )
        })?;
        let action_param = &self.spec.params[0];
        let action = match args.get("action") {
            Some(Value::String(a)) => match self.actions.iter().find(|(name, _)| name == a) {
                Some(found) => found,
                None => {
                    return Err(DispatchError::new(
                        call,
                        vec![Problem::NotAllowed {
                            param: "action".into(),
                            allowed: self.actions.iter().map(|(a, _)| a.clone()).collect(),
                            found: crate::diagnostic::describe(&Value::String(a.clone())),
                        }],
                    ))
                }
            },
            None | Some(Value::Null) => {
                return Err(DispatchError::new(
                    call,
                    vec![Problem::Missing {
                        param: "action".into(),
                        expected: expected(action_param),
                    }],
                ))
            }
            Some(other) => {
                return Err(DispatchError::new(
                    call,
                    vec![Problem::WrongType {
                        param: "action".into(),
                        expected: expected(action_param),
                        found: crate::diagnostic::describe(other),
                    }],
                ))
            }
        };
        let (action_name, target) = action;
        let mut problems = Vec::new();
        let mut rest = Map::new();
        for (k, v) in args {
            if k == "action" {
                continue;
            }
            if target.param(k).is_some() {
                rest.insert(k.clone(), v.clone());
            } else if v.is_null() {
                continue;
            } else if self.spec.param(k).is_some() {
                problems.push(Problem::NotForAction {
                    param: k.clone(),
                    action: action_name.clone(),
                });
            } else {
                problems.push(Problem::UnknownParameter { param: k.clone() });
            }
        }
        if !problems.is_empty() {
            return Err(DispatchError::new(call, problems));
        }
        Ok(ToolCall {
            id: call.id.clone(),
            name: target.name.to_string(),
            arguments: Ok(rest),
            thought_signature: call.thought_signature.clone(),
        })
    }
}

fn common_prefix<'a>(paths: impl Iterator<Item = &'a [Text]>) -> Vec<Text> {
    let mut prefix: Option<Vec<Text>> = None;
    for p in paths {
        prefix = Some(match prefix {
            None => p.to_vec(),
            Some(cur) => cur
                .into_iter()
                .zip(p.iter())
                .take_while(|(a, b)| a == *b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    prefix.unwrap_or_default()
}
