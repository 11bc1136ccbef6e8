//! What stays out of a run's reach even where it may write or read: protected paths, kept
//! read-only inside writable roots because programs outside any sandbox run what they hold,
//! and credential stores and daemon sockets, hidden from every program but the ones that own
//! them. The sandbox applies the result with a private mount namespace (read-only bind mounts,
//! empty mounts over hidden stores), under Landlock.
//!
//! **Protected inside every writable root** (a command whose own `filesystem.paths` names one
//! of them, or a path inside it, may write that one):
//!
//! | path | why |
//! |---|---|
//! | `.git/hooks/` | scripts git runs on commit, checkout, merge and push, outside any sandbox |
//! | `.git/config` | `core.fsmonitor`, `core.pager`, `core.sshCommand`, aliases with `!`, filter drivers: commands git runs |
//! | `.git/info/` | `attributes` (which filter drivers apply) and `sparse-checkout` |
//! | `.gitmodules` | the URLs and paths a later `git submodule update` fetches |
//! | `.vscode/`, `.idea/`, `.devcontainer/` | tasks, run configurations and container builds an editor starts |
//! | `.mcp.json`, `.claude/`, `.cursor/`, `.codex/`, `.gemini/` | MCP servers, hooks and commands coding agents start |
//! | `.envrc` | direnv runs it when a shell enters the directory |
//!
//! For a git worktree (`.git` is a file `gitdir: …`) the real git directory it names, and its
//! common directory (`commondir`), get the same protection for their `hooks/`, `config`,
//! `config.worktree` and `info/` when they are writable. Missing `hooks/` and `info/`
//! directories are created empty first (git treats an empty `hooks/` as none), so that a run
//! cannot create them.
//!
//! **Protected in the home directory when it is writable** (the agent works in `~`, or `~` is
//! granted): shell start-up files (`.bashrc`, `.bash_profile`, `.bash_login`, `.bash_logout`,
//! `.profile`, `.zshrc`, `.zprofile`, `.zshenv`, `.zlogin`, `.config/fish/`), `.gitconfig`,
//! `.config/git/`, `.ssh/`, `.pam_environment`, `.config/autostart/` and
//! `.config/systemd/user/` (programs a session starts). One that does not exist could be
//! created by the run: the report lists it under `not_enforced`.
//!
//! **Credential stores**: a run sees only those its program owns (by the program's file name,
//! `ssh`, `aws`, …) and those the caller grants ([`super::Sandbox::credentials`]); the others are
//! replaced by an empty directory or file with no permissions. Daemon sockets follow the same
//! table. See [`CREDENTIAL_STORES`] and [`DAEMON_SOCKETS`].

use std::path::{Path, PathBuf};

/// Protected names under each writable root, with the reason.
pub const PROTECTED_IN_ROOT: &[(&str, &str)] = &[
    (".git/hooks", "scripts git runs outside any sandbox"),
    (".git/config", "configuration whose settings run programs"),
    (".git/info", "attributes and sparse-checkout rules"),
    (".gitmodules", "the URLs submodules are fetched from"),
    (".vscode", "editor tasks and run configurations"),
    (".idea", "editor run configurations"),
    (
        ".devcontainer",
        "container definitions an editor builds and runs",
    ),
    (".mcp.json", "MCP servers a coding agent starts"),
    (".claude", "a coding agent's hooks and commands"),
    (".cursor", "a coding agent's rules and MCP servers"),
    (".codex", "a coding agent's configuration"),
    (".gemini", "a coding agent's configuration"),
    (".envrc", "run by direnv when a shell enters the directory"),
];

/// Protected names in the home directory when it is writable.
pub const PROTECTED_IN_HOME: &[(&str, &str)] = &[
    (".bashrc", "run by every interactive bash"),
    (".bash_profile", "run by bash login shells"),
    (".bash_login", "run by bash login shells"),
    (".bash_logout", "run when a bash login shell exits"),
    (".profile", "run by login shells"),
    (".zshrc", "run by every interactive zsh"),
    (".zprofile", "run by zsh login shells"),
    (".zshenv", "run by every zsh"),
    (".zlogin", "run by zsh login shells"),
    (".config/fish", "fish's start-up files"),
    (
        ".gitconfig",
        "git configuration whose settings run programs",
    ),
    (
        ".config/git",
        "git configuration whose settings run programs",
    ),
    (".ssh", "keys, and `config` with `ProxyCommand`"),
    (".pam_environment", "read at every login"),
    (".config/autostart", "programs a desktop session starts"),
    (
        ".config/systemd/user",
        "services the user's service manager starts",
    ),
];

