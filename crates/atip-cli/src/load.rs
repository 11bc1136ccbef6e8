//! Loading the metadata files a command works on: every diagnostic of every file printed,
//! and tool names distinct across files.

use std::path::PathBuf;

use atip_runtime::{FlattenOptions, Mode, RuntimeTool};

use crate::output::Failure;

/// Loads every file, printing every diagnostic of every file, and prepares each for dispatch.
pub(crate) fn load_tools(
    files: &[PathBuf],
    lenient: bool,
    commands: Option<Vec<String>>,
) -> Result<Vec<RuntimeTool>, Failure> {
    let mode = if lenient { Mode::Lenient } else { Mode::Strict };
    let mut tools = Vec::new();
    let mut failed = false;
    for file in files {
        let name = file.display().to_string();
        match RuntimeTool::from_path(
            file,
            mode,
            &FlattenOptions {
                commands: commands.clone(),
            },
        ) {
            Ok(tool) => {
                for w in &tool.document().warnings {
                    eprintln!("{}", w.render(Some(&name)));
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
