//! What stays out of a run's reach even where it may write or read. Protection is by
//! allow-list: what a run may write is what its effects declare, and inside that, whatever
//! programs outside any sandbox would later run stays read-only — including names that do not
//! exist yet, renames of the directories that hold them, and other repositories under a
//! writable root. The sandbox applies the result with a private mount namespace (read-only
//! bind mounts, mount points that cannot be renamed, empty mounts over hidden stores), under
//! Landlock.
//!
//! * **Protected names** ([`names`]): inside every writable root ([`names::IN_ROOT`]: editor
//!   tasks, direnv, coding agents' and MCP clients' configuration, git attributes and modules,
//!   CI workflows, build-tool configuration), in the home directory when it is writable
//!   ([`names::IN_HOME`]: shell start-up files, git and ssh configuration, user services,
//!   autostart, build-tool configuration, this library's macro cache), where variables such
//!   as `XDG_CONFIG_HOME` or `CARGO_HOME` point ([`names::IN_VARIABLES`]), and every directory
//!   on the run's `PATH` inside a writable root. An existing one is read-only; a missing one is
//!   held by a read-only placeholder for the run (a socket file, or an empty directory or file) and removed after it.
//!   A command whose own `filesystem.paths` names one of them, or a path inside it, may write
//!   that one.
//! * **Version control** ([`git`]): every repository a run can write — the root's, nested
//!   ones, submodules, a worktree's real git directory — is read-only to every program but
//!   git, and git writes only what it writes in normal use.
//! * **Renames**: every directory between a writable root and a protected path is a mount point
//!   (bound onto itself), so it cannot be renamed and replaced by a tree of the run's making;
//!   a protected path that is a symbolic link is pinned itself (the link cannot be replaced)
//!   and its target is read-only.
//! * **Credential stores and daemon sockets** ([`stores`]): a run sees only those its program
//!   owns (by the program's file name, resolved outside every writable root: `ssh`, `aws`, …)
//!   and those the caller grants ([`super::Sandbox::credentials`]); the others are covered by
//!   an empty directory or file with no permissions, wherever the tool's variables say they are
//!   (`KUBECONFIG`, `GNUPGHOME`, `XDG_CONFIG_HOME`, …). Runs that may open Unix sockets also
//!   find the session's sockets (D-Bus, systemd, the display, tmux) covered.

pub mod git;
pub mod names;
pub(crate) mod placeholders;
pub mod stores;

use std::path::{Path, PathBuf};

use git::Missing;
use placeholders::{Held, Kind};

/// How many placeholders and scaffolds one run may create (the working directory's names, a
/// writable home's, and those of repositories nested below); past it, names stay creatable and
/// the report says so.
pub const MAX_PLACEHOLDERS: usize = 256;

/// What to hide and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Hidden {
    /// A directory, covered by an empty one.
    Dir(PathBuf),
    /// A file or socket, covered by an empty one.
    File(PathBuf),
}

impl Hidden {
    pub(crate) fn path(&self) -> &Path {
        match self {
            Hidden::Dir(p) | Hidden::File(p) => p,
        }
    }
}

/// The places a run's environment says its tools keep things: the home directory, and the
/// values of the variables the tables name (`stores::variables`), from both the child's
/// environment and the runner's (a store is hidden wherever either says it is).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Places {
    /// The home directory (`HOME` of the run).
    pub home: Option<PathBuf>,
    /// `(name, value)`; a name may appear twice with different values.
    pub vars: Vec<(String, PathBuf)>,
}

impl Places {
    /// The values of `name`.
    pub fn var(&self, name: &str) -> Vec<PathBuf> {
        self.vars
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The absolute directories on `PATH`.
    pub fn path_dirs(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for value in self.var("PATH") {
            for dir in std::env::split_paths(value.as_os_str()) {
                if !out.contains(&dir) {
                    out.push(dir);
                }
            }
        }
        out
    }
}

/// A caller's grant of a credential store to programs matching a glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// A glob over the program's file name (`terraform`, `aws*`).
    pub program: String,
    /// The store or socket it may see.
    pub path: PathBuf,
}

/// What the mount namespace does for one run.
#[derive(Debug, Default)]
pub(crate) struct Shield {
    /// Directories bound onto themselves: they cannot be renamed or removed.
    pub pins: Vec<PathBuf>,
    /// Symbolic links bound onto themselves: they cannot be replaced.
    pub link_pins: Vec<PathBuf>,
    /// Existing paths (and placeholders) to make read-only.
    pub read_only: Vec<PathBuf>,
    /// Stores and sockets to hide.
    pub hidden: Vec<Hidden>,
    /// Placeholders and scaffolds created for the run, released when this goes.
    pub held: Vec<Held>,
    /// Sentences for the report's `not_enforced`.
    pub notes: Vec<String>,
}

