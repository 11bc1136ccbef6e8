//! The one argv writer and serialiser of commands, driven by their parameter table.
//!
//! A command's [`ToolSpec`](atip_core::ToolSpec) lists its parameters in a fixed order, each with
//! the [`ArgvForm`] its values take. A generated command hands its fields over in that same
//! order, as `&dyn Field` ([`Command::fields`](crate::contract::Command::fields)); metadata loaded at run
//! time hands over the checked JSON values ([`JsonArgument`]). [`write_fields`] then writes
//! the whole argv and [`serialize_fields`] the whole JSON object, in one loop over the table,
//! so both paths produce the same command line by construction, and a large tool does not
//! pay the compiler for one statement per field of every command.

use std::any::Any;
use std::borrow::Cow;
use std::ffi::OsStr;
use std::fmt;
use std::path::PathBuf;

use serde::ser::SerializeMap as _;
use serde_json::Value;

use crate::argv::{ArgvBuilder, ToArgument, Url, ValueProblem};
use atip_core::tool::{ArgvForm, ParamSpec, ValueKind};

/// A field of a command: `bool`, a [`Scalar`], or an `Option` or `Vec` of scalars (and
/// [`JsonArgument`] for metadata loaded at run time).
///
/// Besides the argv and JSON writers, a field gives what a generated command's `Debug` and
/// `PartialEq` need ([`Field::same`]), so that these two are one short impl per command over
/// [`Command::fields`](crate::contract::Command::fields) rather than derived: derived, they were a fifth
/// of what `cargo check` pays for a large tool (BENCHMARKS.md).
pub trait Field: fmt::Debug {
    /// Writes the field's argv elements as `spec` says (nothing when absent, `false` or
    /// empty).
    fn write(&self, argv: &mut ArgvBuilder, spec: &ParamSpec);
    /// The field as JSON, `None` when it is left out (absent, `false`, or an empty optional
    /// list).
    fn json(&self, spec: &ParamSpec) -> Option<Value>;
    /// The field as [`Any`], for [`Field::same`]; `None` for a field that borrows
    /// ([`JsonArgument`]).
    fn as_any(&self) -> Option<&dyn Any>;
    /// Whether `other` is a field of the same type with an equal value (`PartialEq`; a
    /// [`JsonArgument`] is equal to none).
    fn same(&self, other: &dyn Field) -> bool;
}

/// [`Field::same`] for a field of type `T`.
fn same_as<T: PartialEq + 'static>(field: &T, other: &dyn Field) -> bool {
    other
        .as_any()
        .and_then(|o| o.downcast_ref::<T>())
        .is_some_and(|o| o == field)
}

/// One value of a field: strings, paths, numbers and generated enumerations.
pub trait Scalar: serde::Serialize + fmt::Debug + PartialEq + Sized + 'static {
    /// Reads a checked argument value.
    ///
    /// # Errors
    ///
    /// When the value is of another kind.
    fn from_json(value: &Value) -> Result<Self, String>;

    /// Reads a checked argument value that is owned and dropped afterwards, taking text out
    /// of it (leaving an empty string) instead of copying.
    ///
    /// # Errors
    ///
    /// As [`Scalar::from_json`].
    fn take_json(value: &mut Value) -> Result<Self, String> {
        Self::from_json(value)
    }

    /// The value a field holds while its argument could not be read. It is never observed:
    /// [`Arguments::finish`](crate::dispatch::Arguments::finish) then discards the command and
    /// returns the problem instead. (A value is needed so that generated code builds a
    /// command in one struct expression, without a `?` per field.)
    fn unread() -> Self;

    /// The value as one argv element.
    ///
    /// # Errors
    ///
    /// [`ValueProblem`] when no command line can carry it (a non-finite number).
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem>;

    /// The value as text, when it is text (for the URL check of `url` parameters).
    fn text(&self) -> Option<&str> {
        None
    }
}

