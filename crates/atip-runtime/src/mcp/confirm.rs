//! Confirmation through MCP elicitation (protocol revision 2025-06-18 and later): the server
//! asks the client's user, in a form with one required boolean, whether a call the policy wants
//! confirmed may run.

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::RoleServer;

use crate::ConfirmationRequest;

/// The form's one field: `true` runs the call.
pub(super) const CONFIRM_FIELD: &str = "confirm";

/// What the person said, or why nobody could be asked.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Asked {
    /// Accepted with `confirm: true`.
    Yes,
    /// Declined, dismissed, or accepted without ticking `confirm`: the call is refused.
    No(&'static str),
    /// The client cannot be asked (no elicitation capability, or the request failed).
    Cannot(String),
}

/// Puts `request` to the person behind the client of `context`, if the client declared form
/// elicitation; a cancelled request counts as a refusal.
pub(super) async fn ask(
    context: Option<&RequestContext<RoleServer>>,
    request: &ConfirmationRequest,
) -> Asked {
    let Some(context) = context else {
        return Asked::Cannot("there is no client to ask".to_owned());
    };
    if !context
        .peer
        .supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
    {
        return Asked::Cannot("the client does not support elicitation".to_owned());
    }
    let schema = ElicitationSchema::builder()
        .required_bool_property(CONFIRM_FIELD, |b| {
            b.title("Run this command")
                .description("Tick to let the command run; leave unticked or decline to refuse")
        })
        .build_unchecked();
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: format!("{request}\nRun it?"),
        requested_schema: schema,
    };
    tokio::select! {
        answer = context.peer.create_elicitation(params) => match answer {
            Ok(result) => match result.action {
                ElicitationAction::Accept => {
                    let ticked = result
                        .content
                        .as_ref()
                        .and_then(|c| c.get(CONFIRM_FIELD))
                        .and_then(serde_json::Value::as_bool)
                        == Some(true);
                    if ticked {
                        Asked::Yes
                    } else {
                        Asked::No("the person did not tick `confirm`")
                    }
                }
                ElicitationAction::Decline => Asked::No("the person declined"),
                _ => Asked::No("the person dismissed the question"),
            },
            Err(e) => Asked::Cannot(format!("asking the client failed ({e})")),
        },
        () = context.ct.cancelled() => Asked::No("the client cancelled the call"),
    }
}
