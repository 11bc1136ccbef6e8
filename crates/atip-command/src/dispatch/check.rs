//! Checking a tool call's arguments against a command's [`ToolSpec`]: every problem at once,
//! safe coercions only (see the [module documentation](super)).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::call::Problem;
use atip_core::tool::{ParamSpec, ToolSpec, ValueKind};

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
    let checked = Arguments::check(spec, args)?;
    Ok(checked
        .params
        .iter()
        .zip(checked.slots)
        .filter_map(|(p, value)| Some((p.name.to_string(), value?.into_owned())))
        .collect())
}

/// Arguments that passed [`check_arguments`], read field by field into a typed command.
///
/// Generated commands implement [`Command::from_arguments`](crate::contract::Command::from_arguments) with these getters; each getter converts one
/// already checked value, so a failure means the command and its spec (`Command::tool`) disagree. Names
/// and values are borrowed (from the spec and the tool call) unless a coercion changed a
/// value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments<'a> {
    /// The spec's parameters.
    params: &'a [ParamSpec],
    /// One slot per parameter, in the same order: the value, if present.
    slots: Slots<'a>,
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
        let mut slots = empty_slots(spec);
        for (key, value) in args {
            match position(spec, key) {
                Some(i) => slots[i] = Some(Cow::Borrowed(value)),
                None => problems.push(Problem::UnknownParameter { param: key.clone() }),
            }
        }
        Self::checked(spec, slots, problems)
    }

    /// Reads the arguments straight from the provider's JSON text into the spec's slots — no
    /// intermediate map, keys matched without copying them, each value parsed once — then
    /// checks them exactly as [`Arguments::check`] does.
    ///
    /// `None` when the text is not a usable object (invalid JSON, not an object), names a
    /// parameter the spec lacks, or any check fails: the caller then takes the path through
    /// [`ToolCall`](super::ToolCall) and [`Arguments::check`] once more, which words the
    /// error. So this path only ever *succeeds* faster; its errors are the other path's.
    pub(crate) fn from_json_text(spec: &'a ToolSpec, text: &str) -> Option<Self> {
        let mut slots = empty_slots(spec);
        if !text.trim().is_empty() {
            let mut de = serde_json::Deserializer::from_str(text);
            serde::Deserializer::deserialize_map(
                &mut de,
                SlotsVisitor {
                    spec,
                    slots: &mut slots,
                },
            )
            .ok()?;
            de.end().ok()?;
        }
        Self::checked(spec, slots, Vec::new()).ok()
    }

    /// The second half of a check: each present value against its parameter, required ones
    /// present, the argv buildable.
    fn checked(
        spec: &'a ToolSpec,
        mut slots: Slots<'a>,
        mut problems: Vec<Problem>,
    ) -> Result<Self, Vec<Problem>> {
        // Whether the argv as a whole has a problem (a required list given empty, a positional
        // argument after an omitted one): rare, so only noted here and worded below, after
        // the problems of single values.
        let mut argv_problem = false;
        let mut omitted = false;
        for (p, slot) in spec.params.iter().zip(slots.iter_mut()) {
            match slot.as_deref() {
                // The common cases, decided in place: absent and optional, or already a value
                // of the parameter's kind.
                None if !p.required => {}
                Some(v) if in_normal_form(p, v) => {}
                _ => check_slot(p, slot, &mut problems),
            }
            let empty_list =
                matches!(slot.as_deref(), Some(Value::Array(items)) if items.is_empty());
            argv_problem |= p.required && p.multiple && empty_list;
            if p.argv.is_argument() {
                let absent = slot.is_none() || empty_list;
                argv_problem |= omitted && !absent;
                omitted |= absent && !p.required;
            }
        }
        if argv_problem {
            problems.extend(argv_problems(spec, &slots));
        }
        if problems.is_empty() {
            Ok(Arguments {
                params: &spec.params,
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
        self.slots.get(i).and_then(|v| v.as_deref())
    }

    /// The slot of the parameter called `name`, read once: a field takes what it needs out of
    /// it in place (a `Value` is 72 bytes; moving one out per field was most of a field's cost).
    #[inline]
    fn slot(&mut self, name: &str) -> Option<&mut Option<Cow<'a, Value>>> {
        let i = match self.params.get(self.next) {
            // Generated code names the fields with the same literals as its parameter table,
            // which the compiler usually merges: then a pointer comparison settles it.
            Some(p) if is_named(p, name) => self.next,
            _ => self.params.iter().position(|p| is_named(p, name))?,
        };
        self.next = i + 1;
        self.slots.get_mut(i)
    }

    /// The field called `name`, converted to the field's type: absent is `false` for a flag,
    /// `None` for an option, empty for a list. A problem (a required value absent, a value
    /// that does not convert) is kept for [`Arguments::finish`], whose error then discards the
    /// command, and [`FromArgument::unread`] is returned so that generated code builds the
    /// command in one expression.
    #[inline]
    pub fn field<T: FromArgument>(&mut self, name: &str) -> T {
        let read = match self.slot(name) {
            Some(slot) => T::from_slot(slot),
            None => T::from_argument(None),
        };
        match read {
            Ok(v) => v,
            Err(e) => {
                self.problems.push(format!("parameter `{name}`: {e}"));
                T::unread()
            }
        }
    }

    /// Whether every field read so far converted ([`Arguments::field`]): after
    /// [`Command::from_arguments`](crate::contract::Command::from_arguments), the command it built is
    /// good exactly when this is `Ok`.
    ///
    /// # Errors
    ///
    /// Every problem met reading fields, joined by `; `.
    pub fn finish(&self) -> Result<(), String> {
        if self.problems.is_empty() {
            Ok(())
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

    /// Converts the value in a checked slot, which is dropped afterwards: text is taken out
    /// of an owned value (read from the arguments' text or coerced) instead of copied.
    ///
    /// # Errors
    ///
    /// As [`FromArgument::from_argument`].
    fn from_slot(slot: &mut Option<Cow<'_, Value>>) -> Result<Self, String> {
        Self::from_argument(slot.as_deref())
    }

    /// The value a field holds while its argument could not be read; never observed, since
    /// [`Arguments::finish`] then reports the problem and the command is discarded.
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
                atip_core::diagnostic::describe(other)
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

    fn from_slot(slot: &mut Option<Cow<'_, Value>>) -> Result<Self, String> {
        match slot {
            None => Err("is required".to_owned()),
            Some(v) => scalar(v),
        }
    }
}

/// A scalar from a checked value, its text taken out when owned.
fn scalar<T: crate::fields::Scalar>(value: &mut Cow<'_, Value>) -> Result<T, String> {
    match value {
        Cow::Borrowed(v) => T::from_json(v),
        Cow::Owned(v) => T::take_json(v),
    }
}

impl<T: crate::fields::Scalar> FromArgument for Option<T> {
    fn unread() -> Self {
        None
    }

    fn from_argument(value: Option<&Value>) -> Result<Self, String> {
        value.map(T::from_json).transpose()
    }

    fn from_slot(slot: &mut Option<Cow<'_, Value>>) -> Result<Self, String> {
        slot.as_mut().map(scalar).transpose()
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
                atip_core::diagnostic::describe(other)
            )),
        }
    }

    fn from_slot(slot: &mut Option<Cow<'_, Value>>) -> Result<Self, String> {
        match slot {
            Some(Cow::Owned(Value::Array(items))) => items.iter_mut().map(T::take_json).collect(),
            other => Self::from_argument(other.as_deref()),
        }
    }
}

