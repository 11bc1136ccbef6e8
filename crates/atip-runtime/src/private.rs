pub use serde;

use serde::de::Error as _;

use crate::dispatch::{Arguments, FromArguments};
use crate::Command;

/// `Deserialize` of a generated command: a JSON object checked against `C::TOOL` with the
/// rules of dispatch (coercions, `null` as absent, unknown parameters refused), then built.
pub fn deserialize_command<'de, D, C>(deserializer: D) -> Result<C, D::Error>
where
    D: serde::Deserializer<'de>,
    C: Command + FromArguments,
{
    use serde::Deserialize;
    let map = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
    let tool = C::TOOL;
    let checked = Arguments::check(&tool, &map).map_err(|problems| {
        D::Error::custom(
            problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
    })?;
    C::from_arguments(checked).map_err(D::Error::custom)
}

/// `Deserialize` of a generated enumeration: one of `values`, by text.
pub fn deserialize_enum<'de, D, E>(
    deserializer: D,
    parse: fn(&str) -> Option<E>,
    values: &'static [&'static str],
) -> Result<E, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::Deserialize;
    let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
    parse(&text).ok_or_else(|| D::Error::unknown_variant(&text, values))
}

/// The object-safe part of [`Command`], so that a generated `Call` matches on its variant
/// once (`Call::command`) instead of once per method: with thousands of commands, every
/// thousand-arm `match` costs the compiler noticeably.
pub trait DynCommand {
    /// [`Command::argv`].
    fn argv(&self) -> Vec<std::ffi::OsString>;
    /// [`Command::try_argv`].
    ///
    /// # Errors
    ///
    /// As [`Command::try_argv`].
    fn try_argv(&self) -> Result<Vec<std::ffi::OsString>, crate::ArgvError>;
    /// [`ToInvocation::to_invocation`](crate::ToInvocation::to_invocation).
    ///
    /// # Errors
    ///
    /// As `try_argv`.
    fn to_invocation(&self) -> Result<crate::Invocation, crate::ArgvError>;
}

impl<C: Command> DynCommand for C {
    fn argv(&self) -> Vec<std::ffi::OsString> {
        Command::argv(self)
    }
    fn try_argv(&self) -> Result<Vec<std::ffi::OsString>, crate::ArgvError> {
        Command::try_argv(self)
    }
    fn to_invocation(&self) -> Result<crate::Invocation, crate::ArgvError> {
        crate::ToInvocation::to_invocation(self)
    }
}

/// A generated `Call`'s dispatch function for command `C`: [`typed`](crate::dispatch::typed)
/// then the variant (`T: From<C>`). Generated code keeps these in a table sorted by tool
/// name and finds a call's entry by binary search, instead of a `match` on thousands of
/// strings.
///
/// # Errors
///
/// As [`typed`](crate::dispatch::typed).
pub fn dispatch_to<C, T>(call: &crate::ToolCall) -> Result<T, crate::DispatchError>
where
    C: Command + FromArguments,
    T: From<C>,
{
    crate::dispatch::typed::<C>(call).map(T::from)
}

/// One row of a generated `Call`'s dispatch table: tool name and its dispatch function.
pub type DispatchEntry<T> = (
    &'static str,
    fn(&crate::ToolCall) -> Result<T, crate::DispatchError>,
);

/// Dispatches `call` through `table` (sorted by name), or reports the unknown tool with a
/// suggestion from `names`.
///
/// # Errors
///
/// [`DispatchError`](crate::DispatchError): unknown tool, or as the command's dispatch.
pub fn dispatch_by_name<T>(
    call: &crate::ToolCall,
    table: &[DispatchEntry<T>],
    names: &[&str],
) -> Result<T, crate::DispatchError> {
    match table.binary_search_by(|(name, _)| (*name).cmp(call.name.as_str())) {
        Ok(i) => (table[i].1)(call),
        Err(_) => Err(crate::DispatchError::unknown_tool(call, names)),
    }
}

/// `Cow::Borrowed`, shorter in generated code.
pub use std::borrow::Cow::Borrowed;

pub use crate::fields::{serialize_fields, write_fields, Arg, Field, FieldSpec, Scalar};
pub use serde_json;

/// [`Scalar::from_json`] of a generated enumeration: a string naming one of its values.
///
/// # Errors
///
/// When the value is not a string, or not one of the values.
pub fn enum_from_json<E>(
    value: &serde_json::Value,
    parse: fn(&str) -> Option<E>,
) -> Result<E, String> {
    match value.as_str() {
        Some(text) => parse(text).ok_or_else(|| format!("{text:?} is not one of its values")),
        None => Err(format!(
            "expected a string, found {}",
            crate::diagnostic::describe(value)
        )),
    }
}

/// A [`FieldSpec`] in a `const`, with fewer tokens than the struct literal.
pub const fn field(
    name: &'static str,
    arg: Arg,
    global: bool,
    required: bool,
    url: bool,
) -> FieldSpec {
    FieldSpec {
        name,
        arg,
        global,
        required,
        url,
    }
}

/// A [`ParamSpec`](crate::ParamSpec) in a `const`, with fewer tokens than the struct
/// literal (generated tables hold thousands of them).
#[allow(clippy::too_many_arguments)]
pub const fn param(
    name: &'static str,
    description: &'static str,
    kind: crate::ValueKind,
    required: bool,
    multiple: bool,
    values: Option<&'static [crate::effects::Text]>,
    default: Option<&'static str>,
) -> crate::ParamSpec {
    crate::ParamSpec {
        name: Borrowed(name),
        description: Borrowed(description),
        kind,
        required,
        multiple,
        values: match values {
            Some(v) => Some(Borrowed(v)),
            None => None,
        },
        default: match default {
            Some(d) => Some(Borrowed(d)),
            None => None,
        },
    }
}

/// `&s[start..end]` in a `const`: the generated per-command schema constants are slices
/// of the array constants. Fails compilation if the range is not on character boundaries.
pub const fn slice(s: &'static str, start: usize, end: usize) -> &'static str {
    let (head, _) = s.as_bytes().split_at(end);
    let (_, part) = head.split_at(start);
    match core::str::from_utf8(part) {
        Ok(part) => part,
        Err(_) => panic!("schema slice is not on character boundaries"),
    }
}
