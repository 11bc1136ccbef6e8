//! Discovery (spec §3.1, §5): run `TOOL --agent`, which prints the tool's ATIP metadata; when
//! it gives none, look for a shim filed under the SHA-256 of the binary (spec §4, §5.1 step 4,
//! [`crate::shim`]).
//!
//! The tool runs without a shell (a bare name is looked up on `PATH`), with the caller's
//! environment and `/dev/null` as stdin, as a session of its own (its own process group, no
//! controlling terminal), started by `atip-spawn`, under a short time limit that bounds the whole
//! call: at the limit the tool and its group are killed and discovery returns, even if a
//! process it started left the group and still holds its output open. The output is capped and
//! must validate as a strict ATIP document.

use std::ffi::OsString;
use std::fmt;
use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use atip_spawn::{blocking, Signal, Spec};

use crate::shim::{find_shim, resolve_program, ShimDirs};
use crate::{Document, FlattenOptions, LoadError, LoadOptions};

/// Default time limit for `TOOL --agent`: 5 s.
pub const DEFAULT_DISCOVER_TIMEOUT: Duration = Duration::from_secs(5);

/// Largest `--agent` output accepted: 64 MiB.
pub const MAX_AGENT_OUTPUT: usize = 64 * 1024 * 1024;

/// Why `TOOL --agent` gave no usable metadata.
#[derive(Debug)]
#[non_exhaustive]
pub enum DiscoverError {
    /// The tool is not installed (not found on `PATH`).
    NotFound {
        /// The tool.
        tool: String,
    },
    /// It could not be started for another reason, or its output could not be read.
    Io {
        /// The tool.
        tool: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// It ran longer than the time limit and was killed.
    TimedOut {
        /// The tool.
        tool: String,
        /// The limit.
        timeout: Duration,
    },
    /// It exited unsuccessfully (spec §3.1: exit 0 on success).
    Failed {
        /// The tool.
        tool: String,
        /// Exit code, when it exited.
        code: Option<i32>,
        /// The start of its stderr.
        stderr: String,
    },
    /// It printed more than [`MAX_AGENT_OUTPUT`] bytes.
    TooLarge {
        /// The tool.
        tool: String,
    },
    /// Its output is not a valid ATIP document.
    Invalid(LoadError),
}

impl fmt::Display for DiscoverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiscoverError::NotFound { tool } => {
                write!(f, "`{tool}` is not installed (not found on PATH)")
            }
            DiscoverError::Io { tool, source } => {
                write!(f, "cannot run `{tool} --agent`: {source}")
            }
            DiscoverError::TimedOut { tool, timeout } => write!(
                f,
                "`{tool} --agent` did not finish within {} ms and was killed",
                timeout.as_millis()
            ),
            DiscoverError::Failed { tool, code, stderr } => {
                write!(f, "`{tool} --agent` failed")?;
                if let Some(c) = code {
                    write!(f, " with exit code {c}")?;
                }
                if !stderr.is_empty() {
                    write!(f, ": {stderr}")?;
                }
                Ok(())
            }
            DiscoverError::TooLarge { tool } => write!(
                f,
                "`{tool} --agent` printed more than {MAX_AGENT_OUTPUT} bytes"
            ),
            DiscoverError::Invalid(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for DiscoverError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DiscoverError::Io { source, .. } => Some(source),
            DiscoverError::Invalid(e) => Some(e),
            _ => None,
        }
    }
}

/// Partial discovery (spec §3.1.1): ask a large tool for some of its commands only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Partial {
    /// Command subtrees to return (`--commands=pods,deployments`); empty for all.
    pub commands: Vec<String>,
    /// Subcommand nesting depth (`--depth=1`: top-level commands only); `None` for all.
    pub depth: Option<u32>,
}

impl Partial {
    /// The flags after `--agent`: `--commands=a,b` and `--depth=N`, each when set.
    pub fn args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if !self.commands.is_empty() {
            args.push(format!("--commands={}", self.commands.join(",")));
        }
        if let Some(depth) = self.depth {
            args.push(format!("--depth={depth}"));
        }
        args
    }
}

/// Runs `tool --agent` and returns its output once it validates (strictly, as at build time).
///
/// `tool` is a program name looked up on `PATH`, or a path.
///
/// # Errors
///
/// [`DiscoverError`]: not installed, not startable, timed out, failed, too large, or invalid
/// metadata (with every diagnostic, in the file `TOOL --agent`).
pub fn discover(tool: &str, timeout: Duration) -> Result<String, DiscoverError> {
    discover_partial(tool, &Partial::default(), timeout)
}

/// [`discover`] with partial discovery flags (spec §3.1.1): `tool --agent --commands=… --depth=…`.
/// A tool that supports them answers with `"partial": true` and says what it left out
/// (`omitted`), which the loader reads.
///
/// When the tool gives no metadata (it fails, times out, or prints something invalid), the
/// shim directories of [`ShimDirs::from_env`] are searched for the binary's SHA-256 before
/// giving up; a shim is the whole tool's metadata, whatever `partial` asked for.
///
/// # Errors
///
/// As [`discover`].
pub fn discover_partial(
    tool: &str,
    partial: &Partial,
    timeout: Duration,
) -> Result<String, DiscoverError> {
    discover_with_shims(tool, partial, timeout, &ShimDirs::from_env())
}

