//! Version-control metadata by allow-list (gitrepository-layout(5)).
//!
//! A repository a run can write is found in every writable root: the root's own (`.git`
//! there, or the root inside a git directory), those nested below it down to
//! [`MAX_DEPTH`] levels, the submodules under each `modules/`, and the real git directory a
//! `.git` file names (a worktree's, a submodule's checkout's). For each:
//!
//! * every program but git gets the git directory read-only as a whole — a mount point, so
//!   it cannot be renamed and replaced either;
//! * git (the run's program is `git`, resolved to a path outside every writable root) writes
//!   what it writes in normal use — objects, refs, logs, the index, `HEAD` and the other
//!   `*_HEAD` files, lock files, the state of merges and rebases, new worktrees — while what
//!   makes git run programs or read another repository stays read-only: `config`, `hooks/`,
//!   `info/`, `commondir`, `gitdir`, `config.worktree`, the legacy `remotes/` and
//!   `branches/`, and the same inside each existing `worktrees/<id>/` and `modules/<name>/`.
//!   Missing `hooks/` and `info/` are held by empty read-only directories, a missing
//!   `commondir` by one reading `.` (the repository itself, which git reads as if there were
//!   none) and a missing `config.worktree` by an empty file;
//! * a `.git` *file* (worktree or submodule checkout) is read-only for every program;
//! * the directories that hold a repository, up to the writable root, are mount points, so
//!   that none of them can be renamed and a new repository put in its place.
//!
//! A command that declares a path in or at a git directory in its `filesystem.paths` may
//! write that path (and the rest is held as for git).

use std::path::{Path, PathBuf};

use super::Builder;

/// How many directory levels below a writable root are searched for repositories. A root
/// deeper than this is not searched to its end, and is then read-only for the run.
pub const MAX_DEPTH: usize = 64;

/// How many directories are read, at most, per writable root while searching. A root with
/// more is not searched to its end, and is then read-only for the run: a run that could make
/// directories enough to hide a repository from the search gains nothing by it.
pub const MAX_DIRECTORIES: usize = 50_000;

/// How many `modules/` levels are followed for submodules of submodules.
const MAX_MODULE_DEPTH: usize = 4;

/// What the search of one writable root found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Found {
    /// The directories that hold a `.git` (directory or file), the root's own first.
    pub work_trees: Vec<PathBuf>,
    /// Bare repositories: directories that are a git directory themselves (`HEAD`,
    /// `objects/` and `refs/` in them), which a push to them runs the hooks of.
    pub git_dirs: Vec<PathBuf>,
    /// Directories read.
    pub directories: usize,
    /// Whether the search stopped before the whole tree: deeper than [`MAX_DEPTH`], past
    /// [`MAX_DIRECTORIES`], or at a directory of the runner's own that it may not read (a run
    /// can take the permission away to hide a repository, and give it back after).
    pub cut: bool,
}

/// The repositories at and below `root`, searched breadth-first down to `max_depth` levels and
/// at most `max_directories` directories. Symbolic links are not followed; a git directory is
/// not entered (its submodules are found from the repository itself).
pub fn find(root: &Path, max_depth: usize, max_directories: usize) -> Found {
    let mut found = Found::default();
    let mut level = vec![root.to_path_buf()];
    let mut buf = Vec::new();
    for depth in 0..=max_depth {
        let mut next = Vec::new();
        for dir in level {
            if found.directories >= max_directories {
                found.cut = true;
                return found;
            }
            found.directories += 1;
            let entries = match list(&dir, &mut buf) {
                Ok(entries) => entries,
                Err(e) if hidden_by_its_owner(&dir, &e) => {
                    found.cut = true;
                    return found;
                }
                // Gone meanwhile, or another user's that this one could never write.
                Err(_) => continue,
            };
            let has = |want: &str, dir_wanted: bool| {
                entries
                    .iter()
                    .any(|(n, is_dir)| n == want && *is_dir == dir_wanted)
            };
            if has("HEAD", false) && has("objects", true) && has("refs", true) {
                found.git_dirs.push(dir.clone());
                continue;
            }
            for (name, is_dir) in entries {
                if name == ".git" {
                    found.work_trees.push(dir.clone());
                    continue;
                }
                if !is_dir {
                    continue;
                }
                if depth == max_depth {
                    found.cut = true;
                } else {
                    next.push(dir.join(name));
                }
            }
        }
        level = next;
        if level.is_empty() {
            break;
        }
    }
    found
}

