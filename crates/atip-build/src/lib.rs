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
    let mut warnings = doc.warnings;
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
