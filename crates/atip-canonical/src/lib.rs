//! One provider-neutral representation of a tool, and conversion between MCP, OpenAI (Chat
//! Completions and Responses), Anthropic, Gemini and ATIP tool definitions.
//!
//! Agents mix tools from ATIP metadata with tools from MCP servers and hand-written provider
//! definitions. [`convert`] reads a definition (or a JSON array of them) in one format and writes
//! it in another, listing every [`Warning`]: each feature the target cannot express
//! ([`FeatureLoss`], with the JSON pointer where it occurred and what was done instead) and each
//! repair of an input that its own format does not quite allow.
//!
//! ```
//! use atip_canonical::{convert, Format};
//! use atip_core::providers::Provider;
//! use serde_json::json;
//!
//! let mcp = json!({
//!     "name": "label",
//!     "inputSchema": {"type": "object", "properties": {
//!         "name": {"oneOf": [{"type": "string"}, {"type": "null"}]}
//!     }}
//! });
//! let out = convert(&mcp, Format::Mcp, Provider::Gemini).unwrap();
//! assert_eq!(out.value["parameters"]["properties"]["name"], json!({"type": "STRING", "nullable": true}));
//! assert_eq!(out.warnings[0].pointer(), "/inputSchema/properties/name/oneOf");
//! ```
//!
//! # What each target gets
//!
//! | | MCP | Anthropic | OpenAI | OpenAI strict | Gemini `parameters` |
//! |---|---|---|---|---|---|
//! | `$ref`, `$defs` | kept | inlined | inlined | inlined | inlined |
//! | `oneOf` | kept | kept | as `anyOf` | as `anyOf`, or nullable | as `anyOf`, or nullable |
//! | `allOf` | kept | kept | merged | merged | merged |
//! | `not` | kept | kept | described | described | described |
//! | `anyOf` with a `null` branch | kept | kept | kept | one other branch: nullable type | `nullable: true` |
//! | type union | kept | kept | kept | kept | `nullable`, or `anyOf` |
//! | `const` | kept | kept | kept | kept | one-value `enum` |
//! | `default` | kept | kept | kept | described (`null`: dropped) | kept |
//! | `minLength`, `maxLength`, `uniqueItems`, `min/maxProperties` | kept | kept | kept | described | kept, except `uniqueItems`: described |
//! | `exclusiveMinimum/Maximum`, `multipleOf` | kept | kept | kept | kept | described |
//! | `format` | kept | kept | kept | the documented ones | `enum`, `date-time`, `int32`, `int64`, `float`, `double` |
//! | unknown keywords | kept | kept | kept | described (`x-…`, `$comment`, …: dropped) | as for strict |
//! | objects | as given | as given | as given | `additionalProperties: false`, every property required, optional ones nullable | as given |
//!
//! "Described" appends `(keyword: value; …)` to the schema's description: the model reads it, the
//! provider does not enforce it. OpenAI's strict mode sends `null` for an optional parameter the
//! model leaves out; drop `null` arguments before forwarding a call to a server that treats
//! them differently. Fields outside the schemas (`title`, `annotations`, `icons`, `_meta`,
//! Anthropic's `input_examples`, Gemini's `behavior`, …) go back only to their own format;
//! elsewhere they are reported lost. Output schemas go to MCP `outputSchema`, Responses
//! `output_schema` and Gemini `responseJsonSchema`, and are reported lost for OpenAI Chat and
//! Anthropic.
//!
//! Conversions are deterministic: the same input gives the same bytes. An MCP definition read
//! and written back as MCP is the original, key order included.
//!
//! Users normally reach this crate through `atip-runtime`, as `atip_runtime::canonical`.
#![deny(missing_docs)]

mod export;
mod import;
mod mcp_server;
mod rewrite;
pub mod schema;
mod warning;

