//! Table-driven argv writing and serialisation for generated commands.
//!
//! A generated command lists its fields once, as `&dyn Field`, beside a `const` table saying how
//! each one goes on the command line and under which parameter name it serialises. One call
//! then writes the whole argv (or the whole JSON object), where a statement per field would
//! cost compile time for every command of a large tool. Only generated code uses this, through
//! `atip_runtime::__private`.

use std::path::PathBuf;

use serde::ser::SerializeMap as _;
use serde_json::Value;

use crate::argv::{ArgValue, ArgvBuilder, Url};

/// How one field goes on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// `--flag=value` (one element; repeated for each value of a list).
    Long(&'static str),
    /// `-f value` (two elements).
    Short(&'static str),
    /// A positional argument, named in problems.
    Positional(&'static str),
    /// A boolean option: the bare flag when `true`.
    Flag(&'static str),
}

/// One row of a generated command's field table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    /// The provider parameter name (`dry_run`), under which the field serialises.
    pub name: &'static str,
    /// How it goes on the command line.
    pub arg: Arg,
    /// A global option: written before the subcommand path.
    pub global: bool,
    /// Must be given: a required list needs at least one value, and serialises even empty.
    pub required: bool,
    /// The value is a URL, checked when the argv is built.
    pub url: bool,
}

/// A field of a generated command.
pub trait Field {
    /// Writes the field's argv elements (nothing when absent, `false` or empty).
    fn write(&self, argv: &mut ArgvBuilder, spec: &FieldSpec);
    /// The field as JSON, `None` when it is left out (absent, `false`, or an empty optional
    /// list).
    fn json(&self, spec: &FieldSpec) -> Option<Value>;
    /// Its values are paths (`file` or `directory` parameters, `PathBuf` fields).
    fn is_path(&self) -> bool {
        false
    }
}

/// One value of a field: strings, paths, numbers and generated enumerations.
pub trait Scalar: ArgValue + serde::Serialize + Sized {
    /// Reads a checked argument value.
    ///
    /// # Errors
    ///
    /// When the value is of another kind.
    fn from_json(value: &Value) -> Result<Self, String>;

    /// The value a field holds while its argument could not be read. It is never observed:
    /// [`Arguments::finish`](crate::dispatch::Arguments::finish) then discards the command and
    /// returns the problem instead. (A value is needed so that generated code builds a
    /// command in one struct expression, without a `?` per field.)
    fn unread() -> Self;

    /// The value as text, when it is one (for the URL check).
    fn text(&self) -> Option<&str> {
        None
    }

    /// Values of this type are paths (`PathBuf`), judged by path rules.
    const IS_PATH: bool = false;
}

fn expected(what: &str, found: &Value) -> String {
    format!(
        "expected {what}, found {}",
        crate::diagnostic::describe(found)
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

    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

impl Scalar for PathBuf {
    const IS_PATH: bool = true;

    fn unread() -> Self {
        PathBuf::new()
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        value
            .as_str()
            .map(PathBuf::from)
            .ok_or_else(|| expected("a path (string)", value))
    }
}

impl Scalar for i64 {
    fn unread() -> Self {
        0
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        value.as_i64().ok_or_else(|| expected("an integer", value))
    }
}

impl Scalar for f64 {
    fn unread() -> Self {
        0.0
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        value.as_f64().ok_or_else(|| expected("a number", value))
    }
}

fn write_one<T: Scalar>(value: &T, argv: &mut ArgvBuilder, spec: &FieldSpec) {
    match (spec.url, value.text()) {
        (true, Some(text)) => write_value(&Url(text), argv, spec),
        _ => write_value(value, argv, spec),
    }
}

fn write_value<V: ArgValue + ?Sized>(value: &V, argv: &mut ArgvBuilder, spec: &FieldSpec) {
    match spec.arg {
        Arg::Long(flag) => argv.long(flag, value),
        Arg::Short(flag) => argv.short(flag, value),
        Arg::Positional(name) => argv.positional(name, value),
        // Booleans are `bool` fields; a value here would be a generator bug, written as an
        // option rather than dropped.
        Arg::Flag(flag) => argv.long(flag, value),
    }
}

impl Field for bool {
    fn write(&self, argv: &mut ArgvBuilder, spec: &FieldSpec) {
        match spec.arg {
            Arg::Flag(flag) => {
                if *self {
                    argv.flag(flag);
                }
            }
            Arg::Positional(name) => argv.positional(name, if *self { "true" } else { "false" }),
            Arg::Long(flag) | Arg::Short(flag) => {
                if *self {
                    argv.flag(flag);
                }
            }
        }
    }

    fn json(&self, _: &FieldSpec) -> Option<Value> {
        self.then_some(Value::Bool(true))
    }
}

impl<T: Scalar> Field for T {
    fn write(&self, argv: &mut ArgvBuilder, spec: &FieldSpec) {
        write_one(self, argv, spec);
    }

    fn json(&self, _: &FieldSpec) -> Option<Value> {
        serde_json::to_value(self).ok()
    }

    fn is_path(&self) -> bool {
        T::IS_PATH
    }
}

impl<T: Scalar> Field for Option<T> {
    fn write(&self, argv: &mut ArgvBuilder, spec: &FieldSpec) {
        match (self, spec.arg) {
            (Some(v), _) => write_one(v, argv, spec),
            (None, Arg::Positional(name)) => argv.omit_positional(name),
            (None, _) => {}
        }
    }

    fn json(&self, _: &FieldSpec) -> Option<Value> {
        self.as_ref().and_then(|v| serde_json::to_value(v).ok())
    }

    fn is_path(&self) -> bool {
        T::IS_PATH
    }
}

impl<T: Scalar> Field for Vec<T> {
    fn write(&self, argv: &mut ArgvBuilder, spec: &FieldSpec) {
        if spec.required {
            let label = match spec.arg {
                Arg::Long(s) | Arg::Short(s) | Arg::Positional(s) | Arg::Flag(s) => s,
            };
            argv.require_values(label, self.len());
        }
        if let (true, Arg::Positional(name)) = (self.is_empty(), spec.arg) {
            argv.omit_positional(name);
        }
        for v in self {
            write_one(v, argv, spec);
        }
    }

    fn json(&self, spec: &FieldSpec) -> Option<Value> {
        if self.is_empty() && !spec.required {
            None
        } else {
            serde_json::to_value(self).ok()
        }
    }

    fn is_path(&self) -> bool {
        T::IS_PATH
    }
}

/// A command's argv after its program: global options, the subcommand `path`, the other
/// options, then the positionals (which [`ArgvBuilder`] keeps last).
pub fn write_fields(
    argv: &mut ArgvBuilder,
    path: &[&str],
    specs: &[FieldSpec],
    fields: &[&dyn Field],
) {
    for (spec, field) in specs.iter().zip(fields).filter(|(s, _)| s.global) {
        argv.parameter(spec.name, field.is_path());
        field.write(argv, spec);
    }
    argv.subcommand(path);
    for (spec, field) in specs.iter().zip(fields).filter(|(s, _)| !s.global) {
        argv.parameter(spec.name, field.is_path());
        field.write(argv, spec);
    }
}

/// A command as a JSON object of its present fields, by parameter name.
///
/// # Errors
///
/// The serializer's.
pub fn serialize_fields<S: serde::Serializer>(
    serializer: S,
    specs: &[FieldSpec],
    fields: &[&dyn Field],
) -> Result<S::Ok, S::Error> {
    let present: Vec<(&str, Value)> = specs
        .iter()
        .zip(fields)
        .filter_map(|(spec, field)| field.json(spec).map(|v| (spec.name, v)))
        .collect();
    let mut map = serializer.serialize_map(Some(present.len()))?;
    for (k, v) in &present {
        map.serialize_entry(k, v)?;
    }
    map.end()
}
