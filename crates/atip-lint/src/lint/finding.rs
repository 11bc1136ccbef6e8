//! One finding of the linter (rule, severity, JSON path, message, location) and how it is
//! printed and serialised.

use std::fmt;

use atip_core::diagnostic::{JsonPath, Location};
use serde::Serialize;

use super::rules::Severity;

/// One finding: which rule, how serious, where, and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule id ([`RULES`](crate::RULES)).
    pub rule: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// Where, e.g. `$.commands.purge.effects`.
    #[serde(serialize_with = "display")]
    pub path: JsonPath,
    /// What is wrong.
    pub message: String,
    /// Line and column in the text, when [`lint`](crate::lint()) read the text.
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
