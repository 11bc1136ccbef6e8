//! A stdio MCP server described like a tool (`atip mcp wrap SERVER.json`): its command line,
//! the effects it may have for its whole life, and the effects of its tools where the person
//! knows them better than the server's annotations.
//!
//! ```json
//! {
//!   "name": "filesystem",
//!   "command": ["/opt/mcp/node_modules/.bin/mcp-server-filesystem", "/home/me/project"],
//!   "filesystem": {"read": ["/opt/mcp"], "write": ["/home/me/project"]},
//!   "hosts": ["registry.npmjs.org"],
//!   "env": ["GITHUB_TOKEN"],
//!   "unixSockets": [],
//!   "checksum": "sha256:…",
//!   "tools": {
//!     "read_text_file": {"filesystem": {"read": true, "write": false}, "network": false,
//!                        "destructive": false},
//!     "write_file": {"filesystem": {"write": true}, "destructive": true}
//!   }
//! }
//! ```
//!
//! Everything but `command` may be left out, and what is left out is not granted: no writes
//! without `filesystem.write`, no network without `network` or `hosts`, no variables but the
//! built environment's base set without `env`, no Unix socket without `unixSockets`.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use atip_runtime::policy::EgressRule;
use atip_runtime::sandbox::hosts::HostPattern;
use atip_runtime::{Effects, FilesystemEffects, Invocation, Policy, Sandbox};
use serde::Deserialize;

/// A server description (`SERVER.json`), as [`ServerSpec::from_json_text`] reads it. Field
/// names are camelCase in JSON; a field this type does not know is an error.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ServerSpec {
    /// The server's name in audit lines, questions and the policy's command patterns (letters,
    /// digits, `-`, `_`, `.`). Default: the program's file name.
    #[serde(default)]
    pub name: Option<String>,
    /// The command line, program first (a path, or a name looked up in `PATH`). Required, not
    /// empty.
    pub command: Vec<String>,
    /// The files it may read and write.
    #[serde(default)]
    pub filesystem: ServerFilesystem,
    /// Whether it may use the network at all: to the [`ServerSpec::hosts`] when it lists any,
    /// else to the policy's egress hosts when the policy lists any, else anywhere. Default
    /// `false`; listing hosts turns it on.
    #[serde(default)]
    pub network: bool,
    /// The hosts it may reach (`api.github.com`, `*.example.com`, `127.0.0.1:8080`), through
    /// the sandbox's egress proxy, besides the policy's egress hosts.
    #[serde(default)]
    pub hosts: Vec<HostPattern>,
    /// Variables of the wrapper's environment it gets besides the built environment's base
    /// set (its credentials, by name: `GITHUB_TOKEN`). Their values are redacted from
    /// everything it says.
    #[serde(default)]
    pub env: Vec<String>,
    /// Pathname Unix sockets it may connect to (`~/` the home directory, `$XDG_RUNTIME_DIR/`
    /// the runtime directory); it reaches no other where the kernel confines sockets (Landlock
    /// ABI 9; before it, the report says they are not confined). Needs `network: true`.
    #[serde(default)]
    pub unix_sockets: Vec<String>,
    /// `sha256:<hex>` its program must hash to; a program that does not never starts.
    #[serde(default)]
    pub checksum: Option<String>,
    /// Effects of its tools by tool name, in ATIP's `effects` shape (spec §3.6). A tool named
    /// here is judged on these alone: its annotations are the server's claims, these the
    /// person's. An effect left out is unknown, and unknown asks.
    #[serde(default)]
    pub tools: HashMap<String, Effects>,
}

/// `filesystem` of a [`ServerSpec`]. Paths: absolute, `~/…` (the home directory) or relative
/// to the wrapper's working directory.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerFilesystem {
    /// Where it may read, besides the system directories a program needs (`/usr`, `/lib*`,
    /// `/etc`, …), its program's directory and [`ServerFilesystem::write`]. Absent: anywhere
    /// the user may, but the credential stores the sandbox hides.
    #[serde(default)]
    pub read: Option<Vec<String>>,
    /// Where it may write and delete. Empty (the default): nowhere but its scratch directory.
    #[serde(default)]
    pub write: Vec<String>,
}

