//! Streamed responses: tool calls out of a provider's event stream, each available the moment
//! its arguments are complete, and the whole response assembled in the provider's
//! non-streaming shape at the end.
//!
//! Feed the HTTP body to [`StreamBuilder::push`] in chunks of any size, cut anywhere (inside a
//! UTF-8 character, an event or a JSON string); each call returns what the chunk completed —
//! text as it arrives ([`StreamEvent::Text`]) and finished tool calls ([`StreamEvent::Call`]).
//! [`StreamBuilder::finish`] returns the response as the provider would have sent it without
//! streaming, for [`crate::wire::parse_response`] or the turn driver.
//!
//! | provider | wire format | a call is complete when |
//! |---|---|---|
//! | OpenAI Chat | SSE `data:` chunks with `choices[0].delta.tool_calls[]` by `index`, then `data: [DONE]` | a later index starts, or `finish_reason` arrives |
//! | OpenAI Responses | SSE events `response.output_item.added`, `response.function_call_arguments.delta`, `response.output_item.done`, `response.completed` | its `response.output_item.done` |
//! | Anthropic | SSE events `content_block_start`, `content_block_delta` (`input_json_delta`, `text_delta`), `content_block_stop`, `message_delta` | its `content_block_stop` |
//! | Gemini | `streamGenerateContent?alt=sse`: `data:` chunks, each a `GenerateContentResponse` | its chunk (Gemini sends whole calls) |

use serde_json::{json, Map, Value};

use super::error::ParseError;
use crate::command::dispatch::ToolCall;
use crate::Provider;

/// What a chunk of a stream completed.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// Text the model wrote, as it arrived.
    Text(String),
    /// A tool call whose arguments are complete: it can be dispatched (checked, shown,
    /// confirmed) now. Run it only once the stream has ended without being cut short: a
    /// response stopped by the token limit has all its calls refused
    /// ([`crate::wire::ParsedResponse::truncated`]), since the model may have meant more.
    Call(ToolCall),
}

/// Whether a body is a server-sent event stream rather than one JSON response.
pub(crate) fn is_event_stream(body: &str) -> bool {
    let t = body.trim_start();
    t.starts_with("event:") || t.starts_with("data:")
}

/// A whole Anthropic event stream assembled into the Messages response it stands for: the one
/// reading of a stream that parsing and the model's turn both use.
///
/// # Errors
///
/// [`ParseError`] for an unreadable event, a provider error event, or events that are not a
/// Messages stream.
pub(crate) fn anthropic_message(body: &str) -> Result<Value, ParseError> {
    let mut builder = StreamBuilder::new(Provider::Anthropic);
    builder.push(body.as_bytes());
    let message = builder.finish()?;
    if message.get("id").is_none() && message["content"].as_array().is_none_or(Vec::is_empty) {
        return Err(ParseError::Shape {
            expected: super::error::ANTHROPIC_SHAPE,
            found: "found server-sent events without Messages stream events".into(),
        });
    }
    Ok(message)
}

/// Assembles one streamed response; see the module documentation.
#[derive(Debug, Clone)]
pub struct StreamBuilder {
    /// Bytes of an event not yet complete (carriage returns dropped).
    pending: Vec<u8>,
    state: State,
    /// The first unreadable event or provider error, reported by `finish`.
    error: Option<ParseError>,
}

#[derive(Debug, Clone)]
enum State {
    Chat(Chat),
    Responses(Responses),
    Anthropic(Anthropic),
    Gemini(Gemini),
}

impl StreamBuilder {
    /// A builder for `provider`'s stream (strict variants stream like their plain format; MCP
    /// has no model responses and is read as OpenAI Chat).
    pub fn new(provider: Provider) -> Self {
        let state = match provider.wire() {
            Provider::OpenAiResponses => State::Responses(Responses::default()),
            Provider::Anthropic => State::Anthropic(Anthropic::default()),
            Provider::Gemini => State::Gemini(Gemini::default()),
            _ => State::Chat(Chat::default()),
        };
        StreamBuilder {
            pending: Vec::new(),
            state,
            error: None,
        }
    }

