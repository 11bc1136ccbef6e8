//! The policy gate: decides from a command's merged effects, trust, name and argument values
//! whether it may run, needs a person's confirmation, or is refused (spec §3.6, §3.1.1, §3.2.2,
//! §11.1, §11.2).
//!
//! Each effect rule has a [`EffectRule`] for commands that declare the effect:
//!
//! | rule (JSON) | default | fires on |
//! |---|---|---|
//! | `destructive` | `confirm` | `destructive: true` — and `destructive` left undeclared (spec §11.1: unknown is not safe) |
//! | `nonReversible` | `allow` | `reversible: false` |
//! | `billable` | `allow` | `cost.billable: true` |
//! | `network` | `allow` | `network: true` |
//! | `filesystemWrite` | `allow` | `filesystem.write: true` |
//! | `filesystemDelete` | `allow` | `filesystem.delete: true` |
//! | `interactive` | `deny` | `interactive` stdin `required`/`password`, `prompts` or `tty` |
//! | `baseline` | `allow` | every command (the `inferred` preset confirms everything) |
//!
//! Further rules: `maxCostEstimate` (default `high`: all), `minTrustLevel` (default `inferred`:
//! all) with `maxClaimedTrust` (default `community`: what metadata may claim for itself without
//! the caller assigning trust), `allowCommands` / `denyCommands` (globs over the flattened name
//! `gh_repo_delete` or the command path `gh repo delete` / `repo delete`), `arguments`
//! ([`ArgumentRule`]s per parameter), `pathRoots` (where `file` and `directory` values may point,
//! default the working directory), `requireKnownEffects`, `requireSandbox`, `limits`
//! ([`ResourceLimits`] for the sandbox) and `egress` / `egressRules` (the hosts a command that
//! may use the network may reach, [`Egress`]; enforced by the sandbox's egress proxy).
//!
//! Unknown is never safe, and never a hard refusal: a restricted effect the metadata leaves
//! undeclared needs confirmation when `requireKnownEffects` is set (and `destructive` always
//! does), so a person can still decide. Commands missing from partial metadata (`partial:
//! true`) follow `omitted.safetyAssumption`: `unknown` and `known-unsafe` need confirmation;
//! `known-safe` and `same-as-included` are judged like listed commands.
//!
//! Every reason is listed, with a code, a message and a severity, never only the first.

mod arguments;
mod egress;
mod examples;
mod gate;
mod presets;
mod sources;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::effects::CostEstimate;
use crate::model::SafetyAssumption;
use crate::{Effects, Invocation, ToolSpec, TrustSource};

pub use arguments::{resolve_path, ArgumentRule, ValuePattern};
use atip_sandbox::hosts::{Egress, HostPattern};
use atip_sandbox::limits::ResourceLimits;
pub use egress::EgressRule;
pub use examples::{ExampleCall, ExamplesError, Expectation, PolicyExample};
pub use gate::{Confinement, Gate};
#[cfg(feature = "exec")]
pub(crate) use sources::brought_by;

/// What a rule does with a command that triggers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EffectRule {
    /// Run it.
    Allow,
    /// Run it only after a person confirms.
    Confirm,
    /// Refuse it.
    Deny,
}

