//! `atip mark`: settling an import in one pass. A person names commands by pattern — read-only
//! ones, destructive ones — and the document comes back with those effects declared on each,
//! checked by loading it again: a mark that the conservative merge would override (an ancestor
//! declares the opposite) is an error, not a silent no-op.

use std::path::PathBuf;
use std::process::ExitCode;

use atip_runtime::policy::command_matches;
use atip_runtime::{Document, FlattenOptions, LoadOptions};
use serde_json::{json, Map, Value};

use crate::output::{emit, Failure, Outcome};

/// Arguments of `atip mark`.
#[derive(clap::Args)]
pub(crate) struct MarkArgs {
    /// The ATIP JSON file (an import, say).
    file: PathBuf,
    /// Commands that only read: `destructive: false` and no file writes or deletes (the
    /// network is left as declared). A glob over the command path with or without the tool
    /// (`get *`, `kubectl describe`, `config view`); repeat for more.
    #[arg(long = "read-only", value_name = "PATTERN")]
    read_only: Vec<String>,
    /// Commands that destroy data: `destructive: true`, `reversible: false`. Same patterns;
    /// a command matched by both is destructive.
    #[arg(long, value_name = "PATTERN")]
    destructive: Vec<String>,
    /// Write the document here instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// What a command is marked as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    ReadOnly,
    Destructive,
}

/// `atip mark`: prints the document with the marks applied and, on stderr, how many commands
/// each kind marked. Exit status 1 when a pattern matches no command, a mark would not take
/// effect, or the file does not load.
pub(crate) fn mark(args: &MarkArgs) -> Outcome {
    let shown = args.file.display();
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| Failure::new(format!("cannot read {shown}: {e}")))?;
    let mut doc: Value =
        serde_json::from_str(&text).map_err(|e| Failure::new(format!("{shown}: {e}")))?;
    let tool = doc
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut used = vec![false; args.read_only.len() + args.destructive.len()];
    let mut marked: Vec<(String, Mark)> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    if let Some(commands) = doc.get_mut("commands").and_then(Value::as_object_mut) {
        let mut path = Vec::new();
        walk(
            commands,
            &tool,
            &mut path,
            args,
            &mut used,
            &mut marked,
            &mut refused,
        );
    }
    if !refused.is_empty() {
        let list: Vec<String> = refused.iter().map(|t| format!("`{t}`")).collect();
        return Err(Failure::new(format!(
            "{shown}: {} declared destructive: a pattern does not mark it read-only (mark it \
             --destructive, narrow the pattern, or edit its effects by hand)",
            list.join(", ")
        )));
    }
    let patterns = args.read_only.iter().chain(&args.destructive);
    let unused: Vec<String> = patterns
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(p, _)| format!("`{p}`"))
        .collect();
    if !unused.is_empty() {
        return Err(Failure::new(format!(
            "{shown}: {} matches no command",
            unused.join(", ")
        )));
    }
    let mut result = serde_json::to_string_pretty(&doc).unwrap_or_default();
    result.push('\n');
    check(&result, &tool, &marked).map_err(|e| Failure::new(format!("{shown}: {e}")))?;
    let count = |m: Mark| marked.iter().filter(|(_, k)| *k == m).count();
    eprintln!(
        "{shown}: {} command(s) marked read-only, {} destructive",
        count(Mark::ReadOnly),
        count(Mark::Destructive)
    );
    match &args.out {
        Some(path) => {
            std::fs::write(path, &result)
                .map_err(|e| Failure::new(format!("cannot write {}: {e}", path.display())))?;
            Ok(ExitCode::SUCCESS)
        }
        None => emit(&result),
    }
}

