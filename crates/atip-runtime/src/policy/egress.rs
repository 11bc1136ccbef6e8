//! `egressRules`: host patterns for the commands a rule names, joined with the policy's
//! top-level `egress` into one call's rules ([`super::Policy::egress_for`]). The patterns and
//! the check itself are the sandbox's (`atip_sandbox::hosts`).

use serde::{Deserialize, Serialize};

use super::HostPattern;

/// One entry of `egressRules`: host patterns for the commands matching `commands`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct EgressRule {
    /// Command patterns (globs over the flattened name or the command path, as for
    /// [`ArgumentRule::commands`](super::ArgumentRule::commands)); empty: every command.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    /// Hosts these commands may reach besides the top-level ones.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<HostPattern>,
    /// Hosts these commands may never reach.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<HostPattern>,
}

impl EgressRule {
    /// Whether the rule applies to the command `name` / `title`.
    pub fn applies_to(&self, name: &str, title: &str) -> bool {
        super::rule_applies(&self.commands, name, title)
    }
}
