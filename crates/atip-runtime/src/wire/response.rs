//! Tool calls out of a provider's response (spec §7): [`parse_response`] for a body as it
//! arrived (Anthropic event streams too), [`parse_response_value`] for parsed JSON.

use serde_json::Value;

use super::error::{
    no_model_responses, shape, ParseError, ANTHROPIC_SHAPE, CHAT_SHAPE, GEMINI_SHAPE,
    RESPONSES_SHAPE,
};
use super::stream::{anthropic_message, is_event_stream};
use crate::command::dispatch::{arguments_from_value, ArgumentsError, ToolCall};
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
    if format == Provider::Anthropic && is_event_stream(body) {
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
                arguments: arguments_from_value(b.get("input")),
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

/// Anthropic's streamed form, read as the message it stands for.
fn parse_anthropic_sse(body: &str) -> Result<ParsedResponse, ParseError> {
    parse_anthropic(&anthropic_message(body)?)
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
                arguments: arguments_from_value(fc.get("args")),
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
