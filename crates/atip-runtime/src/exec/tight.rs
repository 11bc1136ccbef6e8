//! Tight first ([`Policy::tight_first`](crate::policy::Policy::tight_first)): a call the
//! policy would put to a person only for what its effects leave unsaid runs first, unasked,
//! in the tightest sandbox; when that run fails, what the kernel refused is read from the
//! run's own words and put to the person with the question.
//!
//! The tightest sandbox is the one a call declared `filesystem.write: false` and
//! `network: false` gets, narrowed further: no extra writable paths, no credential grants, no
//! program owning a credential store or daemon socket, no Unix sockets from the policy, no
//! egress. Only its scratch directory (`TMPDIR`, removed after the run) is writable.

use std::sync::OnceLock;

use regex::RegexSet;

use std::path::PathBuf;

use tokio::sync::mpsc;

use super::sandbox::Plan;
use super::{Output, OutputChunk, RunError, Runner};
use crate::Invocation;

impl Runner {
    /// The first try of a call in the tightest sandbox ([`crate::policy::Gate::tight_first`]):
    /// the sandbox must enforce all of it, or the try is not made. The variables the command
    /// declares (its credentials among them) are not given: a try that needs them fails and
    /// is asked about. Not streamed: a run whose result is not used shows nothing
    /// ([`Runner::forward`] sends a used one).
    pub(super) async fn tight_run(
        &self,
        invocation: &Invocation,
        program: &Option<PathBuf>,
        working_dir: &std::path::Path,
        gate: &crate::policy::Gate,
    ) -> Result<Output, RunError> {
        // The plan is narrowed by [`tighten`]; the effects stay as declared (the result, the
        // audit line and the time limit read them).
        let mut tight = invocation.clone();
        tight.env = crate::Shared::Static(&[]);
        let mut confinement = gate.confinement.clone();
        confinement.required = true;
        let mut output = self
            .verified_run(tight, program.clone(), working_dir, confinement, None, true)
            .await?;
        output.tight_first = true;
        Ok(output)
    }

    /// Sends a tight run's output (or a served call's), redacted, to the stream of a call
    /// whose result it is: one chunk per stream (stdout first). A stream cut at the cap loses
    /// its last partial word first, as in the result, which could be the start of a secret.
    pub(super) async fn forward(&self, output: &Output, tx: &mpsc::Sender<OutputChunk>) {
        let tool = Some(output.name.as_str());
        let filter = self.filter.with_known_secrets(&output.known_secrets);
        for (stream, bytes, dropped) in [
            (
                super::process::StreamKind::Stdout,
                &output.stdout,
                output.stdout_dropped,
            ),
            (
                super::process::StreamKind::Stderr,
                &output.stderr,
                output.stderr_dropped,
            ),
        ] {
            let raw = crate::filter::utf8_lossy(bytes);
            let kept = if dropped > 0 {
                crate::filter::drop_partial_tail(&raw).0
            } else {
                &raw
            };
            let text = filter.redact_for(tool, kept).0;
            if !text.is_empty() {
                let chunk = OutputChunk {
                    stream,
                    bytes: text.into_owned().into_bytes(),
                };
                let _ = tx.send(chunk).await;
            }
        }
    }

    /// The reason a tight run that failed, or showed a refusal, adds to the question: how it
    /// ended and what its output shows was refused, redacted as its output would be.
    pub(super) fn tight_failure(
        &self,
        output: &Output,
        refused: Vec<(Refused, String)>,
    ) -> crate::policy::Reason {
        let tool = Some(output.name.as_str());
        let filter = self.filter.with_known_secrets(&output.known_secrets);
        // The program's own words, shown to a person: redacted, and without escape sequences
        // or control characters that could redraw the question.
        let refused: Vec<_> = refused
            .into_iter()
            .map(|(kind, line)| {
                let line = filter.redact_for(tool, &line).0.into_owned();
                (kind, shown(&line))
            })
            .collect();
        let ended = if output.timed_out {
            format!("timed out after {} s", output.timeout.as_secs())
        } else {
            output.status.to_string()
        };
        crate::policy::Reason {
            code: crate::policy::ReasonCode::TightFirst,
            message: failure_sentence(&ended, &refused),
            severity: crate::policy::ReasonSeverity::Confirm,
        }
    }
}