    /// Takes the next bytes of the body; returns the text and calls they completed, in order.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<StreamEvent> {
        self.pending.extend(bytes.iter().filter(|b| **b != b'\r'));
        let mut events = Vec::new();
        while let Some(end) = find(&self.pending, b"\n\n") {
            let raw: Vec<u8> = self.pending.drain(..end + 2).collect();
            self.event(&raw[..end], &mut events);
        }
        events
    }

    /// The response as the provider sends it without streaming, after the last chunk; what a
    /// stream that ended early leaves is assembled too (its stop reason then says so, or is
    /// absent).
    ///
    /// # Errors
    ///
    /// [`ParseError`] for an event whose data is not JSON, or an error event from the provider.
    pub fn finish(mut self) -> Result<Value, ParseError> {
        // A last event without its blank line.
        if !self.pending.iter().all(u8::is_ascii_whitespace) {
            let raw = std::mem::take(&mut self.pending);
            let mut ignored = Vec::new();
            self.event(&raw, &mut ignored);
        }
        if let Some(e) = self.error {
            return Err(e);
        }
        Ok(match self.state {
            State::Chat(s) => s.body(),
            State::Responses(s) => s.body(),
            State::Anthropic(s) => s.body(),
            State::Gemini(s) => s.body(),
        })
    }

    /// One SSE event: its `data:` lines joined, read as JSON and handed to the state.
    fn event(&mut self, raw: &[u8], out: &mut Vec<StreamEvent>) {
        let text = String::from_utf8_lossy(raw);
        let mut data = String::new();
        for line in text.split('\n') {
            if let Some(d) = line.strip_prefix("data:") {
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(d.strip_prefix(' ').unwrap_or(d));
            }
        }
        if data.is_empty() {
            return;
        }
        if data.trim() == "[DONE]" {
            if let State::Chat(s) = &mut self.state {
                s.complete_all(out);
            }
            return;
        }
        match serde_json::from_str(&data) {
            Ok(value) => self.value(&value, out),
            Err(e) => {
                self.error.get_or_insert(ParseError::NotJson {
                    message: format!("stream event data is not JSON ({e}): {data}"),
                });
            }
        }
    }

    /// Takes one event whose `data` an SDK has already decoded (async-openai's
    /// `create_stream_byot`, an SSE client of your own); returns what it completed, as
    /// [`StreamBuilder::push`] does. The event's kind is read from its JSON (`type` for
    /// Responses and Anthropic events), so the SSE `event:` line is not needed. OpenAI Chat's
    /// closing `[DONE]` is not JSON and need not be passed: [`StreamBuilder::finish`] completes
    /// what it would have.
    pub fn push_event(&mut self, data: &Value) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        self.value(data, &mut events);
        events
    }

    /// One decoded event, handed to the state.
    fn value(&mut self, value: &Value, out: &mut Vec<StreamEvent>) {
        let result = match &mut self.state {
            State::Chat(s) => {
                s.chunk(value, out);
                Ok(())
            }
            State::Responses(s) => s.event(value, out),
            State::Anthropic(s) => s.event(value, out),
            State::Gemini(s) => {
                s.chunk(value, out);
                Ok(())
            }
        };
        if let Err(e) = result {
            self.error.get_or_insert(e);
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn text_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// OpenAI Chat Completions chunks (`chat.completion.chunk`).
#[derive(Debug, Clone, Default)]
struct Chat {
    head: Map<String, Value>,
    text: Option<String>,
    calls: Vec<ChatCall>,
    /// Calls before this index were reported.
    reported: usize,
    finish_reason: Option<Value>,
}

#[derive(Debug, Clone, Default)]
struct ChatCall {
    index: u64,
    id: Option<String>,
    name: String,
    arguments: String,
}

impl Chat {
    fn chunk(&mut self, v: &Value, out: &mut Vec<StreamEvent>) {
        for key in ["id", "created", "model", "system_fingerprint", "usage"] {
            if let Some(x) = v.get(key).filter(|x| !x.is_null()) {
                self.head.insert(key.to_owned(), x.clone());
            }
        }
        let Some(choice) = v
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return;
        };
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        if let Some(t) = delta.get("content").and_then(Value::as_str) {
            if !t.is_empty() {
                self.text.get_or_insert_with(String::new).push_str(t);
                out.push(StreamEvent::Text(t.to_owned()));
            }
        }
        for tc in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = tc.get("index").and_then(Value::as_u64).unwrap_or(0);
            // A new index means every earlier call is complete.
            if !self.calls.iter().any(|c| c.index == index) {
                self.complete_before(index, out);
                self.calls.push(ChatCall {
                    index,
                    ..ChatCall::default()
                });
            }
            let Some(call) = self.calls.iter_mut().find(|c| c.index == index) else {
                continue;
            };
            if let Some(id) = text_of(tc, "id") {
                call.id = Some(id);
            }
            let f = tc.get("function").unwrap_or(&Value::Null);
            if let Some(n) = f.get("name").and_then(Value::as_str) {
                call.name.push_str(n);
            }
            if let Some(a) = f.get("arguments").and_then(Value::as_str) {
                call.arguments.push_str(a);
            }
        }
        if let Some(fr) = choice.get("finish_reason").filter(|f| !f.is_null()) {
            self.finish_reason = Some(fr.clone());
            self.complete_all(out);
        }
    }

    fn complete_before(&mut self, index: u64, out: &mut Vec<StreamEvent>) {
        while self.reported < self.calls.len() && self.calls[self.reported].index < index {
            out.push(StreamEvent::Call(self.calls[self.reported].to_call()));
            self.reported += 1;
        }
    }

    fn complete_all(&mut self, out: &mut Vec<StreamEvent>) {
        self.complete_before(u64::MAX, out);
    }

    fn body(self) -> Value {
        let mut message = json!({"role": "assistant", "content": self.text});
        if !self.calls.is_empty() {
            message["tool_calls"] = self
                .calls
                .iter()
                .map(|c| {
                    json!({"id": c.id, "type": "function",
                           "function": {"name": c.name, "arguments": c.arguments}})
                })
                .collect();
        }
        let mut body = self.head;
        body.insert("object".into(), json!("chat.completion"));
        body.insert(
            "choices".into(),
            json!([{"index": 0, "message": message,
                    "finish_reason": self.finish_reason.unwrap_or(Value::Null)}]),
        );
        Value::Object(body)
    }
}

