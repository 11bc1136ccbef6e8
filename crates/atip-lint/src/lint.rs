//! Lint rules over one ATIP document.
//!
//! Every rule walks the document's JSON, so that wrong-typed values (which the schema check
//! rejects) are reviewed too. The walk visits the tool, its `globalOptions`, and every command
//! at any depth (`$.commands.NAME`, then `.commands.NAME` below), with its `effects`,
//! `arguments` and `options`; the tool's own `effects` are checked by the effects rules as a
//! command's are.

use std::fmt;

use atip_core::diagnostic::{locate, Diagnostic, JsonPath, Location};
use atip_core::{Effects, LoadOptions};
use serde::Serialize;
use serde_json::{Map, Value};

/// How serious a finding is: an error fails `atip lint` (exit status 1), a warning does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth a look; the metadata is usable.
    Warn,
    /// The metadata is wrong or unsafe as it stands.
    Error,
}

impl Severity {
    /// `"error"` or `"warn"`, as the reference linter spells them.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Warn => "warn",
            Severity::Error => "error",
        }
    }
}

/// One lint rule: its id, default severity and what it checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// The rule id, e.g. `destructive-needs-reversible`.
    pub id: &'static str,
    /// Its default severity (the reference linter's `recommended` preset for its rules).
    pub severity: Severity,
    /// Whether the rule is the reference linter's (`true`) or this project's own.
    pub upstream: bool,
    /// What it checks, in one sentence.
    pub summary: &'static str,
}

/// Every rule, in the order findings of one node are reported.
pub const RULES: &[Rule] = &[
    Rule {
        id: "schema",
        severity: Severity::Error,
        upstream: false,
        summary: "The document passes the ATIP JSON Schema of its declared version (strict \
                  load): its errors are errors, its warnings (unknown fields) warnings.",
    },
    Rule {
        id: "no-missing-required-fields",
        severity: Severity::Error,
        upstream: true,
        summary: "Commands have a description; arguments a name, type and description; \
                  options a name, flags, type and description; `enum` types an `enum` list.",
    },
    Rule {
        id: "valid-effects-values",
        severity: Severity::Error,
        upstream: true,
        summary: "Effects flags are booleans, `cost.estimate` and `interactive.stdin` take \
                  their listed values, durations read like `5s`, `1-5s` or `instant`.",
    },
    Rule {
        id: "no-duplicate-flags",
        severity: Severity::Error,
        upstream: true,
        summary: "No flag appears twice in one option, in two options of one command, in two \
                  global options, or in a command option and a global option.",
    },
    Rule {
        id: "consistent-naming",
        severity: Severity::Warn,
        upstream: true,
        summary: "Command names and option names are kebab-case (lowercase words joined by \
                  `-`; the empty command name `\"\"` is exempt).",
    },
    Rule {
        id: "description-quality",
        severity: Severity::Warn,
        upstream: true,
        summary: "Descriptions have no surrounding whitespace, are 10 to 200 characters, \
                  contain no placeholder (TODO, FIXME, Description, TBD) and start with an \
                  uppercase letter.",
    },
    Rule {
        id: "no-empty-effects",
        severity: Severity::Warn,
        upstream: true,
        summary: "Every command without subcommands declares `effects` with at least one field.",
    },
    Rule {
        id: "destructive-needs-reversible",
        severity: Severity::Warn,
        upstream: true,
        summary: "Effects with `destructive: true` also declare `reversible`.",
    },
    Rule {
        id: "billable-needs-confirmation",
        severity: Severity::Warn,
        upstream: true,
        summary: "Effects with `cost.billable: true` are not `idempotent: true` (a retry costs \
                  again).",
    },
    Rule {
        id: "trust-source-requirements",
        severity: Severity::Warn,
        upstream: true,
        summary: "`native` metadata declares effects on every command; `vendor` metadata has \
                  `homepage` and `version`; `inferred` metadata says `verified: false`.",
    },
    Rule {
        id: "injection-vector-option",
        severity: Severity::Warn,
        upstream: false,
        summary: "Options that run a program or write any file the caller names (see \
                  INJECTION_VECTORS) are flagged; an error when the command's effects deny \
                  that (`subprocess: false`, `filesystem.write: false`).",
    },
    Rule {
        id: "positional-order",
        severity: Severity::Error,
        upstream: false,
        summary: "No required positional argument follows an optional one, and no argument \
                  follows a variadic one: positionals are filled in order, so such an \
                  argument could never be given alone.",
    },
    Rule {
        id: "effects-overridden",
        severity: Severity::Warn,
        upstream: false,
        summary: "A command's declared effect that the conservative merge with the tool and \
                  its ancestors overrides (`destructive: false` under a destructive group, …): \
                  the declaration has no effect.",
    },
];

