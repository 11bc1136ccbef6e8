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
//! use atip_runtime::{providers::Provider, Document, LoadedCommands};
//! let doc = Document::parse(
//!     r#"{"atip": "0.6", "name": "hello", "version": "1", "description": "Greets",
//!         "commands": {"": {"description": "Print a greeting"}}}"#,
//!     &Default::default(),
//!     &Default::default(),
//! )?;
//! let tool = LoadedCommands::new(doc, None);
//! // For a generated module: `chat_tools(&hello::TOOLS, true)`.
//! let tools = chat_tools(tool.specs(), true)?;
//! assert_eq!(tools.len(), 1);
//! # Ok(()) }
//! ```

use async_openai::types::chat::{ChatCompletionTools, CreateChatCompletionResponse};
use async_openai::types::responses::{Response, Tool};

use crate::providers::tool_definition;
use crate::wire::{parse_response, ParseError};
use crate::Provider;
use crate::{ToolCall, ToolSpec};

/// Chat Completions tool definitions of `specs` (a generated module's `TOOLS`, or
/// `LoadedCommands::specs()`) as async-openai's `ChatCompletionTools`, for
/// `CreateChatCompletionRequest::tools`; `strict` selects OpenAI strict mode.
///
/// # Errors
///
/// When a definition does not convert (a bug: ours follow the provider's schema).
pub fn chat_tools(
    specs: &[ToolSpec],
    strict: bool,
) -> Result<Vec<ChatCompletionTools>, serde_json::Error> {
    let provider = if strict {
        Provider::OpenAiStrict
    } else {
        Provider::OpenAi
    };
    specs
        .iter()
        .map(|s| serde_json::from_value(tool_definition(s, provider)))
        .collect()
}

/// Responses API tool definitions of `specs` as async-openai's responses `Tool`s; `strict`
/// selects strict mode.
///
/// # Errors
///
/// When a definition does not convert (a bug).
pub fn response_tools(specs: &[ToolSpec], strict: bool) -> Result<Vec<Tool>, serde_json::Error> {
    let provider = if strict {
        Provider::OpenAiResponsesStrict
    } else {
        Provider::OpenAiResponses
    };
    specs
        .iter()
        .map(|s| serde_json::from_value(tool_definition(s, provider)))
        .collect()
}

/// The tool calls of a chat completion, ready for dispatch (`Call::from_tool_call`,
/// `LoadedCommands::invocation`), with the same checks as for a raw response body.
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
