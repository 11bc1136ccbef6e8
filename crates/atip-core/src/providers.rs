//! Tool definitions for each provider's function-calling API, from [`ToolSpec`]s.
//!
//! One function, [`tool_definition`], serves the generator (which embeds its output as
//! `const` JSON text) and the run-time path, so both produce the same bytes. Sources of the
//! rules: ATIP spec §8 and `PROVIDER-RULES.md` (the providers' SDK types and documented limits).
//!
//! * Descriptions end with the safety flags of spec §8.2 rule 1, in the spec's order
//!   (`⚠️ DESTRUCTIVE`, `⚠️ NOT REVERSIBLE`, `⚠️ NOT IDEMPOTENT`, `💰 BILLABLE`,
//!   `🔒 READ-ONLY`), as `"{description} [{flag} | {flag}]"`. OpenAI's 1024-character limit is
//!   met by cutting the text, never the flags.
//! * Types per spec §8.2 rule 4: files, directories and URLs are strings with the format named
//!   in the description; lists are arrays that always carry `items`; defaults are stated in the
//!   description, not as `default` (OpenAI strict mode rejects it).
//! * Every object says `additionalProperties: false` (except for Gemini, whose subset has no
//!   use for it): dispatch refuses unknown parameters, so the schema says so.
//! * OpenAI strict mode: every property is required, optional ones are nullable
//!   (`["string", "null"]`), a nullable enumeration lists `null` among its values.
//! * Gemini gets its OpenAPI subset: upper-case single types, enum values always strings (also
//!   for integers, with `format: "enum"`), no type arrays, no `parameters` for a command without
//!   parameters.
//! * MCP `tools/list` entries carry `title` and `annotations` mapped from effects.

use std::str::FromStr;

use serde_json::{json, Map, Value};

use crate::effects::Effects;
use crate::tool::{ParamSpec, ToolSpec, ValueKind};

/// A provider's tool-definition format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions, `{"type": "function", "function": {…}}`.
    OpenAi,
    /// OpenAI Chat Completions with `strict: true` (Structured Outputs subset).
    OpenAiStrict,
    /// OpenAI Responses API, flat `{"type": "function", "name", …, "strict": false}`.
    OpenAiResponses,
    /// OpenAI Responses API with `strict: true`.
    OpenAiResponsesStrict,
    /// Anthropic Messages, `{"name", "description", "input_schema"}`.
    Anthropic,
    /// Gemini `FunctionDeclaration`s (the entries of `functionDeclarations`).
    Gemini,
    /// MCP `tools/list` entries.
    Mcp,
}

impl Provider {
    /// Every format, in the order of the generated `schemas` constants.
    pub const ALL: [Provider; 7] = [
        Provider::OpenAi,
        Provider::OpenAiStrict,
        Provider::OpenAiResponses,
        Provider::OpenAiResponsesStrict,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Mcp,
    ];

