//! Flattening a large command tree on two threads: the root's commands in two halves, each
//! walked by a walker of its own, the second half's findings appended to the first's.
//!
//! The halves are independent except in three things, and each is dealt with so that the
//! table is the one a single walk gives:
//!
//! * **Names.** Two commands with one flattened name collide; a walker sees only its half's
//!   names. The halves are taken only when no leaf of the second half has the name of a leaf
//!   of the first ([`halves`] computes every leaf's name first; a document with such a pair is
//!   walked on one thread).
//! * **Global options.** Both walkers share them (and the problems found in them); a global
//!   option shadowed in both halves is reported once, by the first half, as one walk would.
//! * **The command filter.** It records which entries matched; a filtered walk is not split
//!   (it selects few commands anyway).
//!
//! Everything else a walker finds (commands, left-out commands, warnings, merged duplicates)
//! belongs to one command and is appended in order.

use std::sync::Arc;

use foldhash::{HashMap, HashSet};
use indexmap::IndexMap;

use super::table::FlatParam;
use super::walk::Walker;
use crate::diagnostic::JsonPath;
use crate::effects::Effects;
use crate::model::CommandSpec;
use crate::names;

/// Up to this many leaf commands the tree is walked on one thread: a thread costs more than
/// half of the walk saves.
const ONE_THREAD_MAX_LEAVES: usize = 4096;

#[cfg(test)]
thread_local! {
    /// Tests split documents of any size: the most leaves walked on one thread, and no check
    /// of the machine's cores.
    pub(super) static FORCE_ONE_THREAD_MAX_LEAVES: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
}

/// Where to split the root's `commands` (the index of the first command of the second half),
/// or `None` to walk them on one thread: a filtered walk, no more than
/// [`ONE_THREAD_MAX_LEAVES`] leaves, a machine with one core, or a leaf name found in both
/// halves.
pub(super) fn halves(
    tool: &str,
    commands: &IndexMap<String, CommandSpec>,
    unfiltered: bool,
) -> Option<usize> {
    #[cfg(test)]
    let forced = FORCE_ONE_THREAD_MAX_LEAVES.with(std::cell::Cell::get);
    #[cfg(not(test))]
    let forced: Option<usize> = None;
    if !unfiltered || commands.len() < 2 {
        return None;
    }
    let counts: Vec<usize> = commands.values().map(leaves).collect();
    let total: usize = counts.iter().sum();
    match forced {
        Some(min) if total <= min => return None,
        Some(_) => {}
        None => {
            if total <= ONE_THREAD_MAX_LEAVES || !crate::two_threads::available() {
                return None;
            }
        }
    }
    let mut so_far = 0;
    let mut at = commands.len() - 1;
    for (i, n) in counts.iter().enumerate() {
        so_far += n;
        if 2 * so_far >= total {
            at = i + 1;
            break;
        }
    }
    let at = at.clamp(1, commands.len() - 1);

    let mut first = HashSet::default();
    let mut path = Vec::new();
    for (name, cmd) in commands.iter().take(at) {
        leaf_names(tool, name, cmd, &mut path, &mut |n| {
            first.insert(n);
        });
    }
    let mut clash = false;
    for (name, cmd) in commands.iter().skip(at) {
        leaf_names(tool, name, cmd, &mut path, &mut |n| {
            clash |= first.contains(&n);
        });
    }
    (!clash).then_some(at)
}