use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use mcp_server::{effects_of_annotations, mcp_to_atip};
pub use schema::{InstanceType, KeyOrder, Repair, Schema, SchemaObject, SchemaType};
pub use warning::{ConvertError, Feature, FeatureLoss, Resolution, Warning};

use atip_core::providers::Provider;

/// A tool-definition format a conversion reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// MCP `Tool` (`tools/list` entries): `{name, title?, description?, inputSchema, …}`; also
    /// `{"tools": [...]}`.
    Mcp,
    /// OpenAI Chat Completions: `{"type": "function", "function": {name, description,
    /// parameters, strict}}`.
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenAI Responses: `{"type": "function", name, description, parameters, strict, …}`.
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages: `{name, description, input_schema, …}`.
    Anthropic,
    /// Gemini `FunctionDeclaration` (`parameters` or `parametersJsonSchema`), or a `Tool`
    /// holding `functionDeclarations`.
    Gemini,
    /// An ATIP document (spec §3): one tool per flattened command.
    Atip,
}

impl Format {
    /// Every format, in command-line order.
    pub const ALL: [Format; 6] = [
        Format::Mcp,
        Format::OpenAi,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::Atip,
    ];

    /// `mcp`, `openai`, `openai-responses`, `anthropic`, `gemini` (the provider's own name),
    /// `atip`.
    pub const fn as_str(self) -> &'static str {
        match self.provider() {
            Some(p) => p.as_str(),
            None => "atip",
        }
    }

    /// The provider whose tool definitions are in this format (plain, not strict); `None` for
    /// ATIP.
    pub const fn provider(self) -> Option<Provider> {
        match self {
            Format::Mcp => Some(Provider::Mcp),
            Format::OpenAi => Some(Provider::OpenAi),
            Format::OpenAiResponses => Some(Provider::OpenAiResponses),
            Format::Anthropic => Some(Provider::Anthropic),
            Format::Gemini => Some(Provider::Gemini),
            Format::Atip => None,
        }
    }

    /// The format a provider's definitions are in (strict and plain OpenAI share one).
    pub const fn of(provider: Provider) -> Format {
        match provider.wire() {
            Provider::OpenAi => Format::OpenAi,
            Provider::OpenAiResponses => Format::OpenAiResponses,
            Provider::Anthropic => Format::Anthropic,
            Provider::Gemini => Format::Gemini,
            _ => Format::Mcp,
        }
    }
}

/// `atip`, or a provider's name (`openai-strict` reads as `openai`).
impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "atip" {
            return Ok(Format::Atip);
        }
        s.parse::<Provider>().map(Format::of).map_err(|_| {
            format!(
                "unknown format {s:?}: expected one of {}",
                Format::ALL.map(Format::as_str).join(", ")
            )
        })
    }
}

/// A tool, independent of any provider: what every format can say about it, and what only its
/// source format says, kept for the way back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CanonicalTool {
    /// A grouping such as the ATIP tool (`gh`) or the MCP server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The tool's name; required, not empty.
    pub name: String,
    /// The tool's version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A classification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Discovery keywords.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The arguments' schema; its root is `type: object`.
    pub input_schema: SchemaObject,
    /// The result's schema, where the source declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Schema>,
    /// How long a call may take (ATIP `effects.duration.timeout`); serialised as
    /// `timeoutMs`.
    #[serde(
        default,
        rename = "timeoutMs",
        with = "timeout_ms",
        skip_serializing_if = "Option::is_none"
    )]
    pub timeout: Option<Duration>,
    /// The format the tool was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_format: Option<Format>,
    /// What only the source format says, for converting back to it.
    #[serde(default)]
    pub source_meta: SourceMeta,
    /// Authorization scopes a call needs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_scopes: Vec<String>,
}

