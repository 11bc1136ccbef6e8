//! Naming the parameter behind an effect reason: when a call's effects include those of a
//! parameter it gives (`x-atip-rust.effects`, [`crate::CallEffects`]), a reason the command
//! alone would not have says which parameter brought it (`` `--force` declares destructive ``),
//! so that a person knows what they confirm and a model knows what to drop.

use super::{Reason, ReasonCode, ReasonSeverity};
use crate::command::{CallEffects, ParamEffects};
use crate::Effects;

/// The effect reason codes whose triggering value `effects` declares (whatever a policy does
/// with them).
fn declared(effects: &Effects) -> Vec<ReasonCode> {
    let mut codes = Vec::new();
    let mut when = |yes: bool, code| {
        if yes {
            codes.push(code);
        }
    };
    when(effects.destructive == Some(true), ReasonCode::Destructive);
    when(effects.reversible == Some(false), ReasonCode::NonReversible);
    when(effects.billable() == Some(true), ReasonCode::Billable);
    when(
        effects.filesystem_delete() == Some(true),
        ReasonCode::FilesystemDelete,
    );
    when(effects.network == Some(true), ReasonCode::Network);
    when(
        effects.filesystem_write() == Some(true),
        ReasonCode::FilesystemWrite,
    );
    when(
        !effects.interactive_requirements().is_empty(),
        ReasonCode::Interactive,
    );
    codes
}

/// The parameters of the call that brought `reason`: its code is an effect the command's own
/// effects do not declare and these parameters' do (for a cost above the maximum: whose
/// estimate is higher than the command's). None for a reason the command brings itself, or
/// one that is not about effects.
pub(crate) fn brought_by<'f>(
    reason: &Reason,
    from: &'f CallEffects,
) -> impl Iterator<Item = &'f ParamEffects> {
    let code = reason.code;
    let own = declared(&from.command);
    from.params.iter().filter(move |p| match code {
        ReasonCode::CostExceeded => p.effects.cost_estimate() > from.command.cost_estimate(),
        code => !own.contains(&code) && declared(&p.effects).contains(&code),
    })
}

/// Rewrites each reason of `reasons` that a parameter of the call brings — the command's own
/// effects do not declare it, a given parameter's do — to name that parameter (or those
/// parameters). A cost above the policy's maximum is named after the parameters whose own
/// estimate is higher than the command's.
pub(super) fn name_parameters(reasons: &mut [Reason], from: &CallEffects) {
    for reason in reasons.iter_mut() {
        let labels: Vec<String> = brought_by(reason, from)
            .map(|p| format!("`{}`", p.label))
            .collect();
        if labels.is_empty() {
            continue;
        }
        reason.message = format!(
            "{} {} {} (the command alone does not)",
            labels.join(", "),
            if labels.len() == 1 {
                "declares"
            } else {
                "declare"
            },
            reason.code.as_str()
        );
    }
}

impl Reason {
    /// The reason as a model is told it: what the metadata declares is said as is (effects,
    /// the options that bring them, what a command needs), while what belongs to the policy —
    /// its command patterns, allowed values and patterns, path roots, trust levels, cost
    /// ceiling — is reduced to the rule's name and the parameter it concerns, so a prompt
    /// injection cannot read the policy back through refusals.
    pub fn for_model(&self) -> String {
        // The parameter an argument rule's message begins with (`parameter `method``).
        let parameter = || {
            self.message
                .split_once(':')
                .map(|(head, _)| head)
                .filter(|head| head.starts_with("parameter `"))
                .unwrap_or("a parameter")
        };
        let sentence = match self.code {
            ReasonCode::DenyListed => "the policy does not allow this command".to_owned(),
            ReasonCode::NotAllowListed => {
                "this command is not among those the policy allows".to_owned()
            }
            ReasonCode::LowTrust => "its metadata is not trusted enough for this policy".to_owned(),
            ReasonCode::CostExceeded => {
                "its declared cost is above what the policy allows".to_owned()
            }
            ReasonCode::Baseline if self.severity == ReasonSeverity::Deny => {
                "the policy refuses every command".to_owned()
            }
            ReasonCode::Baseline => "the policy asks a person about every command".to_owned(),
            ReasonCode::ArgumentDenied => self.message.clone(),
            ReasonCode::ArgumentNotAllowed => {
                format!("{}: this value is not allowed by the policy", parameter())
            }
            ReasonCode::PathOutsideRoots => format!(
                "{}: the path is outside the directories this policy lets commands use",
                parameter()
            ),
            _ => self.message.clone(),
        };
        format!("{}: {sentence}", self.code.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(code: ReasonCode, message: &str) -> Reason {
        Reason {
            code,
            message: message.to_owned(),
            severity: ReasonSeverity::Deny,
        }
    }

    #[test]
    fn what_belongs_to_the_policy_is_reduced_to_the_rule_and_the_parameter() {
        let cases = [
            (
                reason(
                    ReasonCode::PathOutsideRoots,
                    "parameter `path`: \"../x\" resolves to /home/me/x which is outside the \
                     allowed root /home/me/work",
                ),
                "path-outside-roots: parameter `path`: the path is outside the directories \
                 this policy lets commands use",
            ),
            (
                reason(
                    ReasonCode::ArgumentNotAllowed,
                    "parameter `method`: \"rebase\" does not match the allowed pattern `sq.*`",
                ),
                "argument-not-allowed: parameter `method`: this value is not allowed by the \
                 policy",
            ),
            (
                reason(
                    ReasonCode::LowTrust,
                    "metadata trust `community` is below the required `org`",
                ),
                "low-trust: its metadata is not trusted enough for this policy",
            ),
            (
                reason(
                    ReasonCode::CostExceeded,
                    "cost estimate `high` exceeds the allowed `low`",
                ),
                "cost-exceeded: its declared cost is above what the policy allows",
            ),
            (
                reason(
                    ReasonCode::Destructive,
                    "declared to permanently destroy data",
                ),
                "destructive: declared to permanently destroy data",
            ),
        ];
        for (reason, told) in cases {
            assert_eq!(reason.for_model(), told);
        }
    }
}
