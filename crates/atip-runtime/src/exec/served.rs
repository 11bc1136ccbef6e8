//! Tools a long-lived server runs on request — an MCP server's tools, described by metadata
//! with `x-atip-rust.mcp` ([`Invocation::server`]) — under the same gate as commands.
//!
//! A call of such a tool goes through everything a command's call does up to the point where a
//! command would start: trust rules (by metadata location; no program is looked up), the
//! policy on the call's effects, confirmation, grants and the audit line. Then, instead of a
//! process, the [`ToolServer`] attached under the server's name ([`Runner::tool_server`])
//! answers it, within the call's time limit; its answer becomes an [`Output`] (the text as
//! stdout, an error result as a failed exit, the server's sandbox report) and is capped,
//! redacted, streamed to a [`Run::stream_to`](super::Run::stream_to) sender whole, and
//! formatted like a command's. The server itself was started once, confined for its whole life
//! ([`Runner::start`]): there is no per-call sandbox and no tight first try.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use super::output::ExitStatus;
use super::sandbox::{SandboxError, SandboxReport};
use super::{Output, RunError, Runner};
use crate::filter::KnownSecrets;
use crate::policy::Confinement;
use crate::{Effects, Invocation, Shared};

/// What a [`ToolServer`] answered to one call.
#[derive(Debug, Clone, Default)]
pub struct ServedReply {
    /// The result as text, as the model should read it (an MCP result's text content, its
    /// structured content as JSON when it has no text).
    pub text: String,
    /// The server said the call failed (MCP `isError: true`).
    pub is_error: bool,
    /// The values of the secret variables the server was given: redacted wherever they occur
    /// in the result.
    pub known_secrets: KnownSecrets,
}

/// The future of [`ToolServer::call`].
pub type ServedCall<'a> = Pin<Box<dyn Future<Output = std::io::Result<ServedReply>> + Send + 'a>>;

/// A long-lived server that runs tools on request: an MCP server, started confined
/// ([`Runner::start`]) and attached to a runner under its name ([`Runner::tool_server`]).
/// `atip-mcp` implements it for an MCP client session (`atip_mcp::McpTools`).
pub trait ToolServer: Send + Sync {
    /// Runs the tool `invocation` names — [`Invocation::argv`]'s second element is the
    /// tool's name on the server, [`Invocation::arguments`] its parameters — and returns its
    /// answer. The runner has already judged and confirmed the call, and bounds the future
    /// with the call's time limit (dropping it cancels the call).
    ///
    /// # Errors
    ///
    /// The server could not be reached or did not answer in its protocol; a tool that
    /// failed is an [`Ok`] reply with [`ServedReply::is_error`].
    fn call<'a>(&'a self, invocation: &'a Invocation) -> ServedCall<'a>;

    /// The effects the server's current tool list gives the tool `invocation` calls, when
    /// the server knows them. A call built from an older list (typed code generated from a
    /// saved `tools/list`) whose effects differ from these is judged on neither claim alone:
    /// only the risks either declares count, everything else is unknown
    /// ([`Runner::tool_server`]). The default: `None`, the invocation's effects stand.
    fn effects(&self, _invocation: &Invocation) -> Option<Effects> {
        None
    }

    /// What the sandbox the server was started in enforces on it for its whole life, and what
    /// it could not ([`Started::report`](super::Started::report)): every call's
    /// [`Output::sandbox`], and what a policy that requires the sandbox is checked against
    /// before a call is sent. The default, an empty report, says nothing is enforced: such a
    /// server's calls are refused under a policy that requires the sandbox.
    fn sandbox(&self) -> SandboxReport {
        SandboxReport::default()
    }
}

impl Runner {
    /// Attaches `server` under `name`: calls of invocations whose [`Invocation::server`] is
    /// `name` go to it. A runner never starts such an invocation's argv: without a server of
    /// that name attached, the call fails to start ([`RunError::Spawn`] with
    /// [`std::io::ErrorKind::NotConnected`]). When the server's current list gives the tool
    /// other effects than the invocation carries ([`ToolServer::effects`]), the call is
    /// judged on the risks of both and unknown elsewhere. A server attached before under the
    /// same name is replaced.
    #[must_use]
    pub fn tool_server(mut self, name: impl Into<String>, server: Arc<dyn ToolServer>) -> Self {
        let name = name.into();
        let servers = Arc::make_mut(&mut self.servers);
        servers.retain(|(n, _)| *n != name);
        servers.push((name, server));
        self
    }

