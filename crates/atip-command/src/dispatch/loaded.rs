//! [`LoadedCommands`]: metadata loaded at run time, dispatched with the same checks and the same
//! argv writer as generated code.

use std::ffi::OsString;

use foldhash::HashMap;
use serde_json::{Map, Value};

use crate::argv::{ArgumentValue, ArgvBuilder, ArgvError};
use crate::fields::{Field, JsonArgument};
use crate::invocation::Invocation;
use atip_core::effects::Effects;
use atip_core::flatten::FlatCommand;
use atip_core::load::Document;
use atip_core::model::TrustSource;
use atip_core::shared::Shared;
use atip_core::tool::{ParamSpec, ToolSpec};

use super::call::{DispatchError, ToolCall};
use super::check::Arguments;

/// Metadata loaded at run time, ready for dispatch: the counterpart of a generated module.
///
/// The [`ToolSpec`]s (one per command) are built once, on first use of
/// [`LoadedCommands::specs`], [`LoadedCommands::command`] or [`LoadedCommands::invocation`], and kept:
/// dispatch never rebuilds a spec. [`LoadedCommands::definitions_json`] does not need them all,
/// so compiling a large document's definitions costs only what it writes. What every
/// [`Invocation`] carries (name, title, effects, parameter names, checksum, metadata path) is
/// [`Shared`] with these, not copied per call.
#[derive(Debug, Clone)]
pub struct LoadedCommands {
    document: Document,
    program: String,
    prepared: std::sync::OnceLock<Prepared>,
    index: HashMap<String, usize>,
    assigned_trust: Option<TrustSource>,
    metadata: Option<Shared<str>>,
    checksum: Option<Shared<str>>,
    globals: atip_core::GlobalOptions,
    /// The tool's name when the document describes an MCP server's tools.
    server: Option<Shared<str>>,
}

/// Above this many commands, [`LoadedCommands::definitions_json`] writes the two halves of the
/// document on two threads (when the machine has two cores): below it a thread costs more
/// than it saves.
const PARALLEL_DEFINITIONS: usize = 4096;

/// [`LoadedCommands::estimated_len`]'s allowance per command and per parameter for what a
/// definition writes around their texts (JSON members, the schema, flags and notes in
/// descriptions), in bytes: about what the Anthropic definitions of real aws commands take.
const COMMAND_ALLOWANCE: usize = 160;
const PARAM_ALLOWANCE: usize = 96;

/// What dispatch needs of every command, built once: its spec, and what each of its
/// invocations shares.
#[derive(Debug, Clone)]
struct Prepared {
    specs: Vec<ToolSpec>,
    shared: Vec<SharedParts>,
}

/// The parts of a command every invocation of it carries: name, title, effects.
#[derive(Debug, Clone)]
struct SharedParts {
    name: Shared<str>,
    title: Shared<str>,
    effects: Shared<Effects>,
    env: Shared<[Shared<str>]>,
}

