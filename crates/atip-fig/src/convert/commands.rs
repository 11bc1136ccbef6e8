//! Fig subcommands as ATIP commands: the visible children of a command, groups with their
//! persistent options and `""` child, and the commands that run, with their effects.

use atip_core::names::tool_name;
use serde_json::{json, Map, Value};

use crate::effects::{self, Evidence};

use super::fields::{
    all_names, arg_label, description, is_help, is_true, len_of, usable_command_name, with_note,
};
use super::parameters::{FigOption, Scope};
use super::walk::Walk;

/// A subcommand, parsed: its names and its Fig object.
pub(super) struct Child<'a> {
    pub(super) name: String,
    pub(super) aliases: Vec<String>,
    pub(super) fig: &'a Map<String, Value>,
}

impl Walk {
    /// The visible subcommands of `fig`: hidden ones, unusable names and repeated names dropped.
    pub(super) fn children<'a>(&mut self, fig: &'a Map<String, Value>, at: &str) -> Vec<Child<'a>> {
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
            // The command's own name is its longest (Fig lists `["del", "delete", "un",
            // "uninstall"]`, `["ls", "list"]`): what a model reads; the rest are aliases.
            let Some(name) = canonical(&names) else {
                self.warn(at, "a subcommand without a name: dropped");
                continue;
            };
            // `help` with subcommands is a copy of the tree that prints help pages.
            if name == "help" && len_of(obj.get("subcommands")) > 0 {
                self.warn(
                    &format!("{at} help"),
                    "`help` repeats the command tree to print help pages: dropped",
                );
                continue;
            }
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
            let aliases = names
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

    /// Converts the subcommand `child` under `parents` (visible names from the root).
    pub(super) fn command(
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
            description: String::new(),
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

    pub(super) fn aliases(&self, cmd: &mut Value, child: &Child<'_>) {
        if !child.aliases.is_empty() {
            cmd["x-atip-rust"] = json!({ "aliases": child.aliases });
        }
    }

    /// A command that runs: a leaf, the `""` child of a group, or the root of a tool without
    /// subcommands. `names` are the names its verb is judged by; `path` the visible names from
    /// the root (the group's own path for a `""` child).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn runnable(
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
            description: fig
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
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
}

/// The name a command is imported under: the longest of its Fig names that can be passed as
/// one argument (the first of equal length), so that `ls`, `del` and `hist` come through as
/// `list`, `uninstall` and `history`.
fn canonical(names: &[String]) -> Option<String> {
    let mut best: Option<&String> = None;
    for n in names {
        if best.is_none_or(|b| n.len() > b.len()) && (usable_command_name(n) || best.is_none()) {
            best = Some(n);
        }
    }
    best.cloned()
}
