//! Provider limits: a definition that cannot fit OpenAI strict mode even without enums (more
//! than 5,000 properties) falls back from strict, says so, and every other format is untouched.

use crate::limits::{fit, notes};
use crate::providers::{tool_definition, Provider};
use crate::tool::ToolSpec;
use crate::{Document, FlattenOptions, LoadOptions};
use serde_json::json;

fn wide(options: usize) -> Document {
    let options: Vec<_> = (0..options)
        .map(|i| {
            json!({"name": format!("o{i}"), "flags": [format!("--o{i}")], "type": "boolean",
                        "description": "A switch"})
        })
        .collect();
    let text = json!({"atip": {"version": "0.6"}, "name": "wide", "version": "1",
                      "description": "Wide", "commands": {"": {"description": "Many switches",
                      "options": options}}})
    .to_string();
    Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap()
}

#[test]
fn more_properties_than_strict_mode_holds_fall_back_from_strict() {
    let doc = wide(5_001);
    let spec = ToolSpec::from_flat(&doc.tool.name, &doc.commands[0]);
    let plan = fit(&spec, Provider::OpenAiStrict);
    assert!(plan.not_strict && plan.enums_as_text.is_empty());
    assert!(
        plan.notes[0].contains("5001 properties"),
        "{:?}",
        plan.notes
    );
    let chat = tool_definition(&spec, Provider::OpenAiStrict);
    assert!(chat["function"].get("strict").is_none(), "strict dropped");
    assert!(chat["function"]["parameters"].get("required").is_none());
    let responses = tool_definition(&spec, Provider::OpenAiResponsesStrict);
    assert_eq!(responses["strict"], false);
    for p in [
        Provider::OpenAi,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Mcp,
    ] {
        assert!(fit(&spec, p).is_exact(), "{p:?}");
        assert!(notes([&spec], p).is_empty());
    }
    // At the limit it stays strict.
    let doc = wide(5_000);
    let spec = ToolSpec::from_flat(&doc.tool.name, &doc.commands[0]);
    assert!(fit(&spec, Provider::OpenAiStrict).is_exact());
    assert_eq!(
        tool_definition(&spec, Provider::OpenAiStrict)["function"]["strict"],
        true
    );
}

#[test]
fn too_many_tools_for_one_request_is_a_note() {
    let doc = wide(1);
    let spec = ToolSpec::from_flat(&doc.tool.name, &doc.commands[0]);
    let many = vec![spec; 129];
    let n = notes(&many, Provider::OpenAi);
    assert_eq!(n.len(), 1);
    assert!(
        n[0].starts_with("129 tools: openai takes at most 128 per request"),
        "{n:?}"
    );
    assert!(notes(&many, Provider::Gemini).is_empty());
    assert!(notes(&many, Provider::Anthropic).is_empty());
}
