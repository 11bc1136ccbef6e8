//! async-openai 0.43 (`chat-completion-types`, `response-types`): tool definitions as its
//! request types, and the tool calls of its response types for dispatch.
//!
//! Conversions go through the JSON both sides define for the OpenAI API, so nothing is
//! re-modelled here: a definition converted to async-openai's type serialises back to the same
//! JSON (tested), and a response's calls are read by the same parser as a raw response body.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use atip_runtime::interop::async_openai::{chat_tools, tool_calls_from_chat};
//! use atip_runtime::{providers::Provider, Document, LoadedTool};
//! let doc = Document::parse(
//!     r#"{"atip": "0.6", "name": "hello", "version": "1", "description": "Greets",
//!         "commands": {"": {"description": "Print a greeting"}}}"#,
//!     &Default::default(),
//!     &Default::default(),
//! )?;
//! let tool = LoadedTool::new(doc, None);
//! // Generated code has the same JSON as a constant: `hello::schemas::OPENAI_STRICT`.
//! let tools = chat_tools(&tool.definitions_json(Provider::OpenAiStrict))?;
//! assert_eq!(tools.len(), 1);
//! # Ok(()) }
//! ```

use async_openai::types::chat::{ChatCompletionTools, CreateChatCompletionResponse};
use async_openai::types::responses::{Response, Tool};

use crate::lifecycle::{parse_response, ParseError};
use crate::Provider;
use crate::ToolCall;

/// A JSON array of Chat Completions tool definitions (`schemas::OPENAI` or `OPENAI_STRICT` of a
/// generated module, or `LoadedTool::definitions_json(Provider::OpenAi | OpenAiStrict)`) as
/// async-openai's `ChatCompletionTools`, for `CreateChatCompletionRequest::tools`.
///
/// # Errors
///
/// When `json` is not such an array.
pub fn chat_tools(json: &str) -> Result<Vec<ChatCompletionTools>, serde_json::Error> {
    serde_json::from_str(json)
}

/// A JSON array of Responses tool definitions (`schemas::OPENAI_RESPONSES` or
/// `OPENAI_RESPONSES_STRICT`) as async-openai's responses `Tool`s.
///
/// # Errors
///
/// When `json` is not such an array.
pub fn response_tools(json: &str) -> Result<Vec<Tool>, serde_json::Error> {
    serde_json::from_str(json)
}

/// The tool calls of a chat completion, ready for dispatch (`Call::from_tool_call`,
/// `LoadedTool::invocation`), with the same checks as for a raw response body.
///
/// # Errors
///
/// [`ParseError`] as [`parse_response`] gives for the serialised response.
pub fn tool_calls_from_chat(
    response: &CreateChatCompletionResponse,
) -> Result<Vec<ToolCall>, ParseError> {
    calls(Provider::OpenAi, response)
}

/// The function calls of a Responses API response, ready for dispatch.
///
/// # Errors
///
/// [`ParseError`] as [`parse_response`] gives for the serialised response.
pub fn tool_calls_from_response(response: &Response) -> Result<Vec<ToolCall>, ParseError> {
    calls(Provider::OpenAiResponses, response)
}

fn calls(format: Provider, response: &impl serde::Serialize) -> Result<Vec<ToolCall>, ParseError> {
    let body = serde_json::to_string(response).map_err(|e| ParseError::NotJson {
        message: format!("the response does not serialise: {e}"),
    })?;
    Ok(parse_response(format, &body)?.tool_calls)
}
