//! One `tools/call`, answered: dispatch, the conflict gate, the policy (with elicitation for
//! calls that need confirmation), the run with progress notifications and cancellation, and
//! the result in MCP's shape.

use std::time::{Duration, Instant};

use rmcp::model::{CallToolResult, ContentBlock as Content, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::RoleServer;

use super::confirm::{self, Asked};
use super::McpServer;
use atip_runtime::exec::GrantScope;
use atip_runtime::{Invocation, Output, RunError, ToolCall, ToolResult};

/// The client cancelled the call (`notifications/cancelled`).
struct Cancelled;

impl McpServer {
    /// Answers the call `name(arguments)`; `context` is the client's request, when there is a
    /// client to ask, notify, or be cancelled by.
    pub(super) async fn answer(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        context: Option<&RequestContext<RoleServer>>,
    ) -> CallToolResult {
        let call = ToolCall::new(None, name, arguments.unwrap_or_default());
        let tools = self.tools();
        if let Some(answer) = tools.set.answer(&call) {
            return mcp_result(answer);
        }
        let invocation = tools.set.invocation(&call);
        let result = match invocation {
            Err(e) => ToolResult::error(e.to_string()),
            Ok(mut invocation) => {
                invocation.call_id = context.map(|c| format!("mcp:{}", c.id));
                self.run(&invocation, context).await
            }
        };
        mcp_result(result)
    }

    /// Runs `invocation`, asking the client's user when the policy wants confirmation.
    async fn run(
        &self,
        invocation: &Invocation,
        context: Option<&RequestContext<RoleServer>>,
    ) -> ToolResult {
        let runner = &self.runner;
        let name = &invocation.name;
        let first = match self.gated(invocation, false, context).await {
            Err(Cancelled) => return cancelled(name),
            Ok(result) => result,
        };
        let request = match first {
            Ok(output) => return runner.tool_result(&output),
            Err(RunError::NeedsConfirmation(request)) => request,
            Err(e) => return runner.error_result(&e),
        };
        match confirm::ask(context, &request).await {
            Asked::Yes { for_session } => {
                if for_session {
                    let grant = request.grant(GrantScope::SameReasons, "elicitation");
                    runner.grants().grant(grant);
                }
                match self.gated(invocation, true, context).await {
                    Err(Cancelled) => cancelled(name),
                    Ok(Ok(output)) => runner.tool_result(&output),
                    Ok(Err(e)) => runner.error_result(&e),
                }
            }
            Asked::No(why) => {
                // What the model can do next, as for any declined call; then how it was asked.
                let declined = runner.error_result(&RunError::Declined(request)).content;
                ToolResult::error(format!("{declined} (Asked through the client: {why}.)"))
            }
            Asked::Cannot(why) => {
                let reasons: Vec<String> = request
                    .reasons
                    .iter()
                    .map(atip_runtime::policy::Reason::for_model)
                    .collect();
                ToolResult::error(format!(
                    "`{name}` was not run: it needs a person's confirmation ({}), and {why}; \
                     the server's policy must allow it",
                    reasons.join("; ")
                ))
            }
        }
    }

    /// One attempt: waits at the conflict gate, then runs (`confirmed`: a person said yes),
    /// sending progress while it runs. Cancellation drops the run, which kills the process
    /// group.
    async fn gated(
        &self,
        invocation: &Invocation,
        confirmed: bool,
        context: Option<&RequestContext<RoleServer>>,
    ) -> Result<Result<Output, RunError>, Cancelled> {
        let runner = &self.runner;
        let _pass = tokio::select! {
            pass = self.shared.gate.enter(&invocation.effects) => pass,
            () = cancellation(context) => return Err(Cancelled),
        };
        let run = async {
            if confirmed {
                runner.run(invocation).confirmed(true).await
            } else {
                runner.run(invocation).await
            }
        };
        tokio::pin!(run);
        let progress = context.and_then(|c| c.meta.get_progress_token().map(|t| (c, t)));
        let started = Instant::now();
        let mut ticks =
            tokio::time::interval_at((started + self.progress_every).into(), self.progress_every);
        loop {
            tokio::select! {
                result = &mut run => return Ok(result),
                () = cancellation(context) => return Err(Cancelled),
                _ = ticks.tick(), if progress.is_some() => {
                    if let Some((context, token)) = &progress {
                        let elapsed = started.elapsed();
                        let mut note = ProgressNotificationParam::new(
                            token.clone(),
                            elapsed.as_secs_f64(),
                        );
                        note.message = Some(format!(
                            "`{}` running for {}",
                            invocation.name,
                            humantime::format_duration(Duration::from_secs(elapsed.as_secs()))
                        ));
                        // A client that went away is noticed by the session, not here.
                        let _ = context.peer.notify_progress(note).await;
                    }
                }
            }
        }
    }
}

/// Resolves when the client cancels the request; never without a client.
async fn cancellation(context: Option<&RequestContext<RoleServer>>) {
    match context {
        Some(c) => c.ct.cancelled().await,
        None => std::future::pending().await,
    }
}

fn cancelled(name: &str) -> ToolResult {
    ToolResult::error(format!(
        "`{name}` was cancelled by the client; its processes were killed"
    ))
}

/// A [`ToolResult`] in MCP's shape: text content, JSON output as `structuredContent` (an
/// object: anything else is wrapped as `{"result": …}`), exit status, duration, sandbox and
/// redactions as `_meta`.
fn mcp_result(result: ToolResult) -> CallToolResult {
    let content = vec![Content::text(result.content)];
    let mut answer = if result.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    if let (Some(data), false) = (result.structured, result.is_error) {
        answer.structured_content = Some(match data {
            serde_json::Value::Object(_) => data,
            other => serde_json::json!({ "result": other }),
        });
    }
    if !result.meta.is_empty() {
        answer.meta = Some(result.meta.into());
    }
    answer
}

#[cfg(test)]
mod tests {
    use crate::McpServer;
    use atip_runtime::exec::GrantScope;
    use atip_runtime::{ConfirmationRequest, Effects, Invocation, Runner};

    #[test]
    fn each_clone_is_a_session_with_its_own_grants() {
        let alice = McpServer::new(Vec::new(), Runner::new()).unwrap();
        let bob = alice.clone();
        let request = ConfirmationRequest {
            invocation: Invocation::new("wipe", vec!["true".into()], Effects::UNKNOWN),
            reasons: Vec::new(),
        };
        alice
            .runner
            .grants()
            .grant(request.grant(GrantScope::Command, "elicitation"));
        assert_eq!(alice.runner.grants().list().len(), 1);
        assert!(bob.runner.grants().list().is_empty());
        assert!(alice.clone().runner.grants().list().is_empty());
    }
}