    /// The command-line spelling: `openai`, `openai-strict`, `openai-responses`,
    /// `openai-responses-strict`, `anthropic`, `gemini`, `mcp`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::OpenAiStrict => "openai-strict",
            Provider::OpenAiResponses => "openai-responses",
            Provider::OpenAiResponsesStrict => "openai-responses-strict",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Mcp => "mcp",
        }
    }

    /// The name of the generated constant (`OPENAI_STRICT`).
    pub const fn const_name(self) -> &'static str {
        match self {
            Provider::OpenAi => "OPENAI",
            Provider::OpenAiStrict => "OPENAI_STRICT",
            Provider::OpenAiResponses => "OPENAI_RESPONSES",
            Provider::OpenAiResponsesStrict => "OPENAI_RESPONSES_STRICT",
            Provider::Anthropic => "ANTHROPIC",
            Provider::Gemini => "GEMINI",
            Provider::Mcp => "MCP",
        }
    }

    /// Whether this is an OpenAI strict-mode format.
    pub const fn is_strict(self) -> bool {
        matches!(
            self,
            Provider::OpenAiStrict | Provider::OpenAiResponsesStrict
        )
    }

    /// The wire dialect of responses and results: strict mode is a property of the tool
    /// definitions only, so `OpenAiStrict` speaks `OpenAi` and `OpenAiResponsesStrict` speaks
    /// `OpenAiResponses`; the others are themselves.
    pub const fn wire(self) -> Provider {
        match self {
            Provider::OpenAiStrict => Provider::OpenAi,
            Provider::OpenAiResponsesStrict => Provider::OpenAiResponses,
            other => other,
        }
    }

    /// The member of a tool definition holding the parameters' schema: `parameters` (OpenAI
    /// Chat Completions inside `function`, Responses, Gemini), `input_schema` (Anthropic),
    /// `inputSchema` (MCP).
    pub const fn input_schema_key(self) -> &'static str {
        match self {
            Provider::Anthropic => "input_schema",
            Provider::Mcp => "inputSchema",
            _ => "parameters",
        }
    }

    /// The member of a tool definition holding the result's schema, where the format has one:
    /// `output_schema` (Responses), `responseJsonSchema` (Gemini), `outputSchema` (MCP).
    pub const fn output_schema_key(self) -> Option<&'static str> {
        match self {
            Provider::OpenAiResponses | Provider::OpenAiResponsesStrict => Some("output_schema"),
            Provider::Gemini => Some("responseJsonSchema"),
            Provider::Mcp => Some("outputSchema"),
            _ => None,
        }
    }

    /// The description limit in characters, if the provider enforces one (OpenAI: 1024); from
    /// the table of [`crate::limits`].
    pub const fn description_limit(self) -> Option<usize> {
        crate::limits::limits(self).max_description_chars
    }

    /// The most tools one request may carry, where documented (OpenAI: 128; Gemini SDK: 512);
    /// from the table of [`crate::limits`].
    pub const fn max_tools(self) -> Option<usize> {
        crate::limits::limits(self).max_tools
    }

    /// Every documented limit of this format, with sources: [`crate::limits`].
    pub const fn limits(self) -> &'static crate::limits::Limits {
        crate::limits::limits(self)
    }
}

impl FromStr for Provider {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Provider::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown provider {s:?}: expected one of {}",
                    Provider::ALL.map(Provider::as_str).join(", ")
                )
            })
    }
}

/// OpenAI's description limit, in characters.
pub const OPENAI_DESCRIPTION_LIMIT: usize = 1024;

/// The safety flags of spec §8.2 rule 1 that `effects` calls for, in the spec's order.
pub fn safety_flags(effects: &Effects) -> Vec<&'static str> {
    let mut flags = Vec::new();
    if effects.destructive == Some(true) {
        flags.push("⚠️ DESTRUCTIVE");
    }
    if effects.reversible == Some(false) {
        flags.push("⚠️ NOT REVERSIBLE");
    }
    if effects.idempotent == Some(false) {
        flags.push("⚠️ NOT IDEMPOTENT");
    }
    if effects.billable() == Some(true) {
        flags.push("💰 BILLABLE");
    }
    if is_read_only(effects) {
        flags.push("🔒 READ-ONLY");
    }
    flags
}

/// Spec §8.2 rule 1's read-only: `filesystem.write` and `network` both declared `false` — and
/// nothing that contradicts it: a command declared `destructive: true` or
/// `filesystem.delete: true` is never read-only, whatever its write and network flags say (MCP
/// clients auto-approve tools marked `readOnlyHint`).
pub fn is_read_only(effects: &Effects) -> bool {
    effects.filesystem_write() == Some(false)
        && effects.network == Some(false)
        && effects.destructive != Some(true)
        && effects.filesystem_delete() != Some(true)
}

/// `"{text} [{flags}]"`, cut to `limit` characters by shortening the text (ending it with
/// `...`) so that the flags always survive whole.
pub fn describe(text: &str, effects: &Effects, limit: Option<usize>) -> String {
    let flags = safety_flags(effects);
    let suffix = if flags.is_empty() {
        String::new()
    } else {
        format!("[{}]", flags.join(" | "))
    };
    let text = text.trim();
    let joined_len = |t: usize| {
        if suffix.is_empty() {
            t
        } else if t == 0 {
            suffix.chars().count()
        } else {
            t + 1 + suffix.chars().count()
        }
    };
    let mut body: String = text.to_owned();
    if let Some(limit) = limit {
        if joined_len(text.chars().count()) > limit {
            let room = limit
                .saturating_sub(joined_len(0))
                .saturating_sub(if suffix.is_empty() { 0 } else { 1 });
            body = if room > 3 {
                format!("{}...", cut_graphemes(text, room - 3).trim_end())
            } else {
                String::new()
            };
        }
    }
    match (body.is_empty(), suffix.is_empty()) {
        (_, true) => body,
        (true, false) => suffix,
        (false, false) => format!("{body} {suffix}"),
    }
}

