//! The agent turn, end to end: one model response in, the next messages out.
//!
//! [`TurnDriver::turn`] takes a provider's response body and returns what to append to the
//! conversation before asking the model again: the model's turn echoed as the provider
//! requires ([`crate::wire::model_turn`]) and the tool results in the provider's format
//! ([`crate::wire::result_messages`]). In between, for every call of the response:
//!
//! 1. calls from a response cut short (token limit) are not run; each is answered asking the
//!    model to make it again;
//! 2. dispatch checks the arguments against the command's spec and lists every problem
//!    ([`crate::command::dispatch`]); an invalid call is answered with them and counts against the
//!    retry budget ([`TurnDriver::retry_budget`]);
//! 3. the valid calls run as one batch through the [`Runner`]: policy, confirmation (the
//!    runner's handler, [`Runner::confirm_with`]), checksum, sandbox, execution, redaction —
//!    calls that conflict (both write files, or either is destructive or not idempotent) never
//!    overlap ([`BatchOptions`]);
//! 4. each call's result, decision and time are reported ([`CallReport`]).
//!
//! The same driver serves metadata loaded at run time ([`LoadedCommands`](crate::LoadedCommands), several of them) and
//! generated modules ([`GeneratedCommands`], over a module's `Call`).

use std::ffi::OsString;
use std::time::{Duration, Instant};

use serde_json::Value;

pub use crate::command::dispatch::set::{CommandSet, Dispatch, GeneratedCommands, ToolSet};
use crate::command::dispatch::ToolCall;
use crate::exec::{BatchOptions, RunError, Runner};
use crate::wire::{model_turn_text, parse_response, result_messages, ParseError};
use crate::Invocation;
use crate::Provider;
use crate::ToolResult;

/// What became of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallStatus {
    /// The arguments were invalid (or cut off); the model was told every problem.
    Invalid,
    /// The policy denied it, or a person declined to confirm it.
    Refused,
    /// It needed confirmation and nobody could give it.
    Unconfirmed,
    /// It did not start (checksum, sandbox, spawn or I/O failure).
    NotStarted,
    /// Not started because an earlier call failed ([`BatchOptions::stop_on_error`]).
    Skipped,
    /// The tool set answered it without running a command (a meta-tool's search or
    /// description, [`ToolSet::answer`]).
    Answered,
    /// It ran; `success` is a zero exit within the time limit.
    Ran {
        /// Zero exit status, no timeout.
        success: bool,
    },
}

/// One call of a turn, as it went.
#[derive(Debug, Clone)]
pub struct CallReport {
    /// The call as the model made it.
    pub call: ToolCall,
    /// The argv it ran with (or would have), when dispatch succeeded.
    pub argv: Option<Vec<OsString>>,
    /// What became of it.
    pub status: CallStatus,
    /// What the model is told (filtered, secrets redacted).
    pub result: ToolResult,
    /// From dispatch to result, for this call.
    pub duration: Duration,
}

/// What one [`TurnDriver::turn`] produced.
#[derive(Debug, Clone)]
pub struct TurnOutcome {
    /// The messages to append to the conversation, in order: the model's turn as the provider
    /// requires it echoed, then the tool results. Empty results when there were no calls.
    pub messages: Vec<Value>,
    /// One report per call, in the order the model made them.
    pub calls: Vec<CallReport>,
    /// The text the model wrote in this response.
    pub text: Vec<String>,
    /// The model made no tool call: its text is the answer, the loop is over.
    pub finished: bool,
    /// More invalid calls than [`TurnDriver::retry_budget`] allows were made: stop the loop
    /// rather than ask again.
    pub budget_spent: bool,
    /// The response was cut short; none of its calls ran.
    pub truncated: bool,
}

/// Why a turn could not be taken.
#[derive(Debug)]
#[non_exhaustive]
pub enum TurnError {
    /// The response is not the provider's response shape.
    Parse(ParseError),
    /// The results could not be put in the provider's format (a call without an id where the
    /// provider needs one).
    Results(crate::wire::ResultError),
}

impl std::fmt::Display for TurnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TurnError::Parse(e) => write!(f, "{e}"),
            TurnError::Results(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TurnError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TurnError::Parse(e) => Some(e),
            TurnError::Results(e) => Some(e),
        }
    }
}

/// Default number of invalid calls a conversation may make before the driver says stop.
pub const DEFAULT_RETRY_BUDGET: usize = 3;

/// Drives the tool part of an agent loop for one provider; see the module documentation.
///
/// ```no_run
/// # async fn demo(body: &str) -> Result<(), Box<dyn std::error::Error>> {
/// use atip_runtime::agent::TurnDriver;
/// use atip_runtime::{Document, LoadedCommands, Provider, Runner};
/// let doc = Document::from_path("atip/git.json".as_ref(), Default::default(), &Default::default())?;
/// let mut driver = TurnDriver::new(Provider::Anthropic, LoadedCommands::new(doc, None), Runner::new());
/// let outcome = driver.turn(body).await?;
/// // Append outcome.messages to the conversation and ask the model again,
/// // until outcome.finished (or outcome.budget_spent).
/// # Ok(()) }
/// ```
pub struct TurnDriver<D> {
    provider: Provider,
    tools: D,
    runner: Runner,
    batch: BatchOptions,
    retry_budget: usize,
    invalid: usize,
}