impl LoadedCommands {
    /// Prepares `document`; `program` overrides the executable (default: the tool's `name`).
    pub fn new(document: Document, program: Option<String>) -> Self {
        let index = document
            .commands
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.clone(), i))
            .collect();
        let checksum = document
            .tool
            .trust
            .as_ref()
            .and_then(|t| t.binary_checksum())
            .map(|c| Shared::Counted(c.into()));
        let server = document
            .tool
            .is_mcp_server()
            .then(|| Shared::Counted(document.tool.name.as_str().into()));
        LoadedCommands {
            server,
            program: program.unwrap_or_else(|| document.tool.name.clone()),
            document,
            prepared: std::sync::OnceLock::new(),
            index,
            assigned_trust: None,
            metadata: None,
            checksum,
            globals: atip_core::GlobalOptions::All,
        }
    }

    /// Which global options the model sees (default: all); hidden ones are also unknown to
    /// dispatch. See [`atip_core::GlobalOptions`].
    #[must_use]
    pub fn global_options(mut self, globals: atip_core::GlobalOptions) -> Self {
        self.globals = globals;
        self.prepared = std::sync::OnceLock::new();
        self
    }

    /// The spec of `cmd`, with the chosen global options.
    fn spec_of(&self, cmd: &FlatCommand) -> ToolSpec {
        ToolSpec::from_flat(&self.document.tool.name, cmd).with_global_options(&self.globals)
    }

    /// Loads the metadata file `path` ([`Document::from_path`]) and records where it was read
    /// from, made absolute, so that trust rules by metadata location
    /// (`Runner::trust_metadata`) match whatever the current directory. The document's
    /// warnings are in [`LoadedCommands::document`].
    ///
    /// # Errors
    ///
    /// [`atip_core::LoadError`] with every problem of the file.
    pub fn from_path(
        path: &std::path::Path,
        mode: atip_core::Mode,
        flatten_options: &atip_core::FlattenOptions,
    ) -> Result<Self, atip_core::LoadError> {
        let doc = Document::from_path(path, mode, flatten_options)?;
        let location = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        Ok(LoadedCommands::new(doc, None).metadata_path(location.display().to_string()))
    }

    /// Records where the metadata was read from (a file path), so that trust can be assigned
    /// by metadata location (the runtime's trust rules).
    #[must_use]
    pub fn metadata_path(mut self, path: impl Into<String>) -> Self {
        self.metadata = Some(Shared::from(path.into()));
        self
    }

    /// Assigns the trust of this metadata, overriding its own `trust.source` claim (spec
    /// §3.2.2: where metadata comes from is for the caller to say, not for the file).
    #[must_use]
    pub fn assign_trust(mut self, trust: TrustSource) -> Self {
        self.assigned_trust = Some(trust);
        self
    }

    /// `trust.integrity.checksum` (or 0.4's `trust.checksum`): what the binary must hash to.
    pub fn checksum(&self) -> Option<&str> {
        self.checksum.as_deref()
    }

    /// The trust, checksum and metadata location every invocation of this tool carries.
    fn stamp(&self, invocation: &mut Invocation) {
        invocation.trust = self.trust();
        invocation.trust_assigned = self.assigned_trust.is_some();
        invocation.checksum.clone_from(&self.checksum);
        invocation.metadata.clone_from(&self.metadata);
        invocation.server.clone_from(&self.server);
    }

    /// The document.
    pub fn document(&self) -> &Document {
        &self.document
    }

    /// What a model sees of each command — one [`ToolSpec`], one provider tool, per command —
    /// in declaration order (built on first call, then kept).
    pub fn specs(&self) -> &[ToolSpec] {
        &self.prepared().specs
    }

    /// Every command's spec and shared effects (built on first call, then kept).
    fn prepared(&self) -> &Prepared {
        self.prepared.get_or_init(|| {
            let specs: Vec<ToolSpec> = self
                .document
                .commands
                .iter()
                .map(|c| self.spec_of(c))
                .collect();
            let shared = specs
                .iter()
                .zip(&self.document.commands)
                .map(|(s, c)| SharedParts {
                    name: Shared::Counted(s.name.as_ref().into()),
                    title: Shared::Counted(s.title.as_ref().into()),
                    effects: Shared::new(s.effects.clone()),
                    env: match self.document.declared_env(c).as_slice() {
                        [] => Shared::Static(&[]),
                        names => Shared::Counted(
                            names.iter().map(|n| Shared::Counted((*n).into())).collect(),
                        ),
                    },
                })
                .collect();
            Prepared { specs, shared }
        })
    }

    /// The names of the commands, in declaration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.document.commands.iter().map(|c| c.name.as_str())
    }

    /// `(name, effects)` of every command, e.g. for the safety prompt
    /// (the runtime's `wire::prompt::safety_prompt`).
    pub fn effects(&self) -> impl Iterator<Item = (&str, &Effects)> {
        self.document
            .commands
            .iter()
            .map(|c| (c.name.as_str(), &c.effects))
    }

    /// The command called `name`.
    pub fn command(&self, name: &str) -> Option<(&FlatCommand, &ToolSpec)> {
        self.index
            .get(name)
            .map(|&i| (&self.document.commands[i], &self.specs()[i]))
    }

    /// Whether a command is called `name`.
    pub fn has_command(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Every command as `provider` tool definitions: a compact JSON array, the same text as
    /// [`atip_core::providers::tool_definitions_json`] over [`LoadedCommands::specs`], written one
    /// command at a time without building every spec first (on two threads for more than
    /// 4,096 commands, when the machine has two cores).
    pub fn definitions_json(&self, provider: atip_core::providers::Provider) -> String {
        self.write_definitions(provider, false).0
    }

    /// [`LoadedCommands::definitions_json`] and, found in the same pass, the notes of every
    /// definition that had to give to fit `provider`'s documented limits (what
    /// [`atip_core::providers::limits::notes`] says per command, without its note on the
    /// number of tools, which is about a request and not one tool:
    /// [`atip_core::providers::limits::count_note`]).
    pub fn definitions_json_and_notes(
        &self,
        provider: atip_core::providers::Provider,
    ) -> (String, Vec<String>) {
        self.write_definitions(provider, true)
    }

    /// Writes every command's definition (and, with `notes`, what had to give to fit the
    /// provider's limits), in declaration order.
    ///
    /// A document of more than [`PARALLEL_DEFINITIONS`] commands is written in two halves on
    /// two threads when the machine has two cores or more: each command's definition depends
    /// on that command alone, so the halves joined are the text one thread writes.
    fn write_definitions(
        &self,
        provider: atip_core::providers::Provider,
        notes: bool,
    ) -> (String, Vec<String>) {
        if let Some(prepared) = self.prepared.get() {
            let found = if notes {
                prepared
                    .specs
                    .iter()
                    .flat_map(|s| atip_core::providers::limits::fit(s, provider).notes)
                    .collect()
            } else {
                Vec::new()
            };
            let json = atip_core::providers::tool_definitions_json(&prepared.specs, provider);
            return (json, found);
        }
        let commands = &self.document.commands;
        let two_threads =
            commands.len() > PARALLEL_DEFINITIONS && atip_core::two_threads::available();
        if !two_threads {
            let room = self.estimated_len(commands, provider);
            let (mut out, found) = self.write_range("[", commands, provider, notes, room);
            out.push(']');
            // Cheap when the estimate was close (allocators shrink a large block in place).
            out.shrink_to_fit();
            return (out, found);
        }
        let (first, second) = commands.split_at(commands.len() / 2);
        let ((mut out, mut found), (rest, rest_found)) = atip_core::two_threads::join(
            // Room for both halves: the second is appended to the first.
            || {
                self.write_range(
                    "[",
                    first,
                    provider,
                    notes,
                    self.estimated_len(commands, provider),
                )
            },
            || {
                self.write_range(
                    ",",
                    second,
                    provider,
                    notes,
                    self.estimated_len(second, provider),
                )
            },
        );
        out.reserve_exact(rest.len() + 1);
        out.push_str(&rest);
        out.push(']');
        out.shrink_to_fit();
        found.extend(rest_found);
        (out, found)
    }

    /// About how many bytes the definitions of `commands` take: their names, descriptions,
    /// parameters and values as `provider` sends them (descriptions cut to its limit, a large
    /// enum of a strict format sent as text of at most
    /// [`VALUES_IN_DESCRIPTION`](atip_core::providers::limits::VALUES_IN_DESCRIPTION)
    /// characters, global options the tool hides left out), with an allowance per command and
    /// parameter for the JSON around them. Counted from the commands themselves (a sample of
    /// some commands, extrapolated, can be off by any factor: a few commands with megabytes of
    /// text), so the text is reserved once and rarely grown; escapes and notes it does not
    /// count only make it grow.
    fn estimated_len(
        &self,
        commands: &[FlatCommand],
        provider: atip_core::providers::Provider,
    ) -> usize {
        let description = |d: &str| match provider.description_limit() {
            Some(chars) => d.char_indices().nth(chars).map_or(d.len(), |(end, _)| end),
            None => d.len(),
        };
        let values_as_text = atip_core::providers::limits::VALUES_IN_DESCRIPTION + 64;
        commands
            .iter()
            .map(|c| {
                let params: usize = c
                    .params()
                    .filter(|p| !p.is_global() || self.globals.keeps_global(&p.name))
                    .map(|p| {
                        let values: usize = p
                            .enum_values
                            .iter()
                            .flatten()
                            .chain(&p.listed_values)
                            .map(|v| v.len() + 3)
                            .sum();
                        let values = if provider.is_strict() {
                            values.min(values_as_text)
                        } else {
                            values
                        };
                        PARAM_ALLOWANCE + 2 * p.name.len() + p.description.len() + values
                    })
                    .sum();
                COMMAND_ALLOWANCE + c.name.len() + description(&c.description) + params
            })
            .sum()
    }

    /// The definitions of `commands`, joined by commas, after `lead`, in a text of `room`
    /// bytes reserved at once (grown by a quarter when that is not enough).
    fn write_range(
        &self,
        lead: &str,
        commands: &[FlatCommand],
        provider: atip_core::providers::Provider,
        notes: bool,
        room: usize,
    ) -> (String, Vec<String>) {
        let mut out = String::with_capacity(room.max(lead.len()));
        out.push_str(lead);
        let mut found = Vec::new();
        // One spec, refilled per command: its texts are reused, so writing costs no
        // allocation per name, description and flag (which, in a heap the document's load
        // has fragmented, cost more than the writing).
        let mut spec: Option<ToolSpec> = None;
        for (i, c) in commands.iter().enumerate() {
            if out.capacity() - out.len() < 4096 {
                out.reserve_exact((out.len() / 4).max(1 << 16));
            }
            if i > 0 {
                out.push(',');
            }
            let spec = match &mut spec {
                Some(spec) => {
                    spec.refill_from_flat(&self.document.tool.name, c);
                    spec
                }
                None => spec.insert(ToolSpec::from_flat(&self.document.tool.name, c)),
            };
            spec.retain_global_options(&self.globals);
            atip_core::providers::write_definition(&mut out, spec, provider);
            if notes {
                found.extend(atip_core::providers::limits::fit(spec, provider).notes);
            }
        }
        (out, found)
    }

    /// Checks `call` and builds the command line it asks for, with the same rules as a
    /// generated `Call::from_tool_call` followed by `to_invocation`.
    ///
    /// # Errors
    ///
    /// [`DispatchError`] with every problem found, including values no argv can carry.
    pub fn invocation(&self, call: &ToolCall) -> Result<Invocation, DispatchError> {
        let Some(&i) = self.index.get(&call.name) else {
            let names: Vec<&str> = self.names().collect();
            return Err(DispatchError::unknown_tool(call, &names));
        };
        let spec = &self.specs()[i];
        let args = call.checked_arguments()?;
        // Checked in place: the values stay borrowed from the call (no normalised copy).
        let checked = Arguments::check(spec, args).map_err(|p| DispatchError::new(call, p))?;
        let mut invocation = self
            .checked_invocation(i, &checked)
            .map_err(|e| DispatchError::from_argv(call, &e))?;
        invocation.call_id.clone_from(&call.id);
        Ok(invocation)
    }

    /// [`LoadedCommands::invocation`] of a call given as its tool name and its arguments as JSON
    /// text (OpenAI's `function.arguments`, a streamed call's accumulated text), reading the
    /// arguments straight from the text: no [`ToolCall`], no intermediate map. The result is
    /// the one `invocation` gives for `ToolCall::from_json_text(None, name, arguments)`,
    /// errors included (a call that fails is read again that way, which words every
    /// problem); `call_id` is `None` — set it when the call has an id.
    ///
    /// # Errors
    ///
    /// As [`LoadedCommands::invocation`].
    pub fn invocation_from_json_text(
        &self,
        name: &str,
        arguments: &str,
    ) -> Result<Invocation, DispatchError> {
        if let Some(&i) = self.index.get(name) {
            if let Some(checked) = Arguments::from_json_text(&self.specs()[i], arguments) {
                if let Ok(invocation) = self.checked_invocation(i, &checked) {
                    return Ok(invocation);
                }
            }
        }
        self.invocation(&ToolCall::from_json_text(None, name, arguments))
    }

    /// The invocation of command `i` with its checked arguments: argv, recorded values,
    /// effects, title and trust.
    fn checked_invocation(
        &self,
        i: usize,
        checked: &Arguments<'_>,
    ) -> Result<Invocation, crate::argv::ArgvError> {
        let prepared = self.prepared();
        let spec = &prepared.specs[i];
        let (argv, arguments) = json_argv(
            ArgvBuilder::recorded(self.program.as_str()),
            spec,
            |i, _| JsonArgument(checked.value(i)),
        )?;
        let shared = &prepared.shared[i];
        let mut invocation = Invocation {
            title: Some(shared.title.clone()),
            env: shared.env.clone(),
            arguments,
            ..Invocation::shared(shared.name.clone(), argv, shared.effects.clone())
        };
        invocation.apply_params(&spec.params);
        self.stamp(&mut invocation);
        Ok(invocation)
    }

    /// For partial metadata (`partial: true`, spec §3.1.1): an invocation of a command that is
    /// not in the loaded metadata, from its subcommand `path` and raw `args`, with the tool's
    /// own effects and `unlisted` set from `omitted.safetyAssumption`, so the policy treats it
    /// as the metadata says (by default it needs confirmation).
    ///
    /// # Errors
    ///
    /// When the metadata is not partial, the command is in fact listed, or a value holds NUL.
    pub fn unlisted_invocation(&self, path: &[&str], args: &[&str]) -> Result<Invocation, String> {
        let tool = &self.document.tool;
        if tool.partial != Some(true) {
            return Err(format!(
                "`{}` metadata is complete (not `partial`): only its listed commands can run",
                tool.name
            ));
        }
        if let Some(bad) = path
            .iter()
            .find(|s| s.is_empty() || s.starts_with('-') || s.contains(char::is_whitespace))
        {
            return Err(format!(
                "{bad:?} is not a subcommand name: options and arguments go in `args`"
            ));
        }
        let name = atip_core::names::tool_name(&tool.name, path);
        if self.index.contains_key(&name) {
            return Err(format!("`{name}` is listed; dispatch it with `invocation`"));
        }
        // A listed command without listed subcommands followed by more words is that command
        // with arguments, which only its own parameters (and their effects) may give.
        for k in 1..path.len() {
            let listed = atip_core::names::tool_name(&tool.name, &path[..k]);
            let below = format!("{listed}_");
            if self.index.contains_key(&listed) && !self.index.keys().any(|n| n.starts_with(&below))
            {
                return Err(format!(
                    "`{listed}` is listed and has no subcommands: dispatch it with `invocation`"
                ));
            }
        }
        let mut b = ArgvBuilder::new(self.program.as_str());
        b.subcommand(path);
        for a in args {
            b.raw(a);
        }
        let argv = b.finish().map_err(|e| e.to_string())?;
        let assumption = tool
            .omitted
            .as_ref()
            .and_then(|o| o.safety_assumption)
            .unwrap_or(atip_core::model::SafetyAssumption::Unknown);
        let mut invocation = Invocation::new(name, argv, tool.effects.clone().unwrap_or_default());
        invocation.title = Some(
            std::iter::once(tool.name.as_str())
                .chain(path.iter().copied())
                .collect::<Vec<_>>()
                .join(" ")
                .into(),
        );
        invocation.unlisted = Some(assumption);
        self.stamp(&mut invocation);
        Ok(invocation)
    }

    /// The trust assigned with [`LoadedCommands::assign_trust`], else the metadata's own
    /// `trust.source` claim.
    pub fn trust(&self) -> Option<TrustSource> {
        self.assigned_trust
            .or_else(|| self.document.tool.trust.as_ref().and_then(|t| t.source))
    }
}

