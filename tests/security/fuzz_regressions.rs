//! Inputs found by fuzzing (`fuzz/`), kept as tests. Each names the target that found it.

use atip_runtime::wire::{parse_response, result_messages};
use atip_runtime::Provider;
use atip_runtime::ToolResult;

/// `responses`: a Responses `function_call` whose `call_id` key is misspelt parses as a call
/// without an id; answering it is a clear error, not a panic or a result the API would refuse.
#[test]
fn a_responses_call_without_call_id_gets_a_clear_result_error() {
    let body = r#"{"object": "response", "status": "completed", "output": [
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "git_diff", "arguments": "{}"},
        {"type": "function_call", "id": "fc_2", "cl_laid": "call_2", "name": "git_commit", "arguments": "{\"all\":true}"}
    ]}"#;
    let parsed = parse_response(Provider::OpenAiResponses, body).unwrap();
    assert_eq!(parsed.tool_calls.len(), 2);
    assert_eq!(parsed.tool_calls[1].id, None);
    let results = [ToolResult::ok("a"), ToolResult::ok("b")];
    let err = result_messages(Provider::OpenAiResponses, &parsed.tool_calls, &results).unwrap_err();
    assert_eq!(
        err.message,
        "call `git_commit` has no id; openai-responses results must echo one"
    );
}