impl<D: ToolSet> TurnDriver<D> {
    /// A driver for `provider`'s responses, dispatching to `tools` and running with
    /// `runner`. Calls of one turn run one after another unless [`TurnDriver::batch`] says
    /// otherwise; the retry budget is [`DEFAULT_RETRY_BUDGET`].
    pub fn new(provider: Provider, tools: D, runner: Runner) -> Self {
        TurnDriver {
            provider,
            tools,
            runner,
            batch: BatchOptions::default(),
            retry_budget: DEFAULT_RETRY_BUDGET,
            invalid: 0,
        }
    }

    /// How the calls of one turn are scheduled (conflicting calls never overlap).
    #[must_use]
    pub fn batch(mut self, options: BatchOptions) -> Self {
        self.batch = options;
        self
    }

    /// How many invalid calls (bad arguments, unknown tools, cut-off responses) the whole
    /// conversation may make; one more ends it with [`TurnOutcome::budget_spent`].
    #[must_use]
    pub fn retry_budget(mut self, calls: usize) -> Self {
        self.retry_budget = calls;
        self
    }

    /// The tools offered, for the request's tool list.
    pub fn tools(&self) -> &D {
        &self.tools
    }

    /// The runner the calls go through.
    pub fn runner(&self) -> &Runner {
        &self.runner
    }

    /// Tool definitions of every command in this driver's provider format.
    pub fn definitions(&self) -> Vec<Value> {
        self.tools
            .specs()
            .into_iter()
            .map(|s| crate::providers::tool_definition(s, self.provider))
            .collect()
    }

    /// Takes one turn: reads the response `body`, runs its calls, and returns the next
    /// messages (see the module documentation).
    ///
    /// # Errors
    ///
    /// [`TurnError::Parse`] when `body` is not this provider's response;
    /// [`TurnError::Results`] when the results cannot be written (a call without an id).
    pub async fn turn(&mut self, body: &str) -> Result<TurnOutcome, TurnError> {
        let parsed = parse_response(self.provider, body).map_err(TurnError::Parse)?;
        let mut messages = model_turn_text(self.provider, body).map_err(TurnError::Parse)?;
        let finished = parsed.tool_calls.is_empty();

        // Dispatch every call; the valid ones run together.
        let started = Instant::now();
        let mut reports: Vec<Option<CallReport>> = Vec::with_capacity(parsed.tool_calls.len());
        let mut runnable: Vec<(usize, Invocation)> = Vec::new();
        for (i, call) in parsed.tool_calls.iter().enumerate() {
            if let (Some(result), true) = (self.tools.answer(call), call.arguments.is_ok()) {
                reports.push(Some(CallReport {
                    call: call.clone(),
                    argv: None,
                    status: CallStatus::Answered,
                    result,
                    duration: started.elapsed(),
                }));
                continue;
            }
            match self.tools.invocation(call) {
                Ok(inv) => {
                    runnable.push((i, inv));
                    reports.push(None);
                }
                Err(e) => {
                    self.invalid += 1;
                    reports.push(Some(CallReport {
                        call: call.clone(),
                        argv: None,
                        status: CallStatus::Invalid,
                        result: ToolResult::error(e.to_string()),
                        duration: started.elapsed(),
                    }));
                }
            }
        }
        let argvs: Vec<(usize, Vec<OsString>)> = runnable
            .iter()
            .map(|(i, inv)| (*i, inv.argv.clone()))
            .collect();
        let outputs = self
            .runner
            .run_batch(
                runnable.into_iter().map(|(_, inv)| inv).collect(),
                self.batch,
            )
            .await;
        for ((i, argv), output) in argvs.into_iter().zip(outputs) {
            let (status, result) = match &output {
                Ok(out) => (
                    CallStatus::Ran {
                        success: out.success(),
                    },
                    self.runner.tool_result(out),
                ),
                Err(e) => (status_of(e), self.runner.error_result(e)),
            };
            reports[i] = Some(CallReport {
                call: parsed.tool_calls[i].clone(),
                argv: Some(argv),
                status,
                result,
                duration: output
                    .as_ref()
                    .map(|o| o.duration)
                    .unwrap_or_else(|_| started.elapsed()),
            });
        }
        let calls: Vec<CallReport> = reports.into_iter().flatten().collect();

        let budget_spent = self.invalid > self.retry_budget;
        if !finished {
            let mut results: Vec<ToolResult> = calls.iter().map(|c| c.result.clone()).collect();
            if budget_spent {
                for r in &mut results {
                    if r.is_error {
                        r.content.push_str(
                            "\n(too many invalid calls in this conversation: stop calling tools \
                             and answer with what you have)",
                        );
                    }
                }
            }
            messages.extend(
                result_messages(self.provider, &parsed.tool_calls, &results)
                    .map_err(TurnError::Results)?,
            );
        }
        Ok(TurnOutcome {
            messages,
            calls,
            text: parsed.text,
            finished,
            budget_spent,
            truncated: parsed.truncated,
        })
    }
}

impl<D> std::fmt::Debug for TurnDriver<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnDriver")
            .field("provider", &self.provider)
            .field("batch", &self.batch)
            .field("retry_budget", &self.retry_budget)
            .field("invalid", &self.invalid)
            .finish_non_exhaustive()
    }
}

fn status_of(e: &RunError) -> CallStatus {
    match e {
        RunError::Denied { .. } | RunError::Declined(_) => CallStatus::Refused,
        RunError::NeedsConfirmation(_) => CallStatus::Unconfirmed,
        RunError::Skipped { .. } => CallStatus::Skipped,
        RunError::Argv(_) => CallStatus::Invalid,
        _ => CallStatus::NotStarted,
    }
}