/// The longest prefix of `text` of at most `chars` characters that ends on an extended
/// grapheme cluster boundary (UAX #29), so a cut never splits an emoji, a flag or a letter from
/// its combining marks.
fn cut_graphemes(text: &str, chars: usize) -> &str {
    use unicode_segmentation::UnicodeSegmentation;
    let mut count = 0;
    let mut end = 0;
    for (at, g) in text.grapheme_indices(true) {
        count += g.chars().count();
        if count > chars {
            break;
        }
        end = at + g.len();
    }
    &text[..end]
}

/// The description of a parameter as sent to the model: its text, the format hint (spec §8.2
/// rule 4) and the tool's default.
pub fn param_description(p: &ParamSpec) -> String {
    let mut out = p.description.trim().to_owned();
    if let Some(hint) = p.kind.format_hint() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&format!("({hint})"));
    }
    if let Some(default) = &p.default {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&format!("Default: {default}."));
    }
    out
}

/// The tool definition of `spec` in `provider`'s format.
pub fn tool_definition(spec: &ToolSpec, provider: Provider) -> Value {
    let mut text = String::new();
    write_definition(&mut text, spec, provider);
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// Appends the compact JSON text of [`tool_definition`] to `out`: the one implementation of
/// every provider's shape, written directly (no intermediate `Value`), byte-identical to
/// serialising the `Value` with serde_json.
///
/// A definition that would exceed a documented limit of the format is degraded as
/// [`crate::limits::fit`] plans (huge enums as plain values, then strict mode dropped); the
/// plan's notes are the warnings to show ([`crate::limits::notes`]).
pub fn write_definition(out: &mut String, spec: &ToolSpec, provider: Provider) {
    let description = describe(
        &spec.description,
        &spec.effects,
        provider.description_limit(),
    );
    let fit = crate::limits::fit(spec, provider);
    let strict = provider.is_strict() && !fit.not_strict;
    let schema = |w: &mut JsonOut<'_>, strict: bool| {
        json_schema(w, spec, strict, &fit.enums_as_text);
    };
    let mut w = JsonOut(out);
    match provider {
        Provider::OpenAi | Provider::OpenAiStrict => {
            w.raw("{\"type\":\"function\",\"function\":{\"name\":");
            w.string(&spec.name);
            w.raw(",\"description\":");
            w.string(&description);
            if strict {
                w.raw(",\"strict\":true");
            }
            w.key(provider.input_schema_key());
            schema(&mut w, strict);
            w.raw("}}");
        }
        Provider::OpenAiResponses | Provider::OpenAiResponsesStrict => {
            w.raw("{\"type\":\"function\",\"name\":");
            w.string(&spec.name);
            w.raw(",\"description\":");
            w.string(&description);
            w.key(provider.input_schema_key());
            schema(&mut w, strict);
            w.raw(if strict {
                ",\"strict\":true}"
            } else {
                ",\"strict\":false}"
            });
        }
        Provider::Anthropic => {
            w.raw("{\"name\":");
            w.string(&spec.name);
            w.raw(",\"description\":");
            w.string(&description);
            w.key(provider.input_schema_key());
            schema(&mut w, false);
            w.raw("}");
        }
        Provider::Gemini => {
            w.raw("{\"name\":");
            w.string(&spec.name);
            w.raw(",\"description\":");
            w.string(&description);
            if !spec.params.is_empty() {
                w.key(provider.input_schema_key());
                gemini_schema(&mut w, spec);
            }
            w.raw("}");
        }
        Provider::Mcp => {
            w.raw("{\"name\":");
            w.string(&spec.name);
            w.raw(",\"title\":");
            w.string(&spec.title);
            w.raw(",\"description\":");
            w.string(&description);
            w.key(provider.input_schema_key());
            schema(&mut w, false);
            let ann = mcp_annotations(&spec.effects);
            if !ann.is_empty() {
                w.raw(",\"annotations\":{");
                for (i, (k, v)) in ann.iter().enumerate() {
                    if i > 0 {
                        w.raw(",");
                    }
                    w.string(k);
                    w.raw(if v == &Value::Bool(true) {
                        ":true"
                    } else {
                        ":false"
                    });
                }
                w.raw("}");
            }
            w.raw("}");
        }
    }
}

