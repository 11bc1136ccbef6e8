//! What describing a program gives: the document with what it could not say exactly, or why
//! no document could be written.

use std::fmt;

use atip_core::DocumentTree;

/// A program's ATIP document, and what it could not say exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct Described {
    /// The document (ATIP 0.6, `trust` set from the annotations). Its JSON
    /// ([`Described::to_json`]) loads with `atip_core::LoadOptions::strict()`.
    pub tool: DocumentTree,
    /// Every clap construct the document could not carry exactly, in walk order.
    pub warnings: Vec<Warning>,
}

impl Described {
    /// The document as pretty-printed JSON, as `PROGRAM --agent` prints it.
    pub fn to_json(&self) -> String {
        // A document of plain strings, numbers and maps always serialises.
        serde_json::to_string_pretty(&self.tool).unwrap_or_default()
    }
}

/// Something about one clap command or argument that the document cannot say exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The command path as typed (`"remote add"`; empty for the program itself).
    pub command: String,
    /// The clap id of the argument concerned, when it is about one argument.
    pub arg: Option<String>,
    /// What cannot be said, and what the document does instead.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let command = if self.command.is_empty() {
            "the program"
        } else {
            &self.command
        };
        match &self.arg {
            Some(arg) => write!(f, "`{command}`, argument `{arg}`: {}", self.message),
            None => write!(f, "`{command}`: {}", self.message),
        }
    }
}

/// Why no document could be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentError {
    /// Every problem: no version, a name ATIP does not allow, annotations for commands that
    /// do not exist (a typo would otherwise leave that command's effects undeclared).
    pub problems: Vec<String>,
}

impl fmt::Display for DocumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cannot describe the program as ATIP: ")?;
        f.write_str(&self.problems.join("; "))
    }
}

impl std::error::Error for DocumentError {}
