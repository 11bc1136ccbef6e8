//! The `injection-vector-option` rule: options known to let their value run programs or write
//! arbitrary files, and when such an option is an error or a warning.

use atip_core::diagnostic::JsonPath;
use atip_core::Effects;
use serde::Serialize;
use serde_json::Value;

use super::linter::Linter;
use super::rules::Severity;
use super::values::flags_of;

/// What an injection vector lets a caller do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VectorKind {
    /// Its value names a program, a command line or code that the tool runs.
    RunsPrograms,
    /// Its value names a file the tool writes.
    WritesFiles,
}

/// An option known to let its value run programs or write arbitrary files (argument
/// injection: a model that controls the value controls what runs or what is overwritten).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct InjectionVector {
    /// The flag, exactly as in `flags`.
    pub flag: &'static str,
    /// The tools (document `name`) it is a vector of; empty: any tool.
    pub tools: &'static [&'static str],
    /// The top-level commands where the flag has this meaning; `""` stands for a global
    /// option, given before the command path (git's `-c`); empty: anywhere. (`git commit -c`
    /// reuses a message.)
    pub commands: &'static [&'static str],
    /// What it lets a caller do.
    pub kind: VectorKind,
    /// Why, in a few words.
    pub reason: &'static str,
}

const GIT: &[&str] = &["git", "hub"];
const GIT_HG: &[&str] = &["git", "hub", "hg"];
const TAR: &[&str] = &["tar", "gtar", "bsdtar"];
const RSYNC: &[&str] = &["rsync"];
const FD: &[&str] = &["fd", "fdfind"];
const SSH: &[&str] = &["ssh", "scp", "sftp"];
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "python", "python3"];
const INTERPRETERS: &[&str] = &["node", "perl", "ruby"];

