//! What each provider accepts: one table of documented limits, each with its source, and the
//! plan ([`fit`]) by which a definition that would exceed one is degraded — the least
//! important part first — so that no definition a provider rejects is ever written.
//!
//! | limit | OpenAI Chat / Responses | … strict | Anthropic | Gemini | MCP |
//! |---|---|---|---|---|---|
//! | tools per request | 128 | 128 | not documented | 512 | none |
//! | name | `[A-Za-z0-9_-]`, 64 | same | `[A-Za-z0-9_-]`, 128 (64 in older clients) | letter or `_` first, 128 | 128 (SHOULD) |
//! | description | 1,024 characters (soft, enforced 2024–2025) | same | none | none | none |
//! | object properties per schema | not documented | 5,000 | none | none | none |
//! | nesting levels | not documented | 10 | none | none | none |
//! | enum values per schema | not documented | 1,000 | none | none | none |
//! | one string enum of more than 250 values | not documented | ≤ 15,000 characters | none | none | none |
//! | characters of property names, enum and const values | not documented | 120,000 | none | none | none |
//! | enum value types | any JSON | any JSON | any JSON | strings only | any JSON |
//! | recursive `$ref` | JSON Schema | `$defs` with `#` recursion | any JSON Schema | `parametersJsonSchema` only (`parameters` has no `$ref`) | JSON Schema 2020-12 |
//!
//! Sources: OpenAI's Structured Outputs guide ("Supported schemas": property, nesting, enum and
//! size limits) and its API errors `array_above_max_length` (128 tools) and
//! `string_above_max_length` (1,024); the OpenAI SDK's `FunctionDefinition.name` docstring;
//! Anthropic's tool-use documentation (`^[a-zA-Z0-9_-]{1,128}$`); the `google-genai` SDK's
//! `FunctionDeclaration` docstrings (512 declarations, names, string enums,
//! `parametersJsonSchema`); the MCP specification 2025-11-25 (tool names). Generated
//! definitions use the portable name form `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`
//! ([`crate::names`]) and flat schemas (at most three levels: object, property, array items), so
//! the name and nesting limits are met by construction.

use super::provider::Provider;
use crate::tool::ToolSpec;

/// OpenAI's description limit, in characters.
pub const OPENAI_DESCRIPTION_LIMIT: usize = 1024;

/// The documented limits of one provider format; `None` where nothing is documented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Tools one request may carry.
    pub max_tools: Option<usize>,
    /// Characters of a tool name.
    pub max_name_len: usize,
    /// Characters of a tool description.
    pub max_description_chars: Option<usize>,
    /// Object properties in one schema.
    pub max_properties: Option<usize>,
    /// Nesting levels of one schema.
    pub max_nesting: Option<usize>,
    /// Enum values in one schema, all enums together (`null` in a nullable enum counts).
    pub max_enum_values: Option<usize>,
    /// `(values, chars)`: a single string enum of more than `values` values may hold at most
    /// `chars` characters in total.
    pub large_enum: Option<(usize, usize)>,
    /// Characters of property names and enum values in one schema.
    pub max_schema_chars: Option<usize>,
    /// Enum values must be strings (Gemini's `parameters`).
    pub string_enums_only: bool,
    /// The schema form can hold a recursive `$ref`.
    pub recursive_refs: bool,
}

const OPENAI: Limits = Limits {
    max_tools: Some(128),
    max_name_len: 64,
    max_description_chars: Some(OPENAI_DESCRIPTION_LIMIT),
    max_properties: None,
    max_nesting: None,
    max_enum_values: None,
    large_enum: None,
    max_schema_chars: None,
    string_enums_only: false,
    recursive_refs: true,
};

const OPENAI_STRICT: Limits = Limits {
    max_properties: Some(5_000),
    max_nesting: Some(10),
    max_enum_values: Some(1_000),
    large_enum: Some((250, 15_000)),
    max_schema_chars: Some(120_000),
    ..OPENAI
};

const ANTHROPIC: Limits = Limits {
    max_tools: None,
    max_name_len: 128,
    max_description_chars: None,
    max_properties: None,
    max_nesting: None,
    max_enum_values: None,
    large_enum: None,
    max_schema_chars: None,
    string_enums_only: false,
    recursive_refs: true,
};

const GEMINI: Limits = Limits {
    max_tools: Some(512),
    string_enums_only: true,
    recursive_refs: false,
    ..ANTHROPIC
};

const MCP: Limits = ANTHROPIC;

/// The limits of `provider`'s format (see the module documentation for the table and sources).
pub const fn limits(provider: Provider) -> &'static Limits {
    match provider {
        Provider::OpenAi | Provider::OpenAiResponses => &OPENAI,
        Provider::OpenAiStrict | Provider::OpenAiResponsesStrict => &OPENAI_STRICT,
        Provider::Anthropic => &ANTHROPIC,
        Provider::Gemini => &GEMINI,
        Provider::Mcp => &MCP,
    }
}

