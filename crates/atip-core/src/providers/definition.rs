//! The JSON definition writer: one function per output shape, used by the generator, the
//! run-time path and `canonical` conversion alike.

use serde_json::Value;

use super::describe::{describe_tool, mcp_annotations, param_description};
use super::envelope::{write_envelope, Envelope, Json};
use super::json::JsonOut;
use super::limits::{fit, VALUES_IN_DESCRIPTION};
use super::provider::Provider;
use crate::tool::{ParamSpec, ToolSpec, ValueKind};

/// The tool definition of `spec` in `provider`'s format.
pub fn tool_definition(spec: &ToolSpec, provider: Provider) -> Value {
    let mut text = String::new();
    write_definition(&mut text, spec, provider);
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// Appends the compact JSON text of [`tool_definition`] to `out`, written directly (no
/// intermediate `Value`), byte-identical to serialising the `Value` with serde_json. The
/// schema is written here; where each format puts it, the name, description and annotations
/// is [`write_parts`](super::write_parts)'s business, shared with `atip_runtime::canonical`.
///
/// A definition that would exceed a documented limit of the format is degraded as
/// [`crate::limits::fit`] plans (huge enums as plain values, then strict mode dropped); the
/// plan's notes are the warnings to show ([`crate::limits::notes`]).
pub fn write_definition(out: &mut String, spec: &ToolSpec, provider: Provider) {
    let description = describe_tool(spec, provider.description_limit());
    let fit = fit(spec, provider);
    let strict = provider.is_strict() && !fit.not_strict;
    let json_schema = |w: &mut JsonOut<'_>| {
        // Only OpenAI's strict formats apply the strict-mode rules to the schema.
        json_schema(w, spec, strict, &fit.enums_as_text);
    };
    let gemini_schema = |w: &mut JsonOut<'_>| gemini_schema(w, spec);
    let input = match provider {
        Provider::Gemini if spec.params.is_empty() => None,
        Provider::Gemini => Some(Json::With(&gemini_schema)),
        _ => Some(Json::With(&json_schema)),
    };
    // Conservative: the union over every parameter (`destructiveHint` if any option destroys).
    let annotations = mcp_annotations(&spec.widest_effects());
    let write_annotations = |w: &mut JsonOut<'_>| {
        w.raw("{");
        for (i, (k, v)) in annotations.iter().enumerate() {
            if i > 0 {
                w.raw(",");
            }
            w.string(k);
            w.raw(if v == &Value::Bool(true) {
                ":true"
            } else {
                ":false"
            });
        }
        w.raw("}");
    };
    let envelope = Envelope {
        name: &spec.name,
        title: Some(&spec.title),
        description: Some(&description),
        strict: match provider {
            Provider::OpenAi | Provider::OpenAiStrict => strict.then_some(true),
            Provider::OpenAiResponses | Provider::OpenAiResponsesStrict => Some(strict),
            _ => None,
        },
        input,
        output: None,
        annotations: (!annotations.is_empty()).then_some(Json::With(&write_annotations)),
    };
    write_envelope(&mut JsonOut(out), provider, &envelope);
}

/// The definitions of `specs`, as a JSON array, in the given order.
pub fn tool_definitions<'a>(
    specs: impl IntoIterator<Item = &'a ToolSpec>,
    provider: Provider,
) -> Value {
    Value::Array(
        specs
            .into_iter()
            .map(|s| tool_definition(s, provider))
            .collect(),
    )
}

/// Compact JSON text of [`tool_definitions`], written directly (no [`Value`] tree): what a
/// generated module's `definitions(provider)` returns and its optional `schemas` constants
/// hold.
pub fn tool_definitions_json<'a>(
    specs: impl IntoIterator<Item = &'a ToolSpec>,
    provider: Provider,
) -> String {
    let mut out = String::from("[");
    for (i, spec) in specs.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_definition(&mut out, spec, provider);
    }
    out.push(']');
    out
}

/// The specs called `names`, in the order of `names` (e.g. to stay under a provider's tool
/// limit, see [`Provider::max_tools`]).
///
/// # Errors
///
/// The names that match no spec.
pub fn select<'a>(tools: &'a [ToolSpec], names: &[&str]) -> Result<Vec<&'a ToolSpec>, Vec<String>> {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for n in names {
        match tools.iter().find(|t| t.name == *n) {
            Some(t) => out.push(t),
            None => missing.push((*n).to_owned()),
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(missing)
    }
}

/// JSON Schema for the parameters; `strict` applies OpenAI's strict-mode rules.
/// The JSON Schema of `spec`'s parameters; those in `as_text` (sorted indices) lose their
/// `enum` and list the allowed values in their description instead.
fn json_schema(w: &mut JsonOut<'_>, spec: &ToolSpec, strict: bool, as_text: &[usize]) {
    w.raw("{\"type\":\"object\",\"properties\":{");
    for (i, p) in spec.params.iter().enumerate() {
        if i > 0 {
            w.raw(",");
        }
        w.string(&p.name);
        w.raw(":");
        json_param(
            w,
            p,
            strict && !p.required,
            as_text.binary_search(&i).is_ok(),
        );
    }
    w.raw("}");
    if strict || spec.params.iter().any(|p| p.required) {
        w.raw(",\"required\":[");
        let mut first = true;
        for p in spec.params.iter().filter(|p| strict || p.required) {
            if !first {
                w.raw(",");
            }
            first = false;
            w.string(&p.name);
        }
        w.raw("]");
    }
    w.raw(",\"additionalProperties\":false}");
}