/// One slot per parameter of a spec, in its order: the value, if present.
type Slots<'a> = Vec<Option<Cow<'a, Value>>>;

fn empty_slots<'a>(spec: &ToolSpec) -> Slots<'a> {
    std::iter::repeat_with(|| None)
        .take(spec.params.len())
        .collect()
}

/// The index of the parameter called `key`: a few short comparisons cost less than hashing
/// every parameter name.
fn position(spec: &ToolSpec, key: &str) -> Option<usize> {
    spec.params.iter().position(|p| is_named(p, key))
}

/// Whether `p` is called `name`. Parameter names are short, and most candidates differ in
/// length; comparing the bytes in place beats calling `memcmp` for each.
#[inline]
fn is_named(p: &ParamSpec, name: &str) -> bool {
    let own = p.name.as_bytes();
    own.len() == name.len()
        && (std::ptr::eq(own, name.as_bytes())
            || own.iter().zip(name.as_bytes()).all(|(a, b)| a == b))
}

fn missing(p: &ParamSpec) -> Problem {
    Problem::Missing {
        param: p.name.to_string(),
        expected: expected(p),
    }
}

/// Checks the value in one slot in place (the slots are large and most values stay as they
/// are): `null` becomes absent, a coerced value replaces the original, a value with a
/// problem is dropped and the problem recorded; an absent required value is a problem.
fn check_slot(p: &ParamSpec, slot: &mut Option<Cow<'_, Value>>, problems: &mut Vec<Problem>) {
    let Some(v) = slot.as_deref() else {
        if p.required {
            problems.push(missing(p));
        }
        return;
    };
    if in_normal_form(p, v) {
        return;
    }
    let replacement = match v {
        Value::Null => {
            if p.required {
                problems.push(missing(p));
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
            match coerced {
                Some(c) => Some(Value::Array(c)),
                None => return,
            }
        }
        other if p.multiple => {
            problems.push(Problem::WrongType {
                param: p.name.to_string(),
                expected: expected(p),
                found: atip_core::diagnostic::describe(other),
            });
            None
        }
        v => match check_value(p, v, || p.name.to_string()) {
            Ok(Cow::Borrowed(_)) => return,
            Ok(Cow::Owned(v)) => Some(v),
            Err(e) => {
                problems.push(e);
                None
            }
        },
    };
    *slot = replacement.map(Cow::Owned);
}

/// Whether `v` is already what `p` takes, with nothing to coerce or report: the common case,
/// decided without building [`check_value`]'s result.
fn in_normal_form(p: &ParamSpec, v: &Value) -> bool {
    if p.values.is_some() || p.multiple {
        return false;
    }
    match (p.kind, v) {
        (ValueKind::Boolean, Value::Bool(_)) => true,
        (ValueKind::String | ValueKind::File | ValueKind::Directory, Value::String(s)) => {
            !s.contains('\0')
        }
        _ => false,
    }
}

/// Fills the slots of [`Arguments::from_json_text`] from a JSON object; fails on anything
/// else and on a key that names no parameter.
struct SlotsVisitor<'s, 'a> {
    spec: &'a ToolSpec,
    slots: &'s mut Slots<'a>,
}

impl<'de> serde::de::Visitor<'de> for SlotsVisitor<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object of arguments")
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        while let Some(i) = map.next_key_seed(KeySeed(self.spec))? {
            // A repeated key keeps its last value, as a parsed map would.
            map.next_value_seed(SlotSeed(&mut self.slots[i]))?;
        }
        Ok(())
    }
}

