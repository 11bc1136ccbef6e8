//! The validator's walk: where it is in the document (the JSON path), how violations are
//! reported (errors, warnings, violations demoted in lenient mode) and the checks every member
//! shares (types, strings, integers, unknown members).

use crate::diagnostic::{describe, list, quote};
use crate::formats::*;
use serde_json::{Map, Value};
use std::borrow::Cow;

use crate::diagnostic::{Diagnostic, JsonPath, PathSegment, Severity};

/// How strictly a document is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Every schema violation is an error. Used at build time and by `atip check`.
    #[default]
    Strict,
    /// For metadata loaded at run time: violations in optional descriptive members become
    /// warnings and those values are dropped; everything else stays an error.
    Lenient,
}

/// The schema a document is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Schema {
    V04,
    V06,
}

impl Schema {
    /// The schema a known version (`0.1`–`0.6`, [`is_known_version`]) selects: `0.1`–`0.4`
    /// the 0.4 schema, `0.5` and `0.6` the 0.6 schema.
    pub(super) fn of(version: &str) -> Schema {
        if version <= "0.4" {
            Schema::V04
        } else {
            Schema::V06
        }
    }

    /// The schema the root's `atip` member (spec §3.2.1: `"0.6"` or `{"version": "0.6"}`)
    /// declares, when it declares a known version.
    fn declared(atip: &Value) -> Option<Schema> {
        let version = match atip {
            Value::String(s) => s.as_str(),
            Value::Object(m) => m.get("version")?.as_str()?,
            _ => return None,
        };
        is_known_version(version).then(|| Schema::of(version))
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Schema::V04 => "0.4",
            Schema::V06 => "0.6",
        }
    }
}

pub(super) const FEATURES_04: &[&str] = &[
    "partial-discovery",
    "interactive-effects",
    "trust-v1",
    "patterns-v1",
];
pub(super) const FEATURES_06: &[&str] = &[
    "partial-discovery",
    "interactive-effects",
    "trust-v1",
    "trust-integrity",
    "trust-provenance",
    "patterns-v1",
    "content-addressable",
];
pub(super) const PARAM_TYPES: &[&str] = &[
    "string",
    "integer",
    "number",
    "boolean",
    "file",
    "directory",
    "url",
    "enum",
    "array",
];

/// Validation of a document against its schema, one node at a time, so that a large document
/// never needs to be held as one [`Value`]: the root and each command are checked with their
/// `commands` member replaced by an empty object, their subcommands one by one on their own
/// (the loader reads them in whatever order the text gives, and orders the diagnostics).
/// Values are checked in place: in lenient mode dropped values are removed, and integral
/// floats in integer members are normalised to integers in both modes.
pub(crate) struct Validation {
    v: Validator,
}

impl Validation {
    pub(crate) fn new(mode: Mode) -> Self {
        Validation {
            v: Validator {
                mode,
                schema: Schema::V06,
                path: Vec::new(),
                diags: Vec::new(),
                demote: 0,
                violations: 0,
                demoted: Vec::new(),
            },
        }
    }

    /// A validation in the same mode and schema as this one, with nothing found yet: for
    /// subcommands checked on another thread, whose findings are [`Self::append`]ed after.
    pub(crate) fn fork(&self) -> Self {
        let mut fork = Validation::new(self.v.mode);
        fork.v.schema = self.v.schema;
        fork
    }

    /// Checks the root; it also selects the schema from the declared version (the newest
    /// when the version is not one this library knows), whatever was selected before.
    pub(crate) fn root(&mut self, root: &mut Value) {
        self.v.schema = Schema::V06;
        self.v.root(root);
    }

    /// Checks the command at `$.commands.<names[0]>.commands.<names[1]>…`.
    pub(crate) fn command(&mut self, names: &[String], value: &mut Value) {
        let depth = self.v.path.len();
        for name in names {
            self.v.path.push(Step::Key(Cow::Borrowed("commands")));
            self.v.path.push(Step::Key(Cow::Owned(name.clone())));
        }
        self.v.command(value);
        self.v.path.truncate(depth);
    }