/// A generated enumeration: a fieldless enum with one variant per allowed value (spec §3.7,
/// `enum`), each value kept exactly as the tool expects it.
///
/// Bring the trait into scope for [`Enumeration::as_str`] and [`Enumeration::from_value`]:
/// `use atip_runtime::command::fields::Enumeration;`.
pub trait Enumeration: Copy + PartialEq + 'static {
    /// Every variant with its value, in declaration order.
    const VALUES: &'static [(Self, &'static str)];

    /// The value exactly as the tool expects it.
    fn as_str(self) -> &'static str {
        Self::VALUES
            .iter()
            .find(|(variant, _)| *variant == self)
            .map_or("", |(_, value)| value)
    }

    /// The variant whose value is `value`, if any (exact match, case included).
    fn from_value(value: &str) -> Option<Self> {
        Self::VALUES
            .iter()
            .find(|(_, v)| *v == value)
            .map(|(variant, _)| *variant)
    }
}

fn expected(what: &str, found: &Value) -> String {
    format!(
        "expected {what}, found {}",
        atip_core::diagnostic::describe(found)
    )
}

impl Scalar for String {
    fn unread() -> Self {
        String::new()
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| expected("a string", value))
    }

    fn take_json(value: &mut Value) -> Result<Self, String> {
        match value {
            Value::String(s) => Ok(std::mem::take(s)),
            other => Self::from_json(other),
        }
    }

    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        ToArgument::to_argument(self)
    }

    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

impl Scalar for PathBuf {
    fn unread() -> Self {
        PathBuf::new()
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        value
            .as_str()
            .map(PathBuf::from)
            .ok_or_else(|| expected("a path (string)", value))
    }

    fn take_json(value: &mut Value) -> Result<Self, String> {
        match value {
            Value::String(s) => Ok(PathBuf::from(std::mem::take(s))),
            other => Self::from_json(other),
        }
    }

    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        ToArgument::to_argument(self)
    }
}

impl Scalar for i64 {
    fn unread() -> Self {
        0
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        value.as_i64().ok_or_else(|| expected("an integer", value))
    }

    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        ToArgument::to_argument(self)
    }
}

impl Scalar for f64 {
    fn unread() -> Self {
        0.0
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        value.as_f64().ok_or_else(|| expected("a number", value))
    }

    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        ToArgument::to_argument(self)
    }
}

impl<E: Enumeration + serde::Serialize + fmt::Debug> Scalar for E {
    fn unread() -> Self {
        E::VALUES[0].0
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        match value.as_str() {
            Some(text) => {
                E::from_value(text).ok_or_else(|| format!("{text:?} is not one of its values"))
            }
            None => Err(expected("a string", value)),
        }
    }

    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        Ok(Cow::Borrowed(OsStr::new(self.as_str())))
    }
}

/// A [`Scalar`] as an [`ToArgument`], for the builder.
struct ScalarArg<'a, T>(&'a T);

impl<T: Scalar> ToArgument for ScalarArg<'_, T> {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        self.0.to_argument()
    }
}

/// Tells a recording builder which parameter the next value belongs to. Only present values
/// are announced, and only to a builder that records; the name is shared with the spec
/// ([`atip_core::Shared`]), never copied.
fn announce(argv: &mut ArgvBuilder, spec: &ParamSpec) {
    if argv.records_values() {
        argv.parameter(spec.name.clone(), spec.is_path());
    }
}

/// Writes one value of `spec` in its form; URL parameters' values are checked as URLs.
fn write_value<V: ToArgument + ?Sized>(argv: &mut ArgvBuilder, spec: &ParamSpec, value: &V) {
    announce(argv, spec);
    match &spec.argv {
        ArgvForm::Joined(flag) => argv.long(flag, value),
        ArgvForm::Separate(flag) => argv.short(flag, value),
        ArgvForm::Argument(name) => argv.positional(name, value),
        // A flag takes no value: a value here means the spec and the field disagree; written
        // as an option rather than dropped.
        ArgvForm::Flag(flag) => argv.long(flag, value),
    }
}