impl Provider {
    /// The description limit in characters, if the provider enforces one (OpenAI: 1024); from
    /// the table of [`crate::limits`].
    pub const fn description_limit(self) -> Option<usize> {
        limits(self).max_description_chars
    }

    /// The most tools one request may carry, where documented (OpenAI: 128; Gemini SDK: 512);
    /// from the table of [`crate::limits`].
    pub const fn max_tools(self) -> Option<usize> {
        limits(self).max_tools
    }

    /// Every documented limit of this format, with sources: [`crate::limits`].
    pub const fn limits(self) -> &'static Limits {
        limits(self)
    }
}

/// Characters of allowed values listed in the description of an enum sent as plain text.
pub const VALUES_IN_DESCRIPTION: usize = 2_000;

/// How one definition is degraded to fit its provider's limits; [`Fit::default`] when it fits
/// as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fit {
    /// Parameters (indices into [`ToolSpec::params`]) whose enum is sent as a plain value of
    /// its type, with the allowed values in its description (up to
    /// [`VALUES_IN_DESCRIPTION`] characters). Dispatch still accepts only the allowed values.
    pub enums_as_text: Vec<usize>,
    /// The definition is sent without strict mode: it cannot fit even without its enums.
    pub not_strict: bool,
    /// One sentence per degradation, for warnings.
    pub notes: Vec<String>,
}

impl Fit {
    /// Whether nothing had to give.
    pub fn is_exact(&self) -> bool {
        self.enums_as_text.is_empty() && !self.not_strict
    }
}

/// Plans how `spec` fits `provider`: huge enums become plain values first (largest first),
/// and when the schema still does not fit, strict mode is dropped. Only OpenAI's strict
/// formats have schema limits; for every other format the plan is exact.
pub fn fit(spec: &ToolSpec, provider: Provider) -> Fit {
    let l = limits(provider);
    let mut plan = Fit::default();
    let (Some(max_values), Some((big, big_chars)), Some(max_chars), Some(max_props)) = (
        l.max_enum_values,
        l.large_enum,
        l.max_schema_chars,
        l.max_properties,
    ) else {
        return plan;
    };
    let strict = provider.is_strict();
    // (index, values counted, characters) per enum, as the strict schema writes it.
    let mut enums: Vec<(usize, usize, usize)> = spec
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let values = p.values.as_ref()?;
            let null = strict && !p.required && !p.multiple;
            let count = values.len() + usize::from(null);
            let chars = values.iter().map(|v| v.len()).sum::<usize>() + if null { 4 } else { 0 };
            Some((i, count, chars))
        })
        .collect();
    let names: usize = spec.params.iter().map(|p| p.name.len()).sum();
    let mut total_values: usize = enums.iter().map(|e| e.1).sum();
    let mut total_chars: usize = names + enums.iter().map(|e| e.2).sum::<usize>();
    enums.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for &(i, count, chars) in &enums {
        let too_big_alone = count > big && chars > big_chars;
        if !(too_big_alone || total_values > max_values || total_chars > max_chars) {
            continue;
        }
        let p = &spec.params[i];
        plan.notes.push(format!(
            "`{}` parameter `{}`: {count} enum values ({chars} characters) exceed {}'s limits \
             ({max_values} values per schema; {big_chars} characters for an enum of more than \
             {big} values): sent as a plain value with the allowed values in its description",
            spec.name,
            p.name,
            provider.as_str()
        ));
        plan.enums_as_text.push(i);
        total_values -= count;
        total_chars -= chars;
    }
    plan.enums_as_text.sort_unstable();
    if spec.params.len() > max_props || total_chars > max_chars {
        plan.not_strict = true;
        plan.notes.push(format!(
            "`{}`: {} properties and {total_chars} characters of names exceed {}'s limits \
             ({max_props} properties, {max_chars} characters): sent without strict mode",
            spec.name,
            spec.params.len(),
            provider.as_str()
        ));
    }
    plan
}

/// The notes of every definition of `specs` that does not fit `provider` as it is, plus one
/// when there are more tools than one request takes.
pub fn notes<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>, provider: Provider) -> Vec<String> {
    let mut out = Vec::new();
    let mut count = 0;
    for spec in specs {
        count += 1;
        out.extend(fit(spec, provider).notes);
    }
    out.extend(count_note(count, provider));
    out
}

/// The note [`notes`] ends with when `count` tools are more than `provider` takes in one
/// request (OpenAI 128, Gemini 512; see [`Limits::max_tools`]); `None` when they fit.
pub fn count_note(count: usize, provider: Provider) -> Option<String> {
    let max = limits(provider).max_tools?;
    (count > max).then(|| {
        format!(
            "{count} tools: {} takes at most {max} per request; send a subset \
             (providers::select) or group commands (ToolGroup)",
            provider.as_str()
        )
    })
}