    /// Selects the schema from the root's `atip` member without checking it ([`Self::root`]
    /// checks it): for subcommands read before the rest of the root. An unknown version
    /// selects the newest schema, as [`Self::root`] does.
    pub(crate) fn select_schema(&mut self, atip: &Value) {
        self.v.schema = Schema::declared(atip).unwrap_or(Schema::V06);
    }

    /// The schema checks use now, by its version (`"0.4"`, `"0.6"`).
    pub(crate) fn schema_name(&self) -> &'static str {
        self.v.schema.name()
    }

    /// Where the diagnostics of the next node begin: how many were reported so far.
    pub(crate) fn mark(&self) -> usize {
        self.v.diags.len()
    }

    /// Whether an error was reported since `mark`.
    pub(crate) fn has_errors_since(&self, mark: usize) -> bool {
        self.v.diags[mark.min(self.v.diags.len())..]
            .iter()
            .any(Diagnostic::is_error)
    }

    /// Takes out the diagnostics reported since `mark`, in order.
    pub(crate) fn take_since(&mut self, mark: usize) -> Vec<Diagnostic> {
        self.v.diags.split_off(mark.min(self.v.diags.len()))
    }

    /// Appends diagnostics taken out earlier ([`Self::take_since`]): a subcommand's, read
    /// before its parent was checked, placed after the parent's own.
    pub(crate) fn append(&mut self, diagnostics: Vec<Diagnostic>) {
        self.v.diags.extend(diagnostics);
    }

    /// Reports an internal error at the root.
    pub(crate) fn bug(&mut self, message: String) {
        self.v
            .diags
            .push(Diagnostic::error(JsonPath::root(), message));
    }

    pub(crate) fn finish(self) -> Vec<Diagnostic> {
        self.v.diags
    }
}

/// One step of the path being checked; a schema's member name is not copied.
pub(super) enum Step {
    Key(Cow<'static, str>),
    Index(usize),
}

pub(super) struct Validator {
    pub(super) mode: Mode,
    pub(super) schema: Schema,
    /// Where the check is: the path of a report, built only when one is made.
    pub(super) path: Vec<Step>,
    pub(super) diags: Vec<Diagnostic>,
    /// Non-zero while checking a value whose violations are warnings (see `soft`).
    pub(super) demote: u32,
    /// Schema violations found so far, demoted or not.
    pub(super) violations: usize,
    /// Indices into `diags` of violations reported as warnings because of `soft`.
    pub(super) demoted: Vec<usize>,
}

/// A string rule from the schema.
#[derive(Clone, Copy)]
pub(super) enum Str {
    Any,
    Pattern(fn(&str) -> bool, &'static str),
    OneOf(&'static [&'static str]),
    Uri,
    DateTime,
}

impl Validator {
    // ----- reporting -------------------------------------------------------------------

    pub(super) fn here(&self) -> JsonPath {
        JsonPath(
            self.path
                .iter()
                .map(|step| match step {
                    Step::Key(key) => PathSegment::Key(key.to_string()),
                    Step::Index(i) => PathSegment::Index(*i),
                })
                .collect(),
        )
    }

    pub(super) fn report(&mut self, severity: Severity, message: String) {
        let severity = if self.demote > 0 && severity == Severity::Error {
            self.demoted.push(self.diags.len());
            Severity::Warning
        } else {
            severity
        };
        self.diags.push(Diagnostic {
            severity,
            path: self.here(),
            message,
            location: None,
        });
    }

    pub(super) fn error(&mut self, message: impl Into<String>) {
        self.violations += 1;
        self.report(Severity::Error, message.into());
    }

    pub(super) fn warn(&mut self, message: impl Into<String>) {
        self.report(Severity::Warning, message.into());
    }

    /// Runs `f` at member `key` of the current object: a name of the schema (`description`),
    /// which costs nothing to step into.
    pub(super) fn in_key<R>(&mut self, key: &'static str, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(Step::Key(Cow::Borrowed(key)));
        let r = f(self);
        self.path.pop();
        r
    }

    /// [`Validator::in_key`] for a name the document chose (a command's, a variable's).
    pub(super) fn in_name<R>(&mut self, key: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(Step::Key(Cow::Owned(key.to_owned())));
        let r = f(self);
        self.path.pop();
        r
    }