/// The index of the first byte at or after `from` that a JSON string must escape (`"`, `\\`
/// or a control character), or `bytes.len()`. Eight bytes at a time: a word has such a byte
/// exactly when one of three classic bit tests finds a byte below 0x20, a byte equal to `"`,
/// or a byte equal to `\\`; only then are its bytes looked at one by one.
fn next_escape(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // Bytes of `w` that are zero have their high bit set in the result (and no byte is
    // flagged when none is zero).
    let zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGH;
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let w = u64::from_ne_bytes(chunk.try_into().unwrap_or([0; 8]));
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        if control | zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\'))) != 0 {
            break;
        }
        i += 8;
    }
    bytes[i..]
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .map_or(bytes.len(), |p| i + p)
}

/// Compact JSON written straight into a `String`, escaped as serde_json escapes.
struct JsonOut<'a>(&'a mut String);

impl JsonOut<'_> {
    fn raw(&mut self, s: &str) {
        self.0.push_str(s);
    }

    /// `,"key":` after an earlier member (keys are plain ASCII).
    fn key(&mut self, key: &str) {
        self.0.push_str(",\"");
        self.0.push_str(key);
        self.0.push_str("\":");
    }

    /// A JSON string: `"` and `\\` escaped, control characters as `\b \t \n \f \r` or
    /// `\u00XX`, everything else (non-ASCII included) as it is.
    fn string(&mut self, s: &str) {
        self.0.push('"');
        let bytes = s.as_bytes();
        let mut start = 0;
        loop {
            let i = next_escape(bytes, start);
            self.0.push_str(&s[start..i]);
            let Some(&b) = bytes.get(i) else { break };
            match b {
                b'"' => self.0.push_str("\\\""),
                b'\\' => self.0.push_str("\\\\"),
                b'\n' => self.0.push_str("\\n"),
                b'\r' => self.0.push_str("\\r"),
                b'\t' => self.0.push_str("\\t"),
                0x08 => self.0.push_str("\\b"),
                0x0c => self.0.push_str("\\f"),
                _ => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    self.0.push_str("\\u00");
                    self.0.push(HEX[(b >> 4) as usize] as char);
                    self.0.push(HEX[(b & 0xf) as usize] as char);
                }
            }
            start = i + 1;
        }
        self.0.push('"');
    }

    /// `"type"` as one type, or `[type, "null"]`.
    fn type_value(&mut self, ty: &str, nullable: bool) {
        if nullable {
            self.raw("[");
            self.string(ty);
            self.raw(",\"null\"]");
        } else {
            self.string(ty);
        }
    }
}

/// The definitions of `specs`, as a JSON array, in the given order.
pub fn tool_definitions<'a>(
    specs: impl IntoIterator<Item = &'a ToolSpec>,
    provider: Provider,
) -> Value {
    Value::Array(
        specs
            .into_iter()
            .map(|s| tool_definition(s, provider))
            .collect(),
    )
}

/// Compact JSON text of [`tool_definitions`], written directly (no [`Value`] tree): what a
/// generated module's `definitions(provider)` returns and its optional `schemas` constants
/// hold.
pub fn tool_definitions_json<'a>(
    specs: impl IntoIterator<Item = &'a ToolSpec>,
    provider: Provider,
) -> String {
    let mut out = String::from("[");
    for (i, spec) in specs.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_definition(&mut out, spec, provider);
    }
    out.push(']');
    out
}

/// The specs called `names`, in the order of `names` (e.g. to stay under a provider's tool
/// limit, see [`Provider::max_tools`]).
///
/// # Errors
///
/// The names that match no spec.
pub fn select<'a>(tools: &'a [ToolSpec], names: &[&str]) -> Result<Vec<&'a ToolSpec>, Vec<String>> {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for n in names {
        match tools.iter().find(|t| t.name == *n) {
            Some(t) => out.push(t),
            None => missing.push((*n).to_owned()),
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(missing)
    }
}

