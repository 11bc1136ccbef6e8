//! The contract between generated command structs and the runtime: [`Command`], what every
//! command gets from it for free (argv, serialisation, invocation), and typed dispatch of a
//! model's call into a command ([`typed`], [`typed_from_json_text`]).

use std::ffi::OsString;

use crate::argv::{ArgvBuilder, ArgvError};
use crate::dispatch::call::{DispatchError, Problem, ToolCall};
use crate::dispatch::check::Arguments;
use crate::fields::Field;
use crate::invocation::{Invocation, ToInvocation};
use atip_core::effects::Effects;
use atip_core::model::TrustSource;
use atip_core::shared::Shared;
use atip_core::tool::ToolSpec;

/// A typed command generated from ATIP metadata (one per flattened command).
///
/// Implemented by the structs `include_atip!` and `atip_build` generate; every constant is
/// computed at build time. For `gh pr create` of tool `gh`: `NAME = "gh_pr_create"`,
/// `PROGRAM = "gh"`, `PATH = &["pr", "create"]`.
pub trait Command {
    /// Flattened, provider-valid tool name (`gh_pr_create`).
    const NAME: &'static str;
    /// The executable run as argv\[0\]: the tool's `name`, unless overridden with
    /// `program = "…"` when generating.
    const PROGRAM: &'static str;
    /// Subcommand path placed after the program and global options (`&["pr", "create"]`).
    const PATH: &'static [&'static str];
    /// Effects merged from the tool, every ancestor command and this command (spec §3.6).
    const EFFECTS: Effects;
    /// `trust.source` of the metadata, if declared (spec §3.2.2) — or the trust the caller
    /// assigned when generating (then [`Command::TRUST_ASSIGNED`] is `true`).
    const TRUST: Option<TrustSource>;
    /// `true` when [`Command::TRUST`] was assigned by the caller (`trust = "…"` when
    /// generating) rather than claimed by the metadata itself.
    const TRUST_ASSIGNED: bool = false;
    /// `trust.integrity.checksum` (0.5+) or `trust.checksum` (0.4): `sha256:` and the hex
    /// digest the binary must have (spec §3.2.2). The runtime refuses to run a binary that
    /// does not match.
    const CHECKSUM: Option<&'static str> = None;
    /// The environment variables the command declares it reads (its tool's
    /// `authentication.methods[].envVar`, its options' `envVar`, spec §3.8): what the runner
    /// passes on besides its base set.
    const ENV: &'static [Shared<str>] = &[];
    /// The MCP server whose tool this command is (metadata with `x-atip-rust.mcp`): its
    /// invocations go to that server ([`Invocation::server`]), never to a process.
    const SERVER: Option<&'static str> = None;
    /// What a model sees of the command: name, description, effects, parameters. Provider
    /// schemas and argument checking are computed from it. Generated commands return their
    /// row of the module's `TOOLS` ([`ToolTable`](crate::tool_table::ToolTable)), read from the
    /// generated spec table on first use and kept; a hand-written command returns a
    /// `static`.
    fn tool() -> &'static ToolSpec;

    /// Hands the command's fields to `visit`: exactly one per parameter, in the order of
    /// [`Command::tool`]'s parameters (for generated code, the command's row of the spec
    /// table, [`atip_core::spec_table`]). Writing the argv ([`Command::write_argv`]) and
    /// serialising go through it, with one table-driven writer for every command
    /// ([`crate::fields`]) that pairs field `i` with parameter `i`: a field handed
    /// over out of order is written under another parameter's flag and name. Generated code
    /// keeps the order (tested against every golden module); a hand-written command must too.
    fn fields(&self, visit: &mut dyn FnMut(&[&dyn Field]));

    /// Builds the command from arguments already checked against [`Command::tool`]
    /// (see [`crate::dispatch::typed`]), one [`Arguments::field`] per field. An argument that
    /// does not convert to its field — the command and its spec disagree, a bug in the
    /// generator, never a model's mistake — is recorded in `args` and its field given
    /// [`FromArgument::unread`](crate::dispatch::FromArgument::unread); the caller asks
    /// [`Arguments::finish`] and discards the command then.
    fn from_arguments(args: &mut Arguments<'_>) -> Self
    where
        Self: Sized;

    /// Writes global options, the subcommand path, options and positionals into `argv`,
    /// which already holds the program: global options right after the program, inherited
    /// options before the command's own (outermost level first, each level in declaration
    /// order), positionals last, with `--` before them when one starts with `-`; each value
    /// as its [`ArgvForm`](atip_core::ArgvForm) says.
    /// Written once for every command, over [`DynCommand`].
    fn write_argv(&self, argv: &mut ArgvBuilder)
    where
        Self: Sized,
    {
        write_command_argv(self, argv);
    }

    /// The command as the arguments object a model would send for it: its present fields by
    /// provider parameter name, in table order (`false` flags, unset options and empty
    /// optional lists left out). What `serde::Serialize` gives when the commands were
    /// generated with `serde = true`; [`Command::from_json_text`] reads it back.
    fn to_arguments(&self) -> serde_json::Map<String, serde_json::Value> {
        // The serialiser of `serde = true` commands, into a `Value`: it cannot fail.
        match serialize_command(self, serde_json::value::Serializer) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        }
    }

    /// The command from its arguments object as JSON text, checked as a model's call is
    /// (every problem at once; OpenAI strict mode's `null`s read as absent): the same as
    /// [`dispatch::typed_from_json_text`](crate::dispatch::typed_from_json_text) with this
    /// command's name. What `serde::Deserialize` gives when the commands were generated with
    /// `serde = true`.
    ///
    /// # Errors
    ///
    /// [`DispatchError`] with every problem of the arguments.
    fn from_json_text(arguments: &str) -> Result<Self, crate::dispatch::DispatchError>
    where
        Self: Sized,
    {
        crate::dispatch::typed_from_json_text::<Self>(Self::NAME, arguments)
    }

    /// The effects of this call: [`Command::EFFECTS`] merged with those of every parameter
    /// it gives that declares effects of its own (`x-atip-rust.effects`: `--force` on a
    /// `push`), as the runner judges it. [`Command::EFFECTS`] itself, without building the
    /// argv, when no parameter of the command declares effects; the widest effects of the
    /// command ([`ToolSpec::widest_effects`]) when the argv cannot be built.
    fn effects(&self) -> Shared<Effects>
    where
        Self: Sized,
    {
        (self as &dyn DynCommand).call_effects()
    }

    /// The full argv, program first.
    ///
    /// # Errors
    ///
    /// [`ArgvError`] listing every value that cannot go on a command line (NUL bytes,
    /// non-finite numbers, malformed URLs, empty required lists).
    fn try_argv(&self) -> Result<Vec<OsString>, ArgvError>
    where
        Self: Sized,
    {
        (self as &dyn DynCommand).try_argv()
    }

    /// The argv, program first, without the checks of [`Command::try_argv`]: values that
    /// cannot be written are left out. For display; run commands through `try_argv` (the
    /// runtime always does).
    fn argv(&self) -> Vec<OsString>
    where
        Self: Sized,
    {
        (self as &dyn DynCommand).argv()
    }
}

