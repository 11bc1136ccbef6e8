//! The contract between generated command structs and the runtime.

use std::ffi::OsString;

use crate::argv::{ArgumentValue, ArgvBuilder, ArgvError};
use crate::dispatch::Arguments;
use crate::effects::Effects;
use crate::fields::Field;
use crate::model::{SafetyAssumption, TrustSource};
use crate::shared::Shared;
use crate::tool::ToolSpec;

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
    /// What a model sees of the command: name, description, effects, parameters. Provider
    /// schemas and argument checking are computed from it. Generated commands return their
    /// row of the module's `TOOLS` ([`ToolTable`](crate::ToolTable)), read from the
    /// generated spec table on first use and kept; a hand-written command returns a
    /// `static`.
    fn tool() -> &'static ToolSpec;

    /// Hands the command's fields to `visit`: exactly one per parameter, in the order of
    /// [`Command::tool`]'s parameters (for generated code, the command's row of the spec
    /// table, [`crate::spec_table`]). Writing the argv ([`Command::write_argv`]) and
    /// serialising go through it, with one table-driven writer for every command
    /// ([`crate::fields`]) that pairs field `i` with parameter `i`: a field handed over out of
    /// order is written under another parameter's flag and name. Generated code keeps the
    /// order (tested against every golden module); a hand-written command must too.
    fn fields(&self, visit: &mut dyn FnMut(&[&dyn Field]));

    /// Builds the command from arguments already checked against [`Command::tool`]
    /// (see [`crate::dispatch::typed`]), one [`Arguments::field`] per field. An argument that
    /// does not convert to its field — the command and its spec disagree, a bug in the
    /// generator, never a model's mistake — is recorded in `args` and its field given
    /// [`FromArgument::unread`](crate::FromArgument::unread); the caller asks
    /// [`Arguments::finish`] and discards the command then.
    fn from_arguments(args: &mut Arguments<'_>) -> Self
    where
        Self: Sized;

    /// Writes global options, the subcommand path, options and positionals into `argv`,
    /// which already holds the program: global options right after the program, inherited
    /// options before the command's own (outermost level first, each level in declaration
    /// order), positionals last, with `--` before them when one starts with `-`; each value
    /// as its [`ArgvForm`](crate::ArgvForm) says.
    /// Written once for every command, over [`DynCommand`](crate::__private::DynCommand).
    fn write_argv(&self, argv: &mut ArgvBuilder)
    where
        Self: Sized,
    {
        crate::__private::write_command_argv(self, argv);
    }

    /// The command as the arguments object a model would send for it: its present fields by
    /// provider parameter name, in table order (`false` flags, unset options and empty
    /// optional lists left out). What `serde::Serialize` gives when the commands were
    /// generated with `serde = true`; [`Command::from_json_text`] reads it back.
    fn to_arguments(&self) -> serde_json::Map<String, serde_json::Value> {
        // The serialiser of `serde = true` commands, into a `Value`: it cannot fail.
        match crate::__private::serialize_command(self, serde_json::value::Serializer) {
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
    /// [`DispatchError`](crate::DispatchError) with every problem of the arguments.
    fn from_json_text(arguments: &str) -> Result<Self, crate::DispatchError>
    where
        Self: Sized,
    {
        crate::dispatch::typed_from_json_text::<Self>(Self::NAME, arguments)
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
        (self as &dyn crate::__private::DynCommand).try_argv()
    }

    /// The argv, program first, without the checks of [`Command::try_argv`]: values that
    /// cannot be written are left out. For display; run commands through `try_argv` (the
    /// runtime always does).
    fn argv(&self) -> Vec<OsString>
    where
        Self: Sized,
    {
        (self as &dyn crate::__private::DynCommand).argv()
    }
}

/// A command ready to be checked against a policy and run: its name, argv, the values of its
/// parameters, effects and trust. Built from a typed [`Command`], a generated `Call`, or
/// metadata loaded at run time.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// Flattened tool name (`gh_pr_create`).
    pub name: Shared<str>,
    /// The id of the model's tool call this answers (`call_…`, `toolu_…`, an MCP request id),
    /// when there is one: it names the call in the audit log ([`crate::exec::AuditLog`]). Set
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
    /// Merged effects of the command.
    pub effects: Shared<Effects>,
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
    /// `Some` when the command is not in the loaded metadata (partial discovery, spec §3.1.1):
    /// what the metadata's `omitted.safetyAssumption` says about such commands (`unknown` when
    /// it says nothing). `None` for listed commands.
    pub unlisted: Option<SafetyAssumption>,
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
            trust: None,
            trust_assigned: false,
            checksum: None,
            metadata: None,
            unlisted: None,
        }
    }
}

/// Anything that can become an [`Invocation`]: every [`Command`] and generated `Call` enums.
pub trait ToInvocation {
    /// Builds the invocation.
    ///
    /// # Errors
    ///
    /// [`ArgvError`] when the argv cannot be built (see [`Command::try_argv`]).
    fn to_invocation(&self) -> Result<Invocation, ArgvError>;
}

impl<C: Command> ToInvocation for C {
    fn to_invocation(&self) -> Result<Invocation, ArgvError> {
        (self as &dyn crate::__private::DynCommand).to_invocation()
    }
}

impl ToInvocation for Invocation {
    fn to_invocation(&self) -> Result<Invocation, ArgvError> {
        Ok(self.clone())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tool::{ParamSpec, ValueKind};
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
        let dynamic: &dyn crate::__private::DynCommand = &quiet;
        assert_eq!(dynamic.argv(), ["echo", "-n"]);
    }
}
