//! The provider formats: [`Provider`], its names and where its definitions keep their
//! schemas. What each format accepts is in [`super::limits`].

use std::str::FromStr;

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

#[cfg(test)]
mod tests {
    use super::*;

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
