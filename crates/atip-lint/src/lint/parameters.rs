//! Rules of arguments and options: required fields, enumerations with values, kebab-case
//! names, and flags used twice (within an option, among options, against global options).

use atip_core::diagnostic::JsonPath;
use serde_json::{Map, Value};

use super::linter::Linter;
use super::rules::Severity;
use super::values::{flags_of, kebab, truthy};

impl<'a> Linter<'a> {
    pub(super) fn argument(&mut self, a: &Value, at: JsonPath) {
        let Some(m) = a.as_object() else { return };
        for field in ["name", "type", "description"] {
            if !m.get(field).is_some_and(truthy) {
                self.report(
                    "no-missing-required-fields",
                    at.key(field),
                    format!("Argument is missing required field: {field}"),
                );
            }
        }
        self.enum_list(m, &at);
        if let Some(d) = m.get("description").filter(|d| truthy(d)) {
            self.description(Some(d), at.key("description"));
        }
    }

    pub(super) fn option(&mut self, o: &Value, at: JsonPath) {
        let Some(m) = o.as_object() else { return };
        for field in ["name", "flags", "type", "description"] {
            if !m.get(field).is_some_and(truthy) {
                self.report(
                    "no-missing-required-fields",
                    at.key(field),
                    format!("Option is missing required field: {field}"),
                );
            }
        }
        self.enum_list(m, &at);
        if let Some(Value::String(name)) = m.get("name") {
            if !name.is_empty() && !kebab(name) {
                let message = if name.chars().any(|ch| ch.is_ascii_uppercase()) {
                    "option naming should follow kebab-case convention (contains uppercase)"
                } else {
                    "option naming should follow kebab-case convention"
                };
                self.report("consistent-naming", at.key("name"), message);
            }
        }
        if let Some(d) = m.get("description").filter(|d| truthy(d)) {
            self.description(Some(d), at.key("description"));
        }
    }

    pub(super) fn enum_list(&mut self, m: &Map<String, Value>, at: &JsonPath) {
        if m.get("type").and_then(Value::as_str) == Some("enum")
            && !m.get("enum").is_some_and(truthy)
        {
            self.report(
                "no-missing-required-fields",
                at.key("enum"),
                "Enum type is missing required field: enum",
            );
        }
    }

    pub(super) fn global_duplicates(&mut self, globals: &'a [Value], at: &JsonPath) {
        let mut seen: Vec<(&str, usize)> = Vec::new();
        for (i, o) in globals.iter().enumerate() {
            let flags = flags_of(o);
            let p = at.index(i).key("flags");
            let mut within: Vec<&str> = Vec::new();
            for f in &flags {
                if within.contains(f) {
                    self.report(
                        "no-duplicate-flags",
                        p.clone(),
                        format!("duplicate flag \"{f}\" within global option"),
                    );
                }
                within.push(f);
                self.global_flags.push(f);
            }
            for f in flags {
                match seen.iter().find(|(s, _)| *s == f) {
                    Some((_, first)) => self.report(
                        "no-duplicate-flags",
                        p.clone(),
                        format!(
                            "duplicate flag \"{f}\" already used by global option at index {first}"
                        ),
                    ),
                    None => seen.push((f, i)),
                }
            }
        }
    }

    pub(super) fn command_duplicates(&mut self, options: &'a [Value], at: &JsonPath) {
        let mut seen: Vec<(&str, usize)> = Vec::new();
        for (i, o) in options.iter().enumerate() {
            let flags = flags_of(o);
            let p = at.index(i).key("flags");
            let mut within: Vec<&str> = Vec::new();
            let mut twice = false;
            for f in &flags {
                if within.contains(f) {
                    self.report(
                        "no-duplicate-flags",
                        p.clone(),
                        format!("duplicate flag \"{f}\" within option"),
                    );
                    twice = true;
                }
                within.push(f);
            }
            if twice {
                continue;
            }
            // A global option goes before the command path and the command's own after it, so
            // the argv is never ambiguous: a warning for the reader, as `atip check` accepts it.
            for f in &flags {
                if self.global_flags.contains(f) {
                    self.report_as(
                        "no-duplicate-flags",
                        Severity::Warn,
                        p.clone(),
                        format!(
                            "Flag \"{f}\" is also a global option's (the global one goes \
                             before the command, this one after it)"
                        ),
                    );
                }
            }
            for f in flags {
                match seen.iter().find(|(s, _)| *s == f) {
                    Some((_, first)) => self.report(
                        "no-duplicate-flags",
                        p.clone(),
                        format!("duplicate flag \"{f}\" already used by option at index {first}"),
                    ),
                    None => seen.push((f, i)),
                }
            }
        }
    }
}
