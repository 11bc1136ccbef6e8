//! The document's rules, written out by hand from the ATIP JSON Schemas of versions 0.4 and
//! 0.6: the root and protocol (spec §3.2, §3.2.1), trust (§3.2.2), commands (§3.3),
//! arguments (§3.4), options (§3.5), effects (§3.6), authentication (§3.8) and patterns
//! (§3.9).

use serde_json::{Map, Value};

use super::walker::{
    find_mut, Mode, Schema, Str, Validator, FEATURES_04, FEATURES_06, PARAM_TYPES,
};
use crate::diagnostic::{describe, quote};
use crate::formats::*;

impl Validator {
    pub(super) fn root(&mut self, root: &mut Value) {
        let Some(m) = self.object(root) else { return };
        // The declared version picks the schema for everything else.
        if let Some(atip) = find_mut(m, "atip") {
            self.in_key("atip", |v| v.protocol(atip));
        }
        self.require(
            m,
            &[
                (
                    "atip",
                    "a version string like \"0.6\" or {\"version\": \"0.6\"}",
                ),
                ("name", "a string"),
                ("version", "a string"),
                ("description", "a string"),
            ],
        );
        self.member(m, "name", |v, x| {
            v.string(x, Str::Pattern(is_tool_name, "^[a-zA-Z0-9_-]+$"))
        });
        self.member(m, "version", |v, x| v.string(x, Str::Any));
        if let Some(desc) = find_mut(m, "description") {
            self.in_key("description", |v| {
                v.string(desc, Str::Any);
                if let Value::String(s) = desc {
                    let len = s.chars().count();
                    if len > 200 {
                        let msg = format!("expected at most 200 characters, found {len}");
                        if v.mode == Mode::Lenient {
                            v.warn(msg);
                        } else {
                            v.error(msg);
                        }
                    }
                }
            });
        }
        self.descriptive(m, "homepage", |v, x| v.string(x, Str::Uri));
        match self.schema {
            Schema::V06 => self.member(m, "binary", Self::binary),
            Schema::V04 => self.foreign(m, "binary", "added in 0.6", Self::binary),
        }
        self.member(m, "partial", Self::boolean);
        self.member(m, "filter", |v, x| {
            let Some(f) = v.object(x) else { return };
            v.member(f, "commands", |v, x| v.string_array(x, Str::Any));
            v.member(f, "depth", |v, x| {
                if !x.is_null() {
                    v.integer(x, Some(1), None)
                }
            });
            v.unknown_members(f, &["commands", "depth"]);
        });
        self.member(m, "totalCommands", |v, x| v.integer(x, Some(0), None));
        self.member(m, "includedCommands", |v, x| v.integer(x, Some(0), None));
        self.member(m, "omitted", |v, x| {
            let Some(o) = v.object(x) else { return };
            v.member(o, "reason", |v, x| {
                v.string(
                    x,
                    Str::OneOf(&["filtered", "depth-limited", "size-limited", "deprecated"]),
                )
            });
            v.member(o, "safetyAssumption", |v, x| {
                v.string(
                    x,
                    Str::OneOf(&["unknown", "known-safe", "known-unsafe", "same-as-included"]),
                )
            });
            v.unknown_members(o, &["reason", "safetyAssumption"]);
        });
        self.member(m, "trust", Self::trust);
        self.member(m, "commands", Self::commands);
        self.member(m, "globalOptions", |v, x| {
            if let Some(items) = v.array(x) {
                for (i, item) in items.iter_mut().enumerate() {
                    v.in_index(i, |v| v.option(item));
                }
            }
        });
        self.member(m, "authentication", Self::authentication);
        self.member(m, "effects", Self::effects);
        self.descriptive_list(m, "patterns", Self::pattern);
        // This library's vendor extension (§12.2) at the top: `mcp` decides whether a call is
        // a process or an MCP request, so it must be what it claims to be.
        self.member(m, "x-atip-rust", |v, x| {
            let Some(ext) = v.object(x) else { return };
            v.member(ext, "mcp", Self::boolean);
            for key in ext.keys() {
                if key != "mcp" {
                    v.in_name(key, |v| {
                        v.warn("unknown member of `x-atip-rust`: it is not read".to_owned())
                    });
                }
            }
        });
        let known = [
            "atip",
            "binary",
            "name",
            "version",
            "description",
            "homepage",
            "partial",
            "filter",
            "totalCommands",
            "includedCommands",
            "omitted",
            "trust",
            "commands",
            "globalOptions",
            "authentication",
            "effects",
            "patterns",
        ];
        self.unknown_members(m, &known);
    }

