//! Reviewing ATIP metadata (spec v0.6): [`lint()`] a document, [`diff()`] two versions of one.
//!
//! **Lint** reports findings, each with a rule id and a severity ([`Severity::Error`] or
//! [`Severity::Warn`]). The rules ([`RULES`]) are those of the spec's reference linter
//! (`atip-lint`: same ids, same default severities, same checks) and three of this project's
//! own: options that can run programs or write arbitrary files ([`INJECTION_VECTORS`]),
//! positional arguments in an order no call can fill, and effects that the conservative merge
//! overrides. The document's schema check (`atip_core::load`, strict) comes first, as rule
//! `schema`; the reference linter's rules read the JSON itself, so a document the schema
//! rejects (wrong-typed effects, say) is still reviewed.
//!
//! ```
//! let text = r#"{"atip": {"version": "0.6"}, "name": "t", "version": "1", "description": "A test tool",
//!   "commands": {"purge": {"description": "Delete everything", "effects": {"destructive": true}}}}"#;
//! let findings = atip_lint::lint(text);
//! assert_eq!(findings[0].rule, "destructive-needs-reversible");
//! assert_eq!(findings[0].severity, atip_lint::Severity::Warn);
//! assert_eq!(findings[0].path.to_string(), "$.commands.purge.effects");
//! ```
//!
//! **Diff** compares two documents and names each change with the reference differ's change
//! ids ([`ChangeKind`]: `command-removed`, `required-argument-added`, `destructive-added`, …),
//! sorted into breaking, non-breaking and effects changes, with a semantic-version
//! recommendation ([`Bump`]).
#![deny(missing_docs)]

pub mod diff;
pub mod lint;

pub use diff::{
    diff, diff_texts, Bump, Category, Change, ChangeKind, DiffError, DiffReport, Impact,
};
pub use lint::{
    has_errors, lint, lint_value, Finding, InjectionVector, Rule, Severity, VectorKind,
    INJECTION_VECTORS, RULES,
};