impl<C: Command> ToInvocation for C {
    fn to_invocation(&self) -> Result<Invocation, ArgvError> {
        (self as &dyn DynCommand).to_invocation()
    }
}

/// What a command type's constants say, gathered in one `'static` value so that code over
/// [`DynCommand`] reads them without knowing the type.
#[derive(Debug)]
#[doc(hidden)]
pub struct CommandInfo {
    /// [`Command::NAME`].
    pub name: &'static str,
    /// [`Command::PROGRAM`].
    pub program: &'static str,
    /// [`Command::PATH`].
    pub path: &'static [&'static str],
    /// [`Command::tool`].
    pub tool: fn() -> &'static atip_core::ToolSpec,
    /// [`Command::EFFECTS`].
    pub effects: &'static atip_core::Effects,
    /// [`Command::TRUST`].
    pub trust: Option<atip_core::TrustSource>,
    /// [`Command::TRUST_ASSIGNED`].
    pub trust_assigned: bool,
    /// [`Command::CHECKSUM`].
    pub checksum: Option<&'static str>,
    /// [`Command::ENV`].
    pub env: &'static [Shared<str>],
    /// [`Command::SERVER`].
    pub server: Option<&'static str>,
}

/// The object-safe part of [`Command`], implemented for every command. A generated `Call`
/// matches on its variant once (`Call::command`) instead of once per method, and what every
/// command does alike — its argv, its invocation, `Debug`, `PartialEq` — is written once over
/// `dyn DynCommand` (the inherent methods below) rather than compiled again for each of
/// thousands of commands: the vtable holds only these three small forwarders.
#[doc(hidden)]
pub trait DynCommand {
    /// [`Command::fields`].
    fn visit_fields(&self, visit: &mut dyn FnMut(&[&dyn crate::fields::Field]));
    /// [`Command::write_argv`] (which a hand-written command may override).
    fn write_argv_dyn(&self, argv: &mut crate::argv::ArgvBuilder);
    /// The command's constants.
    fn info(&self) -> &'static CommandInfo;
}