/// [`discover_partial`] with the shim directories given: `TOOL --agent` first; when that gives
/// no usable metadata and `tool` resolves to a file, the first `<sha256>.json` in `shims`
/// (which must load strictly and name that hash in `binary.hash`).
///
/// # Errors
///
/// The error of `TOOL --agent` when no shim exists; [`DiscoverError::Invalid`] naming the shim
/// when one exists but is unusable.
pub fn discover_with_shims(
    tool: &str,
    partial: &Partial,
    timeout: Duration,
    shims: &ShimDirs,
) -> Result<String, DiscoverError> {
    match run_agent(tool, partial, timeout) {
        Ok(text) => Ok(text),
        // Nothing to hash.
        Err(e @ DiscoverError::NotFound { .. }) => Err(e),
        Err(e) => match find_shim(tool, shims) {
            Ok(Some((_, text))) => Ok(text),
            Ok(None) => Err(e),
            Err(invalid) => Err(DiscoverError::Invalid(invalid)),
        },
    }
}

/// Runs `tool --agent` and checks its output.
fn run_agent(tool: &str, partial: &Partial, timeout: Duration) -> Result<String, DiscoverError> {
    let io_error = |source| DiscoverError::Io {
        tool: tool.into(),
        source,
    };
    // The spawner runs a file: look a bare name up on PATH first, as `execvp` would. A path is
    // run as it is, so that its own error (not found, not executable) is the one reported.
    // (Off Unix the spawner's fallback is `std::process::Command`, whose own lookup knows the
    // system's rules, such as `.exe`.)
    let program = if tool.contains('/') || cfg!(not(unix)) {
        PathBuf::from(tool)
    } else {
        resolve_program(tool).ok_or_else(|| DiscoverError::NotFound { tool: tool.into() })?
    };
    let argv: Vec<OsString> = [tool.to_owned(), "--agent".to_owned()]
        .into_iter()
        .chain(partial.args())
        .map(OsString::from)
        .collect();
    // The whole environment, inherited.
    let env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    let spec = Spec {
        program: &program,
        argv: &argv,
        env: &env,
        cwd: None,
        stdin: false,
        keep_fd: None,
    };
    // ETXTBSY: the executable is still open for writing somewhere (being installed, or a
    // file descriptor inherited by a process another thread forked in that instant); it
    // passes within milliseconds.
    let mut spawned = blocking::spawn(&spec, None);
    for _ in 0..10 {
        match &spawned {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(Duration::from_millis(20));
                spawned = blocking::spawn(&spec, None);
            }
            _ => break,
        }
    }
    // Dropped on every return below, the child takes its process group with it and is reaped.
    let mut child = spawned.map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            DiscoverError::NotFound { tool: tool.into() }
        } else {
            io_error(source)
        }
    })?;
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    // The readers hand their results over a channel, so that waiting for them is bounded: a
    // process that escaped the group may hold the pipes open for as long as it likes.
    let (out_tx, out_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let r = (&mut stdout)
            .take(MAX_AGENT_OUTPUT as u64 + 1)
            .read_to_end(&mut buf);
        // Drain the rest so the child is never stuck on a full pipe.
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        let _ = out_tx.send(r.map(|_| buf));
    });
    let (err_tx, err_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut stderr).take(64 * 1024).read_to_end(&mut buf);
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        let _ = err_tx.send(buf);
    });
    let deadline = Instant::now() + timeout;
    let status = child.wait_until(deadline).map_err(io_error)?;
    // Whatever it left behind in its group goes too; the tool itself by its pid while it is
    // not reaped, in case it left the group.
    child.kill_group(Signal::Kill);
    let timed_out = || DiscoverError::TimedOut {
        tool: tool.into(),
        timeout,
    };
    let Some(status) = status else {
        // Killed with SIGKILL: it ends at once, unless stuck in the kernel; then it is reaped
        // in the background (when `child` drops) rather than waited for without bound.
        let _ = child.wait_until(Instant::now() + Duration::from_millis(500));
        return Err(timed_out());
    };
    let rest = |by: Instant| by.saturating_duration_since(Instant::now());
    let read_by = deadline.max(Instant::now()) + Duration::from_millis(200);
    let out = out_rx
        .recv_timeout(rest(read_by))
        .map_err(|_| timed_out())?
        .map_err(|source| DiscoverError::Io {
            tool: tool.into(),
            source,
        })?;
    let err = err_rx.recv_timeout(rest(read_by)).unwrap_or_default();
    if !status.success() {
        let stderr: String = String::from_utf8_lossy(&err).chars().take(500).collect();
        return Err(DiscoverError::Failed {
            tool: tool.into(),
            code: status.code(),
            stderr: stderr.trim().to_owned(),
        });
    }
    if out.len() > MAX_AGENT_OUTPUT {
        return Err(DiscoverError::TooLarge { tool: tool.into() });
    }
    let file = format!("{tool} --agent");
    let options = LoadOptions::strict().with_file(file.clone());
    let text = String::from_utf8(out).map_err(|e| {
        DiscoverError::Invalid(LoadError {
            file: Some(file.clone()),
            diagnostics: vec![crate::Diagnostic::error(
                crate::JsonPath::root(),
                format!(
                    "output is not UTF-8 text (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                ),
            )],
        })
    })?;
    Document::parse(&text, &options, &FlattenOptions::default()).map_err(DiscoverError::Invalid)?;
    Ok(text)
}
