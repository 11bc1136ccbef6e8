//! Loading the metadata files a command works on: the diagnostics of every file printed (each
//! warning, or a count of them where the command only reads the metadata to use it), and tool
//! names distinct across files.

use std::path::PathBuf;

use atip_runtime::{FlattenOptions, LoadedCommands, Mode};

use crate::output::Failure;

/// How a command reports the warnings of the files it loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Warnings {
    /// Each one, with its location.
    Each,
    /// One line per file with their number, and one per command left out (a reader at run
    /// time, such as `atip search`, whose output is the point; `atip check` lists them).
    Count,
}

/// Loads every file, printing every error and the warnings as `warnings` says, and prepares
/// each for dispatch.
pub(crate) fn load_tools(
    files: &[PathBuf],
    lenient: bool,
    commands: Option<Vec<String>>,
    warnings: Warnings,
) -> Result<Vec<LoadedCommands>, Failure> {
    let mode = if lenient { Mode::Lenient } else { Mode::Strict };
    let mut tools = Vec::new();
    let mut failed = false;
    for file in files {
        let name = file.display().to_string();
        match LoadedCommands::from_path(
            file,
            mode,
            &FlattenOptions {
                commands: commands.clone(),
            },
        ) {
            Ok(tool) => {
                let found = &tool.document().warnings;
                match warnings {
                    Warnings::Each => {
                        for w in found {
                            eprintln!("{}", w.render(Some(&name)));
                        }
                    }
                    Warnings::Count => {
                        // A command left out is worth a line of its own: it cannot be found.
                        for skipped in &tool.document().skipped {
                            eprintln!(
                                "{name}: command `{}` is left out: {}",
                                skipped.path,
                                skipped.reasons.join("; ")
                            );
                        }
                        if !found.is_empty() {
                            eprintln!(
                                "{name}: {} warning{} (`atip check{} {name}` lists them)",
                                found.len(),
                                if found.len() == 1 { "" } else { "s" },
                                if lenient { " --lenient" } else { "" }
                            );
                        }
                    }
                }
                tools.push(tool);
            }
            Err(e) => {
                eprintln!("{e}");
                failed = true;
            }
        }
    }
    let mut seen = std::collections::HashMap::new();
    for (i, t) in tools.iter().enumerate() {
        for name in t.names() {
            if let Some(first) = seen.insert(name.to_owned(), i) {
                eprintln!(
                    "{}: tool name `{}` is also defined by {}; every tool of one request needs a distinct name",
                    files[i].display(),
                    name,
                    files[first].display()
                );
                failed = true;
            }
        }
    }
    if failed {
        Err(Failure::reported())
    } else {
        Ok(tools)
    }
}
