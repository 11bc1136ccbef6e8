//! The walk over a built clap [`Command`] that writes its ATIP document.
//!
//! Where each clap construct goes, and why, is in the crate documentation (the mapping table);
//! this module follows it rule by rule.

use std::any::TypeId;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::PathBuf;

use atip_core::model::{
    ArgumentSpec, CommandSpec, DocumentTree, EnumValue, OptionSpec, ProtocolInfo, ProtocolVersion,
    Trust,
};
use atip_core::{Effects, ParamType};
use clap::{Arg, ArgAction, Command, ValueHint};
use indexmap::IndexMap;
use serde_json::Value;

use crate::{Annotations, Described, DocumentError, Warning, AGENT_ARG_ID};

/// The spec's limit on the tool's own description (§3.2; longer is an error in strict mode).
const ROOT_DESCRIPTION_MAX: usize = 200;

pub(crate) fn describe(
    cmd: &Command,
    annotations: &Annotations,
) -> Result<Described, DocumentError> {
    let mut root = without_help_subcommands(cmd.clone());
    root.build();
    let mut problems = Vec::new();
    let name = root.get_name().to_owned();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        problems.push(format!(
            "the program name {name:?} is not a valid ATIP tool name (letters, digits, `_` and `-`)"
        ));
    }
    let version = annotations
        .version
        .clone()
        .or_else(|| root.get_version().map(str::to_owned));
    if version.is_none() {
        problems.push(
            "the command has no version: set one with `#[command(version)]` / \
             `Command::version`, or with `Annotations::version`"
                .to_owned(),
        );
    }
    let mut walker = Walker {
        last_positional: None,
        annotations,
        used: BTreeSet::new(),
        warnings: Vec::new(),
    };
    let mut description = about(&root);
    if description.chars().count() > ROOT_DESCRIPTION_MAX {
        description = shorten(&description);
        walker.warn(
            &[],
            None,
            "the program's about text is longer than the 200 characters ATIP allows for a \
             tool's description: cut at a word boundary",
        );
    }
    let (commands, global_options) = walker.root(&root);
    let unknown: Vec<&String> = annotations
        .effects
        .keys()
        .filter(|path| !walker.used.contains(path.as_str()))
        .collect();
    for path in unknown {
        problems.push(format!(
            "effects are annotated for `{path}`, which is no visible command of `{name}`"
        ));
    }
    if !problems.is_empty() {
        return Err(DocumentError { problems });
    }
    let tool = DocumentTree {
        atip: ProtocolVersion::Object(ProtocolInfo {
            version: "0.6".to_owned(),
            features: vec!["trust-v1".to_owned()],
            min_agent_version: None,
        }),
        name,
        version: version.unwrap_or_default(),
        description,
        homepage: annotations.homepage.clone(),
        binary: None,
        partial: None,
        filter: None,
        total_commands: None,
        included_commands: None,
        omitted: None,
        trust: Some(Trust {
            source: Some(annotations.trust),
            verified: Some(false),
            ..Trust::default()
        }),
        commands,
        global_options,
        authentication: None,
        effects: annotations.effects.get("").cloned(),
        patterns: Vec::new(),
    };
    Ok(Described {
        tool,
        warnings: walker.warnings,
    })
}

/// `cmd` and every subcommand without clap's generated `help` subcommand, which is no command
/// of the program.
fn without_help_subcommands(cmd: Command) -> Command {
    cmd.disable_help_subcommand(true)
        .mut_subcommands(without_help_subcommands)
}

