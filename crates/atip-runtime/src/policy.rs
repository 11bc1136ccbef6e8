//! The policy gate: decides from a command's merged effects, trust and name whether it may run,
//! needs a person's confirmation, or is refused (spec §3.6, §3.1.1, §3.2.2, §11.2).
//!
//! | rule | default | when it applies |
//! |---|---|---|
//! | `allow_destructive` | `false` | `destructive: true` needs confirmation |
//! | `allow_non_reversible` | `true` | when `false`: `reversible: false` needs confirmation |
//! | `allow_billable` | `true` | when `false`: `cost.billable: true` needs confirmation |
//! | `allow_filesystem_delete` | `true` | when `false`: `filesystem.delete: true` needs confirmation |
//! | `allow_network` | `true` | when `false`: `network: true` is refused |
//! | `allow_filesystem_write` | `true` | when `false`: `filesystem.write: true` is refused |
//! | `max_cost_estimate` | `high` | a higher `cost.estimate` is refused |
//! | `min_trust_level` | `inferred` | metadata from a lower (or undeclared) `trust.source` is refused |
//! | `allow_interactive` | `false` | `interactive` stdin required/password, `prompts`, `tty` is refused |
//! | `deny_commands` | none | a flattened name matching one of these globs is refused |
//! | `allow_commands` | all | when not empty: a name matching none of these globs is refused |
//! | `require_known_effects` | `false` | when `true`: an effect a rule restricts but the metadata leaves undeclared counts as present |
//!
//! Trust order: native > vendor > org > community > user > inferred. Unknown effects are
//! unknown: by default a rule only fires on a declared effect, and `require_known_effects` makes
//! the gate ask for proof of safety instead. Commands missing from partial metadata
//! (`partial: true`) follow `omitted.safetyAssumption`: `unknown` and `known-unsafe` need
//! confirmation; `known-safe` and `same-as-included` are judged like listed commands.
//!
//! Every reason is listed, with a code, a message and a severity, never only the first.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::SafetyAssumption;
use crate::{CostEstimate, Effects, Invocation, TrustSource};

/// What the gate checks. Deserialises from the camelCase fields of atip-execute's policy
/// (`allowDestructive`, `minTrustLevel`, …); absent fields take their defaults and unknown ones
/// are rejected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Policy {
    /// Run destructive commands without confirmation. Default `false`.
    pub allow_destructive: bool,
    /// Run commands declared not reversible without confirmation. Default `true`.
    pub allow_non_reversible: bool,
    /// Run billable commands without confirmation. Default `true`.
    pub allow_billable: bool,
    /// Run commands that use the network. Default `true`; when `false` they are refused.
    pub allow_network: bool,
    /// Run commands that write files. Default `true`; when `false` they are refused.
    pub allow_filesystem_write: bool,
    /// Run commands that delete files without confirmation. Default `true`.
    pub allow_filesystem_delete: bool,
    /// The highest `cost.estimate` allowed. Default `high` (all).
    pub max_cost_estimate: CostEstimate,
    /// The lowest `trust.source` allowed. Default `inferred` (all).
    pub min_trust_level: TrustSource,
    /// Run interactive commands (they get `/dev/null` or the given bytes as stdin). Default
    /// `false`: refused, since nobody can answer their prompts.
    pub allow_interactive: bool,
    /// Globs (`*`, `?`, `[…]`) over flattened names; when not empty, only matching commands run.
    pub allow_commands: Vec<String>,
    /// Globs over flattened names that are refused, whatever their effects say.
    pub deny_commands: Vec<String>,
    /// Treat an effect a rule restricts as present unless the metadata declares it absent.
    /// Default `false`.
    pub require_known_effects: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            allow_destructive: false,
            allow_non_reversible: true,
            allow_billable: true,
            allow_network: true,
            allow_filesystem_write: true,
            allow_filesystem_delete: true,
            max_cost_estimate: CostEstimate::High,
            min_trust_level: TrustSource::Inferred,
            allow_interactive: false,
            allow_commands: Vec::new(),
            deny_commands: Vec::new(),
            require_known_effects: false,
        }
    }
}