    /// Checks `atip` and selects the schema from the declared version.
    fn protocol(&mut self, value: &mut Value) {
        let version_rule = |v: &mut Self, x: &mut Value| match x {
            Value::String(s) if is_known_version(s) => v.schema = Schema::of(s),
            Value::String(s) => v.error(format!(
                "unsupported ATIP version {}: this library knows versions 0.1 to 0.6",
                quote(s)
            )),
            other => v.error(format!(
                "expected a version string like \"0.6\", found {}",
                describe(other)
            )),
        };
        match value {
            Value::String(_) => {
                // Legacy form "0.3".
                let mut copy = value.clone();
                version_rule(self, &mut copy);
            }
            Value::Object(m) => {
                self.require(m, &[("version", "a version string like \"0.6\"")]);
                self.member(m, "version", version_rule);
                let features = match self.schema {
                    Schema::V04 => FEATURES_04,
                    Schema::V06 => FEATURES_06,
                };
                self.member(m, "features", |v, x| v.string_array(x, Str::OneOf(features)));
                let pattern: (fn(&str) -> bool, &str) = match self.schema {
                    Schema::V04 => (is_version_04, "^0\\.[1-4]$"),
                    Schema::V06 => (is_known_version, "^0\\.[1-6]$"),
                };
                self.member(m, "minAgentVersion", |v, x| {
                    v.string(x, Str::Pattern(pattern.0, pattern.1))
                });
                self.unknown_members(m, &["version", "features", "minAgentVersion"]);
            }
            other => self.error(format!(
                "expected a version string like \"0.6\" or an object {{\"version\": \"0.6\"}}, found {}",
                describe(other)
            )),
        }
        // With a version string that fails the pattern the checks below still run, against
        // the newest schema.
    }

    fn binary(&mut self, value: &mut Value) {
        let Some(b) = self.object(value) else { return };
        self.require(b, &[("hash", "\"sha256:\" and 64 hex digits")]);
        self.member(b, "hash", |v, x| {
            v.string(x, Str::Pattern(is_sha256, "^sha256:[a-fA-F0-9]{64}$"))
        });
        self.member(b, "name", |v, x| v.string(x, Str::Any));
        self.member(b, "version", |v, x| v.string(x, Str::Any));
        self.member(b, "platform", |v, x| {
            v.string(
                x,
                Str::Pattern(
                    is_platform,
                    "^(linux|darwin|windows)-(amd64|arm64|arm|386)$",
                ),
            )
        });
        self.unknown_members(b, &["hash", "name", "version", "platform"]);
    }

