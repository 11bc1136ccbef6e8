//! The audit trail: one JSON object per line for every call a [`Runner`](super::Runner) was
//! asked to run — allowed, confirmed, refused or failed — appended to a file that is only ever
//! appended to.
//!
//! A line (keys in this order; absent values are `null`):
//!
//! | key | value |
//! |---|---|
//! | `time` | when the call ended, RFC 3339 UTC (`2026-11-23T15:04:05.123Z`) |
//! | `callId` | the model's id for the call ([`crate::Invocation::call_id`]) |
//! | `tool` | flattened name (`git_clean`) |
//! | `argv` | program and arguments, as run (or as they would have run); non-UTF-8 bytes replaced |
//! | `decision` | `allowed`, `tight-first` (ran unasked in the tightest sandbox and that was its result), `confirmed`, `denied`, `declined` or `unconfirmed` (needed a person, none asked); `cancelled` for a call dropped before the policy stage decided |
//! | `reasons` | `[{code, message}]` behind a confirmation or refusal |
//! | `confirmedBy` | `handler` (the runner's confirmation handler), `caller` ([`Run::confirmed`](super::Run::confirmed): the caller asked someone), `grant` (a session grant, [`super::grants`]) or `null` |
//! | `grant` | for `confirmedBy: grant`, the grant that let it through; for `confirmedBy: handler`, the grant the person's answer created (if any): `{id, command, scope, originCallId, grantedBy}` (`id` numbers the runner's grants from 1; `scope` `sameReasons` or `command`; `originCallId` the call whose confirmation granted it; `grantedBy` `handler`, `elicitation` or what the application named) |
//! | `sandbox` | `{enforced, notEnforced, envRemoved, egress}` for a run that started (`envRemoved`: the names of environment variables the command did not get; `egress`: for a run with egress rules, the hosts reached with their traffic (the first 64 and the 16 later ones with the most traffic; the traffic with the rest added up in `otherHosts`) and the connections refused (the first 32; later ones counted in `refusedOmitted`), else `null`) |
//! | `durationMs` | from the call to its end, milliseconds |
//! | `exitCode`, `signal`, `timedOut` | how a run ended |
//! | `redactions` | secrets replaced in what the model is shown |
//! | `truncated` | bytes of output the model is not shown (beyond the cap) |
//! | `error` | why a call did not run or start; `cancelled before it finished` for a call whose future was dropped (a run that had started was killed with its process group) |
//!
//! The log holds argv values the model chose: keep it where the model's output may be kept, and
//! outside the directories commands may write to (a `git clean` in the working directory
//! removes an untracked log like any other file; the sandbox can only allow, not protect,
//! paths inside a writable directory).
//! Write failures do not fail the call; they are reported through `tracing` (`warn`).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde_json::Value;

use super::error::RunError;
use super::output::Output;
use crate::policy::Reason;

/// An append-only JSON-lines audit log; see the module documentation for the line format.
/// Cheap to clone (clones write to the same file, one whole line at a time).
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
    file: Arc<Mutex<File>>,
}

impl AuditLog {
    /// Opens (creating it if needed) `path` for appending.
    ///
    /// # Errors
    ///
    /// The I/O error of opening the file.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(AuditLog {
            path,
            file: Arc::new(Mutex::new(file)),
        })
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record as one line.
    pub(super) fn write(&self, record: &Record<'_>) {
        self.append(record);
    }

    /// Appends `record`, serialised as one JSON line, for a caller that keeps its own records
    /// in the same log (`atip_mcp::wrap` writes one per tool call of a wrapped MCP server). A
    /// failure to serialise or write is traced (`tracing::warn!`), not returned: the audit
    /// trail never stops a call.
    pub fn append(&self, record: &impl Serialize) {
        let mut line = match serde_json::to_vec(record) {
            Ok(line) => line,
            Err(e) => {
                tracing::warn!(error = %e, "audit record did not serialise");
                return;
            }
        };
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = file.write_all(&line) {
            tracing::warn!(error = %e, path = %self.path.display(), "audit log write failed");
        }
    }
}

/// What the policy stage decided, filled in as the call goes.
#[derive(Debug, Default)]
pub(super) struct Trail {
    pub(super) decision: Option<&'static str>,
    pub(super) reasons: Vec<Reason>,
    pub(super) confirmed_by: Option<&'static str>,
    /// The session grant that confirmed the call (`confirmed_by == Some("grant")`).
    pub(super) grant: Option<super::Grant>,
}