impl ChatCall {
    fn to_call(&self) -> ToolCall {
        ToolCall::from_json_text(self.id.clone(), self.name.clone(), &self.arguments)
    }
}

/// OpenAI Responses API events.
#[derive(Debug, Clone, Default)]
struct Responses {
    /// The final response of `response.completed` (or `.incomplete`, `.failed`).
    done: Option<Value>,
    /// The latest response snapshot (`response.created`, `.in_progress`).
    snapshot: Option<Value>,
    /// Finished output items, by `output_index`.
    items: Vec<(u64, Value)>,
}

impl Responses {
    fn event(&mut self, v: &Value, out: &mut Vec<StreamEvent>) -> Result<(), ParseError> {
        match v.get("type").and_then(Value::as_str).unwrap_or_default() {
            "response.output_text.delta" => {
                if let Some(d) = v.get("delta").and_then(Value::as_str) {
                    out.push(StreamEvent::Text(d.to_owned()));
                }
            }
            "response.output_item.done" => {
                let item = v.get("item").cloned().unwrap_or(Value::Null);
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    out.push(StreamEvent::Call(ToolCall::from_json_text(
                        text_of(&item, "call_id"),
                        text_of(&item, "name").unwrap_or_default(),
                        item.get("arguments")
                            .and_then(Value::as_str)
                            .unwrap_or_default(),
                    )));
                }
                let index = v
                    .get("output_index")
                    .and_then(Value::as_u64)
                    .unwrap_or(self.items.len() as u64);
                self.items.push((index, item));
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                self.done = v.get("response").cloned();
            }
            "response.created" | "response.in_progress" => {
                self.snapshot = v.get("response").cloned();
            }
            "error" => {
                return Err(ParseError::Provider {
                    reason: text_of(v, "code").unwrap_or_else(|| "error".into()),
                    message: text_of(v, "message").unwrap_or_default(),
                })
            }
            _ => {}
        }
        Ok(())
    }

    fn body(mut self) -> Value {
        if let Some(done) = self.done {
            return done;
        }
        // The stream ended before `response.completed`: what finished, marked incomplete.
        self.items.sort_by_key(|(i, _)| *i);
        let mut body = match self.snapshot {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        body.insert("object".into(), json!("response"));
        body.insert("status".into(), json!("incomplete"));
        body.insert(
            "output".into(),
            Value::Array(self.items.into_iter().map(|(_, v)| v).collect()),
        );
        Value::Object(body)
    }
}

