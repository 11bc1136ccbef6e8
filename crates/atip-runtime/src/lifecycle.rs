//! The function-calling lifecycle around a command (spec §7): tool calls out of a provider's
//! response, and tool results back into that provider's request format.
//!
//! Shapes follow the providers' SDK types — openai-python's `ChatCompletion`,
//! `ChatCompletionToolMessageParam`, `Response` and `FunctionCallOutput`; anthropic's
//! `Message` and `ToolResultBlockParam`; google-genai's `GenerateContentResponse` and
//! `FunctionResponse`:
//!
//! | format | calls | result |
//! |---|---|---|
//! | OpenAI Chat | `choices[0].message.tool_calls[]`, arguments a JSON string | one `{"role": "tool", "tool_call_id", "content"}` per call |
//! | OpenAI Responses | `output[]` items of type `function_call`, matched by `call_id` | one `function_call_output` item per call |
//! | Anthropic | `content[]` blocks of type `tool_use` (or an SSE stream) | one user message with every `tool_result` block, `is_error` when failed |
//! | Gemini | `candidates[0].content.parts[].functionCall` | one user content with one `functionResponse` per call, in order |

use std::fmt;

use serde_json::{json, Map, Value};

use crate::dispatch::{ArgumentsError, ToolCall};
use crate::Provider;

/// The tool calls and stop information of one model response.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedResponse {
    /// The calls, in the order the model made them. Calls with unusable arguments are kept,
    /// with an [`ArgumentsError`], so that they can be answered with an error result.
    pub tool_calls: Vec<ToolCall>,
    /// Why generation stopped, in the provider's words (`tool_calls`, `completed`,
    /// `max_tokens`, `STOP`, …).
    pub stop_reason: Option<String>,
    /// Generation was cut short (token limit): calls may be incomplete even when their
    /// arguments parse, so every call's arguments are then an [`ArgumentsError`] asking the
    /// model to make the call again — dispatch refuses them and answers with that error.
    pub truncated: bool,
    /// Text the model wrote besides the calls.
    pub text: Vec<String>,
}

/// A response that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Not JSON (or, for Anthropic streams, not server-sent events).
    NotJson {
        /// The parser's message.
        message: String,
    },
    /// JSON, but not the provider's response shape.
    Shape {
        /// What the format looks like.
        expected: &'static str,
        /// What was found instead.
        found: String,
    },
    /// The provider reported a failure instead of calls (Gemini `MALFORMED_FUNCTION_CALL`,
    /// an Anthropic stream `error` event).
    Provider {
        /// The provider's reason code.
        reason: String,
        /// What it means.
        message: String,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::NotJson { message } => write!(f, "response is not JSON: {message}"),
            ParseError::Shape { expected, found } => {
                write!(f, "response is not {expected}: {found}")
            }
            ParseError::Provider { reason, message } => write!(f, "{reason}: {message}"),
        }
    }
}

impl std::error::Error for ParseError {}

const CHAT_SHAPE: &str = "an OpenAI Chat Completions response (an object with a `choices` array)";
const RESPONSES_SHAPE: &str = "an OpenAI Responses API response (an object with an `output` array)";
const ANTHROPIC_SHAPE: &str =
    "an Anthropic Messages response (an object with a `content` array, or an SSE stream)";
const GEMINI_SHAPE: &str =
    "a Gemini generateContent response (an object with a `candidates` array)";

/// Parses the tool calls out of a response body.
///
/// A response without tool calls gives an empty list. A malformed argument string affects
/// only its own call.
///
/// # Errors
///
/// [`ParseError`] when the body is not this format's response, or the provider reports that
/// the model's calls could not be produced (Gemini `MALFORMED_FUNCTION_CALL` and kin).
pub fn parse_response(format: Provider, body: &str) -> Result<ParsedResponse, ParseError> {
    if format == Provider::Anthropic && looks_like_sse(body) {
        return parse_anthropic_sse(body).map(ParsedResponse::refusing_truncated);
    }
    let value: Value = serde_json::from_str(body).map_err(|e| ParseError::NotJson {
        message: e.to_string(),
    })?;
    parse_response_value(format, &value)
}