/// MCP tool annotations from effects (MCP spec `ToolAnnotations`): `readOnlyHint` from spec
/// §8.2 rule 1's read-only ([`is_read_only`]), `destructiveHint` from `destructive` (left out
/// when read-only, which a destructive command never is),
/// `idempotentHint` from `idempotent`, `openWorldHint` from `network`. Unknown effects leave
/// the hint out, so MCP's conservative defaults apply.
pub fn mcp_annotations(effects: &Effects) -> Map<String, Value> {
    let mut ann = Map::new();
    let read_only = is_read_only(effects);
    if read_only {
        ann.insert("readOnlyHint".into(), json!(true));
    } else if effects.filesystem_write() == Some(true)
        || effects.filesystem_delete() == Some(true)
        || effects.destructive == Some(true)
    {
        ann.insert("readOnlyHint".into(), json!(false));
    }
    if let (Some(d), false) = (effects.destructive, read_only) {
        ann.insert("destructiveHint".into(), json!(d));
    }
    if let Some(i) = effects.idempotent {
        ann.insert("idempotentHint".into(), json!(i));
    }
    if let Some(n) = effects.network {
        ann.insert("openWorldHint".into(), json!(n));
    }
    ann
}

/// JSON Schema for the parameters; `strict` applies OpenAI's strict-mode rules.
/// The JSON Schema of `spec`'s parameters; those in `as_text` (sorted indices) lose their
/// `enum` and list the allowed values in their description instead.
fn json_schema(w: &mut JsonOut<'_>, spec: &ToolSpec, strict: bool, as_text: &[usize]) {
    w.raw("{\"type\":\"object\",\"properties\":{");
    for (i, p) in spec.params.iter().enumerate() {
        if i > 0 {
            w.raw(",");
        }
        w.string(&p.name);
        w.raw(":");
        json_param(
            w,
            p,
            strict && !p.required,
            as_text.binary_search(&i).is_ok(),
        );
    }
    w.raw("}");
    if strict || spec.params.iter().any(|p| p.required) {
        w.raw(",\"required\":[");
        let mut first = true;
        for p in spec.params.iter().filter(|p| strict || p.required) {
            if !first {
                w.raw(",");
            }
            first = false;
            w.string(&p.name);
        }
        w.raw("]");
    }
    w.raw(",\"additionalProperties\":false}");
}

fn json_param(w: &mut JsonOut<'_>, p: &ParamSpec, nullable: bool, as_text: bool) {
    if p.multiple {
        w.raw("{\"type\":");
        w.type_value("array", nullable);
        w.raw(",\"items\":{");
        json_value_schema(w, p, false, as_text);
        w.raw("}");
    } else {
        w.raw("{");
        json_value_schema(w, p, nullable, as_text);
    }
    let mut text = param_description(p);
    if as_text {
        values_in_description(&mut text, p);
    }
    if !text.is_empty() {
        w.raw(",\"description\":");
        w.string(&text);
    }
    w.raw("}");
}

/// The members of the schema of one value (an array's `items`, or a scalar parameter).
fn json_value_schema(w: &mut JsonOut<'_>, p: &ParamSpec, nullable: bool, as_text: bool) {
    w.raw("\"type\":");
    w.type_value(p.kind.json_type(), nullable);
    if let Some(values) = p.values.as_ref().filter(|_| !as_text) {
        w.raw(",\"enum\":[");
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                w.raw(",");
            }
            typed_value(w, p.kind, v);
        }
        if nullable {
            w.raw(if values.is_empty() { "null" } else { ",null" });
        }
        w.raw("]");
    }
}

/// Appends ` One of: a, b, … (and N more).` to `text`, the values up to
/// [`crate::limits::VALUES_IN_DESCRIPTION`] characters: an enum too large for the provider's
/// schema limits, sent as a plain value.
fn values_in_description(text: &mut String, p: &ParamSpec) {
    let Some(values) = &p.values else {
        return;
    };
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str("One of: ");
    let start = text.len();
    let mut listed = 0;
    for v in values.iter() {
        if text.len() - start + v.len() + 2 > crate::limits::VALUES_IN_DESCRIPTION {
            break;
        }
        if listed > 0 {
            text.push_str(", ");
        }
        text.push_str(v);
        listed += 1;
    }
    if listed < values.len() {
        text.push_str(&format!(" (and {} more)", values.len() - listed));
    }
    text.push('.');
}

/// An allowed value as JSON: numbers for integer and number parameters, strings otherwise.
fn typed_value(w: &mut JsonOut<'_>, kind: ValueKind, text: &str) {
    if let ValueKind::Integer | ValueKind::Number = kind {
        if let Ok(n) = serde_json::from_str::<serde_json::Number>(text) {
            w.raw(&n.to_string());
            return;
        }
    }
    w.string(text);
}

