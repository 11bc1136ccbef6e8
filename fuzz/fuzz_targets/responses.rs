//! Every provider's response parser, and the model turn and result messages built from what
//! parses: values or errors, never a panic. Result messages for parsed calls always build
//! when every call has an id (Gemini needs none); a call without one gets a clear error.
#![no_main]

use atip_runtime::wire::{model_turn, parse_response, result_messages};
use atip_runtime::ToolResult;
use atip_runtime::Provider;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for format in Provider::ALL {
        if let Ok(parsed) = parse_response(format, text) {
            let results: Vec<ToolResult> = parsed
                .tool_calls
                .iter()
                .map(|_| ToolResult::ok("ok"))
                .collect();
            let messages = result_messages(format, &parsed.tool_calls, &results);
            let ids = parsed.tool_calls.iter().all(|c| c.id.is_some());
            if ids || format == Provider::Gemini {
                messages.expect("one result per call with ids always makes messages");
            } else if let Err(e) = messages {
                assert!(e.message.contains("has no id"), "{}", e.message);
            }
        }
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
            let _ = model_turn(format, &value);
        }
    }
});
