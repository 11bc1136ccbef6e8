//! The `trust-source-requirements` rule: what a `native`, `vendor` or `inferred` trust source
//! requires of the document (spec §3.2.2).

use atip_core::diagnostic::JsonPath;
use serde_json::{Map, Value};

use super::linter::Linter;
use super::values::truthy;

impl<'a> Linter<'a> {
    pub(super) fn trust(&mut self, root: &'a Map<String, Value>) {
        let Some(Value::Object(trust)) = root.get("trust") else {
            return;
        };
        match trust.get("source").and_then(Value::as_str) {
            Some("native") => {
                if let Some(Value::Object(commands)) = root.get("commands") {
                    self.native_effects(commands, JsonPath::root().key("commands"));
                }
            }
            Some("vendor") => {
                for field in ["homepage", "version"] {
                    if !root.get(field).is_some_and(truthy) {
                        self.report(
                            "trust-source-requirements",
                            JsonPath::root().key(field),
                            format!("Vendor trust requires field: {field}"),
                        );
                    }
                }
            }
            Some("inferred") if trust.get("verified") != Some(&Value::Bool(false)) => {
                self.report(
                    "trust-source-requirements",
                    JsonPath::root().key("trust").key("verified"),
                    "Inferred trust should have verified: false",
                );
            }
            _ => {}
        }
    }

    pub(super) fn native_effects(&mut self, commands: &Map<String, Value>, at: JsonPath) {
        for (name, cmd) in commands {
            let here = at.key(name);
            if !cmd.get("effects").is_some_and(truthy) {
                self.report(
                    "trust-source-requirements",
                    here.key("effects"),
                    "Native trust requires all commands to have effects",
                );
            }
            if let Some(Value::Object(children)) = cmd.get("commands") {
                self.native_effects(children, here.key("commands"));
            }
        }
    }
}