impl Shield {
    /// Whether there is anything to mount.
    pub fn is_empty(&self) -> bool {
        self.read_only.is_empty()
            && self.hidden.is_empty()
            && self.pins.is_empty()
            && self.link_pins.is_empty()
    }

    /// Mounts the existing directory `p` read-only as a whole, whatever the run declares
    /// (once, however many reasons ask for it).
    fn hold_whole(&mut self, p: &Path) {
        if !self.read_only.iter().any(|x| x == p) {
            self.read_only.push(p.to_path_buf());
        }
    }

    /// Takes a hold on `p` when it is a placeholder or scaffold another run of this process
    /// created: it must outlive this run too (a path protected, pinned or hidden here is
    /// mounted on in the child, after that run may have ended).
    fn share(&mut self, p: &Path) {
        if self.held.iter().any(|h| h.path() == p) {
            return;
        }
        if let Some(held) = placeholders::share(p) {
            self.held.push(held);
        }
    }

    /// The placeholders (not the scaffolds) it holds.
    pub fn placeholders(&self) -> Vec<PathBuf> {
        self.held
            .iter()
            .filter(|h| h.is_placeholder())
            .map(|h| h.path().to_path_buf())
            .collect()
    }
}

/// What a run may write and who runs, for planning its shield.
pub(crate) struct Target<'a> {
    /// The roots it may write under; `None`: anywhere (the shield then covers the working
    /// directory and the home directory).
    pub writable: Option<&'a [PathBuf]>,
    /// The working directory.
    pub working_dir: &'a Path,
    /// The paths its command names in `filesystem.paths`.
    pub declared: &'a [PathBuf],
    /// The resolved program.
    pub program: Option<&'a Path>,
    /// Whether the run may open Unix sockets (its session's sockets are hidden then).
    pub unix_sockets: bool,
    /// Unix sockets the policy lists: never hidden.
    pub listed_sockets: &'a [PathBuf],
}

/// Collects the shield of one run.
struct Builder<'a> {
    /// The roots protections are planned for.
    roots: Vec<PathBuf>,
    /// Writes are not confined (everything counts as writable).
    unconfined: bool,
    declared: &'a [PathBuf],
    shield: Shield,
    budget: usize,
    placeholder_failures: usize,
}

impl<'a> Builder<'a> {
    fn new(roots: Vec<PathBuf>, unconfined: bool, declared: &'a [PathBuf]) -> Self {
        Builder {
            roots,
            unconfined,
            declared,
            shield: Shield::default(),
            budget: MAX_PLACEHOLDERS,
            placeholder_failures: 0,
        }
    }

    /// Whether the run may write `p`.
    fn is_writable(&self, p: &Path) -> bool {
        self.unconfined || self.roots.iter().any(|r| p.starts_with(r))
    }

    /// Whether the command declares exactly `p`.
    fn declares(&self, p: &Path) -> bool {
        self.declared.iter().any(|d| d == p)
    }

    /// Whether the command declares a path strictly inside `p`.
    fn declares_inside(&self, p: &Path) -> bool {
        self.declared.iter().any(|d| d != p && d.starts_with(p))
    }

    /// Whether `p`, or a path inside it, is declared: its protection is lifted.
    fn named(&self, p: &Path) -> bool {
        self.declares(p) || self.declares_inside(p)
    }

    /// The outermost writable root holding `p`.
    fn root_of(&self, p: &Path) -> Option<&Path> {
        self.roots
            .iter()
            .filter(|r| p.starts_with(r))
            .min_by_key(|r| r.components().count())
            .map(PathBuf::as_path)
    }

    /// Pins every directory between `p`'s writable root (exclusive) and `p` (exclusive).
    fn pin_ancestors(&mut self, p: &Path) {
        let Some(root) = self.root_of(p).map(Path::to_path_buf) else {
            return;
        };
        let mut between: Vec<PathBuf> = p
            .ancestors()
            .skip(1)
            .take_while(|a| *a != root && a.starts_with(&root))
            .map(Path::to_path_buf)
            .collect();
        between.reverse();
        for a in between {
            self.shield.share(&a);
            self.pin_one(&a);
        }
    }

