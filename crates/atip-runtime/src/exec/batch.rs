//! Several calls of one model turn: sequential by default, in parallel on request, never
//! overlapping calls that conflict.

use tokio::task::JoinSet;

use super::error::RunError;
use super::output::Output;
use super::Runner;
use crate::{Effects, Invocation};

/// How [`Runner::run_batch`] schedules calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchOptions {
    /// How many calls may run at once; 1 (the default) runs them one after another.
    pub concurrency: usize,
    /// Stop starting calls after the first failure (refused, not startable, non-zero exit or
    /// timeout); calls not started then report [`RunError::Skipped`]. Default `false`.
    pub stop_on_error: bool,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            concurrency: 1,
            stop_on_error: false,
        }
    }
}

/// Whether two calls must not overlap: both write or delete files, or either is destructive or
/// not idempotent. Unknown effects count as the risky value.
pub fn conflicts(a: &Effects, b: &Effects) -> bool {
    let touches_files =
        |e: &Effects| e.filesystem_write() != Some(false) || e.filesystem_delete() != Some(false);
    let risky = |e: &Effects| e.destructive != Some(false) || e.idempotent != Some(true);
    (touches_files(a) && touches_files(b)) || risky(a) || risky(b)
}

impl Runner {
    /// Runs every call and returns their results in input order. Each call passes the policy
    /// gate like [`Runner::run`]. With `concurrency > 1`, a call starts as soon as a slot is
    /// free and it conflicts (see [`conflicts`]) neither with a running call nor with an
    /// earlier call still waiting, so conflicting calls keep their order.
    pub async fn run_batch(
        &self,
        calls: Vec<Invocation>,
        options: BatchOptions,
    ) -> Vec<Result<Output, RunError>> {
        let limit = options.concurrency.max(1);
        let effects: Vec<Effects> = calls
            .iter()
            .map(|c| c.effects.clone().into_owned())
            .collect();
        let mut pending: Vec<Option<Invocation>> = calls.into_iter().map(Some).collect();
        let mut results: Vec<Option<Result<Output, RunError>>> =
            (0..pending.len()).map(|_| None).collect();
        let mut running: Vec<usize> = Vec::new();
        // Which call each task runs, for a task that panics (its result never arrives).
        let mut task_of: Vec<(tokio::task::Id, usize)> = Vec::new();
        let mut tasks: JoinSet<(usize, Result<Output, RunError>)> = JoinSet::new();
        let mut stopped = false;
        loop {
            if !stopped {
                let mut waiting: Vec<usize> = Vec::new();
                for i in 0..pending.len() {
                    if pending[i].is_none() {
                        continue;
                    }
                    let blocked = running.len() >= limit
                        || running
                            .iter()
                            .chain(waiting.iter())
                            .any(|&j| conflicts(&effects[i], &effects[j]));
                    if blocked {
                        waiting.push(i);
                        continue;
                    }
                    if let Some(inv) = pending[i].take() {
                        let runner = self.sharing_grants();
                        running.push(i);
                        let handle = tasks.spawn(async move { (i, runner.run(&inv).await) });
                        task_of.push((handle.id(), i));
                    }
                }
            }
            let Some(joined) = tasks.join_next().await else {
                break;
            };
            let (i, result) = match joined {
                Ok(done) => done,
                // A panicking task: report it on the call it ran.
                Err(e) => {
                    let i = task_of
                        .iter()
                        .find(|(id, _)| *id == e.id())
                        .map_or(0, |(_, i)| *i);
                    (
                        i,
                        Err(RunError::Io(std::io::Error::other(format!(
                            "task failed: {e}"
                        )))),
                    )
                }
            };
            running.retain(|&j| j != i);
            let failed = !matches!(&result, Ok(o) if o.success());
            results[i] = Some(result);
            if failed && options.stop_on_error {
                stopped = true;
            }
        }
        results
            .into_iter()
            .zip(pending)
            .map(|(r, not_started)| match (r, not_started) {
                (Some(r), _) => r,
                (None, Some(inv)) => Err(RunError::Skipped {
                    name: inv.name.into_owned(),
                }),
                (None, None) => Err(RunError::Io(std::io::Error::other("call was lost"))),
            })
            .collect()
    }
}

