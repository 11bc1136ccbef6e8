//! Where each format puts the parts of a tool definition: the one place that knows the shape
//! of an OpenAI, Responses, Anthropic, Gemini or MCP definition. [`write_definition`]
//! (definitions from [`ToolSpec`]s) and `atip_runtime::canonical` (definitions from any
//! format's schemas) both write through it.
//!
//! [`write_definition`]: super::write_definition
//! [`ToolSpec`]: crate::ToolSpec

use super::json::JsonOut;
use super::provider::Provider;

/// The parts of one tool definition before a format places them: what [`write_parts`] writes
/// in a provider's shape. Schemas and annotations are compact JSON text (a `serde_json`
/// serialisation, written into the output as they are).
///
/// Each format keeps the parts it has a place for and ignores the others:
///
/// | part | OpenAI Chat | Responses | Anthropic | Gemini | MCP |
/// |---|---|---|---|---|---|
/// | `name` | `function.name` | `name` | `name` | `name` | `name` |
/// | `title` | — | — | — | — | `title` |
/// | `description` | `function.description` | `description` | `description` | `description` | `description` |
/// | `strict` | `function.strict`, when `Some` | `strict`, always (`false` when `None`) | `strict`, when `Some` | — | — |
/// | `input_schema` | `function.parameters` | `parameters` | `input_schema` | `parameters` | `inputSchema` |
/// | `output_schema` | — | `output_schema` | — | `responseJsonSchema` | `outputSchema` |
/// | `annotations` | — | — | — | — | `annotations` |
///
/// A part that is `None` is left out (every format but Gemini requires the input schema).
/// Members are written in the order of the table's rows, except that Responses writes
/// `strict` after `parameters` and Anthropic after `input_schema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DefinitionParts<'a> {
    /// The tool name, as the format's naming rule allows it (see [`crate::limits`]).
    pub name: &'a str,
    /// A human-readable title (MCP `title`).
    pub title: Option<&'a str>,
    /// The description, as the model reads it (safety flags included, see
    /// [`describe`](super::describe)).
    pub description: Option<&'a str>,
    /// OpenAI's strict mode (Structured Outputs); Anthropic's own `strict`.
    pub strict: Option<bool>,
    /// The parameters' JSON Schema, as JSON text in the format's schema dialect.
    pub input_schema: Option<&'a str>,
    /// The result's JSON Schema, as JSON text (Responses, Gemini and MCP only).
    pub output_schema: Option<&'a str>,
    /// MCP `ToolAnnotations`, as the JSON text of an object.
    pub annotations: Option<&'a str>,
}

impl<'a> DefinitionParts<'a> {
    /// A definition of the tool `name` with every other part left out; set the others on the
    /// returned value.
    pub fn new(name: &'a str) -> Self {
        DefinitionParts {
            name,
            title: None,
            description: None,
            strict: None,
            input_schema: None,
            output_schema: None,
            annotations: None,
        }
    }
}

/// Appends `parts` to `out` as one compact JSON tool definition in `provider`'s format (see
/// [`DefinitionParts`] for where each part goes). Texts are escaped as `serde_json` escapes
/// them; the JSON texts of schemas and annotations are copied as they are, so `out` is valid
/// JSON when they are.
pub fn write_parts(out: &mut String, provider: Provider, parts: &DefinitionParts<'_>) {
    write_envelope(
        &mut JsonOut(out),
        provider,
        &Envelope {
            name: parts.name,
            title: parts.title,
            description: parts.description,
            strict: parts.strict,
            input: parts.input_schema.map(Json::Text),
            output: parts.output_schema.map(Json::Text),
            annotations: parts.annotations.map(Json::Text),
        },
    );
}

/// A JSON value of a definition: text written elsewhere, or a writer of it.
pub(super) enum Json<'a> {
    /// Compact JSON text, copied as it is.
    Text(&'a str),
    /// Writes the value.
    With(&'a dyn Fn(&mut JsonOut<'_>)),
}

impl Json<'_> {
    fn write(&self, w: &mut JsonOut<'_>) {
        match self {
            Json::Text(t) => w.raw(t),
            Json::With(f) => f(w),
        }
    }
}

/// [`DefinitionParts`] with values that may be written in place.
pub(super) struct Envelope<'a> {
    pub(super) name: &'a str,
    pub(super) title: Option<&'a str>,
    pub(super) description: Option<&'a str>,
    pub(super) strict: Option<bool>,
    pub(super) input: Option<Json<'a>>,
    pub(super) output: Option<Json<'a>>,
    pub(super) annotations: Option<Json<'a>>,
}