fn rule(id: &str) -> &'static Rule {
    RULES.iter().find(|r| r.id == id).unwrap_or(&RULES[0])
}

/// One finding: which rule, how serious, where, and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule id ([`RULES`]).
    pub rule: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// Where, e.g. `$.commands.purge.effects`.
    #[serde(serialize_with = "display")]
    pub path: JsonPath,
    /// What is wrong.
    pub message: String,
    /// Line and column in the text, when [`lint`] read the text.
    #[serde(serialize_with = "location")]
    pub location: Option<Location>,
}

fn display<S: serde::Serializer>(path: &JsonPath, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(path)
}

fn location<S: serde::Serializer>(loc: &Option<Location>, s: S) -> Result<S::Ok, S::Error> {
    match loc {
        Some(l) => s.collect_str(&format_args!("{}:{}", l.line, l.column)),
        None => s.serialize_none(),
    }
}

impl fmt::Display for Finding {
    /// `line:col: error[rule]: $.path: message` (the location when known).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = &self.location {
            write!(f, "{}:{}: ", l.line, l.column)?;
        }
        write!(
            f,
            "{}[{}]: {}: {}",
            self.severity.as_str(),
            self.rule,
            self.path,
            self.message
        )
    }
}

/// Whether any finding is an error (`atip lint` then exits with status 1).
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

/// Lints the document `text`: the schema check (rule `schema`), then every rule of [`RULES`],
/// each finding located (line and column). Text that is not JSON gives one `schema` error.
pub fn lint(text: &str) -> Vec<Finding> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut findings = Vec::new();
    match atip_core::load(text, &LoadOptions::strict()) {
        Err(e) => findings.extend(e.diagnostics.iter().map(schema_finding)),
        Ok(loaded) => findings.extend(loaded.warnings.iter().map(schema_finding)),
    }
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        findings.extend(lint_value(&value));
    }
    let mut diags: Vec<Diagnostic> = findings
        .iter()
        .map(|f| Diagnostic::warning(f.path.clone(), String::new()))
        .collect();
    locate(text, &mut diags);
    for (f, d) in findings.iter_mut().zip(diags) {
        if f.location.is_none() {
            f.location = d.location;
        }
    }
    findings
}

fn schema_finding(d: &Diagnostic) -> Finding {
    Finding {
        rule: "schema",
        severity: if d.is_error() {
            Severity::Error
        } else {
            Severity::Warn
        },
        path: d.path.clone(),
        message: d.message.clone(),
        location: d.location,
    }
}

/// Lints a parsed document with every rule but `schema` (see [`lint`]); findings carry no
/// location. A value that is not an object gives no finding.
pub fn lint_value(doc: &Value) -> Vec<Finding> {
    let Some(root) = doc.as_object() else {
        return Vec::new();
    };
    let mut l = Linter {
        findings: Vec::new(),
        tool: root.get("name").and_then(Value::as_str).unwrap_or(""),
        global_flags: Vec::new(),
    };
    l.root(root);
    l.findings
}

struct Linter<'a> {
    findings: Vec<Finding>,
    tool: &'a str,
    global_flags: Vec<&'a str>,
}

impl<'a> Linter<'a> {
    fn report(&mut self, id: &str, path: JsonPath, message: impl Into<String>) {
        let r = rule(id);
        self.findings.push(Finding {
            rule: r.id,
            severity: r.severity,
            path,
            message: message.into(),
            location: None,
        });
    }

