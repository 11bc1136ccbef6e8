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
        name_of_program(
            self.command
                .first()
                .map_or("server", String::as_str)
                .as_ref(),
        )
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
    /// unchanged otherwise. A path that is a symbolic link, or leads through one below a write
    /// path (a server could turn `write/docs` into a link to `~` between two starts), is not
    /// granted at start ([`Sandbox::confine_reads`]).
    pub fn sandbox(&self, sandbox: Sandbox, working_dir: &Path) -> Sandbox {
        let Some(read) = &self.filesystem.read else {
            return sandbox;
        };
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let absolute = |p: &String| match (p.strip_prefix("~/"), &home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => working_dir.join(p),
        };
        sandbox.confine_reads(read.iter().chain(&self.filesystem.write).map(absolute))
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

/// A server's name from its program: the file name, with any other character than letters,
/// digits, `-`, `_` and `.` replaced by `_` (`/opt/srv/bin/my server` → `my_server`).
pub fn name_of_program(program: &std::ffi::OsStr) -> String {
    let file = Path::new(program).file_name().unwrap_or(program);
    file.to_string_lossy()
        .chars()
        .map(|c| if valid_name_char(c) { c } else { '_' })
        .collect()
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