/// What the gate checks. Deserialises from camelCase JSON (`{"destructive": "deny",
/// "network": "confirm", "denyCommands": ["gh repo delete"]}`); absent fields take their
/// defaults and unknown ones are rejected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Policy {
    /// Commands declared `destructive: true`, or that leave `destructive` undeclared. Default
    /// [`EffectRule::Confirm`]; an undeclared `destructive` is never more than a confirmation.
    pub destructive: EffectRule,
    /// Commands declared `reversible: false`. Default [`EffectRule::Allow`].
    pub non_reversible: EffectRule,
    /// Commands declared `cost.billable: true`. Default [`EffectRule::Allow`].
    pub billable: EffectRule,
    /// Commands declared `network: true`. Default [`EffectRule::Allow`].
    pub network: EffectRule,
    /// Commands declared `filesystem.write: true`. Default [`EffectRule::Allow`].
    pub filesystem_write: EffectRule,
    /// Commands declared `filesystem.delete: true`. Default [`EffectRule::Allow`].
    pub filesystem_delete: EffectRule,
    /// Commands that need a terminal or input (`interactive` stdin `required`/`password`,
    /// `prompts`, `tty`). Default [`EffectRule::Deny`]: nobody can answer their prompts.
    pub interactive: EffectRule,
    /// What every command needs at least. Default [`EffectRule::Allow`].
    pub baseline: EffectRule,
    /// The highest `cost.estimate` allowed; higher is refused. Default `high` (all).
    pub max_cost_estimate: CostEstimate,
    /// The lowest trust allowed; lower (or none) is refused. Default `inferred` (all).
    pub min_trust_level: TrustSource,
    /// The most trust metadata may claim for itself (`trust.source`) when the caller has not
    /// assigned it: a claim above this counts as this. Default `community`: `native`, `vendor`
    /// and `org` must be assigned by the caller (by program path or metadata location).
    pub max_claimed_trust: TrustSource,
    /// Globs (`*`, `?`, `[…]`) over flattened names (`gh_repo_*`) or command paths with or
    /// without the tool (`gh repo delete`, `repo *`); when not empty, only matching commands run.
    pub allow_commands: Vec<String>,
    /// Globs like [`Policy::allow_commands`]; matching commands are refused whatever their
    /// effects say.
    pub deny_commands: Vec<String>,
    /// Rules for parameter values (spec §11.2): deny a parameter, allow some values, require a
    /// pattern, confine paths.
    pub arguments: Vec<ArgumentRule>,
    /// Where values of `file` and `directory` parameters may point (after `..` and symlinks are
    /// resolved): relative roots are relative to the working directory. Default `["."]`, the
    /// working directory; `["/"]` allows any path. A value that cannot be resolved (more than
    /// 40 links on its walk, see [`resolve_path`]) is under no other root. An
    /// [`ArgumentRule`] with `roots` overrides this for its parameter.
    pub path_roots: Vec<String>,
    /// Treat a restricted effect the metadata leaves undeclared as needing confirmation.
    /// Default `false`.
    pub require_known_effects: bool,
    /// Refuse to run when the sandbox cannot enforce every limit the effects call for (no
    /// Landlock, no network namespace, another OS) instead of running with less. Default
    /// `false`: the run goes ahead and its `Output` says what was not enforced.
    pub require_sandbox: bool,
    /// Resource limits for every run. Default: [`ResourceLimits::default`] (memory, processes,
    /// file size and scratch space bounded, CPU time not).
    pub limits: ResourceLimits,
    /// Pathname Unix sockets every sandboxed run may connect to (`~/` is the home directory,
    /// `$XDG_RUNTIME_DIR/` the runtime directory): a run reaches no other, unless its program
    /// owns one (`atip_sandbox::protect::stores::DAEMON_SOCKETS`). Default: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unix_sockets: Vec<String>,
    /// Hosts every command that may use the network may reach (see [`Egress`]; enforced by
    /// the sandbox's egress proxy). Default: none, the network is left as it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub egress: Option<Egress>,
    /// Hosts the commands matching each rule may reach besides [`Policy::egress`]. Default:
    /// none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub egress_rules: Vec<EgressRule>,
    /// Calls with the decision this policy must reach for each, checked against the tools it
    /// judges when it is loaded ([`Policy::check_examples`]). Default: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<PolicyExample>,
    /// Tight first: a call that would ask a person only because of what its effects leave
    /// unsaid or what the policy asks of every call — undeclared effects, effects an importer
    /// inferred (`inferred` trust), a command not in the loaded metadata, the baseline — and
    /// that declares no write, delete or network, runs first without asking in the tightest sandbox: no writes (but its
    /// scratch directory), no network, no Unix sockets, no credential stores. If it succeeds,
    /// that is its result; if it fails, the person is asked, with what was refused, whether
    /// to run it with its declared effects ([`Gate::tight_first`]). Default `true`; `false`
    /// asks first, as before.
    pub tight_first: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            destructive: EffectRule::Confirm,
            non_reversible: EffectRule::Allow,
            billable: EffectRule::Allow,
            network: EffectRule::Allow,
            filesystem_write: EffectRule::Allow,
            filesystem_delete: EffectRule::Allow,
            interactive: EffectRule::Deny,
            baseline: EffectRule::Allow,
            max_cost_estimate: CostEstimate::High,
            min_trust_level: TrustSource::Inferred,
            max_claimed_trust: TrustSource::Community,
            allow_commands: Vec::new(),
            deny_commands: Vec::new(),
            arguments: Vec::new(),
            path_roots: vec![".".to_owned()],
            require_known_effects: false,
            require_sandbox: false,
            limits: ResourceLimits::default(),
            unix_sockets: Vec::new(),
            egress: None,
            egress_rules: Vec::new(),
            examples: Vec::new(),
            tight_first: true,
        }
    }
}