/// Reads one argument's value into its slot in place: the value `serde_json::Value`'s own
/// `Deserialize` builds, written where it is kept instead of returned and moved there (a
/// `Value` is 72 bytes, and moving one per argument was a fifth of reading the text).
struct SlotSeed<'s, 'a>(&'s mut Option<Cow<'a, Value>>);

impl SlotSeed<'_, '_> {
    fn put<E>(self, value: Value) -> Result<(), E> {
        *self.0 = Some(Cow::Owned(value));
        Ok(())
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for SlotSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for SlotSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<(), E> {
        self.put(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<(), E> {
        self.put(Value::from(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<(), E> {
        self.put(Value::from(n))
    }

    fn visit_f64<E>(self, n: f64) -> Result<(), E> {
        // As `Value`: a float JSON cannot hold is `null`.
        self.put(Value::from(n))
    }

    fn visit_str<E>(self, s: &str) -> Result<(), E> {
        self.put(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<(), E> {
        self.put(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.put(Value::Null)
    }

    fn visit_none<E>(self) -> Result<(), E> {
        self.put(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        let value = serde::Deserialize::deserialize(de)?;
        self.put(value)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        let value =
            serde::Deserialize::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
        self.put(value)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let value =
            serde::Deserialize::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        self.put(value)
    }
}

/// A key, read as the index of the parameter it names, without copying it.
struct KeySeed<'a>(&'a ToolSpec);

impl<'de> serde::de::DeserializeSeed<'de> for KeySeed<'_> {
    type Value = usize;

    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<usize, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeySeed<'_> {
    type Value = usize;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a parameter name")
    }

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<usize, E> {
        position(self.0, key).ok_or_else(|| E::custom("unknown parameter"))
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
            found: atip_core::diagnostic::describe(v),
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
                && !atip_core::formats::is_uri(value.as_str().unwrap_or_default())
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
                found: atip_core::diagnostic::describe(v),
            });
        }
    }
    Ok(value)
}

/// What would stop the argv from being built, found with the types so that one answer lists
/// every problem: a required list given empty, and a positional argument given after an
/// omitted one (it would land in the omitted one's slot).
fn argv_problems(spec: &ToolSpec, slots: &[Option<Cow<'_, Value>>]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut omitted: Option<&str> = None;
    for (p, value) in spec.params.iter().zip(slots) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A value read into a slot is the value `serde_json::Value` reads from the same text.
    #[test]
    fn a_slot_holds_what_value_reads() {
        for text in [
            "true",
            "false",
            "null",
            "0",
            "-12",
            "18446744073709551615",
            "-9223372036854775808",
            "1.5",
            "-0.0",
            "1e300",
            r#""plain""#,
            r#""esc\"aped\n\u00e9\ud83d\ude00""#,
            "[]",
            r#"[1, "two", [null], {"k": false}]"#,
            r#"{"b": 1, "a": {"c": [true]}, "b": 2}"#,
        ] {
            let expected: Value = serde_json::from_str(text).unwrap();
            let mut slot = None;
            let mut de = serde_json::Deserializer::from_str(text);
            serde::de::DeserializeSeed::deserialize(SlotSeed(&mut slot), &mut de).unwrap();
            de.end().unwrap();
            assert_eq!(slot, Some(Cow::Owned(expected.clone())), "{text}");
            // Object members keep their order (and a repeated key its first place).
            if let (Some(Cow::Owned(Value::Object(got))), Value::Object(want)) = (&slot, &expected)
            {
                assert!(got.keys().eq(want.keys()), "{text}");
            }
        }
    }

    /// Reading a field takes the text out of its slot: an owned string is moved, not copied.
    #[test]
    fn a_string_field_is_taken_from_its_slot() {
        let spec = ToolSpec {
            name: Cow::Borrowed("t"),
            title: Cow::Borrowed("t"),
            path: Cow::Borrowed(&[]),
            description: Cow::Borrowed(""),
            effects: atip_core::Effects::UNKNOWN,
            params: Cow::Owned(vec![ParamSpec::option(
                "name",
                "",
                ValueKind::String,
                "--name",
            )]),
        };
        let mut args = Arguments::from_json_text(&spec, r#"{"name": "ada"}"#).unwrap();
        let before = match args.slots[0].as_deref() {
            Some(Value::String(s)) => s.as_ptr(),
            other => panic!("{other:?}"),
        };
        let name: String = args.field("name");
        assert_eq!(name, "ada");
        assert_eq!(name.as_ptr(), before, "the string was moved, not copied");
        assert_eq!(args.finish(), Ok(()));
    }
}
