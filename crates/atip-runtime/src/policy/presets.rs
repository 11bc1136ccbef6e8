//! The trust-tiered policy presets of the atip-execute design (spec §3.2.2's trust levels):
//!
//! | trust | preset |
//! |---|---|
//! | `native`, `vendor` | the default policy: destructive (or undeclared) needs confirmation, interactive is refused |
//! | `org` | the same: confirmation for destructive |
//! | `community`, `user` | destructive refused; non-reversible, billable, network, writes and deletes need confirmation |
//! | `inferred` (or none) | every risky effect refused; everything else needs confirmation |

use super::{EffectRule, Policy};
use crate::TrustSource;

impl Policy {
    /// The preset for metadata of trust `trust` (see the table above). Commands are judged by
    /// their declared effects as always; the preset only sets how strict each rule is.
    pub fn for_trust(trust: TrustSource) -> Policy {
        let base = Policy::default();
        match trust {
            TrustSource::Native | TrustSource::Vendor | TrustSource::Org => base,
            TrustSource::Community | TrustSource::User => Policy {
                destructive: EffectRule::Deny,
                non_reversible: EffectRule::Confirm,
                billable: EffectRule::Confirm,
                network: EffectRule::Confirm,
                filesystem_write: EffectRule::Confirm,
                filesystem_delete: EffectRule::Confirm,
                ..base
            },
            TrustSource::Inferred => Policy {
                destructive: EffectRule::Deny,
                non_reversible: EffectRule::Deny,
                billable: EffectRule::Deny,
                network: EffectRule::Deny,
                filesystem_write: EffectRule::Deny,
                filesystem_delete: EffectRule::Deny,
                baseline: EffectRule::Confirm,
                ..base
            },
        }
    }
}
