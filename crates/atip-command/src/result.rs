//! The outcome of one call, as it goes back to the model: what every tool set, runner and
//! server produces, before a provider's wire format wraps it (`wire::result_messages`).

use serde_json::{Map, Value};

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
