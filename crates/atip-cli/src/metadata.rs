//! `atip check`, `gen`, `compile` and `prompt`: metadata files checked, and what is made from
//! them (the Rust module, provider tool definitions, the safety prompt).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use atip_build::{expand, Options};
use atip_runtime::{
    safety_prompt, Document, FlattenOptions, LoadOptions, LoadedCommands, Mode, Provider,
};

use crate::load::{load_tools, Warnings};
use crate::output::{emit, emit_json, emit_parts, exiting, Failure, Outcome};

/// `atip check`: every file, every diagnostic; status 1 when any file has an error.
pub(crate) fn check(files: &[PathBuf], lenient: bool, summary: bool) -> Outcome {
    let mode = if lenient { Mode::Lenient } else { Mode::Strict };
    let mut failed = false;
    for (i, file) in files.iter().enumerate() {
        let name = file.display().to_string();
        match Document::from_path(file, mode, &FlattenOptions::default()) {
            Ok(doc) => {
                if !summary {
                    for w in &doc.warnings {
                        eprintln!("{}", w.render(Some(&name)));
                    }
                }
                let mut out = format!(
                    "{name}: ok: {}, {} warning{}\n",
                    doc.summary(),
                    doc.warnings.len(),
                    if doc.warnings.len() == 1 { "" } else { "s" }
                );
                if summary {
                    for skipped in &doc.skipped {
                        out.push_str(&format!(
                            "  skipped `{}` ({}): {}\n",
                            skipped.path,
                            skipped.json_path,
                            skipped.reasons.join("; ")
                        ));
                    }
                }
                emit(&out)?;
                if i + 1 == files.len() {
                    exiting(doc);
                }
            }
            Err(e) => {
                failed = true;
                eprintln!("{e}");
                let errors = e.errors().count();
                emit(&format!(
                    "{name}: {errors} error{}\n",
                    if errors == 1 { "" } else { "s" }
                ))?;
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

pub(crate) fn gen(file: &Path, options: Options) -> Outcome {
    let name = file.display().to_string();
    let load = LoadOptions::strict().with_file(name.clone());
    let text = atip_runtime::load::read_text(file, &load).map_err(Failure::new)?;
    let exp = expand(&text, &options).map_err(Failure::new)?;
    for w in &exp.warnings {
        eprintln!("{}", w.render(Some(&name)));
    }
    emit(&exp.to_source(&name))
}

pub(crate) fn parse_globals(text: &str) -> Result<atip_runtime::tool::GlobalOptions, String> {
    Ok(match text {
        "all" => atip_runtime::tool::GlobalOptions::All,
        "none" => atip_runtime::tool::GlobalOptions::None,
        list => atip_runtime::tool::GlobalOptions::Only(
            list.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
        ),
    })
}

pub(crate) fn compile(
    provider: Provider,
    files: &[PathBuf],
    commands: Vec<String>,
    lenient: bool,
    globals: &atip_runtime::tool::GlobalOptions,
) -> Outcome {
    let tools = compiled_tools(files, commands, lenient, globals)?;
    compile_loaded(provider, tools)
}

/// `atip compile --stats`: for every provider, the commands, the bytes of their definitions
/// and an estimate of the tokens they cost (bytes / 4, rounded up: about what a token of JSON
/// takes), as a JSON array.
pub(crate) fn compile_stats(
    files: &[PathBuf],
    commands: Vec<String>,
    lenient: bool,
    globals: &atip_runtime::tool::GlobalOptions,
) -> Outcome {
    let tools = compiled_tools(files, commands, lenient, globals)?;
    let count: usize = tools.iter().map(|t| t.document().commands.len()).sum();
    let rows: Vec<serde_json::Value> = Provider::ALL
        .iter()
        .map(|&p| {
            let bytes: usize = tools.iter().map(|t| t.definitions_json(p).len()).sum();
            serde_json::json!({
                "provider": p.as_str(),
                "commands": count,
                "bytes": bytes,
                "estimatedTokens": bytes.div_ceil(4),
            })
        })
        .collect();
    exiting(tools);
    emit_json(&serde_json::Value::Array(rows))
}

/// The files loaded for `compile`, with the global options the model sees.
fn compiled_tools(
    files: &[PathBuf],
    commands: Vec<String>,
    lenient: bool,
    globals: &atip_runtime::tool::GlobalOptions,
) -> Result<Vec<LoadedCommands>, Failure> {
    if !commands.is_empty() && files.len() > 1 {
        return Err(Failure::new("--commands applies to a single file"));
    }
    let tools = load_tools(
        files,
        lenient,
        (!commands.is_empty()).then_some(commands),
        Warnings::Each,
    )?;
    let unknown = globals.unknown_names(tools.iter().flat_map(LoadedCommands::specs));
    if !unknown.is_empty() {
        return Err(Failure::new(format!(
            "--globals: {} not a global option of these tools",
            unknown
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
                + if unknown.len() == 1 { " is" } else { " are" }
        )));
    }
    Ok(tools
        .into_iter()
        .map(|t| t.global_options(globals.clone()))
        .collect())
}

fn compile_loaded(provider: Provider, tools: Vec<LoadedCommands>) -> Outcome {
    // Each file's array, joined: written without building a JSON value of the whole, without
    // keeping every command's spec (the notes are found while writing), and without copying
    // the arrays into one text.
    let mut arrays = Vec::with_capacity(tools.len());
    let mut notes = Vec::new();
    let mut count = 0;
    for t in &tools {
        let (array, found) = t.definitions_json_and_notes(provider);
        notes.extend(found);
        count += t.document().commands.len();
        arrays.push(array);
    }
    let mut parts = vec!["["];
    for array in &arrays {
        let inner = &array[1..array.len() - 1];
        if !inner.is_empty() {
            if parts.len() > 1 {
                parts.push(",");
            }
            parts.push(inner);
        }
    }
    parts.push("]\n");
    let code = emit_parts(&parts)?;
    // What had to give to fit the provider's documented limits (atip_runtime::limits).
    notes.extend(atip_runtime::limits::count_note(count, provider));
    for note in notes {
        eprintln!("warning: {note}");
    }
    exiting(tools);
    Ok(code)
}

pub(crate) fn prompt(files: &[PathBuf], lenient: bool) -> Outcome {
    let tools = load_tools(files, lenient, None, Warnings::Each)?;
    emit(&safety_prompt(tools.iter().flat_map(LoadedCommands::specs)))
}
