//! Lint rules over one ATIP document.
//!
//! Every rule walks the document's JSON, so that wrong-typed values (which the schema check
//! rejects) are reviewed too. The walk visits the tool, its `globalOptions`, and every command
//! at any depth (`$.commands.NAME`, then `.commands.NAME` below), with its `effects`,
//! `arguments` and `options`; the tool's own `effects` are checked by the effects rules as a
//! command's are.

mod description;
mod effects;
mod finding;
mod injection;
mod linter;
mod parameters;
mod rules;
mod trust;
mod values;

use atip_core::diagnostic::{locate, Diagnostic};
use atip_core::LoadOptions;
use serde_json::Value;

use linter::Linter;

pub use finding::{has_errors, Finding};
pub use injection::{InjectionVector, VectorKind, INJECTION_VECTORS};
pub use rules::{Rule, Severity, RULES};

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
        top: None,
    };
    l.root(root);
    l.findings
}
