//! The model's own turn, echoed back into the conversation before the results (spec §7).

use serde_json::{json, Map, Value};

use super::error::{
    no_model_responses, shape, ParseError, ANTHROPIC_SHAPE, CHAT_SHAPE, GEMINI_SHAPE,
    RESPONSES_SHAPE,
};
use crate::Provider;

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

/// [`model_turn`] of a response body as it arrived: JSON, or for Anthropic an event stream,
/// which is first assembled into the message it stands for.
///
/// # Errors
///
/// [`ParseError`] when the body is not this format's response.
pub fn model_turn_text(format: Provider, body: &str) -> Result<Vec<Value>, ParseError> {
    if format.wire() == Provider::Anthropic && super::stream::is_event_stream(body) {
        return model_turn(format, &super::stream::anthropic_message(body)?);
    }
    let value: Value = serde_json::from_str(body).map_err(|e| ParseError::NotJson {
        message: e.to_string(),
    })?;
    model_turn(format, &value)
}