/// Whether listing `dir` failed for want of a permission its owner — this process's user —
/// can take away and give back, as a run may.
fn hidden_by_its_owner(dir: &Path, error: &std::io::Error) -> bool {
    use std::os::unix::fs::MetadataExt;
    matches!(error.raw_os_error(), Some(libc::EACCES | libc::EPERM))
        && std::fs::symlink_metadata(dir)
            // SAFETY: geteuid has no preconditions and cannot fail.
            .is_ok_and(|m| m.uid() == unsafe { libc::geteuid() })
}

/// The entries of `dir` (not `.` and `..`), each with whether it is a directory (links are
/// not followed). On Linux, read with `getdents64` into `buf` (kept between calls): an open,
/// two reads for most directories and a close, without `read_dir`'s `fstat` and its
/// allocations per entry.
#[cfg(target_os = "linux")]
fn list(dir: &Path, buf: &mut Vec<u8>) -> std::io::Result<Vec<(std::ffi::OsString, bool)>> {
    use std::ffi::{CString, OsStr};
    use std::os::unix::ffi::OsStrExt;
    const SIZE: usize = 64 * 1024;
    let path = CString::new(dir.as_os_str().as_bytes())?;
    buf.resize(SIZE, 0);
    // SAFETY: open, getdents64 and close on a NUL-terminated path and a buffer of `SIZE`
    // bytes; records are read within the length the kernel returned.
    unsafe {
        let fd = libc::open(
            path.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut out = Vec::new();
        loop {
            let n = libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), SIZE);
            if n < 0 {
                let e = std::io::Error::last_os_error();
                libc::close(fd);
                return Err(e);
            }
            let n = n as usize;
            let mut at = 0;
            while at + 19 <= n {
                let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
                if reclen == 0 || at + reclen > n {
                    break;
                }
                let kind = buf[at + 18];
                let name_bytes = &buf[at + 19..at + reclen];
                let len = name_bytes
                    .iter()
                    .position(|b| *b == 0)
                    .unwrap_or(name_bytes.len());
                let name = OsStr::from_bytes(&name_bytes[..len]);
                if name != "." && name != ".." {
                    let is_dir = match kind {
                        libc::DT_DIR => true,
                        libc::DT_UNKNOWN => {
                            std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_dir())
                        }
                        _ => false,
                    };
                    out.push((name.to_os_string(), is_dir));
                }
                at += reclen;
            }
            // Read until the end: some file systems (NFS, FUSE) return fewer records than
            // fit, so a short read is not the last.
            if n == 0 {
                break;
            }
        }
        libc::close(fd);
        Ok(out)
    }
}

#[cfg(not(target_os = "linux"))]
fn list(dir: &Path, _buf: &mut Vec<u8>) -> std::io::Result<Vec<(std::ffi::OsString, bool)>> {
    Ok(std::fs::read_dir(dir)?
        .flatten()
        .map(|e| (e.file_name(), e.file_type().is_ok_and(|t| t.is_dir())))
        .collect())
}

/// The git directory a `.git` file names (`gitdir: PATH`, relative to the file's directory),
/// when it is one (holds `HEAD`).
pub(crate) fn linked_git_dir(work_tree: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(work_tree.join(".git")).ok()?;
    let named = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let dir = work_tree.join(named).canonicalize().ok()?;
    is_git_dir(&dir).then_some(dir)
}

/// Whether `dir` looks like a git directory: it holds `HEAD`.
pub(crate) fn is_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file()
}

/// The common directory a git directory's `commondir` names, when that is a git directory
/// other than itself.
fn common_dir(git_dir: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(git_dir.join("commondir")).ok()?;
    let dir = git_dir.join(text.trim_end()).canonicalize().ok()?;
    (dir != git_dir && is_git_dir(&dir)).then_some(dir)
}

