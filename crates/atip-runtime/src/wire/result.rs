//! Tool results back into each provider's request format (spec §7).

use std::fmt;

use serde_json::{json, Map, Value};

use crate::command::dispatch::ToolCall;
use crate::command::ToolResult;
use crate::Provider;

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
/// `results[i]` answers `calls[i]`. Append them after [`model_turn`](super::model_turn).
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