/// Keeps calls that arrive independently (an MCP server's concurrent `tools/call` requests,
/// several agents sharing one runner) from overlapping when they [`conflict`](conflicts): a call
/// waits in [`ConflictGate::enter`] until no call holding a [`Pass`] conflicts with it. Calls
/// that do not conflict (two reads) run side by side. Cheap to clone; clones share the gate.
///
/// Waiting calls are admitted as running ones leave, in no guaranteed order.
#[derive(Debug, Clone, Default)]
pub struct ConflictGate {
    shared: std::sync::Arc<GateState>,
}

#[derive(Debug, Default)]
struct GateState {
    /// Effects of the calls holding a pass, by pass number.
    running: std::sync::Mutex<Vec<(u64, Effects)>>,
    next: std::sync::atomic::AtomicU64,
    left: tokio::sync::Notify,
}

/// Admission through a [`ConflictGate`]: held while the call runs, released on drop.
#[derive(Debug)]
pub struct Pass {
    shared: std::sync::Arc<GateState>,
    id: u64,
}

impl ConflictGate {
    /// An empty gate.
    pub fn new() -> Self {
        Self::default()
    }

    /// Waits until no admitted call conflicts with a call of `effects`, then admits it.
    pub async fn enter(&self, effects: &Effects) -> Pass {
        let state = &self.shared;
        loop {
            let left = state.left.notified();
            tokio::pin!(left);
            // Registered before the check, so a call leaving in between still wakes us.
            left.as_mut().enable();
            {
                let mut running = state.running.lock().unwrap_or_else(|e| e.into_inner());
                if !running.iter().any(|(_, e)| conflicts(e, effects)) {
                    let id = state
                        .next
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    running.push((id, effects.clone()));
                    return Pass {
                        shared: std::sync::Arc::clone(state),
                        id,
                    };
                }
            }
            left.await;
        }
    }

    /// How many calls hold a pass now.
    pub fn running(&self) -> usize {
        self.shared
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }
}

impl Drop for Pass {
    fn drop(&mut self) {
        self.shared
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(id, _)| *id != self.id);
        self.shared.left.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fx(json: &str) -> Effects {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn conflict_rules() {
        let read = fx(
            r#"{"filesystem": {"write": false, "delete": false}, "destructive": false, "idempotent": true}"#,
        );
        let write = fx(
            r#"{"filesystem": {"write": true, "delete": false}, "destructive": false, "idempotent": true}"#,
        );
        let destructive = fx(
            r#"{"filesystem": {"write": false, "delete": false}, "destructive": true, "idempotent": true}"#,
        );
        let not_idempotent = fx(
            r#"{"filesystem": {"write": false, "delete": false}, "destructive": false, "idempotent": false}"#,
        );
        assert!(!conflicts(&read, &read));
        assert!(!conflicts(&read, &write));
        assert!(conflicts(&write, &write));
        assert!(conflicts(&read, &destructive));
        assert!(conflicts(&not_idempotent, &read));
        assert!(
            conflicts(&Effects::UNKNOWN, &read),
            "unknown effects are not safe"
        );
    }

    #[tokio::test]
    async fn the_gate_admits_reads_together_and_writes_one_at_a_time() {
        let read = fx(
            r#"{"filesystem":{"read":true,"write":false,"delete":false},"destructive":false,"idempotent":true}"#,
        );
        let write = fx(
            r#"{"filesystem":{"read":true,"write":true,"delete":false},"destructive":false,"idempotent":true}"#,
        );
        let gate = ConflictGate::new();
        let r1 = gate.enter(&read).await;
        let _r2 = gate.enter(&read).await;
        assert_eq!(gate.running(), 2);
        let w1 = gate.enter(&write).await; // reads do not conflict with a write
        let second = gate.enter(&write);
        tokio::pin!(second);
        let waited =
            tokio::time::timeout(std::time::Duration::from_millis(50), second.as_mut()).await;
        assert!(waited.is_err(), "a second write waits for the first");
        drop(w1);
        let _w2 = tokio::time::timeout(std::time::Duration::from_secs(5), second)
            .await
            .expect("admitted once the first write left");
        drop(r1);
        assert_eq!(gate.running(), 2);
    }
}
