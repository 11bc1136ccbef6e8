//! `atip convert`, `discover` and `search`: tool definitions converted between formats, a
//! program's metadata discovered, and the commands that match a query.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use atip_runtime::canonical::Format;
use atip_runtime::{Document, FlattenOptions, LoadOptions, LoadedCommands, Provider};
use serde_json::Value;

use crate::load::{load_tools, Warnings};
use crate::output::{emit, emit_json, exiting, read_input, Failure, Outcome};

pub(crate) fn convert(from: Format, to: Provider, file: &Path) -> Outcome {
    let text = read_input(file)?;
    let converted = if from == Format::Atip {
        let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default())
            .map_err(|e| Failure::new(format!("{}: {e}", file.display())))?;
        let tools = atip_runtime::canonical::from_atip(&doc);
        atip_runtime::canonical::write(&tools, to, true)
    } else {
        let value = serde_json::from_str::<Value>(&text)
            .map_err(|e| Failure::new(format!("{}: invalid JSON: {e}", file.display())))?;
        atip_runtime::canonical::convert(&value, from, to)
    };
    let out = converted.map_err(|e| Failure::new(format!("{}: {e}", file.display())))?;
    for w in &out.warnings {
        eprintln!("{w}");
    }
    emit_json(&out.value)
}

pub(crate) fn discover(
    tool: &str,
    out: Option<&Path>,
    timeout: u64,
    partial: &atip_runtime::discover::Partial,
) -> Outcome {
    let text = atip_runtime::discover::discover_partial(
        tool,
        partial,
        std::time::Duration::from_secs(timeout),
    )
    .map_err(Failure::new)?;
    match out {
        Some(path) => std::fs::write(path, &text)
            .map(|()| ExitCode::SUCCESS)
            .map_err(|e| Failure::new(format!("cannot write {}: {e}", path.display()))),
        None => emit(&text),
    }
}

/// `atip search`: the best commands for a query, one flattened name per line.
pub(crate) fn search(files: &[PathBuf], query: &str, top: usize, lenient: bool) -> Outcome {
    let tools = load_tools(files, lenient, None, Warnings::Count)?;
    // Positions count through every tool's commands; their specs are not needed.
    let names: Vec<&str> = tools.iter().flat_map(LoadedCommands::names).collect();
    let index = atip_runtime::search::ToolIndex::for_tools(&tools);
    let mut out = String::new();
    for hit in index.search(query, top) {
        out.push_str(names[hit.index]);
        out.push('\n');
    }
    if out.is_empty() {
        eprintln!("no command matches {query:?}");
    }
    let code = emit(&out);
    drop(names);
    exiting((index, tools));
    code
}
