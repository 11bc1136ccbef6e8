//! Confirmation through MCP elicitation (protocol revision 2025-06-18 and later): the server
//! asks the client's user, in a form with one required boolean (`confirm`) and one optional
//! boolean (`forSession`), whether a call the policy wants confirmed may run, and whether later
//! calls of the same command with the same reasons may run without asking
//! ([`atip_runtime::exec::grants`]).

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::RoleServer;

use atip_runtime::ConfirmationRequest;

/// The form's required field: `true` runs the call.
pub(super) const CONFIRM_FIELD: &str = "confirm";
/// The form's optional field: `true` (with `confirm: true`) grants the rest of the session.
pub(super) const SESSION_FIELD: &str = "forSession";

/// What the person said, or why nobody could be asked.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Asked {
    /// Accepted with `confirm: true`; `for_session` when `forSession` was ticked too.
    Yes { for_session: bool },
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
        .bool_property(SESSION_FIELD, |b| {
            b.title("Also for the rest of this session").description(
                "Tick to let later calls of this command with the same reasons run without \
                 asking until the server stops",
            )
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
                    let ticked = |field| {
                        result
                            .content
                            .as_ref()
                            .and_then(|c| c.get(field))
                            .and_then(serde_json::Value::as_bool)
                            == Some(true)
                    };
                    if ticked(CONFIRM_FIELD) {
                        Asked::Yes { for_session: ticked(SESSION_FIELD) }
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
