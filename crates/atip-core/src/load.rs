//! Loading a document: JSON text → validated [`AtipTool`] → flattened [`Document`].

use std::path::Path;

use serde_json::Value;

use crate::diagnostic::{locate, Diagnostic, JsonPath, LoadError, Location};
use crate::flatten::{flatten, FlatCommand, FlattenOptions};
use crate::model::AtipTool;
use crate::validate::{validate, Mode};

/// Settings for [`load`] and [`Document::parse`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Strict (build time, `atip check`) or lenient (metadata read at run time).
    pub mode: Mode,
    /// File name used in diagnostics.
    pub file: Option<String>,
}

impl LoadOptions {
    /// Strict checking, as at build time.
    pub fn strict() -> Self {
        LoadOptions::default()
    }

    /// Lenient checking, for metadata read from tools at run time.
    pub fn lenient() -> Self {
        LoadOptions {
            mode: Mode::Lenient,
            file: None,
        }
    }

    /// Names the file in diagnostics.
    pub fn with_file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }
}

/// A validated document and the warnings found on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The document.
    pub tool: AtipTool,
    /// Warnings (unknown fields, dropped descriptive values in lenient mode, …), located.
    pub warnings: Vec<Diagnostic>,
}

/// Parses and validates an ATIP document.
///
/// A leading UTF-8 byte-order mark is skipped. Unknown `x-`, `_` and `$` members are ignored.
///
/// # Errors
///
/// [`LoadError`] with every error found (JSON syntax, schema violations, unsupported
/// version), each with its JSON path and line:column, plus the warnings.
pub fn load(text: &str, options: &LoadOptions) -> Result<Loaded, LoadError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut value: Value = serde_json::from_str(text).map_err(|e| LoadError {
        file: options.file.clone(),
        diagnostics: vec![json_syntax(&e)],
    })?;
    let mut diags = validate(&mut value, options.mode);
    if diags.iter().any(Diagnostic::is_error) {
        locate(text, &mut diags);
        return Err(LoadError {
            file: options.file.clone(),
            diagnostics: diags,
        });
    }
    match serde_json::from_value::<AtipTool>(value) {
        Ok(tool) => {
            locate(text, &mut diags);
            Ok(Loaded {
                tool,
                warnings: diags,
            })
        }
        Err(e) => {
            // Validation accepts exactly what the model reads; reaching this is a bug in
            // this library, reported as an error rather than a panic.
            diags.push(Diagnostic::error(
                JsonPath::root(),
                format!(
                    "document passed validation but could not be read ({e}); please report this"
                ),
            ));
            Err(LoadError {
                file: options.file.clone(),
                diagnostics: diags,
            })
        }
    }
}

fn json_syntax(e: &serde_json::Error) -> Diagnostic {
    let full = e.to_string();
    // serde_json appends " at line L column C"; the location goes in its own field.
    let message = match full.rfind(" at line ") {
        Some(i) => &full[..i],
        None => &full,
    };
    let hint = if message.contains("recursion limit") {
        ": the document nests deeper than 128 JSON levels (about 60 levels of subcommands), \
         which the parser refuses in order to keep its stack bounded"
    } else {
        ""
    };
    let mut d = Diagnostic::error(JsonPath::root(), format!("invalid JSON: {message}{hint}"));
    if e.line() > 0 {
        d.location = Some(Location {
            line: e.line(),
            column: e.column().max(1),
        });
    }
    d
}

/// A loaded and flattened document: what the generator and the runtime work from.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The validated document.
    pub tool: AtipTool,
    /// Its tools, one per leaf command (after the command filter).
    pub commands: Vec<FlatCommand>,
    /// Every warning from loading and flattening, located.
    pub warnings: Vec<Diagnostic>,
}

impl Document {
    /// Loads, validates and flattens `text`.
    ///
    /// # Errors
    ///
    /// [`LoadError`] with every error of loading, or, when loading succeeds, of flattening
    /// (name collisions, unusable flags, command filter entries matching nothing).
    pub fn parse(
        text: &str,
        options: &LoadOptions,
        flatten_options: &FlattenOptions,
    ) -> Result<Document, LoadError> {
        let loaded = load(text, options)?;
        let mut warnings = loaded.warnings;
        match flatten(&loaded.tool, flatten_options) {
            Ok(flat) => {
                let mut extra = flat.warnings;
                locate(text.strip_prefix('\u{feff}').unwrap_or(text), &mut extra);
                warnings.extend(extra);
                crate::diagnostic::sort_by_location(&mut warnings);
                Ok(Document {
                    tool: loaded.tool,
                    commands: flat.commands,
                    warnings,
                })
            }
            Err(mut diags) => {
                locate(text.strip_prefix('\u{feff}').unwrap_or(text), &mut diags);
                warnings.extend(diags);
                crate::diagnostic::sort_by_location(&mut warnings);
                Err(LoadError {
                    file: options.file.clone(),
                    diagnostics: warnings,
                })
            }
        }
    }

    /// Reads `path` and calls [`Document::parse`], naming the file in diagnostics.
    ///
    /// # Errors
    ///
    /// [`LoadError`] when the file cannot be read or is not valid UTF-8, or as
    /// [`Document::parse`].
    pub fn from_path(
        path: &Path,
        mode: Mode,
        flatten_options: &FlattenOptions,
    ) -> Result<Document, LoadError> {
        let options = LoadOptions {
            mode,
            file: Some(path.display().to_string()),
        };
        let text = read_text(path, &options)?;
        Document::parse(&text, &options, flatten_options)
    }
}

/// Reads a file as UTF-8 text, reporting failures as a [`LoadError`].
///
/// # Errors
///
/// [`LoadError`] with one diagnostic at `$` when the file cannot be read or is not UTF-8.
pub fn read_text(path: &Path, options: &LoadOptions) -> Result<String, LoadError> {
    let fail = |message: String| LoadError {
        file: options.file.clone(),
        diagnostics: vec![Diagnostic::error(JsonPath::root(), message)],
    };
    let bytes =
        std::fs::read(path).map_err(|e| fail(format!("cannot read {}: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "{} is not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}
