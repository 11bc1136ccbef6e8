//! `notifications/tools/list_changed`: metadata files watched by polling their size and
//! modification time, reloaded when either changes, and the client told.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime};

use rmcp::{Peer, RoleServer};

use super::{McpError, Shared, Tools};
use atip_runtime::{FlattenOptions, LoadedCommands, Mode};

/// What a file looked like when it was last read: size and modification time, or `None` when
/// it could not be read (a file being replaced).
pub(super) type Stamp = Option<(u64, SystemTime)>;

/// The stamp of `path` now.
pub(super) fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

/// Loads every file strictly, as `atip serve` does, each remembering its path.
///
/// # Errors
///
/// The first file that does not load, with its path.
pub(super) fn load(files: &[PathBuf]) -> Result<Vec<LoadedCommands>, McpError> {
    files
        .iter()
        .map(|f| {
            LoadedCommands::from_path(f, Mode::Strict, &FlattenOptions::default())
                .map_err(|e| McpError::Load(format!("{}: {e}", f.display())))
        })
        .collect()
}

/// Checks that `tools` are one per file of `files`, as loading them gives.
pub(super) fn one_per_file(files: &[PathBuf], tools: &[LoadedCommands]) -> Result<(), McpError> {
    if files.len() == tools.len() {
        Ok(())
    } else {
        Err(McpError::Load(format!(
            "{} loaded tools for {} files: give one tool per file, in order",
            tools.len(),
            files.len()
        )))
    }
}

/// Polls the files of `shared` every `every` until the server is dropped or the client is
/// gone; on a change it reloads them all and, when they load and pass the runner's policy
/// check, swaps the tools and sends `notifications/tools/list_changed`. A file that does not
/// load leaves the previous tools in place (reported on stderr).
pub(super) async fn run(shared: Weak<Shared>, peer: Peer<RoleServer>, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if peer.is_transport_closed() {
            return;
        }
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let now: Vec<Stamp> = shared.files.iter().map(|f| stamp(f)).collect();
        let changed = {
            let mut seen = shared.stamps.lock().unwrap_or_else(|e| e.into_inner());
            if *seen == now {
                false
            } else {
                *seen = now;
                true
            }
        };
        if !changed {
            continue;
        }
        let reloaded = load(&shared.files)
            .and_then(|tools| Tools::build((shared.wrap)(tools), &shared.runner));
        match reloaded {
            Ok(tools) => {
                *shared.tools.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(tools);
                if peer.notify_tool_list_changed().await.is_err() {
                    return;
                }
            }
            Err(e) => tracing::warn!(error = %e, "metadata changed but was not reloaded"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::McpServer;
    use atip_runtime::Runner;

    fn examples(file: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/atip")
            .join(file)
    }

    /// Tools loaded by the caller are served as they are: the same definitions as loading the
    /// files, and a number of tools other than the number of files is refused.
    #[test]
    fn loaded_files_serve_what_was_loaded_and_must_be_one_tool_per_file() {
        let files = vec![examples("git.json"), examples("ls.json")];
        let tools = load(&files).unwrap();
        let loaded = McpServer::from_loaded_files(files.clone(), tools, Runner::new()).unwrap();
        let read = McpServer::from_files(files.clone(), Runner::new()).unwrap();
        let names = |s: &McpServer| {
            s.definitions()
                .iter()
                .map(|t| t.name.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&loaded), names(&read));
        assert!(names(&loaded).contains(&"git_commit".to_owned()));
        let one = load(&files[..1]).unwrap();
        let err = McpServer::from_loaded_files(files, one, Runner::new()).unwrap_err();
        assert_eq!(
            err.to_string(),
            McpError::Load("1 loaded tools for 2 files: give one tool per file, in order".into())
                .to_string()
        );
    }
}
