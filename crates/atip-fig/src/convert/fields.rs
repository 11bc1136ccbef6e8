//! Reading Fig's JSON objects: names, usable flags and command names, argument labels and
//! types, defaults, and description texts with their suggestions and notes.

use serde_json::{json, Map, Value};

use crate::engine::FUNCTION_MARKER;

/// Suggested values listed in a description, at most.
pub(super) const MAX_SUGGESTIONS: usize = 12;

pub(super) fn is_true(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Bool(true)))
}

pub(super) fn list_of(v: Option<&Value>) -> Vec<&Value> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.iter().collect(),
        Some(other) => vec![other],
    }
}

pub(super) fn len_of(v: Option<&Value>) -> usize {
    list_of(v).len()
}

pub(super) fn all_names(v: Option<&Value>) -> Vec<String> {
    list_of(v)
        .into_iter()
        .filter_map(|n| n.as_str())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

pub(super) fn first_name(v: Option<&Value>) -> Option<String> {
    all_names(v).into_iter().next()
}

/// A subcommand name that goes into argv as one element. Names that look like flags stay
/// (`gpg --decrypt` is how gpg spells its commands); `-` and `--` alone do not.
pub(super) fn usable_command_name(name: &str) -> bool {
    !name.is_empty()
        && name != "-"
        && name != "--"
        && !name.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Whether the ATIP schema accepts `name` as a tool name (`^[a-zA-Z0-9_-]+$`).
pub fn is_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `-x`, `--name` or `-name`, without `=`, spaces or control characters.
pub(super) fn usable_flag(flag: &str) -> bool {
    flag.len() >= 2
        && flag.starts_with('-')
        && flag != "--"
        && !flag.starts_with("---")
        && !flag
            .chars()
            .any(|c| c == '=' || c.is_whitespace() || c.is_control())
}

pub(super) fn is_help(flags: &[String]) -> bool {
    flags
        .iter()
        .all(|f| matches!(f.as_str(), "-h" | "--help" | "-help" | "-?"))
}

pub(super) fn arg_label(a: &Map<String, Value>) -> String {
    let trimmed = written_label(a);
    if !trimmed.is_empty() {
        return readable(&trimmed);
    }
    if is_true(a.get("isCommand")) {
        "command".into()
    } else if is_true(a.get("isVariadic")) {
        "args".into()
    } else {
        "arg".into()
    }
}

/// ATIP type of a Fig argument: paths from `template`, otherwise a string.
pub(super) fn value_type(a: &Map<String, Value>) -> &'static str {
    let templates: Vec<&str> = list_of(a.get("template"))
        .into_iter()
        .filter_map(Value::as_str)
        .collect();
    let files = templates.contains(&"filepaths");
    let folders = templates.contains(&"folders");
    match (files, folders) {
        (true, _) => "file",
        (false, true) => "directory",
        _ => "string",
    }
}

pub(super) fn default_of(a: &Map<String, Value>) -> Option<Value> {
    match a.get("default") {
        Some(Value::String(s)) if s != FUNCTION_MARKER => Some(json!(s)),
        Some(v @ (Value::Number(_) | Value::Bool(_))) => Some(json!(v.to_string())),
        _ => None,
    }
}

pub(super) fn add_suggestions(text: &mut String, a: &Map<String, Value>) {
    let mut values: Vec<String> = Vec::new();
    for s in list_of(a.get("suggestions")) {
        let name = match s {
            Value::String(x) => Some(x.clone()),
            Value::Object(o) if !is_true(o.get("hidden")) => first_name(o.get("name")),
            _ => None,
        };
        if let Some(n) = name.filter(|n| !n.is_empty() && n != FUNCTION_MARKER) {
            if !values.contains(&n) {
                values.push(n);
            }
        }
    }
    if values.is_empty() {
        return;
    }
    let more = values.len() > MAX_SUGGESTIONS;
    values.truncate(MAX_SUGGESTIONS);
    let ends = text.ends_with(['.', '!', '?']);
    text.push_str(if ends { " " } else { ". " });
    text.push_str("Suggested values: ");
    text.push_str(&values.join(", "));
    text.push_str(if more { ", …" } else { "." });
}

pub(super) fn description(fig: &Map<String, Value>, fallback: &str) -> String {
    match fig
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
    {
        Some(d) if !d.is_empty() && d != FUNCTION_MARKER => d.to_owned(),
        _ => fallback.to_owned(),
    }
}

pub(super) fn with_note(text: &str, note: Option<&str>) -> String {
    match note {
        Some(n) => format!("{text} [{n}]"),
        None => text.to_owned(),
    }
}

/// An argument's Fig label as written, without the brackets, dots and quotes around it
/// (`<file...>` → `file`); empty when it has none.
pub(super) fn written_label(a: &Map<String, Value>) -> String {
    first_name(a.get("name"))
        .unwrap_or_default()
        .trim_matches(|c: char| {
            matches!(c, '<' | '>' | '[' | ']' | '.' | '\'' | '"') || c.is_whitespace()
        })
        .to_owned()
}

/// An argument's Fig label as a parameter name a model reads: the first of alternatives
/// (`TYPE | TYPE/NAME` → `type`), lower case when it was all capitals, and every run of other
/// characters than letters, digits, `-` and `_` one `_` (`LOCAL_PORT:REMOTE_PORT` →
/// `local_port_remote_port`, `commit or file` → `commit_or_file`).
pub(super) fn readable(label: &str) -> String {
    let first = label.split('|').next().unwrap_or(label).trim();
    let first = if first.is_empty() { label } else { first };
    let lower = if first.chars().any(char::is_lowercase) {
        first.to_owned()
    } else {
        first.to_lowercase()
    };
    let mut out = String::with_capacity(lower.len());
    for c in lower.chars() {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_');
    if out.is_empty() {
        label.to_owned()
    } else {
        out.to_owned()
    }
}