/// What only the source format of a [`CanonicalTool`] says.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SourceMeta {
    /// MCP `title` (a display name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// MCP `annotations`, verbatim (`readOnlyHint`, `destructiveHint`, …, and any other key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Map<String, Value>>,
    /// OpenAI or Anthropic `strict`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// ATIP: the command's merged `effects` (spec §3.6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effects: Option<Value>,
    /// ATIP: the safety flags its description carries in every target, a flag that only
    /// some parameters bring naming them (`⚠️ DESTRUCTIVE (with --force)`,
    /// [`atip_core::providers::tool_safety_flags`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub safety_flags: Vec<String>,
    /// Every other field of the source definition, verbatim: MCP `icons`, `_meta`, `execution`;
    /// Anthropic `cache_control`, `input_examples`; Gemini `behavior`; Responses
    /// `defer_loading`; ….
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub fields: Map<String, Value>,
    /// The source definition's field order (for OpenAI Chat, of its `function`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub key_order: Vec<String>,
    /// JSON pointer to the definition in the input (`/3` in an array); warnings are prefixed
    /// with it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub origin: String,
    /// JSON pointer, within the definition, of the input schema (`/function/parameters`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub input_pointer: String,
    /// JSON pointer, within the definition, of the output schema.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub output_pointer: String,
}

/// Why a [`CanonicalTool`] is not usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InvalidTool {
    /// `name` is empty.
    EmptyName,
    /// `input_schema` does not have `type: object` (the listed type, or none).
    InputNotObject(Option<SchemaType>),
}

impl std::fmt::Display for InvalidTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InvalidTool::EmptyName => f.write_str("the tool's name is empty"),
            InvalidTool::InputNotObject(None) => {
                f.write_str("the input schema has no type; it must be `type: object`")
            }
            InvalidTool::InputNotObject(Some(t)) => {
                let names: Vec<&str> = t.types().iter().map(|t| t.as_str()).collect();
                write!(
                    f,
                    "the input schema has type {}; it must be `type: object`",
                    names.join(" | ")
                )
            }
        }
    }
}

impl std::error::Error for InvalidTool {}

impl CanonicalTool {
    /// A tool with a name and an input schema, nothing else.
    pub fn new(name: impl Into<String>, input_schema: SchemaObject) -> Self {
        CanonicalTool {
            namespace: None,
            name: name.into(),
            version: None,
            description: None,
            category: None,
            tags: Vec::new(),
            input_schema,
            output_schema: None,
            timeout: None,
            source_format: None,
            source_meta: SourceMeta::default(),
            required_scopes: Vec::new(),
        }
    }

    /// `namespace:name`, or `name` without a namespace.
    pub fn id(&self) -> String {
        match &self.namespace {
            Some(ns) if !ns.is_empty() => format!("{ns}:{}", self.name),
            _ => self.name.clone(),
        }
    }

    /// Checks what every format needs: a name, and an input schema of `type: object`.
    ///
    /// # Errors
    ///
    /// The first [`InvalidTool`] found.
    pub fn validate(&self) -> Result<(), InvalidTool> {
        if self.name.is_empty() {
            return Err(InvalidTool::EmptyName);
        }
        match &self.input_schema.schema_type {
            Some(SchemaType::Single(InstanceType::Object)) => Ok(()),
            other => Err(InvalidTool::InputNotObject(other.clone())),
        }
    }

    /// Reads one definition in `format` (not ATIP, which holds several: use [`read`]).
    ///
    /// # Errors
    ///
    /// [`ConvertError::Invalid`] when `value` is not a definition of `format`, or is an array.
    pub fn from_definition(
        value: &Value,
        format: Format,
    ) -> Result<(CanonicalTool, Vec<Warning>), ConvertError> {
        if format == Format::Atip {
            return Err(ConvertError::invalid(
                format,
                "",
                "an ATIP document describes several tools; read it with canonical::read",
            ));
        }
        let mut warnings = Vec::new();
        let tool = import::definition(value, format, "", &mut warnings)?;
        Ok((tool, warnings))
    }