    fn trust(&mut self, value: &mut Value) {
        let Some(t) = self.object(value) else { return };
        self.member(t, "source", |v, x| {
            v.string(
                x,
                Str::OneOf(&["native", "vendor", "org", "community", "user", "inferred"]),
            )
        });
        self.member(t, "verified", Self::boolean);
        let checksum = |v: &mut Self, x: &mut Value| {
            v.string(x, Str::Pattern(is_checksum, "^[a-z0-9]+:[a-fA-F0-9]+$"))
        };
        let integrity = |v: &mut Self, x: &mut Value| {
            let Some(i) = v.object(x) else { return };
            v.member(i, "checksum", checksum);
            v.member(i, "signature", Self::signature);
            v.unknown_members(i, &["checksum", "signature"]);
        };
        let provenance = |v: &mut Self, x: &mut Value| {
            let Some(p) = v.object(x) else { return };
            v.member(p, "url", |v, x| v.string(x, Str::Uri));
            v.member(p, "format", |v, x| {
                v.string(x, Str::OneOf(&["slsa-provenance-v1", "in-toto"]))
            });
            v.member(p, "slsaLevel", |v, x| v.integer(x, Some(0), Some(4)));
            v.member(p, "builder", |v, x| v.string(x, Str::Any));
            v.unknown_members(p, &["url", "format", "slsaLevel", "builder"]);
        };
        let shim = |v: &mut Self, x: &mut Value| {
            let Some(s) = v.object(x) else { return };
            v.member(s, "signature", Self::signature);
            v.member(s, "lastVerified", |v, x| v.string(x, Str::DateTime));
            v.unknown_members(s, &["signature", "lastVerified"]);
        };
        let signed_by = |v: &mut Self, x: &mut Value| v.string(x, Str::Any);
        let attestation = |v: &mut Self, x: &mut Value| v.string(x, Str::Uri);
        match self.schema {
            Schema::V06 => {
                self.member(t, "integrity", integrity);
                self.member(t, "provenance", provenance);
                self.member(t, "shimIntegrity", shim);
                self.foreign(t, "checksum", "an ATIP 0.4 field", checksum);
                self.foreign(t, "signedBy", "an ATIP 0.4 field", signed_by);
                self.foreign(t, "attestation", "an ATIP 0.4 field", attestation);
            }
            Schema::V04 => {
                self.member(t, "checksum", checksum);
                self.member(t, "signedBy", signed_by);
                self.member(t, "attestation", attestation);
                self.foreign(t, "integrity", "added in 0.5", integrity);
                self.foreign(t, "provenance", "added in 0.5", provenance);
                self.foreign(t, "shimIntegrity", "added in 0.5", shim);
            }
        }
        self.unknown_members(
            t,
            &[
                "source",
                "verified",
                "integrity",
                "provenance",
                "shimIntegrity",
                "checksum",
                "signedBy",
                "attestation",
            ],
        );
    }

    fn signature(&mut self, value: &mut Value) {
        let Some(s) = self.object(value) else { return };
        self.member(s, "type", |v, x| {
            v.string(x, Str::OneOf(&["cosign", "gpg", "minisign"]))
        });
        self.member(s, "identity", |v, x| v.string(x, Str::Any));
        self.member(s, "issuer", |v, x| v.string(x, Str::Uri));
        self.member(s, "bundle", |v, x| v.string(x, Str::Uri));
        self.unknown_members(s, &["type", "identity", "issuer", "bundle"]);
    }

    fn commands(&mut self, value: &mut Value) {
        let Some(cmds) = self.object(value) else {
            return;
        };
        for (name, cmd) in cmds.iter_mut() {
            self.in_name(name, |v| v.command(cmd));
        }
    }

    pub(super) fn command(&mut self, value: &mut Value) {
        let Some(c) = self.object(value) else { return };
        self.require(c, &[("description", "a string")]);
        self.member(c, "description", |v, x| v.string(x, Str::Any));
        self.member(c, "arguments", |v, x| {
            if let Some(items) = v.array(x) {
                for (i, item) in items.iter_mut().enumerate() {
                    v.in_index(i, |v| v.argument(item));
                }
            }
        });
        self.member(c, "options", |v, x| {
            if let Some(items) = v.array(x) {
                for (i, item) in items.iter_mut().enumerate() {
                    v.in_index(i, |v| v.option(item));
                }
            }
        });
        self.member(c, "commands", Self::commands);
        self.member(c, "effects", Self::effects);
        self.descriptive_list(c, "examples", |v, item| v.string(item, Str::Any));
        self.unknown_members(
            c,
            &[
                "description",
                "arguments",
                "options",
                "commands",
                "effects",
                "examples",
            ],
        );
    }

