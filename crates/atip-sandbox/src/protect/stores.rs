//! Credential stores and daemon sockets, and where each tool looks for them: its default
//! place and every variable it honours. A run sees only the stores and sockets its program
//! owns (by the file name of the program, resolved outside every writable root) and those the
//! caller grants; the others are covered by empty mounts wherever the run's or the runner's
//! environment says they are.

use std::path::PathBuf;

/// Where a store or socket is: a place relative to the home directory, or one a variable
/// names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// Relative to the home directory.
    Home(&'static str),
    /// Relative to `$XDG_CONFIG_HOME`, or to `~/.config` (both are covered).
    Config(&'static str),
    /// Relative to `$XDG_DATA_HOME`, or to `~/.local/share` (both are covered).
    Data(&'static str),
    /// Relative to `$XDG_RUNTIME_DIR`.
    Runtime(&'static str),
    /// The path a variable holds.
    Var(&'static str),
    /// A path below the directory a variable holds.
    Under(&'static str, &'static str),
    /// Each path of a `:`-separated list a variable holds (`KUBECONFIG`).
    List(&'static str),
    /// An absolute path.
    Absolute(&'static str),
    /// tmux's socket directory: `$TMUX_TMPDIR/tmux-UID`, or `/tmp/tmux-UID`.
    Tmux,
    /// Every entry of `$XDG_RUNTIME_DIR` whose name starts with this.
    RuntimePrefix(&'static str),
}

/// A credential store or daemon socket: its places, the programs that own it, what it holds,
/// and where the tool documents it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Store {
    /// Every place the tool looks for it.
    pub at: &'static [At],
    /// Programs (file names) that see it.
    pub owners: &'static [&'static str],
    /// What it holds.
    pub what: &'static str,
    /// The tool's documentation of where it is.
    pub source: &'static str,
}

const fn s(
    at: &'static [At],
    owners: &'static [&'static str],
    what: &'static str,
    source: &'static str,
) -> Store {
    Store {
        at,
        owners,
        what,
        source,
    }
}

use At::{Absolute, Config, Data, Home, List, Runtime, RuntimePrefix, Tmux, Under, Var};

const SSH: &[&str] = &[
    "ssh",
    "scp",
    "sftp",
    "ssh-add",
    "ssh-keygen",
    "ssh-copy-id",
    "git",
    "rsync",
];
const POSTGRES: &[&str] = &[
    "psql",
    "pg_dump",
    "pg_dumpall",
    "pg_restore",
    "createdb",
    "dropdb",
    "pg_isready",
];
const MYSQL: &[&str] = &[
    "mysql",
    "mysqldump",
    "mysqladmin",
    "mariadb",
    "mariadb-dump",
];

/// Credential stores.
pub const CREDENTIAL_STORES: &[Store] = &[
    s(
        &[Home(".ssh")],
        SSH,
        "ssh keys and agent configuration",
        "ssh(1): FILES",
    ),
    s(
        &[
            Home(".aws"),
            Var("AWS_SHARED_CREDENTIALS_FILE"),
            Var("AWS_CONFIG_FILE"),
        ],
        &["aws"],
        "AWS access keys",
        "AWS CLI: Configuration and credential file settings",
    ),
    s(
        &[Home(".azure"), Var("AZURE_CONFIG_DIR")],
        &["az"],
        "Azure tokens",
        "Azure CLI: CLI configuration",
    ),
    s(
        &[
            Config("gcloud"),
            Var("CLOUDSDK_CONFIG"),
            Var("GOOGLE_APPLICATION_CREDENTIALS"),
        ],
        &["gcloud", "gsutil", "bq"],
        "Google Cloud tokens and service account keys",
        "gcloud topic configurations; Application Default Credentials",
    ),
    s(
        &[Home(".kube"), List("KUBECONFIG")],
        &["kubectl", "helm", "k9s", "kustomize", "minikube", "kind"],
        "cluster credentials",
        "kubectl: Organizing cluster access using kubeconfig files",
    ),
    s(
        &[Home(".docker"), Var("DOCKER_CONFIG")],
        &["docker", "docker-compose"],
        "registry credentials and the TLS keys of docker contexts",
        "docker login; docker(1): DOCKER_CONFIG",
    ),
    s(
        &[Home(".netrc"), Var("NETRC")],
        &["curl", "wget", "git", "ftp", "go"],
        "passwords for hosts",
        "netrc(5); go help environment",
    ),
    s(
        &[Home(".git-credentials"), Config("git/credentials")],
        &["git"],
        "git passwords and tokens",
        "git-credential-store(1): FILES",
    ),
    s(
        &[Config("gh"), Var("GH_CONFIG_DIR")],
        &["gh"],
        "GitHub tokens",
        "gh help environment",
    ),
    s(
        &[Config("glab-cli"), Var("GLAB_CONFIG_DIR")],
        &["glab"],
        "GitLab tokens",
        "glab: configuration",
    ),
    s(
        &[Home(".gnupg"), Var("GNUPGHOME")],
        &["gpg", "gpg2", "gpg-agent", "git"],
        "private keys",
        "gpg(1): FILES, GNUPGHOME",
    ),
    s(
        &[Home(".npmrc"), Var("NPM_CONFIG_USERCONFIG")],
        &["npm", "npx", "pnpm", "yarn"],
        "registry tokens",
        "npmrc(5)",
    ),
    s(
        &[Home(".pypirc")],
        &["twine", "pip", "pip3", "uv", "poetry"],
        "package index passwords",
        "PyPA: The .pypirc file",
    ),
    s(
        &[
            Home(".cargo/credentials.toml"),
            Home(".cargo/credentials"),
            Under("CARGO_HOME", "credentials.toml"),
            Under("CARGO_HOME", "credentials"),
        ],
        &["cargo"],
        "registry tokens",
        "The Cargo Book: Credentials",
    ),
    s(
        &[
            Home(".terraform.d/credentials.tfrc.json"),
            Home(".terraformrc"),
            Var("TF_CLI_CONFIG_FILE"),
        ],
        &["terraform", "tofu"],
        "Terraform Cloud tokens",
        "Terraform: CLI configuration file",
    ),
    s(
        &[Config("hub")],
        &["hub"],
        "GitHub tokens",
        "hub(1): CONFIGURATION",
    ),
    s(
        &[Home(".password-store"), Var("PASSWORD_STORE_DIR")],
        &["pass"],
        "passwords",
        "pass(1): ENVIRONMENT VARIABLES",
    ),
    s(
        &[Home(".vault-token")],
        &["vault"],
        "a Vault token",
        "Vault: Token helpers",
    ),
    s(
        &[Config("doctl")],
        &["doctl"],
        "DigitalOcean tokens",
        "doctl auth",
    ),
    s(
        &[
            Home(".pgpass"),
            Var("PGPASSFILE"),
            Home(".pg_service.conf"),
            Var("PGSERVICEFILE"),
        ],
        POSTGRES,
        "database passwords",
        "PostgreSQL: The Password File, The Connection Service File",
    ),
    s(
        &[
            Home(".my.cnf"),
            Home(".mylogin.cnf"),
            Var("MYSQL_TEST_LOGIN_FILE"),
        ],
        MYSQL,
        "database passwords",
        "MySQL: Using Option Files; mysql_config_editor",
    ),
    s(
        &[Config("rclone"), Var("RCLONE_CONFIG")],
        &["rclone"],
        "cloud storage credentials",
        "rclone config file",
    ),
    s(
        &[Home(".s3cfg")],
        &["s3cmd"],
        "S3 keys",
        "s3cmd: Configuration",
    ),
    s(
        &[
            Home(".cache/huggingface/token"),
            Under("HF_HOME", "token"),
            Var("HF_TOKEN_PATH"),
        ],
        &["huggingface-cli", "hf"],
        "a Hugging Face token",
        "huggingface_hub: Environment variables",
    ),
    s(
        &[
            Home(".pulumi/credentials.json"),
            Under("PULUMI_HOME", "credentials.json"),
        ],
        &["pulumi"],
        "Pulumi tokens",
        "Pulumi: Environment variables",
    ),
    s(
        &[Home(".fly")],
        &["fly", "flyctl"],
        "Fly.io tokens",
        "flyctl: Configuration",
    ),
    s(
        &[Home(".oci")],
        &["oci"],
        "Oracle Cloud keys",
        "OCI CLI: Configuration",
    ),
    s(
        &[
            Home(".composer/auth.json"),
            Config("composer/auth.json"),
            Under("COMPOSER_HOME", "auth.json"),
        ],
        &["composer"],
        "registry tokens",
        "Composer: Authentication",
    ),
    s(
        &[Home(".gem/credentials")],
        &["gem"],
        "RubyGems API keys",
        "RubyGems: API key",
    ),
    s(
        &[Home(".m2/settings.xml"), Home(".m2/settings-security.xml")],
        &["mvn", "mvnw"],
        "repository passwords",
        "Maven: Settings reference, Password encryption",
    ),
    s(
        &[
            Home(".gradle/gradle.properties"),
            Under("GRADLE_USER_HOME", "gradle.properties"),
        ],
        &["gradle", "gradlew"],
        "repository passwords and signing keys",
        "Gradle: Build environment",
    ),
    s(
        &[
            Home(".nuget/NuGet/NuGet.Config"),
            Config("NuGet/NuGet.Config"),
        ],
        &["dotnet", "nuget"],
        "package source passwords",
        "NuGet: Common NuGet configurations",
    ),
    s(
        &[Home(".claude/.credentials.json")],
        &["claude"],
        "a coding agent's login",
        "Claude Code: Authentication",
    ),
    s(
        &[Home(".codex/auth.json"), Under("CODEX_HOME", "auth.json")],
        &["codex"],
        "a coding agent's login",
        "Codex CLI: Authentication",
    ),
    s(
        &[Home(".gemini/oauth_creds.json")],
        &["gemini"],
        "a coding agent's login",
        "Gemini CLI: Authentication",
    ),
    s(
        &[Config("github-copilot")],
        &["copilot"],
        "a coding agent's login",
        "GitHub Copilot CLI",
    ),
    s(
        &[Data("keyrings")],
        &["secret-tool", "gnome-keyring-daemon"],
        "the desktop's password keyrings",
        "GNOME Keyring",
    ),
    s(
        &[
            Home(".mozilla"),
            Config("google-chrome"),
            Config("chromium"),
        ],
        &["firefox", "google-chrome", "chromium"],
        "browsers' cookies and saved passwords",
        "browsers' profile directories",
    ),
];

/// Daemon sockets: a daemon acts for whoever connects, so a socket is a credential.
pub const DAEMON_SOCKETS: &[Store] = &[
    s(
        &[
            Absolute("/var/run/docker.sock"),
            Absolute("/run/docker.sock"),
            Runtime("docker.sock"),
        ],
        &["docker", "docker-compose"],
        "the Docker daemon (root on the host)",
        "dockerd(8)",
    ),
    s(
        &[Absolute("/run/containerd/containerd.sock")],
        &["ctr", "nerdctl", "crictl"],
        "containerd",
        "containerd(8)",
    ),
    s(
        &[
            Absolute("/run/podman/podman.sock"),
            Runtime("podman/podman.sock"),
        ],
        &["podman"],
        "the Podman service",
        "podman-system-service(1)",
    ),
    s(
        &[Runtime("gnupg")],
        &["gpg", "gpg2", "gpg-agent", "git"],
        "gpg-agent: signing and decryption with the user's keys",
        "gpg-agent(1)",
    ),
    s(
        &[Home(".cache/git/credential"), Home(".git-credential-cache")],
        &["git"],
        "git's credential cache: the passwords git was given",
        "git-credential-cache(1)",
    ),
    s(
        &[Var("SSH_AUTH_SOCK")],
        &["ssh", "scp", "sftp", "ssh-add", "git", "rsync"],
        "ssh-agent: logins with the user's keys",
        "ssh-agent(1)",
    ),
    s(
        &[Absolute("/var/run/postgresql"), Absolute("/run/postgresql")],
        POSTGRES,
        "the local PostgreSQL server",
        "PostgreSQL: unix_socket_directories",
    ),
    s(
        &[Absolute("/var/run/mysqld"), Absolute("/run/mysqld")],
        MYSQL,
        "the local MySQL server",
        "MySQL: socket",
    ),
];

/// Sockets of the person's session, hidden from every run that may open Unix sockets (its
/// program owns a daemon socket, or the policy lists one): a run without that right cannot
/// open a Unix socket at all. None of them has an owner: a policy lists one to give it.
pub const SESSION_SOCKETS: &[Store] = &[
    s(
        &[Runtime("bus"), Absolute("/run/dbus/system_bus_socket")],
        &[],
        "D-Bus: starts services and programs (`systemd-run --user`)",
        "dbus-daemon(1)",
    ),
    s(
        &[Runtime("systemd"), Absolute("/run/systemd/private")],
        &[],
        "the service manager",
        "systemd(1)",
    ),
    s(
        &[
            Absolute("/tmp/.X11-unix"),
            Runtime("wayland-0"),
            Runtime("wayland-1"),
        ],
        &[],
        "the display: keystrokes into any window",
        "Xserver(1), Wayland",
    ),
    s(
        &[Tmux],
        &[],
        "tmux: keystrokes into the person's shells",
        "tmux(1): -S socket-path",
    ),
    s(
        &[Runtime("keyring"), Runtime("pulse"), Runtime("pipewire-0")],
        &[],
        "the desktop's keyring and sound servers",
        "GNOME Keyring, PulseAudio, PipeWire",
    ),
    s(
        &[
            Absolute("/run/screen"),
            Runtime("emacs"),
            RuntimePrefix("vscode-ipc-"),
            RuntimePrefix("nvim."),
        ],
        &[],
        "editors' and screen's servers: commands into the person's sessions",
        "screen(1), emacsclient(1), VS Code, Neovim: --listen",
    ),
];

/// The places of `at` for a home directory `home` and the variables `var` gives.
pub(crate) fn resolve(
    at: At,
    home: Option<&PathBuf>,
    var: &dyn Fn(&str) -> Vec<PathBuf>,
) -> Vec<PathBuf> {
    let under_home = |rel: &str| home.map(|h| h.join(rel)).into_iter().collect::<Vec<_>>();
    let xdg = |name: &str, default: &str, rel: &str| {
        let mut out: Vec<PathBuf> = var(name).into_iter().map(|d| d.join(rel)).collect();
        out.extend(home.map(|h| h.join(default).join(rel)));
        out
    };
    match at {
        Home(rel) => under_home(rel),
        Config(rel) => xdg("XDG_CONFIG_HOME", ".config", rel),
        Data(rel) => xdg("XDG_DATA_HOME", ".local/share", rel),
        Runtime(rel) => var("XDG_RUNTIME_DIR")
            .into_iter()
            .map(|d| d.join(rel))
            .collect(),
        Var(name) => var(name),
        Under(name, rel) => var(name).into_iter().map(|d| d.join(rel)).collect(),
        List(name) => var(name)
            .iter()
            .flat_map(|v| {
                std::env::split_paths(v.as_os_str())
                    .filter(|p| p.is_absolute())
                    .collect::<Vec<_>>()
            })
            .collect(),
        Absolute(path) => vec![PathBuf::from(path)],
        RuntimePrefix(prefix) => var("XDG_RUNTIME_DIR")
            .iter()
            .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
            .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
            .map(|e| e.path())
            .collect(),
        Tmux => {
            // SAFETY: a plain syscall without arguments.
            let uid = unsafe { libc::getuid() };
            let mut out: Vec<PathBuf> = var("TMUX_TMPDIR")
                .into_iter()
                .map(|d| d.join(format!("tmux-{uid}")))
                .collect();
            out.push(PathBuf::from(format!("/tmp/tmux-{uid}")));
            out
        }
    }
}

/// Every variable the tables read, for the runner to look up in its and the child's
/// environment.
pub(crate) fn variables() -> Vec<&'static str> {
    let mut names = vec![
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_RUNTIME_DIR",
        "TMUX_TMPDIR",
    ];
    for store in CREDENTIAL_STORES
        .iter()
        .chain(DAEMON_SOCKETS)
        .chain(SESSION_SOCKETS)
    {
        for at in store.at {
            if let Var(n) | Under(n, _) | List(n) = at {
                names.push(n);
            }
        }
    }
    names.extend(super::names::IN_VARIABLES.iter().map(|(n, ..)| *n));
    names.push("PATH");
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_are_found_where_their_variables_point() {
        let home = PathBuf::from("/h");
        let var = |name: &str| match name {
            "XDG_CONFIG_HOME" => vec![PathBuf::from("/x")],
            "KUBECONFIG" => vec![PathBuf::from("/k/a:relative:/k/b")],
            "DOCKER_CONFIG" => vec![PathBuf::from("/d")],
            _ => Vec::new(),
        };
        let gh = resolve(Config("gh"), Some(&home), &var);
        assert_eq!(gh, [PathBuf::from("/x/gh"), PathBuf::from("/h/.config/gh")]);
        assert_eq!(
            resolve(List("KUBECONFIG"), Some(&home), &var),
            [PathBuf::from("/k/a"), PathBuf::from("/k/b")]
        );
        assert_eq!(
            resolve(Var("DOCKER_CONFIG"), Some(&home), &var),
            [PathBuf::from("/d")]
        );
        assert!(resolve(Runtime("bus"), Some(&home), &var).is_empty());
        let names = variables();
        for name in [
            "GH_CONFIG_DIR",
            "KUBECONFIG",
            "GNUPGHOME",
            "PGPASSFILE",
            "PATH",
        ] {
            assert!(names.contains(&name), "{name}");
        }
    }

    #[test]
    fn every_store_has_a_place_and_a_source() {
        for store in CREDENTIAL_STORES.iter().chain(DAEMON_SOCKETS) {
            assert!(
                !store.at.is_empty() && !store.owners.is_empty(),
                "{store:?}"
            );
            assert!(
                !store.source.is_empty() && !store.what.is_empty(),
                "{store:?}"
            );
        }
    }
}
