//! Provider conformance against the providers' own SDK types, through the shared validators
//! (`../shared/validators`, run by `tests/validators/run.py` in one Python process).
//! Not part of a user's `cargo test`: `cargo test -p atip-tests --test corpus providers:: --
//! --ignored` (the CI does). They fail, never skip, when ../shared is missing; the first one to
//! need the validators' Python environment creates it with `../shared/validators/setup.sh` (pip,
//! from PyPI).
//!
//! * Every valid corpus document, the examples' metadata and the adversarial fixture compile to
//!   all seven formats, which the validators accept (zero FAIL). Documents with more tools than
//!   a provider takes per request are validated in chunks of that size.
//! * Every recorded response in `../shared/fixtures` parses as its manifest says.
//! * Tool-result messages built for those responses (and for the main example's replay
//!   fixtures) pass `validate_tool_results.py`; the replay fixtures pass `validate_responses.py`.

use crate::support;

use std::path::PathBuf;

use support::validators::{shared, validate, validator_name};

use atip_runtime::providers::{tool_definitions, Provider};
use atip_runtime::wire::{model_turn, parse_response, result_messages, ParseError};
use atip_runtime::ToolResult;
use atip_runtime::{Document, FlattenOptions, LoadOptions, LoadedCommands};
use serde_json::{json, Value};

fn documents() -> Vec<(String, LoadedCommands)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(shared().join("corpus/atip/valid"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for local in ["examples/atip", "tests/fixtures"] {
        let mut more: Vec<PathBuf> = std::fs::read_dir(support::workspace().join(local))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                !["malformed.json", "missing-name.json", "collision.json"]
                    .iter()
                    .any(|b| p.ends_with(b))
            })
            .collect();
        more.sort();
        paths.extend(more);
    }
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, LoadedCommands::new(doc, None))
        })
        .collect()
}

#[test]
#[ignore = "needs ../shared"]
fn every_document_compiles_to_definitions_the_providers_accept() {
    let mut entries = Vec::new();
    let mut tools = 0;
    for (stem, doc) in documents() {
        if doc.specs().is_empty() {
            continue;
        }
        tools += doc.specs().len();
        for p in Provider::ALL {
            let chunk = p.max_tools().unwrap_or(usize::MAX);
            for (k, part) in doc.specs().chunks(chunk).enumerate() {
                entries.push((
                    "tools",
                    validator_name(p),
                    format!("{stem}.{}.{k}.json", p.as_str()),
                    tool_definitions(part, p),
                ));
            }
        }
    }
    assert!(tools > 300, "only {tools} tools");
    let out = validate("tools", entries);
    assert!(out.contains("TOTAL tools:"), "{out}");
}

fn manifest() -> Vec<Value> {
    let m: Value = serde_json::from_str(
        &std::fs::read_to_string(shared().join("fixtures/manifest.json")).unwrap(),
    )
    .unwrap();
    m["fixtures"].as_array().unwrap().clone()
}

fn format_of(provider: &str) -> Provider {
    match provider {
        "openai-chat" => Provider::OpenAi,
        "openai-responses" => Provider::OpenAiResponses,
        "anthropic" | "anthropic-sse" => Provider::Anthropic,
        "gemini" => Provider::Gemini,
        other => panic!("unknown fixture provider {other}"),
    }
}

