//! What every command shares: why it failed, its exit status, reading its input (a file or
//! standard input) and writing its output to stdout.

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

/// Why a command failed: printed on stderr before the process exits with status 1. Empty
/// when the details (every diagnostic of every file) were printed already.
#[derive(Debug)]
pub(crate) struct Failure(pub(crate) String);

impl Failure {
    pub(crate) fn new(message: impl std::fmt::Display) -> Self {
        Failure(message.to_string())
    }

    /// The problems were printed as they were found.
    pub(crate) fn reported() -> Self {
        Failure(String::new())
    }
}

/// The exit status of a command that ran, or why it could not.
pub(crate) type Outcome = Result<ExitCode, Failure>;

pub(crate) fn read_input(path: &Path) -> Result<String, Failure> {
    let mut text = String::new();
    let read = if path == Path::new("-") {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(path).map(|t| text = t)
    };
    read.map(|_| text)
        .map_err(|e| Failure::new(format!("cannot read {}: {e}", path.display())))
}

/// Writes `value` as pretty JSON and a newline.
pub(crate) fn emit_json(value: &Value) -> Outcome {
    let text = serde_json::to_string_pretty(value).map_err(Failure::new)?;
    emit(&format!("{text}\n"))
}

/// Writes to stdout; a closed pipe (`atip gen … | head`) ends quietly instead of panicking.
pub(crate) fn emit(text: &str) -> Outcome {
    emit_parts(&[text])
}

/// [`emit`] of `parts` one after the other, without joining them first (a compile's output is
/// as large as its documents).
pub(crate) fn emit_parts(parts: &[&str]) -> Outcome {
    let mut out = std::io::stdout().lock();
    let written = parts
        .iter()
        .try_for_each(|part| out.write_all(part.as_bytes()))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Failure::new(format!("cannot write the output: {e}"))),
    }
}

/// Ends the life of what a command loaded without freeing it: the process exits next, and
/// freeing a large document's millions of allocations one by one took a tenth of a compile of
/// 20,000 commands; the system takes the memory back at once. For commands that exit after
/// their output (`compile`, `check`, `search`), never for `serve` or `exec`.
pub(crate) fn exiting<T>(loaded: T) {
    std::mem::forget(loaded);
}
