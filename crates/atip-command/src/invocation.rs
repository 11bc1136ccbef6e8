//! A command ready to run: [`Invocation`], and [`ToInvocation`] for everything that becomes
//! one.

use std::ffi::OsString;

use crate::argv::{ArgumentValue, ArgvError};
use atip_core::effects::Effects;
use atip_core::model::{SafetyAssumption, TrustSource};
use atip_core::shared::Shared;

/// A command ready to be checked against a policy and run: its name, argv, the values of its
/// parameters, effects and trust. Built from a typed [`Command`](crate::contract::Command), a generated `Call`, or
/// metadata loaded at run time.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// Flattened tool name (`gh_pr_create`).
    pub name: Shared<str>,
    /// The id of the model's tool call this answers (`call_…`, `toolu_…`, an MCP request id),
    /// when there is one: it names the call in the runner's audit log. Set
    /// by the turn driver and the MCP server.
    pub call_id: Option<String>,
    /// The command path with the tool's name (`gh pr create`), for policies that name commands
    /// that way; `None` for an invocation built from a bare argv.
    pub title: Option<Shared<str>>,
    /// The argv, program first.
    pub argv: Vec<OsString>,
    /// Every value a parameter put on the argv, by provider parameter name, for argument rules
    /// (spec §11.2). Empty for an invocation built from a bare argv ([`Invocation::new`]).
    pub arguments: Vec<ArgumentValue>,
    /// The call's effects: the command's merged effects, merged with those of every
    /// parameter the call gives that declares effects of its own
    /// ([`Invocation::effects_from`]).
    pub effects: Shared<Effects>,
    /// Where [`Invocation::effects`] came from when a parameter the call gives declares
    /// effects of its own (`x-atip-rust.effects`): the command's effects and each such
    /// parameter's. `None` when the effects are the command's alone.
    pub effects_from: Option<Box<CallEffects>>,
    /// The command's dry-run parameter, when it has one (a boolean parameter named
    /// `dry_run`, `dryrun` or `what_if`): what a model told its call was refused or not
    /// confirmed is offered as a first step ([`Invocation::apply_params`]).
    pub dry_run: Option<Shared<str>>,
    /// `trust.source` as the metadata claims it, or as the caller assigned it (see
    /// [`Invocation::trust_assigned`]).
    pub trust: Option<TrustSource>,
    /// `true` when the caller assigned [`Invocation::trust`]; `false` when it is the
    /// metadata's own claim, which a policy does not take at face value.
    pub trust_assigned: bool,
    /// `sha256:<hex>` the binary must hash to (`trust.integrity.checksum`), if declared.
    pub checksum: Option<Shared<str>>,
    /// The metadata file this command was loaded from at run time, if any: trust can be
    /// assigned by metadata location.
    pub metadata: Option<Shared<str>>,
    /// The environment variables the command declares it reads: its tool's
    /// `authentication.methods[].envVar` and its options' `envVar` (spec §3.8). The runner
    /// passes these on; variables nobody declared or allowed are removed.
    pub env: Shared<[Shared<str>]>,
    /// `Some` when the command is not in the loaded metadata (partial discovery, spec §3.1.1):
    /// what the metadata's `omitted.safetyAssumption` says about such commands (`unknown` when
    /// it says nothing). `None` for listed commands.
    pub unlisted: Option<SafetyAssumption>,
    /// The MCP server whose tool this is (metadata with `x-atip-rust.mcp`, the server's name):
    /// the runner sends the call to the server attached under that name
    /// (`Runner::tool_server`) as a `tools/call` and never starts [`Invocation::argv`], which
    /// then only shows the call. `None` for a command the runner starts.
    pub server: Option<Shared<str>>,
}

impl Invocation {
    /// An invocation of `argv` (program first) with the given name and effects, trust unknown;
    /// for commands that do not come from generated code or loaded metadata.
    pub fn new(name: impl Into<String>, argv: Vec<OsString>, effects: Effects) -> Self {
        Self::shared(name.into().into(), argv, Shared::new(effects))
    }