fn write_scalar<T: Scalar>(argv: &mut ArgvBuilder, spec: &ParamSpec, value: &T) {
    match (spec.kind, value.text()) {
        (ValueKind::Url, Some(text)) => write_value(argv, spec, &Url(text)),
        _ => write_value(argv, spec, &ScalarArg(value)),
    }
}

/// A boolean: the bare flag when `true` (an argument is written `true` or `false`).
fn write_bool(argv: &mut ArgvBuilder, spec: &ParamSpec, on: bool) {
    match &spec.argv {
        ArgvForm::Argument(name) => {
            announce(argv, spec);
            argv.positional(name, if on { "true" } else { "false" })
        }
        ArgvForm::Flag(flag) | ArgvForm::Joined(flag) | ArgvForm::Separate(flag) => {
            if on {
                announce(argv, spec);
                argv.flag(flag);
            }
        }
    }
}

/// An absent value: an omitted positional is recorded, so a later one cannot take its slot.
fn write_absent(argv: &mut ArgvBuilder, spec: &ParamSpec) {
    if let ArgvForm::Argument(name) = &spec.argv {
        argv.omit_positional(name);
    }
}

/// Before a list's values: a required list needs at least one, an empty one is absent.
fn write_list_start(argv: &mut ArgvBuilder, spec: &ParamSpec, len: usize) {
    if spec.required {
        argv.require_values(spec.argv.label(), len);
    }
    if len == 0 {
        write_absent(argv, spec);
    }
}

impl Field for bool {
    fn write(&self, argv: &mut ArgvBuilder, spec: &ParamSpec) {
        write_bool(argv, spec, *self);
    }

    fn json(&self, _: &ParamSpec) -> Option<Value> {
        self.then_some(Value::Bool(true))
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }

    fn same(&self, other: &dyn Field) -> bool {
        same_as(self, other)
    }
}

impl<T: Scalar> Field for T {
    fn write(&self, argv: &mut ArgvBuilder, spec: &ParamSpec) {
        write_scalar(argv, spec, self);
    }

    fn json(&self, _: &ParamSpec) -> Option<Value> {
        serde_json::to_value(self).ok()
    }
    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }

    fn same(&self, other: &dyn Field) -> bool {
        same_as(self, other)
    }
}

impl<T: Scalar> Field for Option<T> {
    fn write(&self, argv: &mut ArgvBuilder, spec: &ParamSpec) {
        match self {
            Some(v) => write_scalar(argv, spec, v),
            None => write_absent(argv, spec),
        }
    }

    fn json(&self, _: &ParamSpec) -> Option<Value> {
        self.as_ref().and_then(|v| serde_json::to_value(v).ok())
    }
    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }

    fn same(&self, other: &dyn Field) -> bool {
        same_as(self, other)
    }
}

impl<T: Scalar> Field for Vec<T> {
    fn write(&self, argv: &mut ArgvBuilder, spec: &ParamSpec) {
        write_list_start(argv, spec, self.len());
        for v in self {
            write_scalar(argv, spec, v);
        }
    }

    fn json(&self, spec: &ParamSpec) -> Option<Value> {
        if self.is_empty() && !spec.required {
            None
        } else {
            serde_json::to_value(self).ok()
        }
    }
    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }

    fn same(&self, other: &dyn Field) -> bool {
        same_as(self, other)
    }
}

/// One checked JSON argument of metadata loaded at run time (`None`: absent), written exactly
/// as the generated field of the same parameter would be: numbers through `i64` and `f64`,
/// booleans as flags, lists item by item.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JsonArgument<'a>(pub Option<&'a Value>);