/// Gemini's OpenAPI-subset schema (`FunctionDeclaration.parameters`).
fn gemini_schema(w: &mut JsonOut<'_>, spec: &ToolSpec) {
    w.raw("{\"type\":\"OBJECT\",\"properties\":{");
    for (i, p) in spec.params.iter().enumerate() {
        if i > 0 {
            w.raw(",");
        }
        w.string(&p.name);
        w.raw(":{\"type\":");
        let item = |w: &mut JsonOut<'_>| {
            w.string(gemini_type(p.kind));
            if let Some(values) = &p.values {
                w.raw(",\"format\":\"enum\",\"enum\":[");
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        w.raw(",");
                    }
                    w.string(v);
                }
                w.raw("]");
            }
        };
        if p.multiple {
            w.raw("\"ARRAY\",\"items\":{\"type\":");
            item(w);
            w.raw("}");
        } else {
            item(w);
        }
        let text = param_description(p);
        if !text.is_empty() {
            w.raw(",\"description\":");
            w.string(&text);
        }
        w.raw("}");
    }
    w.raw("}");
    if spec.params.iter().any(|p| p.required) {
        w.raw(",\"required\":[");
        let mut first = true;
        for p in spec.params.iter().filter(|p| p.required) {
            if !first {
                w.raw(",");
            }
            first = false;
            w.string(&p.name);
        }
        w.raw("]");
    }
    w.raw("}");
}