/// The first line of a command's about text (its long about when it has no short one).
fn about(cmd: &Command) -> String {
    cmd.get_about()
        .or_else(|| cmd.get_long_about())
        .map(|s| s.to_string())
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// A help text as a description: the short help, else the long one, trimmed.
fn help(arg: &Arg) -> String {
    arg.get_help()
        .or_else(|| arg.get_long_help())
        .map(|s| s.to_string())
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// `text` cut to at most 200 characters at a word boundary.
fn shorten(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        let len = out.chars().count() + usize::from(!out.is_empty()) + word.chars().count();
        if len > ROOT_DESCRIPTION_MAX - 1 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        out = text.chars().take(ROOT_DESCRIPTION_MAX - 1).collect();
    }
    out.push('…');
    out
}

/// Whether `arg` is one of clap's own (help, version) or `--agent`, which describe nothing the
/// program does.
fn is_builtin(arg: &Arg) -> bool {
    matches!(
        arg.get_action(),
        ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
    ) || arg.get_id() == AGENT_ARG_ID
}

/// What one clap argument becomes.
enum Param {
    Argument(ArgumentSpec),
    Option(OptionSpec),
    /// Left out (hidden, built in, or not expressible; a warning says which).
    None,
    /// Not expressible, and required: the command cannot be called through the argv writer.
    Blocks,
}

struct Walker<'a> {
    /// The `last(true)` positional of the command being walked, if it has one.
    last_positional: Option<String>,
    annotations: &'a Annotations,
    used: BTreeSet<String>,
    warnings: Vec<Warning>,
}