/// Where tools keep credentials (relative to the home directory), and the programs that own
/// each: a run of any other program finds it empty. Sources: each tool's documentation of
/// its configuration files (OpenSSH `ssh(1)`, AWS CLI "Configuration and credential file
/// settings", Azure CLI "CLI configuration", gcloud `config`, kubectl "Organizing cluster
/// access using kubeconfig files", Docker `docker login`, `netrc(5)`, git-credential-store,
/// gh "gh auth login", GnuPG `gpg(1)` files, npm `npmrc`, `.pypirc` (PyPA), Cargo
/// "Credentials", Terraform "CLI configuration: credentials", hub, pass, Vault token helper,
/// doctl).
pub const CREDENTIAL_STORES: &[(&str, &[&str])] = &[
    (
        ".ssh",
        &[
            "ssh",
            "scp",
            "sftp",
            "ssh-add",
            "ssh-keygen",
            "ssh-copy-id",
            "git",
            "rsync",
        ],
    ),
    (".aws", &["aws"]),
    (".azure", &["az"]),
    (".config/gcloud", &["gcloud", "gsutil", "bq"]),
    (
        ".kube",
        &["kubectl", "helm", "k9s", "kustomize", "minikube", "kind"],
    ),
    (".docker/config.json", &["docker", "docker-compose"]),
    (".netrc", &["curl", "wget", "git", "ftp"]),
    (".git-credentials", &["git"]),
    (".config/gh", &["gh"]),
    (".gnupg", &["gpg", "gpg2", "gpg-agent", "git"]),
    (".npmrc", &["npm", "npx", "pnpm", "yarn"]),
    (".pypirc", &["twine", "pip", "pip3", "uv", "poetry"]),
    (".cargo/credentials.toml", &["cargo"]),
    (".cargo/credentials", &["cargo"]),
    (".terraform.d/credentials.tfrc.json", &["terraform", "tofu"]),
    (".config/hub", &["hub"]),
    (".password-store", &["pass"]),
    (".vault-token", &["vault"]),
    (".config/doctl", &["doctl"]),
];

/// Daemon sockets (absolute, or `$XDG_RUNTIME_DIR/…`, or `$SSH_AUTH_SOCK`) and the programs
/// that may connect: a daemon acts for whoever connects, so a socket is a credential.
pub const DAEMON_SOCKETS: &[(&str, &[&str])] = &[
    ("/var/run/docker.sock", &["docker", "docker-compose"]),
    ("/run/docker.sock", &["docker", "docker-compose"]),
    (
        "$XDG_RUNTIME_DIR/docker.sock",
        &["docker", "docker-compose"],
    ),
    (
        "/run/containerd/containerd.sock",
        &["ctr", "nerdctl", "crictl"],
    ),
    ("/run/podman/podman.sock", &["podman"]),
    ("$XDG_RUNTIME_DIR/podman/podman.sock", &["podman"]),
    (
        "$XDG_RUNTIME_DIR/gnupg",
        &["gpg", "gpg2", "gpg-agent", "git"],
    ),
    (
        "$SSH_AUTH_SOCK",
        &["ssh", "scp", "sftp", "ssh-add", "git", "rsync"],
    ),
];

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

/// The places a run's environment says its tools keep things: the home directory, the
/// runtime directory, the ssh agent's socket (from the child's environment).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Places {
    pub home: Option<PathBuf>,
    pub runtime_dir: Option<PathBuf>,
    pub ssh_auth_sock: Option<PathBuf>,
}

/// A caller's grant of a credential store to programs matching a glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Grant {
    pub program: String,
    pub path: PathBuf,
}