/// Machine-readable reason codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReasonCode {
    /// `effects.destructive` (declared, or undeclared).
    Destructive,
    /// `effects.reversible: false`.
    NonReversible,
    /// `effects.cost.billable`.
    Billable,
    /// `effects.network`.
    Network,
    /// `effects.filesystem.write`.
    FilesystemWrite,
    /// `effects.filesystem.delete`.
    FilesystemDelete,
    /// `effects.cost.estimate` above the maximum.
    CostExceeded,
    /// Trust below the minimum, or undeclared.
    LowTrust,
    /// The command needs a terminal or input.
    Interactive,
    /// The policy's baseline applies to every command.
    Baseline,
    /// The name matches `deny_commands`.
    DenyListed,
    /// `allow_commands` is set and the name matches none of it.
    NotAllowListed,
    /// The command is not in the loaded (partial) metadata.
    NotInMetadata,
    /// An argument rule denies the parameter.
    ArgumentDenied,
    /// A value is not among a rule's allowed values, or does not match its pattern.
    ArgumentNotAllowed,
    /// A path value points outside the allowed roots.
    PathOutsideRoots,
    /// The call ran first in the tightest sandbox ([`Policy::tight_first`]) and failed there:
    /// running it with its declared effects needs a person's yes.
    TightFirst,
}

impl ReasonCode {
    /// Stable kebab-case spelling, e.g. `filesystem-delete`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasonCode::Destructive => "destructive",
            ReasonCode::NonReversible => "non-reversible",
            ReasonCode::Billable => "billable",
            ReasonCode::Network => "network",
            ReasonCode::FilesystemWrite => "filesystem-write",
            ReasonCode::FilesystemDelete => "filesystem-delete",
            ReasonCode::CostExceeded => "cost-exceeded",
            ReasonCode::LowTrust => "low-trust",
            ReasonCode::Interactive => "interactive",
            ReasonCode::Baseline => "baseline",
            ReasonCode::DenyListed => "deny-listed",
            ReasonCode::NotAllowListed => "not-allow-listed",
            ReasonCode::NotInMetadata => "not-in-metadata",
            ReasonCode::ArgumentDenied => "argument-denied",
            ReasonCode::ArgumentNotAllowed => "argument-not-allowed",
            ReasonCode::PathOutsideRoots => "path-outside-roots",
            ReasonCode::TightFirst => "tight-first",
        }
    }
}

/// How serious a [`Reason`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReasonSeverity {
    /// A person may allow it.
    Confirm,
    /// The policy refuses it.
    Deny,
}

/// One reason behind a [`Decision`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// What triggered it.
    pub code: ReasonCode,
    /// A sentence for people and models.
    pub message: String,
    /// Confirmation or refusal.
    pub severity: ReasonSeverity,
}

impl Reason {
    /// The reason as an audit line holds it: `{"code": "destructive", "message": "…"}`
    /// (an audit log line's `reasons`: `atip_runtime::exec::audit`).
    pub fn audit_json(&self) -> serde_json::Value {
        serde_json::json!({"code": self.code.as_str(), "message": self.message})
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

/// The gate's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it.
    Allow,
    /// Run it only after a person confirms; every reason is listed.
    NeedsConfirmation(Vec<Reason>),
    /// Do not run it; every reason is listed, refusals first.
    Deny(Vec<Reason>),
}

impl Decision {
    /// All reasons, refusals first.
    pub fn reasons(&self) -> &[Reason] {
        match self {
            Decision::Allow => &[],
            Decision::NeedsConfirmation(r) | Decision::Deny(r) => r,
        }
    }
}

/// A policy that names commands or parameters no loaded command has: a typo that would
/// otherwise silently let everything through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// One sentence per pattern or parameter that matches nothing.
    pub unmatched: Vec<String>,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the policy names what no loaded command has: ")?;
        f.write_str(&self.unmatched.join("; "))
    }
}

impl std::error::Error for PolicyError {}

/// Whether a glob (`*`, `?`, `[…]`) matches `text`; an invalid glob matches only itself
/// literally.
pub fn name_matches(pattern: &str, text: &str) -> bool {
    match glob::Pattern::new(pattern) {
        Ok(p) => p.matches(text),
        Err(_) => pattern == text,
    }
}

