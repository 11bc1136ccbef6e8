//! Running commands with tokio: policy gate, no shell, own process group, time limits, capped
//! output.
//!
//! Every run goes through the [`Policy`] gate first. The argv is passed as is — no shell ever
//! interprets it (a caller who wants one runs `sh -c …` as an explicit [`Invocation`]); values
//! holding NUL are refused before anything is spawned. The child gets `/dev/null` as stdin
//! unless bytes are given, runs in its own process group (Unix), and is killed with its whole
//! group on timeout (SIGTERM, then SIGKILL after a grace period), when it exits (leftover
//! background processes) and when the run future is dropped; tokio reaps it. stdout and stderr
//! are read concurrently into one combined byte budget; what does not fit is read and counted,
//! so the child never blocks on a full pipe and memory stays bounded.
//!
//! The time limit is the runner's default (30 s), or the command's `effects.duration.timeout`
//! (`"60s"`, `"5m"`, parsed with humantime), never more than the runner's maximum (10 min).

mod ansi;
pub mod audit;
mod batch;
mod confirm;
mod error;
pub mod grants;
mod guidance;
mod launch;
mod output;
mod process;
mod run;
mod served;
mod started;
mod tight;
use atip_sandbox as sandbox;
use atip_sandbox::{egress, environment};
pub mod verify;

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::filter::ResultFilter;
use crate::policy::{Decision, Policy};
use crate::{Effects, Invocation, ToInvocation, ToolResult};

pub use audit::AuditLog;
pub use batch::{conflicts, BatchOptions, ConflictGate, Pass};
pub use confirm::{Answer, Confirm, ConfirmationRequest};
pub use error::RunError;
pub use grants::{Grant, GrantScope, Grants};
pub use output::{ExitStatus, Formatter, Output, ResultOptions};
pub use process::{OutputChunk, StreamKind};
pub use run::Run;
use sandbox::Sandbox;
pub use served::{ServedCall, ServedReply, ToolServer};
pub use started::Started;
pub use verify::{ChecksumError, TrustRule, TrustTarget};

use environment::EnvBase;
use process::ProcessSettings;

/// Default time limit: 30 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default maximum for a command's own `effects.duration.timeout`: 10 min.
pub const DEFAULT_MAX_TIMEOUT: Duration = Duration::from_secs(600);
/// Default cap on captured stdout + stderr: 1 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 1024 * 1024;
/// Default time between SIGTERM and SIGKILL on timeout: 2 s.
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_secs(2);

/// Runs commands through a [`Policy`] under limits. Cheap to clone; a clone has the same
/// configuration and no session grants ([`Runner::grants`]).
///
/// ```no_run
/// # async fn demo() -> Result<(), atip_runtime::RunError> {
/// use atip_runtime::{Effects, Invocation, Runner};
/// let runner = Runner::new().timeout(std::time::Duration::from_secs(5));
/// let ls = Invocation::new("ls", vec!["ls".into(), "-l".into()], Effects::UNKNOWN);
/// let out = runner.run(&ls).await?;
/// println!("{}", runner.tool_result(&out).content);
/// # Ok(()) }
/// ```
pub struct Runner {
    policy: Policy,
    tiered: bool,
    trust_rules: Vec<TrustRule>,
    sandbox: Sandbox,
    settings: ProcessSettings,
    max_timeout: Duration,
    confirm: Option<Arc<dyn Confirm>>,
    filter: ResultFilter,
    result_options: ResultOptions,
    audit: Option<AuditLog>,
    grants: Arc<Grants>,
    /// MCP servers by name ([`Runner::tool_server`]), for invocations with a server.
    servers: Arc<Vec<(String, Arc<dyn ToolServer>)>>,
}

impl Clone for Runner {
    /// The same configuration, with no session grants: grants are never shared between
    /// runners.
    fn clone(&self) -> Self {
        Runner {
            grants: Arc::default(),
            ..self.sharing_grants()
        }
    }
}

