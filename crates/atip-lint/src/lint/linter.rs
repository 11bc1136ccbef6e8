//! The linter's walk over one document (the tool, its global options, every command at any
//! depth) and the rules of a command as a whole: naming, description present, effects
//! declared and not overridden by the merge, positional arguments in a fillable order.

use atip_core::diagnostic::JsonPath;
use atip_core::Effects;
use serde_json::{Map, Value};

use super::finding::Finding;
use super::rules::{rule, Severity};
use super::values::{kebab, leaves_without_write, parse_effects, truthy};

/// One document being linted: the findings so far, the tool's name and its global flags.
pub(super) struct Linter<'a> {
    pub(super) findings: Vec<Finding>,
    pub(super) tool: &'a str,
    pub(super) global_flags: Vec<&'a str>,
    /// The top-level command being walked (`None` at the root, for global options).
    pub(super) top: Option<&'a str>,
}

impl<'a> Linter<'a> {
    pub(super) fn report(&mut self, id: &str, path: JsonPath, message: impl Into<String>) {
        let r = rule(id);
        self.findings.push(Finding {
            rule: r.id,
            severity: r.severity,
            path,
            message: message.into(),
            location: None,
        });
    }

    pub(super) fn report_as(
        &mut self,
        id: &str,
        severity: Severity,
        path: JsonPath,
        message: String,
    ) {
        self.report(id, path, message);
        if let Some(last) = self.findings.last_mut() {
            last.severity = severity;
        }
    }

    pub(super) fn root(&mut self, root: &'a Map<String, Value>) {
        let at = JsonPath::root();
        self.description(root.get("description"), at.key("description"));
        self.trust(root);
        let tool_effects = root.get("effects");
        if let Some(effects) = tool_effects {
            self.effects(effects, at.key("effects"));
        }
        if let Some(Value::Array(globals)) = root.get("globalOptions") {
            self.global_duplicates(globals, &at.key("globalOptions"));
            let merged = parse_effects(tool_effects).unwrap_or_default();
            let leaves_write = leaves_without_write(root.get("commands"), &merged);
            for (i, o) in globals.iter().enumerate() {
                let p = at.key("globalOptions").index(i);
                self.option(o, p.clone());
                self.injection(o, p, &merged, leaves_write);
            }
        }
        if let Some(Value::Object(commands)) = root.get("commands") {
            let merged = parse_effects(tool_effects).unwrap_or_default();
            let at = at.key("commands");
            for (name, cmd) in commands {
                self.top = Some(name);
                self.command(name, cmd, at.key(name), &merged);
            }
            self.top = None;
        }
    }

    fn commands(&mut self, commands: &'a Map<String, Value>, at: JsonPath, above: &Effects) {
        for (name, cmd) in commands {
            self.command(name, cmd, at.key(name), above);
        }
    }

    fn command(&mut self, name: &str, cmd: &'a Value, at: JsonPath, above: &Effects) {
        let Some(c) = cmd.as_object() else { return };
        if !name.is_empty() && !kebab(name) {
            let message = if name.chars().any(|ch| ch.is_ascii_uppercase()) {
                "command naming should follow kebab-case convention (contains uppercase)"
            } else {
                "command naming should follow kebab-case convention"
            };
            self.report("consistent-naming", at.clone(), message);
        }
        match c.get("description") {
            Some(d) if truthy(d) => self.description(Some(d), at.key("description")),
            _ => self.report(
                "no-missing-required-fields",
                at.key("description"),
                "Command is missing required field: description",
            ),
        }
        let has_children = matches!(c.get("commands"), Some(Value::Object(m)) if !m.is_empty());
        let effects = c.get("effects");
        if let Some(e) = effects {
            self.effects(e, at.key("effects"));
        }
        if !has_children {
            match effects {
                None => self.report(
                    "no-empty-effects",
                    at.clone(),
                    "Command should declare effects metadata",
                ),
                Some(Value::Object(m)) if m.is_empty() => self.report(
                    "no-empty-effects",
                    at.key("effects"),
                    "Command effects should have at least 1 field(s), but has 0",
                ),
                _ => {}
            }
        }
        let merged = match parse_effects(effects) {
            Some(own) => {
                let merged = above.merged_with(&own);
                for (field, declared, wins) in own.overridden_in(&merged) {
                    let mut p = at.key("effects");
                    for part in field.split('.') {
                        p = p.key(part);
                    }
                    self.report(
                        "effects-overridden",
                        p,
                        format!(
                            "declares `{field}: {declared}`, but `{field}: {wins}` from the \
                             tool or an enclosing command wins (effects merge conservatively, \
                             spec §3.6): this declaration has no effect"
                        ),
                    );
                }
                merged
            }
            None => above.clone(),
        };
        if let Some(Value::Array(args)) = c.get("arguments") {
            let mut optional_seen: Option<String> = None;
            let mut variadic_seen: Option<String> = None;
            for (i, a) in args.iter().enumerate() {
                let p = at.key("arguments").index(i);
                self.argument(a, p.clone());
                let Some(m) = a.as_object() else { continue };
                let arg_name = m.get("name").and_then(Value::as_str).unwrap_or("?");
                let required = m.get("required").and_then(Value::as_bool).unwrap_or(true);
                if let Some(v) = &variadic_seen {
                    self.report(
                        "positional-order",
                        p.clone(),
                        format!(
                            "`{arg_name}` follows the variadic argument `{v}`, which takes \
                             every remaining value: it can never be given"
                        ),
                    );
                } else if let (true, Some(o)) = (required, &optional_seen) {
                    self.report(
                        "positional-order",
                        p.clone(),
                        format!(
                            "required `{arg_name}` follows the optional `{o}`: positionals are \
                             filled in order, so `{o}` can never be left out"
                        ),
                    );
                }
                if !required && optional_seen.is_none() {
                    optional_seen = Some(arg_name.to_owned());
                }
                if m.get("variadic") == Some(&Value::Bool(true)) && variadic_seen.is_none() {
                    variadic_seen = Some(arg_name.to_owned());
                }
            }
        }
        if let Some(Value::Array(options)) = c.get("options") {
            self.command_duplicates(options, &at.key("options"));
            let leaves_write = if has_children {
                leaves_without_write(c.get("commands"), &merged)
            } else {
                merged.filesystem_write() != Some(true)
            };
            for (i, o) in options.iter().enumerate() {
                let p = at.key("options").index(i);
                self.option(o, p.clone());
                self.injection(o, p, &merged, leaves_write);
            }
        }
        if let Some(Value::Object(children)) = c.get("commands") {
            self.commands(children, at.key("commands"), &merged);
        }
    }
}
