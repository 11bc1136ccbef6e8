//! Parsing provider responses and building tool-result messages, on small payloads in each
//! provider's wire format (the recorded fixtures in ../shared are checked by the conformance
//! tests).

use atip_runtime::wire::{model_turn, parse_response, result_messages, ParseError};
use atip_runtime::Provider;
use atip_runtime::ToolResult;
use serde_json::{json, Value};

const CHAT: &str = r#"{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt",
  "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null,
    "message": {"role": "assistant", "content": null, "refusal": null, "annotations": [],
      "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "git_status", "arguments": "{\"short\":true}"}},
        {"id": "call_b", "type": "function", "function": {"name": "git_log", "arguments": "{\"max_count\": 3"}},
        {"id": "call_c", "type": "custom", "custom": {"name": "grammar", "input": "x"}}]}}]}"#;

const RESPONSES: &str = r#"{"id": "resp_1", "object": "response", "status": "completed", "output": [
  {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
   "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]},
  {"type": "function_call", "id": "fc_1", "call_id": "call_x", "name": "git_status", "arguments": "{}", "status": "completed"}]}"#;

const ANTHROPIC: &str = r#"{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
  "stop_reason": "tool_use", "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1},
  "content": [
    {"type": "text", "text": "Let me look.", "citations": null},
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution", "input": {}},
    {"type": "tool_use", "id": "toolu_a", "name": "git_status", "input": {"short": true}},
    {"type": "tool_use", "id": "toolu_b", "name": "git_log", "input": {}}]}"#;

const GEMINI: &str = r#"{"candidates": [{"finishReason": "STOP", "index": 0, "content": {"role": "model", "parts": [
  {"functionCall": {"name": "git_status", "args": {"short": true}}, "thoughtSignature": "c2ln"},
  {"function_call": {"name": "git_log", "id": "fc-2"}}]}}], "modelVersion": "gemini"}"#;

fn names(r: &atip_runtime::ParsedResponse) -> Vec<&str> {
    r.tool_calls.iter().map(|c| c.name.as_str()).collect()
}

#[test]
fn openai_chat_calls_with_one_bad_argument_string() {
    let r = parse_response(Provider::OpenAi, CHAT).unwrap();
    assert_eq!(
        names(&r),
        ["git_status", "git_log"],
        "custom tool calls are not function calls"
    );
    assert_eq!(r.tool_calls[0].id.as_deref(), Some("call_a"));
    assert_eq!(
        r.tool_calls[0].arguments.as_ref().unwrap()["short"],
        json!(true)
    );
    let bad = r.tool_calls[1].arguments.as_ref().unwrap_err();
    assert_eq!(bad.raw.as_deref(), Some("{\"max_count\": 3"));
    assert!(bad.message.starts_with("arguments are not valid JSON"));
    assert_eq!(r.stop_reason.as_deref(), Some("tool_calls"));
    assert!(!r.truncated);
}

#[test]
fn openai_responses_uses_call_id() {
    let r = parse_response(Provider::OpenAiResponses, RESPONSES).unwrap();
    assert_eq!(names(&r), ["git_status"]);
    assert_eq!(
        r.tool_calls[0].id.as_deref(),
        Some("call_x"),
        "call_id, not the item id"
    );
    assert_eq!(r.text, ["Checking."]);
}

#[test]
fn anthropic_ignores_server_tools() {
    let r = parse_response(Provider::Anthropic, ANTHROPIC).unwrap();
    assert_eq!(names(&r), ["git_status", "git_log"]);
    assert_eq!(r.text, ["Let me look."]);
    assert!(r.tool_calls[1].arguments.as_ref().unwrap().is_empty());
}

#[test]
fn anthropic_stream_accumulates_input_json() {
    let sse = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":null}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"git_log","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"max_co"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"unt\": 2}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"}}

event: message_stop
data: {"type":"message_stop"}
"#;
    let r = parse_response(Provider::Anthropic, sse).unwrap();
    assert_eq!(
        r.tool_calls[0].arguments.as_ref().unwrap()["max_count"],
        json!(2)
    );
    assert_eq!(r.stop_reason.as_deref(), Some("tool_use"));
    let cut = sse.replace("unt\\\": 2}", "unt\\\": ").replace(
        "\"stop_reason\":\"tool_use\"",
        "\"stop_reason\":\"max_tokens\"",
    );
    let r = parse_response(Provider::Anthropic, &cut).unwrap();
    assert!(r.truncated);
    let e = r.tool_calls[0].arguments.as_ref().unwrap_err();
    assert!(
        e.message.contains("arguments are not valid JSON"),
        "{}",
        e.message
    );
    assert!(
        e.message.starts_with("not run: the response was cut short"),
        "{}",
        e.message
    );
    let err = parse_response(
        Provider::Anthropic,
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n",
    )
    .unwrap_err();
    assert_eq!(err.to_string(), "overloaded_error: Overloaded");
}