    pub(super) fn in_index<R>(&mut self, i: usize, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(Step::Index(i));
        let r = f(self);
        self.path.pop();
        r
    }

    /// Runs `check` with its violations reported as warnings ending in `note`; returns whether
    /// it found any. The caller drops the value when it did.
    pub(super) fn soft(&mut self, note: &str, check: impl FnOnce(&mut Self)) -> bool {
        let violations = self.violations;
        let demoted = self.demoted.len();
        self.demote += 1;
        check(self);
        self.demote -= 1;
        for &i in &self.demoted[demoted..] {
            let message = &mut self.diags[i].message;
            if !message.ends_with(note) {
                message.push_str(note);
            }
        }
        self.violations > violations
    }

    // ----- generic member checks -----------------------------------------------------

    /// Reports missing required members at the object's own path.
    pub(super) fn require(&mut self, m: &Map<String, Value>, keys: &[(&str, &str)]) {
        for (key, what) in keys {
            if find(m, key).is_none() {
                self.error(format!("missing required field `{key}` (expected {what})"));
            }
        }
    }

    /// Warns about members not in `known`, ignoring `x-`, `_` and `$` prefixes.
    pub(super) fn unknown_members(&mut self, m: &Map<String, Value>, known: &[&str]) {
        for key in m.keys() {
            if known.contains(&key.as_str()) || is_extension(key) {
                continue;
            }
            self.in_name(key, |v| v.warn(format!("unknown field `{key}` is ignored")));
        }
    }

    /// A member that belongs to another schema version: warned about, used if well-formed.
    pub(super) fn foreign(
        &mut self,
        m: &mut Map<String, Value>,
        key: &'static str,
        added: &str,
        check: impl FnOnce(&mut Self, &mut Value),
    ) {
        let Some(value) = find_mut(m, key) else {
            return;
        };
        let declared = self.schema.name();
        let bad = self.in_key(key, |v| {
            v.warn(format!(
                "`{key}` is not part of the ATIP {declared} schema this document declares \
                 ({added}); it is used anyway"
            ));
            v.soft(" (value ignored)", |v| check(v, value))
        });
        if bad {
            m.remove(key);
        }
    }

    /// A descriptive member: checked normally in strict mode; in lenient mode, violations are
    /// warnings and the member is dropped.
    pub(super) fn descriptive(
        &mut self,
        m: &mut Map<String, Value>,
        key: &'static str,
        check: impl FnOnce(&mut Self, &mut Value),
    ) {
        let Some(value) = find_mut(m, key) else {
            return;
        };
        if self.mode == Mode::Strict {
            self.in_key(key, |v| check(v, value));
            return;
        }
        let bad = self.in_key(key, |v| v.soft(" (value ignored)", |v| check(v, value)));
        if bad {
            m.remove(key);
        }
    }

    pub(super) fn member(
        &mut self,
        m: &mut Map<String, Value>,
        key: &'static str,
        check: impl FnOnce(&mut Self, &mut Value),
    ) {
        if let Some(value) = find_mut(m, key) {
            self.in_key(key, |v| check(v, value));
        }
    }

    // ----- value checks ----------------------------------------------------------------

