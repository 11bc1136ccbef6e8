//! The walk from the command tree to the command table: names, inherited and global options,
//! merged effects, collisions.

use foldhash::{HashMap, HashSet};
use std::sync::Arc;

use indexmap::IndexMap;

use super::duplicates::{same_option, wider_type};
use super::table::{
    CommandTable, Flag, FlatCommand, FlatParam, FlattenOptions, OptionScope, ParamOrigin,
    ParamPlacement, SkippedCommand,
};
use crate::diagnostic::{Diagnostic, JsonPath};
use crate::effects::Effects;
use crate::model::{ArgumentSpec, CommandSpec, DocumentTree, EnumValue, OptionSpec, ParamType};
use crate::names;

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
        global_shadow_reports: None,
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
    w.walk_root(commands, &root.key("commands"), &mut levels, &tool_effects);

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

pub(super) struct Walker<'a> {
    pub(super) tool_name: &'a str,
    /// (entry as given, its segments, whether it matched a command)
    pub(super) filter: Option<Vec<(String, Vec<String>, bool)>>,
    pub(super) out: Vec<FlatCommand>,
    pub(super) names: HashMap<String, Arc<JsonPath>>,
    pub(super) diags: Vec<Diagnostic>,
    /// Shadowed options already reported (each is reported once, with its first shadower),
    /// by the address of their shared value; an inherited level's are forgotten when the walk
    /// leaves it (its values may be freed, and their addresses given to others).
    pub(super) shadow_seen: HashSet<usize>,
    /// Walking the second half of the root's commands ([`super::split`]): the shadowed global
    /// options reported, as (index in `diags`, address), for the first half's reports to win.
    pub(super) global_shadow_reports: Option<Vec<(usize, usize)>>,
    /// With a filter: every command path walked past, for "did you mean" hints.
    pub(super) seen_paths: Vec<String>,
    /// Lenient: errors leave out the commands they touch (see [`Walker::level_problems`]).
    pub(super) lenient: bool,
    /// Per level of `levels` (globals first): the errors found in it, as reasons.
    pub(super) problems: Vec<Vec<String>>,
    pub(super) skipped: Vec<SkippedCommand>,
    pub(super) merged_duplicates: usize,
}

impl Walker<'_> {
    pub(super) fn walk(
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
                if let Some(level) = levels.pop() {
                    for p in &level {
                        self.shadow_seen.remove(&(Arc::as_ptr(p) as usize));
                    }
                }
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
                    if !std::ptr::eq(*winner, &**p)
                        && self.shadow_seen.insert(Arc::as_ptr(p) as usize)
                    {
                        if let Some(reports) = &mut self.global_shadow_reports {
                            if p.is_global() {
                                reports.push((
                                    self.diags.len() + shadowed.len(),
                                    Arc::as_ptr(p) as usize,
                                ));
                            }
                        }
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
            /// An option with the same flags, type and values as an earlier one of the same
            /// parameter name (the description may differ): merged into it.
            MergedInto {
                first: usize,
                same_description: bool,
                /// The types, first and this one, when they differ (the wider is kept).
                types: Option<(ParamType, ParamType)>,
            },
            /// Its parameter name was taken earlier in the level (a collision, reported).
            Collides(Diagnostic),
        }
        // First options whose type a later declaration of the same option widens.
        let mut widened: HashMap<usize, ParamType> = HashMap::default();
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
                        Some(&j) if same_option(&options[j], &options[i]) => {
                            fates.push(Fate::MergedInto {
                                first: j,
                                same_description: options[j].description == options[i].description,
                                types: None,
                            });
                            continue;
                        }
                        Some(&j) => {
                            let kept = widened.get(&j).copied().unwrap_or(options[j].ty);
                            if let Some(wider) = wider_type(kept, &options[j], &options[i]) {
                                if wider != options[j].ty {
                                    widened.insert(j, wider);
                                }
                                fates.push(Fate::MergedInto {
                                    first: j,
                                    same_description: options[j].description
                                        == options[i].description,
                                    types: Some((options[j].ty, options[i].ty)),
                                });
                                continue;
                            }
                        }
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
                Some(Fate::MergedInto { .. }) | None => {}
            }
        }
        for ((i, o), pname) in options.into_iter().enumerate().zip(option_names) {
            let here = origin(options_member, i);
            match fates.next() {
                Some(Fate::Keep) => {
                    let o = match widened.get(&i) {
                        Some(&ty) => OptionSpec { ty, ..o },
                        None => o,
                    };
                    if let Some(p) = self.option(o, pname, here, scope) {
                        out.push(Arc::new(p));
                    }
                }
                Some(Fate::MergedInto {
                    first,
                    same_description,
                    types,
                }) => {
                    self.merged_duplicates += 1;
                    let how = match types {
                        Some((a, b)) => format!(
                            "with the same flags and values but type `{}` here and `{}` first \
                             (kept as `{}`, which takes the values of both)",
                            b.as_str(),
                            a.as_str(),
                            widened.get(&first).copied().unwrap_or(a).as_str()
                        ),
                        None if same_description => "identically".to_owned(),
                        None => "with the same flags, type and values but another description \
                                 (the first is kept)"
                            .to_owned(),
                    };
                    self.diags.push(Diagnostic::warning(
                        here.json_path(),
                        format!(
                            "option `{}` is declared again, {how}, at {} and {}: kept once",
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

    fn argument(&mut self, mut a: ArgumentSpec, name: String, origin: ParamOrigin) -> FlatParam {
        let (enum_values, listed_values) = self.values(a.ty, a.enum_values.take(), &origin);
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
            effects: a.extension.and_then(|x| x.effects),
        }
    }

    fn option(
        &mut self,
        mut o: OptionSpec,
        name: String,
        origin: ParamOrigin,
        scope: OptionScope,
    ) -> Option<FlatParam> {
        let flag = self.pick_flag(std::mem::take(&mut o.flags), &origin)?;
        let (enum_values, listed_values) = self.values(o.ty, o.enum_values.take(), &origin);
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
            effects: o.extension.and_then(|x| x.effects),
        })
    }

    /// The flag an option is passed with (its first long flag, else its first), taken out of
    /// `flags`; `None`, with an error, when one of them cannot be passed on a command line.
    fn pick_flag(&mut self, mut flags: Vec<String>, origin: &ParamOrigin) -> Option<Flag> {
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
        let chosen = flags.iter().position(|f| f.starts_with("--")).unwrap_or(0);
        let text = (chosen < flags.len()).then(|| flags.swap_remove(chosen))?;
        Some(Flag {
            attached: text.starts_with("--"),
            text,
        })
    }

    /// Splits an `enum` list into enumeration values (for `enum`, `string` and `array`
    /// parameters) or listed values (other types).
    fn values(
        &mut self,
        ty: ParamType,
        list: Option<Vec<EnumValue>>,
        origin: &ParamOrigin,
    ) -> (Option<Vec<String>>, Vec<String>) {
        let list = list.unwrap_or_default();
        let mut texts: Vec<String> = Vec::with_capacity(list.len());
        for v in list {
            let t = match v {
                EnumValue::String(s) => s,
                EnumValue::Number(n) => n.to_string(),
            };
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
