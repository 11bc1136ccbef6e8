//! Asking a person: what a confirmation handler is shown ([`ConfirmationRequest`]) and the
//! handler itself ([`Confirm`]).

use std::ffi::OsString;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

use super::grants::{Grant, GrantScope};
use crate::policy::Reason;
use crate::Invocation;

/// What a confirmation handler is asked about: the command with its argv, merged effects and
/// trust, and every reason it needs confirmation.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmationRequest {
    /// The command as it would run.
    pub invocation: Invocation,
    /// Why it needs confirmation.
    pub reasons: Vec<Reason>,
}

impl ConfirmationRequest {
    /// A session grant for this request's command, covering `scope`, created by `granted_by`
    /// (`"elicitation"`, or the application's own word): [`Grant::new`] with the request's
    /// invocation and the reasons the person was shown.
    pub fn grant(&self, scope: GrantScope, granted_by: &'static str) -> Grant {
        Grant::new(&self.invocation, &self.reasons, scope, granted_by)
    }
}

impl fmt::Display for ConfirmationRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` needs confirmation (", self.invocation.name)?;
        for (i, r) in self.reasons.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{r}")?;
        }
        write!(f, "): {}", shown_argv(&self.invocation.argv))
    }
}

/// A person's answer to a [`ConfirmationRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Answer {
    /// Do not run it.
    No,
    /// Run this call.
    Once,
    /// Run this call, and let later calls of the same command run without asking for the
    /// rest of the runner's life, as far as `GrantScope` says ([`super::grants`]).
    ForSession(GrantScope),
}

impl Answer {
    /// Whether the call runs.
    pub fn runs(self) -> bool {
        !matches!(self, Answer::No)
    }
}

impl From<bool> for Answer {
    /// `true` is [`Answer::Once`], `false` [`Answer::No`].
    fn from(yes: bool) -> Self {
        if yes {
            Answer::Once
        } else {
            Answer::No
        }
    }
}

/// Asks a person whether a command may run. Implemented for async closures
/// `Fn(ConfirmationRequest) -> impl Future<Output = A>` where `A` is `bool` (yes or no for
/// this call) or [`Answer`] (which can also grant the rest of the session).
pub trait Confirm: Send + Sync {
    /// `true` to run the command, `false` to refuse it.
    fn confirm(
        &self,
        request: ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = bool> + Send + '_>>;

    /// The full answer, including a grant for the session. The default asks
    /// [`Confirm::confirm`]: yes is [`Answer::Once`], no [`Answer::No`].
    fn answer(
        &self,
        request: ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = Answer> + Send + '_>> {
        let yes = self.confirm(request);
        Box::pin(async move { Answer::from(yes.await) })
    }
}

impl<F, Fut, A> Confirm for F
where
    F: Fn(ConfirmationRequest) -> Fut + Send + Sync,
    Fut: Future<Output = A> + Send + 'static,
    A: Into<Answer>,
{
    fn confirm(
        &self,
        request: ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = bool> + Send + '_>> {
        let answer = self(request);
        Box::pin(async move { answer.await.into().runs() })
    }

    fn answer(
        &self,
        request: ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = Answer> + Send + '_>> {
        let answer = self(request);
        Box::pin(async move { answer.await.into() })
    }
}

/// The argv as shown to a person: each element quoted.
pub(super) fn shown_argv(argv: &[OsString]) -> String {
    argv.iter()
        .map(|a| format!("{:?}", a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}
