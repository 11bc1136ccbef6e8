//! Why a command did not run or could not be started: [`RunError`], and its tool result.

use std::ffi::OsString;
use std::fmt;

use super::confirm::ConfirmationRequest;
use super::sandbox::SandboxError;
use super::verify::ChecksumError;
use crate::filter::ResultFilter;
use crate::policy::Reason;
use crate::{ArgvError, Invocation, ToolResult};

/// Why a command did not run (or could not be started).
#[derive(Debug)]
#[non_exhaustive]
pub enum RunError {
    /// The argv could not be built (NUL bytes, bad values).
    Argv(ArgvError),
    /// The policy refused the command.
    Denied {
        /// The command (boxed to keep `Result<_, RunError>` small).
        invocation: Box<Invocation>,
        /// Every reason, refusals first.
        reasons: Vec<Reason>,
    },
    /// The command needs confirmation and no handler is set. Ask a person, then retry with
    /// [`Run::confirmed`](super::Run::confirmed).
    NeedsConfirmation(Box<ConfirmationRequest>),
    /// The confirmation handler said no.
    Declined(Box<ConfirmationRequest>),
    /// The binary about to run does not hash to the metadata's `trust.integrity.checksum`
    /// (spec §3.2.2), or cannot be found to be checked.
    Checksum(Box<ChecksumError>),
    /// The sandbox could not be set up, or the policy requires one this system cannot fully
    /// enforce (`Policy::require_sandbox`).
    Sandbox(SandboxError),
    /// Not run: an earlier call of a batch failed and the batch stops on the first error.
    Skipped {
        /// The command.
        name: String,
    },
    /// The program could not be started.
    Spawn {
        /// argv\[0\].
        program: OsString,
        /// The OS error.
        source: std::io::Error,
    },
    /// Reading output or waiting for the child failed.
    Io(std::io::Error),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Argv(e) => write!(f, "{e}"),
            RunError::Denied {
                invocation,
                reasons,
            } => {
                write!(f, "policy: refuses `{}`: ", invocation.name)?;
                for (i, r) in reasons.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{r}")?;
                }
                Ok(())
            }
            RunError::NeedsConfirmation(req) => {
                write!(
                    f,
                    "{req}; it was not run: ask a person, then retry with confirmation"
                )
            }
            RunError::Declined(req) => write!(f, "{req}; confirmation was declined"),
            RunError::Checksum(e) => write!(f, "checksum: {e}; it was not run"),
            RunError::Sandbox(e) => write!(f, "sandbox: {e}; it was not run"),
            RunError::Skipped { name } => {
                write!(
                    f,
                    "`{name}` was not run: an earlier call of the batch failed"
                )
            }
            RunError::Spawn { program, source } => {
                write!(f, "cannot start {:?}: {source}", program.to_string_lossy())
            }
            RunError::Io(e) => write!(f, "i/o error while running the command: {e}"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Argv(e) => Some(e),
            RunError::Checksum(e) => Some(&**e),
            RunError::Sandbox(e) => Some(e),
            RunError::Spawn { source, .. } => Some(source),
            RunError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ArgvError> for RunError {
    fn from(e: ArgvError) -> Self {
        RunError::Argv(e)
    }
}

impl RunError {
    /// The error result for a model, its text through the default [`ResultFilter`] (argv can
    /// hold secrets too).
    pub fn to_tool_result(&self) -> ToolResult {
        self.to_tool_result_with(ResultFilter::shared_default())
    }

    /// The error result for a model, its text through `filter`: for a call the policy refused
    /// or a person did not confirm, what happened in the policy's rule names and what the model
    /// can do next ([`RunError::for_model`]); otherwise the error's own text.
    pub fn to_tool_result_with(&self, filter: &ResultFilter) -> ToolResult {
        ToolResult::error(filter.filter(&self.for_model()).text)
    }

    /// The text a model is given for this error. For [`RunError::Denied`],
    /// [`RunError::NeedsConfirmation`] and [`RunError::Declined`]: that the call was not run
    /// and why, each reason as [`Reason::for_model`] says it (the policy's patterns, allowed
    /// values and roots are not shown), then what the model can do — ask the person, make
    /// the call without the option that brought the risk (`` `force` (`--force`) ``), or see
    /// first with the command's dry-run parameter; a refusal says a person cannot confirm it.
    /// [`RunError::Sandbox`]: that the sandbox could not be set up, without its details (they
    /// name the policy's path roots). Every other error: its [`Display`](fmt::Display) text.
    pub fn for_model(&self) -> String {
        use super::guidance::{refused, unconfirmed, Unconfirmed};
        match self {
            RunError::Denied {
                invocation,
                reasons,
            } => refused(invocation, reasons),
            RunError::NeedsConfirmation(request) => unconfirmed(request, Unconfirmed::NotAsked),
            RunError::Declined(request) => unconfirmed(request, Unconfirmed::Declined),
            // Its details name the policy's path roots and this system's layout.
            RunError::Sandbox(_) => "The command was not run: the sandbox this call needs \
                could not be set up here. Tell the person; the reason is in the application's \
                log and audit trail (`atip doctor` shows what this system can enforce)."
                .to_owned(),
            other => other.to_string(),
        }
    }
}
