//! Naming the parameter behind an effect reason: when a call's effects include those of a
//! parameter it gives (`x-atip-rust.effects`, [`crate::CallEffects`]), a reason the command
//! alone would not have says which parameter brought it (`` `--force` declares destructive ``),
//! so that a person knows what they confirm and a model knows what to drop.

use super::{Reason, ReasonCode};
use crate::{CallEffects, Effects};

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

/// Rewrites each reason of `reasons` that a parameter of the call brings — the command's own
/// effects do not declare it, a given parameter's do — to name that parameter (or those
/// parameters). A cost above the policy's maximum is named after the parameters whose own
/// estimate is higher than the command's.
pub(super) fn name_parameters(reasons: &mut [Reason], from: &CallEffects) {
    let own = declared(&from.command);
    for reason in reasons.iter_mut() {
        let brought_by = |p: &&crate::ParamEffects| match reason.code {
            ReasonCode::CostExceeded => p.effects.cost_estimate() > from.command.cost_estimate(),
            code => !own.contains(&code) && declared(&p.effects).contains(&code),
        };
        let labels: Vec<String> = from
            .params
            .iter()
            .filter(brought_by)
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