impl Walker<'_> {
    fn warn(&mut self, path: &[String], arg: Option<&Arg>, message: impl Into<String>) {
        self.warnings.push(Warning {
            command: path.join(" "),
            arg: arg.map(|a| a.get_id().to_string()),
            message: message.into(),
        });
    }

    /// The effects annotated for `path`, marking the annotation used.
    fn effects(&mut self, path: &[String]) -> Option<Effects> {
        let key = path.join(" ");
        let found = self.annotations.effects.get(&key).cloned();
        if found.is_some() {
            self.used.insert(key);
        }
        found
    }

    /// The root: its options become `globalOptions` when it has subcommands (they go right
    /// after the program, where clap reads them), its own invocation the `""` child.
    fn root(&mut self, root: &Command) -> (IndexMap<String, CommandSpec>, Vec<OptionSpec>) {
        // Root effects are the tool's `effects`: marked used here.
        if self.annotations.effects.contains_key("") {
            self.used.insert(String::new());
        }
        let subs: Vec<&Command> = root
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .collect();
        let mut commands = IndexMap::new();
        if subs.is_empty() {
            if let Some(spec) = self.leaf(root, &[], &BTreeSet::new(), None) {
                commands.insert(String::new(), spec);
            }
            return (commands, Vec::new());
        }
        self.constraints(root, &[]);
        let mut globals = Vec::new();
        let mut arguments = Vec::new();
        let mut blocked = false;
        let mut global_ids = BTreeSet::new();
        for arg in root.get_arguments() {
            if arg.is_global_set() {
                global_ids.insert(arg.get_id().to_string());
            }
            match self.param(arg, &[]) {
                Param::Option(o) => globals.push(o),
                Param::Argument(a) => arguments.push(a),
                Param::None => {}
                Param::Blocks => blocked = true,
            }
        }
        self.own_invocation(
            root,
            &[],
            arguments,
            Vec::new(),
            blocked,
            &subs,
            &mut commands,
        );
        for sub in subs {
            let path = vec![sub.get_name().to_owned()];
            if let Some(spec) = self.command(sub, &path, &global_ids) {
                commands.insert(sub.get_name().to_owned(), spec);
            }
        }
        (commands, globals)
    }

    /// The `""` child of a command with subcommands that can also run without one.
    #[allow(clippy::too_many_arguments)]
    fn own_invocation(
        &mut self,
        cmd: &Command,
        path: &[String],
        arguments: Vec<ArgumentSpec>,
        options: Vec<OptionSpec>,
        blocked: bool,
        subs: &[&Command],
        into: &mut IndexMap<String, CommandSpec>,
    ) {
        if cmd.is_subcommand_required_set() || blocked {
            if !arguments.is_empty() || !options.is_empty() {
                self.warn(
                    path,
                    None,
                    "its own arguments and options are accepted only together with a \
                     subcommand, before it; the argv writer puts a command's options after the \
                     whole subcommand path: left out",
                );
            }
            return;
        }
        if !arguments.is_empty() {
            let names: Vec<&str> = subs
                .iter()
                .flat_map(|s| std::iter::once(s.get_name()).chain(s.get_all_aliases()))
                .chain(["help"])
                .collect();
            self.warn(
                path,
                None,
                format!(
                    "run without a subcommand, its first positional argument cannot be a \
                     subcommand name ({}): clap reads such a value as the subcommand",
                    names.join(", ")
                ),
            );
        }
        into.insert(
            String::new(),
            CommandSpec {
                description: about(cmd),
                arguments,
                options,
                commands: IndexMap::new(),
                effects: None,
                examples: Vec::new(),
            },
        );
    }

    /// A subcommand at `path`; `inherited` are the ids of global arguments declared above it
    /// (clap copies them into every subcommand; they are described where declared).
    fn command(
        &mut self,
        cmd: &Command,
        path: &[String],
        inherited: &BTreeSet<String>,
    ) -> Option<CommandSpec> {
        let subs: Vec<&Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
        if subs.is_empty() {
            let effects = self.effects(path);
            return self.leaf(cmd, path, inherited, effects);
        }
        self.constraints(cmd, path);
        let mut group_options = Vec::new();
        let mut own_options = Vec::new();
        let mut arguments = Vec::new();
        let mut blocked = false;
        let mut below = inherited.clone();
        for arg in cmd.get_arguments() {
            let id = arg.get_id().to_string();
            if arg.is_global_set() && inherited.contains(&id) {
                continue;
            }
            let global = arg.is_global_set();
            if global {
                below.insert(id);
            }
            match self.param(arg, path) {
                Param::Option(o) if global => group_options.push(o),
                Param::Option(o) => {
                    if arg.is_required_set() {
                        self.warn(
                            path,
                            Some(arg),
                            "required, and accepted only before a subcommand: the commands \
                             below cannot be called through the argv writer (which puts \
                             options after the whole path); clap will refuse them",
                        );
                    }
                    own_options.push(o)
                }
                Param::Argument(a) => arguments.push(a),
                Param::None => {}
                Param::Blocks => blocked = true,
            }
        }
        if !own_options.is_empty() {
            let flags: Vec<&str> = own_options
                .iter()
                .filter_map(|o| o.flags.first().map(String::as_str))
                .collect();
            self.warn(
                path,
                None,
                format!(
                    "{} not global: clap reads {} only before a subcommand, where the argv \
                     writer cannot put {}; described for the command run on its own only",
                    flags.join(", "),
                    if flags.len() == 1 { "it" } else { "them" },
                    if flags.len() == 1 { "it" } else { "them" },
                ),
            );
        }
        let effects = self.effects(path);
        let mut commands = IndexMap::new();
        self.own_invocation(
            cmd,
            path,
            arguments,
            own_options,
            blocked,
            &subs,
            &mut commands,
        );
        for sub in subs {
            let mut sub_path = path.to_vec();
            sub_path.push(sub.get_name().to_owned());
            if let Some(spec) = self.command(sub, &sub_path, &below) {
                commands.insert(sub.get_name().to_owned(), spec);
            }
        }
        Some(CommandSpec {
            description: about(cmd),
            arguments: Vec::new(),
            options: group_options,
            commands,
            effects,
            examples: Vec::new(),
        })
    }

    /// A command without subcommands: its arguments and options.
    fn leaf(
        &mut self,
        cmd: &Command,
        path: &[String],
        inherited: &BTreeSet<String>,
        effects: Option<Effects>,
    ) -> Option<CommandSpec> {
        self.constraints(cmd, path);
        let mut arguments = Vec::new();
        let mut options = Vec::new();
        let mut blocked = false;
        for arg in cmd.get_arguments() {
            if arg.is_global_set() && inherited.contains(arg.get_id().as_str()) {
                continue;
            }
            match self.param(arg, path) {
                Param::Option(o) => options.push(o),
                Param::Argument(a) => arguments.push(a),
                Param::None => {}
                Param::Blocks => blocked = true,
            }
        }
        if blocked {
            self.warn(
                path,
                None,
                "left out: a required argument of it cannot be written by the argv writer",
            );
            return None;
        }
        Some(CommandSpec {
            description: about(cmd),
            arguments,
            options,
            commands: IndexMap::new(),
            effects,
            examples: Vec::new(),
        })
    }

    /// One clap argument as an ATIP argument or option.
    fn param(&mut self, arg: &Arg, path: &[String]) -> Param {
        if is_builtin(arg) || arg.is_hide_set() {
            return Param::None;
        }
        let excluded = if arg.is_required_set() {
            Param::Blocks
        } else {
            Param::None
        };
        if arg.is_exclusive_set() {
            self.warn(
                path,
                Some(arg),
                "exclusive (no other argument may be given with it): ATIP cannot say so",
            );
        }
        if arg.is_positional() {
            return self.positional(arg, path, excluded);
        }
        let mut flags = Vec::new();
        if let Some(c) = arg.get_short() {
            flags.push(format!("-{c}"));
        }
        for c in arg.get_visible_short_aliases().unwrap_or_default() {
            flags.push(format!("-{c}"));
        }
        if let Some(l) = arg.get_long() {
            flags.push(format!("--{l}"));
        }
        for l in arg.get_visible_aliases().unwrap_or_default() {
            flags.push(format!("--{l}"));
        }
        let long = arg.get_long().is_some();
        let name = arg
            .get_long()
            .map_or_else(|| arg.get_id().to_string(), str::to_owned);
        let description = help(arg);
        let mut option = OptionSpec {
            name,
            flags,
            ty: ParamType::Boolean,
            description,
            required: None,
            default: None,
            enum_values: None,
            env_var: arg.get_env().and_then(|e| e.to_str()).map(str::to_owned),
            variadic: None,
        };
        let range = arg.get_num_args().unwrap_or_default();
        match arg.get_action() {
            ArgAction::SetTrue => return Param::Option(option),
            ArgAction::SetFalse => {
                option.description = with_note(
                    &option.description,
                    "given, it sets the setting off (clap's SetFalse)",
                );
                return Param::Option(option);
            }
            ArgAction::Count => {
                self.warn(
                    path,
                    Some(arg),
                    "counts its occurrences (ArgAction::Count); ATIP has no count: described \
                     as a boolean flag, given once when true",
                );
                return Param::Option(option);
            }
            ArgAction::Set | ArgAction::Append => {}
            other => {
                self.warn(
                    path,
                    Some(arg),
                    format!("action {other:?} has no ATIP counterpart: left out"),
                );
                return excluded;
            }
        }
        let append = matches!(arg.get_action(), ArgAction::Append);
        if range.max_values() == 0 {
            // `Set` with no value is a flag.
            return Param::Option(option);
        }
        if range.min_values() > 1 {
            self.warn(
                path,
                Some(arg),
                format!(
                    "needs {} or more values per occurrence; the argv writer writes one value \
                     per flag (`--flag=value`), after which clap would take the next argument \
                     as the missing value: left out",
                    range.min_values()
                ),
            );
            return excluded;
        }
        if !long && arg.is_require_equals_set() {
            self.warn(
                path,
                Some(arg),
                "a short-only option that requires `=`; the argv writer passes the value of a \
                 short flag as the next element: left out",
            );
            return excluded;
        }
        if !long && !arg.is_allow_hyphen_values_set() {
            self.warn(
                path,
                Some(arg),
                "short-only: the argv writer passes its value as the next element, and clap \
                 reads a next element starting with `-` as a flag; values starting with `-` \
                 cannot be passed (ATIP cannot say so)",
            );
        }
        if range.min_values() == 0 {
            self.warn(
                path,
                Some(arg),
                "its value is optional; the form without a value cannot be written (the argv \
                 writer always writes a value)",
            );
        }
        if !append && range.max_values() > 1 {
            self.warn(
                path,
                Some(arg),
                "takes several values in one occurrence and cannot be repeated; the argv \
                 writer repeats the flag once per value: described as taking one value",
            );
        }
        if let Some(d) = arg.get_value_delimiter() {
            self.warn(
                path,
                Some(arg),
                format!(
                    "clap splits each value at `{d}`: a value containing `{d}` becomes several"
                ),
            );
        }
        let (ty, values) = self.value_type(arg, path);
        option.ty = ty;
        option.enum_values = values;
        if append {
            option.variadic = Some(true);
        }
        if arg.is_required_set() {
            option.required = Some(true);
        }
        option.default = default_of(arg, ty, append);
        Param::Option(option)
    }

    /// A positional argument.
    fn positional(&mut self, arg: &Arg, path: &[String], excluded: Param) -> Param {
        if arg.is_last_set() {
            self.warn(
                path,
                Some(arg),
                "`last(true)`: clap takes it only after `--`, which the argv writer inserts \
                 only before a value starting with `-`: left out",
            );
            return excluded;
        }
        if let Some(last) = self.last_positional.clone() {
            self.warn(
                path,
                Some(arg),
                format!(
                    "a value starting with `-` cannot be passed: the argv writer puts `--` \
                     before it, and clap gives every value after `--` to `{last}`, the \
                     `last(true)` positional"
                ),
            );
        }
        let range = arg.get_num_args().unwrap_or_default();
        let variadic = range.max_values() > 1;
        match arg.get_action() {
            ArgAction::Set | ArgAction::Append => {}
            other => {
                self.warn(
                    path,
                    Some(arg),
                    format!("action {other:?} has no ATIP counterpart: left out"),
                );
                return excluded;
            }
        }
        if range.min_values() > 1 {
            self.warn(
                path,
                Some(arg),
                format!(
                    "needs at least {} values; ATIP cannot say so (clap refuses fewer)",
                    range.min_values()
                ),
            );
        }
        if variadic && range.max_values() != usize::MAX {
            self.warn(
                path,
                Some(arg),
                format!(
                    "takes at most {} values; ATIP cannot say so",
                    range.max_values()
                ),
            );
        }
        if let Some(d) = arg.get_value_delimiter() {
            self.warn(
                path,
                Some(arg),
                format!(
                    "clap splits each value at `{d}`: a value containing `{d}` becomes several"
                ),
            );
        }
        let (ty, values) = self.value_type(arg, path);
        Param::Argument(ArgumentSpec {
            name: arg.get_id().to_string(),
            ty,
            description: help(arg),
            required: Some(arg.is_required_set()),
            default: default_of(arg, ty, variadic),
            variadic: variadic.then_some(true),
            enum_values: values,
        })
    }

    /// Warnings for the constraints between the arguments of `cmd` that ATIP cannot carry:
    /// conflicts and argument groups that are required or allow only one of their members.
    fn constraints(&mut self, cmd: &Command, path: &[String]) {
        self.last_positional = cmd
            .get_positionals()
            .find(|a| a.is_last_set())
            .map(|a| a.get_id().to_string());
        for arg in cmd.get_arguments() {
            if is_builtin(arg) || arg.is_hide_set() || arg.is_global_set() {
                continue;
            }
            // Built commands have checked that every conflict names a known argument.
            let conflicts: Vec<String> = cmd
                .get_arg_conflicts_with(arg)
                .iter()
                .map(|a| a.get_id().to_string())
                .collect();
            if !conflicts.is_empty() {
                self.warn(
                    path,
                    Some(arg),
                    format!(
                        "conflicts with {}: ATIP cannot say so (clap refuses a call with both)",
                        conflicts.join(", ")
                    ),
                );
            }
        }
        for group in cmd.get_groups() {
            let mut g = group.clone();
            let one_only = !g.is_multiple();
            if group.is_required_set() || one_only {
                let members: Vec<String> = group.get_args().map(|id| id.to_string()).collect();
                self.warnings.push(Warning {
                    command: path.join(" "),
                    arg: None,
                    message: format!(
                        "argument group `{}` ({}) {}: ATIP cannot say so",
                        group.get_id(),
                        members.join(", "),
                        match (group.is_required_set(), one_only) {
                            (true, true) => "needs exactly one of its members",
                            (true, false) => "needs at least one of its members",
                            _ => "allows at most one of its members",
                        }
                    ),
                });
            }
        }
    }

    /// The ATIP type of one value of `arg`, from its possible values or its value parser.
    fn value_type(&mut self, arg: &Arg, path: &[String]) -> (ParamType, Option<Vec<EnumValue>>) {
        let possible: Vec<EnumValue> = arg
            .get_possible_values()
            .iter()
            .filter(|p| !p.is_hide_set())
            .map(|p| EnumValue::String(p.get_name().to_owned()))
            .collect();
        if !possible.is_empty() {
            if arg.is_ignore_case_set() {
                self.warn(
                    path,
                    Some(arg),
                    "clap also accepts its values in other letter cases; described with the \
                     values as declared",
                );
            }
            return (ParamType::Enum, Some(possible));
        }
        let id = arg.get_value_parser().type_id();
        let is = |t: TypeId| id == t;
        if is(TypeId::of::<i64>()) {
            return (ParamType::Integer, None);
        }
        let narrower = [
            TypeId::of::<i8>(),
            TypeId::of::<i16>(),
            TypeId::of::<i32>(),
            TypeId::of::<u8>(),
            TypeId::of::<u16>(),
            TypeId::of::<u32>(),
            TypeId::of::<u64>(),
            TypeId::of::<usize>(),
            TypeId::of::<isize>(),
            TypeId::of::<i128>(),
            TypeId::of::<u128>(),
        ];
        if narrower.iter().any(|t| is(*t)) {
            self.warn(
                path,
                Some(arg),
                "an integer of a narrower range than ATIP's 64-bit signed `integer` (or an \
                 unsigned one): clap refuses values outside its range",
            );
            return (ParamType::Integer, None);
        }
        if is(TypeId::of::<f64>()) {
            return (ParamType::Number, None);
        }
        if is(TypeId::of::<f32>()) {
            self.warn(
                path,
                Some(arg),
                "a 32-bit float: values are rounded to f32 precision",
            );
            return (ParamType::Number, None);
        }
        if is(TypeId::of::<PathBuf>()) {
            return match arg.get_value_hint() {
                ValueHint::DirPath => (ParamType::Directory, None),
                _ => (ParamType::File, None),
            };
        }
        if is(TypeId::of::<String>()) || is(TypeId::of::<OsString>()) {
            return match arg.get_value_hint() {
                ValueHint::Url => (ParamType::Url, None),
                ValueHint::DirPath => (ParamType::Directory, None),
                ValueHint::FilePath | ValueHint::AnyPath | ValueHint::ExecutablePath => {
                    (ParamType::File, None)
                }
                _ => (ParamType::String, None),
            };
        }
        self.warn(
            path,
            Some(arg),
            "its value parser is the program's own: described as a string, which the program \
             may refuse",
        );
        (ParamType::String, None)
    }
}

/// `text` with `note` after it, in parentheses.
fn with_note(text: &str, note: &str) -> String {
    if text.is_empty() {
        format!("({note})")
    } else {
        format!("{text} ({note})")
    }
}

/// The declared default, typed as the parameter is (booleans have none: absent means false).
fn default_of(arg: &Arg, ty: ParamType, list: bool) -> Option<Value> {
    let values: Vec<Value> = arg
        .get_default_values()
        .iter()
        .filter_map(|v| v.to_str())
        .map(|text| match ty {
            ParamType::Integer => text
                .parse::<i64>()
                .map_or_else(|_| Value::String(text.to_owned()), Value::from),
            ParamType::Number => text
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map_or_else(|| Value::String(text.to_owned()), Value::Number),
            _ => Value::String(text.to_owned()),
        })
        .collect();
    match values.len() {
        0 => None,
        1 if !list => values.into_iter().next(),
        _ => Some(Value::Array(values)),
    }
}
