//! The policy gate: decides from a command's merged effects (spec §3.6, §11.2) whether it may
//! run, needs a person's confirmation, or is refused.
//!
//! Defaults follow atip-execute: a destructive command needs confirmation, an interactive one
//! (stdin `required`/`password`, `prompts`, `tty`) is refused, everything else is allowed.
//! Every reason is listed, never only the first.

use std::fmt;

use crate::{Effects, Invocation};

/// What the gate checks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// Run destructive commands (`effects.destructive: true`) without confirmation.
    /// Default `false`: they need confirmation.
    pub allow_destructive: bool,
    /// Run commands that need a terminal or input (`interactive.stdin` `required` or
    /// `password`, `prompts`, `tty`). Default `false`: they are refused, since a command run
    /// by an agent has no terminal and would hang or fail. A command declared
    /// non-interactive is never refused for it.
    pub allow_interactive: bool,
}

/// Machine-readable reason codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReasonCode {
    /// `effects.destructive` is `true`.
    Destructive,
    /// The command needs a terminal or input.
    Interactive,
}

impl ReasonCode {
    /// Stable kebab-case spelling, e.g. `destructive`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasonCode::Destructive => "destructive",
            ReasonCode::Interactive => "interactive",
        }
    }
}

/// One reason behind a [`Decision`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// What triggered it.
    pub code: ReasonCode,
    /// A sentence for people (and models).
    pub message: String,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

/// The gate's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it.
    Allow,
    /// Run it only after a person confirms; every reason is listed.
    NeedsConfirmation(Vec<Reason>),
    /// Do not run it; every violation is listed (and any confirmation reasons after them).
    Deny(Vec<Reason>),
}

impl Policy {
    /// Judges a command by its name and merged effects.
    pub fn evaluate(&self, invocation: &Invocation) -> Decision {
        self.evaluate_effects(&invocation.name, &invocation.effects)
    }

    /// Judges a command with merged `effects`; `name` is its flattened name (reserved for
    /// per-command rules).
    pub fn evaluate_effects(&self, name: &str, effects: &Effects) -> Decision {
        let _ = name;
        let mut deny = Vec::new();
        let mut confirm = Vec::new();
        let needs = effects.interactive_requirements();
        if !needs.is_empty() && !self.allow_interactive {
            deny.push(Reason {
                code: ReasonCode::Interactive,
                message: format!("needs {} and cannot run unattended", needs.join(", ")),
            });
        }
        if effects.destructive == Some(true) && !self.allow_destructive {
            confirm.push(Reason {
                code: ReasonCode::Destructive,
                message: "declared to permanently destroy data".to_owned(),
            });
        }
        if !deny.is_empty() {
            deny.extend(confirm);
            Decision::Deny(deny)
        } else if !confirm.is_empty() {
            Decision::NeedsConfirmation(confirm)
        } else {
            Decision::Allow
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fx(json: &str) -> Effects {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn destructive_needs_confirmation_by_default() {
        let d = Policy::default().evaluate_effects("git_clean", &fx(r#"{"destructive": true}"#));
        match d {
            Decision::NeedsConfirmation(r) => {
                assert_eq!(r.len(), 1);
                assert_eq!(r[0].code, ReasonCode::Destructive);
            }
            other => panic!("{other:?}"),
        }
        let allow = Policy {
            allow_destructive: true,
            ..Policy::default()
        };
        assert_eq!(
            allow.evaluate_effects("git_clean", &fx(r#"{"destructive": true}"#)),
            Decision::Allow
        );
    }

    #[test]
    fn unknown_and_safe_effects_are_allowed() {
        let p = Policy::default();
        assert_eq!(p.evaluate_effects("x", &Effects::UNKNOWN), Decision::Allow);
        assert_eq!(
            p.evaluate_effects("x", &fx(r#"{"destructive": false}"#)),
            Decision::Allow
        );
        let quiet = fx(r#"{"interactive": {"stdin": "none", "prompts": false, "tty": false}}"#);
        assert_eq!(p.evaluate_effects("x", &quiet), Decision::Allow);
    }

    #[test]
    fn interactive_is_denied_with_every_reason_listed() {
        let e = fx(r#"{"destructive": true, "interactive": {"stdin": "password", "tty": true}}"#);
        match Policy::default().evaluate_effects("x", &e) {
            Decision::Deny(r) => {
                assert_eq!(
                    r.iter().map(|r| r.code).collect::<Vec<_>>(),
                    [ReasonCode::Interactive, ReasonCode::Destructive]
                );
                assert_eq!(
                    r[0].message,
                    "needs password on stdin, tty and cannot run unattended"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