impl ParsedResponse {
    /// When generation was cut short, every call becomes unusable: its arguments are replaced
    /// by an [`ArgumentsError`] asking the model to make the call again (the raw arguments are
    /// kept in [`ArgumentsError::raw`]). A call from a truncated response may look complete and
    /// still be missing what the model meant to send, so no dispatch path can run it.
    fn refusing_truncated(mut self) -> Self {
        if !self.truncated {
            return self;
        }
        let reason = self.stop_reason.as_deref().unwrap_or("token limit");
        let refusal = format!(
            "not run: the response was cut short (stop reason `{reason}`), so this call may be \
             incomplete; make the call again"
        );
        for call in &mut self.tool_calls {
            let (raw, message) = match &call.arguments {
                Ok(map) => (serde_json::to_string(map).ok(), refusal.clone()),
                Err(e) => (e.raw.clone(), format!("{refusal} ({})", e.message)),
            };
            call.arguments = Err(ArgumentsError { raw, message });
        }
        self
    }
}

/// [`parse_response`] on an already parsed JSON body (Anthropic streams need the text form).
///
/// # Errors
///
/// As [`parse_response`].
pub fn parse_response_value(format: Provider, value: &Value) -> Result<ParsedResponse, ParseError> {
    match format.wire() {
        Provider::OpenAi => parse_chat(value),
        Provider::OpenAiResponses => parse_responses(value),
        Provider::Anthropic => parse_anthropic(value),
        Provider::Gemini => parse_gemini(value),
        _ => Err(no_model_responses()),
    }
    .map(ParsedResponse::refusing_truncated)
}

/// The error for asking MCP for a model response: MCP clients call tools; they send no
/// model responses to parse.
fn no_model_responses() -> ParseError {
    ParseError::Shape {
        expected: "a model response of OpenAI, Anthropic or Gemini",
        found: "the MCP dialect, which has tool calls (`tools/call`) but no model responses"
            .to_owned(),
    }
}

fn shape(expected: &'static str, found: &Value) -> ParseError {
    ParseError::Shape {
        expected,
        found: match found {
            Value::Object(m) => format!(
                "found an object with keys {}",
                m.keys().take(8).cloned().collect::<Vec<_>>().join(", ")
            ),
            other => format!("found {}", crate::diagnostic::describe(other)),
        },
    }
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn parse_chat(v: &Value) -> Result<ParsedResponse, ParseError> {
    let Some(choices) = v.get("choices").and_then(Value::as_array) else {
        return Err(shape(CHAT_SHAPE, v));
    };
    let mut out = ParsedResponse {
        tool_calls: Vec::new(),
        stop_reason: None,
        truncated: false,
        text: Vec::new(),
    };
    let Some(choice) = choices.first() else {
        return Ok(out);
    };
    out.stop_reason = str_field(choice, "finish_reason");
    out.truncated = out.stop_reason.as_deref() == Some("length");
    let message = choice.get("message").unwrap_or(&Value::Null);
    if let Some(t) = message.get("content").and_then(Value::as_str) {
        out.text.push(t.to_owned());
    }
    for tc in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        // `custom` tool calls are not function calls; they are not ours to run.
        if tc.get("type").and_then(Value::as_str).unwrap_or("function") != "function" {
            continue;
        }
        let f = tc.get("function").unwrap_or(&Value::Null);
        let name = str_field(f, "name").unwrap_or_default();
        let raw = f.get("arguments").and_then(Value::as_str).unwrap_or("");
        out.tool_calls
            .push(ToolCall::from_json_text(str_field(tc, "id"), name, raw));
    }
    Ok(out)
}