impl<C: Command> DynCommand for C {
    fn visit_fields(&self, visit: &mut dyn FnMut(&[&dyn crate::fields::Field])) {
        self.fields(visit);
    }
    fn write_argv_dyn(&self, argv: &mut crate::argv::ArgvBuilder) {
        self.write_argv(argv);
    }
    fn info(&self) -> &'static CommandInfo {
        const {
            &CommandInfo {
                name: C::NAME,
                program: C::PROGRAM,
                path: C::PATH,
                tool: C::tool,
                effects: &C::EFFECTS,
                trust: C::TRUST,
                trust_assigned: C::TRUST_ASSIGNED,
                checksum: C::CHECKSUM,
                env: C::ENV,
                server: C::SERVER,
            }
        }
    }
}

impl dyn DynCommand + '_ {
    /// [`Command::argv`].
    pub fn argv(&self) -> Vec<std::ffi::OsString> {
        let mut b = crate::argv::ArgvBuilder::new(self.info().program);
        self.write_argv_dyn(&mut b);
        b.into_argv_unchecked()
    }

    /// [`Command::try_argv`].
    ///
    /// # Errors
    ///
    /// As [`Command::try_argv`].
    pub fn try_argv(&self) -> Result<Vec<std::ffi::OsString>, crate::argv::ArgvError> {
        let mut b = crate::argv::ArgvBuilder::new(self.info().program);
        self.write_argv_dyn(&mut b);
        b.finish()
    }

    /// [`Command::effects`]: the call's effects, the command's constant when no parameter of
    /// it declares effects of its own.
    pub fn call_effects(&self) -> Shared<Effects> {
        let info = self.info();
        let tool = (info.tool)();
        if tool.params.iter().all(|p| p.effects.is_none()) {
            return Shared::Static(info.effects);
        }
        match self.to_invocation() {
            Ok(invocation) => invocation.effects,
            Err(_) => Shared::new(tool.widest_effects().into_owned()),
        }
    }

    /// [`ToInvocation::to_invocation`](crate::invocation::ToInvocation::to_invocation).
    ///
    /// # Errors
    ///
    /// As `try_argv`.
    pub fn to_invocation(&self) -> Result<crate::invocation::Invocation, crate::argv::ArgvError> {
        use atip_core::Shared;
        let info = self.info();
        let mut b = crate::argv::ArgvBuilder::recorded(info.program);
        self.write_argv_dyn(&mut b);
        let (argv, arguments) = b.finish_recorded()?;
        let tool = (info.tool)();
        let mut invocation = crate::invocation::Invocation {
            title: Some(tool.title.clone().into()),
            arguments,
            trust: info.trust,
            trust_assigned: info.trust_assigned,
            checksum: info.checksum.map(Shared::Static),
            env: Shared::Static(info.env),
            server: info.server.map(Shared::Static),
            ..crate::invocation::Invocation::shared(
                Shared::Static(info.name),
                argv,
                Shared::Static(info.effects),
            )
        };
        invocation.apply_params(&tool.params);
        Ok(invocation)
    }
}

/// [`Command::write_argv`]'s default: global options, path, options and positionals, from
/// the command's fields and its spec's parameters (`Command::tool`), written once for every command.
#[doc(hidden)]
pub fn write_command_argv(command: &dyn DynCommand, argv: &mut crate::argv::ArgvBuilder) {
    let info = command.info();
    command.visit_fields(&mut |fields| {
        crate::fields::write_fields(argv, info.path, &(info.tool)().params, fields)
    });
}