fn json_param(w: &mut JsonOut<'_>, p: &ParamSpec, nullable: bool, as_text: bool) {
    if p.multiple {
        w.raw("{\"type\":");
        w.type_value("array", nullable);
        w.raw(",\"items\":{");
        json_value_schema(w, p, false, as_text);
        w.raw("}");
    } else {
        w.raw("{");
        json_value_schema(w, p, nullable, as_text);
    }
    let mut text = param_description(p);
    if as_text {
        values_in_description(&mut text, p);
    }
    if !text.is_empty() {
        w.raw(",\"description\":");
        w.string(&text);
    }
    w.raw("}");
}

/// The members of the schema of one value (an array's `items`, or a scalar parameter).
fn json_value_schema(w: &mut JsonOut<'_>, p: &ParamSpec, nullable: bool, as_text: bool) {
    w.raw("\"type\":");
    w.type_value(p.kind.json_type(), nullable);
    if let Some(values) = p.values.as_ref().filter(|_| !as_text) {
        w.raw(",\"enum\":[");
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                w.raw(",");
            }
            typed_value(w, p.kind, v);
        }
        if nullable {
            w.raw(if values.is_empty() { "null" } else { ",null" });
        }
        w.raw("]");
    }
}

/// Appends ` One of: a, b, … (and N more).` to `text`, the values up to
/// [`crate::limits::VALUES_IN_DESCRIPTION`] characters: an enum too large for the provider's
/// schema limits, sent as a plain value.
fn values_in_description(text: &mut String, p: &ParamSpec) {
    let Some(values) = &p.values else {
        return;
    };
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str("One of: ");
    let start = text.len();
    let mut listed = 0;
    for v in values.iter() {
        if text.len() - start + v.len() + 2 > VALUES_IN_DESCRIPTION {
            break;
        }
        if listed > 0 {
            text.push_str(", ");
        }
        text.push_str(v);
        listed += 1;
    }
    if listed < values.len() {
        text.push_str(&format!(" (and {} more)", values.len() - listed));
    }
    text.push('.');
}

/// An allowed value as JSON: numbers for integer and number parameters, strings otherwise.
fn typed_value(w: &mut JsonOut<'_>, kind: ValueKind, text: &str) {
    if let ValueKind::Integer | ValueKind::Number = kind {
        if let Ok(n) = serde_json::from_str::<serde_json::Number>(text) {
            w.raw(&n.to_string());
            return;
        }
    }
    w.string(text);
}

/// Gemini's OpenAPI-subset schema (`FunctionDeclaration.parameters`).
fn gemini_schema(w: &mut JsonOut<'_>, spec: &ToolSpec) {
    w.raw("{\"type\":\"OBJECT\",\"properties\":{");
    for (i, p) in spec.params.iter().enumerate() {
        if i > 0 {
            w.raw(",");
        }
        w.string(&p.name);
        w.raw(":{\"type\":");
        let item = |w: &mut JsonOut<'_>| {
            w.string(gemini_type(p.kind));
            if let Some(values) = &p.values {
                w.raw(",\"format\":\"enum\",\"enum\":[");
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        w.raw(",");
                    }
                    w.string(v);
                }
                w.raw("]");
            }
        };
        if p.multiple {
            w.raw("\"ARRAY\",\"items\":{\"type\":");
            item(w);
            w.raw("}");
        } else {
            item(w);
        }
        let text = param_description(p);
        if !text.is_empty() {
            w.raw(",\"description\":");
            w.string(&text);
        }
        w.raw("}");
    }
    w.raw("}");
    if spec.params.iter().any(|p| p.required) {
        w.raw(",\"required\":[");
        let mut first = true;
        for p in spec.params.iter().filter(|p| p.required) {
            if !first {
                w.raw(",");
            }
            first = false;
            w.string(&p.name);
        }
        w.raw("]");
    }
    w.raw("}");
}