fn parse_responses(v: &Value) -> Result<ParsedResponse, ParseError> {
    let Some(items) = v.get("output").and_then(Value::as_array) else {
        return Err(shape(RESPONSES_SHAPE, v));
    };
    let status = str_field(v, "status");
    let mut out = ParsedResponse {
        tool_calls: Vec::new(),
        truncated: status.as_deref() == Some("incomplete"),
        stop_reason: status,
        text: Vec::new(),
    };
    for item in items {
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                let name = str_field(item, "name").unwrap_or_default();
                let raw = item.get("arguments").and_then(Value::as_str).unwrap_or("");
                out.tool_calls.push(ToolCall::from_json_text(
                    str_field(item, "call_id"),
                    name,
                    raw,
                ));
            }
            Some("message") => {
                for c in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(t) = c.get("text").and_then(Value::as_str) {
                        out.text.push(t.to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn object_arguments(input: Option<&Value>) -> Result<Map<String, Value>, ArgumentsError> {
    match input {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        // Arguments as JSON text (a streamed input that did not complete, some compatible
        // servers): read as such.
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(other) => Err(ArgumentsError {
                raw: Some(text.clone()),
                message: format!(
                    "arguments must be a JSON object, found {}",
                    crate::diagnostic::describe(&other)
                ),
            }),
            Err(e) => Err(ArgumentsError {
                raw: Some(text.clone()),
                message: format!("arguments are not valid JSON ({e})"),
            }),
        },
        Some(other) => Err(ArgumentsError {
            raw: Some(other.to_string()),
            message: format!(
                "arguments must be a JSON object, found {}",
                crate::diagnostic::describe(other)
            ),
        }),
    }
}

fn parse_anthropic(v: &Value) -> Result<ParsedResponse, ParseError> {
    let Some(blocks) = v.get("content").and_then(Value::as_array) else {
        return Err(shape(ANTHROPIC_SHAPE, v));
    };
    let stop = str_field(v, "stop_reason");
    let mut out = ParsedResponse {
        tool_calls: Vec::new(),
        truncated: stop.as_deref() == Some("max_tokens"),
        stop_reason: stop,
        text: Vec::new(),
    };
    for b in blocks {
        match b.get("type").and_then(Value::as_str) {
            // Only client tool calls; `server_tool_use` runs at Anthropic.
            Some("tool_use") => out.tool_calls.push(ToolCall {
                id: str_field(b, "id"),
                name: str_field(b, "name").unwrap_or_default(),
                arguments: object_arguments(b.get("input")),
                thought_signature: None,
            }),
            Some("text") => {
                if let Some(t) = b.get("text").and_then(Value::as_str) {
                    out.text.push(t.to_owned());
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn looks_like_sse(body: &str) -> bool {
    let t = body.trim_start();
    t.starts_with("event:") || t.starts_with("data:")
}

/// Anthropic's streamed form, assembled into the message it stands for by the stream builder
/// ([`crate::stream::StreamBuilder`]): one reading of the event stream for both.
fn parse_anthropic_sse(body: &str) -> Result<ParsedResponse, ParseError> {
    let mut builder = crate::stream::StreamBuilder::new(Provider::Anthropic);
    builder.push(body.as_bytes());
    let message = builder.finish()?;
    if message.get("id").is_none() && message["content"].as_array().is_none_or(Vec::is_empty) {
        return Err(ParseError::Shape {
            expected: ANTHROPIC_SHAPE,
            found: "found server-sent events without Messages stream events".into(),
        });
    }
    parse_anthropic(&message)
}

/// Gemini finish reasons that mean the model's calls could not be produced.
const GEMINI_CALL_FAILURES: &[(&str, &str)] = &[
    (
        "MALFORMED_FUNCTION_CALL",
        "the model produced a function call Gemini could not parse; nothing to run, ask again",
    ),
    (
        "UNEXPECTED_TOOL_CALL",
        "the model called a tool although none was enabled",
    ),
    (
        "TOO_MANY_TOOL_CALLS",
        "the model made more tool calls than allowed",
    ),
    (
        "MISSING_THOUGHT_SIGNATURE",
        "the request lacked a thought signature from an earlier turn",
    ),
];

fn either<'a>(v: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    v.get(camel).or_else(|| v.get(snake))
}

fn parse_gemini(v: &Value) -> Result<ParsedResponse, ParseError> {
    let candidates = match v.get("candidates") {
        Some(Value::Array(c)) => c,
        None if v.get("promptFeedback").is_some() || v.get("prompt_feedback").is_some() => {
            let fb = either(v, "promptFeedback", "prompt_feedback").unwrap_or(&Value::Null);
            return Ok(ParsedResponse {
                tool_calls: Vec::new(),
                stop_reason: either(fb, "blockReason", "block_reason")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                truncated: false,
                text: Vec::new(),
            });
        }
        _ => return Err(shape(GEMINI_SHAPE, v)),
    };
    let mut out = ParsedResponse {
        tool_calls: Vec::new(),
        stop_reason: None,
        truncated: false,
        text: Vec::new(),
    };
    let Some(cand) = candidates.first() else {
        return Ok(out);
    };
    out.stop_reason = either(cand, "finishReason", "finish_reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    out.truncated = out.stop_reason.as_deref() == Some("MAX_TOKENS");
    let parts = cand
        .get("content")
        .and_then(|c| c.get("parts"))
        .and_then(Value::as_array);
    for part in parts.into_iter().flatten() {
        if let Some(fc) = either(part, "functionCall", "function_call") {
            out.tool_calls.push(ToolCall {
                id: str_field(fc, "id"),
                name: str_field(fc, "name").unwrap_or_default(),
                arguments: object_arguments(fc.get("args")),
                thought_signature: either(part, "thoughtSignature", "thought_signature")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            });
        } else if let Some(t) = part.get("text").and_then(Value::as_str) {
            if part.get("thought") != Some(&Value::Bool(true)) {
                out.text.push(t.to_owned());
            }
        }
    }
    if out.tool_calls.is_empty() {
        if let Some(reason) = &out.stop_reason {
            if let Some((r, m)) = GEMINI_CALL_FAILURES.iter().find(|(r, _)| r == reason) {
                let detail = either(cand, "finishMessage", "finish_message")
                    .and_then(Value::as_str)
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default();
                return Err(ParseError::Provider {
                    reason: (*r).to_owned(),
                    message: format!("{m}{detail}"),
                });
            }
        }
    }
    Ok(out)
}

/// The model turn of a response, in the provider's request format, to put in the
/// conversation before the results: the Chat assistant message with its `tool_calls`, the
/// Responses `function_call` items, the Anthropic assistant message, or the Gemini model
/// content verbatim (its `thoughtSignature`s must go back unchanged).
///
/// # Errors
///
/// [`ParseError`] when the body is not this format's response.
pub fn model_turn(format: Provider, body: &Value) -> Result<Vec<Value>, ParseError> {
    match format.wire() {
        Provider::OpenAi => {
            let msg = body
                .get("choices")
                .and_then(Value::as_array)
                .and_then(|c| c.first())
                .and_then(|c| c.get("message"))
                .ok_or_else(|| shape(CHAT_SHAPE, body))?;
            let mut out = Map::new();
            out.insert("role".into(), json!("assistant"));
            if let Some(c) = msg.get("content").filter(|c| c.is_string()) {
                out.insert("content".into(), c.clone());
            }
            if let Some(calls) = msg.get("tool_calls").and_then(Value::as_array) {
                let calls: Vec<Value> = calls
                    .iter()
                    .map(|tc| {
                        json!({
                            "id": tc.get("id").cloned().unwrap_or(Value::Null),
                            "type": tc.get("type").cloned().unwrap_or(json!("function")),
                            "function": {
                                "name": tc.pointer("/function/name").cloned().unwrap_or(Value::Null),
                                "arguments": tc.pointer("/function/arguments").cloned().unwrap_or(json!("")),
                            }
                        })
                    })
                    .collect();
                out.insert("tool_calls".into(), Value::Array(calls));
            }
            Ok(vec![Value::Object(out)])
        }
        Provider::OpenAiResponses => {
            let items = body
                .get("output")
                .and_then(Value::as_array)
                .ok_or_else(|| shape(RESPONSES_SHAPE, body))?;
            Ok(items
                .iter()
                .filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call"))
                .map(|i| {
                    let mut m = Map::new();
                    for key in ["type", "id", "call_id", "name", "arguments", "status"] {
                        if let Some(v) = i.get(key) {
                            m.insert(key.into(), v.clone());
                        }
                    }
                    Value::Object(m)
                })
                .collect())
        }
        Provider::Anthropic => {
            let content = body
                .get("content")
                .and_then(Value::as_array)
                .ok_or_else(|| shape(ANTHROPIC_SHAPE, body))?;
            let blocks: Vec<Value> = content
                .iter()
                .map(|b| match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        json!({"type": "text", "text": b.get("text").cloned().unwrap_or(json!(""))})
                    }
                    Some("tool_use") => {
                        let mut m = Map::new();
                        for key in ["type", "id", "name", "input", "caller"] {
                            if let Some(v) = b.get(key) {
                                m.insert(key.into(), v.clone());
                            }
                        }
                        Value::Object(m)
                    }
                    _ => b.clone(),
                })
                .collect();
            Ok(vec![json!({"role": "assistant", "content": blocks})])
        }
        Provider::Gemini => {
            let content = body
                .get("candidates")
                .and_then(Value::as_array)
                .and_then(|c| c.first())
                .and_then(|c| c.get("content"))
                .ok_or_else(|| shape(GEMINI_SHAPE, body))?;
            Ok(vec![content.clone()])
        }
        _ => Err(no_model_responses()),
    }
}

/// The outcome of one call, as it goes back to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// Text for the model: command output, or what went wrong.
    pub content: String,
    /// The call failed (refused, invalid, non-zero exit, timeout).
    pub is_error: bool,
    /// The output as JSON, when the command printed a JSON object or array: Gemini's
    /// `functionResponse.response.output` and MCP's `structuredContent` carry it as data;
    /// [`ToolResult::content`] holds the same JSON as text for the other providers.
    pub structured: Option<Value>,
    /// Facts about the run for the application, not the model: exit status, duration, what the
    /// sandbox enforced, how many secrets were redacted (keys in camelCase, e.g. `exitCode`,
    /// `durationMs`, `sandbox`, `redactions`). MCP results carry it as `_meta`; the other
    /// providers' messages leave it out.
    pub meta: Map<String, Value>,
}

impl ToolResult {
    /// A successful result.
    pub fn ok(content: impl Into<String>) -> Self {
        ToolResult {
            content: content.into(),
            is_error: false,
            structured: None,
            meta: Map::new(),
        }
    }

    /// A failed result.
    pub fn error(content: impl Into<String>) -> Self {
        ToolResult {
            content: content.into(),
            is_error: true,
            structured: None,
            meta: Map::new(),
        }
    }
}

/// Why result messages cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultError {
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ResultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ResultError {}

/// The messages that answer every call of one turn, in the provider's request format:
/// `results[i]` answers `calls[i]`. Append them after [`model_turn`].
///
/// OpenAI has no error flag, so a failed result's content starts with `Error: `; Anthropic
/// sets `is_error`; Gemini answers `{"error": …}` instead of `{"output": …}`, and a successful
/// result with [`ToolResult::structured`] JSON as `{"output": <the JSON>}`.
///
/// # Errors
///
/// [`ResultError`] when the counts differ or a call lacks the id OpenAI and Anthropic need.
pub fn result_messages(
    format: Provider,
    calls: &[ToolCall],
    results: &[ToolResult],
) -> Result<Vec<Value>, ResultError> {
    if calls.len() != results.len() {
        return Err(ResultError {
            message: format!(
                "{} calls but {} results: every call must be answered exactly once",
                calls.len(),
                results.len()
            ),
        });
    }
    let need_id = |c: &ToolCall| {
        c.id.clone().ok_or_else(|| ResultError {
            message: format!(
                "call `{}` has no id; {} results must echo one",
                c.name,
                format.as_str()
            ),
        })
    };
    let text = |r: &ToolResult| {
        if r.is_error && !r.content.starts_with("Error") {
            format!("Error: {}", r.content)
        } else {
            r.content.clone()
        }
    };
    match format.wire() {
        Provider::OpenAi => calls
            .iter()
            .zip(results)
            .map(|(c, r)| {
                Ok(json!({"role": "tool", "tool_call_id": need_id(c)?, "content": text(r)}))
            })
            .collect(),
        Provider::OpenAiResponses => calls
            .iter()
            .zip(results)
            .map(|(c, r)| {
                Ok(json!({"type": "function_call_output", "call_id": need_id(c)?, "output": text(r)}))
            })
            .collect(),
        Provider::Anthropic => {
            let blocks = calls
                .iter()
                .zip(results)
                .map(|(c, r)| {
                    let mut b = Map::new();
                    b.insert("type".into(), json!("tool_result"));
                    b.insert("tool_use_id".into(), json!(need_id(c)?));
                    b.insert("content".into(), json!(r.content));
                    if r.is_error {
                        b.insert("is_error".into(), json!(true));
                    }
                    Ok(Value::Object(b))
                })
                .collect::<Result<Vec<_>, ResultError>>()?;
            if blocks.is_empty() {
                return Ok(Vec::new());
            }
            Ok(vec![json!({"role": "user", "content": blocks})])
        }
        Provider::Gemini => {
            let parts: Vec<Value> = calls
                .iter()
                .zip(results)
                .map(|(c, r)| {
                    let mut fr = Map::new();
                    fr.insert("name".into(), json!(c.name));
                    if let Some(id) = &c.id {
                        fr.insert("id".into(), json!(id));
                    }
                    let response = match (&r.structured, r.is_error) {
                        (_, true) => json!({ "error": r.content }),
                        // Gemini's `response` is a JSON object: structured output goes as data.
                        (Some(data), false) => json!({ "output": data }),
                        (None, false) => json!({ "output": r.content }),
                    };
                    fr.insert("response".into(), response);
                    json!({"functionResponse": fr})
                })
                .collect();
            if parts.is_empty() {
                return Ok(Vec::new());
            }
            Ok(vec![json!({"role": "user", "parts": parts})])
        }
        _ => Err(ResultError {
            message: "MCP results are `tools/call` answers (see `mcp::McpServer`), not messages \
                      of a conversation"
                .to_owned(),
        }),
    }
}
