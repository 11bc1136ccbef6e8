//! Shared core of atip for Rust: the ATIP metadata model, its validation, the flattening of
//! command trees into tools, effects, provider-valid names and argv building.
//!
//! Users normally depend on `atip-runtime`, which re-exports everything here; `atip-build`
//! (the generator) depends on this crate directly so that the generator and the runtime apply
//! the very same rules.
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

pub mod argv;
pub mod command;
pub mod diagnostic;
pub mod dispatch;
pub mod effects;
pub mod flatten;
pub mod lifecycle;
pub mod load;
pub mod model;
pub mod names;
pub mod prompt;
pub mod providers;
pub mod tool;
pub mod validate;

pub use argv::{ArgValue, ArgvBuilder, ArgvError, ArgvProblem};
pub use command::{Command, Invocation, ToInvocation};
pub use diagnostic::{Diagnostic, JsonPath, LoadError, Location, Severity};
pub use dispatch::{ArgumentsError, DispatchError, LoadedTool, Problem, ToolCall, ToolGroup};
pub use effects::{
    Cost, CostEstimate, DurationHint, Effects, FilesystemEffects, Interactive, StdinMode, Text,
    TextList,
};
pub use flatten::{flatten, FlatCommand, FlatParam, FlattenOptions, Flattened, ParamKind};
pub use lifecycle::{
    model_turn, parse_response, result_messages, ParseError, ParsedResponse, ResponseFormat,
    ToolResult,
};
pub use load::{load, Document, LoadOptions, Loaded};
pub use model::{AtipTool, ParamType, TrustSource};
pub use prompt::safety_prompt;
pub use providers::Provider;
pub use tool::{ParamSpec, ToolSpec, ValueKind};
pub use validate::Mode;

/// Re-exports for generated code and the runtime; not part of the stable API.
#[doc(hidden)]
pub mod __private {
    pub use serde;

    /// Deserialises `null` (OpenAI strict mode sends it for every unset parameter) as the
    /// type's default.
    pub fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
    where
        D: serde::Deserializer<'de>,
        T: serde::Deserialize<'de> + Default,
    {
        use serde::Deserialize;
        Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
    }

    /// `skip_serializing_if` for booleans that default to `false`.
    pub fn is_false(value: &bool) -> bool {
        !*value
    }

    /// `&s[start..end]` in a `const`: the generated per-command schema constants are slices
    /// of the array constants. Fails compilation if the range is not on character boundaries.
    pub const fn slice(s: &'static str, start: usize, end: usize) -> &'static str {
        let (head, _) = s.as_bytes().split_at(end);
        let (_, part) = head.split_at(start);
        match core::str::from_utf8(part) {
            Ok(part) => part,
            Err(_) => panic!("schema slice is not on character boundaries"),
        }
    }
}