/// The one writer of every format's definition shape.
pub(super) fn write_envelope(w: &mut JsonOut<'_>, provider: Provider, e: &Envelope<'_>) {
    let member = |w: &mut JsonOut<'_>, key: &str, value: Option<&Json<'_>>| {
        if let Some(v) = value {
            w.key(key);
            v.write(w);
        }
    };
    let text = |w: &mut JsonOut<'_>, key: &str, value: Option<&str>| {
        if let Some(v) = value {
            w.key(key);
            w.string(v);
        }
    };
    let strict = |w: &mut JsonOut<'_>, value: bool| {
        w.raw(if value {
            ",\"strict\":true"
        } else {
            ",\"strict\":false"
        });
    };
    let input_key = provider.input_schema_key();
    let output_key = provider.output_schema_key();
    match provider {
        Provider::OpenAi | Provider::OpenAiStrict => {
            w.raw("{\"type\":\"function\",\"function\":{\"name\":");
            w.string(e.name);
            text(w, "description", e.description);
            if let Some(s) = e.strict {
                strict(w, s);
            }
            member(w, input_key, e.input.as_ref());
            w.raw("}}");
        }
        Provider::OpenAiResponses | Provider::OpenAiResponsesStrict => {
            w.raw("{\"type\":\"function\",\"name\":");
            w.string(e.name);
            text(w, "description", e.description);
            member(w, input_key, e.input.as_ref());
            strict(w, e.strict.unwrap_or(false));
            if let Some(key) = output_key {
                member(w, key, e.output.as_ref());
            }
            w.raw("}");
        }
        Provider::Anthropic => {
            w.raw("{\"name\":");
            w.string(e.name);
            text(w, "description", e.description);
            member(w, input_key, e.input.as_ref());
            if let Some(s) = e.strict {
                strict(w, s);
            }
            w.raw("}");
        }
        Provider::Gemini | Provider::Mcp => {
            w.raw("{\"name\":");
            w.string(e.name);
            if provider == Provider::Mcp {
                text(w, "title", e.title);
            }
            text(w, "description", e.description);
            member(w, input_key, e.input.as_ref());
            if let Some(key) = output_key {
                member(w, key, e.output.as_ref());
            }
            if provider == Provider::Mcp {
                member(w, "annotations", e.annotations.as_ref());
            }
            w.raw("}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_places_each_part() {
        let mut parts = DefinitionParts::new("t");
        parts.title = Some("T");
        parts.description = Some("d \"q\"");
        parts.strict = Some(true);
        parts.input_schema = Some(r#"{"type":"object"}"#);
        parts.output_schema = Some(r#"{"type":"string"}"#);
        parts.annotations = Some(r#"{"readOnlyHint":true}"#);
        let expected = [
            (
                Provider::OpenAi,
                r#"{"type":"function","function":{"name":"t","description":"d \"q\"","strict":true,"parameters":{"type":"object"}}}"#,
            ),
            (
                Provider::OpenAiResponses,
                r#"{"type":"function","name":"t","description":"d \"q\"","parameters":{"type":"object"},"strict":true,"output_schema":{"type":"string"}}"#,
            ),
            (
                Provider::Anthropic,
                r#"{"name":"t","description":"d \"q\"","input_schema":{"type":"object"},"strict":true}"#,
            ),
            (
                Provider::Gemini,
                r#"{"name":"t","description":"d \"q\"","parameters":{"type":"object"},"responseJsonSchema":{"type":"string"}}"#,
            ),
            (
                Provider::Mcp,
                r#"{"name":"t","title":"T","description":"d \"q\"","inputSchema":{"type":"object"},"outputSchema":{"type":"string"},"annotations":{"readOnlyHint":true}}"#,
            ),
        ];
        for (provider, json) in expected {
            let mut out = String::new();
            write_parts(&mut out, provider, &parts);
            assert_eq!(out, json, "{provider:?}");
        }
    }

    #[test]
    fn parts_left_out_are_not_written() {
        let parts = DefinitionParts::new("t");
        let expected = [
            (
                Provider::OpenAiStrict,
                r#"{"type":"function","function":{"name":"t"}}"#,
            ),
            (
                Provider::OpenAiResponsesStrict,
                r#"{"type":"function","name":"t","strict":false}"#,
            ),
            (Provider::Anthropic, r#"{"name":"t"}"#),
            (Provider::Gemini, r#"{"name":"t"}"#),
            (Provider::Mcp, r#"{"name":"t"}"#),
        ];
        for (provider, json) in expected {
            let mut out = String::new();
            write_parts(&mut out, provider, &parts);
            assert_eq!(out, json, "{provider:?}");
        }
    }
}
