//! Import [Fig](https://github.com/withfig/autocomplete) completion specs as ATIP metadata.
//!
//! The npm package `@withfig/autocomplete` describes hundreds of command-line tools: each
//! module of its `build/` directory is a minified ES module whose default export is a spec
//! (subcommands, options, arguments, `isDangerous`, …). This crate evaluates those modules in
//! an embedded JavaScript engine without I/O and under limits ([`engine`]) — for untrusted
//! specs in a child process per module, killed at the time limit and limited as a whole
//! ([`child`], [`Isolation`]; the default is in-process) — follows `loadSpec`
//! references within the package, converts the result to an ATIP 0.6 document ([`convert`])
//! with effects inferred on the safe side ([`effects`]), and checks it with the workspace's
//! strict loader — what `atip check` and the generator accept.
//!
//! Every document carries `trust: {"source": "inferred", "verified": false}` (spec §3.2.2,
//! §4.10.4: generated metadata needs human review before it is promoted) and its provenance in
//! `x-atip-rust.generator` (`{"source": "fig", "package", "version", "spec"}`, plus the
//! package's `license` and `copyright` line as attribution when it has them).
//!
//! ```no_run
//! use atip_fig::{Importer, ImportOptions, Package};
//!
//! let package = Package::open("node_modules/@withfig/autocomplete".as_ref())?;
//! let importer = Importer::new(package, ImportOptions::default())?;
//! let gh = importer.import("gh")?;
//! for w in &gh.warnings {
//!     eprintln!("warning: {w}");
//! }
//! println!("{}", gh.to_json_pretty());
//! # Ok::<(), atip_fig::ImportError>(())
//! ```
//!
//! The JavaScript engine is QuickJS (through `rquickjs`): it builds from C with the compiler
//! every Rust toolchain's `cc` already needs, in under a minute, and embeds small; its module
//! loader and interrupt handler are exactly the two hooks needed to keep imports inside the
//! package and to stop runaway code. A pure-Rust engine (Boa) was the alternative; it compiles
//! several times longer for the same job.
#![deny(missing_docs)]

pub mod child;
pub mod convert;
pub mod effects;
pub mod engine;
mod error;
mod importer;
mod load_spec;
mod package;
mod summary;
#[cfg(test)]
mod tests;

pub use child::Isolation;
pub use convert::{ConvertError, Converted, Generator, Stats, Warning};
pub use engine::{Engine, EvalError, Export, Limits};
pub use error::ImportError;
pub use importer::{ImportOptions, Imported, Importer, DEFAULT_MAX_COMMANDS};
pub use load_spec::{LOADED_COMMANDS_FACTOR, MAX_LOAD_SPECS, MAX_LOAD_SPEC_DEPTH};
pub use package::Package;
pub use summary::Summary;
