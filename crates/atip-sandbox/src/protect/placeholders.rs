//! Placeholders: what holds a protected name that does not exist, so that a run cannot create
//! it — an empty directory (or, inside a git directory, a file git reads as harmless) that the
//! run sees read-only — and the plain directories created to reach one (scaffolds, such as
//! `~/.config/systemd` for `~/.config/systemd/user`).
//!
//! Runs of one process share them: a placeholder is created by the first run that needs it
//! and removed after the last one that holds it ends, and only if it is still what was
//! created (an empty directory, or the file with its contents). Removing one while another
//! run still held it would undo that run's protection: a mount on a path that another mount
//! namespace unlinks is detached.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// What a held path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A socket file nothing listens on, read-only to the run.
    Socket,
    /// An empty directory the run sees read-only.
    Dir,
    /// A file with these contents, read-only to the run.
    File(&'static [u8]),
    /// A plain directory on the way to a placeholder, writable by the run.
    Scaffold,
}

#[derive(Debug)]
struct Entry {
    holders: usize,
    kind: Kind,
}

fn table() -> MutexGuard<'static, HashMap<PathBuf, Entry>> {
    static TABLE: OnceLock<Mutex<HashMap<PathBuf, Entry>>> = OnceLock::new();
    TABLE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// One hold on a created path; the path goes when the last hold on it is dropped.
#[derive(Debug)]
pub(crate) struct Held {
    path: PathBuf,
    kind: Kind,
}

impl Held {
    /// The path held.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether it is a placeholder (not a scaffold).
    pub fn is_placeholder(&self) -> bool {
        self.kind != Kind::Scaffold
    }
}

/// Another hold on `path` when a run of this process created it and still holds it: a run
/// that finds a placeholder or scaffold of another run's must keep it alive for its own.
pub(crate) fn share(path: &Path) -> Option<Held> {
    let mut table = table();
    let entry = table.get_mut(path)?;
    entry.holders += 1;
    Some(Held {
        path: path.to_path_buf(),
        kind: entry.kind,
    })
}

/// Creates `path` as `kind` if it does not exist, or takes another hold on it when a run of
/// this process created it. `Ok(None)` when something else exists there now (it is then
/// protected as an existing path).
///
/// # Errors
///
/// The error of `mkdir` or of writing the file (the runner may not create it: neither may
/// the run).
pub(crate) fn hold(path: &Path, kind: Kind) -> io::Result<Option<Held>> {
    let mut table = table();
    if let Some(entry) = table.get_mut(path) {
        if entry.kind == kind {
            entry.holders += 1;
            return Ok(Some(Held {
                path: path.to_path_buf(),
                kind,
            }));
        }
        return Ok(None);
    }
    let created = match kind {
        Kind::Dir | Kind::Scaffold => std::fs::create_dir(path),
        // Binding makes the file; closing the socket leaves it, with nothing listening.
        Kind::Socket => std::os::unix::net::UnixListener::bind(path).map(drop),
        Kind::File(contents) => std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .and_then(|mut f| io::Write::write_all(&mut f, contents)),
    };
    match created {
        Ok(()) => {
            table.insert(path.to_path_buf(), Entry { holders: 1, kind });
            Ok(Some(Held {
                path: path.to_path_buf(),
                kind,
            }))
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(None),
        Err(e) => Err(e),
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut table = table();
        let Some(entry) = table.get_mut(&self.path) else {
            return;
        };
        entry.holders -= 1;
        if entry.holders > 0 {
            return;
        }
        table.remove(&self.path);
        match self.kind {
            // Only an empty directory goes: whatever another process put there stays.
            Kind::Dir | Kind::Scaffold => {
                let _ = std::fs::remove_dir(&self.path);
            }
            Kind::Socket => {
                use std::os::unix::fs::FileTypeExt;
                if std::fs::symlink_metadata(&self.path).is_ok_and(|m| m.file_type().is_socket()) {
                    let _ = std::fs::remove_file(&self.path);
                }
            }
            Kind::File(contents) => {
                let unchanged = std::fs::symlink_metadata(&self.path)
                    .is_ok_and(|m| m.is_file() && m.len() == contents.len() as u64)
                    && std::fs::read(&self.path).is_ok_and(|c| c == contents);
                if unchanged {
                    let _ = std::fs::remove_file(&self.path);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_lives_as_long_as_its_last_hold() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".envrc");
        let a = hold(&p, Kind::Dir).unwrap().unwrap();
        let b = hold(&p, Kind::Dir).unwrap().unwrap();
        assert!(p.is_dir());
        drop(a);
        assert!(p.is_dir(), "the second hold keeps it");
        drop(b);
        assert!(!p.exists());
        // Something that exists is not taken over, and stays.
        std::fs::write(&p, "mine").unwrap();
        assert!(hold(&p, Kind::Dir).unwrap().is_none());
        let f = dir.path().join("commondir");
        let held = hold(&f, Kind::File(b".\n")).unwrap().unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b".\n");
        std::fs::write(&f, "changed").unwrap();
        drop(held);
        assert!(f.exists(), "a file that changed is left alone");
    }
}