/// `Serialize` of a generated command: its present fields as a JSON object, by parameter name.
///
/// # Errors
///
/// The serializer's.
#[doc(hidden)]
pub fn serialize_command<S, C>(command: &C, serializer: S) -> Result<S::Ok, S::Error>
where
    S: serde::Serializer,
    C: Command + ?Sized,
{
    let tool = C::tool();
    let mut serializer = Some(serializer);
    let mut result = None;
    command.fields(&mut |fields| {
        if let Some(serializer) = serializer.take() {
            result = Some(crate::fields::serialize_fields(
                serializer,
                &tool.params,
                fields,
            ));
        }
    });
    result.unwrap_or_else(|| Err(serde::ser::Error::custom("the command listed no fields")))
}

/// Dispatches `call` to the generated command `C`: checks the arguments against `C::tool()`,
/// then builds the command from them. Used by generated `Call::from_tool_call`.
///
/// # Errors
///
/// [`DispatchError`] with every problem of the arguments.
pub fn typed<C>(call: &ToolCall) -> Result<C, DispatchError>
where
    C: Command,
{
    dispatch_to::<C, C>(CallInput::Call(call))
}

/// What a generated `Call` dispatches: a parsed [`ToolCall`], or a tool
/// name with its arguments still as the provider's JSON text.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum CallInput<'a> {
    /// `Call::from_tool_call`.
    Call(&'a ToolCall),
    /// `Call::from_json_text`.
    Text {
        /// The tool name.
        name: &'a str,
        /// The arguments object as JSON text.
        arguments: &'a str,
    },
}

impl CallInput<'_> {
    pub(crate) fn name(&self) -> &str {
        match self {
            CallInput::Call(call) => &call.name,
            CallInput::Text { name, .. } => name,
        }
    }
}

/// A generated `Call`'s dispatch function for command `C`, and the implementation of
/// [`typed`] and [`typed_from_json_text`] (`T = C`): the arguments
/// checked against `C::tool()` (read straight from the text for [`CallInput::Text`]; a text
/// that fails is read again as a [`ToolCall`], which words every problem),
/// the command built, then the variant (`T: From<C>`). Generated code keeps these in a table
/// sorted by tool name and finds a call's entry by binary search, instead of a `match` on
/// thousands of strings.
///
/// # Errors
///
/// As [`typed`].
#[doc(hidden)]
pub fn dispatch_to<C, T>(input: CallInput<'_>) -> Result<T, DispatchError>
where
    C: Command,
    T: From<C>,
{
    // Only what needs `C` is here, so that each command costs one small instance: reading
    // and checking the arguments and wording errors are compiled once.
    let mut text_call = None;
    let mut args = input_arguments(input, C::tool(), &mut text_call)?;
    let command = C::from_arguments(&mut args);
    match args.finish() {
        Ok(()) => Ok(T::from(command)),
        Err(e) => Err(not_fitting(input, C::NAME, &e)),
    }
}

/// The checked arguments of `input` against `tool`: read straight from the text for
/// [`CallInput::Text`]; a text that fails there is read again
/// as a [`ToolCall`] (kept in `text_call`), which words every problem, so that both
/// inputs give the same result.
fn input_arguments<'a>(
    input: CallInput<'a>,
    tool: &'a atip_core::ToolSpec,
    text_call: &'a mut Option<ToolCall>,
) -> Result<Arguments<'a>, DispatchError> {
    let call = match input {
        CallInput::Call(call) => call,
        CallInput::Text { name, arguments } => {
            if let Some(args) = Arguments::from_json_text(tool, arguments) {
                return Ok(args);
            }
            &*text_call.insert(ToolCall::from_json_text(None, name, arguments))
        }
    };
    let args = call.checked_arguments()?;
    Arguments::check(tool, args).map_err(|p| DispatchError::new(call, p))
}

/// The error of checked arguments that do not convert to command `name`'s fields (a generator
/// bug, never a model's mistake).
fn not_fitting(input: CallInput<'_>, name: &str, e: &str) -> DispatchError {
    let problems = vec![Problem::InvalidArguments {
        message: format!("arguments do not fit `{name}`: {e}"),
    }];
    match input {
        CallInput::Call(call) => DispatchError::new(call, problems),
        CallInput::Text { name, arguments } => {
            DispatchError::new(&ToolCall::from_json_text(None, name, arguments), problems)
        }
    }
}

