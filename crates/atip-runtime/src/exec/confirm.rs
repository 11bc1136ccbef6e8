//! Asking a person: what a confirmation handler is shown ([`ConfirmationRequest`]) and the
//! handler itself ([`Confirm`]).

use std::ffi::OsString;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

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

/// Asks a person whether a command may run. Implemented for async closures
/// `Fn(ConfirmationRequest) -> impl Future<Output = bool>`.
pub trait Confirm: Send + Sync {
    /// `true` to run the command, `false` to refuse it.
    fn confirm(
        &self,
        request: ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = bool> + Send + '_>>;
}

impl<F, Fut> Confirm for F
where
    F: Fn(ConfirmationRequest) -> Fut + Send + Sync,
    Fut: Future<Output = bool> + Send + 'static,
{
    fn confirm(
        &self,
        request: ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = bool> + Send + '_>> {
        Box::pin(self(request))
    }
}

/// The argv as shown to a person: each element quoted.
fn shown_argv(argv: &[OsString]) -> String {
    argv.iter()
        .map(|a| format!("{:?}", a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}