impl Walker<'_> {
    /// Walks the root's `commands`: in two halves on two threads when [`halves`] says so,
    /// else in order on this thread.
    pub(super) fn walk_root(
        &mut self,
        mut commands: IndexMap<String, CommandSpec>,
        commands_path: &JsonPath,
        levels: &mut Vec<Vec<Arc<FlatParam>>>,
        effects: &Effects,
    ) {
        match halves(self.tool_name, &commands, self.filter.is_none()) {
            Some(at) => {
                let second = commands.split_off(at);
                let mut other = self.second_half();
                let mut other_levels = levels.clone();
                crate::two_threads::join(
                    || self.walk_all(commands, commands_path, levels, effects),
                    || other.walk_all(second, commands_path, &mut other_levels, effects),
                );
                self.append(other);
            }
            None => self.walk_all(commands, commands_path, levels, effects),
        }
    }

    /// Walks `commands`, the root's (or some of them), in order.
    fn walk_all(
        &mut self,
        commands: IndexMap<String, CommandSpec>,
        commands_path: &JsonPath,
        levels: &mut Vec<Vec<Arc<FlatParam>>>,
        effects: &Effects,
    ) {
        let mut visible = Vec::new();
        for (name, cmd) in commands {
            let json = commands_path.key(&name);
            self.walk(&name, cmd, &mut visible, json, levels, effects);
        }
    }

    /// A walker for the second half of the root's commands, as this one stands after the
    /// global options: same settings and problems of the globals, nothing found yet.
    fn second_half(&self) -> Self {
        Walker {
            tool_name: self.tool_name,
            filter: None,
            out: Vec::new(),
            names: HashMap::default(),
            diags: Vec::new(),
            shadow_seen: HashSet::default(),
            global_shadow_reports: Some(Vec::new()),
            seen_paths: Vec::new(),
            lenient: self.lenient,
            problems: self.problems.clone(),
            skipped: Vec::new(),
            merged_duplicates: 0,
        }
    }

    /// Takes in what `second` found walking the commands after this walker's, as if this
    /// walker had gone on: a global option shadowed in both halves is reported once, by its
    /// first shadower. (No name is in both halves: [`halves`] made sure.)
    fn append(&mut self, second: Self) {
        let again: HashSet<usize> = second
            .global_shadow_reports
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, address)| self.shadow_seen.contains(address))
            .map(|(index, _)| index)
            .collect();
        self.diags.extend(
            second
                .diags
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !again.contains(i))
                .map(|(_, d)| d),
        );
        self.shadow_seen.extend(second.shadow_seen);
        self.out.extend(second.out);
        self.names.extend(second.names);
        self.skipped.extend(second.skipped);
        self.merged_duplicates += second.merged_duplicates;
    }
}

/// The number of leaf commands at and below `cmd`.
fn leaves(cmd: &CommandSpec) -> usize {
    if cmd.commands.is_empty() {
        1
    } else {
        cmd.commands.values().map(leaves).sum()
    }
}