    fn pin_one(&mut self, p: &Path) {
        let list = match std::fs::symlink_metadata(p) {
            Ok(m) if m.file_type().is_symlink() => &mut self.shield.link_pins,
            Ok(m) if m.is_dir() => &mut self.shield.pins,
            _ => return,
        };
        if !list.iter().any(|x| x == p) {
            list.push(p.to_path_buf());
        }
    }

    /// Makes `p` (a directory) a mount point, and the directories above it up to its root.
    fn pin(&mut self, p: &Path) {
        if !self.is_writable(p) {
            return;
        }
        self.pin_ancestors(p);
        self.pin_one(p);
    }

    /// Keeps `p` as it is: read-only if it exists (a symbolic link pinned and its target
    /// read-only), held as `missing` says if it does not; the directories above it pinned.
    fn protect(&mut self, p: &Path, missing: Missing) {
        if self.named(p) || !self.is_writable(p) || self.shield.read_only.iter().any(|x| x == p) {
            return;
        }
        // An ancestor that is not a directory (a placeholder an earlier or concurrent run
        // left, a file): the name cannot be created while it stays, so it stays.
        if let Some(blocker) = self.non_directory_ancestor(p) {
            self.protect(&blocker, Missing::Leave);
            return;
        }
        self.shield.share(p);
        match std::fs::symlink_metadata(p) {
            Ok(m) if m.file_type().is_symlink() => {
                self.pin_ancestors(p);
                self.pin_one(p);
                if let Ok(target) = p.canonicalize() {
                    // The target's own directories, where they are writable: renaming one
                    // would carry the read-only mount away.
                    self.pin_ancestors(&target);
                    self.shield.read_only.push(p.to_path_buf());
                } else {
                    self.shield.notes.push(format!(
                        "{} is a symbolic link to a path that does not exist: a run that may \
                         write there could create it",
                        p.display()
                    ));
                }
            }
            Ok(_) => {
                self.pin_ancestors(p);
                self.shield.read_only.push(p.to_path_buf());
            }
            Err(_) => {
                let (at, kind) = match missing {
                    Missing::Leave => return,
                    Missing::Socket => (p.to_path_buf(), Kind::Socket),
                    Missing::Dir => (p.to_path_buf(), Kind::Dir),
                    Missing::File(contents) => (p.to_path_buf(), Kind::File(contents)),
                    Missing::Outermost(contents) => {
                        let outermost = p
                            .ancestors()
                            .skip(1)
                            .take_while(|a| !a.exists())
                            .last()
                            .map(Path::to_path_buf);
                        match outermost {
                            Some(dir) => (dir, Kind::Socket),
                            None => (p.to_path_buf(), Kind::File(contents)),
                        }
                    }
                };
                if self.shield.read_only.contains(&at) {
                    return;
                }
                if self.hold(&at, kind) {
                    self.pin_ancestors(&at);
                    self.shield.read_only.push(at);
                }
            }
        }
    }

    /// The outermost path between `p`'s writable root and `p` that exists and is not a
    /// directory (nor a link to one).
    fn non_directory_ancestor(&self, p: &Path) -> Option<PathBuf> {
        let root = self.root_of(p)?;
        let mut between: Vec<&Path> = p
            .ancestors()
            .skip(1)
            .take_while(|a| *a != root && a.starts_with(root))
            .collect();
        between.reverse();
        between
            .into_iter()
            .find(|a| std::fs::symlink_metadata(a).is_ok() && !a.is_dir())
            .map(Path::to_path_buf)
    }

    /// Creates the placeholder `p` (and the scaffolds on the way to it); whether it now
    /// exists to be bound.
    fn hold(&mut self, p: &Path, kind: Kind) -> bool {
        let Some(parent) = p.parent() else {
            return false;
        };
        let missing_parents: Vec<PathBuf> = parent
            .ancestors()
            .take_while(|a| !a.exists())
            .map(Path::to_path_buf)
            .collect();
        if self.budget < missing_parents.len() + 1 {
            self.placeholder_failures += 1;
            return false;
        }
        for dir in missing_parents.iter().rev() {
            if !self.is_writable(dir) {
                return false;
            }
            match placeholders::hold(dir, Kind::Scaffold) {
                Ok(Some(held)) => {
                    self.budget -= 1;
                    self.shield.held.push(held);
                }
                Ok(None) => {}
                Err(_) => return false,
            }
        }
        match placeholders::hold(p, kind) {
            Ok(Some(held)) => {
                self.budget -= 1;
                self.shield.held.push(held);
                true
            }
            // Something appeared meanwhile: protect it as it is.
            Ok(None) => p.exists(),
            // The runner cannot create it, so neither can the run (same user, fewer rights).
            Err(_) => false,
        }
    }