impl fmt::Debug for Runner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runner")
            .field("policy", &self.policy)
            .field("tiered", &self.tiered)
            .field("trust_rules", &self.trust_rules)
            .field("sandbox", &self.sandbox)
            .field("settings", &self.settings)
            .field("max_timeout", &self.max_timeout)
            .field("confirm", &self.confirm.is_some())
            .field("filter", &self.filter)
            .field("result_options", &self.result_options)
            .field("audit", &self.audit.as_ref().map(AuditLog::path))
            .field("grants", &self.grants.list().len())
            .field(
                "servers",
                &self.servers.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Default for Runner {
    fn default() -> Self {
        Runner::new()
    }
}

impl Runner {
    /// Default policy, the default sandbox (every run limited as its effects say), 30 s time
    /// limit (commands may ask for up to 10 min), 1 MiB output cap, a built environment (the
    /// base set and what each command declares: [`environment`]), this process's directory,
    /// `/dev/null` stdin, no confirmation handler, the default result filter.
    pub fn new() -> Self {
        Runner {
            policy: Policy::default(),
            tiered: false,
            trust_rules: Vec::new(),
            sandbox: Sandbox::default(),
            settings: ProcessSettings {
                timeout: DEFAULT_TIMEOUT,
                kill_grace: DEFAULT_KILL_GRACE,
                max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
                cwd: None,
                env_base: EnvBase::default(),
                env: Vec::new(),
                stdin: None,
            },
            max_timeout: DEFAULT_MAX_TIMEOUT,
            confirm: None,
            filter: ResultFilter::default(),
            result_options: ResultOptions::default(),
            audit: None,
            grants: Arc::default(),
            servers: Arc::default(),
        }
    }

    /// This runner again, for running calls concurrently: the same configuration and the
    /// same session grants.
    pub(crate) fn sharing_grants(&self) -> Self {
        Runner {
            policy: self.policy.clone(),
            tiered: self.tiered,
            trust_rules: self.trust_rules.clone(),
            sandbox: self.sandbox.clone(),
            settings: self.settings.clone(),
            max_timeout: self.max_timeout,
            confirm: self.confirm.clone(),
            filter: self.filter.clone(),
            result_options: self.result_options.clone(),
            audit: self.audit.clone(),
            grants: Arc::clone(&self.grants),
            servers: Arc::clone(&self.servers),
        }
    }

    /// The session grants a person gave through this runner's confirmation handler
    /// ([`Answer::ForSession`]) or the application added ([`Grants::grant`]): consulted before
    /// the handler is asked, cleared with [`Grants::clear`], gone with the runner.
    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// Appends a line to `log` for every call this runner is asked to run — allowed,
    /// confirmed, refused or failed; see [`audit`] for the format. Every call is also traced:
    /// an `atip.call` span (fields `tool`, `call_id`) with `policy`, `confirmation`, `sandbox`
    /// and `exit` events and `atip.confirm` / `atip.process` spans, for any `tracing`
    /// subscriber.
    pub fn audit_log(mut self, log: AuditLog) -> Self {
        self.audit = Some(log);
        self
    }

    /// Uses `policy`.
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Judges each command by the trust-tiered preset for its trust ([`Policy::for_trust`]):
    /// the effect rules and baseline come from the preset, everything else (command lists,
    /// argument rules, trust and sandbox settings) from the runner's policy.
    pub fn trust_tiered(mut self, tiered: bool) -> Self {
        self.tiered = tiered;
        self
    }

    /// Assigns `trust` to commands whose program resolves to a path matching the glob
    /// `pattern` (`/usr/bin/*`), whatever their metadata claims. The first matching rule wins.
    pub fn trust_program(mut self, pattern: impl Into<String>, trust: crate::TrustSource) -> Self {
        self.trust_rules.push(TrustRule {
            target: TrustTarget::Program,
            pattern: pattern.into(),
            trust,
        });
        self
    }

    /// Assigns `trust` to commands loaded at run time from metadata files matching the glob
    /// `pattern` (`/etc/atip/*.json`; see `LoadedCommands::metadata_path`).
    pub fn trust_metadata(mut self, pattern: impl Into<String>, trust: crate::TrustSource) -> Self {
        self.trust_rules.push(TrustRule {
            target: TrustTarget::Metadata,
            pattern: pattern.into(),
            trust,
        });
        self
    }

    /// Uses `sandbox` for every run (default: [`Sandbox::new`]; [`Sandbox::off`] turns it off).
    pub fn sandbox(mut self, sandbox: Sandbox) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// The time limit for commands that declare none.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.settings.timeout = timeout;
        self
    }

    /// The most a command's own `effects.duration.timeout` may ask for.
    pub fn max_timeout(mut self, max: Duration) -> Self {
        self.max_timeout = max;
        self
    }

    /// Time between SIGTERM and SIGKILL when a command times out.
    pub fn kill_grace(mut self, grace: Duration) -> Self {
        self.settings.kill_grace = grace;
        self
    }

    /// Keeps at most `bytes` of stdout and stderr together.
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.settings.max_output_bytes = bytes;
        self
    }

    /// Runs commands in `dir`.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.settings.cwd = Some(dir.into());
        self
    }

    /// Sets an environment variable for commands.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.settings.env.push((key.into(), Some(value.into())));
        self
    }

    /// Removes an environment variable for commands.
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Self {
        self.settings.env.push((key.into(), None));
        self
    }

    /// Starts commands with an empty environment (plus what [`Runner::env`] sets).
    pub fn env_clear(mut self) -> Self {
        self.settings.env_base = EnvBase::Clear;
        self
    }

    /// Also passes on these variables of this process's environment, besides the base set
    /// ([`environment::BASE_VARIABLES`]) and the variables each command declares; any other
    /// variable is removed from a command's environment, and its name listed in the run's
    /// report ([`SandboxReport::env_removed`](crate::sandbox::SandboxReport::env_removed)) and audit line.
    pub fn env_allow<I, K>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = K>,
        K: Into<OsString>,
    {
        let more: Vec<OsString> = keys.into_iter().map(Into::into).collect();
        match &mut self.settings.env_base {
            EnvBase::Built { allow } => allow.extend(more),
            base => *base = EnvBase::Built { allow: more },
        }
        self
    }

    /// `true`: commands get this process's whole environment (plus what [`Runner::env`]
    /// sets), whatever they declare — the opt-out of the built environment; `false`: the
    /// default, the base set, the variables each command declares and [`Runner::env_allow`].
    pub fn inherit_env(mut self, inherit: bool) -> Self {
        self.settings.env_base = if inherit {
            EnvBase::Inherit
        } else {
            EnvBase::default()
        };
        self
    }

    /// Feeds `bytes` to the command's stdin (default: `/dev/null`).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.settings.stdin = Some(Arc::from(bytes.into().into_boxed_slice()));
        self
    }

    /// Asks `handler` when a command needs confirmation, unless a session grant covers the
    /// call ([`Runner::grants`]). A handler that answers [`Answer::ForSession`] adds a grant.
    pub fn confirm_with(mut self, handler: impl Confirm + 'static) -> Self {
        self.confirm = Some(Arc::new(handler));
        self
    }

    /// Uses `filter` for [`Runner::tool_result`], [`Runner::error_result`] and the chunks of
    /// [`Run::stream_to`].
    pub fn filter(mut self, filter: ResultFilter) -> Self {
        self.filter = filter;
        self
    }

    /// Uses `options` for [`Runner::tool_result`]: stderr and the exit status in or out, JSON
    /// kept structured, or a formatter of one's own.
    pub fn result_options(mut self, options: ResultOptions) -> Self {
        self.result_options = options;
        self
    }

    /// The policy in use.
    pub fn current_policy(&self) -> &Policy {
        &self.policy
    }

    /// The audit log calls are written to, if any ([`Runner::audit_log`]).
    pub fn current_audit_log(&self) -> Option<&AuditLog> {
        self.audit.as_ref()
    }

    /// The time limit for a command with these effects: its `duration.timeout` when it
    /// declares a readable one, else the default; never above the maximum.
    pub fn timeout_for(&self, effects: &Effects) -> Duration {
        effects
            .timeout_hint()
            .and_then(|t| humantime::parse_duration(t).ok())
            .unwrap_or(self.settings.timeout)
            .min(self.max_timeout)
    }

    /// The result for a model of a command that ran, through this runner's filter and result
    /// options ([`Output::format`]).
    pub fn tool_result(&self, output: &Output) -> ToolResult {
        output.format(&self.filter, &self.result_options)
    }

    /// The result for a model of a command that did not run, through this runner's filter.
    pub fn error_result(&self, error: &RunError) -> ToolResult {
        error.to_tool_result_with(&self.filter)
    }

    /// Checks `command` against the policy and runs it, once the returned [`Run`] is awaited
    /// (with its options: [`Run::confirmed`], [`Run::stream_to`], or [`Run::tool_result`] to
    /// answer a model). A command needing confirmation is put to the confirmation handler;
    /// without one it is refused with [`RunError::NeedsConfirmation`], which carries everything
    /// a person needs to decide.
    ///
    /// # Errors
    ///
    /// [`RunError`]: bad argv, refused or unconfirmed by policy, not startable, or I/O
    /// failure. A command that runs and fails (non-zero exit, timeout) is an `Ok` [`Output`].
    pub fn run(&self, command: &(impl ToInvocation + ?Sized)) -> Run<'_> {
        Run::new(self, command.to_invocation())
    }

    /// The directory commands run in: the one set with [`Runner::current_dir`] (made
    /// absolute), else this process's.
    pub fn working_dir(&self) -> PathBuf {
        let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        match &self.settings.cwd {
            Some(dir) => here.join(dir),
            None => here,
        }
    }

    /// The policy `invocation` is judged by: the runner's, or with [`Runner::trust_tiered`]
    /// the preset for its trust.
    fn policy_for(&self, invocation: &Invocation) -> std::borrow::Cow<'_, Policy> {
        if !self.tiered {
            return std::borrow::Cow::Borrowed(&self.policy);
        }
        let trust = self
            .policy
            .effective_trust(invocation)
            .unwrap_or(crate::TrustSource::Inferred);
        let preset = Policy::for_trust(trust);
        std::borrow::Cow::Owned(Policy {
            destructive: preset.destructive,
            non_reversible: preset.non_reversible,
            billable: preset.billable,
            network: preset.network,
            filesystem_write: preset.filesystem_write,
            filesystem_delete: preset.filesystem_delete,
            interactive: preset.interactive,
            baseline: preset.baseline,
            ..self.policy.clone()
        })
    }

    /// What this runner decides for `invocation` before running it, running nothing: its
    /// trust rules applied (by program path and metadata location), then the policy for that
    /// trust ([`Runner::trust_tiered`]) judging it in the working directory — the decision
    /// [`Runner::run`] acts on, for a command that explains a policy (`atip policy check`).
    /// [`Gate::tight_first`](crate::policy::Gate::tight_first) is set only when this runner
    /// sandboxes its runs.
    pub fn decide(&self, invocation: &Invocation) -> crate::policy::Gate {
        let mut invocation = invocation.clone();
        let working_dir = self.working_dir();
        self.served_effects(&mut invocation);
        self.assign_trust(&mut invocation, &working_dir);
        self.gate(&invocation, &working_dir)
    }

    /// The policy's gate for `invocation`, with tight first only where this runner sandboxes.
    fn gate(&self, invocation: &Invocation, working_dir: &std::path::Path) -> crate::policy::Gate {
        let mut gate = self.policy_for(invocation).gate(invocation, working_dir);
        // A served tool runs in its server, confined once for the server's life: no per-call
        // sandbox can be tightened around it.
        gate.tight_first &= self.sandbox.is_enabled() && invocation.server.is_none();
        gate
    }

    /// The file `invocation`'s argv\[0\] names, as the child would find it: a path relative to
    /// `working_dir`, or a name looked up on the child's `PATH`; `None` when nothing is found,
    /// and for a served tool ([`Invocation::server`]), whose argv is never started.
    fn program_of(
        &self,
        invocation: &Invocation,
        working_dir: &std::path::Path,
    ) -> Option<PathBuf> {
        if invocation.server.is_some() {
            return None;
        }
        invocation.argv.first().and_then(|p| {
            let path = environment::child_var(&self.settings.env_base, &self.settings.env, "PATH");
            verify::resolve_program(p, working_dir, path.as_deref())
        })
    }

    /// Sets the trust of the first trust rule matching `invocation`'s program (resolved
    /// against `working_dir` and the commands' `PATH`) or metadata location, if any; returns
    /// the resolved program.
    fn assign_trust(
        &self,
        invocation: &mut Invocation,
        working_dir: &std::path::Path,
    ) -> Option<PathBuf> {
        let program = self.program_of(invocation, working_dir);
        if let Some(rule) = self
            .trust_rules
            .iter()
            .find(|r| r.matches(program.as_deref(), invocation.metadata.as_deref()))
        {
            invocation.trust = Some(rule.trust);
            invocation.trust_assigned = true;
        }
        program
    }

    /// Every path that runs a call comes through here: the `atip.call` span around the
    /// stages, and the audit record when a log is set.
    async fn gate_and_run(
        &self,
        invocation: Invocation,
        confirmed: bool,
        sink: Option<mpsc::Sender<OutputChunk>>,
    ) -> Result<Output, RunError> {
        use tracing::Instrument;
        let span = tracing::info_span!(
            "atip.call",
            tool = %invocation.name,
            call_id = invocation.call_id.as_deref().unwrap_or(""),
        );
        let Some(log) = &self.audit else {
            let mut trail = audit::Trail::default();
            return self
                .traced(invocation, confirmed, sink, &mut trail)
                .instrument(span)
                .await;
        };
        // Written when the call ends, or when this future is dropped before that.
        let mut pending = audit::Pending::new(log, &invocation);
        let result = self
            .traced(invocation, confirmed, sink, &mut pending.trail)
            .instrument(span)
            .await;
        let shown = result.as_ref().ok().map(|o| self.tool_result(o));
        pending.finish(&result, shown.as_ref());
        result
    }

    /// The stages of a call: trust rules, policy, confirmation, then [`Runner::verified_run`];
    /// `trail` records the decision for the audit log.
    async fn traced(
        &self,
        mut invocation: Invocation,
        confirmed: bool,
        sink: Option<mpsc::Sender<OutputChunk>>,
        trail: &mut audit::Trail,
    ) -> Result<Output, RunError> {
        process::refuse_nul(&invocation.argv)?;
        let working_dir = self.working_dir();
        self.served_effects(&mut invocation);
        let program = self.assign_trust(&mut invocation, &working_dir);
        let gate = self.gate(&invocation, &working_dir);
        let decision = gate.decision.clone();
        tracing::debug!(
            decision = match &decision {
                Decision::Allow => "allow",
                Decision::Deny(_) => "deny",
                Decision::NeedsConfirmation(_) => "confirm",
            },
            "policy"
        );
        match decision {
            Decision::Allow => trail.decision = Some("allowed"),
            Decision::Deny(reasons) => {
                return Err(RunError::Denied {
                    invocation: Box::new(invocation),
                    reasons,
                })
            }
            Decision::NeedsConfirmation(reasons) if confirmed => {
                *trail = audit::Trail {
                    decision: Some("confirmed"),
                    reasons,
                    confirmed_by: Some("caller"),
                    grant: None,
                };
            }
            Decision::NeedsConfirmation(mut reasons) => {
                if let Some(grant) = self.grants.covering(&invocation, &reasons) {
                    tracing::debug!(scope = grant.scope.as_str(), "confirmation by grant");
                    *trail = audit::Trail {
                        decision: Some("confirmed"),
                        reasons,
                        confirmed_by: Some("grant"),
                        grant: Some(grant),
                    };
                } else {
                    if gate.tight_first {
                        match self
                            .tight_run(&invocation, &program, &working_dir, &gate)
                            .await
                        {
                            Ok(output) => {
                                let refused = tight::refusals(&output.stdout, &output.stderr);
                                // Done, unless it failed or its output shows it was held
                                // back (a script that goes on after a refused write).
                                if output.success() && refused.is_empty() {
                                    *trail = audit::Trail {
                                        decision: Some("tight-first"),
                                        reasons,
                                        confirmed_by: None,
                                        grant: None,
                                    };
                                    if let Some(tx) = &sink {
                                        self.forward(&output, tx).await;
                                    }
                                    return Ok(output);
                                }
                                reasons.push(self.tight_failure(&output, refused));
                            }
                            // Not enforceable here (or not startable): ask as without it.
                            Err(e) => tracing::debug!(error = %e, "tight first unavailable"),
                        }
                    }
                    invocation = self.ask(invocation, reasons, trail).await?;
                }
            }
        }
        if let Some(server) = invocation.server.clone() {
            let output = self
                .served_run(invocation, &server, &gate.confinement)
                .await?;
            if let Some(tx) = &sink {
                self.forward(&output, tx).await;
            }
            return Ok(output);
        }
        self.verified_run(
            invocation,
            program,
            &working_dir,
            gate.confinement,
            sink.as_ref(),
            false,
        )
        .await
    }

    /// Puts a call needing confirmation for `reasons` to the handler; returns the invocation
    /// to run when the person said yes, recording a grant when they said yes for the session.
    async fn ask(
        &self,
        invocation: Invocation,
        reasons: Vec<crate::policy::Reason>,
        trail: &mut audit::Trail,
    ) -> Result<Invocation, RunError> {
        use tracing::Instrument;
        let request = ConfirmationRequest {
            invocation,
            reasons,
        };
        let Some(handler) = &self.confirm else {
            return Err(RunError::NeedsConfirmation(Box::new(request)));
        };
        let answer = handler
            .answer(request.clone())
            .instrument(tracing::info_span!("atip.confirm"))
            .await;
        tracing::debug!(confirmed = answer.runs(), "confirmation");
        let granted = match answer {
            Answer::ForSession(scope) => Some(self.grants.grant(request.grant(scope, "handler"))),
            _ => None,
        };
        if !answer.runs() {
            return Err(RunError::Declined(Box::new(request)));
        }
        *trail = audit::Trail {
            decision: Some("confirmed"),
            reasons: request.reasons,
            confirmed_by: Some("handler"),
            // The grant this answer created, so its line shows where later ones come from.
            grant: granted,
        };
        Ok(request.invocation)
    }

    /// The layers after the policy: checksum, sandbox, execution.
    async fn verified_run(
        &self,
        invocation: Invocation,
        program: Option<PathBuf>,
        working_dir: &std::path::Path,
        confinement: crate::policy::Confinement,
        sink: Option<&mpsc::Sender<OutputChunk>>,
        tight: bool,
    ) -> Result<Output, RunError> {
        let mut confined = self.confine(
            &invocation,
            program.as_deref(),
            working_dir,
            confinement,
            tight,
        )?;
        let filter = &confined.filter;
        let mut settings = self.settings.clone();
        settings.timeout = self.timeout_for(&invocation.effects);
        let stream = sink.map(|tx| process::Stream { tx, filter });
        let mut result = {
            use tracing::Instrument;
            process::run(
                invocation,
                &settings,
                stream,
                program.as_deref(),
                confined.verified.take(),
                confined.vars.as_deref(),
                &mut confined.prepared,
            )
            .instrument(tracing::info_span!("atip.process"))
            .await
        };
        if let Ok(output) = &mut result {
            output.known_secrets = confined.known.clone();
            // Hosts and reasons in the egress log are the command's own words: redacted
            // before they reach the tool result's metadata, an MCP client or the audit line.
            let tool = Some(output.name.as_str());
            if let Some(log) = &mut output.sandbox.egress {
                // Redacted whole, then cut (a cut first could leave a fragment of a secret
                // that redaction no longer recognises).
                let clean = |text: &str| {
                    egress::cut_at_word(&filter.redact_for(tool, text).0, egress::MAX_REFUSAL_TEXT)
                };
                for r in &mut log.refused {
                    r.target = clean(&r.target);
                    r.reason = clean(&r.reason);
                }
                for r in &mut log.reached {
                    r.host = filter.redact_for(tool, &r.host).0.into_owned();
                }
            }
        }
        if let Ok(output) = &result {
            tracing::debug!(
                status = %output.status,
                timed_out = output.timed_out,
                duration_ms = u64::try_from(output.duration.as_millis()).unwrap_or(u64::MAX),
                "exit"
            );
        }
        // The run's scratch directory goes with `confined`.
        drop(confined);
        result
    }

    /// Runs `invocation` without consulting the policy — with the same checksum check, sandbox
    /// and limits.
    ///
    /// # Errors
    ///
    /// [`RunError::Argv`] for NUL bytes, [`RunError::Checksum`], [`RunError::Sandbox`],
    /// [`RunError::Spawn`] or [`RunError::Io`].
    pub async fn execute(&self, invocation: Invocation) -> Result<Output, RunError> {
        let working_dir = self.working_dir();
        if let Some(server) = invocation.server.clone() {
            let confinement = self.policy.gate(&invocation, &working_dir).confinement;
            return self.served_run(invocation, &server, &confinement).await;
        }
        let program = self.program_of(&invocation, &working_dir);
        let confinement = self.policy.gate(&invocation, &working_dir).confinement;
        self.verified_run(invocation, program, &working_dir, confinement, None, false)
            .await
    }
}