/// Hands the flattened name of every leaf at and below `cmd` (named `name`, below `path`) to
/// `each`, as the walk names them ([`names::tool_name`]).
fn leaf_names<'a>(
    tool: &str,
    name: &'a str,
    cmd: &'a CommandSpec,
    path: &mut Vec<&'a str>,
    each: &mut impl FnMut(String),
) {
    path.push(name);
    if cmd.commands.is_empty() {
        each(names::tool_name(tool, path));
    } else {
        for (child, sub) in &cmd.commands {
            leaf_names(tool, child, sub, path, each);
        }
    }
    path.pop();
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::FORCE_ONE_THREAD_MAX_LEAVES;
    use crate::flatten::walk::flatten_owned;
    use crate::flatten::{CommandTable, FlattenOptions};
    use crate::model::DocumentTree;

    type Flattened = Result<CommandTable, Vec<crate::Diagnostic>>;

    /// `document` flattened on one thread, and with its root commands split in two halves
    /// whatever its size (`None` when [`super::halves`] declines to split it).
    fn both_ways(document: &Value, lenient: bool) -> (Flattened, Option<Flattened>) {
        let run = |force: Option<usize>| {
            FORCE_ONE_THREAD_MAX_LEAVES.with(|f| f.set(force));
            let mut tree: DocumentTree = serde_json::from_value(document.clone()).unwrap();
            let split = super::halves(&tree.name, &tree.commands, true).is_some();
            let table = flatten_owned(&mut tree, &FlattenOptions::default(), lenient);
            FORCE_ONE_THREAD_MAX_LEAVES.with(|f| f.set(None));
            (table, split)
        };
        let (one, split_alone) = run(None);
        assert!(!split_alone, "a small document is walked on one thread");
        let (two, split) = run(Some(0));
        (one, split.then_some(two))
    }

    fn option(name: &str, flag: &str, description: &str) -> Value {
        json!({"name": name, "flags": [flag], "type": "string", "description": description})
    }

    fn tool(commands: Value, globals: Value) -> Value {
        json!({"atip": {"version": "0.6"}, "name": "t", "version": "1", "description": "d",
               "commands": commands, "globalOptions": globals})
    }

    #[test]
    fn a_global_option_shadowed_in_both_halves_is_reported_once_by_the_first() {
        let leaf = json!({"description": "d", "options": [option("out", "--out", "own")]});
        let doc = tool(
            json!({"a": leaf, "b": leaf, "c": leaf, "d": leaf}),
            json!([option("out", "--out", "global")]),
        );
        for lenient in [false, true] {
            let (one, two) = both_ways(&doc, lenient);
            let one = one.unwrap();
            let shadowed: Vec<_> = one
                .warnings
                .iter()
                .filter(|w| w.message.contains("is shadowed"))
                .collect();
            assert_eq!(shadowed.len(), 1, "{:?}", one.warnings);
            assert_eq!(two.expect("split").unwrap(), one);
        }
    }

    #[test]
    fn a_name_in_both_halves_keeps_the_tree_on_one_thread() {
        let leaf = json!({"description": "d"});
        // `a_b` and `a b` flatten to one name, `t_a_b`, and fall in different halves.
        let group = json!({"description": "d", "commands": {"b": leaf}});
        let doc = tool(
            json!({"a_b": leaf, "c": leaf, "d": leaf, "a": group}),
            json!([]),
        );
        let (one, two) = both_ways(&doc, true);
        assert!(two.is_none());
        assert_eq!(one.unwrap().skipped.len(), 1);
        let apart = tool(
            json!({"a_b": leaf, "c": leaf, "d": leaf, "e": group}),
            json!([]),
        );
        assert!(both_ways(&apart, true).1.is_some());
    }

    /// Names and flags chosen to collide, shadow, merge and fail.
    fn parameter() -> impl Strategy<Value = Value> {
        let name = prop_oneof![
            Just("out"),
            Just("verbose"),
            Just("dry-run"),
            Just("dry_run")
        ];
        let flag = prop_oneof![
            Just("--out"),
            Just("--verbose"),
            Just("-v"),
            Just("bad flag")
        ];
        let text = prop_oneof![Just("one"), Just("two")];
        (name, flag, text).prop_map(|(n, f, d)| option(n, f, d))
    }

    fn command(depth: u32) -> BoxedStrategy<Value> {
        let name = prop_oneof![Just("a"), Just("b"), Just("a-b"), Just("a_b"), Just("")];
        let options = prop::collection::vec(parameter(), 0..3);
        if depth == 0 {
            return options
                .prop_map(|o| json!({"description": "d", "options": o}))
                .boxed();
        }
        let children = prop::collection::vec((name, command(depth - 1)), 0..3);
        (options, children)
            .prop_map(|(o, children)| {
                let mut c = json!({"description": "d", "options": o});
                if !children.is_empty() {
                    let map: serde_json::Map<String, Value> = children
                        .into_iter()
                        .map(|(n, v)| (n.to_owned(), v))
                        .collect();
                    c["commands"] = Value::Object(map);
                }
                c
            })
            .boxed()
    }

    fn document() -> impl Strategy<Value = Value> {
        let root = prop::collection::vec(
            (
                prop_oneof![
                    Just("a"),
                    Just("a_b"),
                    Just("u"),
                    Just("v"),
                    Just("w-x"),
                    Just("w_x")
                ],
                command(2),
            ),
            2..7,
        );
        (root, prop::collection::vec(parameter(), 0..3)).prop_map(|(root, globals)| {
            let commands: serde_json::Map<String, Value> =
                root.into_iter().map(|(n, v)| (n.to_owned(), v)).collect();
            tool(Value::Object(commands), Value::Array(globals))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn two_halves_flatten_to_what_one_walk_gives(doc in document()) {
            for lenient in [false, true] {
                let (one, two) = both_ways(&doc, lenient);
                if let Some(two) = two {
                    prop_assert_eq!(two, one, "lenient: {}", lenient);
                }
            }
        }
    }
}