    pub(super) fn object<'v>(
        &mut self,
        value: &'v mut Value,
    ) -> Option<&'v mut Map<String, Value>> {
        match value {
            Value::Object(m) => Some(m),
            other => {
                self.error(format!("expected an object, found {}", describe(other)));
                None
            }
        }
    }

    pub(super) fn array<'v>(&mut self, value: &'v mut Value) -> Option<&'v mut Vec<Value>> {
        match value {
            Value::Array(a) => Some(a),
            other => {
                self.error(format!("expected an array, found {}", describe(other)));
                None
            }
        }
    }

    pub(super) fn boolean(&mut self, value: &mut Value) {
        if !value.is_boolean() {
            self.error(format!("expected a boolean, found {}", describe(value)));
        }
    }

    pub(super) fn string(&mut self, value: &mut Value, rule: Str) {
        let Value::String(s) = value else {
            self.error(format!("expected a string, found {}", describe(value)));
            return;
        };
        match rule {
            Str::Any => {}
            Str::Pattern(matches, pattern) => {
                if !matches(s) {
                    self.error(format!(
                        "expected a string matching `{pattern}`, found {}",
                        quote(s)
                    ));
                }
            }
            Str::OneOf(allowed) => {
                if !allowed.contains(&s.as_str()) {
                    self.error(format!(
                        "expected one of {}, found {}",
                        list(allowed),
                        quote(s)
                    ));
                }
            }
            Str::Uri => {
                if !is_uri(s) {
                    self.error(format!(
                        "expected an absolute URI (`scheme:…`), found {}",
                        quote(s)
                    ));
                }
            }
            Str::DateTime => {
                if !is_date_time(s) {
                    self.error(format!(
                        "expected an RFC 3339 date-time such as \"2026-01-15T00:00:00Z\", found {}",
                        quote(s)
                    ));
                }
            }
        }
    }

    /// JSON Schema `integer` with optional bounds. Integral floats (`3.0`) are integers for
    /// JSON Schema; they are rewritten as integers so the typed model accepts them.
    pub(super) fn integer(&mut self, value: &mut Value, min: Option<i64>, max: Option<i64>) {
        let n = match value {
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Some(i as i128)
                } else if let Some(u) = n.as_u64() {
                    Some(u as i128)
                } else {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                        .map(|f| f as i128)
                }
            }
            _ => None,
        };
        let Some(n) = n else {
            self.error(format!("expected an integer, found {}", describe(value)));
            return;
        };
        if value.as_f64().is_some() && !value.is_i64() && !value.is_u64() {
            *value = Value::from(n as i64);
        }
        if let Some(min) = min {
            if n < min as i128 {
                self.error(format!("expected an integer >= {min}, found {n}"));
            }
        }
        if let Some(max) = max {
            if n > max as i128 {
                self.error(format!("expected an integer <= {max}, found {n}"));
            }
        }
    }

    pub(super) fn string_array(&mut self, value: &mut Value, rule: Str) {
        if let Some(items) = self.array(value) {
            for (i, item) in items.iter_mut().enumerate() {
                self.in_index(i, |v| v.string(item, rule));
            }
        }
    }

    /// A descriptive array member: in lenient mode, invalid items are dropped one by one, and
    /// the member itself when it is not an array.
    pub(super) fn descriptive_list(
        &mut self,
        m: &mut Map<String, Value>,
        key: &'static str,
        check: impl Fn(&mut Self, &mut Value),
    ) {
        let Some(value) = find_mut(m, key) else {
            return;
        };
        let lenient = self.mode == Mode::Lenient;
        let drop_all = self.in_key(key, |v| {
            if lenient && !value.is_array() {
                return v.soft(" (value ignored)", |v| {
                    v.array(value);
                });
            }
            let Some(items) = v.array(value) else {
                return false;
            };
            let mut keep = Vec::with_capacity(items.len());
            for (i, item) in items.iter_mut().enumerate() {
                let bad = if lenient {
                    v.in_index(i, |v| v.soft(" (item ignored)", |v| check(v, item)))
                } else {
                    v.in_index(i, |v| check(v, item));
                    false
                };
                keep.push(!bad);
            }
            let mut flags = keep.into_iter();
            items.retain(|_| flags.next().unwrap_or(true));
            false
        });
        if drop_all {
            m.remove(key);
        }
    }

    // ----- the document ----------------------------------------------------------------
}

/// Up to this many members an object's member is found by comparing names in order, which
/// costs less than hashing the name (serde_json's maps hash with SipHash): the document's
/// objects are small (an option has a handful of members) and each rule asks for every member
/// it knows, most of them absent.
const SCAN_MEMBERS: usize = 16;

/// The member `key` of `m` ([`SCAN_MEMBERS`]).
fn find<'m>(m: &'m Map<String, Value>, key: &str) -> Option<&'m Value> {
    if m.len() <= SCAN_MEMBERS {
        m.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        m.get(key)
    }
}

/// [`find`], to change the member in place.
pub(super) fn find_mut<'m>(m: &'m mut Map<String, Value>, key: &str) -> Option<&'m mut Value> {
    if m.len() <= SCAN_MEMBERS {
        m.iter_mut().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        m.get_mut(key)
    }
}

fn is_extension(key: &str) -> bool {
    key.starts_with("x-") || key.starts_with('_') || key.starts_with('$')
}