/// Machine-readable reason codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReasonCode {
    /// `effects.destructive`.
    Destructive,
    /// `effects.reversible: false`.
    NonReversible,
    /// `effects.cost.billable`.
    Billable,
    /// `effects.network`.
    Network,
    /// `effects.filesystem.write`.
    FilesystemWrite,
    /// `effects.filesystem.delete`.
    FilesystemDelete,
    /// `effects.cost.estimate` above the maximum.
    CostExceeded,
    /// `trust.source` below the minimum, or undeclared.
    LowTrust,
    /// The command needs a terminal or input.
    Interactive,
    /// The name matches `deny_commands`.
    DenyListed,
    /// `allow_commands` is set and the name matches none of it.
    NotAllowListed,
    /// The command is not in the loaded (partial) metadata.
    NotInMetadata,
}

impl ReasonCode {
    /// Stable kebab-case spelling, e.g. `filesystem-delete`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasonCode::Destructive => "destructive",
            ReasonCode::NonReversible => "non-reversible",
            ReasonCode::Billable => "billable",
            ReasonCode::Network => "network",
            ReasonCode::FilesystemWrite => "filesystem-write",
            ReasonCode::FilesystemDelete => "filesystem-delete",
            ReasonCode::CostExceeded => "cost-exceeded",
            ReasonCode::LowTrust => "low-trust",
            ReasonCode::Interactive => "interactive",
            ReasonCode::DenyListed => "deny-listed",
            ReasonCode::NotAllowListed => "not-allow-listed",
            ReasonCode::NotInMetadata => "not-in-metadata",
        }
    }
}

/// How serious a [`Reason`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReasonSeverity {
    /// A person may allow it.
    Confirm,
    /// The policy refuses it.
    Deny,
}

/// One reason behind a [`Decision`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// What triggered it.
    pub code: ReasonCode,
    /// A sentence for people and models.
    pub message: String,
    /// Confirmation or refusal.
    pub severity: ReasonSeverity,
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
    /// Do not run it; every reason is listed, refusals first.
    Deny(Vec<Reason>),
}

impl Decision {
    /// All reasons, refusals first.
    pub fn reasons(&self) -> &[Reason] {
        match self {
            Decision::Allow => &[],
            Decision::NeedsConfirmation(r) | Decision::Deny(r) => r,
        }
    }
}

/// Whether a flattened name matches a glob (`*`, `?`, `[…]`); an invalid glob matches only
/// itself literally.
pub fn name_matches(pattern: &str, name: &str) -> bool {
    match glob::Pattern::new(pattern) {
        Ok(p) => p.matches(name),
        Err(_) => pattern == name,
    }
}

impl Policy {
    /// A policy from its JSON form (see [`Policy`]).
    ///
    /// # Errors
    ///
    /// serde_json's error for invalid JSON, a wrong type or an unknown field.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Judges a command about to run.
    pub fn evaluate(&self, invocation: &Invocation) -> Decision {
        let mut reasons = self.effect_reasons(&invocation.name, &invocation.effects);
        self.trust_reasons(invocation.trust, &mut reasons);
        if let Some(assumption) = invocation.unlisted {
            let message = match assumption {
                SafetyAssumption::Unknown => Some(
                    "not in the loaded (partial) metadata; its safety is unknown".to_owned(),
                ),
                SafetyAssumption::KnownUnsafe => Some(
                    "not in the loaded (partial) metadata, whose omitted commands include destructive ones"
                        .to_owned(),
                ),
                SafetyAssumption::KnownSafe | SafetyAssumption::SameAsIncluded => None,
            };
            if let Some(message) = message {
                reasons.push(Reason {
                    code: ReasonCode::NotInMetadata,
                    message,
                    severity: ReasonSeverity::Confirm,
                });
            }
        }
        decide(reasons)
    }

    /// Judges a command by its flattened name and merged effects (trust not considered).
    pub fn evaluate_effects(&self, name: &str, effects: &Effects) -> Decision {
        decide(self.effect_reasons(name, effects))
    }

    fn trust_reasons(&self, trust: Option<TrustSource>, reasons: &mut Vec<Reason>) {
        let min = self.min_trust_level;
        match trust {
            Some(t) if t.rank() < min.rank() => reasons.push(Reason {
                code: ReasonCode::LowTrust,
                message: format!(
                    "metadata trust `{}` is below the required `{}`",
                    t.as_str(),
                    min.as_str()
                ),
                severity: ReasonSeverity::Deny,
            }),
            None if min != TrustSource::Inferred => reasons.push(Reason {
                code: ReasonCode::LowTrust,
                message: format!(
                    "metadata declares no trust source; `{}` or better is required",
                    min.as_str()
                ),
                severity: ReasonSeverity::Deny,
            }),
            _ => {}
        }
    }

