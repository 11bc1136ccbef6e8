//! Streaming tool calls: each provider's event stream (written in the provider's documented wire
//! format, `tests/streams/`), cut at every byte boundary, gives the same text, the same calls
//! at the same moment and the same assembled response; the assembled response parses to the
//! calls the stream reported.

use std::path::Path;

use atip_runtime::wire::parse_response;
use atip_runtime::wire::stream::{StreamBuilder, StreamEvent};
use atip_runtime::{Provider, ToolCall};
use serde_json::{json, Value};

fn stream(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/streams")
            .join(name),
    )
    .unwrap()
}

/// Events and the assembled body, feeding `bytes` in the given pieces.
fn run(provider: Provider, pieces: &[&[u8]]) -> (Vec<StreamEvent>, Value) {
    let mut b = StreamBuilder::new(provider);
    let mut events = Vec::new();
    for p in pieces {
        events.extend(b.push(p));
    }
    (events, b.finish().unwrap())
}

fn calls(events: &[StreamEvent]) -> Vec<ToolCall> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Call(c) => Some(c.clone()),
            StreamEvent::Text(_) => None,
        })
        .collect()
}

fn text(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Text(t) => Some(t.as_str()),
            StreamEvent::Call(_) => None,
        })
        .collect()
}

/// The same result whatever the byte at which the body is cut, and when fed byte by byte.
fn every_cut_agrees(provider: Provider, bytes: &[u8]) -> (Vec<StreamEvent>, Value) {
    let whole = run(provider, &[bytes]);
    for i in 0..=bytes.len() {
        let cut = run(provider, &[&bytes[..i], &bytes[i..]]);
        assert_eq!(cut.0, whole.0, "{provider:?} cut at {i}");
        assert_eq!(cut.1, whole.1, "{provider:?} cut at {i}");
    }
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    let bytewise = run(provider, &singles);
    assert_eq!(bytewise.0, whole.0);
    assert_eq!(bytewise.1, whole.1);
    // What the stream reported is what the assembled response says; when the response turns
    // out cut short, parsing it refuses every call (run calls only after the stream ended).
    let parsed = parse_response(provider, &whole.1.to_string()).unwrap();
    let streamed = calls(&whole.0);
    if parsed.truncated {
        let ids = |c: &[ToolCall]| -> Vec<(Option<String>, String)> {
            c.iter().map(|c| (c.id.clone(), c.name.clone())).collect()
        };
        assert_eq!(ids(&parsed.tool_calls), ids(&streamed), "{provider:?}");
        assert!(parsed.tool_calls.iter().all(|c| c.arguments.is_err()));
    } else {
        assert_eq!(parsed.tool_calls, streamed, "{provider:?}");
    }
    whole
}

#[test]
fn openai_chat_calls_complete_when_the_next_index_starts_or_the_choice_finishes() {
    let bytes = stream("openai-chat.sse");
    let (events, body) = every_cut_agrees(Provider::OpenAi, &bytes);
    assert_eq!(text(&events), "Checking the tree.");
    let got = calls(&events);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].name, "git_status");
    assert_eq!(
        got[1].arguments.as_ref().unwrap()["message"],
        "Résumé: fix ✓"
    );
    // The first call is reported as soon as the second begins, before the stream ends.
    let mut b = StreamBuilder::new(Provider::OpenAi);
    let text = String::from_utf8(bytes.clone()).unwrap();
    let second_starts = text.find("\"index\":1,\"id\"").unwrap();
    let event_end = text[second_starts..].find("\n\n").unwrap() + second_starts + 2;
    let early = calls(&b.push(&bytes[..event_end]));
    assert_eq!(early.len(), 1);
    assert_eq!(early[0].id.as_deref(), Some("call_AtipS1"));
    assert_eq!(body["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "Checking the tree."
    );
}

#[test]
fn openai_responses_calls_complete_with_their_output_item() {
    let (events, body) =
        every_cut_agrees(Provider::OpenAiResponses, &stream("openai-responses.sse"));
    assert_eq!(text(&events), "Looking at the log.");
    let got = calls(&events);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].id.as_deref(), Some("call_AtipR1"));
    assert_eq!(got[0].arguments.as_ref().unwrap()["format"], "%h – %s");
    assert_eq!(body["status"], "completed");
}

