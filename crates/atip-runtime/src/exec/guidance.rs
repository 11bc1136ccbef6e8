//! What a model is told when a call did not run because of the policy: what happened, in the
//! policy's rule names ([`Reason::for_model`]), and what it can do next — ask the person,
//! make the call without the option that brought the risk, or see first with the dry-run
//! parameter the command declares. Used for every tool result of a refused, unconfirmed or
//! declined call ([`RunError::to_tool_result_with`](super::RunError::to_tool_result_with)).

use super::confirm::ConfirmationRequest;
use crate::policy::{brought_by, Reason, ReasonCode, ReasonSeverity};
use crate::Invocation;

/// Why the person was not the last word on a call that needed them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unconfirmed {
    /// Nobody was asked (no confirmation handler).
    NotAsked,
    /// The person said no.
    Declined,
}

/// The model's text for a call the policy refuses.
pub(super) fn refused(invocation: &Invocation, reasons: &[Reason]) -> String {
    let mut out = format!(
        "`{}` was not run: the policy refuses it ({}). A person cannot confirm it here.",
        invocation.name,
        listed(
            reasons
                .iter()
                .filter(|r| r.severity == ReasonSeverity::Deny)
        ),
    );
    let mut next = Vec::new();
    if let Some(labels) = options_that_bring(invocation, reasons) {
        next.push(format!("make the call without {labels}"));
    }
    let arguments = reasons.iter().any(|r| {
        r.severity == ReasonSeverity::Deny
            && matches!(
                r.code,
                ReasonCode::ArgumentDenied
                    | ReasonCode::ArgumentNotAllowed
                    | ReasonCode::PathOutsideRoots
            )
    });
    if arguments {
        next.push("make the call with other values for the parameters named".to_owned());
    }
    next.push(
        "do something else that reaches the goal, or tell the person it cannot be done here"
            .to_owned(),
    );
    out.push_str(&format!(
        " Do not make the same call again; {}.",
        next.join("; or ")
    ));
    out.push_str(&command_line(invocation));
    out
}

/// ` The command line would have been: "git" "push" ….`
fn command_line(invocation: &Invocation) -> String {
    format!(
        " The command line would have been: {}.",
        super::confirm::shown_argv(&invocation.argv)
    )
}

/// The model's text for a call that needed a person and did not get one's yes.
pub(super) fn unconfirmed(request: &ConfirmationRequest, how: Unconfirmed) -> String {
    let invocation = &request.invocation;
    let what = match how {
        Unconfirmed::NotAsked => "it needs a person's confirmation",
        Unconfirmed::Declined => "the person declined it",
    };
    let mut out = format!(
        "`{}` was not run: {what} ({}).",
        invocation.name,
        listed(request.reasons.iter())
    );
    let mut next = Vec::new();
    match how {
        Unconfirmed::NotAsked => next.push(
            "ask the person whether it may run, saying what it does; if they agree, make the \
             same call again and the application will run it with their confirmation"
                .to_owned(),
        ),
        Unconfirmed::Declined => next.push(
            "do not make the same call again unless the person asks for it; ask them what \
             they want instead"
                .to_owned(),
        ),
    }
    if let Some(labels) = options_that_bring(invocation, &request.reasons) {
        next.push(format!("make the call without {labels}"));
    }
    if let Some(dry_run) = &invocation.dry_run {
        if !invocation.arguments.iter().any(|a| a.param == *dry_run) {
            next.push(format!(
                "make it with `{dry_run}: true` first to see what it would do"
            ));
        }
    }
    out.push_str(&format!(" You can {}.", next.join("; or ")));
    out.push_str(&command_line(invocation));
    out
}

/// The reasons as the model reads them, `; `-separated.
fn listed<'r>(reasons: impl Iterator<Item = &'r Reason>) -> String {
    reasons
        .map(Reason::for_model)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The parameters of the call that brought `reasons` (`` `force` (`--force`) ``), when every
/// reason came from such parameters: the call without them would not be refused or asked
/// about for these reasons.
fn options_that_bring(invocation: &Invocation, reasons: &[Reason]) -> Option<String> {
    let from = invocation.effects_from.as_ref()?;
    let mut labels: Vec<String> = Vec::new();
    for reason in reasons {
        let mut any = false;
        for p in brought_by(reason, from) {
            any = true;
            let label = format!("`{}` (`{}`)", p.param, p.label);
            if !labels.contains(&label) {
                labels.push(label);
            }
        }
        if !any {
            return None;
        }
    }
    (!labels.is_empty()).then(|| labels.join(" and "))
}
