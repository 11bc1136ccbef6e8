//! Between the policy and the process: the program checked against its checksum, the sandbox
//! planned from the call's effects and the policy's confinement, and the environment built —
//! what a run ([`Runner::run`](super::Runner::run)) and a started program
//! ([`Runner::start`](super::Runner::start)) both go through.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::sandbox::{self, Prepared, SandboxError};
use super::verify::{self, ChecksumError};
use super::{environment, tight, RunError, Runner};
use crate::filter::{KnownSecrets, ResultFilter};
use crate::policy::Confinement;
use crate::Invocation;

/// A child ready to be started: what runs, its sandbox, its environment and the filter for
/// what it prints.
pub(super) struct Confined {
    /// The program, open and checked against the metadata's checksum, when it declares one.
    pub verified: Option<std::fs::File>,
    /// The sandbox, its report and scratch directory (removed when this is dropped).
    pub prepared: Prepared,
    /// The child's whole environment when built (`None`: the runner's, with its settings).
    pub vars: Option<Vec<(OsString, OsString)>>,
    /// The values of the secret variables the child gets, redacted by value from its output.
    pub known: KnownSecrets,
    /// The runner's filter with those values.
    pub filter: ResultFilter,
}

impl Runner {
    /// Checks the program, plans and prepares the sandbox (the tightest one when `tight`) and
    /// builds the environment of `invocation`, run in `working_dir` under `confinement`.
    ///
    /// # Errors
    ///
    /// [`RunError::Checksum`] when the program cannot be found or does not match;
    /// [`RunError::Sandbox`] when the sandbox cannot be set up, or the policy requires it and a
    /// layer is not enforced here.
    pub(super) fn confine(
        &self,
        invocation: &Invocation,
        program: Option<&Path>,
        working_dir: &Path,
        confinement: Confinement,
        tight: bool,
    ) -> Result<Confined, RunError> {
        let verified = match &invocation.checksum {
            Some(expected) => {
                let Some(path) = program else {
                    return Err(RunError::Checksum(Box::new(ChecksumError {
                        program: PathBuf::from(invocation.argv[0].clone()),
                        expected: expected.to_string(),
                        found: "cannot be found to be checked".to_owned(),
                    })));
                };
                Some(
                    verify::open_verified(path, expected)
                        .map_err(|e| RunError::Checksum(Box::new(e)))?,
                )
            }
            None => None,
        };
        let places = environment::places(&self.settings.env);
        let mut plan = sandbox::Plan::new(
            &self.sandbox,
            &invocation.effects,
            confinement.limits,
            working_dir,
            &confinement.path_roots,
            places,
            program,
        );
        plan.egress = confinement.egress;
        plan.unix_sockets =
            environment::unix_sockets(&self.settings.env, &confinement.unix_sockets);
        if tight {
            tight::tighten(&mut plan);
        }
        let mut prepared =
            sandbox::prepare(&self.sandbox, &plan, program).map_err(RunError::Sandbox)?;
        if confinement.required && !prepared.report.not_enforced.is_empty() {
            return Err(RunError::Sandbox(SandboxError {
                message: format!(
                    "the policy requires the sandbox, but this system cannot enforce: {} \
                     (`atip doctor` shows each layer of the sandbox here and how to fix what is \
                     missing; in code, `atip_runtime::sandbox::doctor::checks()`)",
                    prepared.report.not_enforced.join("; ")
                ),
            }));
        }
        let mut child_env =
            environment::build(&self.settings.env_base, &self.settings.env, &invocation.env);
        if self.sandbox.is_enabled() {
            let vars = child_env
                .vars
                .get_or_insert_with(|| std::env::vars_os().collect());
            environment::add_git_settings(vars);
        }
        prepared.report.env_removed = child_env.removed;
        // The values of the secret variables the command gets are redacted by value from its
        // output, streamed or not.
        let known = match &child_env.vars {
            Some(vars) => KnownSecrets::from_env(vars.iter().map(|(k, v)| (&**k, &**v))),
            None => {
                let vars: Vec<_> = std::env::vars_os().collect();
                KnownSecrets::from_env(vars.iter().map(|(k, v)| (&**k, &**v)))
            }
        };
        let filter = self.filter.with_known_secrets(&known);
        tracing::debug!(
            enforced = prepared.report.enforced.len(),
            not_enforced = ?prepared.report.not_enforced,
            "sandbox"
        );
        Ok(Confined {
            verified,
            prepared,
            vars: child_env.vars,
            known,
            filter,
        })
    }
}