#[test]
fn anthropic_calls_complete_at_their_block_stop_and_a_cut_stream_refuses_them() {
    let bytes = stream("anthropic-max-tokens.sse");
    let (events, body) = every_cut_agrees(Provider::Anthropic, &bytes);
    assert_eq!(text(&events), "Je vérifie l’état.");
    let got = calls(&events);
    assert_eq!(got[0].arguments.as_ref().unwrap()["short"], true);
    assert!(got[1].arguments.is_err(), "the cut input is not usable");
    assert_eq!(body["stop_reason"], "max_tokens");
    // The response was cut: every call is refused, as for the raw event stream.
    let assembled = parse_response(Provider::Anthropic, &body.to_string()).unwrap();
    let raw = parse_response(Provider::Anthropic, std::str::from_utf8(&bytes).unwrap()).unwrap();
    assert!(assembled.truncated && raw.truncated);
    assert_eq!(assembled.text, raw.text);
    assert!(assembled.tool_calls.iter().all(|c| c.arguments.is_err()));
}

#[test]
fn gemini_calls_arrive_whole_with_their_signatures() {
    let (events, body) = every_cut_agrees(Provider::Gemini, &stream("gemini.sse"));
    assert_eq!(text(&events), "Let me look — ✓.");
    let got = calls(&events);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].thought_signature.as_deref(), Some("c2lnbmF0dXJl"));
    assert_eq!(body["candidates"][0]["finishReason"], "STOP");
    assert_eq!(
        body["candidates"][0]["content"]["parts"][0],
        json!({"text": "Let me look — ✓."})
    );
}

#[test]
fn bad_events_and_provider_errors_are_reported_at_the_end() {
    let mut b = StreamBuilder::new(Provider::Anthropic);
    b.push(b"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n");
    let e = b.finish().unwrap_err();
    assert!(e.to_string().contains("overloaded_error"), "{e}");
    let mut b = StreamBuilder::new(Provider::OpenAi);
    b.push(b"data: {not json}\n\n");
    assert!(b.finish().unwrap_err().to_string().contains("not JSON"));
}

/// The recorded Anthropic stream of `../shared/fixtures`.
#[test]
#[ignore = "needs ../shared"]
fn a_recorded_anthropic_stream_agrees_at_every_cut() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/responses/anthropic/tool_use_stream.sse");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (events, _) = every_cut_agrees(Provider::Anthropic, &bytes);
    let raw = parse_response(Provider::Anthropic, std::str::from_utf8(&bytes).unwrap()).unwrap();
    assert_eq!(calls(&events), raw.tool_calls);
    assert!(!raw.tool_calls.is_empty());
}

/// Events an SDK has already decoded (async-openai's `create_stream_byot` yields each `data:`
/// as JSON and swallows Chat's `[DONE]`) give what the raw bytes give.
#[test]
fn decoded_events_agree_with_the_raw_stream() {
    for (provider, file) in [
        (Provider::OpenAi, "openai-chat.sse"),
        (Provider::OpenAiResponses, "openai-responses.sse"),
        (Provider::Anthropic, "anthropic-max-tokens.sse"),
        (Provider::Gemini, "gemini.sse"),
    ] {
        let bytes = stream(file);
        let whole = run(provider, &[&bytes]);
        let text = String::from_utf8(bytes).unwrap().replace('\r', "");
        let mut b = StreamBuilder::new(provider);
        let mut events = Vec::new();
        for block in text.split("\n\n") {
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            if data.is_empty() || data == ["[DONE]"] {
                continue;
            }
            let value: Value = serde_json::from_str(&data.join("\n")).unwrap();
            events.extend(b.push_event(&value));
        }
        let body = b.finish().unwrap();
        assert_eq!(body, whole.1, "{file}");
        // Chat completes its last call at `finish_reason`, before `[DONE]`.
        assert_eq!(events, whole.0, "{file}");
        assert!(!calls(&events).is_empty(), "{file}");
    }
}
