//! Tool definitions for each provider's function-calling API, from [`ToolSpec`](crate::ToolSpec)s.
//!
//! One function, [`tool_definition`], serves the generator (which embeds its output as
//! `const` JSON text) and the run-time path, so both produce the same bytes. Sources of the
//! rules: ATIP spec §8; the providers' own SDK types (openai-python's `FunctionDefinition`,
//! anthropic's `ToolParam`, google-genai's `FunctionDeclaration`, the MCP specification's
//! `Tool`) and their documented limits ([`limits`]).
//!
//! * Descriptions end with the safety flags of spec §8.2 rule 1, in the spec's order
//!   (`⚠️ DESTRUCTIVE`, `⚠️ NOT REVERSIBLE`, `⚠️ NOT IDEMPOTENT`, `💰 BILLABLE`,
//!   `🔒 READ-ONLY`), as `"{description} [{flag} | {flag}]"`. OpenAI's 1024-character limit is
//!   met by cutting the text, never the flags.
//! * Types per spec §8.2 rule 4: files, directories and URLs are strings with the format named
//!   in the description; lists are arrays that always carry `items`; defaults are stated in the
//!   description, not as `default` (OpenAI strict mode rejects it).
//! * Every object says `additionalProperties: false` (except for Gemini, whose subset has no
//!   use for it): dispatch refuses unknown parameters, so the schema says so.
//! * OpenAI strict mode: every property is required, optional ones are nullable
//!   (`["string", "null"]`), a nullable enumeration lists `null` among its values.
//! * Gemini gets its OpenAPI subset: upper-case single types, enum values always strings (also
//!   for integers, with `format: "enum"`), no type arrays, no `parameters` for a command without
//!   parameters.
//! * MCP `tools/list` entries carry `title` and `annotations` mapped from effects.
//!
//! The module is split by concept: the [`Provider`] enum, what each format accepts
//! ([`limits`], also at `atip_core::limits`), descriptions and safety flags, and the JSON
//! definition writer: [`write_parts`] places a definition's parts where each format wants them
//! (for [`write_definition`] from a [`ToolSpec`](crate::ToolSpec), and for `atip_runtime::canonical` from any
//! format's schemas).

mod definition;
mod describe;
mod envelope;
mod json;
pub mod limits;
mod provider;

pub use definition::{
    select, tool_definition, tool_definitions, tool_definitions_json, write_definition,
};
pub use describe::{
    describe, describe_tool, describe_with_flags, is_read_only, mcp_annotations, param_description,
    safety_flags, tool_safety_flags,
};
pub use envelope::{write_parts, DefinitionParts};
pub use limits::OPENAI_DESCRIPTION_LIMIT;
pub use provider::Provider;
