//! Session grants: a person's "yes, for the rest of this session" to a confirmation, kept by
//! one [`Runner`](super::Runner) and consulted before its confirmation handler is asked again.
//!
//! A grant names one command (by its flattened name) and covers either
//!
//! * [`GrantScope::SameReasons`] — later calls of that command whose reasons for confirmation
//!   are among the ones the person saw when granting (code *and* message, so a call that sets
//!   an option declaring more risk — `--force declares destructive` — is asked about again), or
//! * [`GrantScope::Command`] — every later call of that command that needs confirmation,
//!   whatever its reasons.
//!
//! A grant never turns a refusal into a run: refused calls ([`crate::policy::Decision::Deny`])
//! stay refused. Grants live as long as the runner that holds them: a clone of a runner starts
//! with none, two runners never share them, and [`Grants::clear`] forgets them all.

use std::sync::{Mutex, MutexGuard};

use crate::policy::{Reason, ReasonCode};

/// What a session grant covers; see the [module documentation](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GrantScope {
    /// Calls of the command whose reasons are all among those confirmed.
    SameReasons,
    /// Every call of the command that needs confirmation.
    Command,
}

impl GrantScope {
    /// `"sameReasons"` or `"command"`, as written in the audit log.
    pub fn as_str(self) -> &'static str {
        match self {
            GrantScope::SameReasons => "sameReasons",
            GrantScope::Command => "command",
        }
    }
}

/// One session grant: the command, what it covers, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The flattened command name (`gh_pr_merge`).
    pub command: String,
    /// What it covers.
    pub scope: GrantScope,
    /// The reasons the person was shown when granting, `(code, message)`.
    pub reasons: Vec<(ReasonCode, String)>,
    /// The call whose confirmation created the grant ([`crate::Invocation::call_id`]), if
    /// it had an id.
    pub origin_call_id: Option<String>,
    /// Who granted it: `"handler"` (the runner's confirmation handler), `"elicitation"` (the
    /// MCP server asked the client's user) or what the application passed to [`Grant::new`].
    pub granted_by: &'static str,
}

impl Grant {
    /// A grant for the command of `request`, covering `scope`, created by `granted_by`.
    pub fn new(
        request: &super::ConfirmationRequest,
        scope: GrantScope,
        granted_by: &'static str,
    ) -> Self {
        Grant {
            command: request.invocation.name.to_string(),
            scope,
            reasons: request
                .reasons
                .iter()
                .map(|r| (r.code, r.message.clone()))
                .collect(),
            origin_call_id: request.invocation.call_id.clone(),
            granted_by,
        }
    }

    /// Whether this grant lets a call of `command` that needs confirmation for `reasons` run.
    pub fn covers(&self, command: &str, reasons: &[Reason]) -> bool {
        if self.command != command {
            return false;
        }
        match self.scope {
            GrantScope::Command => true,
            GrantScope::SameReasons => reasons.iter().all(|r| {
                self.reasons
                    .iter()
                    .any(|(code, message)| *code == r.code && *message == r.message)
            }),
        }
    }

    /// The grant as the audit log records it: `{command, scope, originCallId, grantedBy}`.
    pub(super) fn audit_json(&self) -> serde_json::Value {
        serde_json::json!({
            "command": self.command,
            "scope": self.scope.as_str(),
            "originCallId": self.origin_call_id,
            "grantedBy": self.granted_by,
        })
    }
}

/// The session grants of one runner ([`Runner::grants`](super::Runner::grants)). Shared by
/// the concurrent calls of that runner; never by two runners.
#[derive(Debug, Default)]
pub struct Grants {
    list: Mutex<Vec<Grant>>,
}

impl Grants {
    fn lock(&self) -> MutexGuard<'_, Vec<Grant>> {
        self.list.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds `grant` (the application asked the person itself, e.g. through MCP elicitation).
    pub fn grant(&self, grant: Grant) {
        let mut list = self.lock();
        if !list.contains(&grant) {
            list.push(grant);
        }
    }

    /// The first grant that lets a call of `command` needing confirmation for `reasons` run.
    pub fn covering(&self, command: &str, reasons: &[Reason]) -> Option<Grant> {
        self.lock()
            .iter()
            .find(|g| g.covers(command, reasons))
            .cloned()
    }

    /// Every grant, oldest first.
    pub fn list(&self) -> Vec<Grant> {
        self.lock().clone()
    }

    /// Forgets the grants for `command`; returns how many there were.
    pub fn revoke(&self, command: &str) -> usize {
        let mut list = self.lock();
        let before = list.len();
        list.retain(|g| g.command != command);
        before - list.len()
    }

    /// Forgets every grant.
    pub fn clear(&self) {
        self.lock().clear();
    }
}