/// Anthropic Messages stream events.
#[derive(Debug, Clone, Default)]
struct Anthropic {
    message: Map<String, Value>,
    blocks: Vec<(u64, Block)>,
    stop_reason: Option<Value>,
    usage: Option<Value>,
}

#[derive(Debug, Clone)]
struct Block {
    start: Value,
    json: String,
    text: String,
}

impl Anthropic {
    fn event(&mut self, v: &Value, out: &mut Vec<StreamEvent>) -> Result<(), ParseError> {
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        match v.get("type").and_then(Value::as_str).unwrap_or_default() {
            "message_start" => {
                if let Some(Value::Object(m)) = v.get("message") {
                    self.message = m.clone();
                }
            }
            "content_block_start" => {
                let start = v.get("content_block").cloned().unwrap_or(Value::Null);
                let text = text_of(&start, "text").unwrap_or_default();
                if !text.is_empty() {
                    out.push(StreamEvent::Text(text.clone()));
                }
                self.blocks.push((
                    index,
                    Block {
                        start,
                        json: String::new(),
                        text,
                    },
                ));
            }
            "content_block_delta" => {
                let d = v.get("delta").unwrap_or(&Value::Null);
                if let Some((_, b)) = self.blocks.iter_mut().rev().find(|(i, _)| *i == index) {
                    match d.get("type").and_then(Value::as_str) {
                        Some("input_json_delta") => {
                            b.json.push_str(
                                d.get("partial_json").and_then(Value::as_str).unwrap_or(""),
                            );
                        }
                        Some("text_delta") => {
                            let t = d.get("text").and_then(Value::as_str).unwrap_or("");
                            b.text.push_str(t);
                            out.push(StreamEvent::Text(t.to_owned()));
                        }
                        _ => {}
                    }
                }
            }
            "content_block_stop" => {
                if let Some((_, b)) = self.blocks.iter().rev().find(|(i, _)| *i == index) {
                    if b.start.get("type").and_then(Value::as_str) == Some("tool_use") {
                        out.push(StreamEvent::Call(b.to_call()));
                    }
                }
            }
            "message_delta" => {
                if let Some(s) = v.get("delta").and_then(|d| d.get("stop_reason")) {
                    self.stop_reason = Some(s.clone());
                }
                if let Some(u) = v.get("usage") {
                    self.usage = Some(u.clone());
                }
            }
            "error" => {
                let e = v.get("error").unwrap_or(&Value::Null);
                return Err(ParseError::Provider {
                    reason: text_of(e, "type").unwrap_or_else(|| "error".into()),
                    message: text_of(e, "message").unwrap_or_default(),
                });
            }
            _ => {}
        }
        Ok(())
    }

    fn body(self) -> Value {
        let mut message = self.message;
        message.insert("type".into(), json!("message"));
        message.insert("role".into(), json!("assistant"));
        message.insert(
            "content".into(),
            self.blocks.iter().map(|(_, b)| b.to_value()).collect(),
        );
        if let Some(s) = self.stop_reason {
            message.insert("stop_reason".into(), s);
        }
        if let Some(u) = self.usage {
            message.insert("usage".into(), u);
        }
        Value::Object(message)
    }
}

