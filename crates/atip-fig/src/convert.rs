//! The mapping of a Fig spec (as JSON, `loadSpec`s already followed) to an ATIP 0.6 document.
//!
//! | Fig | ATIP |
//! |---|---|
//! | spec `name` | `name` (must match `^[a-zA-Z0-9_-]+$`, else [`ConvertError::ToolName`]) |
//! | `subcommands[].name` (string or list) | the command key is the first name; the others go to `x-atip-rust.aliases` |
//! | `options[].name` (string or list) | `flags` (only `-x`, `--name` and `-name` forms; others are dropped with a warning); the option's `name` is its first long flag without dashes, else its first flag |
//! | option without `args` | `type: boolean` |
//! | option `args` (one, or the first when the rest are optional) | `template: filepaths` → `file`, `folders` → `directory` (both → `file`), else `string` |
//! | `isRepeatable` on an option with a value | `variadic: true` (the flag is repeated per value) |
//! | `isRequired` | `required: true` |
//! | `requiresSeparator` / `requiresEquals` (`true` or `"="`) | kept: the runtime writes long flags joined, `--flag=value`; with only short flags, or another separator (`":"`), the option cannot be written and is dropped with a warning |
//! | `isPersistent` on a group's option | the option is declared on the group, so every command below inherits it |
//! | options of the root when it has subcommands | `globalOptions` (Fig offers them before the subcommand, which is where ATIP writes global options) |
//! | non-persistent options and `args` of a group | a `""` child standing for the group itself, unless the group has `requiresSubcommand` or declares nothing but help flags |
//! | `exclusiveOn`, `dependsOn` | `x-atip-rust.exclusiveOn` / `x-atip-rust.dependsOn`, and a sentence in the description |
//! | `hidden` commands and options | dropped (counted) |
//! | positional `args` | `arguments`: `isOptional` → `required: false`, `isVariadic` → `variadic: true`, `isCommand` → a variadic `command` |
//! | `suggestions` | listed in the description, never an `enum`: Fig suggestions are hints, not a closed list, so a value outside them may be valid |
//! | `default` of an argument | `default` |
//! | `generators`, `generateSpec`, `loadSpec` functions | ignored (they run programs to complete values); counted in [`Stats`] |
//! | `isDangerous` and command names | `effects`, by [`crate::effects`] |
//!
//! Names are made to flatten cleanly (one tool per command, named `{tool}_{path…}`, and
//! provider-valid parameter names, unique within a command): a sibling whose name repeats an
//! earlier one is dropped, so is a command whose flattened tool name another command already
//! has; an option that repeats an earlier one of the same command, or an inherited one with
//! the same flags, is kept once; parameters whose provider-valid names would clash are renamed
//! (arguments first, as their names never reach the command line). Each of these is a
//! [`Warning`].

use std::collections::{HashMap, HashSet};
use std::fmt;

use atip_core::names::{param_name, tool_name};
use serde_json::{json, Map, Value};

use crate::effects::{self, Evidence};
use crate::engine::FUNCTION_MARKER;

/// Where an import came from: `x-atip-rust.generator` of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generator {
    /// The npm package (`@withfig/autocomplete`).
    pub package: String,
    /// Its version (`2.692.3`).
    pub version: String,
    /// The spec module the document was made from, relative to the package's build
    /// directory (`gh.js`, `az/2.53.0.js`).
    pub spec: String,
    /// The package's licence (`ISC`), kept with the document as attribution.
    pub license: Option<String>,
    /// The package's copyright line, kept with the document as attribution.
    pub copyright: Option<String>,
}

/// Something the conversion changed, dropped or could not express.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where, as a Fig command line (`gh pr create --repo`).
    pub at: String,
    /// What happened.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// Counts of one conversion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Commands written that run (leaves and `""` commands): the tools a model sees.
    pub commands: usize,
    /// `generators` found (argument values computed by running programs), ignored.
    pub generators: usize,
    /// `generateSpec` found (specs computed by running programs), ignored.
    pub generate_specs: usize,
    /// `loadSpec` references followed into another module of the package.
    pub load_specs_followed: usize,
    /// `loadSpec` references not followed: functions, references on arguments or suggestions,
    /// references back to a module being loaded, and modules that failed.
    pub load_specs_ignored: usize,
    /// Hidden commands and options dropped.
    pub hidden: usize,
    /// Commands declared `destructive: true`.
    pub destructive: usize,
    /// Commands declared `destructive: false` (read-only verbs).
    pub read_only: usize,
}

impl Stats {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &Stats) {
        self.commands += other.commands;
        self.generators += other.generators;
        self.generate_specs += other.generate_specs;
        self.load_specs_followed += other.load_specs_followed;
        self.load_specs_ignored += other.load_specs_ignored;
        self.hidden += other.hidden;
        self.destructive += other.destructive;
        self.read_only += other.read_only;
    }
}

/// Why a spec could not be converted at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConvertError {
    /// The spec is not an object with a `name`.
    NotASpec(String),
    /// The tool's name is not allowed by the ATIP schema (`^[a-zA-Z0-9_-]+$`).
    ToolName(String),
    /// More runnable commands than the limit.
    TooManyCommands {
        /// The limit.
        limit: usize,
    },
    /// No command is left to run.
    NoCommands,
}