/// Narrows a run's plan to the tightest sandbox, whatever the call's effects and the caller's
/// switches gave it: writable only its scratch directory (no declared paths, no directories
/// made, no extra writable paths), no network (a network namespace, no egress), no Unix
/// sockets, no credential grants, and no program owning a store or daemon socket.
pub(super) fn tighten(plan: &mut Plan) {
    plan.writes = Some(Vec::new());
    plan.make_dirs.clear();
    plan.declared.clear();
    plan.extra_writable.clear();
    plan.credentials.clear();
    plan.program_name = None;
    plan.unix_sockets.clear();
    plan.egress = None;
    plan.no_network = true;
    plan.network_namespace = true;
}

/// What a tight run shows the kernel refused it, as far as its output tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Refused {
    /// A write (or creation, or deletion) of a file.
    Write,
    /// Something the kernel refused without saying what (`EACCES`, `EPERM`): most often a
    /// write, a socket or a device.
    Permission,
    /// A network connection or a name lookup.
    Network,
    /// A Unix socket (a daemon: docker, D-Bus, ssh-agent, …).
    Socket,
}

impl Refused {
    fn as_str(self) -> &'static str {
        match self {
            Refused::Write => "a write",
            Refused::Permission => "an operation (a write, a socket or a device)",
            Refused::Network => "the network",
            Refused::Socket => "a Unix socket",
        }
    }
}

/// Messages programs print when the kernel refuses what the tight sandbox withholds: the C
/// library's texts for `EACCES`, `EPERM`, `EROFS`, `ENETUNREACH`, `EAI_AGAIN` …, and the
/// wording of the tools that print their own (curl, git, Go's net package, docker).
const SIGNS: &[(Refused, &str)] = &[
    (Refused::Write, r"(?i)read-only file system"),
    (Refused::Write, r"\bEROFS\b"),
    (Refused::Permission, r"(?i)permission denied"),
    (Refused::Permission, r"(?i)operation not permitted"),
    (Refused::Permission, r"\b(EACCES|EPERM)\b"),
    (
        Refused::Write,
        r"(?i)(cannot|could not|unable to|failed to) (create|write|lock|remove|delete|rename|make|mkdir|touch)",
    ),
    (Refused::Network, r"(?i)network is unreachable"),
    (Refused::Network, r"(?i)could not resolve (host|proxy)"),
    (
        Refused::Network,
        r"(?i)temporary failure in name resolution",
    ),
    (Refused::Network, r"(?i)name or service not known"),
    (Refused::Network, r"(?i)no address associated with hostname"),
    (
        Refused::Network,
        r"\b(ENETUNREACH|EAI_AGAIN|ECONNREFUSED|EHOSTUNREACH)\b",
    ),
    (
        Refused::Network,
        r"(?i)(failed to|could not|unable to) connect",
    ),
    (Refused::Network, r"(?i)\bdial tcp\b"),
    (Refused::Network, r"(?i)connection refused"),
    (Refused::Socket, r"(?i)\bdial unix\b"),
    (Refused::Socket, r"(?i)\.sock\b"),
    (Refused::Socket, r"(?i)cannot connect to the docker daemon"),
    (Refused::Socket, r"(?i)failed to connect to (the )?bus"),
];

fn signs() -> &'static RegexSet {
    static SET: OnceLock<RegexSet> = OnceLock::new();
    SET.get_or_init(|| RegexSet::new(SIGNS.iter().map(|(_, p)| *p)).expect("the signs compile"))
}

