//! One run of a command, as [`Runner::run`] returns it: a future with its options.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::sync::mpsc;

use super::{Output, OutputChunk, RunError, Runner};
use crate::command::argv::ArgvError;
use crate::{Invocation, ToolResult};

/// One run of a command through a [`Runner`]: `.await` it for the [`Output`], or set its
/// options first — [`Run::confirmed`] (a person already said yes), [`Run::stream_to`] (chunks
/// as they arrive) — or answer a model with [`Run::tool_result`].
///
/// Nothing happens until it is awaited; dropping it while it runs kills the command's process
/// group.
///
/// ```no_run
/// # async fn demo(runner: atip_runtime::Runner, cmd: atip_runtime::Invocation)
/// # -> Result<(), atip_runtime::RunError> {
/// let output = runner.run(&cmd).await?; // gated on the policy; may ask a person
/// let output = runner.run(&cmd).confirmed(true).await?; // a person already confirmed
/// let result = runner.run(&cmd).tool_result().await; // what goes back to the model
/// # Ok(()) }
/// ```
#[must_use = "a run does nothing until it is awaited"]
pub struct Run<'r> {
    runner: &'r Runner,
    state: State<'r>,
}

type Running<'r> = Pin<Box<dyn Future<Output = Result<Output, RunError>> + Send + 'r>>;

enum State<'r> {
    Ready(Box<Ready>),
    Running(Running<'r>),
    Done,
}

/// A run not yet awaited: its command and options.
struct Ready {
    invocation: Result<Invocation, ArgvError>,
    confirmed: bool,
    chunks: Option<mpsc::Sender<OutputChunk>>,
}

impl<'r> Run<'r> {
    pub(super) fn new(runner: &'r Runner, invocation: Result<Invocation, ArgvError>) -> Self {
        Run {
            runner,
            state: State::Ready(Box::new(Ready {
                invocation,
                confirmed: false,
                chunks: None,
            })),
        }
    }

    /// Whether a person already confirmed this call (default `false`). With `true`, a command
    /// the policy wants confirmed runs without asking the runner's confirmation handler;
    /// commands the policy refuses stay refused, and [`RunError::NeedsConfirmation`] and
    /// [`RunError::Declined`] cannot happen.
    pub fn confirmed(mut self, yes: bool) -> Self {
        if let State::Ready(ready) = &mut self.state {
            ready.confirmed = yes;
        }
        self
    }

    /// Sends stdout and stderr to `chunks` as they arrive, redacted by the runner's filter
    /// ([`crate::filter::StreamRedactor`]: a chunk is UTF-8 text, and the end of each stream is
    /// held back by up to 4 KiB, a block or a known value that later lines may complete by up
    /// to 64 KiB, until it can no longer be part of a secret; a chunk is what one read of the
    /// child's pipe brought, at most 64 KiB before redaction, or, after 10 ms without output,
    /// what the redactor kept back only to save work). A slow receiver
    /// slows the child down through its pipe. The [`Output`] still holds the raw bytes.
    pub fn stream_to(mut self, sender: mpsc::Sender<OutputChunk>) -> Self {
        if let State::Ready(ready) = &mut self.state {
            ready.chunks = Some(sender);
        }
        self
    }

    /// Runs it and answers a model: the filtered output of a command that ran
    /// ([`Runner::tool_result`]; `is_error` on a non-zero exit or timeout), or why it did not
    /// run ([`Runner::error_result`]).
    pub async fn tool_result(self) -> ToolResult {
        let runner = self.runner;
        match self.await {
            Ok(output) => runner.tool_result(&output),
            Err(e) => runner.error_result(&e),
        }
    }
}

impl Future for Run<'_> {
    type Output = Result<Output, RunError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if let State::Ready(_) = this.state {
            let State::Ready(ready) = std::mem::replace(&mut this.state, State::Done) else {
                unreachable!()
            };
            let runner = this.runner;
            let Ready {
                invocation,
                confirmed,
                chunks,
            } = *ready;
            this.state = match invocation {
                Ok(invocation) => {
                    State::Running(Box::pin(runner.gate_and_run(invocation, confirmed, chunks)))
                }
                Err(e) => return Poll::Ready(Err(e.into())),
            };
        }
        match &mut this.state {
            State::Running(future) => {
                let done = future.as_mut().poll(cx);
                if done.is_ready() {
                    this.state = State::Done;
                }
                done
            }
            State::Ready(_) | State::Done => panic!("a run polled after it completed"),
        }
    }
}