    fn report_as(&mut self, id: &str, severity: Severity, path: JsonPath, message: String) {
        self.report(id, path, message);
        if let Some(last) = self.findings.last_mut() {
            last.severity = severity;
        }
    }

    fn root(&mut self, root: &'a Map<String, Value>) {
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
            self.commands(commands, at.key("commands"), &merged);
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

    fn argument(&mut self, a: &Value, at: JsonPath) {
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

    fn option(&mut self, o: &Value, at: JsonPath) {
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

    fn enum_list(&mut self, m: &Map<String, Value>, at: &JsonPath) {
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

    /// The reference linter's description checks, for a present description.
    fn description(&mut self, d: Option<&Value>, at: JsonPath) {
        let Some(Value::String(text)) = d else { return };
        if text.is_empty() {
            return;
        }
        if text.trim() != text {
            self.report(
                "description-quality",
                at,
                "Description has leading or trailing whitespace",
            );
            return;
        }
        // The reference counts UTF-16 code units; characters differ only outside the BMP.
        let len = text.encode_utf16().count();
        if len < 10 {
            self.report(
                "description-quality",
                at.clone(),
                "Description is too short (minimum 10 characters)",
            );
        }
        if len > 200 {
            self.report(
                "description-quality",
                at.clone(),
                "Description is too long (maximum 200 characters)",
            );
        }
        for placeholder in ["TODO", "FIXME", "Description", "TBD"] {
            if text.contains(placeholder) {
                self.report(
                    "description-quality",
                    at.clone(),
                    format!("Description contains placeholder text: \"{placeholder}\""),
                );
            }
        }
        if let Some(first) = text.chars().next() {
            if first.to_uppercase().next() != Some(first) {
                self.report(
                    "description-quality",
                    at,
                    "Description should start with an uppercase letter",
                );
            }
        }
    }

    fn trust(&mut self, root: &'a Map<String, Value>) {
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

    fn native_effects(&mut self, commands: &Map<String, Value>, at: JsonPath) {
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

    /// `valid-effects-values`, `destructive-needs-reversible`, `billable-needs-confirmation`.
    fn effects(&mut self, e: &Value, at: JsonPath) {
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

    fn boolean(&mut self, v: Option<&Value>, at: JsonPath, name: &str) {
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

    fn one_of(&mut self, v: Option<&Value>, at: JsonPath, name: &str, values: &[&str]) {
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

    fn global_duplicates(&mut self, globals: &'a [Value], at: &JsonPath) {
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

    fn command_duplicates(&mut self, options: &'a [Value], at: &JsonPath) {
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
            for f in &flags {
                if self.global_flags.contains(f) {
                    self.report(
                        "no-duplicate-flags",
                        p.clone(),
                        format!("Flag \"{f}\" conflicts with global option"),
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

    /// `injection-vector-option` for option `o` of a command whose merged effects are
    /// `effects`; `unwritten` says whether some command it applies to does not declare
    /// `filesystem.write: true`.
    fn injection(&mut self, o: &Value, at: JsonPath, effects: &Effects, unwritten: bool) {
        let flags = flags_of(o);
        let ty = o.get("type").and_then(Value::as_str).unwrap_or("string");
        for v in INJECTION_VECTORS {
            if !flags.contains(&v.flag) || !(v.tools.is_empty() || v.tools.contains(&self.tool)) {
                continue;
            }
            let (severity, message) = match v.kind {
                VectorKind::RunsPrograms => {
                    if ty == "boolean" {
                        continue;
                    }
                    if effects.subprocess == Some(false) {
                        (
                            Severity::Error,
                            format!(
                                "`{}` {}; the command declares `subprocess: false`",
                                v.flag, v.reason
                            ),
                        )
                    } else {
                        (
                            Severity::Warn,
                            format!(
                                "`{}` {}: a value chosen by a model runs code; deny the \
                                 parameter in the policy or leave it out of the metadata",
                                v.flag, v.reason
                            ),
                        )
                    }
                }
                VectorKind::WritesFiles => {
                    if matches!(ty, "boolean" | "enum" | "integer" | "number") || !unwritten {
                        continue;
                    }
                    if effects.filesystem_write() == Some(false) {
                        (
                            Severity::Error,
                            format!(
                                "`{}` {}; the command declares `filesystem.write: false`",
                                v.flag, v.reason
                            ),
                        )
                    } else {
                        (
                            Severity::Warn,
                            format!(
                                "`{}` {}, but the command does not declare `filesystem.write`",
                                v.flag, v.reason
                            ),
                        )
                    }
                }
            };
            self.report_as("injection-vector-option", severity, at.clone(), message);
        }
    }
}

/// What an injection vector lets a caller do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VectorKind {
    /// Its value names a program, a command line or code that the tool runs.
    RunsPrograms,
    /// Its value names a file the tool writes.
    WritesFiles,
}

/// An option known to let its value run programs or write arbitrary files (argument
/// injection: a model that controls the value controls what runs or what is overwritten).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct InjectionVector {
    /// The flag, exactly as in `flags`.
    pub flag: &'static str,
    /// The tools (document `name`) it is a vector of; empty: any tool.
    pub tools: &'static [&'static str],
    /// What it lets a caller do.
    pub kind: VectorKind,
    /// Why, in a few words.
    pub reason: &'static str,
}

const GIT: &[&str] = &["git"];
const GIT_HG: &[&str] = &["git", "hg"];
const TAR: &[&str] = &["tar", "gtar", "bsdtar"];
const RSYNC: &[&str] = &["rsync"];
const FD: &[&str] = &["fd", "fdfind"];
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "python", "python3"];
const INTERPRETERS: &[&str] = &["node", "perl", "ruby"];

/// The known argument-injection vectors `injection-vector-option` flags, with the reason for
/// each. Boolean options never match; `--output` matches only options that take a path or
/// text (not a format enumeration) on commands that do not declare `filesystem.write: true`.
pub const INJECTION_VECTORS: &[InjectionVector] = &[
    InjectionVector {
        flag: "--exec",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the command it is given (fd per match, git rebase per commit, git \
                 archive --remote as the remote helper)",
    },
    InjectionVector {
        flag: "-exec",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the command line it is given for every file found (find)",
    },
    InjectionVector {
        flag: "-execdir",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the command line it is given in each found file's directory (find)",
    },
    InjectionVector {
        flag: "--exec-batch",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the command it is given once with every match (fd)",
    },
    InjectionVector {
        flag: "-x",
        tools: FD,
        kind: VectorKind::RunsPrograms,
        reason: "is fd's --exec: runs the command it is given per match",
    },
    InjectionVector {
        flag: "-X",
        tools: FD,
        kind: VectorKind::RunsPrograms,
        reason: "is fd's --exec-batch: runs the command it is given",
    },
    InjectionVector {
        flag: "--pre",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names a preprocessor program run on every file searched (ripgrep)",
    },
    InjectionVector {
        flag: "--upload-pack",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program git runs for the other side of a fetch, clone or ls-remote \
                 (this machine for a local or file:// repository)",
    },
    InjectionVector {
        flag: "--receive-pack",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program git push runs for the other side (this machine for a local \
                 repository)",
    },
    InjectionVector {
        flag: "-c",
        tools: GIT_HG,
        kind: VectorKind::RunsPrograms,
        reason: "sets configuration for the run, and configuration names programs \
                 (core.sshCommand, core.pager, core.fsmonitor, core.hooksPath, alias.*, hooks)",
    },
    InjectionVector {
        flag: "--config",
        tools: GIT_HG,
        kind: VectorKind::RunsPrograms,
        reason: "sets configuration (git clone writes it into the new repository, hg applies \
                 it to the run), and configuration names programs and hooks",
    },
    InjectionVector {
        flag: "--config-env",
        tools: GIT,
        kind: VectorKind::RunsPrograms,
        reason: "sets configuration from an environment variable, and configuration names \
                 programs",
    },
    InjectionVector {
        flag: "--template",
        tools: GIT,
        kind: VectorKind::RunsPrograms,
        reason: "copies the given directory's hooks into the repository, which git then runs",
    },
    InjectionVector {
        flag: "--output",
        tools: &[],
        kind: VectorKind::WritesFiles,
        reason: "writes to whatever path it is given",
    },
    InjectionVector {
        flag: "--compress-program",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program run to compress or decompress (sort, tar)",
    },
    InjectionVector {
        flag: "--use-compress-program",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program tar runs to compress or decompress",
    },
    InjectionVector {
        flag: "-I",
        tools: TAR,
        kind: VectorKind::RunsPrograms,
        reason: "is tar's --use-compress-program: names a program tar runs",
    },
    InjectionVector {
        flag: "--to-command",
        tools: TAR,
        kind: VectorKind::RunsPrograms,
        reason: "pipes every extracted file to the command it is given",
    },
    InjectionVector {
        flag: "--checkpoint-action",
        tools: TAR,
        kind: VectorKind::RunsPrograms,
        reason: "runs a program at checkpoints (`exec=COMMAND`)",
    },
    InjectionVector {
        flag: "--info-script",
        tools: TAR,
        kind: VectorKind::RunsPrograms,
        reason: "runs the script it is given at the end of each volume",
    },
    InjectionVector {
        flag: "--new-volume-script",
        tools: TAR,
        kind: VectorKind::RunsPrograms,
        reason: "runs the script it is given at the end of each volume",
    },
    InjectionVector {
        flag: "--rsh-command",
        tools: TAR,
        kind: VectorKind::RunsPrograms,
        reason: "names the remote shell program tar runs",
    },
    InjectionVector {
        flag: "--rmt-command",
        tools: TAR,
        kind: VectorKind::RunsPrograms,
        reason: "names the remote tape program tar runs",
    },
    InjectionVector {
        flag: "--rsh",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the remote shell program run to reach the other side (rsync, tar)",
    },
    InjectionVector {
        flag: "-e",
        tools: RSYNC,
        kind: VectorKind::RunsPrograms,
        reason: "is rsync's --rsh: names the program run as the remote shell",
    },
    InjectionVector {
        flag: "--rsync-path",
        tools: RSYNC,
        kind: VectorKind::RunsPrograms,
        reason: "is the command line run as rsync on the other side",
    },
    InjectionVector {
        flag: "--ssh-command",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program run as ssh",
    },
    InjectionVector {
        flag: "--pager",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program the output is piped to",
    },
    InjectionVector {
        flag: "--eval",
        tools: &[],
        kind: VectorKind::RunsPrograms,
        reason: "evaluates the code it is given",
    },
    InjectionVector {
        flag: "-e",
        tools: INTERPRETERS,
        kind: VectorKind::RunsPrograms,
        reason: "evaluates the code it is given",
    },
    InjectionVector {
        flag: "-c",
        tools: SHELLS,
        kind: VectorKind::RunsPrograms,
        reason: "runs the code it is given",
    },
];

/// Whether a value is "present" as the reference linter tests it (JavaScript truthiness for
/// the values JSON has).
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// `^[a-z][a-z0-9]*(-[a-z0-9]+)*$`.
fn kebab(name: &str) -> bool {
    let mut parts = name.split('-');
    let first = parts.next().unwrap_or("");
    let lower_digit = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    first.starts_with(|c: char| c.is_ascii_lowercase())
        && first.chars().all(lower_digit)
        && parts.all(|p| !p.is_empty() && p.chars().all(lower_digit))
}

/// `^(\d+(-\d+)?[smh]|instant)$`.
fn duration(s: &str) -> bool {
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
fn flags_of(o: &Value) -> Vec<&str> {
    match o.get("flags") {
        Some(Value::Array(f)) => f.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A declared `effects` object, when it reads as one (wrong types are another rule's).
fn parse_effects(v: Option<&Value>) -> Option<Effects> {
    v.and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// Whether some command (without subcommands) at or below `commands` ends up not declaring
/// `filesystem.write: true`, its effects merged from `above`.
fn leaves_without_write(commands: Option<&Value>, above: &Effects) -> bool {
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

    #[test]
    fn every_rule_id_is_listed_once() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        assert_eq!(rule("no-such-rule").id, "schema");
    }
}