/// Dispatches a call given as its tool name and its arguments as the provider's JSON text
/// (OpenAI's `function.arguments` string, a streamed call's accumulated text) to the typed
/// command `C`, reading the arguments straight from the text into the command: no
/// [`ToolCall`], no intermediate map, strings moved rather than copied. The result is the
/// one [`typed`] gives for `ToolCall::from_json_text(None, name, arguments)`, errors included
/// (a call that fails is read again through that path, which words every problem). Used by
/// generated `Call::from_json_text`.
///
/// # Errors
///
/// As [`typed`]: the arguments are not a JSON object, or [`DispatchError`] with every
/// problem.
pub fn typed_from_json_text<C>(name: &str, arguments: &str) -> Result<C, DispatchError>
where
    C: Command,
{
    dispatch_to::<C, C>(CallInput::Text { name, arguments })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use atip_core::tool::{ParamSpec, ValueKind};
    use std::borrow::Cow::Borrowed;

    /// A command written by hand: `echo [--loud] WORDS`, whose argv is the default one (also
    /// the runtime's other tests' command).
    #[derive(Debug, Clone, PartialEq)]
    pub(crate) struct Echo {
        pub(crate) loud: bool,
        pub(crate) words: String,
    }

    pub(crate) static ECHO_TOOL: ToolSpec = ToolSpec {
        name: Borrowed("echo"),
        title: Borrowed("echo"),
        path: Borrowed(&[]),
        description: Borrowed("Print words"),
        effects: Effects::UNKNOWN,
        params: Borrowed(&[
            ParamSpec::flag("loud", "Shout", "--loud"),
            ParamSpec::argument("words", "What to print", ValueKind::String).required(),
        ]),
    };

    impl Command for Echo {
        const NAME: &'static str = "echo";
        const PROGRAM: &'static str = "echo";
        const PATH: &'static [&'static str] = &[];
        const EFFECTS: Effects = Effects::UNKNOWN;
        const TRUST: Option<TrustSource> = None;
        fn tool() -> &'static ToolSpec {
            &ECHO_TOOL
        }
        fn fields(&self, visit: &mut dyn FnMut(&[&dyn Field])) {
            visit(&[&self.loud, &self.words]);
        }
        fn from_arguments(args: &mut Arguments<'_>) -> Self {
            Echo {
                loud: args.field("loud"),
                words: args.field("words"),
            }
        }
    }

    /// The same command with its own argv writer, which every path to the argv must use.
    #[derive(Debug, Clone, PartialEq)]
    struct Quiet(Echo);

    impl Command for Quiet {
        const NAME: &'static str = "quiet";
        const PROGRAM: &'static str = "echo";
        const PATH: &'static [&'static str] = &[];
        const EFFECTS: Effects = Effects::UNKNOWN;
        const TRUST: Option<TrustSource> = None;
        fn tool() -> &'static ToolSpec {
            &ECHO_TOOL
        }
        fn fields(&self, visit: &mut dyn FnMut(&[&dyn Field])) {
            self.0.fields(visit);
        }
        fn from_arguments(args: &mut Arguments<'_>) -> Self {
            Quiet(Echo::from_arguments(args))
        }
        fn write_argv(&self, argv: &mut ArgvBuilder) {
            argv.flag("-n");
        }
    }

    #[test]
    fn a_hand_written_command_gets_the_default_argv_and_invocation() {
        let echo = Echo {
            loud: true,
            words: "-rf /".into(),
        };
        assert_eq!(echo.argv(), ["echo", "--loud", "--", "-rf /"]);
        assert_eq!(echo.try_argv().unwrap(), echo.argv());
        let inv = echo.to_invocation().unwrap();
        assert_eq!(inv.name, "echo");
        assert_eq!(inv.argv, echo.argv());
        assert_eq!(inv.title.as_deref(), Some("echo"));
        let recorded: Vec<(&str, &str)> = inv
            .arguments
            .iter()
            .map(|a| (a.param.as_ref(), a.value.to_str().unwrap()))
            .collect();
        assert_eq!(recorded, [("loud", "true"), ("words", "-rf /")]);
    }

    #[test]
    fn an_overridden_write_argv_is_what_every_path_uses() {
        let quiet = Quiet(Echo {
            loud: true,
            words: "hi".into(),
        });
        assert_eq!(quiet.argv(), ["echo", "-n"]);
        assert_eq!(quiet.try_argv().unwrap(), ["echo", "-n"]);
        assert_eq!(quiet.to_invocation().unwrap().argv, ["echo", "-n"]);
        let dynamic: &dyn DynCommand = &quiet;
        assert_eq!(dynamic.argv(), ["echo", "-n"]);
    }
}
