//! One pass through the gate: the policy's decision on a call and, with it, everything the
//! sandbox needs from the policy to run that call.

use std::path::{Path, PathBuf};

use super::{Decision, Egress, Policy, ResourceLimits};
use crate::Invocation;

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
}

impl Policy {
    /// Judges `invocation` about to run in `working_dir` ([`Policy::evaluate_in`]) and says,
    /// in the same pass, what its run may have ([`Confinement`]): what the runner acts on.
    pub fn gate(&self, invocation: &Invocation, working_dir: &Path) -> Gate {
        Gate {
            decision: self.evaluate_in(invocation, working_dir),
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
