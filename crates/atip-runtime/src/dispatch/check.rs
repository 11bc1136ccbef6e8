//! Checking a tool call's arguments against a command's [`ToolSpec`]: every problem at once,
//! safe coercions only (see the [module documentation](super)).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::Problem;
use crate::tool::{ParamSpec, ToolSpec, ValueKind};

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
/// Generated commands implement [`Command::from_arguments`](crate::Command::from_arguments) with these getters; each getter converts one
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
        problems.extend(argv_problems(spec, &slots));
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

    /// The checked value of the spec's `i`-th parameter, if present (`null`s removed, coerced
    /// where safe), without taking it.
    pub(crate) fn value(&self, i: usize) -> Option<&Value> {
        self.slots.get(i).and_then(|(_, v)| v.as_deref())
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
/// Implemented for `bool`, the [`Scalar`](crate::fields::Scalar) values (strings, paths,
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

impl<T: crate::fields::Scalar> FromArgument for T {
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

impl<T: crate::fields::Scalar> FromArgument for Option<T> {
    fn unread() -> Self {
        None
    }

    fn from_argument(value: Option<&Value>) -> Result<Self, String> {
        value.map(T::from_json).transpose()
    }
}

impl<T: crate::fields::Scalar> FromArgument for Vec<T> {
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
                Value::String(s) if s.contains('\0') => {
                    return Err(Problem::Nul { param: label() })
                }
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

/// What would stop the argv from being built, found with the types so that one answer lists
/// every problem: a required list given empty, and a positional argument given after an
/// omitted one (it would land in the omitted one's slot).
fn argv_problems(spec: &ToolSpec, slots: &[(&str, Option<Cow<'_, Value>>)]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut omitted: Option<&str> = None;
    for (p, (_, value)) in spec.params.iter().zip(slots) {
        let empty_list = matches!(value.as_deref(), Some(Value::Array(items)) if items.is_empty());
        if p.required && p.multiple && empty_list {
            problems.push(Problem::Missing {
                param: p.name.to_string(),
                expected: format!("at least one value, {}", expected(p)),
            });
        }
        if !p.argv.is_argument() {
            continue;
        }
        let absent = value.is_none() || empty_list;
        match (absent, omitted) {
            // A required one left out is `Missing` already.
            (true, None) if !p.required => omitted = Some(p.name.as_ref()),
            (false, Some(before)) => problems.push(Problem::Argv {
                message: crate::argv::ArgvProblem::PositionalAfterOmitted {
                    param: format!("parameter `{}`", p.name),
                    omitted: format!("`{before}`"),
                }
                .to_string(),
            }),
            _ => {}
        }
    }
    problems
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