/// Applies the rules to the repository whose work tree is `work_tree` (it holds `.git`).
pub(super) fn apply(b: &mut Builder<'_>, work_tree: &Path, git: bool) {
    let dot_git = work_tree.join(".git");
    let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
        return;
    };
    if meta.is_dir() {
        git_dir(b, &dot_git, git, 0);
    } else {
        // A worktree's or a submodule checkout's link: read-only for everyone (git rewrites it
        // only in `worktree move` and `repair`), and the directory it names held as well.
        b.protect(&dot_git, Missing::Leave);
        if let Some(dir) = linked_git_dir(work_tree) {
            if b.is_writable(&dir) {
                git_dir(b, &dir, git, 0);
            }
            if let Some(common) = common_dir(&dir) {
                if b.is_writable(&common) {
                    git_dir(b, &common, git, 0);
                }
            }
        }
    }
}

/// Applies the rules to the git directory at `dir` for a root inside it (the working
/// directory is `.git`, or `.git/hooks`): the same, limited to what lies in the roots.
pub(super) fn enclosing(b: &mut Builder<'_>, dir: &Path, git: bool) {
    git_dir(b, dir, git, 0);
}

/// What to do with a protected path that does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Missing {
    /// Nothing: it stays possible to create (a name git itself creates, or none that
    /// matters).
    Leave,
    /// Hold it with a read-only socket file.
    Socket,
    /// Hold it with an empty read-only directory.
    Dir,
    /// Hold it with a read-only file with these contents.
    File(&'static [u8]),
    /// Hold the outermost missing directory on the way with a socket file, or the name
    /// itself with a read-only file with these contents.
    Outermost(&'static [u8]),
}

impl From<super::names::Hold> for Missing {
    fn from(hold: super::names::Hold) -> Self {
        match hold {
            super::names::Hold::Socket => Missing::Socket,
            super::names::Hold::Dir => Missing::Dir,
            super::names::Hold::File(c) => Missing::File(c),
            super::names::Hold::Outermost(c) => Missing::Outermost(c),
        }
    }
}

fn git_dir(b: &mut Builder<'_>, dir: &Path, git: bool, depth: usize) {
    if b.declares(dir) {
        // The command declares the git directory itself: no protection for it.
        return;
    }
    // Hooks and configuration the repository takes from elsewhere (a `hooks` link into the
    // work tree, `core.hooksPath`, included files): as protected as its own.
    for (path, missing) in referenced(dir) {
        b.protect(&path, missing);
    }
    if !git && !b.declares_inside(dir) {
        b.protect(dir, Missing::Leave);
        return;
    }
    b.pin(dir);
    for (name, missing) in [
        ("config", Missing::Leave),
        ("hooks", Missing::Dir),
        ("info", Missing::Dir),
        ("commondir", Missing::File(b".\n")),
        ("config.worktree", Missing::File(b"")),
        ("gitdir", Missing::Leave),
        ("remotes", Missing::Leave),
        ("branches", Missing::Leave),
    ] {
        // An existing `commondir` names the common directory: a worktree's own.
        b.protect(&dir.join(name), missing);
    }
    let worktrees = dir.join("worktrees");
    if worktrees.is_dir() {
        b.pin(&worktrees);
        for entry in read_dirs(&worktrees) {
            b.pin(&entry);
            for name in ["commondir", "gitdir", "config.worktree"] {
                b.protect(&entry.join(name), Missing::Leave);
            }
        }
    }
    // Submodules' git directories: a new one is a repository git would later enter for the
    // person (`git submodule update`), so `modules/` is read-only to git as well, unless the
    // command declares it (`submodule add`, `update --init`).
    let modules = dir.join("modules");
    if !b.declares(&modules) && !b.declares_inside(&modules) {
        b.protect(&modules, Missing::Dir);
    } else if modules.is_dir() && depth < MAX_MODULE_DEPTH {
        b.pin(&modules);
        for module in module_dirs(&modules) {
            git_dir(b, &module, git, depth + 1);
        }
    }
}

/// What the git directory `dir` makes git run or read from outside itself: the target of a
/// `hooks` link, the `core.hooksPath` of its `config` (relative to the work tree), and the
/// files its `include.path` and `includeIf.*.path` name (relative to the directory).
/// A hooks directory that does not exist is held (git then finds no hook in it); an included
/// file that does not exist is not.
pub(super) fn referenced(dir: &Path) -> Vec<(PathBuf, Missing)> {
    let mut out = Vec::new();
    let hooks = dir.join("hooks");
    if std::fs::symlink_metadata(&hooks).is_ok_and(|m| m.file_type().is_symlink()) {
        if let Ok(target) = hooks.canonicalize() {
            out.push((target, Missing::Socket));
        }
    }
    out.extend(config_references(
        &dir.join("config"),
        Some(dir.parent().unwrap_or(dir)),
        dir,
    ));
    out
}

/// What the configuration file `config` makes git run or read from elsewhere: its
/// `core.hooksPath` (relative to `work_tree`; skipped when relative and there is none, as in
/// the person's global configuration) and its included files (relative to `base`).
pub(super) fn config_references(
    config: &Path,
    work_tree: Option<&Path>,
    base: &Path,
) -> Vec<(PathBuf, Missing)> {
    let mut out = Vec::new();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let resolve = |value: &str, base: Option<&Path>| -> Option<PathBuf> {
        if let Some(rest) = value.strip_prefix("~/") {
            return home.as_ref().map(|h| h.join(rest));
        }
        let p = Path::new(value);
        if p.is_absolute() {
            Some(p.to_path_buf())
        } else {
            base.map(|b| b.join(p))
        }
    };
    let Ok(text) = std::fs::read_to_string(config) else {
        return out;
    };
    for (section, key, value) in config_entries(&text) {
        let path = match (section.as_str(), key.as_str()) {
            ("core", "hookspath") => resolve(&value, work_tree).map(|p| (p, Missing::Socket)),
            ("include", "path") => resolve(&value, Some(base)).map(|p| (p, Missing::Leave)),
            (s, "path") if s.starts_with("includeif") => {
                resolve(&value, Some(base)).map(|p| (p, Missing::Leave))
            }
            _ => None,
        };
        out.extend(path);
    }
    out
}

/// The paths of the submodules (gitlinks: mode 160000) recorded in the index of the git
/// directory `dir`, relative to the work tree. `git status` runs git inside each of them, so a
/// repository planted at one runs its configuration for the person. Index versions 2 to 4;
/// an index that cannot be read gives none.
pub fn gitlinks(dir: &Path) -> Vec<PathBuf> {
    let Ok(bytes) = std::fs::read(dir.join("index")) else {
        return Vec::new();
    };
    let sha256 = std::fs::read_to_string(dir.join("config")).is_ok_and(|t| {
        config_entries(&t)
            .iter()
            .any(|(s, k, v)| s == "extensions" && k == "objectformat" && v == "sha256")
    });
    parse_gitlinks(&bytes, if sha256 { 32 } else { 20 }).unwrap_or_default()
}

fn parse_gitlinks(bytes: &[u8], oid: usize) -> Option<Vec<PathBuf>> {
    use std::os::unix::ffi::OsStrExt;
    let be32 = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    if bytes.get(0..4)? != b"DIRC" {
        return None;
    }
    let version = be32(4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(8)? as usize;
    let mut at = 12;
    let mut out = Vec::new();
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = at;
        let mode = be32(at + 24)?;
        at += 40 + oid;
        let flags = u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?);
        at += 2;
        if version >= 3 && flags & 0x4000 != 0 {
            at += 2;
        }
        let name = if version == 4 {
            // A varint of how many bytes to drop from the previous name, then the rest.
            let mut strip: usize = 0;
            loop {
                let b = *bytes.get(at)?;
                at += 1;
                strip = (strip << 7) | usize::from(b & 0x7f);
                if b & 0x80 == 0 {
                    break;
                }
                strip += 1;
            }
            let end = at + bytes.get(at..)?.iter().position(|b| *b == 0)?;
            let keep = previous.len().checked_sub(strip)?;
            let mut name = previous[..keep].to_vec();
            name.extend_from_slice(&bytes[at..end]);
            at = end + 1;
            name
        } else {
            let end = at + bytes.get(at..)?.iter().position(|b| *b == 0)?;
            let name = bytes[at..end].to_vec();
            // Padded with 1 to 8 NULs to a multiple of 8 from the entry's start.
            at = start + (end - start + 8) / 8 * 8;
            name
        };
        if mode & 0o170000 == 0o160000 {
            out.push(PathBuf::from(std::ffi::OsStr::from_bytes(&name)));
        }
        previous = name;
    }
    Some(out)
}

