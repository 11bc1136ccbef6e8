//! Flattening of the command tree into tools (spec §8.2 rule 3, strategy A).
//!
//! * Every leaf command (one without subcommands) becomes a tool named
//!   `{tool}_{path…}` ([`crate::names::tool_name`]).
//! * A child named `""` stands for its parent itself: `{"": …}` at the root is the tool
//!   (`hello`), under `stash` it is `git stash` (`git_stash`); it adds nothing to the argv.
//! * Options declared on a group command are inherited by every command below it; the tool's
//!   `globalOptions` apply to every command. A command's own parameter shadows an inherited or
//!   global option with the same parameter name (warning); an inner group's option shadows an
//!   outer one the same way. Arguments declared on a group are ignored (warning).
//! * Effects merge from the tool through each ancestor to the command
//!   ([`Effects::merge_path`]).
//! * An option declared twice on one command, identically (same JSON), is merged: kept once,
//!   with a warning naming both JSON paths.
//! * Two commands with the same flattened name, or two different parameters of one command
//!   with the same parameter name (an argument and an option included), are errors naming both
//!   JSON paths. In lenient mode (metadata read at run time) such an error makes only the
//!   commands it touches unusable: they are left out and listed in [`CommandTable::skipped`] with
//!   the reasons, every other command works.

use foldhash::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use crate::diagnostic::{Diagnostic, JsonPath};
use crate::effects::Effects;
use crate::model::{ArgumentSpec, CommandSpec, DocumentTree, EnumValue, OptionSpec, ParamType};
use crate::names;
use crate::shared::Shared;
use indexmap::IndexMap;

/// Settings for [`flatten`].
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

/// Flattens `tool` into one [`FlatCommand`] per leaf command.
///
/// # Errors
///
/// All error diagnostics found (name collisions, unusable flags, filter entries that match
/// nothing), together with the warnings.
pub fn flatten(
    tool: &DocumentTree,
    options: &FlattenOptions,
) -> Result<CommandTable, Vec<Diagnostic>> {
    flatten_parts(
        &tool.name,
        tool.effects.as_ref(),
        tool.global_options.clone(),
        tool.commands.clone(),
        options,
        false,
    )
}

/// [`flatten`], taking the command tree out of `tool` (left empty) instead of copying it:
/// each command's texts move into its [`FlatCommand`], so memory holds the document once.
/// `lenient`: errors in a command (or in what it inherits) leave that command out instead of
/// failing the whole document (see the module documentation).
pub(crate) fn flatten_owned(
    tool: &mut DocumentTree,
    options: &FlattenOptions,
    lenient: bool,
) -> Result<CommandTable, Vec<Diagnostic>> {
    let commands = std::mem::take(&mut tool.commands);
    flatten_parts(
        &tool.name,
        tool.effects.as_ref(),
        tool.global_options.clone(),
        commands,
        options,
        lenient,
    )
}

fn flatten_parts(
    tool_name: &str,
    tool_effects: Option<&Effects>,
    global_options: Vec<OptionSpec>,
    commands: IndexMap<String, CommandSpec>,
    options: &FlattenOptions,
    lenient: bool,
) -> Result<CommandTable, Vec<Diagnostic>> {
    let mut w = Walker {
        tool_name,
        filter: None,
        out: Vec::new(),
        names: HashMap::default(),
        diags: Vec::new(),
        shadow_seen: HashSet::default(),
        seen_paths: Vec::new(),
        lenient,
        problems: Vec::new(),
        skipped: Vec::new(),
        merged_duplicates: 0,
    };
    if let Some(entries) = &options.commands {
        let mut parsed = Vec::new();
        for entry in entries {
            let segs: Vec<String> = entry.split_whitespace().map(str::to_owned).collect();
            if segs.is_empty() {
                w.diags.push(Diagnostic::error(
                    JsonPath::root().key("commands"),
                    "empty entry in the command filter: name a command such as \"pr\" or \"repo delete\"",
                ));
            }
            parsed.push((entry.clone(), segs, false));
        }
        w.filter = Some(parsed);
    }

    let root = Arc::new(JsonPath::root());
    let before = w.diags.len();
    let globals = w.params_of_level(&root, &[], Vec::new(), global_options, OptionScope::Global);
    let problems = w.level_problems(before);
    w.problems.push(problems);
    let mut levels = vec![globals];
    let tool_effects = tool_effects.cloned().unwrap_or_default();
    let mut visible = Vec::new();
    let commands_path = root.key("commands");
    for (name, cmd) in commands {
        let json = commands_path.key(&name);
        w.walk(&name, cmd, &mut visible, json, &mut levels, &tool_effects);
    }

    if let Some(filter) = &w.filter {
        for (entry, segs, hit) in filter {
            if !hit && !segs.is_empty() {
                w.diags.push(Diagnostic::error(
                    JsonPath::root().key("commands"),
                    match crate::diagnostic::nearest(entry, &w.seen_paths) {
                        Some(near) => format!(
                            "command filter entry {entry:?} matches no command of `{tool_name}`; \
                             did you mean {near:?}?"
                        ),
                        None => format!(
                            "command filter entry {entry:?} matches no command of `{tool_name}`"
                        ),
                    },
                ));
            }
        }
    }

    // Lenient, but nothing left: the document is unusable, so its problems are errors again.
    if w.lenient && w.out.is_empty() && !w.skipped.is_empty() {
        let mut errors = w.diags;
        for s in &w.skipped {
            errors.push(Diagnostic::error(
                s.json_path.clone(),
                format!("command `{}` is unusable: {}", s.path, s.reasons.join("; ")),
            ));
        }
        return Err(errors);
    }
    if w.diags.iter().any(Diagnostic::is_error) {
        Err(w.diags)
    } else {
        Ok(CommandTable {
            commands: w.out,
            warnings: w.diags,
            skipped: w.skipped,
            merged_duplicates: w.merged_duplicates,
        })
    }
}

