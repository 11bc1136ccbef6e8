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
//! | `isDangerous` and command names | `effects`, by [`crate::effects`]; on an option or argument, `x-atip-rust.effects: {"destructive": true}` (the effects of a call that gives it) |
//!
//! Names are made to flatten cleanly (a command's tool name is the tool's name and its path
//! joined with `_`, and every parameter name must be valid for every provider): a sibling whose name repeats an
//! earlier one is dropped, so is a command whose flattened tool name another command already
//! has; an option that repeats an earlier one of the same command, or an inherited one with
//! the same flags, is kept once; parameters whose provider-valid names would clash are renamed
//! (arguments first, as their names never reach the command line). Each of these is a
//! [`Warning`].

mod commands;
mod fields;
mod outcome;
mod parameters;
#[cfg(test)]
mod tests;
mod walk;

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::effects::{self, Evidence};
use crate::engine::FUNCTION_MARKER;

use fields::{description, first_name, is_true};
use parameters::Scope;
use walk::Walk;

pub use fields::is_tool_name;
pub use outcome::{ConvertError, Converted, Generator, Stats, Warning};

/// Longest root description kept (the schema's limit), in characters.
pub const MAX_TOOL_DESCRIPTION: usize = 200;

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
        description: String::new(),
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

/// At most `max` characters, cut at a character boundary with `…` at the end.
fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}