/// Why a server description was refused.
#[derive(Debug, thiserror::Error)]
pub enum ServerSpecError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The text is not a server description (JSON syntax, a missing `command`, an unknown
    /// field, a value of the wrong type); the message has the line and column.
    #[error("not a server description: {0}")]
    Json(#[from] serde_json::Error),
    /// A field's value is not allowed; the message names the field.
    #[error("{0}")]
    Invalid(String),
}

impl ServerSpec {
    /// Reads and checks the description in `path`.
    ///
    /// # Errors
    ///
    /// [`ServerSpecError::Read`] when the file cannot be read, else as
    /// [`ServerSpec::from_json_text`].
    pub fn from_path(path: &Path) -> Result<ServerSpec, ServerSpecError> {
        let text = std::fs::read_to_string(path).map_err(|source| ServerSpecError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        ServerSpec::from_json_text(&text)
    }

    /// Parses and checks a description.
    ///
    /// # Errors
    ///
    /// [`ServerSpecError::Json`] for JSON that is not a description;
    /// [`ServerSpecError::Invalid`] for an empty `command` or program, a `name` with other
    /// characters than letters, digits, `-`, `_` and `.`, a variable name that is empty or
    /// holds `=` or NUL, or an empty path.
    pub fn from_json_text(text: &str) -> Result<ServerSpec, ServerSpecError> {
        let spec: ServerSpec = serde_json::from_str(text)?;
        spec.check()?;
        Ok(spec)
    }

    /// Checks a description built or changed in code as [`ServerSpec::from_json_text`] checks
    /// a parsed one.
    ///
    /// # Errors
    ///
    /// [`ServerSpecError::Invalid`], as [`ServerSpec::from_json_text`].
    pub fn check(&self) -> Result<(), ServerSpecError> {
        let invalid = |why: String| Err(ServerSpecError::Invalid(why));
        match self.command.first() {
            None => return invalid("`command` is empty: it needs the program at least".into()),
            Some(program) if program.is_empty() => {
                return invalid("`command[0]`, the program, is empty".into())
            }
            Some(_) => {}
        }
        if let Some(name) = &self.name {
            if !valid_name(name) {
                return invalid(format!(
                    "`name` {name:?}: only letters, digits, `-`, `_` and `.`"
                ));
            }
        }
        if let Some(bad) = self.tools.keys().find(|t| !plain_tool_name(t)) {
            return invalid(format!(
                "`tools` key {bad:?} is not an MCP tool name (1 to 128 of ASCII letters, \
                 digits, `_`, `-`, `.`): no listed tool would match it"
            ));
        }
        if let Some(bad) = self
            .env
            .iter()
            .find(|v| v.is_empty() || v.contains(['=', '\0']))
        {
            return invalid(format!("`env` {bad:?} is not a variable name"));
        }
        if !self.unix_sockets.is_empty() && !self.network && self.hosts.is_empty() {
            return invalid(
                "`unixSockets` needs `network: true`: a server without the network gets no \
                 socket at all"
                    .into(),
            );
        }
        let paths = self.filesystem.read.iter().flatten();
        if paths.chain(&self.filesystem.write).any(String::is_empty) {
            return invalid("`filesystem` holds an empty path".into());
        }
        Ok(())
    }

    /// The server's name: [`ServerSpec::name`], else the program's file name with any other
    /// character than letters, digits, `-`, `_` and `.` replaced by `_`.
    pub fn server_name(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        let program = self.command.first().map_or("server", String::as_str);
        let file = Path::new(program)
            .file_name()
            .map_or_else(|| program.to_owned(), |f| f.to_string_lossy().into_owned());
        file.chars()
            .map(|c| if valid_name_char(c) { c } else { '_' })
            .collect()
    }

    /// What [`Runner::start`](atip_runtime::Runner::start) starts: the command line under the
    /// server's name, with effects for its whole life — reads as the sandbox confines them,
    /// writes and deletes only under `filesystem.write` (none when it is empty), the network
    /// as `network`/`hosts` say, subprocesses unknown — its `env` declared and its checksum.
    pub fn invocation(&self) -> Invocation {
        let writes = !self.filesystem.write.is_empty();
        let paths: Vec<_> = self
            .filesystem
            .write
            .iter()
            .map(|p| std::borrow::Cow::Owned(p.clone()))
            .collect();
        let mut effects = Effects::UNKNOWN;
        effects.filesystem = Some(FilesystemEffects {
            read: Some(true),
            write: Some(writes),
            delete: Some(writes),
            paths: writes.then(|| paths.into()),
        });
        effects.network = Some(self.network || !self.hosts.is_empty());
        let argv = self.command.iter().map(OsString::from).collect();
        let mut server = Invocation::new(self.server_name(), argv, effects);
        let env: std::sync::Arc<[atip_runtime::Shared<str>]> =
            self.env.iter().map(|v| v.clone().into()).collect();
        server.env = env.into();
        server.checksum = self.checksum.clone().map(Into::into);
        server
    }

    /// `sandbox` with reads confined to `filesystem.read` and `filesystem.write` when `read`
    /// is given (`~/` against `$HOME`, relative paths against `working_dir`); `sandbox`
    /// unchanged otherwise. Checked at every start, since a server may change what it can
    /// write between two: a path that is a symbolic link, or that leads through one below a
    /// write path (a server could turn `write/docs` into a link to `~`), is refused.
    ///
    /// # Errors
    ///
    /// [`ServerSpecError::Invalid`] naming the path that is or leads through a link.
    pub fn sandbox(
        &self,
        sandbox: Sandbox,
        working_dir: &Path,
    ) -> Result<Sandbox, ServerSpecError> {
        let Some(read) = &self.filesystem.read else {
            return Ok(sandbox);
        };
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let absolute = |p: &String| match (p.strip_prefix("~/"), &home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => working_dir.join(p),
        };
        let writable: Vec<PathBuf> = self.filesystem.write.iter().map(absolute).collect();
        let mut readable = Vec::new();
        for (given, path) in read
            .iter()
            .chain(&self.filesystem.write)
            .map(|p| (p, absolute(p)))
        {
            if let Some(link) = link_on_the_way(&path, &writable) {
                return Err(ServerSpecError::Invalid(format!(
                    "`filesystem` path {given:?}: {} is a symbolic link, so it is not granted \
                     (give the path it leads to)",
                    link.display()
                )));
            }
            readable.push(path);
        }
        Ok(sandbox.confine_reads(readable))
    }

    /// Adds to `policy` what the server may reach: its `hosts` as an egress rule for its name,
    /// its `unixSockets` to the sockets every run may connect to (the wrapper's runner runs
    /// only this server).
    pub fn add_to(&self, policy: &mut Policy) {
        if !self.hosts.is_empty() {
            policy.egress_rules.push(EgressRule {
                commands: vec![self.server_name()],
                allow: self.hosts.clone(),
                deny: Vec::new(),
            });
        }
        policy
            .unix_sockets
            .extend(self.unix_sockets.iter().cloned());
    }
}

/// The symbolic link `path` is, or leads through below one of `writable` (a write path
/// itself included), if any. The path is walked one name at a time as the kernel would,
/// `..` and links above the write paths followed, so that no other spelling of the same
/// directory slips past. Above the write paths, links are the system's own business
/// (`/var/run`, a home directory on another disk), which no server can plant.
fn link_on_the_way(path: &Path, writable: &[PathBuf]) -> Option<PathBuf> {
    use std::path::Component;
    let is_link = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    if is_link(path) {
        return Some(path.to_path_buf());
    }
    // Where the write paths really are; one that does not exist yet is taken as written.
    let roots: Vec<PathBuf> = writable
        .iter()
        .map(|w| resolved(w).unwrap_or_else(|| w.clone()))
        .collect();
    if let Some(w) = writable.iter().find(|w| is_link(w)) {
        return Some(w.clone());
    }
    let mut at = PathBuf::from("/");
    for part in path.components() {
        match part {
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                at.pop();
            }
            Component::Normal(name) => {
                let next = at.join(name);
                if is_link(&next) {
                    if roots.iter().any(|r| next.starts_with(r)) {
                        return Some(next);
                    }
                    match resolved(&next) {
                        Some(real) => at = real,
                        // A link to nothing: nothing to read through it.
                        None => return None,
                    }
                } else {
                    at = next;
                }
            }
        }
    }
    None
}

/// `path` with every link and `..` resolved, when it exists.
fn resolved(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// Whether `name` is a plain MCP tool name: 1 to 128 of ASCII letters, digits, `_`, `-` and
/// `.` (MCP specification, "Tool names").
pub(super) fn plain_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn valid_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(valid_name_char)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_left_out_is_not_granted() {
        let spec =
            ServerSpec::from_json_text(r#"{"command": ["/opt/srv/bin/my server"]}"#).unwrap();
        assert_eq!(spec.server_name(), "my_server");
        let server = spec.invocation();
        assert_eq!(server.name.as_ref(), "my_server");
        assert_eq!(server.effects.filesystem_write(), Some(false));
        assert_eq!(server.effects.filesystem_delete(), Some(false));
        assert_eq!(server.effects.network, Some(false));
        assert!(server.env.is_empty());
        assert_eq!(server.checksum, None);
        let mut policy = Policy::default();
        spec.add_to(&mut policy);
        assert_eq!(policy, Policy::default());
    }

    #[test]
    fn roots_hosts_variables_and_sockets_become_the_servers_effects_and_rules() {
        let spec = ServerSpec::from_json_text(
            r#"{"name": "fs", "command": ["srv", "--root", "/srv/data"],
                "filesystem": {"read": ["/opt/srv"], "write": ["/srv/data", "~/notes"]},
                "hosts": ["127.0.0.1:8080"], "env": ["GITHUB_TOKEN"],
                "unixSockets": ["$XDG_RUNTIME_DIR/srv.sock"], "checksum": "sha256:00",
                "network": true,
                "tools": {"read": {"destructive": false, "network": false}}}"#,
        )
        .unwrap();
        let server = spec.invocation();
        assert_eq!(server.argv, ["srv", "--root", "/srv/data"]);
        let fs = server.effects.filesystem.clone().unwrap();
        assert_eq!((fs.write, fs.delete), (Some(true), Some(true)));
        assert_eq!(fs.paths.unwrap().as_ref(), ["/srv/data", "~/notes"]);
        assert_eq!(server.effects.network, Some(true));
        assert_eq!(server.env.len(), 1);
        assert_eq!(server.env[0].as_ref(), "GITHUB_TOKEN");
        assert_eq!(server.checksum.as_deref(), Some("sha256:00"));
        let mut policy = Policy::default();
        spec.add_to(&mut policy);
        let egress = policy.egress_for(&server).unwrap();
        assert_eq!(egress.allow, spec.hosts);
        assert_eq!(policy.unix_sockets, ["$XDG_RUNTIME_DIR/srv.sock"]);
        assert_eq!(spec.tools["read"].destructive, Some(false));
        assert_eq!(spec.tools["read"].filesystem, None);
    }

    #[test]
    fn a_read_path_that_is_or_leads_through_a_link_below_a_write_path_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("data/docs")).unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        let spec = |read: &str| {
            ServerSpec::from_json_text(&format!(
                r#"{{"command": ["srv"], "filesystem": {{"read": ["{read}"], "write": ["data"]}}}}"#
            ))
            .unwrap()
        };
        assert!(spec("data/docs").sandbox(Sandbox::new(), root).is_ok());
        // The server turned its `docs` into a link to the home directory between two starts.
        std::fs::remove_dir(root.join("data/docs")).unwrap();
        std::os::unix::fs::symlink(root.join("home"), root.join("data/docs")).unwrap();
        let err = spec("data/docs/sub")
            .sandbox(Sandbox::new(), root)
            .unwrap_err();
        assert!(err.to_string().contains("is a symbolic link"), "{err}");
        assert!(spec("data/docs").sandbox(Sandbox::new(), root).is_err());
        // Other spellings of the same directory: through `..`, and through a link above the
        // write path.
        std::fs::create_dir_all(root.join("other")).unwrap();
        assert!(spec("other/../data/docs/sub")
            .sandbox(Sandbox::new(), root)
            .is_err());
        std::os::unix::fs::symlink(root.join("data"), root.join("above")).unwrap();
        assert!(spec("above/docs/sub")
            .sandbox(Sandbox::new(), root)
            .is_err());
        // A write path that is a link is not granted for reading either.
        std::os::unix::fs::symlink(root.join("home"), root.join("link")).unwrap();
        let linked = ServerSpec::from_json_text(
            r#"{"command": ["srv"], "filesystem": {"read": [], "write": ["link"]}}"#,
        )
        .unwrap();
        assert!(linked.sandbox(Sandbox::new(), root).is_err());
    }

    #[test]
    fn mistakes_are_named() {
        let err = |text: &str| ServerSpec::from_json_text(text).unwrap_err().to_string();
        assert!(err(r#"{"command": []}"#).contains("`command` is empty"));
        assert!(err(r#"{"command": [""]}"#).contains("the program, is empty"));
        assert!(err(r#"{"name": "a b", "command": ["x"]}"#).contains("`name` \"a b\""));
        assert!(err(r#"{"command": ["x"], "env": ["A=B"]}"#).contains("`env` \"A=B\""));
        assert!(err(r#"{"command": ["x"], "filesystem": {"write": [""]}}"#).contains("empty path"));
        assert!(err(r#"{"command": ["x"], "netwrok": true}"#).contains("unknown field `netwrok`"));
        assert!(err(r#"{"command": ["x"], "unixSockets": ["/run/x.sock"]}"#)
            .contains("needs `network: true`"));
        assert!(err(r#"{"name": "x"}"#).contains("missing field `command`"));
        assert!(err(r#"{"command": ["x"], "tools": {"sh ": {}}}"#).contains("`tools` key \"sh \""));
        assert!(err(r#"{"command": ["x"], "hosts": ["a b"]}"#).contains("line 1"));
        assert!(
            err(r#"{"command": ["x"], "tools": {"t": {"destructive": "yes"}}}"#).contains("line 1")
        );
    }
}