    fn effect_reasons(&self, name: &str, e: &Effects) -> Vec<Reason> {
        let mut reasons = Vec::new();
        let strict = self.require_known_effects;
        // (declared value, whether it triggers, restricted by the policy, code, severity, text)
        let mut rule = |value: Option<bool>,
                        trigger: bool,
                        restricted: bool,
                        code: ReasonCode,
                        severity: ReasonSeverity,
                        declared: &str,
                        field: &str| {
            if !restricted {
                return;
            }
            match value {
                Some(v) if v == trigger => reasons.push(Reason {
                    code,
                    message: declared.to_owned(),
                    severity,
                }),
                None if strict => reasons.push(Reason {
                    code,
                    message: format!(
                        "`{field}` is not declared, and the policy requires known effects"
                    ),
                    severity,
                }),
                _ => {}
            }
        };
        use ReasonSeverity::{Confirm, Deny};
        rule(
            e.destructive,
            true,
            !self.allow_destructive,
            ReasonCode::Destructive,
            Confirm,
            "declared to permanently destroy data",
            "destructive",
        );
        rule(
            e.reversible,
            false,
            !self.allow_non_reversible,
            ReasonCode::NonReversible,
            Confirm,
            "declared not reversible",
            "reversible",
        );
        rule(
            e.billable(),
            true,
            !self.allow_billable,
            ReasonCode::Billable,
            Confirm,
            "declared billable: it may cost money",
            "cost.billable",
        );
        rule(
            e.filesystem_delete(),
            true,
            !self.allow_filesystem_delete,
            ReasonCode::FilesystemDelete,
            Confirm,
            "declared to delete files",
            "filesystem.delete",
        );
        rule(
            e.network,
            true,
            !self.allow_network,
            ReasonCode::Network,
            Deny,
            "uses the network, which the policy does not allow",
            "network",
        );
        rule(
            e.filesystem_write(),
            true,
            !self.allow_filesystem_write,
            ReasonCode::FilesystemWrite,
            Deny,
            "writes files, which the policy does not allow",
            "filesystem.write",
        );
        let needs = e.interactive_requirements();
        let declared_quiet = e
            .interactive
            .as_ref()
            .is_some_and(|i| i.stdin.is_some() && i.prompts.is_some() && i.tty.is_some());
        rule(
            if needs.is_empty() {
                if declared_quiet || !strict {
                    Some(false)
                } else {
                    None
                }
            } else {
                Some(true)
            },
            true,
            !self.allow_interactive,
            ReasonCode::Interactive,
            Deny,
            &format!("needs {} and cannot run unattended", needs.join(", ")),
            "interactive",
        );
        if self.max_cost_estimate < CostEstimate::High {
            match e.cost_estimate() {
                Some(c) if c > self.max_cost_estimate => reasons.push(Reason {
                    code: ReasonCode::CostExceeded,
                    message: format!(
                        "cost estimate `{}` exceeds the allowed `{}`",
                        c.as_str(),
                        self.max_cost_estimate.as_str()
                    ),
                    severity: Deny,
                }),
                None if strict => reasons.push(Reason {
                    code: ReasonCode::CostExceeded,
                    message:
                        "`cost.estimate` is not declared, and the policy requires known effects"
                            .to_owned(),
                    severity: Deny,
                }),
                _ => {}
            }
        }
        if let Some(p) = self.deny_commands.iter().find(|p| name_matches(p, name)) {
            reasons.push(Reason {
                code: ReasonCode::DenyListed,
                message: format!("`{name}` matches the denied pattern `{p}`"),
                severity: Deny,
            });
        }
        if !self.allow_commands.is_empty()
            && !self.allow_commands.iter().any(|p| name_matches(p, name))
        {
            reasons.push(Reason {
                code: ReasonCode::NotAllowListed,
                message: format!("`{name}` matches none of the allowed commands"),
                severity: Deny,
            });
        }
        reasons
    }
}