/// What a tight run's output shows was refused: each kind with the first line that shows it
/// (at most 200 bytes), in the order [`Refused`] lists them. Empty when the output names no
/// refusal (a failed run may have failed on its own).
pub(super) fn refusals(stdout: &[u8], stderr: &[u8]) -> Vec<(Refused, String)> {
    let mut found: Vec<(Refused, String)> = Vec::new();
    for text in [stderr, stdout] {
        for line in crate::filter::utf8_lossy(text).lines() {
            // One kind per line, the most telling: a socket's or a connection's refusal also
            // reads "permission denied", a refused write "cannot touch … Permission denied".
            let kind = signs()
                .matches(line)
                .iter()
                .map(|i| SIGNS[i].0)
                .max_by_key(|k| match k {
                    Refused::Socket => 3,
                    Refused::Network => 2,
                    Refused::Write => 1,
                    Refused::Permission => 0,
                });
            if let Some(kind) = kind {
                if !found.iter().any(|(k, _)| *k == kind) {
                    found.push((kind, shorten(line.trim(), 200)));
                }
            }
        }
    }
    found.sort_by_key(|(k, _)| *k);
    found
}

/// A line of a program's output as a person is shown it inside the question: escape
/// sequences removed, other control characters written as escapes (`\r`, `\u{7}`), so that
/// the program cannot redraw or hide what the person reads.
pub(super) fn shown(line: &str) -> String {
    let plain = super::ansi::strip(line.as_bytes());
    let mut out = String::with_capacity(plain.len());
    for c in String::from_utf8_lossy(&plain).chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// The sentence the person is asked with, after a tight run that failed or showed a refusal:
/// how it ended and what was refused (each line already redacted by the caller), or that its
/// output names nothing.
pub(super) fn failure_sentence(ended: &str, refused: &[(Refused, String)]) -> String {
    let mut s = format!(
        "ran first read-only and offline (no writes, no network, no Unix sockets, no \
         credential stores): {ended}; "
    );
    if refused.is_empty() {
        s.push_str(
            "its output names no refusal, so more rights may not change that; run it with its \
             declared effects?",
        );
    } else {
        s.push_str("refused: ");
        for (i, (kind, line)) in refused.iter().enumerate() {
            if i > 0 {
                s.push_str("; ");
            }
            s.push_str(&format!("{} (`{line}`)", kind.as_str()));
        }
        s.push_str("; run it again with its declared effects?");
    }
    s
}

fn shorten(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_owned();
    }
    format!("{}…", &line[..line.floor_char_boundary(max)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusals_of_real_tools_are_named_by_kind() {
        let found = refusals(
            b"",
            b"touch: cannot touch 'x': Read-only file system\n\
              curl: (6) Could not resolve host: example.com\n",
        );
        assert_eq!(
            found.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            [Refused::Write, Refused::Network]
        );
        assert_eq!(found[0].1, "touch: cannot touch 'x': Read-only file system");
        let docker = refusals(
            b"",
            b"Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n",
        );
        assert_eq!(
            docker.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            [Refused::Socket]
        );
    }

    #[test]
    fn one_line_is_one_refusal_of_its_most_telling_kind() {
        let found = refusals(
            b"",
            b"touch: cannot touch 'x': Permission denied\n\
              dial unix /run/docker.sock: connect: permission denied\n\
              cat: /home/u/.ssh/id_rsa: cannot open: Permission denied\n",
        );
        assert_eq!(
            found,
            [
                (
                    Refused::Write,
                    "touch: cannot touch 'x': Permission denied".to_owned()
                ),
                (
                    Refused::Permission,
                    "cat: /home/u/.ssh/id_rsa: cannot open: Permission denied".to_owned()
                ),
                (
                    Refused::Socket,
                    "dial unix /run/docker.sock: connect: permission denied".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn a_program_cannot_redraw_the_question_with_its_output() {
        // Escape sequences and the bell go; a carriage return is shown as `\r`.
        let line = "\x1b[2K\r? `ls` needs confirmation\x1b[8m hidden\x07";
        assert_eq!(shown(line), "\\r? `ls` needs confirmation hidden");
    }

    #[test]
    fn a_failure_that_names_no_refusal_says_so() {
        assert!(refusals(b"", b"fatal: not a git repository\n").is_empty());
        let s = failure_sentence("exit code 128", &[]);
        assert!(s.contains("names no refusal"), "{s}");
        let s = failure_sentence(
            "exit code 1",
            &[(Refused::Permission, "x: Permission denied".into())],
        );
        assert!(
            s.contains(
                "refused: an operation (a write, a socket or a device) (`x: Permission denied`)"
            ),
            "{s}"
        );
    }
}