#[test]
fn gemini_camel_and_snake_case_ids_and_signatures() {
    let r = parse_response(Provider::Gemini, GEMINI).unwrap();
    assert_eq!(names(&r), ["git_status", "git_log"]);
    assert_eq!(r.tool_calls[0].thought_signature.as_deref(), Some("c2ln"));
    assert_eq!(r.tool_calls[0].id, None);
    assert_eq!(r.tool_calls[1].id.as_deref(), Some("fc-2"));
    assert!(
        r.tool_calls[1].arguments.as_ref().unwrap().is_empty(),
        "absent args are {{}}"
    );
    let malformed = r#"{"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL", "finishMessage": "bad call"}]}"#;
    match parse_response(Provider::Gemini, malformed) {
        Err(ParseError::Provider { reason, message }) => {
            assert_eq!(reason, "MALFORMED_FUNCTION_CALL");
            assert!(message.contains("bad call"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn no_calls_is_an_empty_list_and_wrong_shapes_are_errors() {
    let none = r#"{"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": "Hi"}}]}"#;
    let r = parse_response(Provider::OpenAi, none).unwrap();
    assert!(r.tool_calls.is_empty());
    assert_eq!(r.text, ["Hi"]);
    let err = parse_response(Provider::Gemini, CHAT).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("response is not a Gemini generateContent response"),
        "{err}"
    );
    let err = parse_response(Provider::OpenAiResponses, "[1]").unwrap_err();
    assert!(err.to_string().contains("found an array"), "{err}");
    assert!(matches!(
        parse_response(Provider::OpenAi, "not json"),
        Err(ParseError::NotJson { .. })
    ));
}

#[test]
fn results_go_back_in_each_providers_shape() {
    let results = [
        ToolResult::ok("M a.txt"),
        ToolResult::error("exit code 128: not a git repository"),
    ];

    let r = parse_response(Provider::OpenAi, CHAT).unwrap();
    let msgs = result_messages(Provider::OpenAi, &r.tool_calls, &results).unwrap();
    assert_eq!(
        Value::Array(msgs),
        json!([
            {"role": "tool", "tool_call_id": "call_a", "content": "M a.txt"},
            {"role": "tool", "tool_call_id": "call_b", "content": "Error: exit code 128: not a git repository"}
        ])
    );
    let turn = model_turn(Provider::OpenAi, &serde_json::from_str(CHAT).unwrap()).unwrap();
    assert_eq!(turn[0]["role"], json!("assistant"));
    assert!(turn[0].get("refusal").is_none() && turn[0].get("content").is_none());
    assert_eq!(turn[0]["tool_calls"].as_array().unwrap().len(), 3);

    let r = parse_response(Provider::Anthropic, ANTHROPIC).unwrap();
    let msgs = result_messages(Provider::Anthropic, &r.tool_calls, &results).unwrap();
    assert_eq!(
        Value::Array(msgs),
        json!([{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "M a.txt"},
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "exit code 128: not a git repository", "is_error": true}
        ]}]),
        "one user message, every result, nothing before them"
    );

    let r = parse_response(Provider::Gemini, GEMINI).unwrap();
    let msgs = result_messages(Provider::Gemini, &r.tool_calls, &results).unwrap();
    assert_eq!(
        Value::Array(msgs),
        json!([{"role": "user", "parts": [
            {"functionResponse": {"name": "git_status", "response": {"output": "M a.txt"}}},
            {"functionResponse": {"name": "git_log", "id": "fc-2", "response": {"error": "exit code 128: not a git repository"}}}
        ]}])
    );
    // Structured output goes to Gemini as data; text providers keep the text.
    let mut data = ToolResult::ok("{\"files\":[\"a.txt\"]}\n[exit code 0]");
    data.structured = Some(json!({"files": ["a.txt"]}));
    let structured = [data.clone(), results[1].clone()];
    let msgs = result_messages(Provider::Gemini, &r.tool_calls, &structured).unwrap();
    assert_eq!(
        msgs[0]["parts"][0]["functionResponse"]["response"],
        json!({"output": {"files": ["a.txt"]}})
    );
    let chat = parse_response(Provider::OpenAi, CHAT).unwrap();
    let msgs = result_messages(Provider::OpenAi, &chat.tool_calls[..1], &[data]).unwrap();
    assert_eq!(
        msgs[0]["content"],
        json!("{\"files\":[\"a.txt\"]}\n[exit code 0]")
    );
    let turn = model_turn(Provider::Gemini, &serde_json::from_str(GEMINI).unwrap()).unwrap();
    assert_eq!(
        turn[0]["parts"][0]["thoughtSignature"],
        json!("c2ln"),
        "echoed verbatim"
    );

    let r = parse_response(Provider::OpenAiResponses, RESPONSES).unwrap();
    let msgs = result_messages(Provider::OpenAiResponses, &r.tool_calls, &results[..1]).unwrap();
    assert_eq!(
        Value::Array(msgs),
        json!([{"type": "function_call_output", "call_id": "call_x", "output": "M a.txt"}])
    );
}

#[test]
fn every_call_needs_exactly_one_result() {
    let r = parse_response(Provider::OpenAi, CHAT).unwrap();
    let err = result_messages(Provider::OpenAi, &r.tool_calls, &[ToolResult::ok("x")]).unwrap_err();
    assert_eq!(
        err.message,
        "2 calls but 1 results: every call must be answered exactly once"
    );
    let mut calls = r.tool_calls.clone();
    calls[0].id = None;
    let err = result_messages(
        Provider::Anthropic,
        &calls,
        &[ToolResult::ok("a"), ToolResult::ok("b")],
    )
    .unwrap_err();
    assert!(err.message.contains("has no id"));
    // Gemini matches by order; no id needed.
    assert!(result_messages(
        Provider::Gemini,
        &calls,
        &[ToolResult::ok("a"), ToolResult::ok("b")]
    )
    .is_ok());
}