    fn param_common(&mut self, p: &mut Map<String, Value>) {
        // This library's vendor extension (§12.2): its `effects` are read as effects, so they
        // are checked as effects; its other members belong to whoever wrote them.
        self.member(p, "x-atip-rust", |v, x| {
            let Some(ext) = v.object(x) else { return };
            v.member(ext, "effects", Self::effects);
            // A misspelt `effects` would leave the parameter's risk unread: warn about any
            // member this library and its Fig importer do not write.
            for key in ext.keys() {
                if !["effects", "exclusiveOn", "dependsOn"].contains(&key.as_str()) {
                    let hint = if key.eq_ignore_ascii_case("effects") || key == "effect" {
                        " (did you mean `effects`?)"
                    } else {
                        ""
                    };
                    v.in_name(key, |v| {
                        v.warn(format!(
                            "unknown member of `x-atip-rust`{hint}: it is not read"
                        ))
                    });
                }
            }
        });
        self.member(p, "name", |v, x| v.string(x, Str::Any));
        self.member(p, "type", |v, x| v.string(x, Str::OneOf(PARAM_TYPES)));
        self.member(p, "description", |v, x| v.string(x, Str::Any));
        self.member(p, "required", Self::boolean);
        self.member(p, "enum", |v, x| {
            if let Some(items) = v.array(x) {
                for (i, item) in items.iter_mut().enumerate() {
                    if !(item.is_string() || item.is_number()) {
                        v.in_index(i, |v| {
                            v.error(format!(
                                "expected a string or a number, found {}",
                                describe(item)
                            ))
                        });
                    }
                }
            }
        });
    }

    fn argument(&mut self, value: &mut Value) {
        let Some(a) = self.object(value) else { return };
        self.require(
            a,
            &[
                ("name", "a string"),
                ("type", "one of the parameter types"),
                ("description", "a string"),
            ],
        );
        self.param_common(a);
        self.member(a, "variadic", Self::boolean);
        self.unknown_members(
            a,
            &[
                "name",
                "type",
                "description",
                "required",
                "default",
                "variadic",
                "enum",
            ],
        );
    }

    fn option(&mut self, value: &mut Value) {
        let Some(o) = self.object(value) else { return };
        self.require(
            o,
            &[
                ("name", "a string"),
                ("flags", "an array of flags such as [\"-o\", \"--output\"]"),
                ("type", "one of the parameter types"),
                ("description", "a string"),
            ],
        );
        self.param_common(o);
        self.member(o, "flags", |v, x| {
            let Some(items) = v.array(x) else { return };
            if items.is_empty() {
                v.error("expected at least one flag, found an empty array");
            }
            for (i, item) in items.iter_mut().enumerate() {
                v.in_index(i, |v| {
                    v.string(item, Str::Pattern(|s| s.starts_with('-'), "^-"))
                });
            }
        });
        self.member(o, "envVar", |v, x| {
            v.string(x, Str::Pattern(is_env_var, "^[A-Z_][A-Z0-9_]*$"))
        });
        match self.schema {
            Schema::V06 => self.member(o, "variadic", Self::boolean),
            Schema::V04 => self.foreign(o, "variadic", "added in 0.6", Self::boolean),
        }
        self.unknown_members(
            o,
            &[
                "name",
                "flags",
                "type",
                "description",
                "required",
                "default",
                "enum",
                "envVar",
                "variadic",
            ],
        );
    }

    fn effects(&mut self, value: &mut Value) {
        let Some(e) = self.object(value) else { return };
        self.member(e, "filesystem", |v, x| {
            let Some(fs) = v.object(x) else { return };
            for key in ["read", "write", "delete"] {
                v.member(fs, key, Self::boolean);
            }
            v.member(fs, "paths", |v, x| v.string_array(x, Str::Any));
            v.unknown_members(fs, &["read", "write", "delete", "paths"]);
        });
        for key in [
            "network",
            "subprocess",
            "idempotent",
            "reversible",
            "destructive",
        ] {
            self.member(e, key, Self::boolean);
        }
        for key in ["creates", "modifies", "deletes"] {
            self.member(e, key, |v, x| v.string_array(x, Str::Any));
        }
        self.member(e, "interactive", |v, x| {
            let Some(i) = v.object(x) else { return };
            v.member(i, "stdin", |v, x| {
                v.string(x, Str::OneOf(&["none", "optional", "required", "password"]))
            });
            v.member(i, "prompts", Self::boolean);
            v.member(i, "tty", Self::boolean);
            v.unknown_members(i, &["stdin", "prompts", "tty"]);
        });
        self.member(e, "cost", |v, x| {
            let Some(c) = v.object(x) else { return };
            v.member(c, "estimate", |v, x| {
                v.string(x, Str::OneOf(&["free", "low", "medium", "high"]))
            });
            v.member(c, "billable", Self::boolean);
            v.unknown_members(c, &["estimate", "billable"]);
        });
        self.member(e, "duration", |v, x| {
            let Some(d) = v.object(x) else { return };
            v.member(d, "typical", |v, x| {
                v.string(x, Str::Pattern(is_duration_range, "^[0-9]+-[0-9]+[smh]$"))
            });
            v.member(d, "timeout", |v, x| {
                v.string(x, Str::Pattern(is_duration, "^[0-9]+[smh]$"))
            });
            v.unknown_members(d, &["typical", "timeout"]);
        });
        self.unknown_members(
            e,
            &[
                "filesystem",
                "network",
                "subprocess",
                "idempotent",
                "reversible",
                "destructive",
                "creates",
                "modifies",
                "deletes",
                "interactive",
                "cost",
                "duration",
            ],
        );
    }