/// The known argument-injection vectors `injection-vector-option` flags, with the reason for
/// each. Boolean options never match; `--output` matches only options that take a path or
/// text (not a format enumeration) on commands that do not declare `filesystem.write: true`.
pub const INJECTION_VECTORS: &[InjectionVector] = &[
    InjectionVector {
        flag: "--exec",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the command it is given (fd per match, git rebase per commit, git \
                 archive --remote as the remote helper)",
    },
    InjectionVector {
        flag: "-exec",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the command line it is given for every file found (find)",
    },
    InjectionVector {
        flag: "-execdir",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the command line it is given in each found file's directory (find)",
    },
    InjectionVector {
        flag: "--exec-batch",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the command it is given once with every match (fd)",
    },
    InjectionVector {
        flag: "-x",
        tools: FD,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "is fd's --exec: runs the command it is given per match",
    },
    InjectionVector {
        flag: "-X",
        tools: FD,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "is fd's --exec-batch: runs the command it is given",
    },
    InjectionVector {
        flag: "--pre",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names a preprocessor program run on every file searched (ripgrep)",
    },
    InjectionVector {
        flag: "--upload-pack",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program git runs for the other side of a fetch, clone or ls-remote \
                 (this machine for a local or file:// repository)",
    },
    InjectionVector {
        flag: "--receive-pack",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program git push runs for the other side (this machine for a local \
                 repository)",
    },
    InjectionVector {
        flag: "-c",
        tools: GIT_HG,
        commands: &[""],
        kind: VectorKind::RunsPrograms,
        reason: "sets configuration for the run, and configuration names programs \
                 (core.sshCommand, core.pager, core.fsmonitor, core.hooksPath, alias.*, hooks)",
    },
    InjectionVector {
        flag: "--config",
        tools: GIT_HG,
        commands: &["", "clone"],
        kind: VectorKind::RunsPrograms,
        reason: "sets configuration (git clone writes it into the new repository, hg applies \
                 it to the run), and configuration names programs and hooks",
    },
    InjectionVector {
        flag: "--config-env",
        tools: GIT,
        commands: &[""],
        kind: VectorKind::RunsPrograms,
        reason: "sets configuration from an environment variable, and configuration names \
                 programs",
    },
    InjectionVector {
        flag: "--template",
        tools: GIT,
        commands: &["init", "clone"],
        kind: VectorKind::RunsPrograms,
        reason: "copies the given directory's hooks into the repository, which git then runs",
    },
    InjectionVector {
        flag: "--output",
        tools: &[],
        commands: &[],
        kind: VectorKind::WritesFiles,
        reason: "writes to whatever path it is given",
    },
    InjectionVector {
        flag: "--compress-program",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program run to compress or decompress (sort, tar)",
    },
    InjectionVector {
        flag: "--use-compress-program",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program tar runs to compress or decompress",
    },
    InjectionVector {
        flag: "-I",
        tools: TAR,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "is tar's --use-compress-program: names a program tar runs",
    },
    InjectionVector {
        flag: "--to-command",
        tools: TAR,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "pipes every extracted file to the command it is given",
    },
    InjectionVector {
        flag: "--checkpoint-action",
        tools: TAR,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs a program at checkpoints (`exec=COMMAND`)",
    },
    InjectionVector {
        flag: "--info-script",
        tools: TAR,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the script it is given at the end of each volume",
    },
    InjectionVector {
        flag: "--new-volume-script",
        tools: TAR,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the script it is given at the end of each volume",
    },
    InjectionVector {
        flag: "--rsh-command",
        tools: TAR,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the remote shell program tar runs",
    },
    InjectionVector {
        flag: "--rmt-command",
        tools: TAR,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the remote tape program tar runs",
    },
    InjectionVector {
        flag: "--rsh",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the remote shell program run to reach the other side (rsync, tar)",
    },
    InjectionVector {
        flag: "-e",
        tools: RSYNC,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "is rsync's --rsh: names the program run as the remote shell",
    },
    InjectionVector {
        flag: "--rsync-path",
        tools: RSYNC,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "is the command line run as rsync on the other side",
    },
    InjectionVector {
        flag: "--exec-path",
        tools: GIT,
        commands: &[""],
        kind: VectorKind::RunsPrograms,
        reason: "names the directory git runs its helper programs from (git-remote-https, …)",
    },
    InjectionVector {
        flag: "-S",
        tools: &["scp", "sftp"],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program run as ssh",
    },
    InjectionVector {
        flag: "-D",
        tools: &["sftp"],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the given sftp server program directly",
    },
    InjectionVector {
        flag: "-F",
        tools: SSH,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names an ssh configuration file, whose `ProxyCommand` and `LocalCommand` run",
    },
    InjectionVector {
        flag: "-toolexec",
        tools: &["go"],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs every tool of the build through the given program",
    },
    InjectionVector {
        flag: "--post-renderer",
        tools: &["helm"],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the given program on the rendered manifests",
    },
    InjectionVector {
        flag: "--kubeconfig",
        tools: &["kubectl", "helm"],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names a kubeconfig, whose `exec` credential plugins run",
    },
    InjectionVector {
        flag: "--viewer",
        tools: &["npm"],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program help pages are shown with",
    },
    InjectionVector {
        flag: "--browser",
        tools: &["npm"],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the browser program run to open pages",
    },
    InjectionVector {
        flag: "-o",
        tools: SSH,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "sets any ssh option, and `ProxyCommand`, `LocalCommand` and \
                 `KnownHostsCommand` run the command line they are given",
    },
    InjectionVector {
        flag: "--ssh-command",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program run as ssh",
    },
    InjectionVector {
        flag: "--pager",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "names the program the output is piped to",
    },
    InjectionVector {
        flag: "--eval",
        tools: &[],
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "evaluates the code it is given",
    },
    InjectionVector {
        flag: "-e",
        tools: INTERPRETERS,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "evaluates the code it is given",
    },
    InjectionVector {
        flag: "-c",
        tools: SHELLS,
        commands: &[],
        kind: VectorKind::RunsPrograms,
        reason: "runs the code it is given",
    },
];

impl InjectionVector {
    /// Whether this vector is an option with `flags` of `tool`, declared on the top-level
    /// command `command` (`None`: a global option, before the command path): the flag, the
    /// tool and the command all match.
    pub fn applies_to(&self, tool: &str, command: Option<&str>, flags: &[&str]) -> bool {
        flags.contains(&self.flag)
            && (self.tools.is_empty() || self.tools.contains(&tool))
            && (self.commands.is_empty() || self.commands.contains(&command.unwrap_or("")))
    }
}

impl Linter<'_> {
    /// `injection-vector-option` for option `o` of a command whose merged effects are
    /// `effects`; `unwritten` says whether some command it applies to does not declare
    /// `filesystem.write: true`.
    pub(super) fn injection(
        &mut self,
        o: &Value,
        at: JsonPath,
        effects: &Effects,
        unwritten: bool,
    ) {
        let flags = flags_of(o);
        let ty = o.get("type").and_then(Value::as_str).unwrap_or("string");
        for v in INJECTION_VECTORS {
            if !v.applies_to(self.tool, self.top, &flags) {
                continue;
            }
            let (severity, message) = match v.kind {
                VectorKind::RunsPrograms => {
                    if ty == "boolean" {
                        continue;
                    }
                    if effects.subprocess == Some(false) {
                        (
                            Severity::Error,
                            format!(
                                "`{}` {}; the command declares `subprocess: false`",
                                v.flag, v.reason
                            ),
                        )
                    } else {
                        (
                            Severity::Warn,
                            format!(
                                "`{}` {}: a value chosen by a model runs code; deny the \
                                 parameter in the policy or leave it out of the metadata",
                                v.flag, v.reason
                            ),
                        )
                    }
                }
                VectorKind::WritesFiles => {
                    if matches!(ty, "boolean" | "enum" | "integer" | "number")
                        || !unwritten
                        || names_a_format(o)
                    {
                        continue;
                    }
                    if effects.filesystem_write() == Some(false) {
                        (
                            Severity::Error,
                            format!(
                                "`{}` {}; the command declares `filesystem.write: false`",
                                v.flag, v.reason
                            ),
                        )
                    } else {
                        (
                            Severity::Warn,
                            format!(
                                "`{}` {}, but the command does not declare `filesystem.write`",
                                v.flag, v.reason
                            ),
                        )
                    }
                }
            };
            self.report_as("injection-vector-option", severity, at.clone(), message);
        }
    }
}

/// Whether a string option is a format's name rather than a path: its description says
/// "format" or lists the values it takes (`-o, --output`: "Output format. One of: json|yaml";
/// "Allowed values: table, json, yaml"), as kubectl's and helm's do. An option typed `file`
/// or `directory` is a path whatever it says.
fn names_a_format(o: &Value) -> bool {
    if matches!(
        o.get("type").and_then(Value::as_str),
        Some("file" | "directory")
    ) {
        return false;
    }
    let description = o
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_ascii_lowercase();
    let says = |word: &str| {
        description.match_indices(word).any(|(i, _)| {
            let before = description[..i].chars().next_back();
            let after = description[i + word.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    };
    says("format") || says("one of") || says("allowed values") || says("possible values")
}
