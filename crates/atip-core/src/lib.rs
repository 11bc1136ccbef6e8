//! The ATIP document, as the generator needs it: the metadata model (serde), its validation
//! per declared schema version, loading, the flattening of command trees into commands,
//! effects and their merge, provider-valid names, [`ToolSpec`] and the provider tool
//! definitions computed from it.
//!
//! Users normally depend on `atip-runtime`, which re-exports everything here and adds the
//! run-time contract (typed commands, dispatch of tool calls, argv, policy, execution);
//! `atip-build` (the generator) depends on this crate alone, so that the generator and the
//! runtime apply the very same rules.
//!
//! ```
//! use atip_core::{Document, FlattenOptions, LoadOptions};
//!
//! let json = r#"{
//!   "atip": {"version": "0.6"}, "name": "gh", "version": "2.45.0", "description": "GitHub CLI",
//!   "commands": {"pr": {"description": "Pull requests",
//!     "options": [{"name": "repo", "flags": ["-R", "--repo"], "type": "string", "description": "Repository"}],
//!     "commands": {"create": {"description": "Create a pull request",
//!       "effects": {"network": true, "idempotent": false}}}}}
//! }"#;
//! let doc = Document::parse(json, &LoadOptions::strict(), &FlattenOptions::default())?;
//! let create = &doc.commands[0];
//! assert_eq!(create.name, "gh_pr_create");
//! assert_eq!(create.path, ["pr", "create"]);
//! assert_eq!(create.options[0].name, "repo"); // inherited from `pr`
//! assert_eq!(create.effects.idempotent, Some(false));
//! # Ok::<(), atip_core::LoadError>(())
//! ```
#![deny(missing_docs)]

pub mod diagnostic;
pub mod discover;
pub mod effects;
pub mod flatten;
pub mod formats;
pub mod load;
pub mod model;
pub mod names;
pub mod providers;
pub mod shared;
pub mod shim;
pub mod spec_table;
pub mod tool;
#[doc(hidden)]
pub mod two_threads;
pub mod validate;

#[cfg(test)]
mod tests;

/// This crate's version (`CARGO_PKG_VERSION`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub use diagnostic::{Diagnostic, JsonPath, LoadError, Location, Severity};
pub use discover::{discover, discover_partial, discover_with_shims, DiscoverError, Partial};
pub use effects::{
    Cost, CostEstimate, DurationHint, Effects, FilesystemEffects, Interactive, StdinMode, Text,
    TextList,
};
pub use flatten::{
    flatten, CommandTable, FlatCommand, FlatParam, FlattenOptions, ParamPlacement, SkippedCommand,
};
pub use load::{load, Document, LoadOptions, ValidatedTree};
pub use model::{DocumentTree, ParamType, TrustSource};
pub use providers::{limits, Provider};
pub use shared::Shared;
pub use tool::{ArgvForm, GlobalOptions, ParamSpec, ToolSpec, ValueKind};
pub use validate::Mode;