/// Marks every command below `commands` (at `path`) that a pattern names; a group's commands
/// are marked one by one, so each keeps what it declares of the rest.
fn walk(
    commands: &mut Map<String, Value>,
    tool: &str,
    path: &mut Vec<String>,
    args: &MarkArgs,
    used: &mut [bool],
    marked: &mut Vec<(String, Mark)>,
    refused: &mut Vec<String>,
) {
    for (key, node) in commands.iter_mut() {
        let pushed = !key.is_empty();
        if pushed {
            path.push(key.clone());
        }
        match node.get_mut("commands").and_then(Value::as_object_mut) {
            Some(children) if !children.is_empty() => {
                walk(children, tool, path, args, used, marked, refused);
            }
            _ => {
                let title = std::iter::once(tool)
                    .chain(path.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" ");
                let name = atip_runtime::names::tool_name(tool, path);
                let mut mark = None;
                let patterns = args
                    .read_only
                    .iter()
                    .map(|p| (p, Mark::ReadOnly))
                    .chain(args.destructive.iter().map(|p| (p, Mark::Destructive)));
                for (i, (pattern, kind)) in patterns.enumerate() {
                    if command_matches(pattern, &name, &title) {
                        used[i] = true;
                        if mark != Some(Mark::Destructive) {
                            mark = Some(kind);
                        }
                    }
                }
                if let (Some(kind), Some(object)) = (mark, node.as_object_mut()) {
                    let destructive = object.get("effects").and_then(|e| e.get("destructive"))
                        == Some(&Value::Bool(true));
                    if kind == Mark::ReadOnly && destructive {
                        // Not lowered by a pattern: the import (or a person) said destructive.
                        refused.push(title);
                    } else {
                        apply(object, kind);
                        marked.push((title, kind));
                    }
                }
            }
        }
        if pushed {
            path.pop();
        }
    }
}

/// Declares `kind` in a command's own `effects`, keeping what else it declares.
fn apply(command: &mut Map<String, Value>, kind: Mark) {
    let effects = command
        .entry("effects")
        .or_insert_with(|| json!({}))
        .as_object_mut();
    let Some(effects) = effects else {
        return;
    };
    match kind {
        Mark::ReadOnly => {
            effects.insert("destructive".into(), false.into());
            let fs = effects.entry("filesystem").or_insert_with(|| json!({}));
            if let Some(fs) = fs.as_object_mut() {
                fs.insert("write".into(), false.into());
                fs.insert("delete".into(), false.into());
            }
        }
        Mark::Destructive => {
            effects.insert("destructive".into(), true.into());
            effects.insert("reversible".into(), false.into());
            // An importer's read-only guess goes with it: the sandbox would refuse the writes
            // the person just declared.
            if let Some(fs) = effects.get_mut("filesystem").and_then(Value::as_object_mut) {
                for key in ["write", "delete"] {
                    if fs.get(key) == Some(&Value::Bool(false)) {
                        fs.remove(key);
                    }
                }
                if fs.is_empty() {
                    effects.remove("filesystem");
                }
            }
        }
    }
}

/// Loads the marked document and checks that every mark holds in the merged effects.
fn check(text: &str, tool: &str, marked: &[(String, Mark)]) -> Result<(), String> {
    let doc = Document::parse(text, &LoadOptions::lenient(), &FlattenOptions::default())
        .map_err(|e| e.to_string())?;
    let mut lost = Vec::new();
    for (title, kind) in marked {
        let path: Vec<&str> = title.split(' ').skip(1).collect();
        let Some(command) = doc.commands.iter().find(|c| c.path == path) else {
            continue;
        };
        let e = &command.effects;
        let holds = match kind {
            Mark::ReadOnly => {
                e.destructive == Some(false)
                    && e.filesystem_write() == Some(false)
                    && e.filesystem_delete() == Some(false)
            }
            Mark::Destructive => e.destructive == Some(true),
        };
        if !holds {
            lost.push(format!("`{title}`"));
        }
    }
    if lost.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {tool} cannot be marked: a group above declares the opposite, and effects \
             merge on the safe side (edit the group's declaration by hand)",
            lost.join(", ")
        ))
    }
}