impl ConvertError {
    /// A short category for summaries.
    pub fn category(&self) -> &'static str {
        match self {
            ConvertError::NotASpec(_) => "not-a-spec",
            ConvertError::ToolName(_) => "tool-name",
            ConvertError::TooManyCommands { .. } => "too-many-commands",
            ConvertError::NoCommands => "no-commands",
        }
    }
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConvertError::NotASpec(why) => write!(f, "not a Fig spec: {why}"),
            ConvertError::ToolName(name) => write!(
                f,
                "tool name {name:?} is not allowed by the ATIP schema (^[a-zA-Z0-9_-]+$)"
            ),
            ConvertError::TooManyCommands { limit } => {
                write!(f, "more than {limit} commands (the import limit)")
            }
            ConvertError::NoCommands => write!(f, "no command is left after conversion"),
        }
    }
}

impl std::error::Error for ConvertError {}

/// A converted document.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The ATIP 0.6 document.
    pub document: Value,
    /// What was changed or dropped.
    pub warnings: Vec<Warning>,
    /// Counts.
    pub stats: Stats,
}

/// Longest root description kept (the schema's limit), in characters.
pub const MAX_TOOL_DESCRIPTION: usize = 200;

/// Suggested values listed in a description, at most.
const MAX_SUGGESTIONS: usize = 12;

/// Converts a Fig spec (its `loadSpec`s already followed) into an ATIP 0.6 document, with
/// `trust.source: "inferred"` and `x-atip-rust.generator` from `generator`. The tool is named
/// `command` when given (Fig names a spec's module after the command it completes, while its
/// `name` is sometimes a package name such as `@forge/cli`), else by the spec's `name`. At most
/// `max_commands` runnable commands are written.
///
/// # Errors
///
/// [`ConvertError`]: not a spec, a tool name the schema refuses, too many commands, or none.
pub fn convert(
    spec: &Value,
    generator: &Generator,
    command: Option<&str>,
    max_commands: usize,
) -> Result<Converted, ConvertError> {
    let root = spec
        .as_object()
        .ok_or_else(|| ConvertError::NotASpec("the default export is not an object".into()))?;
    let declared = first_name(root.get("name"))
        .ok_or_else(|| ConvertError::NotASpec("it has no name".into()))?;
    let tool = command.unwrap_or(&declared).to_owned();
    if !is_tool_name(&tool) {
        return Err(ConvertError::ToolName(tool));
    }
    let mut w = Walk {
        tool: tool.clone(),
        warnings: Vec::new(),
        stats: Stats::default(),
        flat: HashMap::new(),
        max_commands,
        over_limit: false,
        inherited_repeats: 0,
    };
    if declared != tool {
        w.warn(
            &tool,
            format!("the spec calls the tool {declared:?}; the command it completes is `{tool}`"),
        );
    }
    count_dynamic(spec, &mut w.stats);
    let children = w.children(root, &tool);
    let options = w.options(root, &tool);
    let args = w.arguments(root, &tool);
    let root_evidence = Evidence {
        dangerous_command: is_true(root.get("isDangerous")),
        dangerous_parameters: Vec::new(),
        runs_command: false,
    };
    let mut doc = Map::new();
    doc.insert("atip".into(), json!({"version": "0.6"}));
    doc.insert("name".into(), json!(tool));
    doc.insert("version".into(), json!("unknown"));
    doc.insert(
        "description".into(),
        json!(truncate(
            &description(root, &format!("The {tool} command-line tool")),
            MAX_TOOL_DESCRIPTION
        )),
    );
    doc.insert(
        "trust".into(),
        json!({"source": "inferred", "verified": false}),
    );
    let mut commands = Map::new();
    let mut globals = Vec::new();
    let mut root_destructive = false;
    if children.is_empty() {
        // A single-command tool: the tool itself is the `""` command.
        let names = [tool.as_str()];
        if let Some(cmd) = w.runnable(root, &names, &[], options, args, &Scope::default(), false) {
            commands.insert(String::new(), cmd);
        }
    } else {
        // Options before the subcommand are global options.
        let mut scope = Scope::default();
        let (_, opts, dangerous) = w.level(Vec::new(), options, &scope, &tool);
        scope.add(&opts);
        globals = opts;
        let evidence = Evidence {
            dangerous_parameters: dangerous,
            ..root_evidence.clone()
        };
        let inferred = effects::infer(&[], &evidence, false);
        if let Some(e) = inferred.to_json(false) {
            root_destructive = inferred.destructive == Some(true);
            doc.insert("effects".into(), e);
        }
        if !args.is_empty() && !is_true(root.get("requiresSubcommand")) {
            let names = [tool.as_str()];
            if let Some(cmd) = w.runnable(
                root,
                &names,
                &[],
                Vec::new(),
                args,
                &scope,
                root_destructive,
            ) {
                commands.insert(String::new(), cmd);
            }
        }
        for child in children {
            if let Some(cmd) = w.command(&child, &[], &scope, root_destructive) {
                commands.insert(child.name.clone(), cmd);
            }
        }
    }
    if w.inherited_repeats > 0 {
        let n = w.inherited_repeats;
        w.warn(
            &tool,
            format!("{n} option(s) of subcommands repeat an option inherited from an enclosing command: each is kept once, on the enclosing command"),
        );
    }
    if w.over_limit {
        return Err(ConvertError::TooManyCommands {
            limit: max_commands,
        });
    }
    if commands.is_empty() {
        return Err(ConvertError::NoCommands);
    }
    if !globals.is_empty() {
        doc.insert(
            "globalOptions".into(),
            Value::Array(globals.into_iter().map(|o| o.json).collect()),
        );
    }
    doc.insert("commands".into(), Value::Object(commands));
    let mut provenance = json!({
        "source": "fig",
        "package": generator.package,
        "version": generator.version,
        "spec": generator.spec,
    });
    if let Some(l) = &generator.license {
        provenance["license"] = json!(l);
    }
    if let Some(c) = &generator.copyright {
        provenance["copyright"] = json!(c);
    }
    doc.insert("x-atip-rust".into(), json!({ "generator": provenance }));
    Ok(Converted {
        document: Value::Object(doc),
        warnings: w.warnings,
        stats: w.stats,
    })
}

