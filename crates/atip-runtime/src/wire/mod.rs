//! Provider wire formats: the function-calling lifecycle around a command (spec §7) — tool
//! calls out of a provider's response, the model's turn echoed back, and tool results back
//! into that provider's request format.
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
//!
//! Rooms: [`response`] (calls out of a response), [`turn`] (the model's turn echoed back),
//! [`result`] (results back in), [`stream`] (responses as they stream), [`prompt`] (the
//! safety section of a system prompt), [`error`] (why a response could not be read).

pub mod error;
pub mod prompt;
pub mod response;
pub mod result;
pub mod stream;
pub mod turn;

pub use error::ParseError;
pub use prompt::safety_prompt;
pub use response::{parse_response, parse_response_value, ParsedResponse};
pub use result::{result_messages, ResultError};
pub use stream::{StreamBuilder, StreamEvent};
pub use turn::{model_turn, model_turn_text};