/// A checked JSON value as one argv element, formatted as the generated field would format it.
struct JsonArg<'a> {
    value: &'a Value,
    kind: ValueKind,
}

impl ToArgument for JsonArg<'_> {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        match self.value {
            Value::String(s) => Ok(Cow::Borrowed(OsStr::new(s.as_str()))),
            Value::Number(n) if self.kind == ValueKind::Number => match n.as_f64() {
                Some(f) => ToArgument::to_argument(&f).map(|c| Cow::Owned(c.into_owned())),
                None => Ok(Cow::Owned(n.to_string().into())),
            },
            other => Ok(Cow::Owned(other.to_string().into())),
        }
    }
}

fn write_json_value(argv: &mut ArgvBuilder, spec: &ParamSpec, value: &Value) {
    match (spec.kind, value) {
        (ValueKind::Url, Value::String(text)) => write_value(argv, spec, &Url(text)),
        (kind, value) => write_value(argv, spec, &JsonArg { value, kind }),
    }
}

impl Field for JsonArgument<'_> {
    fn write(&self, argv: &mut ArgvBuilder, spec: &ParamSpec) {
        if spec.kind == ValueKind::Boolean {
            return write_bool(argv, spec, self.0 == Some(&Value::Bool(true)));
        }
        if spec.multiple {
            let items: &[Value] = match self.0 {
                Some(Value::Array(items)) => items,
                _ => &[],
            };
            write_list_start(argv, spec, items.len());
            for v in items {
                write_json_value(argv, spec, v);
            }
        } else {
            match self.0 {
                Some(v) => write_json_value(argv, spec, v),
                None => write_absent(argv, spec),
            }
        }
    }

    fn json(&self, _: &ParamSpec) -> Option<Value> {
        self.0.cloned()
    }

    fn as_any(&self) -> Option<&dyn Any> {
        None
    }

    fn same(&self, _: &dyn Field) -> bool {
        false
    }
}

/// A command's argv after its program: the global options, the subcommand `path`, the other
/// options, then the positionals (which [`ArgvBuilder`] keeps last). `params` and `fields`
/// are in the same order; each value is announced with its parameter
/// ([`ArgvBuilder::parameter`]) so that a recording builder records it for argument rules.
pub fn write_fields(
    argv: &mut ArgvBuilder,
    path: &[impl AsRef<str>],
    params: &[ParamSpec],
    fields: &[&dyn Field],
) {
    write_params(argv, path, params, |argv, i, spec| {
        if let Some(field) = fields.get(i) {
            field.write(argv, spec);
        }
    });
}

/// [`write_fields`] with each parameter's value written by `write` (given its index and
/// spec), for writers whose fields are not in a slice of references (a loaded tool's checked
/// values).
pub(crate) fn write_params(
    argv: &mut ArgvBuilder,
    path: &[impl AsRef<str>],
    params: &[ParamSpec],
    mut write: impl FnMut(&mut ArgvBuilder, usize, &ParamSpec),
) {
    for (i, spec) in params.iter().enumerate().filter(|(_, s)| s.global) {
        write(argv, i, spec);
    }
    argv.subcommand(path);
    for (i, spec) in params.iter().enumerate().filter(|(_, s)| !s.global) {
        write(argv, i, spec);
    }
}

/// A command as a JSON object of its present fields, by parameter name, in table order.
///
/// # Errors
///
/// The serializer's.
pub fn serialize_fields<S: serde::Serializer>(
    serializer: S,
    params: &[ParamSpec],
    fields: &[&dyn Field],
) -> Result<S::Ok, S::Error> {
    let present: Vec<(&str, Value)> = params
        .iter()
        .zip(fields)
        .filter_map(|(spec, field)| field.json(spec).map(|v| (spec.name.as_ref(), v)))
        .collect();
    let mut map = serializer.serialize_map(Some(present.len()))?;
    for (k, v) in &present {
        map.serialize_entry(k, v)?;
    }
    map.end()
}