fn gemini_type(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::Integer => "INTEGER",
        ValueKind::Number => "NUMBER",
        ValueKind::Boolean => "BOOLEAN",
        _ => "STRING",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let all_controls: String = (0u8..0x20).map(char::from).collect();
        for s in [
            "plain",
            "quote \" and \\ backslash",
            all_controls.as_str(),
            "\u{7f} é ☃ 😀 \u{2028}",
            "",
        ] {
            let mut out = String::new();
            JsonOut(&mut out).string(s);
            assert_eq!(out, serde_json::to_string(s).unwrap());
        }
        // The word-at-a-time scan: every character that needs escaping, at every offset of
        // texts longer than a word, next to multi-byte characters and bytes just above the
        // control range.
        let specials: Vec<char> = (0u8..0x20).map(char::from).chain(['"', '\\']).collect();
        for base in [
            "abcdefghijklmnopqrstuvwx",
            "é☃😀 !#~\u{7f}é☃😀 !#~",
            "        ",
        ] {
            let chars: Vec<char> = base.chars().collect();
            for special in &specials {
                for at in 0..=chars.len() {
                    let mut t: String = chars[..at].iter().collect();
                    t.push(*special);
                    t.extend(&chars[at..]);
                    t.push(*special);
                    let mut out = String::new();
                    JsonOut(&mut out).string(&t);
                    assert_eq!(out, serde_json::to_string(&t).unwrap(), "{t:?}");
                }
            }
            let mut out = String::new();
            JsonOut(&mut out).string(base);
            assert_eq!(out, serde_json::to_string(base).unwrap());
        }
    }
    use std::borrow::Cow;

    fn effects(json: &str) -> Effects {
        serde_json::from_str(json).unwrap()
    }

    fn param(name: &'static str, kind: ValueKind, required: bool) -> ParamSpec {
        let p = ParamSpec::option(name, "d", kind, "--x");
        if required {
            p.required()
        } else {
            p
        }
    }

    fn spec(params: Vec<ParamSpec>, effects: Effects) -> ToolSpec {
        ToolSpec {
            name: "gh_pr_list".into(),
            title: "gh pr list".into(),
            path: Cow::Owned(vec!["pr".into(), "list".into()]),
            description: "List pull requests".into(),
            effects,
            params: Cow::Owned(params),
        }
    }

    #[test]
    fn flags_follow_the_spec_order() {
        let e = effects(
            r#"{"destructive": true, "reversible": false, "idempotent": false, "cost": {"billable": true}}"#,
        );
        assert_eq!(
            describe("Delete a repository", &e, None),
            "Delete a repository [⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE | ⚠️ NOT IDEMPOTENT | 💰 BILLABLE]"
        );
        let ro = effects(r#"{"filesystem": {"write": false}, "network": false}"#);
        assert_eq!(describe("Show", &ro, None), "Show [🔒 READ-ONLY]");
        assert_eq!(describe("Plain", &Effects::UNKNOWN, None), "Plain");
        let half = effects(r#"{"filesystem": {"write": false}}"#);
        assert_eq!(
            describe("Show", &half, None),
            "Show",
            "network unknown: not read-only"
        );
    }

    #[test]
    fn destructive_or_deleting_commands_are_never_read_only() {
        // The lie of issue 12: no writes, no network, yet destructive.
        for e in [
            r#"{"destructive": true, "filesystem": {"write": false}, "network": false}"#,
            r#"{"filesystem": {"write": false, "delete": true}, "network": false}"#,
        ] {
            let e = effects(e);
            assert!(!is_read_only(&e), "{e:?}");
            assert!(!describe("Drop", &e, None).contains("READ-ONLY"));
            let ann = mcp_annotations(&e);
            assert_eq!(ann.get("readOnlyHint"), Some(&json!(false)), "{ann:?}");
        }
        let lying =
            effects(r#"{"destructive": true, "filesystem": {"write": false}, "network": false}"#);
        assert_eq!(
            mcp_annotations(&lying).get("destructiveHint"),
            Some(&json!(true))
        );
        let honest = effects(
            r#"{"destructive": false, "filesystem": {"write": false, "delete": false}, "network": false}"#,
        );
        assert!(is_read_only(&honest));
        assert_eq!(
            mcp_annotations(&honest).get("readOnlyHint"),
            Some(&json!(true))
        );
    }

    #[test]
    fn a_cut_never_splits_a_grapheme_cluster() {
        let e = effects(r#"{"destructive": true}"#);
        // A family emoji is 7 chars (4 people joined by 3 ZWJs); an "e" with a combining acute
        // accent is 2. Whatever the limit, the text before "..." ends on a cluster boundary.
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}";
        let text = format!("{}{}", "e\u{301}".repeat(300), family.repeat(200));
        for limit in 40..1024 {
            let d = describe(&text, &e, Some(limit));
            assert!(d.chars().count() <= limit, "{limit}");
            let body = d.strip_suffix("... [⚠️ DESTRUCTIVE]").expect("flags kept");
            assert!(text.starts_with(body));
            let rest = &text[body.len()..];
            assert!(
                rest.starts_with("e\u{301}") || rest.starts_with(family),
                "limit {limit} split a cluster: {:?}",
                rest.chars().take(3).collect::<String>()
            );
        }
    }

    #[test]
    fn truncation_cuts_the_text_and_keeps_the_flags() {
        let e = effects(r#"{"destructive": true, "reversible": false}"#);
        let long = "word ".repeat(400);
        let d = describe(&long, &e, Some(1024));
        assert!(
            d.chars().count() <= 1024 && d.chars().count() > 1000,
            "{}",
            d.chars().count()
        );
        assert!(
            d.ends_with("... [⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE]"),
            "{d}"
        );
        // Emoji and multi-byte text count as characters, not bytes.
        let wide = "é".repeat(2000);
        let d = describe(&wide, &e, Some(1024));
        assert!(d.chars().count() <= 1024);
        assert!(d.ends_with("[⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE]"));
        // Short text is untouched.
        assert_eq!(
            describe("x", &e, Some(1024)),
            "x [⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE]"
        );
    }

    #[test]
    fn strict_mode_makes_optional_nullable_and_everything_required() {
        let mut state = param("state", ValueKind::Enum, false);
        state.values = Some(Cow::Owned(vec!["open".into(), "closed".into()]));
        let mut labels = param("label", ValueKind::String, false);
        labels.multiple = true;
        let s = spec(
            vec![param("repo", ValueKind::String, true), state, labels],
            Effects::UNKNOWN,
        );
        let v = tool_definition(&s, Provider::OpenAiStrict);
        assert_eq!(
            v["function"]["parameters"],
            json!({
                "type": "object",
                "properties": {
                    "repo": {"type": "string", "description": "d"},
                    "state": {"type": ["string", "null"], "enum": ["open", "closed", null], "description": "d"},
                    "label": {"type": ["array", "null"], "items": {"type": "string"}, "description": "d"}
                },
                "required": ["repo", "state", "label"],
                "additionalProperties": false
            })
        );
        assert_eq!(v["function"]["strict"], json!(true));
        let plain = tool_definition(&s, Provider::OpenAi);
        assert_eq!(plain["function"]["parameters"]["required"], json!(["repo"]));
        assert_eq!(
            plain["function"]["parameters"]["properties"]["state"]["type"],
            json!("string")
        );
        assert!(plain["function"].get("strict").is_none());
    }

    #[test]
    fn responses_api_always_says_strict() {
        let s = spec(vec![], Effects::UNKNOWN);
        assert_eq!(
            tool_definition(&s, Provider::OpenAiResponses)["strict"],
            json!(false)
        );
        assert_eq!(
            tool_definition(&s, Provider::OpenAiResponsesStrict)["strict"],
            json!(true)
        );
        assert_eq!(
            tool_definition(&s, Provider::OpenAiResponsesStrict)["parameters"],
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
    }

    #[test]
    fn gemini_gets_its_subset() {
        let mut level = param("level", ValueKind::Integer, false);
        level.values = Some(Cow::Owned(vec!["1".into(), "2".into()]));
        let mut files = param("files", ValueKind::File, true);
        files.multiple = true;
        let s = spec(vec![level, files], Effects::UNKNOWN);
        assert_eq!(
            tool_definition(&s, Provider::Gemini),
            json!({
                "name": "gh_pr_list",
                "description": "List pull requests",
                "parameters": {
                    "type": "OBJECT",
                    "properties": {
                        "level": {"type": "INTEGER", "format": "enum", "enum": ["1", "2"], "description": "d"},
                        "files": {"type": "ARRAY", "items": {"type": "STRING"}, "description": "d (file path)"}
                    },
                    "required": ["files"]
                }
            })
        );
        let none = spec(vec![], Effects::UNKNOWN);
        assert!(tool_definition(&none, Provider::Gemini)
            .get("parameters")
            .is_none());
        // Other providers get numbers for integer enums.
        let v = tool_definition(&s, Provider::Anthropic);
        assert_eq!(
            v["input_schema"]["properties"]["level"]["enum"],
            json!([1, 2])
        );
    }

    #[test]
    fn mcp_annotations_map_effects() {
        let e = effects(r#"{"destructive": true, "idempotent": true, "network": true}"#);
        let s = spec(vec![], e);
        let v = tool_definition(&s, Provider::Mcp);
        assert_eq!(v["title"], json!("gh pr list"));
        assert_eq!(
            v["annotations"],
            json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": true})
        );
        let ro = spec(
            vec![],
            effects(r#"{"filesystem": {"write": false}, "network": false, "destructive": false}"#),
        );
        assert_eq!(
            tool_definition(&ro, Provider::Mcp)["annotations"],
            json!({"readOnlyHint": true, "openWorldHint": false})
        );
        let unknown = spec(vec![], Effects::UNKNOWN);
        assert!(tool_definition(&unknown, Provider::Mcp)
            .get("annotations")
            .is_none());
    }

    #[test]
    fn parameter_descriptions_carry_format_and_default() {
        let mut p = param("out", ValueKind::File, false);
        p.default = Some("a.txt".into());
        assert_eq!(param_description(&p), "d (file path) Default: a.txt.");
        let mut u = param("u", ValueKind::Url, false);
        u.description = "".into();
        assert_eq!(param_description(&u), "(URL)");
    }

    #[test]
    fn array_text_is_the_serialised_array() {
        let a = spec(vec![param("x", ValueKind::String, true)], Effects::UNKNOWN);
        let mut b = spec(vec![], effects(r#"{"destructive": true}"#));
        b.name = "gh_repo_delete".into();
        for p in Provider::ALL {
            let text = tool_definitions_json([&a, &b], p);
            assert_eq!(text, tool_definitions([&a, &b], p).to_string());
            let mut one = String::new();
            write_definition(&mut one, &b, p);
            assert_eq!(one, tool_definition(&b, p).to_string());
        }
        assert_eq!(tool_definitions_json([], Provider::Mcp), "[]");
        let tools = [a, b];
        assert_eq!(
            select(&tools, &["gh_repo_delete"]).unwrap()[0].name,
            "gh_repo_delete"
        );
        assert_eq!(
            select(&tools, &["nope", "gh_pr_list"]).unwrap_err(),
            ["nope"]
        );
    }

    #[test]
    fn provider_names_round_trip() {
        for p in Provider::ALL {
            assert_eq!(p.as_str().parse::<Provider>().unwrap(), p);
        }
        assert!("open-ai"
            .parse::<Provider>()
            .unwrap_err()
            .contains("expected one of openai"));
    }
}