/// A subcommand, parsed: its names and its Fig object.
struct Child<'a> {
    name: String,
    aliases: Vec<String>,
    fig: &'a Map<String, Value>,
}

/// A converted option, with what later levels need to know about it.
#[derive(Clone)]
struct Opt {
    pname: String,
    flags: Vec<String>,
    takes_value: bool,
    json: Value,
}

/// Options visible from enclosing levels (global and persistent ones).
#[derive(Default, Clone)]
struct Scope {
    names: HashSet<String>,
    shapes: HashSet<(Vec<String>, bool)>,
}

impl Scope {
    fn add(&mut self, opts: &[Opt]) {
        for o in opts {
            self.names.insert(o.pname.clone());
            self.shapes.insert((sorted(&o.flags), o.takes_value));
        }
    }
}

/// A Fig option, parsed but not yet named.
struct FigOption {
    flags: Vec<String>,
    persistent: bool,
    dangerous: bool,
    json: Map<String, Value>,
    takes_value: bool,
}

struct Walk {
    tool: String,
    warnings: Vec<Warning>,
    stats: Stats,
    /// Flattened tool name → the Fig command line that has it.
    flat: HashMap<String, String>,
    max_commands: usize,
    over_limit: bool,
    /// Options dropped because an enclosing command declares the same one.
    inherited_repeats: usize,
}

impl Walk {
    fn warn(&mut self, at: &str, message: impl Into<String>) {
        self.warnings.push(Warning {
            at: at.into(),
            message: message.into(),
        });
    }

