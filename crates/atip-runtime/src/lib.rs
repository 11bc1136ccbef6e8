//! Use command-line tools as LLM tools, typed.
//!
//! Tools describe themselves with ATIP metadata (`tool --agent` prints JSON: subcommands,
//! arguments, options, side effects, trust). [`include_atip!`] turns that metadata into typed
//! Rust at build time — a struct per command whose constructor makes a wrong call a compile
//! error, `const` effects, a `Call` enum — and this crate runs those commands safely.
//!
//! Where to start:
//!
//! * **[`Runner`]** runs a command: argv without a shell, the [`Policy`] gate on its effects
//!   (destructive needs confirmation, unknown is never safe), the binary's checksum, a kernel
//!   [`Sandbox`] derived from the effects, a timeout, output caps, secrets redacted
//!   ([`ResultFilter`]).
//! * **[`Policy`]** says what may run: per effect, per trust level, per command and per
//!   argument value.
//! * **[`agent::TurnDriver`]** takes one model response (OpenAI Chat or Responses, Anthropic,
//!   Gemini) and returns the next messages: dispatch with every problem listed, policy,
//!   confirmation, a conflict-aware batch, redaction.
//! * **The generated API**: `include_atip!("atip/git.json")` in a module gives one struct per
//!   command (`git::Status`), `git::Call`, `git::TOOLS`, `git::EFFECTS` and
//!   `git::definitions(provider)`. Run `cargo doc --open` in your crate to browse the
//!   commands generated for your tools, with their parameters and effects.
//!
//! ```
//! # #[cfg(all(feature = "macros", feature = "exec"))] { // the default features
//! mod git {
//! #   atip_runtime::include_atip!("../../examples/atip/git.json");
//! #   /*
//!     atip_runtime::include_atip!("atip/git.json"); // relative to your Cargo.toml
//! #   */
//! }
//!
//! use atip_runtime::{Command, Runner};
//!
//! let log = git::Log::new().oneline(true).max_count(5);
//! assert_eq!(log.argv(), ["git", "log", "--oneline", "--max-count=5"]);
//! # async fn run(log: git::Log) -> Result<(), atip_runtime::RunError> {
//! let out = Runner::new().run(&log).await?;
//! println!("{}", out.stdout_lossy());
//! # Ok(()) }
//! # }
//! ```
//!
//! Everything the generator does at build time is also available at run time for metadata
//! discovered while running ([`Document::parse`], [`LoadedCommands`]), through the same functions.
//!
//! Features: `macros` (default) re-exports `include_atip!`; `exec` (default) provides
//! [`Runner`] and the turn driver on tokio; `search` (off) adds the `search` module; `async-openai`
//! (off) adds `interop::async_openai`; `rig` (off) adds `interop::rig`. The MCP server is the
//! crate `atip-mcp`, built on this one.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

// The document (atip-core), named here so that users depend on this crate alone (`discover`,
// `flatten` and `load` are each a module and its main function). The root names the items most
// programs use; everything else has one path, in its module.
pub use atip_core::{
    diagnostic, discover, effects, flatten, formats, limits, load, model, names, providers, shared,
    shim, spec_table, tool, validate,
};
pub use atip_core::{
    Diagnostic, Document, DocumentTree, Effects, FilesystemEffects, FlattenOptions, LoadError,
    LoadOptions, Mode, ParamSpec, Provider, Shared, ToolSpec, TrustSource,
};

/// The typed-command contract (commands, invocations, argv, dispatch of a tool call, the
/// result that goes back to the model): the crate `atip-command`.
pub use atip_command as command;
pub use command::argv::ArgvError;
pub use command::dispatch::{
    Dispatch, DispatchError, LoadedCommands, ToolCall, ToolGroup, ToolSet,
};
pub use command::{Command, Invocation, ToInvocation, ToolResult};

pub mod wire;
pub use wire::{parse_response, result_messages, safety_prompt, ParsedResponse};

// Generated code names its private support `::atip_runtime::__private::…`.
#[doc(hidden)]
pub use atip_command::__private;

#[cfg(feature = "macros")]
pub use atip_macros::include_atip;

/// Tool definitions converted between provider formats: the crate `atip-canonical`.
pub use atip_canonical as canonical;

/// Secrets redacted from command output, and results capped in size: the crate `atip-redact`.
pub use atip_redact as filter;
pub use filter::{KnownSecrets, ResultFilter};

/// A run's effects as kernel-enforced limits: the crate `atip-sandbox`.
pub use atip_sandbox as sandbox;

pub mod policy;
pub use policy::{Decision, EffectRule, Policy, PolicyError};

#[cfg(feature = "exec")]
#[cfg_attr(docsrs, doc(cfg(feature = "exec")))]
pub mod agent;
#[cfg(feature = "exec")]
#[cfg_attr(docsrs, doc(cfg(feature = "exec")))]
pub mod exec;
#[cfg(any(feature = "async-openai", feature = "rig"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "async-openai", feature = "rig"))))]
pub mod interop;
#[cfg(feature = "search")]
#[cfg_attr(docsrs, doc(cfg(feature = "search")))]
pub mod search;
#[cfg(feature = "exec")]
pub use exec::{Answer, AuditLog, Confirm, ConfirmationRequest, Output, RunError, Runner};
#[cfg(feature = "exec")]
pub use sandbox::{Sandbox, SandboxReport};

pub mod prelude;
