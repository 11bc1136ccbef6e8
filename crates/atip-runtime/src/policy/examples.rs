//! Policies that test themselves: a policy may carry calls with the decision it must reach for
//! each (`"examples": [{"call": {"name": …, "arguments": {…}}, "expect": "confirm"}]`), checked
//! when the policy meets the tools it will judge ([`Policy::check_examples`]). A policy edited
//! later that no longer decides as its examples say is refused, with each example that fails
//! and the rules that decided it, before anything runs.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Decision, Policy};
use crate::command::dispatch::{Dispatch, ToolCall};

/// A call and the decision a policy must reach for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PolicyExample {
    /// The call, as a model would make it.
    pub call: ExampleCall,
    /// What the policy must decide.
    pub expect: Expectation,
}

/// An example's call: a command's flattened name and its arguments object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExampleCall {
    /// The command's flattened name (`gh_pr_merge`), as the tools are sent.
    pub name: String,
    /// Its arguments, by parameter name; none when left out.
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// The decision an example expects: the three outcomes of [`Decision`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expectation {
    /// [`Decision::Allow`].
    Allow,
    /// [`Decision::NeedsConfirmation`].
    Confirm,
    /// [`Decision::Deny`].
    Deny,
}

impl Expectation {
    /// The expectation `decision` meets.
    pub fn of(decision: &Decision) -> Expectation {
        match decision {
            Decision::Allow => Expectation::Allow,
            Decision::NeedsConfirmation(_) => Expectation::Confirm,
            Decision::Deny(_) => Expectation::Deny,
        }
    }

    /// `allow`, `confirm` or `deny`, as in the policy file.
    pub fn as_str(self) -> &'static str {
        match self {
            Expectation::Allow => "allow",
            Expectation::Confirm => "confirm",
            Expectation::Deny => "deny",
        }
    }
}

/// Examples of a policy that do not hold: the policy is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExamplesError {
    /// One sentence per failing example: its index, its call, what it expects, what the
    /// policy decides and the rules (reason codes) that decided it.
    pub failures: Vec<String>,
}

impl fmt::Display for ExamplesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the policy's examples do not hold: ")?;
        f.write_str(&self.failures.join("; "))
    }
}

impl std::error::Error for ExamplesError {}

impl Policy {
    /// Evaluates every example of this policy against `tools` (loaded metadata, a generated
    /// module, meta-tools: each example names a command by its own flattened name), with
    /// relative paths resolved against `working_dir` as a run there would. An example whose
    /// call does not dispatch (an unknown command, a bad argument) fails too: an example that
    /// tests nothing is a mistake in the policy.
    ///
    /// # Errors
    ///
    /// [`ExamplesError`] naming each failing example: its index in `examples`, the call, what
    /// it expects, what the policy decides and the code of every rule that fired.
    pub fn check_examples<D: Dispatch + ?Sized>(
        &self,
        tools: &D,
        working_dir: &Path,
    ) -> Result<(), ExamplesError> {
        let mut failures = Vec::new();
        for (i, example) in self.examples.iter().enumerate() {
            let call = ToolCall::new(
                None,
                example.call.name.as_str(),
                example.call.arguments.clone(),
            );
            let shown = format!(
                "examples[{i}] (`{}` {})",
                example.call.name,
                Value::Object(example.call.arguments.clone())
            );
            let invocation = match tools.command_invocation(&call) {
                Ok(invocation) => invocation,
                Err(e) => {
                    failures.push(format!("{shown}: the call does not dispatch: {e}"));
                    continue;
                }
            };
            let decision = self.evaluate_in(&invocation, working_dir);
            let decided = Expectation::of(&decision);
            if decided != example.expect {
                let rules: Vec<&str> = decision.reasons().iter().map(|r| r.code.as_str()).collect();
                let by = if rules.is_empty() {
                    "no rule fired".to_owned()
                } else {
                    format!("decided by {}", rules.join(", "))
                };
                failures.push(format!(
                    "{shown} expects {}, the policy decides {} ({by})",
                    example.expect.as_str(),
                    decided.as_str()
                ));
            }
        }
        if failures.is_empty() {
            Ok(())
        } else {
            Err(ExamplesError { failures })
        }
    }
}