/// What the mount namespace does for one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Shield {
    /// Existing paths to make read-only.
    pub read_only: Vec<PathBuf>,
    /// Stores and sockets to hide.
    pub hidden: Vec<Hidden>,
    /// Directories created empty before the run so that the run cannot create them, to be
    /// removed after it if still empty.
    pub created: Vec<PathBuf>,
    /// Sentences for the report's `not_enforced`.
    pub notes: Vec<String>,
}

impl Shield {
    /// Whether there is anything to do.
    pub fn is_empty(&self) -> bool {
        self.read_only.is_empty() && self.hidden.is_empty()
    }
}

/// Plans the shield of a run: `writable` are the roots it may write under (`None`: anywhere),
/// `declared` the paths its command names in `filesystem.paths`, `program` the file name of
/// what runs, `grants` the caller's credential grants.
pub(crate) fn plan(
    writable: Option<&[PathBuf]>,
    declared: &[PathBuf],
    places: &Places,
    program: Option<&str>,
    grants: &[Grant],
) -> Shield {
    let mut shield = Shield::default();
    let named = |p: &Path| declared.iter().any(|d| d == p || d.starts_with(p));
    let is_writable = |p: &Path| match writable {
        None => true,
        Some(roots) => roots.iter().any(|r| p.starts_with(r)),
    };
    let protect = |p: PathBuf, shield: &mut Shield| {
        if named(&p) || shield.read_only.contains(&p) {
            return;
        }
        if std::fs::symlink_metadata(&p).is_ok() {
            shield.read_only.push(p);
        }
    };
    let roots: Vec<PathBuf> = writable.map(<[PathBuf]>::to_vec).unwrap_or_default();
    for root in &roots {
        // A root inside the tree's protected paths (the working directory is `.git`, or
        // `.git/hooks` itself): those of the enclosing trees that lie in it.
        for above in root.ancestors().skip(1) {
            for (name, _) in PROTECTED_IN_ROOT {
                let p = above.join(name);
                if p.starts_with(root) {
                    protect(p, &mut shield);
                }
            }
            if root.starts_with(above.join(".git")) {
                for git_dir in git_dirs(above) {
                    for sub in ["hooks", "info", "config", "config.worktree"] {
                        let p = git_dir.join(sub);
                        if p.starts_with(root) {
                            protect(p, &mut shield);
                        }
                    }
                }
            }
        }
        for (name, _) in PROTECTED_IN_ROOT {
            protect(root.join(name), &mut shield);
        }
        for git_dir in git_dirs(root) {
            if !is_writable(&git_dir) {
                continue;
            }
            for sub in ["hooks", "info"] {
                let dir = git_dir.join(sub);
                if !dir.exists() && !named(&dir) && std::fs::create_dir(&dir).is_ok() {
                    shield.created.push(dir.clone());
                }
                protect(dir, &mut shield);
            }
            for file in ["config", "config.worktree"] {
                protect(git_dir.join(file), &mut shield);
            }
        }
    }
    if let Some(home) = &places.home {
        if is_writable(home) {
            for (name, _) in PROTECTED_IN_HOME {
                let p = home.join(name);
                if std::fs::symlink_metadata(&p).is_ok() {
                    protect(p, &mut shield);
                } else if !named(&p) && p.parent().is_some_and(Path::exists) {
                    shield.notes.push(format!(
                        "{} does not exist, so a run that may write the home directory could \
                         create it",
                        p.display()
                    ));
                }
            }
        }
    }
    hide_stores(places, program, grants, &mut shield);
    shield
}

/// The git directories of a working tree at `root`: `root/.git` when it is a directory; for a
/// worktree (`.git` a file `gitdir: PATH`), the directory it names (which must hold `HEAD`)
/// and its common directory (`commondir`, which must hold `HEAD` too).
fn git_dirs(root: &Path) -> Vec<PathBuf> {
    let dot_git = root.join(".git");
    let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
        return Vec::new();
    };
    if meta.is_dir() {
        return vec![dot_git];
    }
    if !meta.is_file() {
        return Vec::new();
    }
    let Ok(text) = std::fs::read_to_string(&dot_git) else {
        return Vec::new();
    };
    let Some(named) = text.lines().next().and_then(|l| l.strip_prefix("gitdir:")) else {
        return Vec::new();
    };
    let is_git_dir = |p: &Path| p.join("HEAD").is_file();
    let Ok(git_dir) = root.join(named.trim()).canonicalize() else {
        return Vec::new();
    };
    if !is_git_dir(&git_dir) {
        return Vec::new();
    }
    let mut out = vec![git_dir.clone()];
    if let Ok(common) = std::fs::read_to_string(git_dir.join("commondir")) {
        if let Ok(common) = git_dir.join(common.trim()).canonicalize() {
            if is_git_dir(&common) && !out.contains(&common) {
                out.push(common);
            }
        }
    }
    out
}

