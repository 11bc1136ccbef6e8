//! One pass through the gate: the policy's decision on a call and, with it, everything the
//! sandbox needs from the policy to run that call.

use std::path::{Path, PathBuf};

use super::{Decision, Egress, Policy, ReasonCode, ResourceLimits};
use crate::model::SafetyAssumption;
use crate::{Effects, Invocation, TrustSource};

/// What the policy lets one run have, beyond the effects its command declares: the input the
/// sandbox takes from the policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confinement {
    /// The run's resource limits ([`Policy::limits`]).
    pub limits: ResourceLimits,
    /// Refuse the run when the sandbox cannot enforce everything ([`Policy::require_sandbox`]).
    pub required: bool,
    /// The roots the call's `file` and `directory` arguments were held to, resolved against
    /// the working directory: a run without declared paths may write there too, and a path
    /// swapped for a link after the check leads nowhere outside.
    pub path_roots: Vec<PathBuf>,
    /// The hosts the call may reach, when the policy narrows its network.
    pub egress: Option<Egress>,
    /// The pathname Unix sockets the call may reach, as the policy writes them (`~/…`,
    /// `$XDG_RUNTIME_DIR/…`, absolute), resolved by the runner against the run's environment.
    pub unix_sockets: Vec<String>,
}

/// The gate's whole answer for one call ([`Policy::gate`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    /// Allow, ask a person, or refuse — with every reason.
    pub decision: Decision,
    /// What a run of the call gets from the policy, if it runs.
    pub confinement: Confinement,
    /// Whether the runner first tries the call without asking, in the tightest sandbox
    /// ([`Policy::tight_first`]): the decision asks a person, every reason is one a harmless
    /// first try can answer (an effect rule, the baseline, a command outside the loaded
    /// metadata — never an argument or command-list rule), and the call declares no write,
    /// delete or network, so nothing that declared such an effect ever runs twice.
    pub tight_first: bool,
}

impl Policy {
    /// Judges `invocation` about to run in `working_dir` ([`Policy::evaluate_in`]) and says,
    /// in the same pass, what its run may have ([`Confinement`]): what the runner acts on.
    pub fn gate(&self, invocation: &Invocation, working_dir: &Path) -> Gate {
        let decision = self.evaluate_in(invocation, working_dir);
        Gate {
            tight_first: self.tight_first
                && tight_first_answers(
                    &decision,
                    invocation,
                    self.effective_trust(invocation) == Some(TrustSource::Inferred),
                ),
            decision,
            confinement: Confinement {
                limits: self.limits,
                required: self.require_sandbox,
                path_roots: self.path_roots_for(invocation, working_dir),
                egress: self.egress_for(invocation),
                unix_sockets: self.unix_sockets.clone(),
            },
        }
    }
}

/// Whether a first try in the tightest sandbox can settle `decision` for `invocation`
/// ([`Gate::tight_first`]): every reason is an effect rule fired by an effect the metadata
/// leaves undeclared — or declares only as an importer's guess (`inferred` trust) —, a command
/// outside partial metadata whose safety is unknown, or, for inferred metadata, the baseline
/// (the trust preset's "ask about everything"); and the call declares no write, delete or
/// network. An effect a tool's own metadata declares (`destructive: true` from its vendor), a
/// baseline a policy sets for every tool, and a command the metadata's author calls unsafe
/// (`known-unsafe`) are asked about first, as before.
fn tight_first_answers(decision: &Decision, invocation: &Invocation, inferred: bool) -> bool {
    let Decision::NeedsConfirmation(reasons) = decision else {
        return false;
    };
    let effects: &Effects = &invocation.effects;
    let declares_more = effects.filesystem_write() == Some(true)
        || effects.filesystem_delete() == Some(true)
        || effects.network == Some(true);
    let unknown = |declared: Option<bool>| declared.is_none() || inferred;
    !declares_more
        && reasons.iter().all(|r| match r.code {
            ReasonCode::Baseline => inferred,
            ReasonCode::NotInMetadata => invocation.unlisted == Some(SafetyAssumption::Unknown),
            ReasonCode::Destructive => unknown(effects.destructive),
            ReasonCode::NonReversible => unknown(effects.reversible),
            ReasonCode::Billable => unknown(effects.billable()),
            ReasonCode::Network => unknown(effects.network),
            ReasonCode::FilesystemWrite => unknown(effects.filesystem_write()),
            ReasonCode::FilesystemDelete => unknown(effects.filesystem_delete()),
            ReasonCode::CostExceeded => effects.cost_estimate().is_none() || inferred,
            ReasonCode::Interactive => unknown(effects.interactive.as_ref().map(|_| true)),
            _ => false,
        })
}