/// The argv of the command `spec` describes (program `program`), for arguments normalised by
/// [`check_arguments`](super::check_arguments): the same writer, order and forms as a generated command's
/// [`write_argv`](crate::contract::Command::write_argv).
///
/// # Errors
///
/// [`ArgvError`] for values no command line can carry.
pub fn argv_from_json(
    program: &str,
    spec: &ToolSpec,
    args: &Map<String, Value>,
) -> Result<Vec<OsString>, ArgvError> {
    json_argv(ArgvBuilder::new(program), spec, |_, p| {
        JsonArgument(args.get(p.name.as_ref()))
    })
    .map(|(argv, _)| argv)
}

/// Writes `spec`'s argv from the checked JSON values (`value(i, p)`: that of `p`, the `i`-th
/// parameter)
/// into `b`: the argv and, when `b` records ([`ArgvBuilder::recorded`]), the values each
/// parameter put on it, for argument rules.
fn json_argv<'v>(
    mut b: ArgvBuilder,
    spec: &ToolSpec,
    value: impl Fn(usize, &ParamSpec) -> JsonArgument<'v>,
) -> Result<(Vec<OsString>, Vec<ArgumentValue>), ArgvError> {
    crate::fields::write_params(&mut b, &spec.path, &spec.params, |b, i, p| {
        value(i, p).write(b, p);
    });
    b.finish_recorded()
}