    /// For a served tool whose server's current list disagrees with the effects `invocation`
    /// carries (typed code from an older list): only the risks either claims, the rest
    /// unknown.
    pub(super) fn served_effects(&self, invocation: &mut Invocation) {
        let Some(server) = invocation.server.as_deref() else {
            return;
        };
        let Some(live) = self
            .server_named(server)
            .and_then(|s| s.effects(invocation))
        else {
            return;
        };
        if *invocation.effects != live {
            let both = Effects::UNKNOWN
                .raised_by(&live)
                .raised_by(&invocation.effects);
            invocation.effects = Shared::new(both);
        }
    }

    /// The server attached under `name`.
    fn server_named(&self, name: &str) -> Option<&Arc<dyn ToolServer>> {
        self.servers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, server)| server)
    }

    /// The layer after the policy for a served tool: the attached server answers within the
    /// call's time limit; the answer is capped like a command's output. What the policy's
    /// confinement asks of this call is checked against the server's own sandbox: a required
    /// sandbox that does not hold the server wholly refuses the call; path roots, egress
    /// rules and sockets for the call cannot narrow a server started before it, and the
    /// call's report says so.
    pub(super) async fn served_run(
        &self,
        invocation: Invocation,
        server: &str,
        confinement: &Confinement,
    ) -> Result<Output, RunError> {
        let program = || std::ffi::OsString::from(server);
        let Some(handler) = self.server_named(server) else {
            return Err(RunError::Spawn {
                program: program(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    format!(
                        "no MCP server named {server:?} is attached to this runner \
                         (Runner::tool_server)"
                    ),
                ),
            });
        };
        let mut sandbox = handler.sandbox();
        if confinement.required && (sandbox.enforced.is_empty() || !sandbox.not_enforced.is_empty())
        {
            return Err(RunError::Sandbox(SandboxError {
                message: format!(
                    "the policy requires the sandbox, but the MCP server {server:?} is not held \
                     wholly by one: {}",
                    if sandbox.enforced.is_empty() {
                        "it was started without it".to_owned()
                    } else {
                        sandbox.not_enforced.join("; ")
                    }
                ),
            }));
        }
        if !confinement.path_roots.is_empty()
            || confinement.egress.is_some()
            || !confinement.unix_sockets.is_empty()
        {
            sandbox.not_enforced.push(
                "the policy's path roots, egress rules and sockets for this call cannot narrow \
                 an MCP server started before it: the server runs under the sandbox it was \
                 started with"
                    .to_owned(),
            );
        }
        let timeout = self.timeout_for(&invocation.effects);
        let started = Instant::now();
        let answer = tokio::time::timeout(timeout, handler.call(&invocation)).await;
        let duration = started.elapsed();
        let (reply, timed_out) = match answer {
            Ok(Ok(reply)) => (reply, false),
            Ok(Err(source)) => {
                return Err(RunError::Spawn {
                    program: program(),
                    source,
                })
            }
            Err(_) => (ServedReply::default(), true),
        };
        // Cut at the cap on a character boundary, as a command's capped output is read.
        let mut text = reply.text;
        let cut = text.floor_char_boundary(self.settings.max_output_bytes);
        let stdout_dropped = (text.len() - cut) as u64;
        text.truncate(cut);
        let stdout = text.into_bytes();
        Ok(Output {
            name: invocation.name.to_string(),
            argv: invocation.argv,
            status: ExitStatus::Code(i32::from(reply.is_error || timed_out)),
            stdout,
            stderr: Vec::new(),
            stdout_dropped,
            stderr_dropped: 0,
            timed_out,
            timeout,
            duration,
            sandbox,
            known_secrets: reply.known_secrets,
            tight_first: false,
        })
    }
}