#[test]
#[ignore = "needs ../shared"]
fn recorded_responses_parse_as_the_manifest_says() {
    let mut checked = 0;
    for f in manifest().iter().filter(|f| f["kind"] == "responses") {
        let file = f["file"].as_str().unwrap();
        let body = std::fs::read_to_string(shared().join("fixtures").join(file)).unwrap();
        let expect = &f["expect"];
        let format = format_of(f["provider"].as_str().unwrap());
        let reason = expect
            .get("finish_reason")
            .or_else(|| expect.get("status"))
            .or_else(|| expect.get("stop_reason"))
            .and_then(Value::as_str);
        if reason == Some("MALFORMED_FUNCTION_CALL") {
            match parse_response(format, &body) {
                Err(ParseError::Provider { reason, .. }) => {
                    assert_eq!(reason, "MALFORMED_FUNCTION_CALL")
                }
                other => panic!("{file}: must be an error, not {other:?}"),
            }
            checked += 1;
            continue;
        }
        let parsed = parse_response(format, &body).unwrap_or_else(|e| panic!("{file}: {e}"));
        let calls = expect
            .get("tool_calls")
            .or_else(|| expect.get("stream_tool_calls"))
            .and_then(Value::as_array)
            .unwrap();
        assert_eq!(parsed.tool_calls.len(), calls.len(), "{file}");
        for (got, want) in parsed.tool_calls.iter().zip(calls) {
            assert_eq!(got.name, want["name"].as_str().unwrap(), "{file}");
            let valid = want["args_valid_json"].as_bool().unwrap();
            // A truncated response's calls are never usable, whatever their JSON: the error
            // asks for the call again and keeps the arguments as they came.
            let arguments = match (&got.arguments, parsed.truncated) {
                (Err(e), true) => {
                    assert!(e.message.contains("cut short"), "{file}: {e:?}");
                    e.raw
                        .as_deref()
                        .and_then(|raw| serde_json::from_str::<Value>(raw).ok())
                        .and_then(|v| v.as_object().cloned())
                        .ok_or(())
                }
                (Ok(_), true) => panic!("{file}: a call of a truncated response is usable"),
                (Ok(m), false) => Ok(m.clone()),
                (Err(_), false) => Err(()),
            };
            assert_eq!(arguments.is_ok(), valid, "{file}: {:?}", got.arguments);
            if let Some(args) = want.get("args") {
                assert_eq!(&Value::Object(arguments.unwrap()), args, "{file}");
            }
        }
        assert_eq!(parsed.stop_reason.as_deref(), reason, "{file}");
        if let Some(n) = expect.get("text_blocks").and_then(Value::as_u64) {
            assert_eq!(parsed.text.len() as u64, n, "{file}");
        }
        checked += 1;
    }
    assert_eq!(checked, 27, "every response fixture was checked");
}

fn user_turn(format: Provider) -> Value {
    match format {
        Provider::Gemini => json!({"role": "user", "parts": [{"text": "Go ahead."}]}),
        _ => json!({"role": "user", "content": "Go ahead."}),
    }
}

fn conversation(format: Provider, body: &str) -> Option<Vec<Value>> {
    let parsed = parse_response(format, body).ok()?;
    if parsed.tool_calls.is_empty() {
        return None;
    }
    let results: Vec<ToolResult> = parsed
        .tool_calls
        .iter()
        .enumerate()
        .map(|(i, c)| match &c.arguments {
            Err(e) => ToolResult::error(format!("arguments unusable: {e}")),
            Ok(_) if i % 2 == 1 => {
                ToolResult::error("exit code 1: something failed\n[exit code 1]")
            }
            Ok(_) => ToolResult::ok("done\n[exit code 0]"),
        })
        .collect();
    let mut conv = vec![user_turn(format)];
    conv.extend(model_turn(format, &serde_json::from_str(body).unwrap()).unwrap());
    conv.extend(result_messages(format, &parsed.tool_calls, &results).unwrap());
    Some(conv)
}

fn results_validator(format: Provider) -> &'static str {
    match format.wire() {
        Provider::OpenAi => "openai-chat",
        Provider::OpenAiResponses => "openai-responses",
        Provider::Anthropic => "anthropic",
        Provider::Gemini => "gemini",
        other => panic!("no results validator for {}", other.as_str()),
    }
}

#[test]
#[ignore = "needs ../shared"]
fn tool_results_pass_the_validators() {
    let mut entries = Vec::new();
    for f in manifest().iter().filter(|f| f["kind"] == "responses") {
        let file = f["file"].as_str().unwrap();
        if file.ends_with(".sse") {
            continue; // a stream has no message body to echo
        }
        let format = format_of(f["provider"].as_str().unwrap());
        let body = std::fs::read_to_string(shared().join("fixtures").join(file)).unwrap();
        if let Some(conv) = conversation(format, &body) {
            let name = file.replace('/', "__");
            entries.push((
                "results",
                results_validator(format),
                name,
                Value::Array(conv),
            ));
        }
    }
    for (format, name) in [
        (Provider::OpenAi, "openai-chat"),
        (Provider::OpenAiResponses, "openai-responses"),
        (Provider::Anthropic, "anthropic"),
        (Provider::Gemini, "gemini"),
    ] {
        let path = support::workspace().join(format!("examples/replay/{name}.json"));
        let body = std::fs::read_to_string(&path).unwrap();
        let conv = conversation(format, &body).expect("replay fixtures have calls");
        entries.push((
            "results",
            results_validator(format),
            format!("replay-{name}.results.json"),
            Value::Array(conv),
        ));
        entries.push((
            "responses",
            name,
            format!("replay-{name}.json"),
            serde_json::from_str(&body).unwrap(),
        ));
    }
    assert!(entries.len() >= 24, "{}", entries.len());
    validate("results", entries);
}
