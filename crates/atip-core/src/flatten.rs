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
//! * Two commands with the same flattened name, or two parameters of one command with the same
//!   parameter name (an argument and an option included), are errors naming both JSON paths.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::diagnostic::{Diagnostic, JsonPath};
use crate::effects::Effects;
use crate::model::{ArgumentSpec, AtipTool, CommandSpec, EnumValue, OptionSpec, ParamType};
use crate::names;

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
pub struct Flattened {
    /// One entry per leaf command.
    pub commands: Vec<FlatCommand>,
    /// Warnings found while flattening (shadowed options, ignored group arguments, …).
    pub warnings: Vec<Diagnostic>,
}

/// One tool: a leaf command with everything it inherits.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatCommand {
    /// Flattened, provider-valid tool name, e.g. `gh_pr_create`.
    pub name: String,
    /// Subcommand path as it goes into the argv, `""` segments removed: `["pr", "create"]`;
    /// empty for the tool itself.
    pub path: Vec<String>,
    /// Where the command is declared, e.g. `$.commands.pr.commands.create`.
    pub json_path: JsonPath,
    /// The command's description.
    pub description: String,
    /// Positional arguments in declaration order.
    pub arguments: Vec<FlatParam>,
    /// Options in argv order: global options, then inherited ones (outermost level first),
    /// then the command's own, each level in declaration order. Shadowed options are gone.
    pub options: Vec<FlatParam>,
    /// Effects merged from the tool, every ancestor and the command.
    pub effects: Effects,
    /// The command's examples.
    pub examples: Vec<String>,
}

impl FlatCommand {
    /// Arguments, then options.
    pub fn params(&self) -> impl Iterator<Item = &FlatParam> {
        self.arguments.iter().chain(self.options.iter())
    }
}

/// An argument or option of a [`FlatCommand`].
#[derive(Debug, Clone, PartialEq)]
pub struct FlatParam {
    /// Provider-valid parameter name (`dry_run`), used on the wire.
    pub name: String,
    /// The name as declared (`dry-run`).
    pub declared_name: String,
    /// Where it is declared, e.g. `$.commands.pr.options[0]`.
    pub json_path: JsonPath,
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
    pub default: Option<Value>,
    /// Environment variable that overrides the option.
    pub env_var: Option<String>,
    /// Positional argument or option.
    pub kind: ParamKind,
}