    /// The visible subcommands of `fig`: hidden ones, unusable names and repeated names dropped.
    fn children<'a>(&mut self, fig: &'a Map<String, Value>, at: &str) -> Vec<Child<'a>> {
        let Some(list) = fig.get("subcommands") else {
            return Vec::new();
        };
        let items: Vec<&Value> = match list {
            Value::Array(a) => a.iter().collect(),
            Value::Object(_) => vec![list],
            _ => {
                self.warn(at, "`subcommands` is not a list: ignored");
                return Vec::new();
            }
        };
        let mut out: Vec<Child<'a>> = Vec::new();
        for item in items {
            let Some(obj) = item.as_object() else {
                self.warn(
                    at,
                    format!("a subcommand is not an object ({item}): dropped"),
                );
                continue;
            };
            if is_true(obj.get("hidden")) {
                self.stats.hidden += 1;
                continue;
            }
            let names = all_names(obj.get("name"));
            let Some(name) = names.first().cloned() else {
                self.warn(at, "a subcommand without a name: dropped");
                continue;
            };
            if !usable_command_name(&name) {
                self.warn(
                    at,
                    format!("subcommand {name:?} cannot be passed as one argument: dropped"),
                );
                continue;
            }
            if let Some(first) = out.iter().find(|c| c.name == name) {
                let what = if Value::Object(first.fig.clone()) == *item {
                    "repeats an identical one: kept once".to_owned()
                } else {
                    format!(
                        "is declared twice: the first is kept, the second ({} options, {} subcommands) is dropped",
                        len_of(obj.get("options")),
                        len_of(obj.get("subcommands"))
                    )
                };
                self.warn(
                    &format!("{at} {name}"),
                    format!("subcommand {name:?} {what}"),
                );
                continue;
            }
            let aliases = names[1..]
                .iter()
                .filter(|a| usable_command_name(a) && **a != name)
                .cloned()
                .collect();
            out.push(Child {
                name,
                aliases,
                fig: obj,
            });
        }
        out
    }

    /// The usable options of `fig`, parsed.
    fn options(&mut self, fig: &Map<String, Value>, at: &str) -> Vec<FigOption> {
        let mut out = Vec::new();
        for item in list_of(fig.get("options")) {
            let Some(obj) = item.as_object() else {
                self.warn(at, format!("an option is not an object ({item}): dropped"));
                continue;
            };
            if is_true(obj.get("hidden")) {
                self.stats.hidden += 1;
                continue;
            }
            let names = all_names(obj.get("name"));
            if names.iter().all(|n| n == "--" || n == "-") {
                // Fig's marker for "end of options" (or stdin): not an option.
                continue;
            }
            let label = names.join("/");
            let flags: Vec<String> = names.iter().filter(|n| usable_flag(n)).cloned().collect();
            if flags.is_empty() {
                self.warn(
                    at,
                    format!(
                        "option {label:?} has no flag that can be passed (`-x`, `--name`): dropped"
                    ),
                );
                continue;
            }
            if flags.len() < names.len() {
                let bad: Vec<&String> = names.iter().filter(|n| !usable_flag(n)).collect();
                self.warn(
                    &format!("{at} {label}"),
                    format!("flags {bad:?} cannot be passed and are left out"),
                );
            }
            let args = list_of(obj.get("args"));
            let takes_value = !args.is_empty();
            if args.len() > 1 && args[1..].iter().any(|a| !is_true(a.get("isOptional"))) {
                self.warn(
                    &format!("{at} {label}"),
                    format!(
                        "takes {} values after the flag; an ATIP option takes one: dropped",
                        args.len()
                    ),
                );
                continue;
            }
            let separator = obj
                .get("requiresSeparator")
                .or_else(|| obj.get("requiresEquals"));
            if takes_value {
                match separator {
                    Some(Value::String(s)) if s != "=" => {
                        self.warn(
                            &format!("{at} {label}"),
                            format!("needs the separator {s:?} between flag and value, which ATIP argv cannot write: dropped"),
                        );
                        continue;
                    }
                    Some(Value::Bool(true)) | Some(Value::String(_))
                        if !flags.iter().any(|f| f.starts_with("--")) =>
                    {
                        self.warn(
                            &format!("{at} {label}"),
                            "needs `-x=value`, but short flags are written `-x value`: dropped",
                        );
                        continue;
                    }
                    _ => {}
                }
            }
            out.push(FigOption {
                flags,
                persistent: is_true(obj.get("isPersistent")),
                dangerous: is_true(obj.get("isDangerous")),
                json: obj.clone(),
                takes_value,
            });
        }
        out
    }

    /// The positional arguments of `fig` (objects only).
    fn arguments<'a>(
        &mut self,
        fig: &'a Map<String, Value>,
        at: &str,
    ) -> Vec<&'a Map<String, Value>> {
        let mut out = Vec::new();
        for item in list_of(fig.get("args")) {
            match item.as_object() {
                Some(o) => out.push(o),
                None => self.warn(
                    at,
                    format!("an argument is not an object ({item}): dropped"),
                ),
            }
        }
        out
    }

    /// Converts the subcommand `child` under `parents` (visible names from the root).
    fn command(
        &mut self,
        child: &Child<'_>,
        parents: &[String],
        scope: &Scope,
        inherited_destructive: bool,
    ) -> Option<Value> {
        let mut path = parents.to_vec();
        path.push(child.name.clone());
        let at = format!("{} {}", self.tool, path.join(" "));
        let fig = child.fig;
        let mut names: Vec<&str> = vec![child.name.as_str()];
        names.extend(child.aliases.iter().map(String::as_str));
        let options = self.options(fig, &at);
        let args = self.arguments(fig, &at);
        let children = self.children(fig, &at);
        if children.is_empty() {
            let mut cmd = self.runnable(
                fig,
                &names,
                &path,
                options,
                args,
                scope,
                inherited_destructive,
            )?;
            self.aliases(&mut cmd, child);
            return Some(cmd);
        }
        // A group: persistent options are declared on it, the rest belong to a `""` child.
        let (persistent, own): (Vec<FigOption>, Vec<FigOption>) =
            options.into_iter().partition(|o| o.persistent);
        let (_, group_options, dangerous) = self.level(Vec::new(), persistent, scope, &at);
        let mut inner = scope.clone();
        inner.add(&group_options);
        let evidence = Evidence {
            dangerous_command: is_true(fig.get("isDangerous")),
            dangerous_parameters: dangerous,
            runs_command: false,
        };
        let inferred = effects::infer(&names, &evidence, false);
        let group_destructive = inherited_destructive || inferred.destructive == Some(true);
        let mut commands = Map::new();
        let wants_self = !is_true(fig.get("requiresSubcommand"))
            && (!args.is_empty() || own.iter().any(|o| !is_help(&o.flags)));
        if wants_self {
            if let Some(cmd) =
                self.runnable(fig, &names, &path, own, args, &inner, group_destructive)
            {
                commands.insert(String::new(), cmd);
            }
        }
        for c in children {
            if let Some(cmd) = self.command(&c, &path, &inner, group_destructive) {
                commands.insert(c.name.clone(), cmd);
            }
        }
        if commands.is_empty() {
            self.warn(&at, "no subcommand is left: the group is dropped");
            return None;
        }
        let mut cmd = Map::new();
        cmd.insert(
            "description".into(),
            json!(with_note(
                &description(fig, &format!("`{at}`")),
                inferred.note.as_deref()
            )),
        );
        if !group_options.is_empty() {
            cmd.insert(
                "options".into(),
                Value::Array(group_options.into_iter().map(|o| o.json).collect()),
            );
        }
        cmd.insert("commands".into(), Value::Object(commands));
        if let Some(e) = inferred.to_json(inherited_destructive) {
            cmd.insert("effects".into(), e);
        }
        let mut cmd = Value::Object(cmd);
        self.aliases(&mut cmd, child);
        Some(cmd)
    }

    fn aliases(&self, cmd: &mut Value, child: &Child<'_>) {
        if !child.aliases.is_empty() {
            cmd["x-atip-rust"] = json!({ "aliases": child.aliases });
        }
    }

    /// A command that runs: a leaf, the `""` child of a group, or the root of a tool without
    /// subcommands. `names` are the names its verb is judged by; `path` the visible names from
    /// the root (the group's own path for a `""` child).
    #[allow(clippy::too_many_arguments)]
    fn runnable(
        &mut self,
        fig: &Map<String, Value>,
        names: &[&str],
        path: &[String],
        options: Vec<FigOption>,
        args: Vec<&Map<String, Value>>,
        scope: &Scope,
        inherited_destructive: bool,
    ) -> Option<Value> {
        let at = if path.is_empty() {
            self.tool.clone()
        } else {
            format!("{} {}", self.tool, path.join(" "))
        };
        let flat = tool_name(&self.tool, path);
        if let Some(other) = self.flat.get(&flat) {
            let message = format!(
                "its tool name `{flat}` is already the name of `{other}`: the command is dropped"
            );
            self.warn(&at, message);
            return None;
        }
        if self.stats.commands >= self.max_commands {
            self.over_limit = true;
            return None;
        }
        let runs_command = args.iter().any(|a| is_true(a.get("isCommand")));
        let dangerous_args: Vec<String> = args
            .iter()
            .filter(|a| is_true(a.get("isDangerous")))
            .map(|a| arg_label(a))
            .collect();
        let (arguments, opts, dangerous) = self.level(args, options, scope, &at);
        // Dangerous options of enclosing groups made those groups destructive already, which
        // the merge of effects passes down.
        let mut dangerous_parameters = dangerous;
        dangerous_parameters.extend(dangerous_args);
        let evidence = Evidence {
            dangerous_command: is_true(fig.get("isDangerous")),
            dangerous_parameters,
            runs_command,
        };
        let inferred = effects::infer(names, &evidence, true);
        let mut cmd = Map::new();
        cmd.insert(
            "description".into(),
            json!(with_note(
                &description(fig, &format!("`{at}`")),
                inferred.note.as_deref()
            )),
        );
        if !arguments.is_empty() {
            cmd.insert("arguments".into(), Value::Array(arguments));
        }
        if !opts.is_empty() {
            cmd.insert(
                "options".into(),
                Value::Array(opts.into_iter().map(|o| o.json).collect()),
            );
        }
        if let Some(e) = inferred.to_json(inherited_destructive) {
            cmd.insert("effects".into(), e);
        }
        match inferred.destructive {
            Some(true) => self.stats.destructive += 1,
            Some(false) if !inherited_destructive => self.stats.read_only += 1,
            _ if inherited_destructive => self.stats.destructive += 1,
            _ => {}
        }
        self.stats.commands += 1;
        self.flat.insert(flat, at);
        Some(Value::Object(cmd))
    }

    /// Names and converts one level's arguments and options against `scope`. Returns the
    /// arguments, the options and the flags of dangerous options.
    fn level(
        &mut self,
        args: Vec<&Map<String, Value>>,
        options: Vec<FigOption>,
        scope: &Scope,
        at: &str,
    ) -> (Vec<Value>, Vec<Opt>, Vec<String>) {
        let mut taken: HashSet<String> = HashSet::new();
        let mut shapes: HashSet<Vec<String>> = HashSet::new();
        let mut opts: Vec<Opt> = Vec::new();
        let mut dangerous = Vec::new();
        let mut redundant = 0usize;
        for o in options {
            let shape = sorted(&o.flags);
            if scope.shapes.contains(&(shape.clone(), o.takes_value)) {
                // The same option is inherited: the command has it already.
                redundant += 1;
                if o.dangerous {
                    dangerous.push(o.flags.join("/"));
                }
                continue;
            }
            if !shapes.insert(shape) {
                self.warn(
                    &format!("{at} {}", o.flags.join("/")),
                    "option is declared twice: kept once",
                );
                continue;
            }
            let mut candidates: Vec<&String> =
                o.flags.iter().filter(|f| f.starts_with("--")).collect();
            candidates.extend(o.flags.iter().filter(|f| !f.starts_with("--")));
            let mut chosen = None;
            for f in &candidates {
                let n = f.trim_start_matches('-').to_owned();
                let p = param_name(&n);
                if !taken.contains(&p) {
                    chosen = Some((n, p));
                    break;
                }
            }
            let (name, pname) = match chosen {
                Some(c) => c,
                None => {
                    let base = candidates[0].trim_start_matches('-').to_owned();
                    let (n, p) = unique(&base, |p| taken.contains(p));
                    self.warn(
                        &format!("{at} {}", o.flags.join("/")),
                        format!("its parameter name clashes with another option's: named {n:?}"),
                    );
                    (n, p)
                }
            };
            taken.insert(pname.clone());
            if o.dangerous {
                dangerous.push(o.flags.join("/"));
            }
            let json = self.option_json(&o, &name);
            opts.push(Opt {
                pname,
                flags: o.flags,
                takes_value: o.takes_value,
                json,
            });
        }
        self.inherited_repeats += redundant;
        let mut arguments = Vec::new();
        for a in args {
            let label = arg_label(a);
            let clash = |p: &str| taken.contains(p) || scope.names.contains(p);
            let name = if clash(&param_name(&label)) {
                let (n, _) = unique(&format!("{label}-arg"), clash);
                n
            } else {
                label
            };
            taken.insert(param_name(&name));
            arguments.push(self.argument_json(a, &name));
        }
        (arguments, opts, dangerous)
    }

    fn option_json(&mut self, o: &FigOption, name: &str) -> Value {
        let fig = &o.json;
        let args = list_of(fig.get("args"));
        let first = args.first().and_then(|a| a.as_object());
        let mut out = Map::new();
        out.insert("name".into(), json!(name));
        out.insert("flags".into(), json!(o.flags));
        let ty = match first {
            None => "boolean",
            Some(a) => value_type(a),
        };
        out.insert("type".into(), json!(ty));
        let mut text = description(fig, &format!("The {} option", o.flags.join("/")));
        if let Some(a) = first {
            add_suggestions(&mut text, a);
        }
        let mut ext = Map::new();
        for (key, words) in [("exclusiveOn", "Not with"), ("dependsOn", "Requires")] {
            let list: Vec<String> = list_of(fig.get(key))
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            if !list.is_empty() {
                text.push_str(&format!(" {words} {}.", list.join(", ")));
                ext.insert(key.into(), json!(list));
            }
        }
        if o.dangerous {
            text.push_str(" [dangerous]");
        }
        out.insert("description".into(), json!(text));
        if is_true(fig.get("isRequired")) {
            out.insert("required".into(), json!(true));
        }
        if let Some(d) = first.and_then(default_of) {
            out.insert("default".into(), d);
        }
        let repeatable = matches!(fig.get("isRepeatable"), Some(Value::Bool(true)))
            || fig
                .get("isRepeatable")
                .and_then(Value::as_u64)
                .is_some_and(|n| n > 1);
        if repeatable && o.takes_value {
            out.insert("variadic".into(), json!(true));
        }
        if !ext.is_empty() {
            out.insert("x-atip-rust".into(), Value::Object(ext));
        }
        Value::Object(out)
    }

    fn argument_json(&mut self, a: &Map<String, Value>, name: &str) -> Value {
        let mut out = Map::new();
        let runs = is_true(a.get("isCommand"));
        out.insert("name".into(), json!(name));
        out.insert("type".into(), json!(value_type(a)));
        let mut text = description(a, &format!("The {name} argument"));
        if runs {
            text.push_str(" (a command line to run)");
        }
        add_suggestions(&mut text, a);
        if is_true(a.get("isDangerous")) {
            text.push_str(" [dangerous]");
        }
        out.insert("description".into(), json!(text));
        if is_true(a.get("isOptional")) {
            out.insert("required".into(), json!(false));
        }
        if let Some(d) = default_of(a) {
            out.insert("default".into(), d);
        }
        if is_true(a.get("isVariadic")) || runs {
            out.insert("variadic".into(), json!(true));
        }
        Value::Object(out)
    }
}

