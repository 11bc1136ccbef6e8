//! Rules of an `effects` object (spec §3.6): `valid-effects-values`,
//! `destructive-needs-reversible` and `billable-needs-confirmation`.

use atip_core::diagnostic::JsonPath;
use serde_json::Value;

use super::linter::Linter;
use super::values::duration;

impl Linter<'_> {
    /// `valid-effects-values`, `destructive-needs-reversible`, `billable-needs-confirmation`.
    pub(super) fn effects(&mut self, e: &Value, at: JsonPath) {
        let Some(m) = e.as_object() else { return };
        for field in [
            "destructive",
            "reversible",
            "idempotent",
            "network",
            "subprocess",
        ] {
            self.boolean(m.get(field), at.key(field), field);
        }
        if let Some(Value::Object(fs)) = m.get("filesystem") {
            for field in ["read", "write", "delete"] {
                let name = format!("filesystem.{field}");
                self.boolean(fs.get(field), at.key("filesystem").key(field), &name);
            }
        }
        if let Some(Value::Object(cost)) = m.get("cost") {
            self.boolean(
                cost.get("billable"),
                at.key("cost").key("billable"),
                "cost.billable",
            );
            self.one_of(
                cost.get("estimate"),
                at.key("cost").key("estimate"),
                "cost.estimate",
                &["free", "low", "medium", "high"],
            );
        }
        if let Some(Value::Object(i)) = m.get("interactive") {
            self.one_of(
                i.get("stdin"),
                at.key("interactive").key("stdin"),
                "interactive.stdin",
                &["none", "optional", "required", "password"],
            );
            for field in ["prompts", "tty"] {
                let name = format!("interactive.{field}");
                self.boolean(i.get(field), at.key("interactive").key(field), &name);
            }
        }
        if let Some(Value::Object(d)) = m.get("duration") {
            for field in ["typical", "timeout"] {
                let p = at.key("duration").key(field);
                let name = format!("duration.{field}");
                match d.get(field) {
                    None => {}
                    Some(Value::String(s)) if duration(s) => {}
                    Some(Value::String(_)) => self.report(
                        "valid-effects-values",
                        p,
                        format!(
                            "Field \"{name}\" has invalid duration format. Expected format \
                             like \"5s\", \"30s\", \"1-5s\""
                        ),
                    ),
                    Some(_) => self.report(
                        "valid-effects-values",
                        p,
                        format!("Field \"{name}\" must be a string"),
                    ),
                }
            }
        }
        if m.get("destructive") == Some(&Value::Bool(true)) && !m.contains_key("reversible") {
            self.report(
                "destructive-needs-reversible",
                at.clone(),
                "Destructive operations should declare reversible field",
            );
        }
        let billable = m
            .get("cost")
            .and_then(|c| c.get("billable"))
            .is_some_and(|b| *b == Value::Bool(true));
        if billable && m.get("idempotent") == Some(&Value::Bool(true)) {
            self.report(
                "billable-needs-confirmation",
                at.key("idempotent"),
                "Billable operation marked as idempotent (may incur costs on retry)",
            );
        }
    }

    pub(super) fn boolean(&mut self, v: Option<&Value>, at: JsonPath, name: &str) {
        if let Some(v) = v {
            if !v.is_boolean() {
                self.report(
                    "valid-effects-values",
                    at,
                    format!("Field \"{name}\" must be a boolean"),
                );
            }
        }
    }

    pub(super) fn one_of(&mut self, v: Option<&Value>, at: JsonPath, name: &str, values: &[&str]) {
        if let Some(v) = v {
            if !v.as_str().is_some_and(|s| values.contains(&s)) {
                self.report(
                    "valid-effects-values",
                    at,
                    format!("Field \"{name}\" must be one of: {}", values.join(", ")),
                );
            }
        }
    }
}