impl Block {
    /// The tool input: the streamed JSON when there is any, else the start block's input.
    /// Streamed JSON that does not parse (a stream cut at `max_tokens`) stays text, which the
    /// response parser reports as unusable arguments with the text kept.
    fn input(&self) -> Value {
        if self.json.trim().is_empty() {
            return self.start.get("input").cloned().unwrap_or(json!({}));
        }
        serde_json::from_str(&self.json).unwrap_or_else(|_| Value::String(self.json.clone()))
    }

    fn to_call(&self) -> ToolCall {
        let arguments = match self.input() {
            Value::Object(m) => Ok(m),
            other => Err(crate::command::dispatch::ArgumentsError {
                raw: Some(self.json.clone()),
                message: format!(
                    "streamed tool input is not a JSON object: {}",
                    crate::diagnostic::describe(&other)
                ),
            }),
        };
        ToolCall {
            id: text_of(&self.start, "id"),
            name: text_of(&self.start, "name").unwrap_or_default(),
            arguments,
            thought_signature: None,
        }
    }

    fn to_value(&self) -> Value {
        let mut block = match &self.start {
            Value::Object(m) => m.clone(),
            _ => Map::new(),
        };
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                block.insert("text".into(), json!(self.text));
            }
            Some(_) if !self.json.is_empty() || block.contains_key("input") => {
                block.insert("input".into(), self.input());
            }
            _ => {}
        }
        Value::Object(block)
    }
}

/// Gemini `streamGenerateContent` chunks.
#[derive(Debug, Clone, Default)]
struct Gemini {
    parts: Vec<Value>,
    finish_reason: Option<Value>,
    rest: Map<String, Value>,
}

impl Gemini {
    fn chunk(&mut self, v: &Value, out: &mut Vec<StreamEvent>) {
        for key in [
            "usageMetadata",
            "modelVersion",
            "responseId",
            "promptFeedback",
        ] {
            if let Some(x) = v.get(key) {
                self.rest.insert(key.to_owned(), x.clone());
            }
        }
        let Some(cand) = v
            .get("candidates")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return;
        };
        if let Some(fr) = cand.get("finishReason") {
            self.finish_reason = Some(fr.clone());
        }
        let parts = cand
            .get("content")
            .and_then(|c| c.get("parts"))
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            if let Some(fc) = part.get("functionCall") {
                let arguments = crate::command::dispatch::arguments_from_value(fc.get("args"));
                out.push(StreamEvent::Call(ToolCall {
                    id: text_of(fc, "id"),
                    name: text_of(fc, "name").unwrap_or_default(),
                    arguments,
                    thought_signature: text_of(part, "thoughtSignature"),
                }));
                self.parts.push(part.clone());
                continue;
            }
            match (
                part.get("text").and_then(Value::as_str),
                self.parts.last_mut(),
            ) {
                // Consecutive text parts (without a signature) are one part.
                (Some(t), Some(last))
                    if part.get("thoughtSignature").is_none()
                        && part.get("thought").is_none()
                        && last.get("functionCall").is_none()
                        && last.get("thought").is_none()
                        && last.get("text").is_some() =>
                {
                    out.push(StreamEvent::Text(t.to_owned()));
                    let joined = format!("{}{t}", last["text"].as_str().unwrap_or_default());
                    last["text"] = json!(joined);
                }
                (Some(t), _) => {
                    // Thought summaries are not the model's answer.
                    if part.get("thought").and_then(Value::as_bool) != Some(true) {
                        out.push(StreamEvent::Text(t.to_owned()));
                    }
                    self.parts.push(part.clone());
                }
                (None, _) => self.parts.push(part.clone()),
            }
        }
    }

    fn body(self) -> Value {
        let mut cand = json!({"content": {"role": "model", "parts": self.parts}, "index": 0});
        if let Some(fr) = self.finish_reason {
            cand["finishReason"] = fr;
        }
        let mut body = self.rest;
        body.insert("candidates".into(), json!([cand]));
        Value::Object(body)
    }
}
