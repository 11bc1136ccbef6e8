//! The protected names: paths whose contents programs outside any sandbox run, load or obey
//! later — when the person enters a directory, opens an editor, starts a coding agent, logs
//! in, pushes, or runs any program found on `PATH`. Inside a writable root they stay
//! read-only, and one that does not exist stays missing (an empty read-only placeholder holds
//! its name for the run). A command whose own `filesystem.paths` names one of them, or a path
//! inside it, may write that one.
//!
//! Each entry says why and where the behaviour is documented. The lists are data: adding a
//! name needs no code.

/// One protected path: where (relative to its base), why, the documentation that says what
/// runs it, and what holds it while it does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Protected {
    /// The path relative to the writable root or the home directory (`/`-separated).
    pub path: &'static str,
    /// What runs or obeys it, in a few words.
    pub why: &'static str,
    /// Where that behaviour is documented.
    pub source: &'static str,
    /// What holds it for a run while it does not exist.
    pub hold: Hold,
}

/// What holds a protected name that does not exist, chosen so that the programs that read
/// it behave as if it were missing, and so that git never sees a placeholder inside a
/// repository (it neither lists, adds nor cleans a socket file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// A socket file nothing listens on, read-only: neither a file nor a directory, so git
    /// (`status`, `add -A`, `clean -fdx`) and most tools leave it alone, opening it fails
    /// (`ENXIO`) and nothing can be created in its place.
    Socket,
    /// An empty read-only directory (directories on the way to it are created writable).
    Dir,
    /// A read-only file with these contents (an empty configuration file reads as none).
    File(&'static [u8]),
    /// The outermost missing directory on the way, held by a socket file; or, when only the
    /// name itself is missing, a read-only file with these contents (`.cargo/config.toml`:
    /// cargo refuses anything but a file there, and reads an empty file as no
    /// configuration).
    Outermost(&'static [u8]),
}

const fn p(path: &'static str, why: &'static str, source: &'static str) -> Protected {
    Protected {
        path,
        why,
        source,
        hold: Hold::Dir,
    }
}

/// A protected name in a writable root, held by a socket file.
const fn r(path: &'static str, why: &'static str, source: &'static str) -> Protected {
    Protected {
        path,
        why,
        source,
        hold: Hold::Socket,
    }
}

/// A protected file held by an empty file.
const fn f(path: &'static str, why: &'static str, source: &'static str) -> Protected {
    Protected {
        path,
        why,
        source,
        hold: Hold::File(b""),
    }
}

/// A protected file inside a directory that may be missing too.
const fn o(path: &'static str, why: &'static str, source: &'static str) -> Protected {
    Protected {
        path,
        why,
        source,
        hold: Hold::Outermost(b""),
    }
}

/// Protected in every writable root (the working directory, declared paths, the caller's
/// writable paths). `.git` itself is handled by the version-control rules ([`super::git`]): a
/// repository's directory is read-only but for what git writes; a missing one is held.
pub const IN_ROOT: &[Protected] = &[
    r(
        ".git",
        "the repository: hooks, configuration and the files git follows to others",
        "gitrepository-layout(5)",
    ),
    r(
        ".gitmodules",
        "the URLs and paths `git submodule update` fetches",
        "gitmodules(5)",
    ),
    r(
        ".vscode",
        "tasks (`runOn: folderOpen`), launch configurations and settings an editor applies",
        "VS Code: Tasks, Workspace settings",
    ),
    r(
        ".idea",
        "run configurations and startup tasks of JetBrains IDEs",
        "JetBrains: Run/debug configurations",
    ),
    r(
        ".devcontainer",
        "container definitions whose `initializeCommand` runs on the host",
        "Development Containers specification",
    ),
    r(
        ".mcp.json",
        "MCP servers a coding agent starts",
        "Claude Code: MCP, project scope",
    ),
    r(
        ".claude",
        "a coding agent's hooks, commands and settings",
        "Claude Code: Settings, Hooks",
    ),
    r(
        ".cursor",
        "a coding agent's rules and MCP servers",
        "Cursor: Rules, MCP",
    ),
    r(
        ".codex",
        "a coding agent's configuration",
        "Codex CLI: config.toml",
    ),
    r(
        ".gemini",
        "a coding agent's settings and MCP servers",
        "Gemini CLI: settings.json",
    ),
    r(
        ".hg",
        "a Mercurial repository: its `hgrc` hooks run on `hg` commands",
        "hgrc(5): hooks",
    ),
    r(
        ".jj",
        "a Jujutsu repository: its configuration names programs",
        "Jujutsu: Configuration",
    ),
    r(
        ".envrc",
        "run by direnv when a shell enters the directory",
        "direnv(1)",
    ),
    o(
        ".cargo/config.toml",
        "`build.rustc-wrapper`, runners and aliases cargo runs in this tree",
        "The Cargo Book: Configuration",
    ),
    o(
        ".cargo/config",
        "`build.rustc-wrapper`, runners and aliases cargo runs in this tree",
        "The Cargo Book: Configuration",
    ),
    r(
        "rust-toolchain.toml",
        "the toolchain (a path to any program) rustup runs here",
        "rustup: Overrides, the toolchain file",
    ),
    r(
        "rust-toolchain",
        "the toolchain (a path to any program) rustup runs here",
        "rustup: Overrides, the toolchain file",
    ),
    r(
        ".pre-commit-config.yaml",
        "the hooks pre-commit fetches and runs on every commit",
        "pre-commit: Adding plugins",
    ),
    r(
        ".husky",
        "scripts run on commit where `core.hooksPath` points here",
        "husky: How it works",
    ),
    r(
        ".yarnrc.yml",
        "`yarnPath`: the program every yarn command runs",
        "Yarn: Configuration (yarnrc)",
    ),
    o(
        ".github/workflows",
        "CI workflows that run on push with the repository's secrets",
        "GitHub Actions: Workflow syntax",
    ),
    r(
        ".gitlab-ci.yml",
        "the CI pipeline that runs on push with the project's secrets",
        "GitLab CI/CD: .gitlab-ci.yml",
    ),
    r(
        ".circleci",
        "the CI pipeline that runs on push",
        "CircleCI: Configuration reference",
    ),
    r(
        ".buildkite",
        "the CI pipeline that runs on push",
        "Buildkite: Defining steps",
    ),
];

/// Protected in the home directory when a run may write there (the agent works in `~`, or `~`
/// is granted).
pub const IN_HOME: &[Protected] = &[
    f(
        ".bashrc",
        "run by every interactive bash",
        "bash(1): INVOCATION",
    ),
    f(
        ".bash_profile",
        "run by bash login shells",
        "bash(1): INVOCATION",
    ),
    f(
        ".bash_login",
        "run by bash login shells",
        "bash(1): INVOCATION",
    ),
    f(
        ".bash_logout",
        "run when a bash login shell exits",
        "bash(1): INVOCATION",
    ),
    f(".profile", "run by login shells", "sh(1), bash(1)"),
    f(
        ".bash_aliases",
        "sourced by the distributions' default `.bashrc`",
        "Debian /etc/skel/.bashrc",
    ),
    p(
        "bin",
        "put first on PATH by the distributions' default `.profile` when it exists",
        "Debian /etc/skel/.profile",
    ),
    p(
        ".local/lib",
        "user site-packages, whose `.pth` files every python start runs",
        "Python: site module",
    ),
    f(
        ".hgrc",
        "Mercurial configuration whose hooks run programs",
        "hgrc(5)",
    ),
    p(
        ".config/hg",
        "Mercurial configuration whose hooks run programs",
        "hgrc(5)",
    ),
    p(
        ".config/jj",
        "Jujutsu configuration",
        "Jujutsu: Configuration",
    ),
    p(".config/tmux", "run by tmux at start", "tmux(1)"),
    p(
        ".config/emacs",
        "run by Emacs at start",
        "Emacs manual: Init File",
    ),
    f(
        ".zshrc",
        "run by every interactive zsh",
        "zsh: STARTUP/SHUTDOWN FILES",
    ),
    f(
        ".zprofile",
        "run by zsh login shells",
        "zsh: STARTUP/SHUTDOWN FILES",
    ),
    f(".zshenv", "run by every zsh", "zsh: STARTUP/SHUTDOWN FILES"),
    f(
        ".zlogin",
        "run by zsh login shells",
        "zsh: STARTUP/SHUTDOWN FILES",
    ),
    p(
        ".config/fish",
        "fish's start-up files",
        "fish: Configuration files",
    ),
    f(
        ".inputrc",
        "readline key bindings, which can run shell commands",
        "readline(3)",
    ),
    f(
        ".pam_environment",
        "variables set at every login",
        "pam_env.conf(5)",
    ),
    p(
        ".config/environment.d",
        "variables of the user's service manager",
        "environment.d(5)",
    ),
    f(
        ".xprofile",
        "run when an X session starts",
        "display managers' session scripts",
    ),
    p(
        ".xsession",
        "run as the X session",
        "display managers' session scripts",
    ),
    p(".xinitrc", "run by startx", "xinit(1)"),
    f(
        ".gitconfig",
        "git configuration whose settings run programs",
        "git-config(1): FILES",
    ),
    p(
        ".config/git",
        "git configuration whose settings run programs",
        "git-config(1): FILES",
    ),
    p(
        ".ssh",
        "keys, `config` with `ProxyCommand`, `rc` run at every login",
        "ssh_config(5), sshd(8): SSHRC",
    ),
    p(
        ".config/autostart",
        "programs a desktop session starts",
        "XDG Autostart specification",
    ),
    p(
        ".config/systemd/user",
        "services the user's service manager starts",
        "systemd.unit(5): unit file load path",
    ),
    p(
        ".local/share/applications",
        "desktop entries whose `Exec` a launcher runs",
        "XDG Desktop Entry specification",
    ),
    p(
        ".config/direnv",
        "direnv's own configuration and its allow-list of paths",
        "direnv.toml(1)",
    ),
    p(
        ".local/share/direnv",
        "the `.envrc` files direnv allows to run",
        "direnv(1)",
    ),
    o(
        ".cargo/config.toml",
        "`build.rustc-wrapper`, runners and aliases of every cargo command",
        "The Cargo Book: Configuration",
    ),
    o(
        ".cargo/config",
        "`build.rustc-wrapper`, runners and aliases of every cargo command",
        "The Cargo Book: Configuration",
    ),
    p(
        ".cargo/bin",
        "programs on PATH, cargo's and rustup's among them",
        "rustup: Installation",
    ),
    p(
        ".rustup",
        "the toolchains every cargo and rustc command runs",
        "rustup: Concepts",
    ),
    p(
        ".local/bin",
        "programs on PATH",
        "XDG Base Directory specification",
    ),
    p(
        ".cache/atip",
        "this library's macro cache: code of the next build that uses `include_atip!`",
        "atip-macros: cache",
    ),
    f(".vimrc", "run by vim at start", "vim: :help vimrc"),
    p(".vim", "plug-ins vim loads", "vim: :help runtimepath"),
    p(
        ".config/nvim",
        "Neovim's start-up files",
        "Neovim: :help init.lua",
    ),
    f(".emacs", "run by Emacs at start", "Emacs manual: Init File"),
    p(
        ".emacs.d",
        "run by Emacs at start",
        "Emacs manual: Init File",
    ),
    f(
        ".tmux.conf",
        "run by tmux at start; can run shell commands",
        "tmux(1)",
    ),
    p(
        ".vscode",
        "editor extensions, which run when the editor starts",
        "VS Code: Extension marketplace",
    ),
    p(
        ".config/Code/User",
        "editor settings and user tasks",
        "VS Code: User settings",
    ),
    p(
        ".claude",
        "a coding agent's user hooks and settings",
        "Claude Code: Settings, Hooks",
    ),
    Protected {
        path: ".claude.json",
        why: "a coding agent's user MCP servers",
        source: "Claude Code: MCP, user scope",
        hold: Hold::File(b"{}\n"),
    },
    p(
        ".codex",
        "a coding agent's configuration and MCP servers",
        "Codex CLI: config.toml",
    ),
    p(
        ".gemini",
        "a coding agent's settings and MCP servers",
        "Gemini CLI: settings.json",
    ),
    p(".cursor", "a coding agent's MCP servers", "Cursor: MCP"),
];

/// Protected where a variable of the run's environment points, when that is inside a writable
/// root: `(variable, path below it, why, hold)`. An empty path protects what the variable
/// names itself.
pub const IN_VARIABLES: &[(&str, &str, &str, Hold)] = &[
    (
        "ATIP_MACRO_CACHE",
        "",
        "this library's macro cache: code of the next build that uses `include_atip!`",
        Hold::Dir,
    ),
    (
        "XDG_CACHE_HOME",
        "atip",
        "this library's macro cache: code of the next build that uses `include_atip!`",
        Hold::Dir,
    ),
    (
        "XDG_CONFIG_HOME",
        "git",
        "git configuration whose settings run programs",
        Hold::Dir,
    ),
    (
        "XDG_CONFIG_HOME",
        "systemd/user",
        "services the user's service manager starts",
        Hold::Dir,
    ),
    (
        "XDG_CONFIG_HOME",
        "autostart",
        "programs a desktop session starts",
        Hold::Dir,
    ),
    (
        "XDG_CONFIG_HOME",
        "fish",
        "fish's start-up files",
        Hold::Dir,
    ),
    (
        "XDG_CONFIG_HOME",
        "direnv",
        "direnv's own configuration and its allow-list of paths",
        Hold::Dir,
    ),
    (
        "XDG_DATA_HOME",
        "direnv",
        "the `.envrc` files direnv allows to run",
        Hold::Dir,
    ),
    (
        "CARGO_HOME",
        "config.toml",
        "`build.rustc-wrapper`, runners and aliases of every cargo command",
        Hold::Outermost(b""),
    ),
    (
        "CARGO_HOME",
        "bin",
        "programs on PATH, cargo's and rustup's among them",
        Hold::Dir,
    ),
    (
        "RUSTUP_HOME",
        "",
        "the toolchains every cargo and rustc command runs",
        Hold::Dir,
    ),
    (
        "ZDOTDIR",
        ".zshrc",
        "run by every interactive zsh",
        Hold::File(b""),
    ),
    ("ZDOTDIR", ".zshenv", "run by every zsh", Hold::File(b"")),
    (
        "GIT_CONFIG_GLOBAL",
        "",
        "git configuration whose settings run programs",
        Hold::File(b""),
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_relative_and_explained() {
        for entry in IN_ROOT.iter().chain(IN_HOME) {
            assert!(!entry.path.starts_with('/'), "{entry:?}");
            assert!(!entry.path.contains(".."), "{entry:?}");
            assert!(
                !entry.why.is_empty() && !entry.source.is_empty(),
                "{entry:?}"
            );
        }
        let mut root: Vec<_> = IN_ROOT.iter().map(|e| e.path).collect();
        root.sort_unstable();
        root.dedup();
        assert_eq!(root.len(), IN_ROOT.len(), "no name twice");
    }
}
