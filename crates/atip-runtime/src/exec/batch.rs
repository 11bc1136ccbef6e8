//! Several calls of one model turn: sequential by default, in parallel on request, never
//! overlapping calls that conflict.

use tokio::task::JoinSet;

use super::{Output, RunError, Runner};
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
                        let runner = self.clone();
                        running.push(i);
                        tasks.spawn(async move { (i, runner.run(&inv).await) });
                    }
                }
            }
            let Some(joined) = tasks.join_next().await else {
                break;
            };
            let (i, result) = match joined {
                Ok(done) => done,
                // A panicking task: report it on the call it belongs to, found by elimination.
                Err(e) => {
                    let i = running
                        .iter()
                        .copied()
                        .find(|&j| results[j].is_none())
                        .unwrap_or(0);
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
}
