//! What flattening produces: the command table, its commands and their parameters, each
//! with the JSON path it was declared at.

use std::sync::Arc;

use serde_json::Value;

use crate::diagnostic::{Diagnostic, JsonPath};
use crate::effects::Effects;
use crate::model::ParamType;
use crate::shared::Shared;

/// Settings for [`flatten`](super::flatten()).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlattenOptions {
    /// Keep only these command subtrees. Each entry is a command path with segments separated
    /// by spaces, as typed on the command line: `"pr"`, `"repo delete"`. `None` keeps all.
    /// An entry that matches no command is an error.
    pub commands: Option<Vec<String>>,
}

/// The tools of a document, in declaration order (depth first).
#[derive(Debug, Clone, PartialEq)]
pub struct CommandTable {
    /// One entry per leaf command.
    pub commands: Vec<FlatCommand>,
    /// Warnings found while flattening (shadowed options, ignored group arguments, …).
    pub warnings: Vec<Diagnostic>,
    /// Commands left out in lenient mode because of an error in them or in what they inherit.
    pub skipped: Vec<SkippedCommand>,
    /// Options declared twice, identically, on one command (or group) and kept once.
    pub merged_duplicates: usize,
}

/// A command lenient flattening left out (see [`CommandTable::skipped`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SkippedCommand {
    /// Its command path, as typed (`"compute instances list"`; empty for the tool itself).
    pub path: String,
    /// Where it is declared.
    pub json_path: JsonPath,
    /// Why: each error, with its own JSON path.
    pub reasons: Vec<String>,
}

/// One tool: a leaf command with everything it inherits.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatCommand {
    /// Flattened, provider-valid tool name, e.g. `gh_pr_create`.
    pub name: String,
    /// Subcommand path as it goes into the argv, `""` segments removed: `["pr", "create"]`;
    /// empty for the tool itself.
    pub path: Vec<String>,
    /// Where the command is declared, e.g. `$.commands.pr.commands.create` (shared with its
    /// own parameters' [`ParamOrigin`]).
    pub json_path: Arc<JsonPath>,
    /// The command's description.
    pub description: String,
    /// Positional arguments in declaration order.
    pub arguments: Vec<FlatParam>,
    /// Options in argv order: global options, then inherited ones (outermost level first),
    /// then the command's own, each level in declaration order. Shadowed options are gone.
    /// An inherited or global option is one value shared by every command that has it.
    pub options: Vec<Arc<FlatParam>>,
    /// Effects merged from the tool, every ancestor and the command.
    pub effects: Effects,
    /// The command's examples.
    pub examples: Vec<String>,
}

impl FlatCommand {
    /// Arguments, then options.
    pub fn params(&self) -> impl Iterator<Item = &FlatParam> {
        self.arguments
            .iter()
            .chain(self.options.iter().map(|p| &**p))
    }
}

/// An argument or option of a [`FlatCommand`].
#[derive(Debug, Clone, PartialEq)]
pub struct FlatParam {
    /// Provider-valid parameter name (`dry_run`), used on the wire.
    pub name: Shared<str>,
    /// The name as declared (`dry-run`).
    pub declared_name: String,
    /// Where it is declared: see [`FlatParam::json_path`].
    pub origin: ParamOrigin,
    /// Its description.
    pub description: String,
    /// The declared type.
    pub ty: ParamType,
    /// The allowed values as text, when the parameter is an enumeration (type `enum`, or
    /// `string`/`array` with an `enum` list); duplicates removed.
    pub enum_values: Option<Vec<String>>,
    /// The values listed in `enum` for a non-enumeration type (e.g. integers), as text.
    pub listed_values: Vec<String>,
    /// Must be given.
    pub required: bool,
    /// Takes a list of values: variadic, or of type `array`.
    pub multiple: bool,
    /// The tool's default when left out, as declared.
    pub default: Option<Box<Value>>,
    /// Environment variable that overrides the option.
    pub env_var: Option<String>,
    /// Positional argument or option.
    pub kind: ParamPlacement,
    /// What giving this parameter adds to the command's effects (`x-atip-rust.effects`),
    /// when it declares any.
    pub effects: Option<Effects>,
}

/// Where a parameter is declared: the command (or root, for global options) that declares
/// it, shared by all its parameters, and its index in that node's `arguments`, `options` or
/// `globalOptions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamOrigin {
    /// The declaring node, e.g. `$.commands.pr`; `$` for global options.
    pub node: Arc<JsonPath>,
    /// The subcommand path of the declaring command as it goes into the argv (`["pr"]`,
    /// `""` segments removed); empty for global options, which the tool itself declares.
    pub command: Arc<[String]>,
    /// The member holding the parameter: `arguments`, `options` or `globalOptions`.
    pub member: &'static str,
    /// Its index there.
    pub index: usize,
}

impl ParamOrigin {
    /// `$.commands.pr.options[0]`.
    pub fn json_path(&self) -> JsonPath {
        self.node.key(self.member).index(self.index)
    }
}

/// Whether a parameter is positional or flagged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamPlacement {
    /// A positional argument.
    Argument,
    /// A flagged option.
    Option {
        /// The flag used on the command line.
        flag: Flag,
        /// Where the option comes from.
        scope: OptionScope,
    },
}

/// The flag an option is passed with: the first long flag (`--output`), or the first flag when
/// there is no long one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flag {
    /// The flag text, e.g. `--output` or `-C`.
    pub text: String,
    /// `true` for long flags, whose value is attached (`--output=x`); `false` for short or
    /// single-dash flags, whose value is the next argv element (`-C dir`).
    pub attached: bool,
}

/// Where an option of a [`FlatCommand`] is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionScope {
    /// In `globalOptions`: goes right after the program, before the subcommand path.
    Global,
    /// On an ancestor group command.
    Inherited,
    /// On the command itself.
    Own,
}

impl FlatParam {
    /// Where it is declared, e.g. `$.commands.pr.options[0]`.
    pub fn json_path(&self) -> JsonPath {
        self.origin.json_path()
    }

    /// The option's flag, `None` for an argument.
    pub fn flag(&self) -> Option<&Flag> {
        match &self.kind {
            ParamPlacement::Option { flag, .. } => Some(flag),
            ParamPlacement::Argument => None,
        }
    }

    /// Whether this is a global option.
    pub fn is_global(&self) -> bool {
        matches!(
            self.kind,
            ParamPlacement::Option {
                scope: OptionScope::Global,
                ..
            }
        )
    }
}
