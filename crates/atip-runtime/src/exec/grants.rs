//! Session grants: a person's "yes, for the rest of this session" to a confirmation, kept by
//! one [`Runner`](super::Runner) and consulted before its confirmation handler is asked again.
//!
//! A grant names one command — its flattened name, program and command path, so two tools
//! whose commands flatten to the same name never share a grant — and covers either
//!
//! * [`GrantScope::SameReasons`] — later calls of that command whose reasons for confirmation
//!   are among the ones the person saw when granting (code *and* message, so a call that sets
//!   an option declaring more risk — `--force declares destructive` — is asked about again),
//!   and which give the parameters that brought effects of their own the values the person
//!   saw (a grant for pushing `main` does not cover pushing `+main`), or
//! * [`GrantScope::Command`] — every later call of that command that needs confirmation,
//!   whatever its reasons and values.
//!
//! A command not described by metadata (an [`Invocation`] built from a bare argv, or an
//! unlisted command of partial metadata) has no parameters to judge: a grant for it covers only
//! the same argv, whatever its scope.
//!
//! A grant never turns a refusal into a run: refused calls ([`crate::policy::Decision::Deny`])
//! stay refused. Grants live as long as the runner that holds them: a clone of a runner starts
//! with none, two runners never share them, and [`Grants::clear`] forgets them all.

use std::sync::{Mutex, MutexGuard};

use std::ffi::OsString;

use crate::policy::{Reason, ReasonCode};
use crate::Invocation;

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
    /// Its number in the runner's [`Grants`], from 1 (0 until granted); the audit line of the
    /// call that created it and of every call it lets through carry it.
    pub id: u64,
    /// The flattened command name (`gh_pr_merge`).
    pub command: String,
    /// The program (argv\[0\]) and command path (`gh pr merge`) of the call it was given for.
    pub program: OsString,
    /// [`Invocation::title`] of that call.
    pub title: Option<String>,
    /// The values the call gave to the parameters that brought effects of their own
    /// ([`Invocation::effects_from`]), by parameter, for [`GrantScope::SameReasons`].
    pub values: Vec<(String, Vec<OsString>)>,
    /// The whole argv, for a command not described by metadata (see the module docs).
    pub argv: Option<Vec<OsString>>,
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
    /// A grant for `invocation`, which needed confirmation for `reasons` (what the person was
    /// shown), covering `scope`, created by `granted_by`; numbered when added to [`Grants`].
    /// [`ConfirmationRequest::grant`](super::ConfirmationRequest::grant) makes one from a
    /// request.
    pub fn new(
        invocation: &Invocation,
        reasons: &[Reason],
        scope: GrantScope,
        granted_by: &'static str,
    ) -> Self {
        Grant {
            id: 0,
            command: invocation.name.to_string(),
            program: invocation.argv.first().cloned().unwrap_or_default(),
            title: invocation.title.as_deref().map(str::to_owned),
            values: effect_values(invocation),
            argv: undescribed(invocation).then(|| invocation.argv.clone()),
            scope,
            reasons: reasons
                .iter()
                .map(|r| (r.code, r.message.clone()))
                .collect(),
            origin_call_id: invocation.call_id.clone(),
            granted_by,
        }
    }

    /// Whether this grant lets `invocation`, which needs confirmation for `reasons`, run.
    pub fn covers(&self, invocation: &Invocation, reasons: &[Reason]) -> bool {
        let same_command = *self.command == *invocation.name
            && Some(&self.program) == invocation.argv.first()
            && self.title.as_deref() == invocation.title.as_deref();
        if !same_command {
            return false;
        }
        let same_line = match &self.argv {
            Some(argv) => undescribed(invocation) && *argv == invocation.argv,
            None => !undescribed(invocation),
        };
        if !same_line {
            return false;
        }
        match self.scope {
            GrantScope::Command => true,
            GrantScope::SameReasons => {
                reasons.iter().all(|r| {
                    self.reasons
                        .iter()
                        .any(|(code, message)| *code == r.code && *message == r.message)
                }) && effect_values(invocation)
                    .iter()
                    .all(|given| self.values.contains(given))
            }
        }
    }

    /// The grant as the audit log records it: `{id, command, scope, originCallId, grantedBy}`.
    pub(super) fn audit_json(&self) -> serde_json::Value {
        serde_json::json!({
            "id": self.id,
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

    /// Adds `grant` (the application asked the person itself, e.g. through MCP elicitation)
    /// and returns it numbered ([`Grant::id`]).
    pub fn grant(&self, mut grant: Grant) -> Grant {
        let mut list = self.lock();
        grant.id = list.last().map_or(1, |g| g.id + 1);
        list.push(grant.clone());
        grant
    }

    /// The first grant that lets `invocation`, needing confirmation for `reasons`, run.
    pub fn covering(&self, invocation: &Invocation, reasons: &[Reason]) -> Option<Grant> {
        self.lock()
            .iter()
            .find(|g| g.covers(invocation, reasons))
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

/// Whether `invocation` was built without metadata describing its parameters: a bare argv
/// ([`Invocation::new`]) or an unlisted command of partial metadata.
fn undescribed(invocation: &Invocation) -> bool {
    invocation.title.is_none() || invocation.unlisted.is_some()
}

/// The values `invocation` gives the parameters that brought effects of their own, by
/// parameter, in parameter order.
fn effect_values(invocation: &Invocation) -> Vec<(String, Vec<OsString>)> {
    let Some(from) = &invocation.effects_from else {
        return Vec::new();
    };
    from.params
        .iter()
        .map(|p| {
            let values = invocation
                .arguments
                .iter()
                .filter(|a| a.param == p.param)
                .map(|a| a.value.to_os_string())
                .collect();
            (p.param.to_string(), values)
        })
        .collect()
}