/// The record of a call in flight: written when the call ends ([`Pending::finish`]), or, if
/// its future is dropped first, when it is dropped — so a cancelled call that ran is in the log
/// too.
pub(super) struct Pending<'a> {
    log: &'a AuditLog,
    call_id: Option<String>,
    tool: String,
    argv: Vec<std::ffi::OsString>,
    started: std::time::Instant,
    /// What the policy stage decided so far.
    pub(super) trail: Trail,
    done: bool,
}

impl<'a> Pending<'a> {
    pub(super) fn new(log: &'a AuditLog, invocation: &crate::Invocation) -> Self {
        Pending {
            log,
            call_id: invocation.call_id.as_deref().map(str::to_owned),
            tool: invocation.name.to_string(),
            argv: invocation.argv.clone(),
            started: std::time::Instant::now(),
            trail: Trail::default(),
            done: false,
        }
    }

    /// Writes the call's line: `shown` is the model's view of a run's output.
    pub(super) fn finish(
        mut self,
        result: &Result<Output, RunError>,
        shown: Option<&crate::ToolResult>,
    ) {
        self.done = true;
        self.log.write(&Record::new(
            self.call_id.as_deref(),
            &self.tool,
            &self.argv,
            &self.trail,
            Some(result),
            shown,
            self.started.elapsed(),
        ));
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.log.write(&Record::new(
                self.call_id.as_deref(),
                &self.tool,
                &self.argv,
                &self.trail,
                None,
                None,
                self.started.elapsed(),
            ));
        }
    }
}

/// One line of the log.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Record<'a> {
    time: String,
    call_id: Option<&'a str>,
    tool: &'a str,
    argv: Vec<String>,
    decision: &'static str,
    reasons: Vec<Value>,
    confirmed_by: Option<&'static str>,
    grant: Option<Value>,
    sandbox: Option<Value>,
    duration_ms: u64,
    exit_code: Option<i32>,
    signal: Option<i32>,
    timed_out: Option<bool>,
    redactions: Option<u64>,
    truncated: Option<u64>,
    error: Option<String>,
}

impl<'a> Record<'a> {
    /// The record of a call: `result` is `None` for a call cancelled before it finished,
    /// `shown` the model's view of a run's output (for redactions).
    fn new(
        call_id: Option<&'a str>,
        tool: &'a str,
        argv: &[std::ffi::OsString],
        trail: &Trail,
        result: Option<&Result<Output, RunError>>,
        shown: Option<&crate::ToolResult>,
        duration: Duration,
    ) -> Self {
        let decision = match result {
            Some(Err(RunError::Denied { .. })) => "denied",
            Some(Err(RunError::Declined(_))) => "declined",
            Some(Err(RunError::NeedsConfirmation(_))) => "unconfirmed",
            Some(_) => trail.decision.unwrap_or("allowed"),
            None => trail.decision.unwrap_or("cancelled"),
        };
        let reasons = match result {
            Some(Err(RunError::Denied { reasons, .. })) => reasons.as_slice(),
            Some(Err(RunError::Declined(r) | RunError::NeedsConfirmation(r))) => {
                r.reasons.as_slice()
            }
            _ => trail.reasons.as_slice(),
        }
        .iter()
        .map(Reason::audit_json)
        .collect();
        let output = result.and_then(|r| r.as_ref().ok());
        let (exit_code, signal) = match output.map(|o| o.status) {
            Some(super::output::ExitStatus::Code(c)) => (Some(c), None),
            Some(super::output::ExitStatus::Signal(s)) => (None, Some(s)),
            _ => (None, None),
        };
        let meta_u64 = |key: &str| shown.and_then(|s| s.meta.get(key)).and_then(Value::as_u64);
        Record {
            time: humantime::format_rfc3339_millis(SystemTime::now()).to_string(),
            call_id,
            tool,
            argv: argv
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            decision,
            reasons,
            confirmed_by: trail.confirmed_by,
            grant: trail.grant.as_ref().map(super::Grant::audit_json),
            sandbox: output.map(|o| {
                serde_json::json!({
                    "enforced": o.sandbox.enforced,
                    "notEnforced": o.sandbox.not_enforced,
                    "envRemoved": o.sandbox.env_removed,
                    "egress": o.sandbox.egress,
                })
            }),
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            exit_code,
            signal,
            timed_out: output.map(|o| o.timed_out),
            redactions: meta_u64("redactions"),
            truncated: match shown {
                Some(_) => Some(meta_u64("omittedBytes").unwrap_or(0)),
                None => output.map(|o| o.stdout_dropped + o.stderr_dropped),
            },
            error: match result {
                Some(r) => r.as_ref().err().map(ToString::to_string),
                None => Some("cancelled before it finished".to_owned()),
            },
        }
    }
}