fn gemini_type(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::Integer => "INTEGER",
        ValueKind::Number => "NUMBER",
        ValueKind::Boolean => "BOOLEAN",
        _ => "STRING",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::Effects;
    use serde_json::json;

    use std::borrow::Cow;

    fn effects(json: &str) -> Effects {
        serde_json::from_str(json).unwrap()
    }

    fn param(name: &'static str, kind: ValueKind, required: bool) -> ParamSpec {
        let p = ParamSpec::option(name, "d", kind, "--x");
        if required {
            p.required()
        } else {
            p
        }
    }

    fn spec(params: Vec<ParamSpec>, effects: Effects) -> ToolSpec {
        ToolSpec {
            name: "gh_pr_list".into(),
            title: "gh pr list".into(),
            path: Cow::Owned(vec!["pr".into(), "list".into()]),
            description: "List pull requests".into(),
            effects,
            params: Cow::Owned(params),
        }
    }

    #[test]
    fn strict_mode_makes_optional_nullable_and_everything_required() {
        let mut state = param("state", ValueKind::Enum, false);
        state.values = Some(Cow::Owned(vec!["open".into(), "closed".into()]));
        let mut labels = param("label", ValueKind::String, false);
        labels.multiple = true;
        let s = spec(
            vec![param("repo", ValueKind::String, true), state, labels],
            Effects::UNKNOWN,
        );
        let v = tool_definition(&s, Provider::OpenAiStrict);
        assert_eq!(
            v["function"]["parameters"],
            json!({
                "type": "object",
                "properties": {
                    "repo": {"type": "string", "description": "d"},
                    "state": {"type": ["string", "null"], "enum": ["open", "closed", null], "description": "d"},
                    "label": {"type": ["array", "null"], "items": {"type": "string"}, "description": "d"}
                },
                "required": ["repo", "state", "label"],
                "additionalProperties": false
            })
        );
        assert_eq!(v["function"]["strict"], json!(true));
        let plain = tool_definition(&s, Provider::OpenAi);
        assert_eq!(plain["function"]["parameters"]["required"], json!(["repo"]));
        assert_eq!(
            plain["function"]["parameters"]["properties"]["state"]["type"],
            json!("string")
        );
        assert!(plain["function"].get("strict").is_none());
    }

    #[test]
    fn responses_api_always_says_strict() {
        let s = spec(vec![], Effects::UNKNOWN);
        assert_eq!(
            tool_definition(&s, Provider::OpenAiResponses)["strict"],
            json!(false)
        );
        assert_eq!(
            tool_definition(&s, Provider::OpenAiResponsesStrict)["strict"],
            json!(true)
        );
        assert_eq!(
            tool_definition(&s, Provider::OpenAiResponsesStrict)["parameters"],
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
    }

    #[test]
    fn gemini_gets_its_subset() {
        let mut level = param("level", ValueKind::Integer, false);
        level.values = Some(Cow::Owned(vec!["1".into(), "2".into()]));
        let mut files = param("files", ValueKind::File, true);
        files.multiple = true;
        let s = spec(vec![level, files], Effects::UNKNOWN);
        assert_eq!(
            tool_definition(&s, Provider::Gemini),
            json!({
                "name": "gh_pr_list",
                "description": "List pull requests",
                "parameters": {
                    "type": "OBJECT",
                    "properties": {
                        "level": {"type": "INTEGER", "format": "enum", "enum": ["1", "2"], "description": "d"},
                        "files": {"type": "ARRAY", "items": {"type": "STRING"}, "description": "d (file path)"}
                    },
                    "required": ["files"]
                }
            })
        );
        let none = spec(vec![], Effects::UNKNOWN);
        assert!(tool_definition(&none, Provider::Gemini)
            .get("parameters")
            .is_none());
        // Other providers get numbers for integer enums.
        let v = tool_definition(&s, Provider::Anthropic);
        assert_eq!(
            v["input_schema"]["properties"]["level"]["enum"],
            json!([1, 2])
        );
    }

    #[test]
    fn mcp_annotations_map_effects() {
        let e = effects(r#"{"destructive": true, "idempotent": true, "network": true}"#);
        let s = spec(vec![], e);
        let v = tool_definition(&s, Provider::Mcp);
        assert_eq!(v["title"], json!("gh pr list"));
        assert_eq!(
            v["annotations"],
            json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": true})
        );
        let ro = spec(
            vec![],
            effects(r#"{"filesystem": {"write": false}, "network": false, "destructive": false}"#),
        );
        assert_eq!(
            tool_definition(&ro, Provider::Mcp)["annotations"],
            json!({"readOnlyHint": true, "openWorldHint": false})
        );
        let unknown = spec(vec![], Effects::UNKNOWN);
        assert!(tool_definition(&unknown, Provider::Mcp)
            .get("annotations")
            .is_none());
    }

    #[test]
    fn array_text_is_the_serialised_array() {
        let a = spec(vec![param("x", ValueKind::String, true)], Effects::UNKNOWN);
        let mut b = spec(vec![], effects(r#"{"destructive": true}"#));
        b.name = "gh_repo_delete".into();
        for p in Provider::ALL {
            let text = tool_definitions_json([&a, &b], p);
            assert_eq!(text, tool_definitions([&a, &b], p).to_string());
            let mut one = String::new();
            write_definition(&mut one, &b, p);
            assert_eq!(one, tool_definition(&b, p).to_string());
        }
        assert_eq!(tool_definitions_json([], Provider::Mcp), "[]");
        let tools = [a, b];
        assert_eq!(
            select(&tools, &["gh_repo_delete"]).unwrap()[0].name,
            "gh_repo_delete"
        );
        assert_eq!(
            select(&tools, &["nope", "gh_pr_list"]).unwrap_err(),
            ["nope"]
        );
    }
}