    fn authentication(&mut self, value: &mut Value) {
        let Some(a) = self.object(value) else { return };
        self.member(a, "required", Self::boolean);
        self.member(a, "methods", |v, x| {
            let Some(items) = v.array(x) else { return };
            for (i, item) in items.iter_mut().enumerate() {
                v.in_index(i, |v| {
                    let Some(m) = v.object(item) else { return };
                    v.require(m, &[("type", "an authentication method type")]);
                    v.member(m, "type", |v, x| {
                        v.string(
                            x,
                            Str::OneOf(&["token", "oauth", "api-key", "password", "certificate"]),
                        )
                    });
                    for key in ["envVar", "description", "setupCommand"] {
                        v.descriptive(m, key, |v, x| v.string(x, Str::Any));
                    }
                    v.unknown_members(m, &["type", "envVar", "description", "setupCommand"]);
                });
            }
        });
        self.descriptive(a, "checkCommand", |v, x| v.string(x, Str::Any));
        self.unknown_members(a, &["required", "methods", "checkCommand"]);
    }

    fn pattern(&mut self, value: &mut Value) {
        let Some(p) = self.object(value) else { return };
        self.require(
            p,
            &[
                ("name", "a string"),
                ("description", "a string"),
                ("steps", "an array of steps"),
            ],
        );
        self.member(p, "name", |v, x| v.string(x, Str::Any));
        self.member(p, "description", |v, x| v.string(x, Str::Any));
        self.member(p, "steps", |v, x| {
            let Some(items) = v.array(x) else { return };
            for (i, item) in items.iter_mut().enumerate() {
                v.in_index(i, |v| {
                    let Some(s) = v.object(item) else { return };
                    v.require(s, &[("command", "a string")]);
                    v.member(s, "command", |v, x| v.string(x, Str::Any));
                    v.member(s, "description", |v, x| v.string(x, Str::Any));
                    v.unknown_members(s, &["command", "description"]);
                });
            }
        });
        self.member(p, "variables", |v, x| {
            let Some(vars) = v.object(x) else { return };
            for (name, var) in vars.iter_mut() {
                v.in_name(name, |v| {
                    let Some(m) = v.object(var) else { return };
                    v.require(m, &[("type", "a string"), ("description", "a string")]);
                    v.member(m, "type", |v, x| v.string(x, Str::Any));
                    v.member(m, "description", |v, x| v.string(x, Str::Any));
                });
            }
        });
        let tags = |v: &mut Self, x: &mut Value| v.string_array(x, Str::Any);
        match self.schema {
            Schema::V06 => {
                self.member(p, "tags", tags);
                self.member(p, "executable", Self::boolean);
            }
            Schema::V04 => {
                self.foreign(p, "tags", "added in 0.6", tags);
                self.foreign(p, "executable", "added in 0.6", Self::boolean);
            }
        }
        self.unknown_members(
            p,
            &[
                "name",
                "description",
                "steps",
                "variables",
                "tags",
                "executable",
            ],
        );
    }
}
