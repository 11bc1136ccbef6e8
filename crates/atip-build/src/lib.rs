//! The atip generator: ATIP metadata (`tool --agent` JSON) → typed Rust.
//!
//! One generator, three front-ends that produce the same code for the same input:
//!
//! * `include_atip!` (crate `atip-macros`, re-exported by `atip-runtime`) expands in place;
//! * [`Builder`] writes formatted modules to `$OUT_DIR/atip/<tool>.rs` from `build.rs`;
//! * the `atip` command (crate `atip-cli`: `atip gen FILE`, `atip check FILE…`) prints them, for
//!   checked-in code.
//!
//! ```
//! let json = r#"{"atip": "0.4", "name": "hello", "version": "1.0", "description": "Greets",
//!   "commands": {"": {"description": "Print a greeting",
//!     "arguments": [{"name": "who", "type": "string", "description": "Whom to greet"}],
//!     "effects": {"network": false, "idempotent": true}}}}"#;
//! let expansion = atip_build::expand(json, &atip_build::Options::new())?;
//! assert_eq!(expansion.tool, "hello");
//! assert!(expansion.tokens.to_string().contains("pub struct Hello"));
//! # #[cfg(feature = "builder")] {
//! // Formatted, as build.rs writes it and `atip gen` prints it (feature `builder`, default):
//! let source = expansion.to_source("hello.json");
//! assert!(source.contains("const NAME: &'static str = \"hello\";"));
//! # }
//! # Ok::<(), atip_core::LoadError>(())
//! ```
//!
//! Errors are [`atip_core::LoadError`]s listing every problem of the document with its JSON
//! path and line:column.
//!
//! # An MCP server's saved tool list
//!
//! Input that is no ATIP document but an MCP server's tools — a saved `tools/list` result
//! (`{"tools": […]}`, with the `initialize` result's `serverInfo` beside it when saved so) or
//! an array of MCP `Tool`s — is read through the canonical model first
//! (`atip_canonical::mcp_to_atip`): one typed command per tool, named
//! `<server>_<tool>`, whose calls go to that MCP server (`Command::SERVER`) rather than to a
//! process. The server's name is `serverInfo.name`, else the file's stem, each with characters
//! outside `[A-Za-z0-9_-]` as `-`. What ATIP cannot type (object parameters, unions, …) is
//! dropped or rewritten, each said as a warning.
#![deny(missing_docs)]

#[cfg(feature = "builder")]
mod builder;
pub mod codegen;
mod docs;
pub mod idents;
mod options;
#[cfg(all(test, unix, feature = "builder"))]
mod tests;

use atip_core::{Diagnostic, Document, FlattenOptions, LoadError, LoadOptions, Mode};
use proc_macro2::TokenStream;

pub use atip_core::diagnostic::nearest_file;
pub use atip_core::discover::{
    discover, discover_partial, DiscoverError, Partial, DEFAULT_DISCOVER_TIMEOUT, MAX_AGENT_OUTPUT,
};
pub use atip_core::Provider;
#[cfg(feature = "builder")]
pub use builder::{BuildError, Builder, GeneratedFile, Input};
pub use codegen::{generate, Generation};
pub use options::{Options, DEFAULT_MAX_COMMANDS};

/// The versions of this crate and of the `atip-core` it was built with: what [`expand`]
/// emits depends on both, so caches of generated code are keyed on them.
pub const GENERATOR_VERSION: [&str; 2] = [env!("CARGO_PKG_VERSION"), atip_core::VERSION];

/// Generated items for one document.
#[derive(Debug, Clone)]
pub struct Expansion {
    /// The tool's `name`.
    pub tool: String,
    /// The generated items.
    pub tokens: TokenStream,
    /// Warnings from loading, flattening and naming (they do not stop generation).
    pub warnings: Vec<Diagnostic>,
}

/// Loads `text` strictly, flattens it (applying the command filter) and generates its items.
///
/// # Errors
///
/// [`LoadError`] with every error of the document; or, when more than
/// [`Options::max_commands`] commands remain after the filter, one error at `$.commands` that
/// says how many there are and how to keep fewer (`commands = [...]`) or raise the limit.
pub fn expand(text: &str, options: &Options) -> Result<Expansion, LoadError> {
    let mut lost = Vec::new();
    let converted;
    let text = match mcp_tools(text, options, &mut lost)? {
        Some(document) => {
            converted = document;
            converted.as_str()
        }
        None => text,
    };
    let load = LoadOptions {
        mode: Mode::Strict,
        file: options.file.clone(),
    };
    let flatten = FlattenOptions {
        commands: options.commands.clone(),
    };
    let doc = Document::parse(text, &load, &flatten)?;
    if doc.commands.len() > options.max_commands {
        return Err(too_many_commands(&doc, options));
    }
    let generation = generate(&doc, options);
    let mut warnings = lost;
    warnings.extend(doc.warnings);
    let mut renames = generation.warnings;
    atip_core::diagnostic::locate(text.strip_prefix('\u{feff}').unwrap_or(text), &mut renames);
    warnings.extend(renames);
    atip_core::diagnostic::sort_by_location(&mut warnings);
    Ok(Expansion {
        tool: doc.tool.name,
        tokens: generation.tokens,
        warnings,
    })
}