/// Whether a command pattern matches a command: its flattened `name` (`gh_repo_delete`), its
/// `title` (`gh repo delete`), or its path below the tool (`repo delete`).
pub fn command_matches(pattern: &str, name: &str, title: &str) -> bool {
    name_matches(pattern, name)
        || (!title.is_empty() && name_matches(pattern, title))
        || title
            .split_once(' ')
            .is_some_and(|(_, path)| name_matches(pattern, path))
}

/// Whether a rule limited to the command patterns `commands` (empty: every command) applies to
/// the command `name` / `title` ([`command_matches`]).
pub(crate) fn rule_applies(commands: &[String], name: &str, title: &str) -> bool {
    commands.is_empty() || commands.iter().any(|p| command_matches(p, name, title))
}

impl Policy {
    /// A policy from its JSON form (see [`Policy`]).
    ///
    /// # Errors
    ///
    /// serde_json's error for invalid JSON, a wrong type, an unknown field or an invalid
    /// argument pattern.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Checks that every command pattern and every argument rule of this policy matches at
    /// least one of `tools`, and that each rule's parameter exists on a command it applies to.
    ///
    /// # Errors
    ///
    /// [`PolicyError`] naming every pattern and parameter that matches nothing.
    pub fn check_against<'a>(
        &self,
        tools: impl IntoIterator<Item = &'a ToolSpec>,
    ) -> Result<(), PolicyError> {
        let tools: Vec<&ToolSpec> = tools.into_iter().collect();
        let matches_any = |p: &str| tools.iter().any(|t| command_matches(p, &t.name, &t.title));
        let mut unmatched = Vec::new();
        for (list, field) in [
            (&self.allow_commands, "allowCommands"),
            (&self.deny_commands, "denyCommands"),
        ] {
            for p in list {
                if !matches_any(p) {
                    unmatched.push(format!("{field} pattern `{p}` matches no command"));
                }
            }
        }
        for (i, rule) in self.egress_rules.iter().enumerate() {
            for p in &rule.commands {
                if !matches_any(p) {
                    unmatched.push(format!(
                        "egressRules[{i}] command pattern `{p}` matches no command"
                    ));
                }
            }
        }
        for (i, rule) in self.arguments.iter().enumerate() {
            for p in &rule.commands {
                if !matches_any(p) {
                    unmatched.push(format!(
                        "arguments[{i}] command pattern `{p}` matches no command"
                    ));
                }
            }
            let has_param = tools
                .iter()
                .any(|t| rule.applies_to(&t.name, &t.title) && t.param(&rule.parameter).is_some());
            if !has_param {
                unmatched.push(format!(
                    "arguments[{i}] parameter `{}` is not a parameter of any command it applies to",
                    rule.parameter
                ));
            }
        }
        if unmatched.is_empty() {
            Ok(())
        } else {
            Err(PolicyError { unmatched })
        }
    }

    /// Judges a command about to run, with paths relative to this process's working
    /// directory. See [`Policy::evaluate_in`].
    pub fn evaluate(&self, invocation: &Invocation) -> Decision {
        let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        self.evaluate_in(invocation, &here)
    }

    /// Judges a command about to run in `working_dir` (where its relative paths point): every
    /// effect, trust, command-list and argument rule that fires.
    pub fn evaluate_in(&self, invocation: &Invocation, working_dir: &Path) -> Decision {
        let title = invocation_title(invocation);
        let mut reasons = self.effect_reasons(&invocation.effects);
        if let Some(from) = &invocation.effects_from {
            sources::name_parameters(&mut reasons, from);
        }
        self.trust_reasons(self.effective_trust(invocation), &mut reasons);
        if let Some(assumption) = invocation.unlisted {
            let message = match assumption {
                SafetyAssumption::Unknown => Some(
                    "not in the loaded (partial) metadata; its safety is unknown".to_owned(),
                ),
                SafetyAssumption::KnownUnsafe => Some(
                    "not in the loaded (partial) metadata, whose omitted commands include destructive ones"
                        .to_owned(),
                ),
                SafetyAssumption::KnownSafe | SafetyAssumption::SameAsIncluded => None,
            };
            if let Some(message) = message {
                reasons.push(Reason {
                    code: ReasonCode::NotInMetadata,
                    message,
                    severity: ReasonSeverity::Confirm,
                });
            }
        }
        self.name_reasons(&invocation.name, &title, &mut reasons);
        arguments::argument_reasons(self, invocation, &title, working_dir, &mut reasons);
        decide(reasons)
    }

    /// The roots the argument rules hold `invocation`'s path arguments to (a rule's `roots`
    /// for its parameter, else [`Policy::path_roots`] for `file`/`directory` parameters),
    /// resolved against `working_dir`; empty when the call gives no such argument. The runner
    /// confines the run's writes to them with the sandbox as well, so that a path swapped
    /// for a symbolic link after the check cannot lead a write outside.
    pub fn path_roots_for(&self, invocation: &Invocation, working_dir: &Path) -> Vec<PathBuf> {
        arguments::path_roots_for(self, invocation, &invocation_title(invocation), working_dir)
    }

    /// The egress rules for `invocation`: the top-level [`Policy::egress`] and every
    /// [`EgressRule`] that applies to it, joined; `None` when neither exists (the network is
    /// left as it is). Whatever the call declares: a call declared offline (`network: false`)
    /// gets no network at all from the sandbox, but a runner that lets it use the network
    /// anyway (`Sandbox::allow_network`) still holds it to these hosts.
    pub fn egress_for(&self, invocation: &Invocation) -> Option<Egress> {
        let title = invocation_title(invocation);
        let rules: Vec<&EgressRule> = self
            .egress_rules
            .iter()
            .filter(|r| r.applies_to(&invocation.name, &title))
            .collect();
        if self.egress.is_none() && rules.is_empty() {
            return None;
        }
        let mut out = Egress::default();
        if let Some(top) = &self.egress {
            out.allow.extend(top.allow.iter().cloned());
            out.deny.extend(top.deny.iter().cloned());
        }
        for r in rules {
            out.allow.extend(r.allow.iter().cloned());
            out.deny.extend(r.deny.iter().cloned());
        }
        Some(out)
    }

    /// Judges a command by its flattened name and merged effects alone (no trust, no
    /// arguments).
    pub fn evaluate_effects(&self, name: &str, effects: &Effects) -> Decision {
        let mut reasons = self.effect_reasons(effects);
        self.name_reasons(name, "", &mut reasons);
        decide(reasons)
    }

    /// The trust the policy judges `invocation` by: the caller's assignment as is, or the
    /// metadata's own claim capped at [`Policy::max_claimed_trust`].
    pub fn effective_trust(&self, invocation: &Invocation) -> Option<TrustSource> {
        match invocation.trust {
            Some(t) if !invocation.trust_assigned && t.rank() > self.max_claimed_trust.rank() => {
                Some(self.max_claimed_trust)
            }
            other => other,
        }
    }

    fn trust_reasons(&self, trust: Option<TrustSource>, reasons: &mut Vec<Reason>) {
        let min = self.min_trust_level;
        match trust {
            Some(t) if t.rank() < min.rank() => reasons.push(Reason {
                code: ReasonCode::LowTrust,
                message: format!(
                    "metadata trust `{}` is below the required `{}` (a trust the metadata \
                     claims for itself counts as at most `{}`)",
                    t.as_str(),
                    min.as_str(),
                    self.max_claimed_trust.as_str()
                ),
                severity: ReasonSeverity::Deny,
            }),
            None if min != TrustSource::Inferred => reasons.push(Reason {
                code: ReasonCode::LowTrust,
                message: format!(
                    "metadata declares no trust source; `{}` or better is required",
                    min.as_str()
                ),
                severity: ReasonSeverity::Deny,
            }),
            _ => {}
        }
    }

    fn name_reasons(&self, name: &str, title: &str, reasons: &mut Vec<Reason>) {
        if let Some(p) = self
            .deny_commands
            .iter()
            .find(|p| command_matches(p, name, title))
        {
            reasons.push(Reason {
                code: ReasonCode::DenyListed,
                message: format!("`{name}` matches the denied pattern `{p}`"),
                severity: ReasonSeverity::Deny,
            });
        }
        if !self.allow_commands.is_empty()
            && !self
                .allow_commands
                .iter()
                .any(|p| command_matches(p, name, title))
        {
            reasons.push(Reason {
                code: ReasonCode::NotAllowListed,
                message: format!("`{name}` matches none of the allowed commands"),
                severity: ReasonSeverity::Deny,
            });
        }
    }

    fn effect_reasons(&self, e: &Effects) -> Vec<Reason> {
        let mut reasons = Vec::new();
        let strict = self.require_known_effects;
        // One rule: the declared value, the value that triggers it, its verdict, whether an
        // undeclared value needs confirmation regardless of `require_known_effects`.
        let mut rule = |value: Option<bool>,
                        trigger: bool,
                        verdict: EffectRule,
                        unknown_confirms: bool,
                        code: ReasonCode,
                        declared: &str,
                        field: &str| {
            let severity = match verdict {
                EffectRule::Allow => return,
                EffectRule::Confirm => ReasonSeverity::Confirm,
                EffectRule::Deny => ReasonSeverity::Deny,
            };
            match value {
                Some(v) if v == trigger => reasons.push(Reason {
                    code,
                    message: declared.to_owned(),
                    severity,
                }),
                None if strict || unknown_confirms => reasons.push(Reason {
                    code,
                    message: if unknown_confirms {
                        format!("`{field}` is not declared, and unknown is not safe (spec §11.1)")
                    } else {
                        format!("`{field}` is not declared, and the policy requires known effects")
                    },
                    // Unknown is a question for a person, never a hard refusal.
                    severity: ReasonSeverity::Confirm,
                }),
                _ => {}
            }
        };
        rule(
            e.destructive,
            true,
            self.destructive,
            true,
            ReasonCode::Destructive,
            "declared to permanently destroy data",
            "destructive",
        );
        rule(
            e.reversible,
            false,
            self.non_reversible,
            false,
            ReasonCode::NonReversible,
            "declared not reversible",
            "reversible",
        );
        rule(
            e.billable(),
            true,
            self.billable,
            false,
            ReasonCode::Billable,
            "declared billable: it may cost money",
            "cost.billable",
        );
        rule(
            e.filesystem_delete(),
            true,
            self.filesystem_delete,
            false,
            ReasonCode::FilesystemDelete,
            "declared to delete files",
            "filesystem.delete",
        );
        rule(
            e.network,
            true,
            self.network,
            false,
            ReasonCode::Network,
            "uses the network",
            "network",
        );
        rule(
            e.filesystem_write(),
            true,
            self.filesystem_write,
            false,
            ReasonCode::FilesystemWrite,
            "writes files",
            "filesystem.write",
        );
        let needs = e.interactive_requirements();
        let declared_quiet = e
            .interactive
            .as_ref()
            .is_some_and(|i| i.stdin.is_some() && i.prompts.is_some() && i.tty.is_some());
        rule(
            if !needs.is_empty() {
                Some(true)
            } else if declared_quiet || !strict {
                Some(false)
            } else {
                None
            },
            true,
            self.interactive,
            false,
            ReasonCode::Interactive,
            &format!("needs {} and cannot run unattended", needs.join(", ")),
            "interactive",
        );
        if self.max_cost_estimate < CostEstimate::High {
            match e.cost_estimate() {
                Some(c) if c > self.max_cost_estimate => reasons.push(Reason {
                    code: ReasonCode::CostExceeded,
                    message: format!(
                        "cost estimate `{}` exceeds the allowed `{}`",
                        c.as_str(),
                        self.max_cost_estimate.as_str()
                    ),
                    severity: ReasonSeverity::Deny,
                }),
                None if strict => reasons.push(Reason {
                    code: ReasonCode::CostExceeded,
                    message:
                        "`cost.estimate` is not declared, and the policy requires known effects"
                            .to_owned(),
                    severity: ReasonSeverity::Confirm,
                }),
                _ => {}
            }
        }
        match self.baseline {
            EffectRule::Allow => {}
            v => reasons.push(Reason {
                code: ReasonCode::Baseline,
                message: "the policy asks this of every command".to_owned(),
                severity: if v == EffectRule::Deny {
                    ReasonSeverity::Deny
                } else {
                    ReasonSeverity::Confirm
                },
            }),
        }
        reasons
    }
}

/// The command path of an invocation (`gh repo delete`) for pattern matching; empty for an
/// invocation built by hand from a bare argv.
fn invocation_title(invocation: &Invocation) -> String {
    invocation.title.as_deref().unwrap_or_default().to_owned()
}

fn decide(mut reasons: Vec<Reason>) -> Decision {
    if reasons.is_empty() {
        return Decision::Allow;
    }
    // Refusals first, each group in rule order.
    reasons.sort_by_key(|r| std::cmp::Reverse(r.severity));
    if reasons[0].severity == ReasonSeverity::Deny {
        Decision::Deny(reasons)
    } else {
        Decision::NeedsConfirmation(reasons)
    }
}

#[cfg(test)]
mod tests;
