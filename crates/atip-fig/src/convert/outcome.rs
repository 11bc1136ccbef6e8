//! What a conversion records and returns: the provenance it writes into the document, the
//! converted document with its warnings and counts, and why a spec could not be converted.

use std::fmt;

use serde_json::Value;

/// Where an import came from: `x-atip-rust.generator` of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generator {
    /// The npm package (`@withfig/autocomplete`).
    pub package: String,
    /// Its version (`2.692.3`).
    pub version: String,
    /// The spec module the document was made from, relative to the package's build
    /// directory (`gh.js`, `az/2.53.0.js`).
    pub spec: String,
    /// The package's licence (`ISC`), kept with the document as attribution.
    pub license: Option<String>,
    /// The package's copyright line, kept with the document as attribution.
    pub copyright: Option<String>,
}

/// Something the conversion changed, dropped or could not express.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where, as a Fig command line (`gh pr create --repo`).
    pub at: String,
    /// What happened.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// Counts of one conversion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Commands written that run (leaves and `""` commands): the tools a model sees.
    pub commands: usize,
    /// `generators` found (argument values computed by running programs), ignored.
    pub generators: usize,
    /// `generateSpec` found (specs computed by running programs), ignored.
    pub generate_specs: usize,
    /// `loadSpec` references followed into another module of the package.
    pub load_specs_followed: usize,
    /// `loadSpec` references not followed: functions, references on arguments or suggestions,
    /// references back to a module being loaded, and modules that failed.
    pub load_specs_ignored: usize,
    /// Hidden commands and options dropped.
    pub hidden: usize,
    /// Commands declared `destructive: true`.
    pub destructive: usize,
    /// Commands declared `destructive: false` (read-only verbs).
    pub read_only: usize,
}

impl Stats {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &Stats) {
        self.commands += other.commands;
        self.generators += other.generators;
        self.generate_specs += other.generate_specs;
        self.load_specs_followed += other.load_specs_followed;
        self.load_specs_ignored += other.load_specs_ignored;
        self.hidden += other.hidden;
        self.destructive += other.destructive;
        self.read_only += other.read_only;
    }
}

/// Why a spec could not be converted at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConvertError {
    /// The spec is not an object with a `name`.
    NotASpec(String),
    /// The tool's name is not allowed by the ATIP schema (`^[a-zA-Z0-9_-]+$`).
    ToolName(String),
    /// More runnable commands than the limit.
    TooManyCommands {
        /// The limit.
        limit: usize,
    },
    /// No command is left to run.
    NoCommands,
}

impl ConvertError {
    /// A short category for summaries.
    pub fn category(&self) -> &'static str {
        match self {
            ConvertError::NotASpec(_) => "not-a-spec",
            ConvertError::ToolName(_) => "tool-name",
            ConvertError::TooManyCommands { .. } => "too-many-commands",
            ConvertError::NoCommands => "no-commands",
        }
    }
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConvertError::NotASpec(why) => write!(f, "not a Fig spec: {why}"),
            ConvertError::ToolName(name) => write!(
                f,
                "tool name {name:?} is not allowed by the ATIP schema (^[a-zA-Z0-9_-]+$)"
            ),
            ConvertError::TooManyCommands { limit } => {
                write!(f, "more than {limit} commands (the import limit)")
            }
            ConvertError::NoCommands => write!(f, "no command is left after conversion"),
        }
    }
}

impl std::error::Error for ConvertError {}

/// A converted document.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The ATIP 0.6 document.
    pub document: Value,
    /// What was changed or dropped.
    pub warnings: Vec<Warning>,
    /// Counts.
    pub stats: Stats,
}