    /// [`Invocation::new`] with a name and effects that are already shared (a generated
    /// command's constants, a loaded command's counted values): nothing is copied.
    pub fn shared(name: Shared<str>, argv: Vec<OsString>, effects: Shared<Effects>) -> Self {
        Invocation {
            name,
            call_id: None,
            title: None,
            argv,
            arguments: Vec::new(),
            effects,
            effects_from: None,
            dry_run: None,
            trust: None,
            trust_assigned: false,
            checksum: None,
            metadata: None,
            env: Shared::Static(&[]),
            unlisted: None,
            server: None,
        }
    }
}

/// Where a call's effects came from: the command's own and those of the parameters it gives
/// ([`Invocation::effects_from`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CallEffects {
    /// The command's merged effects, before any parameter's.
    pub command: Shared<Effects>,
    /// Each parameter the call gives that declares effects, in parameter order.
    pub params: Vec<ParamEffects>,
}

/// The effects one parameter of a call adds ([`CallEffects::params`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamEffects {
    /// The provider parameter name (`force`).
    pub param: Shared<str>,
    /// How a person knows it: its flag (`--force`), or an argument's declared name.
    pub label: String,
    /// What it declares.
    pub effects: Shared<Effects>,
}

impl Invocation {
    /// What the command's parameters (`params`, its [`ParamSpec`]s) say about this call: the
    /// effects of those it gives ([`Invocation::add_param_effects`]) and the command's dry-run
    /// parameter ([`Invocation::dry_run`]).
    ///
    /// [`ParamSpec`]: atip_core::ParamSpec
    pub fn apply_params(&mut self, params: &[atip_core::ParamSpec]) {
        self.add_param_effects(params);
        self.dry_run = params
            .iter()
            .find(|p| {
                p.kind == atip_core::ValueKind::Boolean
                    && matches!(&*p.name, "dry_run" | "dryrun" | "what_if")
            })
            .map(|p| p.name.clone());
    }

    /// Adds the effects of every parameter in `params` (the command's [`ParamSpec`]s) that
    /// declares effects of its own and that this call gives — a `true` flag, or any value of
    /// another kind, as recorded in [`Invocation::arguments`] — to [`Invocation::effects`], by
    /// risk added and never taken away ([`Effects::raised_by`]), and records where they
    /// came from in [`Invocation::effects_from`]. Costs one pass over `params` when none
    /// declares effects.
    ///
    /// [`ParamSpec`]: atip_core::ParamSpec
    pub fn add_param_effects(&mut self, params: &[atip_core::ParamSpec]) {
        let mut given = params
            .iter()
            .filter(|p| p.effects.is_some())
            .filter(|p| self.arguments.iter().any(|a| a.param == p.name))
            .peekable();
        if given.peek().is_none() {
            return;
        }
        let mut from = match self.effects_from.take() {
            Some(from) => from,
            None => Box::new(CallEffects {
                command: self.effects.clone(),
                params: Vec::new(),
            }),
        };
        let mut merged = (*self.effects).clone();
        for p in given {
            let Some(effects) = &p.effects else { continue };
            if from.params.iter().any(|q| q.param == p.name) {
                continue;
            }
            merged = merged.raised_by(effects);
            from.params.push(ParamEffects {
                param: p.name.clone(),
                label: p.argv.label().to_owned(),
                effects: effects.clone(),
            });
        }
        self.effects = Shared::new(merged);
        self.effects_from = Some(from);
    }
}

/// Anything that can become an [`Invocation`]: every [`Command`](crate::contract::Command) and generated `Call` enums.
pub trait ToInvocation {
    /// Builds the invocation.
    ///
    /// # Errors
    ///
    /// [`ArgvError`] when the argv cannot be built (see [`Command::try_argv`](crate::contract::Command::try_argv)).
    fn to_invocation(&self) -> Result<Invocation, ArgvError>;
}

impl ToInvocation for Invocation {
    fn to_invocation(&self) -> Result<Invocation, ArgvError> {
        Ok(self.clone())
    }
}
