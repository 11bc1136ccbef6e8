//! Loading a document: JSON text → validated [`DocumentTree`] → flattened [`Document`].

use std::path::Path;

use serde_json::Value;

use crate::diagnostic::{locate_anchored, Anchors, Diagnostic, JsonPath, LoadError, Location};
use crate::flatten::{flatten_owned, FlatCommand, FlattenOptions, SkippedCommand};
use crate::model::DocumentTree;
use crate::validate::{Mode, Validation};

mod node;

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
pub struct ValidatedTree {
    /// The document.
    pub tool: DocumentTree,
    /// Warnings (unknown fields, dropped descriptive values in lenient mode, …), located.
    pub warnings: Vec<Diagnostic>,
}

/// Parses and validates an ATIP document.
///
/// A leading UTF-8 byte-order mark is skipped. Unknown `x-`, `_` and `$` members are ignored.
///
/// A text of 8 MiB or more (tens of thousands of commands) is read on two threads when the
/// machine has two cores: the root's subcommands in two halves, joined in order, so the result
/// is the one-thread result. When no thread can be started, it is read on the caller's.
///
/// # Errors
///
/// [`LoadError`] with every error found (JSON syntax, schema violations, unsupported
/// version), each with its JSON path and line:column, plus the warnings.
pub fn load(text: &str, options: &LoadOptions) -> Result<ValidatedTree, LoadError> {
    load_anchored(text, options, &mut Anchors::default())
}

/// [`load`], also recording in `anchors` where each command's object starts in `text` (after
/// a byte-order mark), so that diagnostics found later (flattening's) are located from their
/// command rather than from the root.
fn load_anchored(
    text: &str,
    options: &LoadOptions,
    anchors: &mut Anchors,
) -> Result<ValidatedTree, LoadError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let syntax_error = |e: serde_json::Error| LoadError {
        file: options.file.clone(),
        diagnostics: vec![json_syntax(&e)],
    };
    let mut v = Validation::new(options.mode);
    let tool = match node::read_document(text, &mut v, anchors) {
        Ok(tool) => tool,
        // Not an object, invalid JSON (a string escape such as a lone surrogate, a number out
        // of range) or too deep: the whole-value path reports why, or checks the value. Also a
        // root that declares another version after its commands were read: checked whole, the
        // last declaration applies to every command.
        Err(node::Unread) => {
            v = Validation::new(options.mode);
            anchors.clear();
            let mut value: Value = serde_json::from_str(text).map_err(syntax_error)?;
            let mark = v.mark();
            v.root(&mut value);
            node::read_model::<DocumentTree>(&mut v, value, mark)
        }
    };
    let mut diags = v.finish();
    locate_anchored(text, &mut diags, anchors);
    match tool {
        Some(tool) if !diags.iter().any(Diagnostic::is_error) => Ok(ValidatedTree {
            tool,
            warnings: diags,
        }),
        _ => Err(LoadError {
            file: options.file.clone(),
            diagnostics: diags,
        }),
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
    /// The validated document, without its command tree: that moved into `commands` (so that
    /// a large document is held once). [`load`] gives the whole tree.
    pub tool: DocumentTree,
    /// Its tools, one per leaf command (after the command filter).
    pub commands: Vec<FlatCommand>,
    /// Every warning from loading and flattening, located.
    pub warnings: Vec<Diagnostic>,
    /// Commands left out in lenient mode, each with its reasons (always empty in strict mode,
    /// where the same problems are errors).
    pub skipped: Vec<SkippedCommand>,
    /// Options declared twice, identically, and kept once.
    pub merged_duplicates: usize,
}

impl Document {
    /// The environment variables `command` declares it reads (spec §3.8, §3.5): the tool's
    /// `authentication.methods[].envVar` and its parameters' `envVar`, each once, in that
    /// order. The runtime passes these to the command; undeclared variables are removed.
    pub fn declared_env<'a>(&'a self, command: &'a FlatCommand) -> Vec<&'a str> {
        let mut out: Vec<&str> = Vec::new();
        let auth = self
            .tool
            .authentication
            .iter()
            .flat_map(|a| &a.methods)
            .filter_map(|m| m.env_var.as_deref());
        let params = command.params().filter_map(|p| p.env_var.as_deref());
        for name in auth.chain(params) {
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }

    /// One line saying what loading did: `20,168 commands, 12 merged duplicates, 3 commands
    /// skipped` (the last two parts only when not zero).
    pub fn summary(&self) -> String {
        let mut line = count(self.commands.len(), "command", "commands");
        if self.merged_duplicates > 0 {
            line.push_str(", ");
            line.push_str(&count(
                self.merged_duplicates,
                "merged duplicate",
                "merged duplicates",
            ));
        }
        if !self.skipped.is_empty() {
            line.push_str(", ");
            line.push_str(&count(self.skipped.len(), "command", "commands"));
            line.push_str(" skipped");
        }
        line
    }

    /// Loads, validates and flattens `text`.
    ///
    /// Large documents use two threads when the machine has two cores: the load as [`load`]
    /// says, and the flattening of more than 4,096 commands (the root's subcommands in two
    /// halves, unless a flattened name would be in both). The result is the one-thread result.
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
        let mut anchors = Anchors::default();
        let mut loaded = load_anchored(text, options, &mut anchors)?;
        let mut warnings = loaded.warnings;
        let lenient = options.mode == Mode::Lenient;
        match flatten_owned(&mut loaded.tool, flatten_options, lenient) {
            Ok(flat) => {
                let mut extra = flat.warnings;
                locate_anchored(
                    text.strip_prefix('\u{feff}').unwrap_or(text),
                    &mut extra,
                    &anchors,
                );
                warnings.extend(extra);
                crate::diagnostic::sort_by_location(&mut warnings);
                Ok(Document {
                    tool: loaded.tool,
                    commands: flat.commands,
                    warnings,
                    skipped: flat.skipped,
                    merged_duplicates: flat.merged_duplicates,
                })
            }
            Err(mut diags) => {
                locate_anchored(
                    text.strip_prefix('\u{feff}').unwrap_or(text),
                    &mut diags,
                    &anchors,
                );
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
    let bytes = std::fs::read(path).map_err(|e| {
        let hint = match crate::diagnostic::nearest_file(path) {
            Some(near) => format!("; did you mean {}?", near.display()),
            None => String::new(),
        };
        fail(format!("cannot read {}: {e}{hint}", path.display()))
    })?;
    String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "{} is not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// `n` with its noun and thousands separators: `1 command`, `20,168 commands`.
fn count(n: usize, one: &str, many: &str) -> String {
    let digits = n.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{grouped} {}", if n == 1 { one } else { many })
}