    fn finish(mut self) -> Shield {
        if self.placeholder_failures > 0 {
            self.shield.notes.push(format!(
                "{} protected names that do not exist were not held (more than {} \
                 placeholders): a run could create them",
                self.placeholder_failures, MAX_PLACEHOLDERS
            ));
        }
        self.shield
    }
}

/// Plans the shield of a run.
pub(crate) fn plan(
    target: &Target<'_>,
    places: &Places,
    program_name: Option<&str>,
    grants: &[Grant],
) -> Shield {
    let unconfined = target.writable.is_none();
    let mut roots: Vec<PathBuf> = match target.writable {
        Some(roots) => roots.to_vec(),
        None => vec![target.working_dir.to_path_buf()],
    };
    if unconfined {
        roots.extend(places.home.clone());
    }
    roots.sort();
    roots.dedup();
    let git = git::is_git(target.program, &roots);
    let mut b = Builder::new(roots.clone(), unconfined, target.declared);
    for root in &roots {
        plan_root(&mut b, root, git);
    }
    // Wherever a writable root meets them: the home directory itself, or a root inside it
    // (`~/.config`, `~/.cargo`).
    if let Some(home) = &places.home {
        for entry in names::IN_HOME {
            b.protect(&home.join(entry.path), entry.hold.into());
        }
    }
    for (name, rel, _, hold) in names::IN_VARIABLES {
        for value in places.var(name) {
            if value.is_absolute() {
                let p = if rel.is_empty() {
                    value
                } else {
                    value.join(rel)
                };
                b.protect(&p, (*hold).into());
            }
        }
    }
    // The person's own git configuration: hooks it points git at, files it includes.
    let mut globals: Vec<PathBuf> = places.var("GIT_CONFIG_GLOBAL");
    if let Some(home) = &places.home {
        globals.push(home.join(".gitconfig"));
        globals.push(home.join(".config/git/config"));
    }
    globals.extend(
        places
            .var("XDG_CONFIG_HOME")
            .iter()
            .map(|d| d.join("git/config")),
    );
    for config in globals {
        let base = config.parent().map(Path::to_path_buf).unwrap_or_default();
        for (path, missing) in git::config_references(&config, None, &base) {
            b.protect(&path, missing);
        }
    }
    for dir in places.path_dirs() {
        if !dir.is_absolute() {
            b.shield.notes.push(format!(
                "PATH holds the relative directory {:?}: a program a run writes there could \
                 later run in place of another",
                dir.display().to_string()
            ));
        } else if roots.iter().any(|r| r.starts_with(&dir)) {
            b.shield.notes.push(format!(
                "PATH holds {}, which a run may write: a program it writes there could later \
                 run in place of another",
                dir.display()
            ));
        } else {
            b.protect(&dir, Missing::Dir);
        }
    }
    let mut shield = b.finish();
    hide_stores(target, places, program_name, grants, &mut shield);
    shield
}

/// The protections of one writable root: its repositories, its protected names, and the
/// protected names of the repositories nested in it.
fn plan_root(b: &mut Builder<'_>, root: &Path, git: bool) {
    // A root inside a git directory (the working directory is `.git`, or `.git/hooks`): that
    // git directory's rules, for the part of it in the roots.
    if let Some(dir) = root
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".git") && a.is_dir())
    {
        enclosing(b, dir, git);
        return;
    }
    let found = git::find(root, git::MAX_DEPTH, git::MAX_DIRECTORIES);
    if found.cut {
        // Fail closed: a repository the search did not reach would be writable, its hooks and
        // configuration with it, and a run can make directories enough to push one past the
        // search. So the whole root is held read-only.
        b.shield.notes.push(format!(
            "{} holds more than {} directories, lies deeper than {} levels or has a \
             directory this user may not read, so its repositories could not all be found: it \
             is read-only for this run",
            root.display(),
            git::MAX_DIRECTORIES,
            git::MAX_DEPTH
        ));
        // Whatever the command declares: a declared root is otherwise left to it.
        b.shield.hold_whole(root);
        return;
    }
    for dir in &found.git_dirs {
        enclosing(b, dir, git);
    }
    let trees = remember(root, found.work_trees);
    for tree in &trees {
        git::apply(b, tree, git);
        // Where the index records a submodule, `git status` runs git: a repository planted
        // there would run its configuration, so its `.git` is held like the root's.
        for link in git::gitlinks(&tree.join(".git")) {
            let dot_git = tree.join(link).join(".git");
            if std::fs::symlink_metadata(&dot_git).is_err() {
                b.protect(&dot_git, Missing::Socket);
            }
        }
    }
    let mut with_root: Vec<&Path> = vec![root];
    with_root.extend(trees.iter().map(PathBuf::as_path).filter(|t| *t != root));
    for tree in with_root {
        for entry in names::IN_ROOT {
            // An existing `.git` is the repository rules' business.
            let p = tree.join(entry.path);
            if entry.path == ".git" && std::fs::symlink_metadata(&p).is_ok() {
                continue;
            }
            b.protect(&p, entry.hold.into());
        }
    }
}