/// Whether a parameter is positional or flagged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamKind {
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
    /// The option's flag, `None` for an argument.
    pub fn flag(&self) -> Option<&Flag> {
        match &self.kind {
            ParamKind::Option { flag, .. } => Some(flag),
            ParamKind::Argument => None,
        }
    }

    /// Whether this is a global option.
    pub fn is_global(&self) -> bool {
        matches!(
            self.kind,
            ParamKind::Option {
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
pub fn flatten(tool: &AtipTool, options: &FlattenOptions) -> Result<Flattened, Vec<Diagnostic>> {
    let mut w = Walker {
        tool,
        filter: None,
        out: Vec::new(),
        names: HashMap::new(),
        diags: Vec::new(),
        shadow_seen: HashSet::new(),
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

    let root = JsonPath::root();
    let globals = w.params_of_level(
        &[],
        &tool.global_options,
        &root.key("globalOptions"),
        OptionScope::Global,
    );
    let mut levels = vec![globals];
    let tool_effects = tool.effects.clone().unwrap_or_default();
    let mut visible = Vec::new();
    let commands_path = root.key("commands");
    for (name, cmd) in &tool.commands {
        w.walk(
            name,
            cmd,
            &mut visible,
            commands_path.key(name),
            &mut levels,
            &tool_effects,
        );
    }

    if let Some(filter) = &w.filter {
        for (entry, segs, hit) in filter {
            if !hit && !segs.is_empty() {
                w.diags.push(Diagnostic::error(
                    JsonPath::root().key("commands"),
                    format!(
                        "command filter entry {entry:?} matches no command of `{}`",
                        tool.name
                    ),
                ));
            }
        }
    }

    if w.diags.iter().any(Diagnostic::is_error) {
        Err(w.diags)
    } else {
        Ok(Flattened {
            commands: w.out,
            warnings: w.diags,
        })
    }
}

struct Walker<'a> {
    tool: &'a AtipTool,
    /// (entry as given, its segments, whether it matched a command)
    filter: Option<Vec<(String, Vec<String>, bool)>>,
    out: Vec<FlatCommand>,
    names: HashMap<String, JsonPath>,
    diags: Vec<Diagnostic>,
    /// Shadowed options already reported (each is reported once, with its first shadower).
    shadow_seen: HashSet<JsonPath>,
}

impl Walker<'_> {
    fn walk(
        &mut self,
        name: &str,
        cmd: &CommandSpec,
        visible: &mut Vec<String>,
        json: JsonPath,
        levels: &mut Vec<Vec<FlatParam>>,
        effects: &Effects,
    ) {
        let pushed = !name.is_empty();
        if pushed {
            visible.push(name.to_owned());
        }
        if self.wanted_subtree(visible) {
            let merged = match &cmd.effects {
                Some(own) => effects.merged_with(own),
                None => effects.clone(),
            };
            let own_options = self.params_of_level(
                &cmd.arguments,
                &cmd.options,
                &json.key("options"),
                OptionScope::Own,
            );
            if cmd.commands.is_empty() {
                self.leaf(cmd, visible, json, levels, own_options, merged);
            } else {
                if !cmd.arguments.is_empty() {
                    self.diags.push(Diagnostic::warning(
                        json.key("arguments"),
                        "arguments declared on a command that has subcommands are ignored: \
                         declare them on the subcommands (or on a \"\" child for the command itself)",
                    ));
                }
                let inherited = own_options
                    .into_iter()
                    .map(|mut p| {
                        if let ParamKind::Option { scope, .. } = &mut p.kind {
                            *scope = OptionScope::Inherited;
                        }
                        p
                    })
                    .collect();
                levels.push(inherited);
                let children = json.key("commands");
                for (child_name, child) in &cmd.commands {
                    self.walk(
                        child_name,
                        child,
                        visible,
                        children.key(child_name),
                        levels,
                        &merged,
                    );
                }
                levels.pop();
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
        cmd: &CommandSpec,
        visible: &[String],
        json: JsonPath,
        levels: &[Vec<FlatParam>],
        own_options: Vec<FlatParam>,
        effects: Effects,
    ) {
        if !self.wanted_leaf(visible) {
            return;
        }
        let name = names::tool_name(&self.tool.name, visible);
        if let Some(first) = self.names.get(&name) {
            self.diags.push(Diagnostic::error(
                json.clone(),
                format!(
                    "flattened tool name `{name}` is also the name of the command at {first}; \
                     rename one of the two commands"
                ),
            ));
            return;
        }
        self.names.insert(name.clone(), json.clone());

        let arguments: Vec<FlatParam> = cmd
            .arguments
            .iter()
            .enumerate()
            .filter_map(|(i, a)| self.argument(a, json.key("arguments").index(i)))
            .collect();

        // Innermost level first: the first occurrence of a name wins, later ones are shadowed.
        let mut taken: HashMap<String, JsonPath> = arguments
            .iter()
            .map(|a| (a.name.clone(), a.json_path.clone()))
            .collect();
        let mut kept_levels: Vec<Vec<FlatParam>> = Vec::new();
        for level in std::iter::once(&own_options).chain(levels.iter().rev()) {
            let mut kept = Vec::new();
            for p in level {
                if let Some(winner) = taken.get(&p.name) {
                    if *winner != p.json_path && self.shadow_seen.insert(p.json_path.clone()) {
                        self.diags.push(Diagnostic::warning(
                            p.json_path.clone(),
                            format!(
                                "option `{}` is shadowed by the parameter of the same name at {winner}",
                                p.declared_name
                            ),
                        ));
                    }
                    continue;
                }
                taken.insert(p.name.clone(), p.json_path.clone());
                kept.push(p.clone());
            }
            kept_levels.push(kept);
        }
        let options = kept_levels.into_iter().rev().flatten().collect();

        self.out.push(FlatCommand {
            name,
            path: visible.to_vec(),
            json_path: json,
            description: cmd.description.clone(),
            arguments,
            options,
            effects,
            examples: cmd.examples.clone(),
        });
    }

    /// Converts the options of one level and reports name collisions inside the level
    /// (between its options, and between its options and its arguments).
    fn params_of_level(
        &mut self,
        arguments: &[ArgumentSpec],
        options: &[OptionSpec],
        options_path: &JsonPath,
        scope: OptionScope,
    ) -> Vec<FlatParam> {
        let args_path = options_path_sibling(options_path, "arguments");
        let mut seen: HashMap<String, (JsonPath, String)> = HashMap::new();
        for (i, a) in arguments.iter().enumerate() {
            let pname = names::param_name(&a.name);
            let path = args_path.index(i);
            if let Some((first, first_name)) = seen.get(&pname) {
                self.diags
                    .push(collision(&path, &a.name, &pname, first, first_name));
            } else {
                seen.insert(pname, (path, a.name.clone()));
            }
        }
        let mut out = Vec::new();
        for (i, o) in options.iter().enumerate() {
            let path = options_path.index(i);
            let pname = names::param_name(&o.name);
            if let Some((first, first_name)) = seen.get(&pname) {
                self.diags
                    .push(collision(&path, &o.name, &pname, first, first_name));
                continue;
            }
            seen.insert(pname, (path.clone(), o.name.clone()));
            if let Some(p) = self.option(o, path, scope) {
                out.push(p);
            }
        }
        out
    }

    fn argument(&mut self, a: &ArgumentSpec, path: JsonPath) -> Option<FlatParam> {
        let (enum_values, listed_values) = self.values(a.ty, a.enum_values.as_deref(), &path);
        let multiple = self.multiple(a.ty, a.variadic, &path);
        Some(FlatParam {
            name: names::param_name(&a.name),
            declared_name: a.name.clone(),
            json_path: path,
            description: a.description.clone(),
            ty: a.ty,
            enum_values,
            listed_values,
            required: a.is_required(),
            multiple,
            default: a.default.clone(),
            env_var: None,
            kind: ParamKind::Argument,
        })
    }

    fn option(&mut self, o: &OptionSpec, path: JsonPath, scope: OptionScope) -> Option<FlatParam> {
        let flag = self.pick_flag(&o.flags, &path)?;
        let (enum_values, listed_values) = self.values(o.ty, o.enum_values.as_deref(), &path);
        let multiple = self.multiple(o.ty, o.variadic, &path);
        Some(FlatParam {
            name: names::param_name(&o.name),
            declared_name: o.name.clone(),
            json_path: path,
            description: o.description.clone(),
            ty: o.ty,
            enum_values,
            listed_values,
            required: o.is_required(),
            multiple,
            default: o.default.clone(),
            env_var: o.env_var.clone(),
            kind: ParamKind::Option { flag, scope },
        })
    }

    fn pick_flag(&mut self, flags: &[String], path: &JsonPath) -> Option<Flag> {
        for (i, f) in flags.iter().enumerate() {
            let usable = f.len() >= 2
                && f.starts_with('-')
                && f != "--"
                && !f
                    .chars()
                    .any(|c| c == '=' || c.is_whitespace() || c.is_control());
            if !usable {
                self.diags.push(Diagnostic::error(
                    path.key("flags").index(i),
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
        path: &JsonPath,
    ) -> (Option<Vec<String>>, Vec<String>) {
        let mut texts: Vec<String> = Vec::new();
        for v in list.unwrap_or_default() {
            let t = v.as_text();
            if texts.contains(&t) {
                self.diags.push(Diagnostic::warning(
                    path.key("enum"),
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
                    path.clone(),
                    "type `enum` without an `enum` list: any string is accepted",
                ));
                (None, Vec::new())
            }
            _ => (None, texts),
        }
    }

    fn multiple(&mut self, ty: ParamType, variadic: Option<bool>, path: &JsonPath) -> bool {
        match (ty, variadic == Some(true)) {
            (ParamType::Boolean, true) => {
                self.diags.push(Diagnostic::warning(
                    path.key("variadic"),
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
    path: &JsonPath,
    name: &str,
    pname: &str,
    first: &JsonPath,
    first_name: &str,
) -> Diagnostic {
    Diagnostic::error(
        path.clone(),
        format!(
            "parameter `{name}` and `{first_name}` at {first} both become the parameter name \
             `{pname}`; rename one of them"
        ),
    )
}

/// `$.x.options` → `$.x.arguments` (the sibling member of the same command).
fn options_path_sibling(options_path: &JsonPath, member: &str) -> JsonPath {
    let mut p = options_path.clone();
    p.0.pop();
    p.key(member)
}
