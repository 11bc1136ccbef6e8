//! Validation of a parsed document against the rules of the ATIP JSON Schema for the version it
//! declares (`0.1`–`0.4` use the 0.4 schema, `0.5` and `0.6` the 0.6 schema).
//!
//! The checks are written out by hand from the schemas; no schema is embedded. Every violation
//! is collected, none stops the walk. Beyond the schema:
//!
//! * unknown members are warnings, except those starting with `x-` (vendor extensions, spec
//!   §12.2), `_` (internal use) or `$` (e.g. `$schema`), which are ignored;
//! * a member defined by another schema version than the declared one (e.g. an option's
//!   `variadic`, added in 0.6, in a 0.4 document) is a warning and is used when well-formed;
//! * in [`Mode::Lenient`], violations in optional descriptive members (`homepage`, `examples`,
//!   `patterns`, the texts of `authentication`, the length of `description`) become warnings
//!   and the offending value is dropped. `effects` and `trust` are never relaxed.
//!
//! The walk and its reporting live in `walker.rs`; the document's rules, member by member,
//! in `rules.rs`.

mod rules;
mod walker;

pub use walker::Mode;
pub(crate) use walker::Validation;
