//! Reading a document's JSON as the reference linter does: truthiness, the kebab-case and
//! duration patterns, an option's flags, and declared effects.

use atip_core::Effects;
use serde_json::Value;

/// Whether a value is "present" as the reference linter tests it (JavaScript truthiness for
/// the values JSON has).
pub(super) fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// `^[a-z][a-z0-9]*(-[a-z0-9]+)*$`.
pub(super) fn kebab(name: &str) -> bool {
    let mut parts = name.split('-');
    let first = parts.next().unwrap_or("");
    let lower_digit = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    first.starts_with(|c: char| c.is_ascii_lowercase())
        && first.chars().all(lower_digit)
        && parts.all(|p| !p.is_empty() && p.chars().all(lower_digit))
}

/// `^(\d+(-\d+)?[smh]|instant)$`.
pub(super) fn duration(s: &str) -> bool {
    if s == "instant" {
        return true;
    }
    let Some(body) = s.strip_suffix(['s', 'm', 'h']) else {
        return false;
    };
    let digits = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
    match body.split_once('-') {
        Some((a, b)) => digits(a) && digits(b),
        None => digits(body),
    }
}

/// The strings of an option's `flags`.
pub(super) fn flags_of(o: &Value) -> Vec<&str> {
    match o.get("flags") {
        Some(Value::Array(f)) => f.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A declared `effects` object, when it reads as one (wrong types are another rule's).
pub(super) fn parse_effects(v: Option<&Value>) -> Option<Effects> {
    v.and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// Whether some command (without subcommands) at or below `commands` ends up not declaring
/// `filesystem.write: true`, its effects merged from `above`.
pub(super) fn leaves_without_write(commands: Option<&Value>, above: &Effects) -> bool {
    let Some(Value::Object(commands)) = commands else {
        return above.filesystem_write() != Some(true);
    };
    if commands.is_empty() {
        return above.filesystem_write() != Some(true);
    }
    commands.values().any(|c| {
        let merged = match parse_effects(c.get("effects")) {
            Some(own) => above.merged_with(&own),
            None => above.clone(),
        };
        match c.get("commands") {
            Some(Value::Object(m)) if !m.is_empty() => {
                leaves_without_write(c.get("commands"), &merged)
            }
            _ => merged.filesystem_write() != Some(true),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kebab_and_duration_patterns() {
        assert!(kebab("list"));
        assert!(kebab("delete-item2"));
        assert!(kebab("a-1"));
        assert!(!kebab("listItems"));
        assert!(!kebab("create_item"));
        assert!(!kebab("-x"));
        assert!(!kebab("a--b"));
        assert!(!kebab("1a"));
        assert!(duration("5s") && duration("1-5s") && duration("2h") && duration("instant"));
        assert!(!duration("5") && !duration("s") && !duration("1-s") && !duration("5 s"));
    }
}