/// The repositories found under `root`, with every one an earlier run of this process found
/// there and that still exists: a search cut short (a run that made tens of thousands of
/// directories) does not lose a repository it knew.
fn remember(root: &Path, found: Vec<PathBuf>) -> Vec<PathBuf> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static KNOWN: OnceLock<Mutex<HashMap<PathBuf, Vec<PathBuf>>>> = OnceLock::new();
    let mut known = KNOWN
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let entry = known.entry(root.to_path_buf()).or_default();
    entry.retain(|t| std::fs::symlink_metadata(t.join(".git")).is_ok());
    for tree in found {
        if !entry.contains(&tree) {
            entry.push(tree);
        }
    }
    entry.clone()
}

/// A root inside the git directory `dir`: for every program but git the whole directory is
/// read-only (the root with it); for git, the git rules where they fall inside the roots.
fn enclosing(b: &mut Builder<'_>, dir: &Path, git: bool) {
    if !git && !b.declares_inside(dir) && !b.declares(dir) {
        b.shield.hold_whole(dir);
        return;
    }
    git::enclosing(b, dir, git);
}

/// Whether `program` (a file name) matches `pattern` (a glob, or a plain name).
fn program_matches(pattern: &str, program: &str) -> bool {
    match glob::Pattern::new(pattern) {
        Ok(g) => g.matches(program),
        Err(_) => pattern == program,
    }
}

fn hide_stores(
    target: &Target<'_>,
    places: &Places,
    program: Option<&str>,
    grants: &[Grant],
    shield: &mut Shield,
) {
    let owns = |owners: &[&str]| program.is_some_and(|p| owners.contains(&p));
    let granted = |path: &Path| {
        grants.iter().any(|g| {
            program.is_some_and(|p| program_matches(&g.program, p))
                && (path == g.path || path.starts_with(&g.path))
        }) || target
            .listed_sockets
            .iter()
            .any(|l| path == l || l.starts_with(path))
    };
    let var = |name: &str| places.var(name);
    let mut hide = |path: PathBuf| {
        // A placeholder another run of this process made here (an unconfined run's `~/.ssh`)
        // is removed when that run ends: held first, it is still there when this run's child
        // mounts over it (else: ENOENT in the child's setup).
        shield.share(&path);
        let Ok(meta) = std::fs::metadata(&path) else {
            return;
        };
        if granted(&path) || shield.hidden.iter().any(|h| h.path() == path) {
            return;
        }
        // A store that is also a protected path is hidden, not merely read-only.
        shield.read_only.retain(|p| p != &path);
        shield.hidden.push(if meta.is_dir() {
            Hidden::Dir(path)
        } else {
            Hidden::File(path)
        });
    };
    let mut tables: Vec<&[stores::Store]> = vec![stores::CREDENTIAL_STORES, stores::DAEMON_SOCKETS];
    if target.unix_sockets {
        tables.push(stores::SESSION_SOCKETS);
    }
    for table in tables {
        for store in table {
            if owns(store.owners) {
                continue;
            }
            for at in store.at {
                for path in stores::resolve(*at, places.home.as_ref(), &var) {
                    hide(path);
                }
            }
        }
    }
}

/// The daemon sockets `program` owns, where they are ([`stores::DAEMON_SOCKETS`]).
pub(crate) fn owned_sockets(places: &Places, program: Option<&str>) -> Vec<PathBuf> {
    let Some(program) = program else {
        return Vec::new();
    };
    let var = |name: &str| places.var(name);
    stores::DAEMON_SOCKETS
        .iter()
        .filter(|s| s.owners.contains(&program))
        .flat_map(|s| s.at.iter())
        .flat_map(|at| stores::resolve(*at, places.home.as_ref(), &var))
        .filter(|p| p.exists())
        .collect()
}

#[cfg(test)]
mod tests;
