//! async-openai interop: our definitions converted to its types and back are the same JSON;
//! its response types, read from recorded responses, give the same tool calls as the raw bodies.

use std::path::Path;

use atip_runtime::interop::async_openai::{
    chat_tools, response_tools, tool_calls_from_chat, tool_calls_from_response,
};
use atip_runtime::providers::Provider;
use atip_runtime::wire::parse_response;
use atip_runtime::{Document, LoadedCommands};
use serde_json::Value;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn git() -> LoadedCommands {
    let doc = Document::from_path(
        &root().join("examples/atip/git.json"),
        atip_runtime::Mode::Strict,
        &Default::default(),
    )
    .unwrap();
    LoadedCommands::new(doc, None)
}

#[test]
fn chat_and_responses_definitions_convert_both_ways_unchanged() {
    let tool = git();
    for (p, strict) in [(Provider::OpenAi, false), (Provider::OpenAiStrict, true)] {
        let json = tool.definitions_json(p);
        let theirs = chat_tools(tool.specs(), strict).unwrap();
        assert_eq!(theirs.len(), tool.specs().len());
        let back = serde_json::to_value(&theirs).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(&json).unwrap(), "{p:?}");
    }
    for (p, strict) in [
        (Provider::OpenAiResponses, false),
        (Provider::OpenAiResponsesStrict, true),
    ] {
        let json = tool.definitions_json(p);
        let theirs = response_tools(tool.specs(), strict).unwrap();
        let back = serde_json::to_value(&theirs).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(&json).unwrap(), "{p:?}");
    }
}

#[test]
fn their_response_types_dispatch_like_raw_bodies() {
    let tool = git();
    let chat = std::fs::read_to_string(root().join("examples/replay/openai-chat.json")).unwrap();
    let theirs: async_openai::types::chat::CreateChatCompletionResponse =
        serde_json::from_str(&chat).unwrap();
    let calls = tool_calls_from_chat(&theirs).unwrap();
    let direct = parse_response(Provider::OpenAi, &chat).unwrap().tool_calls;
    assert!(!calls.is_empty());
    assert_eq!(calls, direct);
    for call in &calls {
        tool.invocation(call).unwrap();
    }

    let body =
        std::fs::read_to_string(root().join("examples/replay/openai-responses.json")).unwrap();
    let theirs: async_openai::types::responses::Response = serde_json::from_str(&body).unwrap();
    let calls = tool_calls_from_response(&theirs).unwrap();
    let direct = parse_response(Provider::OpenAiResponses, &body)
        .unwrap()
        .tool_calls;
    assert!(!calls.is_empty());
    assert_eq!(calls, direct);
}