/// The `(section, key, value)` entries of a git configuration file, sections and keys in
/// lower case (a subsection is kept after a space: `includeif "gitdir:…"`), values unquoted.
/// A small reader for the few keys the sandbox follows, not a full parser.
fn config_entries(text: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut section = String::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let header = rest.split(']').next().unwrap_or("");
            section = header.trim().to_ascii_lowercase();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let mut v = String::new();
        let mut quoted = false;
        for c in value.trim().chars() {
            match c {
                '"' => quoted = !quoted,
                '#' | ';' if !quoted => break,
                c => v.push(c),
            }
        }
        out.push((section.clone(), key, v.trim().to_owned()));
    }
    out
}

/// The subdirectories of `dir`, not following links.
fn read_dirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// The git directories under `modules/` (a submodule's name may hold `/`: `modules/a/b`),
/// at most [`MAX_DEPTH`] levels down.
fn module_dirs(modules: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut level = vec![modules.to_path_buf()];
    for _ in 0..MAX_DEPTH {
        let mut next = Vec::new();
        for dir in level {
            for sub in read_dirs(&dir) {
                if is_git_dir(&sub) {
                    out.push(sub);
                } else {
                    next.push(sub);
                }
            }
        }
        level = next;
    }
    out
}

/// Whether the resolved `program` is git for the purposes of these rules: its file name is
/// `git` and it lies outside every writable root (`roots`), where a run could have put a
/// program of that name.
pub(crate) fn is_git(program: Option<&Path>, roots: &[PathBuf]) -> bool {
    let Some(program) = program else {
        return false;
    };
    let Ok(real) = program.canonicalize() else {
        return false;
    };
    real.file_name().is_some_and(|n| n == "git") && !roots.iter().any(|r| real.starts_with(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repositories_are_found_down_to_the_depth_and_no_deeper() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for repo in ["", "a/inner", "b/c/d/deep", "x/1/2/3/4/5/6/too-deep"] {
            std::fs::create_dir_all(root.join(repo).join(".git")).unwrap();
        }
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/.git"), "gitdir: ../.git/modules/sub\n").unwrap();
        let found = find(root, 6, MAX_DIRECTORIES);
        let mut trees: Vec<_> = found
            .work_trees
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().to_path_buf())
            .collect();
        trees.sort();
        assert_eq!(
            trees,
            ["", "a/inner", "b/c/d/deep", "sub"].map(PathBuf::from)
        );
        assert!(found.cut, "x/1/2/3/4/5/6 lies deeper than this search");
        let all = find(root, MAX_DEPTH, MAX_DIRECTORIES);
        assert_eq!(all.work_trees.len(), 5, "{all:?}");
        assert!(!all.cut);
        let shallow = find(root, 0, MAX_DIRECTORIES);
        assert_eq!(shallow.work_trees, [root.to_path_buf()]);
        assert!(shallow.cut);
        let few = find(root, MAX_DEPTH, 3);
        assert!(few.cut && few.directories == 3, "{few:?}");
    }

    #[test]
    fn submodule_paths_are_read_from_the_index_of_every_version() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
                .args(["-c", "protocol.file.allow=always"])
                .args(args)
                .current_dir(dir.path())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q", "sub"]);
        git(&["-C", "sub", "commit", "-q", "--allow-empty", "-m", "x"]);
        git(&["init", "-q", "top"]);
        std::fs::write(dir.path().join("top/a.txt"), "a").unwrap();
        git(&["-C", "top", "add", "a.txt"]);
        git(&["-C", "top", "submodule", "add", "-q", "../sub", "deps/lib"]);
        for version in ["2", "3", "4"] {
            git(&["-C", "top", "update-index", "--index-version", version]);
            assert_eq!(
                gitlinks(&dir.path().join("top/.git")),
                [PathBuf::from("deps/lib")],
                "index version {version}"
            );
        }
        assert!(
            parse_gitlinks(b"DIRC\0\0\0\x09", 20).is_none(),
            "a version it does not know"
        );
        assert!(
            parse_gitlinks(b"DIRC\0\0\0\x02\0\0\0\x05", 20).is_none(),
            "cut short"
        );
    }

    #[test]
    fn git_is_git_only_outside_the_writable_roots() {
        let dir = tempfile::tempdir().unwrap();
        let planted = dir.path().join("git");
        std::fs::write(&planted, "#!/bin/sh\n").unwrap();
        assert!(!is_git(Some(&planted), &[dir.path().to_path_buf()]));
        assert!(is_git(Some(&planted), &[PathBuf::from("/nonexistent")]));
        assert!(!is_git(Some(Path::new("/bin/sh")), &[]));
        assert!(!is_git(None, &[]));
    }
}