struct Walker<'a> {
    tool_name: &'a str,
    /// (entry as given, its segments, whether it matched a command)
    filter: Option<Vec<(String, Vec<String>, bool)>>,
    out: Vec<FlatCommand>,
    names: HashMap<String, Arc<JsonPath>>,
    diags: Vec<Diagnostic>,
    /// Shadowed options already reported (each is reported once, with its first shadower),
    /// by the address of their shared value.
    shadow_seen: HashSet<*const FlatParam>,
    /// With a filter: every command path walked past, for "did you mean" hints.
    seen_paths: Vec<String>,
    /// Lenient: errors leave out the commands they touch (see [`Walker::level_problems`]).
    lenient: bool,
    /// Per level of `levels` (globals first): the errors found in it, as reasons.
    problems: Vec<Vec<String>>,
    skipped: Vec<SkippedCommand>,
    merged_duplicates: usize,
}

impl Walker<'_> {
    fn walk(
        &mut self,
        name: &str,
        cmd: CommandSpec,
        visible: &mut Vec<String>,
        json: JsonPath,
        levels: &mut Vec<Vec<Arc<FlatParam>>>,
        effects: &Effects,
    ) {
        let pushed = !name.is_empty();
        if pushed {
            visible.push(name.to_owned());
        }
        if self.filter.is_some() && pushed {
            self.seen_paths.push(visible.join(" "));
        }
        if self.wanted_subtree(visible) {
            let merged = match &cmd.effects {
                Some(own) => effects.merged_with(own),
                None => effects.clone(),
            };
            if let Some(own) = &cmd.effects {
                for (field, declared, wins) in own.overridden_in(&merged) {
                    let mut at = json.key("effects");
                    for part in field.split('.') {
                        at = at.key(part);
                    }
                    self.diags.push(Diagnostic::warning(
                        at,
                        format!(
                            "declares `{field}: {declared}`, but `{field}: {wins}` from an \
                             enclosing command or the tool wins: effects merge conservatively \
                             (spec §3.6), so the command is treated as `{field}: {wins}`"
                        ),
                    ));
                }
            }
            let node = Arc::new(json);
            if cmd.commands.is_empty() {
                self.leaf(cmd, visible, node, levels, merged);
            } else {
                if !cmd.arguments.is_empty() {
                    self.diags.push(Diagnostic::warning(
                        node.key("arguments"),
                        "arguments declared on a command that has subcommands are ignored: \
                         declare them on the subcommands (or on a \"\" child for the command itself)",
                    ));
                }
                // A group's arguments are ignored, but still checked for collisions.
                let before = self.diags.len();
                let inherited = self
                    .params_of_level(
                        &node,
                        visible,
                        cmd.arguments,
                        cmd.options,
                        OptionScope::Inherited,
                    )
                    .into_iter()
                    .filter(|p| !matches!(p.kind, ParamPlacement::Argument))
                    .collect();
                let problems = self.level_problems(before);
                levels.push(inherited);
                self.problems.push(problems);
                let children = node.key("commands");
                for (child_name, child) in cmd.commands {
                    let json = children.key(&child_name);
                    self.walk(&child_name, child, visible, json, levels, &merged);
                }
                levels.pop();
                self.problems.pop();
            }
        }
        if pushed {
            visible.pop();
        }
    }

    /// Whether the subtree at `visible` holds commands the filter keeps.
    fn wanted_subtree(&self, visible: &[String]) -> bool {
        match &self.filter {
            None => true,
            Some(entries) => entries
                .iter()
                .any(|(_, f, _)| f.starts_with(visible) || visible.starts_with(f)),
        }
    }

    /// Marks filter hits; whether the leaf at `visible` is kept.
    fn wanted_leaf(&mut self, visible: &[String]) -> bool {
        match &mut self.filter {
            None => true,
            Some(entries) => {
                let mut keep = false;
                for (_, f, hit) in entries.iter_mut() {
                    if !f.is_empty() && visible.starts_with(f) {
                        *hit = true;
                        keep = true;
                    }
                }
                keep
            }
        }
    }

    fn leaf(
        &mut self,
        cmd: CommandSpec,
        visible: &[String],
        node: Arc<JsonPath>,
        levels: &[Vec<Arc<FlatParam>>],
        effects: Effects,
    ) {
        if !self.wanted_leaf(visible) {
            return;
        }
        let before = self.diags.len();
        let own =
            self.params_of_level(&node, visible, cmd.arguments, cmd.options, OptionScope::Own);
        let name = names::tool_name(self.tool_name, visible);
        if let Some(first) = self.names.get(&name) {
            self.diags.push(Diagnostic::error(
                (*node).clone(),
                format!(
                    "flattened tool name `{name}` is also the name of the command at {first}; \
                     rename one of the two commands"
                ),
            ));
        }
        let mut reasons = self.level_problems(before);
        if !reasons.is_empty() || self.problems.iter().any(|p| !p.is_empty()) {
            reasons.extend(self.problems.iter().flatten().cloned());
            if self.lenient {
                self.diags.push(Diagnostic::warning(
                    (*node).clone(),
                    format!(
                        "command `{}` is left out: {}",
                        visible.join(" "),
                        reasons.join("; ")
                    ),
                ));
                self.skipped.push(SkippedCommand {
                    path: visible.join(" "),
                    json_path: (*node).clone(),
                    reasons,
                });
            }
            return;
        }
        self.names.insert(name.clone(), Arc::clone(&node));

        let (arguments, own_options): (Vec<Arc<FlatParam>>, Vec<Arc<FlatParam>>) = own
            .into_iter()
            .partition(|p| matches!(p.kind, ParamPlacement::Argument));
        // Positionals are filled in order: one that may be left out, or that takes a list,
        // makes the ones after it unreachable when it is absent (the runtime refuses such calls).
        if let Some((i, a)) = arguments[..arguments.len().saturating_sub(1)]
            .iter()
            .enumerate()
            .find(|(_, a)| !a.required || a.multiple)
        {
            let later: Vec<String> = arguments[i + 1..]
                .iter()
                .map(|b| format!("`{}`", b.declared_name))
                .collect();
            self.diags.push(Diagnostic::warning(
                a.json_path(),
                format!(
                    "{} argument `{}` is not the last positional: a call that leaves it out \
                     cannot give {} (positionals are filled in order)",
                    if a.multiple { "variadic" } else { "optional" },
                    a.declared_name,
                    later.join(", ")
                ),
            ));
        }

        // Innermost level first: the first occurrence of a name wins, later ones are shadowed.
        let mut taken: HashMap<&str, &FlatParam> = HashMap::with_capacity_and_hasher(
            arguments.len() + own_options.len() + levels.iter().map(Vec::len).sum::<usize>(),
            Default::default(),
        );
        taken.extend(arguments.iter().map(|a| (a.name.as_str(), &**a)));
        let mut kept_levels: Vec<Vec<Arc<FlatParam>>> = Vec::with_capacity(levels.len() + 1);
        let mut shadowed = Vec::new();
        for level in std::iter::once(&own_options).chain(levels.iter().rev()) {
            let mut kept = Vec::with_capacity(level.len());
            for p in level {
                if let Some(winner) = taken.get(p.name.as_str()) {
                    if !std::ptr::eq(*winner, &**p) && self.shadow_seen.insert(Arc::as_ptr(p)) {
                        shadowed.push(Diagnostic::warning(
                            p.json_path(),
                            format!(
                                "option `{}` is shadowed by the parameter of the same name at {}",
                                p.declared_name,
                                winner.json_path()
                            ),
                        ));
                    }
                    continue;
                }
                taken.insert(&p.name, p);
                kept.push(Arc::clone(p));
            }
            kept_levels.push(kept);
        }
        drop(taken);
        self.diags.extend(shadowed);
        let options = kept_levels.into_iter().rev().flatten().collect();
        let arguments = arguments
            .into_iter()
            .map(|a| Arc::try_unwrap(a).unwrap_or_else(|shared| (*shared).clone()))
            .collect();

        self.out.push(FlatCommand {
            name,
            path: visible.to_vec(),
            json_path: node,
            description: cmd.description,
            arguments,
            options,
            effects,
            examples: cmd.examples,
        });
    }

    /// Converts the arguments and options of one level (each option once, shared by every
    /// command below) and reports name collisions inside the level (between its options, and
    /// between its options and its arguments). Arguments come first.
    fn params_of_level(
        &mut self,
        node: &Arc<JsonPath>,
        command: &[String],
        arguments: Vec<ArgumentSpec>,
        options: Vec<OptionSpec>,
        scope: OptionScope,
    ) -> Vec<Arc<FlatParam>> {
        let options_member = if scope == OptionScope::Global {
            "globalOptions"
        } else {
            "options"
        };
        let command: Arc<[String]> = command.into();
        let origin = |member: &'static str, index: usize| ParamOrigin {
            node: Arc::clone(node),
            command: Arc::clone(&command),
            member,
            index,
        };
        let arg_names: Vec<String> = arguments
            .iter()
            .map(|a| names::param_name(&a.name))
            .collect();
        let option_names: Vec<String> =
            options.iter().map(|o| names::param_name(&o.name)).collect();
        // What becomes of each parameter, decided on borrowed names first (nothing copied);
        // then the parameters are converted in the same order, with the same reports.
        enum Fate {
            Keep,
            /// An option equal to an earlier one of the same parameter name: merged into it.
            MergedInto(usize),
            /// Its parameter name was taken earlier in the level (a collision, reported).
            Collides(Diagnostic),
        }
        let fates: Vec<Fate> = {
            let mut first_option: HashMap<&str, usize> = HashMap::default();
            // Parameter name → (member, index, declared name) of the first parameter with it.
            let mut seen: HashMap<&str, (&'static str, usize, &str)> = HashMap::default();
            let declared = arguments
                .iter()
                .map(|a| ("arguments", a.name.as_str()))
                .chain(options.iter().map(|o| (options_member, o.name.as_str())));
            let mut fates = Vec::with_capacity(arg_names.len() + option_names.len());
            for (k, ((member, name), pname)) in declared
                .zip(arg_names.iter().chain(&option_names))
                .enumerate()
            {
                let i = if k < arguments.len() {
                    k
                } else {
                    k - arguments.len()
                };
                if member == options_member {
                    match first_option.get(pname.as_str()) {
                        Some(&j) if options[j] == options[i] => {
                            fates.push(Fate::MergedInto(j));
                            continue;
                        }
                        Some(_) => {}
                        None => {
                            first_option.insert(pname, i);
                        }
                    }
                }
                match seen.get(pname.as_str()) {
                    Some(&(first_member, j, first_name)) => fates.push(Fate::Collides(collision(
                        &origin(member, i),
                        name,
                        pname,
                        &origin(first_member, j),
                        first_name,
                    ))),
                    None => {
                        seen.insert(pname, (member, i, name));
                        fates.push(Fate::Keep);
                    }
                }
            }
            fates
        };
        let mut fates = fates.into_iter();
        let mut out = Vec::with_capacity(arg_names.len() + option_names.len());
        for ((i, a), pname) in arguments.into_iter().enumerate().zip(arg_names) {
            match fates.next() {
                Some(Fate::Keep) => {
                    out.push(Arc::new(self.argument(a, pname, origin("arguments", i))))
                }
                Some(Fate::Collides(d)) => self.diags.push(d),
                Some(Fate::MergedInto(_)) | None => {}
            }
        }
        for ((i, o), pname) in options.into_iter().enumerate().zip(option_names) {
            let here = origin(options_member, i);
            match fates.next() {
                Some(Fate::Keep) => {
                    if let Some(p) = self.option(o, pname, here, scope) {
                        out.push(Arc::new(p));
                    }
                }
                Some(Fate::MergedInto(first)) => {
                    self.merged_duplicates += 1;
                    self.diags.push(Diagnostic::warning(
                        here.json_path(),
                        format!(
                            "option `{}` is declared again, identically, at {} and {}: kept once",
                            o.name,
                            origin(options_member, first).json_path(),
                            here.json_path()
                        ),
                    ));
                }
                Some(Fate::Collides(d)) => self.diags.push(d),
                None => {}
            }
        }
        out
    }

    /// The errors reported since `before`, as reasons. In lenient mode they become warnings
    /// (the commands they touch are left out instead of the document failing); in strict mode
    /// they stay errors.
    fn level_problems(&mut self, before: usize) -> Vec<String> {
        let mut reasons = Vec::new();
        for d in &mut self.diags[before..] {
            if d.is_error() {
                reasons.push(format!("{}: {}", d.path, d.message));
                if self.lenient {
                    d.severity = crate::diagnostic::Severity::Warning;
                }
            }
        }
        reasons
    }

    fn argument(&mut self, a: ArgumentSpec, name: String, origin: ParamOrigin) -> FlatParam {
        let (enum_values, listed_values) = self.values(a.ty, a.enum_values.as_deref(), &origin);
        let multiple = self.multiple(a.ty, a.variadic, &origin);
        let required = a.is_required();
        FlatParam {
            name: name.into(),
            declared_name: a.name,
            origin,
            description: a.description,
            ty: a.ty,
            enum_values,
            listed_values,
            required,
            multiple,
            default: a.default.map(Box::new),
            env_var: None,
            kind: ParamPlacement::Argument,
        }
    }

    fn option(
        &mut self,
        o: OptionSpec,
        name: String,
        origin: ParamOrigin,
        scope: OptionScope,
    ) -> Option<FlatParam> {
        let flag = self.pick_flag(&o.flags, &origin)?;
        let (enum_values, listed_values) = self.values(o.ty, o.enum_values.as_deref(), &origin);
        let multiple = self.multiple(o.ty, o.variadic, &origin);
        let required = o.is_required();
        Some(FlatParam {
            name: name.into(),
            declared_name: o.name,
            origin,
            description: o.description,
            ty: o.ty,
            enum_values,
            listed_values,
            required,
            multiple,
            default: o.default.map(Box::new),
            env_var: o.env_var,
            kind: ParamPlacement::Option { flag, scope },
        })
    }

    fn pick_flag(&mut self, flags: &[String], origin: &ParamOrigin) -> Option<Flag> {
        for (i, f) in flags.iter().enumerate() {
            let usable = f.len() >= 2
                && f.starts_with('-')
                && f != "--"
                && !f
                    .chars()
                    .any(|c| c == '=' || c.is_whitespace() || c.is_control());
            if !usable {
                self.diags.push(Diagnostic::error(
                    origin.json_path().key("flags").index(i),
                    format!(
                        "flag {f:?} cannot be passed on a command line: expected `-x` or `--name` \
                         without `=`, spaces or control characters"
                    ),
                ));
                return None;
            }
        }
        let chosen = flags
            .iter()
            .find(|f| f.starts_with("--"))
            .or_else(|| flags.first())?;
        Some(Flag {
            text: chosen.clone(),
            attached: chosen.starts_with("--"),
        })
    }

    /// Splits an `enum` list into enumeration values (for `enum`, `string` and `array`
    /// parameters) or listed values (other types).
    fn values(
        &mut self,
        ty: ParamType,
        list: Option<&[EnumValue]>,
        origin: &ParamOrigin,
    ) -> (Option<Vec<String>>, Vec<String>) {
        let mut texts: Vec<String> = Vec::new();
        for v in list.unwrap_or_default() {
            let t = v.as_text();
            if texts.contains(&t) {
                self.diags.push(Diagnostic::warning(
                    origin.json_path().key("enum"),
                    format!("duplicate enum value {t:?} is listed once"),
                ));
            } else {
                texts.push(t);
            }
        }
        match ty {
            ParamType::Enum | ParamType::String | ParamType::Array if !texts.is_empty() => {
                (Some(texts), Vec::new())
            }
            ParamType::Enum => {
                self.diags.push(Diagnostic::warning(
                    origin.json_path(),
                    "type `enum` without an `enum` list: any string is accepted",
                ));
                (None, Vec::new())
            }
            _ => (None, texts),
        }
    }

    fn multiple(&mut self, ty: ParamType, variadic: Option<bool>, origin: &ParamOrigin) -> bool {
        match (ty, variadic == Some(true)) {
            (ParamType::Boolean, true) => {
                self.diags.push(Diagnostic::warning(
                    origin.json_path().key("variadic"),
                    "`variadic` is ignored for a boolean: it is a flag that is present or not",
                ));
                false
            }
            (ParamType::Array, _) | (_, true) => true,
            _ => false,
        }
    }
}

fn collision(
    here: &ParamOrigin,
    name: &str,
    pname: &str,
    first: &ParamOrigin,
    first_name: &str,
) -> Diagnostic {
    Diagnostic::error(
        here.json_path(),
        format!(
            "parameter `{name}` and `{first_name}` at {} both become the parameter name \
             `{pname}`; rename one of them",
            first.json_path()
        ),
    )
}