    /// The tool in `to`'s format, with everything `to` cannot express listed. A recursive
    /// schema keeps its references where `to` holds them and is cut where it cannot (with a
    /// warning).
    ///
    /// # Errors
    ///
    /// None today; the `Result` is kept for formats whose conversion can fail.
    pub fn to_definition(&self, to: Provider) -> Result<(Value, Vec<Warning>), ConvertError> {
        let mut warnings = Vec::new();
        let value = export::definition(self, to, &mut warnings)?;
        Ok((value, warnings))
    }
}

/// Tools read from an input, and what reading them reported.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The tools, in input order.
    pub tools: Vec<CanonicalTool>,
    /// Repairs of the input.
    pub warnings: Vec<Warning>,
    /// Whether the input held a list (an array, MCP `{"tools": […]}`, a Gemini `Tool`, or an
    /// ATIP document) rather than one definition.
    pub many: bool,
}

/// Reads one definition, or a JSON array of them, in `format`. An ATIP document gives one
/// tool per flattened command (strictly validated; see [`from_atip`] for a loaded one).
///
/// # Errors
///
/// [`ConvertError::Invalid`] with the pointer and the reason when an entry is not a
/// definition of `format`.
pub fn read(value: &Value, format: Format) -> Result<Read, ConvertError> {
    import::read(value, format)
}

/// The tools of an ATIP document, one per flattened command: the MCP form
/// [`atip_core::providers::tool_definition`] compiles (description with the spec §8.2 safety
/// flags, `title`, annotations from effects), plus the tool's name as namespace, its version,
/// the command's timeout (`effects.duration.timeout`) and merged effects. The specs are the
/// ones a loaded tool dispatches with its default settings (every global option kept).
pub fn from_atip(document: &atip_core::Document) -> Vec<CanonicalTool> {
    import::atip(document)
}

/// Tools written in one target format.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// One definition, or an array when the input held several.
    pub value: Value,
    /// Repairs of the input, then what each definition lost, in input order.
    pub warnings: Vec<Warning>,
}

/// Writes tools in `to`'s format: an array when `many`, else the one definition.
///
/// # Errors
///
/// As [`CanonicalTool::to_definition`].
///
/// # Panics
///
/// Never; with `many == false` and not exactly one tool, the result is an array.
pub fn write(tools: &[CanonicalTool], to: Provider, many: bool) -> Result<Converted, ConvertError> {
    let mut warnings = Vec::new();
    let mut out = Vec::with_capacity(tools.len());
    for tool in tools {
        out.push(export::definition(tool, to, &mut warnings)?);
    }
    let value = if many || out.len() != 1 {
        Value::Array(out)
    } else {
        out.pop().unwrap_or(Value::Null)
    };
    Ok(Converted { value, warnings })
}

/// Converts one definition, or a JSON array of them, from `from` to `to`.
///
/// # Errors
///
/// [`ConvertError::Invalid`] when the input is not a definition of `from` (with the JSON
/// pointer and the reason).
pub fn convert(value: &Value, from: Format, to: Provider) -> Result<Converted, ConvertError> {
    let read = import::read(value, from)?;
    let mut out = write(&read.tools, to, read.many)?;
    let mut warnings = read.warnings;
    warnings.append(&mut out.warnings);
    out.warnings = warnings;
    Ok(out)
}

/// JSON pointers (RFC 6901).
pub(crate) mod pointer {
    /// `base` + `/` + `key` escaped (`~` → `~0`, `/` → `~1`).
    pub(crate) fn push(base: &str, key: &str) -> String {
        let mut out = String::with_capacity(base.len() + key.len() + 1);
        out.push_str(base);
        out.push('/');
        for c in key.chars() {
            match c {
                '~' => out.push_str("~0"),
                '/' => out.push_str("~1"),
                c => out.push(c),
            }
        }
        out
    }
}

mod timeout_ms {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
    }
}