fn decide(mut reasons: Vec<Reason>) -> Decision {
    if reasons.is_empty() {
        return Decision::Allow;
    }
    // Refusals first, each group in rule order.
    reasons.sort_by_key(|r| std::cmp::Reverse(r.severity));
    if reasons[0].severity == ReasonSeverity::Deny {
        Decision::Deny(reasons)
    } else {
        Decision::NeedsConfirmation(reasons)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn fx(json: &str) -> Effects {
        serde_json::from_str(json).unwrap()
    }

    fn inv(name: &str, effects: &str, trust: Option<TrustSource>) -> Invocation {
        Invocation {
            name: Cow::Owned(name.to_owned()),
            argv: vec![name.into()],
            effects: Cow::Owned(fx(effects)),
            trust,
            unlisted: None,
        }
    }

    fn codes(d: &Decision) -> Vec<(ReasonCode, ReasonSeverity)> {
        d.reasons().iter().map(|r| (r.code, r.severity)).collect()
    }

    use ReasonCode as C;
    use ReasonSeverity::{Confirm, Deny};

    #[test]
    fn defaults_follow_atip_execute() {
        let p = Policy::default();
        assert!(!p.allow_destructive && !p.allow_interactive && !p.require_known_effects);
        assert!(p.allow_non_reversible && p.allow_billable && p.allow_network);
        assert!(p.allow_filesystem_write && p.allow_filesystem_delete);
        assert_eq!(p.max_cost_estimate, CostEstimate::High);
        assert_eq!(p.min_trust_level, TrustSource::Inferred);
        let all = r#"{"destructive": true, "reversible": false, "idempotent": false, "network": true,
                      "filesystem": {"write": true, "delete": true}, "cost": {"billable": true, "estimate": "high"}}"#;
        let d = p.evaluate(&inv("x", all, None));
        assert_eq!(
            codes(&d),
            [(C::Destructive, Confirm)],
            "only destructive needs confirmation by default"
        );
        assert_eq!(
            p.evaluate(&inv("x", "{}", None)),
            Decision::Allow,
            "unknown effects are allowed by default"
        );
    }

    #[test]
    fn each_rule_fires_with_its_severity_and_all_are_listed() {
        let p = Policy {
            allow_non_reversible: false,
            allow_billable: false,
            allow_network: false,
            allow_filesystem_write: false,
            allow_filesystem_delete: false,
            max_cost_estimate: CostEstimate::Low,
            ..Policy::default()
        };
        let all = r#"{"destructive": true, "reversible": false, "network": true,
                      "filesystem": {"write": true, "delete": true}, "cost": {"billable": true, "estimate": "medium"},
                      "interactive": {"tty": true}}"#;
        let d = p.evaluate(&inv("x", all, None));
        assert!(matches!(d, Decision::Deny(_)));
        assert_eq!(
            codes(&d),
            [
                (C::Network, Deny),
                (C::FilesystemWrite, Deny),
                (C::Interactive, Deny),
                (C::CostExceeded, Deny),
                (C::Destructive, Confirm),
                (C::NonReversible, Confirm),
                (C::Billable, Confirm),
                (C::FilesystemDelete, Confirm),
            ]
        );
        let confirm_only = r#"{"reversible": false, "cost": {"billable": true, "estimate": "low"}, "filesystem": {"delete": true, "write": false}, "network": false}"#;
        let d = p.evaluate(&inv("x", confirm_only, None));
        assert!(matches!(d, Decision::NeedsConfirmation(_)));
        assert_eq!(
            codes(&d),
            [
                (C::NonReversible, Confirm),
                (C::Billable, Confirm),
                (C::FilesystemDelete, Confirm)
            ]
        );
        let safe = r#"{"reversible": true, "network": false, "filesystem": {"write": false, "delete": false}, "cost": {"billable": false, "estimate": "free"}}"#;
        assert_eq!(p.evaluate(&inv("x", safe, None)), Decision::Allow);
    }

    #[test]
    fn interactive_commands_are_refused_unless_allowed() {
        let p = Policy::default();
        for e in [
            r#"{"interactive": {"stdin": "required"}}"#,
            r#"{"interactive": {"stdin": "password"}}"#,
            r#"{"interactive": {"prompts": true}}"#,
            r#"{"interactive": {"tty": true}}"#,
        ] {
            assert_eq!(
                codes(&p.evaluate(&inv("x", e, None))),
                [(C::Interactive, Deny)],
                "{e}"
            );
        }
        let quiet = r#"{"interactive": {"stdin": "optional", "prompts": false, "tty": false}}"#;
        assert_eq!(p.evaluate(&inv("x", quiet, None)), Decision::Allow);
        let allowed = Policy {
            allow_interactive: true,
            ..Policy::default()
        };
        assert_eq!(
            allowed.evaluate(&inv("x", r#"{"interactive": {"tty": true}}"#, None)),
            Decision::Allow
        );
    }

    #[test]
    fn trust_levels_are_ordered_and_undeclared_trust_is_not_enough() {
        let p = Policy {
            min_trust_level: TrustSource::Org,
            ..Policy::default()
        };
        for (t, ok) in [
            (TrustSource::Native, true),
            (TrustSource::Vendor, true),
            (TrustSource::Org, true),
            (TrustSource::Community, false),
            (TrustSource::User, false),
            (TrustSource::Inferred, false),
        ] {
            let d = p.evaluate(&inv("x", "{}", Some(t)));
            assert_eq!(d == Decision::Allow, ok, "{t:?}");
        }
        assert_eq!(
            codes(&p.evaluate(&inv("x", "{}", None))),
            [(C::LowTrust, Deny)]
        );
        assert_eq!(
            Policy::default().evaluate(&inv("x", "{}", None)),
            Decision::Allow
        );
    }

    #[test]
    fn allow_and_deny_lists_use_globs_on_flattened_names() {
        let p = Policy {
            allow_commands: vec!["git_*".into(), "ls".into()],
            deny_commands: vec!["git_push*".into(), "*_delete".into()],
            ..Policy::default()
        };
        assert_eq!(p.evaluate(&inv("git_status", "{}", None)), Decision::Allow);
        assert_eq!(p.evaluate(&inv("ls", "{}", None)), Decision::Allow);
        assert_eq!(
            codes(&p.evaluate(&inv("git_push", "{}", None))),
            [(C::DenyListed, Deny)]
        );
        assert_eq!(
            codes(&p.evaluate(&inv("gh_repo_delete", "{}", None))),
            [(C::DenyListed, Deny), (C::NotAllowListed, Deny)]
        );
        // Metadata that lies about being harmless is still subject to the lists.
        let lying = r#"{"destructive": false, "reversible": true}"#;
        assert!(matches!(
            p.evaluate(&inv("git_push_force", lying, None)),
            Decision::Deny(_)
        ));
        assert!(name_matches("a[bc]d", "acd") && !name_matches("a?", "abc"));
        assert!(
            name_matches("[", "[") && !name_matches("[", "x"),
            "invalid globs match literally"
        );
    }

    #[test]
    fn require_known_effects_asks_for_proof_of_safety() {
        let strict = Policy {
            require_known_effects: true,
            ..Policy::default()
        };
        let d = strict.evaluate(&inv("x", "{}", None));
        assert_eq!(
            codes(&d),
            [(C::Interactive, Deny), (C::Destructive, Confirm)]
        );
        assert!(d.reasons()[1]
            .message
            .contains("`destructive` is not declared"));
        let proven = r#"{"destructive": false, "interactive": {"stdin": "none", "prompts": false, "tty": false}}"#;
        assert_eq!(strict.evaluate(&inv("x", proven, None)), Decision::Allow);
        let no_net = Policy {
            allow_network: false,
            ..strict.clone()
        };
        assert!(codes(&no_net.evaluate(&inv("x", proven, None))).contains(&(C::Network, Deny)));
        let cheap = Policy {
            max_cost_estimate: CostEstimate::Low,
            ..strict
        };
        assert!(codes(&cheap.evaluate(&inv("x", proven, None))).contains(&(C::CostExceeded, Deny)));
    }

    #[test]
    fn unlisted_commands_follow_the_safety_assumption() {
        let p = Policy::default();
        let mut i = inv("kubectl_delete", "{}", None);
        for (a, expected) in [
            (SafetyAssumption::Unknown, vec![(C::NotInMetadata, Confirm)]),
            (
                SafetyAssumption::KnownUnsafe,
                vec![(C::NotInMetadata, Confirm)],
            ),
            (SafetyAssumption::KnownSafe, vec![]),
            (SafetyAssumption::SameAsIncluded, vec![]),
        ] {
            i.unlisted = Some(a);
            assert_eq!(codes(&p.evaluate(&i)), expected, "{a:?}");
        }
    }

    #[test]
    fn policies_read_camel_case_json_and_reject_typos() {
        let p = Policy::from_json(
            r#"{"allowDestructive": true, "minTrustLevel": "vendor", "maxCostEstimate": "low",
                "denyCommands": ["gh_repo_*"], "requireKnownEffects": true}"#,
        )
        .unwrap();
        assert!(p.allow_destructive && p.require_known_effects);
        assert_eq!(p.min_trust_level, TrustSource::Vendor);
        assert_eq!(p.max_cost_estimate, CostEstimate::Low);
        assert!(!p.allow_interactive, "absent fields keep their defaults");
        let err = Policy::from_json(r#"{"allowDestrutive": true}"#).unwrap_err();
        assert!(
            err.to_string().contains("unknown field `allowDestrutive`"),
            "{err}"
        );
        assert_eq!(Policy::from_json("{}").unwrap(), Policy::default());
    }
}