/// Counts what is ignored because it is code: `generators`, `generateSpec`, and `loadSpec`
/// functions, anywhere in the spec.
fn count_dynamic(v: &Value, stats: &mut Stats) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match k.as_str() {
                    "generators" if !x.is_null() => stats.generators += 1,
                    "generateSpec" if !x.is_null() => stats.generate_specs += 1,
                    "loadSpec" if x.as_str() == Some(FUNCTION_MARKER) => {
                        stats.load_specs_ignored += 1
                    }
                    _ => {}
                }
                count_dynamic(x, stats);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| count_dynamic(x, stats)),
        _ => {}
    }
}

fn is_true(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Bool(true)))
}

fn list_of(v: Option<&Value>) -> Vec<&Value> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.iter().collect(),
        Some(other) => vec![other],
    }
}

fn len_of(v: Option<&Value>) -> usize {
    list_of(v).len()
}

fn all_names(v: Option<&Value>) -> Vec<String> {
    list_of(v)
        .into_iter()
        .filter_map(|n| n.as_str())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn first_name(v: Option<&Value>) -> Option<String> {
    all_names(v).into_iter().next()
}

/// A subcommand name that goes into argv as one element. Names that look like flags stay
/// (`gpg --decrypt` is how gpg spells its commands); `-` and `--` alone do not.
fn usable_command_name(name: &str) -> bool {
    !name.is_empty()
        && name != "-"
        && name != "--"
        && !name.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Whether the ATIP schema accepts `name` as a tool name (`^[a-zA-Z0-9_-]+$`).
pub fn is_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `-x`, `--name` or `-name`, without `=`, spaces or control characters.
fn usable_flag(flag: &str) -> bool {
    flag.len() >= 2
        && flag.starts_with('-')
        && flag != "--"
        && !flag.starts_with("---")
        && !flag
            .chars()
            .any(|c| c == '=' || c.is_whitespace() || c.is_control())
}

fn is_help(flags: &[String]) -> bool {
    flags
        .iter()
        .all(|f| matches!(f.as_str(), "-h" | "--help" | "-help" | "-?"))
}

fn sorted(flags: &[String]) -> Vec<String> {
    let mut v = flags.to_vec();
    v.sort();
    v
}

/// `base`, or `base-2`, `base-3`, … : the first whose parameter name is free.
fn unique(base: &str, taken: impl Fn(&str) -> bool) -> (String, String) {
    let p = param_name(base);
    if !taken(&p) {
        return (base.to_owned(), p);
    }
    (2..)
        .map(|i| format!("{base}-{i}"))
        .map(|n| {
            let p = param_name(&n);
            (n, p)
        })
        .find(|(_, p)| !taken(p))
        .unwrap_or_else(|| (base.to_owned(), p.clone()))
}

fn arg_label(a: &Map<String, Value>) -> String {
    let raw = first_name(a.get("name")).unwrap_or_default();
    let trimmed = raw
        .trim_matches(|c: char| {
            matches!(c, '<' | '>' | '[' | ']' | '.' | '\'' | '"') || c.is_whitespace()
        })
        .to_owned();
    if !trimmed.is_empty() {
        return trimmed;
    }
    if is_true(a.get("isCommand")) {
        "command".into()
    } else if is_true(a.get("isVariadic")) {
        "args".into()
    } else {
        "arg".into()
    }
}

/// ATIP type of a Fig argument: paths from `template`, otherwise a string.
fn value_type(a: &Map<String, Value>) -> &'static str {
    let templates: Vec<&str> = list_of(a.get("template"))
        .into_iter()
        .filter_map(Value::as_str)
        .collect();
    let files = templates.contains(&"filepaths");
    let folders = templates.contains(&"folders");
    match (files, folders) {
        (true, _) => "file",
        (false, true) => "directory",
        _ => "string",
    }
}

fn default_of(a: &Map<String, Value>) -> Option<Value> {
    match a.get("default") {
        Some(Value::String(s)) if s != FUNCTION_MARKER => Some(json!(s)),
        Some(v @ (Value::Number(_) | Value::Bool(_))) => Some(json!(v.to_string())),
        _ => None,
    }
}

fn add_suggestions(text: &mut String, a: &Map<String, Value>) {
    let mut values: Vec<String> = Vec::new();
    for s in list_of(a.get("suggestions")) {
        let name = match s {
            Value::String(x) => Some(x.clone()),
            Value::Object(o) if !is_true(o.get("hidden")) => first_name(o.get("name")),
            _ => None,
        };
        if let Some(n) = name.filter(|n| !n.is_empty() && n != FUNCTION_MARKER) {
            if !values.contains(&n) {
                values.push(n);
            }
        }
    }
    if values.is_empty() {
        return;
    }
    let more = values.len() > MAX_SUGGESTIONS;
    values.truncate(MAX_SUGGESTIONS);
    let ends = text.ends_with(['.', '!', '?']);
    text.push_str(if ends { " " } else { ". " });
    text.push_str("Suggested values: ");
    text.push_str(&values.join(", "));
    text.push_str(if more { ", …" } else { "." });
}

fn description(fig: &Map<String, Value>, fallback: &str) -> String {
    match fig
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
    {
        Some(d) if !d.is_empty() && d != FUNCTION_MARKER => d.to_owned(),
        _ => fallback.to_owned(),
    }
}

fn with_note(text: &str, note: Option<&str>) -> String {
    match note {
        Some(n) => format!("{text} [{n}]"),
        None => text.to_owned(),
    }
}

/// At most `max` characters, cut at a character boundary with `…` at the end.
fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use atip_core::{Document, FlattenOptions, LoadOptions};

    fn generator() -> Generator {
        Generator {
            package: "@withfig/autocomplete".into(),
            version: "2.692.3".into(),
            spec: "t.js".into(),
            license: None,
            copyright: None,
        }
    }

    fn conv(spec: Value) -> Converted {
        convert(&spec, &generator(), None, 1000).unwrap()
    }

    fn load(doc: &Value) -> Document {
        Document::parse(
            &doc.to_string(),
            &LoadOptions::strict(),
            &FlattenOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}\n{doc:#}"))
    }

    #[test]
    fn a_single_command_tool_becomes_the_empty_command() {
        let c = conv(json!({
            "name": "wc", "description": "Count",
            "options": [{"name": "-l", "description": "Lines"}],
            "args": {"name": "file", "template": "filepaths", "isOptional": true, "isVariadic": true}
        }));
        let doc = load(&c.document);
        assert_eq!(doc.commands.len(), 1);
        let cmd = &doc.commands[0];
        assert_eq!(cmd.name, "wc");
        let file = &c.document["commands"][""]["arguments"][0];
        assert_eq!(file["type"], "file");
        assert_eq!(file["required"], false);
        assert_eq!(file["variadic"], true);
        assert_eq!(c.document["commands"][""]["options"][0]["type"], "boolean");
        assert_eq!(
            c.document["trust"],
            json!({"source": "inferred", "verified": false})
        );
        assert_eq!(
            c.document["x-atip-rust"]["generator"],
            json!({"source": "fig", "package": "@withfig/autocomplete", "version": "2.692.3", "spec": "t.js"})
        );
    }

    #[test]
    fn names_aliases_types_and_repeats() {
        let c = conv(json!({
            "name": "t", "description": "T",
            "subcommands": [{
                "name": ["remove", "rm"], "description": "Remove things",
                "options": [
                    {"name": ["-o", "--output"], "args": {"name": "dir", "template": "folders"}, "isRequired": true},
                    {"name": "--label", "args": {"name": "l"}, "isRepeatable": true, "requiresSeparator": true},
                    {"name": "--secret", "hidden": true},
                    {"name": "--a", "exclusiveOn": ["--b"], "dependsOn": ["--c"]}
                ],
                "args": [{"name": "<name>", "suggestions": ["x", {"name": "y"}]}]
            }]
        }));
        load(&c.document);
        let rm = &c.document["commands"]["remove"];
        assert_eq!(rm["x-atip-rust"]["aliases"], json!(["rm"]));
        let opts = rm["options"].as_array().unwrap();
        assert_eq!(opts.len(), 3, "hidden dropped: {opts:?}");
        assert_eq!(opts[0]["name"], "output");
        assert_eq!(opts[0]["type"], "directory");
        assert_eq!(opts[0]["required"], true);
        assert_eq!(opts[1]["variadic"], true);
        assert_eq!(
            opts[2]["x-atip-rust"],
            json!({"exclusiveOn": ["--b"], "dependsOn": ["--c"]})
        );
        assert!(opts[2]["description"]
            .as_str()
            .unwrap()
            .contains("Not with --b. Requires --c."));
        let arg = &rm["arguments"][0];
        assert_eq!(arg["name"], "name");
        assert_eq!(arg["type"], "string", "suggestions never make an enum");
        assert!(arg["description"]
            .as_str()
            .unwrap()
            .contains("Suggested values: x, y."));
        assert_eq!(
            rm["effects"],
            json!({"destructive": true, "reversible": false})
        );
        assert_eq!(c.stats.hidden, 1);
    }

    #[test]
    fn persistent_options_are_inherited_and_the_rest_go_to_the_empty_child() {
        let c = conv(json!({
            "name": "t", "description": "T",
            "options": [{"name": "--verbose"}],
            "subcommands": [{
                "name": "stash", "description": "Stash",
                "options": [
                    {"name": "--repo", "isPersistent": true, "args": {"name": "r"}},
                    {"name": "--keep"}
                ],
                "subcommands": [{"name": "list", "options": [{"name": "--repo", "args": {"name": "r"}}]}]
            }]
        }));
        let doc = load(&c.document);
        let names: Vec<&str> = doc.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["t_stash", "t_stash_list"]);
        assert_eq!(c.document["globalOptions"][0]["name"], "verbose");
        assert_eq!(
            c.document["commands"]["stash"]["options"][0]["name"],
            "repo"
        );
        assert_eq!(
            c.document["commands"]["stash"]["commands"][""]["options"][0]["name"],
            "keep"
        );
        // `list` repeats the inherited --repo: kept once, on the group.
        assert!(c.document["commands"]["stash"]["commands"]["list"]
            .get("options")
            .is_none());
        let list = &doc.commands[1];
        assert!(list.params().any(|p| p.name == "repo"));
        assert_eq!(
            c.document["commands"]["stash"]["commands"]["list"]["effects"],
            json!({"destructive": false, "filesystem": {"write": false}})
        );
    }

    #[test]
    fn duplicates_and_clashes_are_resolved_deterministically() {
        let c = conv(json!({
            "name": "t",
            "subcommands": [
                {"name": "a", "description": "first"},
                {"name": "a", "description": "second", "options": [{"name": "--x"}]},
                {"name": "b.c", "description": "dots"},
                {"name": "b_c", "description": "underscores"},
                {"name": "d", "options": [
                    {"name": "--dry-run"}, {"name": "--dry_run"}, {"name": "--dry-run"},
                    {"name": "--file", "args": {"name": "f"}}
                ], "args": {"name": "file"}}
            ]
        }));
        let doc = load(&c.document);
        let names: Vec<&str> = doc.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["t_a", "t_b_c", "t_d"]);
        assert_eq!(c.document["commands"]["a"]["description"], "first");
        let d = &c.document["commands"]["d"];
        let opt_names: Vec<&str> = d["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["name"].as_str().unwrap())
            .collect();
        assert_eq!(opt_names, ["dry-run", "dry_run-2", "file"]);
        assert_eq!(d["arguments"][0]["name"], "file-arg");
        let text: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
        let all = text.join("\n");
        assert!(all.contains("declared twice"), "{all}");
        assert!(all.contains("already the name of `t b.c`"), "{all}");
        assert!(all.contains("kept once"), "{all}");
    }

    #[test]
    fn options_argv_cannot_express_are_dropped_with_a_warning() {
        let c = conv(json!({
            "name": "t",
            "options": [
                {"name": "-D", "requiresSeparator": true, "args": {"name": "kv"}},
                {"name": "--x", "requiresSeparator": ":", "args": {"name": "v"}},
                {"name": "--pair", "args": [{"name": "k"}, {"name": "v"}]},
                {"name": "outfile", "args": {"name": "f"}},
                {"name": "--field=value"},
                {"name": "--ok", "requiresSeparator": "=", "args": {"name": "v"}}
            ]
        }));
        load(&c.document);
        let opts = c.document["commands"][""]["options"].as_array().unwrap();
        assert_eq!(opts.len(), 1);
        assert_eq!(opts[0]["name"], "ok");
        assert_eq!(c.warnings.len(), 5, "{:?}", c.warnings);
    }

    #[test]
    fn counts_generators_and_generate_spec() {
        let m = FUNCTION_MARKER;
        let c = conv(json!({
            "name": "t", "generateSpec": m,
            "args": {"name": "x", "generators": {"script": ["t"], "postProcess": m}},
            "options": [{"name": "--y", "args": {"generators": [{"custom": m}]}}]
        }));
        assert_eq!(c.stats.generators, 2);
        assert_eq!(c.stats.generate_specs, 1);
    }

    #[test]
    fn refuses_names_the_schema_refuses() {
        assert_eq!(
            convert(&json!({"name": "c++"}), &generator(), None, 10).unwrap_err(),
            ConvertError::ToolName("c++".into())
        );
        assert_eq!(
            convert(&json!([1]), &generator(), None, 10)
                .unwrap_err()
                .category(),
            "not-a-spec"
        );
    }

    #[test]
    fn the_tool_is_named_after_the_command_the_spec_completes() {
        let c = convert(
            &json!({"name": "@forge/cli"}),
            &generator(),
            Some("forge"),
            10,
        )
        .unwrap();
        assert_eq!(c.document["name"], "forge");
        assert!(c.warnings[0].message.contains("@forge/cli"));
    }

    #[test]
    fn flag_like_subcommands_stay_but_lone_dashes_do_not() {
        let c = conv(
            json!({"name": "gpg", "subcommands": [{"name": "--decrypt"}, {"name": "-"}, {"name": "a b"}]}),
        );
        let doc = load(&c.document);
        let names: Vec<&str> = doc.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["gpg_--decrypt"]);
        assert_eq!(doc.commands[0].path, ["--decrypt"]);
    }

    #[test]
    fn stops_at_the_command_limit() {
        let subs: Vec<Value> = (0..20).map(|i| json!({"name": format!("c{i}")})).collect();
        let err = convert(
            &json!({"name": "t", "subcommands": subs}),
            &generator(),
            None,
            10,
        )
        .unwrap_err();
        assert_eq!(err, ConvertError::TooManyCommands { limit: 10 });
    }

    #[test]
    fn dangerous_options_make_the_command_destructive_and_say_why() {
        let c = conv(json!({
            "name": "t",
            "subcommands": [
                {"name": "push", "options": [{"name": ["-f", "--force"], "isDangerous": true}]},
                {"name": "archive", "isDangerous": true},
                {"name": "deploy"}
            ]
        }));
        load(&c.document);
        let push = &c.document["commands"]["push"];
        assert_eq!(push["effects"], json!({"destructive": true}));
        assert!(push["description"].as_str().unwrap().contains("-f/--force"));
        assert_eq!(
            c.document["commands"]["archive"]["effects"],
            json!({"destructive": true})
        );
        assert!(c.document["commands"]["deploy"].get("effects").is_none());
        assert_eq!(c.stats.destructive, 2);
    }

    #[test]
    fn long_root_descriptions_are_cut_at_the_schema_limit() {
        let long = "é".repeat(300);
        let c = conv(json!({"name": "t", "description": long}));
        let d = c.document["description"].as_str().unwrap();
        assert_eq!(d.chars().count(), MAX_TOOL_DESCRIPTION);
        load(&c.document);
    }
}