/// When `text` is an MCP server's tools rather than an ATIP document, the ATIP document of
/// them (see the crate documentation), what the conversion lost added to `lost`.
fn mcp_tools(
    text: &str,
    options: &Options,
    lost: &mut Vec<Diagnostic>,
) -> Result<Option<String>, LoadError> {
    let error = |message: String| LoadError {
        file: options.file.clone(),
        diagnostics: vec![Diagnostic::error(atip_core::JsonPath::root(), message)],
    };
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    // Cheap first: an ATIP document is an object with `atip`; only other shapes are parsed
    // here (a broken ATIP document gets the loader's located errors).
    let Ok(value) = serde_json::from_str::<serde_json::Value>(trimmed) else {
        return Ok(None);
    };
    let is_tools = match &value {
        serde_json::Value::Array(_) => true,
        serde_json::Value::Object(o) => {
            !o.contains_key("atip") && o.get("tools").is_some_and(serde_json::Value::is_array)
        }
        _ => false,
    };
    if !is_tools {
        return Ok(None);
    }
    let stem = options
        .file
        .as_deref()
        .and_then(|f| std::path::Path::new(f).file_stem())
        .map(|s| s.to_string_lossy().into_owned());
    let Some(raw) = value
        .pointer("/serverInfo/name")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
        .or(stem)
    else {
        return Err(error(
            "an MCP tool list needs a server name: save it with the initialize result's \
             `serverInfo` beside `tools`, or in a file named after the server"
                .to_owned(),
        ));
    };
    let name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let converted =
        atip_canonical::mcp_to_atip(&value, &name, "").map_err(|e| error(e.to_string()))?;
    lost.extend(
        converted.warnings.iter().map(|w| {
            Diagnostic::warning(atip_core::JsonPath::root(), format!("MCP tool list: {w}"))
        }),
    );
    Ok(Some(converted.value.to_string()))
}

/// The error for a document with more commands than the generator is allowed to emit.
fn too_many_commands(doc: &Document, options: &Options) -> LoadError {
    let n = doc.commands.len();
    let filtered = if options.commands.is_some() {
        " after the `commands` filter"
    } else {
        ""
    };
    // Two real command lines of this tool, as an example filter.
    let example: Vec<String> = doc
        .commands
        .iter()
        .filter(|c| !c.path.is_empty())
        .step_by((n / 2).max(1))
        .take(2)
        .map(|c| format!("\"{}\"", c.path.join(" ")))
        .collect();
    let message = format!(
        "`{tool}` has {n} commands{filtered}, more than the limit of {max} for generated code \
         (each command costs the compiler ~10 ms and ~1.1 MB in `cargo check`, more in a \
         build; see BENCHMARKS.md); keep the ones the agent uses with a command filter \
         (`commands = [{example}]`; a command keeps everything below it), or raise the limit \
         (`max_commands = {n}`)",
        tool = doc.tool.name,
        max = options.max_commands,
        example = example.join(", "),
    );
    LoadError {
        file: options.file.clone(),
        diagnostics: vec![Diagnostic::error(
            atip_core::JsonPath::root().key("commands"),
            message,
        )],
    }
}

#[cfg(feature = "builder")]
impl Expansion {
    /// The items as a formatted Rust file (prettyplease), behind an `@generated` header naming
    /// `source` (the metadata file). This is what `build.rs` writes and `atip gen` prints.
    pub fn to_source(&self, source: &str) -> String {
        let name = std::path::Path::new(source)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| source.to_owned());
        let header = format!(
            "// @generated by atip-build from {name}: do not edit; regenerate with `atip gen`.\n\n"
        );
        // The generator only emits items, so the tokens always parse as a file; should they
        // not, the unformatted tokens are still valid input for rustc to report on.
        match syn::parse2::<syn::File>(self.tokens.clone()) {
            Ok(file) => header + &prettyplease::unparse(&file),
            Err(_) => header + &self.tokens.to_string() + "\n",
        }
    }
}
