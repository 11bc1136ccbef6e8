//! Why a model response could not be read: [`ParseError`], and the shapes each format is
//! expected to have, named in its messages.

use std::fmt;

use serde_json::Value;

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

pub(super) const CHAT_SHAPE: &str =
    "an OpenAI Chat Completions response (an object with a `choices` array)";
pub(super) const RESPONSES_SHAPE: &str =
    "an OpenAI Responses API response (an object with an `output` array)";
pub(super) const ANTHROPIC_SHAPE: &str =
    "an Anthropic Messages response (an object with a `content` array, or an SSE stream)";
pub(super) const GEMINI_SHAPE: &str =
    "a Gemini generateContent response (an object with a `candidates` array)";

/// The error for asking MCP for a model response: MCP clients call tools; they send no
/// model responses to parse.
pub(super) fn no_model_responses() -> ParseError {
    ParseError::Shape {
        expected: "a model response of OpenAI, Anthropic or Gemini",
        found: "the MCP dialect, which has tool calls (`tools/call`) but no model responses"
            .to_owned(),
    }
}

pub(super) fn shape(expected: &'static str, found: &Value) -> ParseError {
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
