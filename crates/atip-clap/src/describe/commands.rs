//! The walk over clap's command tree: the root and its global options, groups with their own
//! `""` invocation, commands without subcommands, and the constraints between arguments that
//! ATIP cannot carry.

use std::collections::BTreeSet;

use atip_core::model::{ArgumentSpec, CommandSpec, OptionSpec};
use atip_core::Effects;
use clap::Command;
use indexmap::IndexMap;

use crate::described::Warning;

use super::parameters::is_builtin;
use super::walker::{Param, Walker};

impl Walker<'_> {
    /// The root: its options become `globalOptions` when it has subcommands (they go right
    /// after the program, where clap reads them), its own invocation the `""` child.
    pub(super) fn root(
        &mut self,
        root: &Command,
    ) -> (IndexMap<String, CommandSpec>, Vec<OptionSpec>) {
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
    pub(super) fn own_invocation(
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
    pub(super) fn command(
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
    pub(super) fn leaf(
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

    /// Warnings for the constraints between the arguments of `cmd` that ATIP cannot carry:
    /// conflicts and argument groups that are required or allow only one of their members.
    pub(super) fn constraints(&mut self, cmd: &Command, path: &[String]) {
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
}

/// The first line of a command's about text (its long about when it has no short one).
pub(super) fn about(cmd: &Command) -> String {
    cmd.get_about()
        .or_else(|| cmd.get_long_about())
        .map(|s| s.to_string())
        .unwrap_or_default()
        .trim()
        .to_owned()
}