/// Whether `program` (a file name) matches `pattern` (a glob, or a plain name).
fn program_matches(pattern: &str, program: &str) -> bool {
    match glob::Pattern::new(pattern) {
        Ok(g) => g.matches(program),
        Err(_) => pattern == program,
    }
}

fn hide_stores(places: &Places, program: Option<&str>, grants: &[Grant], shield: &mut Shield) {
    let owns = |owners: &[&str]| program.is_some_and(|p| owners.contains(&p));
    let granted = |path: &Path| {
        grants.iter().any(|g| {
            program.is_some_and(|p| program_matches(&g.program, p))
                && (path == g.path || path.starts_with(&g.path))
        })
    };
    let mut hide = |path: PathBuf| {
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
    if let Some(home) = &places.home {
        for (store, owners) in CREDENTIAL_STORES {
            if !owns(owners) {
                hide(home.join(store));
            }
        }
    }
    for (socket, owners) in DAEMON_SOCKETS {
        if owns(owners) {
            continue;
        }
        let path = if let Some(rest) = socket.strip_prefix("$XDG_RUNTIME_DIR/") {
            places.runtime_dir.as_ref().map(|d| d.join(rest))
        } else if *socket == "$SSH_AUTH_SOCK" {
            places.ssh_auth_sock.clone()
        } else {
            Some(PathBuf::from(socket))
        };
        if let Some(path) = path {
            hide(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_paths_exist_in_writable_roots_and_declared_ones_stay_writable() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(root.join(".git/config"), "").unwrap();
        std::fs::write(root.join(".mcp.json"), "{}").unwrap();
        let roots = [root.clone()];
        let shield = plan(Some(&roots), &[], &Places::default(), None, &[]);
        for p in [".git/hooks", ".git/config", ".git/info", ".mcp.json"] {
            assert!(shield.read_only.contains(&root.join(p)), "{p}: {shield:?}");
        }
        assert_eq!(shield.created, [root.join(".git/info")]);
        assert!(!shield.read_only.contains(&root.join(".gitmodules")));
        let declared = [root.join(".git/config")];
        let shield = plan(Some(&roots), &declared, &Places::default(), None, &[]);
        assert!(!shield.read_only.contains(&root.join(".git/config")));
        assert!(shield.read_only.contains(&root.join(".git/hooks")));
    }

    #[test]
    fn stores_are_hidden_from_every_program_but_their_owners_and_grantees() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir(home.path().join(".ssh")).unwrap();
        std::fs::create_dir(home.path().join(".aws")).unwrap();
        std::fs::write(home.path().join(".netrc"), "").unwrap();
        let places = Places {
            home: Some(home.path().to_path_buf()),
            ..Places::default()
        };
        let hidden = |program: &str, grants: &[Grant]| -> Vec<PathBuf> {
            plan(Some(&[]), &[], &places, Some(program), grants)
                .hidden
                .iter()
                .map(|h| h.path().strip_prefix(home.path()).unwrap().to_path_buf())
                .collect()
        };
        assert_eq!(
            hidden("cat", &[]),
            [".ssh", ".aws", ".netrc"].map(PathBuf::from)
        );
        assert_eq!(hidden("ssh", &[]), [".aws", ".netrc"].map(PathBuf::from));
        let grant = Grant {
            program: "c*".into(),
            path: home.path().join(".aws"),
        };
        assert_eq!(
            hidden("cat", &[grant]),
            [".ssh", ".netrc"].map(PathBuf::from)
        );
    }
}
