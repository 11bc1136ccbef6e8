//! Writing a [`CanonicalTool`] as one target's definition.

use serde_json::{Map, Value};

use super::rewrite::{Dialect, Rewriter};
use super::schema::{InstanceType, Schema, SchemaObject, SchemaType};
use super::warning::{ConvertError, Feature, Resolution, Warning};
use super::{pointer, CanonicalTool, Format};
use atip_core::effects::Effects;
use atip_core::names;
use atip_core::providers::{describe, describe_with_flags, write_parts, DefinitionParts, Provider};

/// `tool` as one `to` definition: the schemas rewritten for the target here, the definition's
/// shape written by [`write_parts`], the one writer that `providers::write_definition` uses too.
pub(crate) fn definition(
    tool: &CanonicalTool,
    to: Provider,
    warnings: &mut Vec<Warning>,
) -> Result<Value, ConvertError> {
    let mut w = Writer {
        tool,
        to,
        from: tool.source_format,
        same: tool.source_format == Some(Format::of(to)),
        warnings,
    };
    let name = w.name();
    let input = w.input()?;
    let output = w.output()?;
    w.envelope_losses();
    let description = w.description();
    let meta = &tool.source_meta;
    let input = match to {
        Provider::Gemini if !has_parameters(&input) => None,
        Provider::Gemini => Some(gemini_value(&Schema::from(input))),
        _ => Some(input.to_value()),
    };
    let input = input.map(|v| v.to_string());
    let output = output.map(|v| v.to_string());
    let annotations = meta
        .annotations
        .as_ref()
        .map(|a| Value::Object(a.clone()).to_string());
    let mut parts = DefinitionParts::new(&name);
    parts.description = description.as_deref();
    parts.input_schema = input.as_deref();
    parts.output_schema = output.as_deref();
    parts.strict = match to {
        Provider::OpenAiStrict | Provider::OpenAiResponsesStrict => Some(true),
        Provider::OpenAiResponses => Some(false),
        // A source's own `strict: false` goes back to its own format; `true` only where the
        // target keeps it (see `envelope_losses`).
        Provider::OpenAi if w.same && meta.strict == Some(false) => Some(false),
        Provider::Anthropic if w.same => meta.strict,
        _ => None,
    };
    if to == Provider::Mcp {
        parts.title = meta.title.as_deref();
        parts.annotations = annotations.as_deref();
    }
    let mut text = String::new();
    write_parts(&mut text, to, &parts);
    let mut value: Value = serde_json::from_str(&text).map_err(|e| {
        ConvertError::invalid(
            Format::of(to),
            "",
            format!("the written definition does not read back as JSON: {e}"),
        )
    })?;
    // OpenAI Chat holds the definition's members in `function`.
    let fields = match to {
        Provider::OpenAi | Provider::OpenAiStrict => value.get_mut("function"),
        _ => Some(&mut value),
    };
    if let Some(Value::Object(fields)) = fields {
        w.restore(fields);
        *fields = w.ordered(std::mem::take(fields));
    }
    Ok(value)
}

struct Writer<'a, 'w> {
    tool: &'a CanonicalTool,
    to: Provider,
    from: Option<Format>,
    /// The target is the source's own format: its own fields go back.
    same: bool,
    warnings: &'w mut Vec<Warning>,
}

impl Writer<'_, '_> {
    /// Where a field of the source definition was (`/function/name` for OpenAI Chat).
    fn field_pointer(&self, key: &str) -> String {
        let base = if self.from == Some(Format::OpenAi) {
            format!("{}/function", self.tool.source_meta.origin)
        } else {
            self.tool.source_meta.origin.clone()
        };
        pointer::push(&base, key)
    }

    fn lose(&mut self, pointer: String, feature: Feature, resolution: Resolution) {
        self.warnings.push(Warning::loss(
            feature,
            pointer,
            self.from,
            Some(self.to),
            resolution,
        ));
    }

    /// The description: for ATIP commands with the spec §8.2 safety flags of their effects;
    /// cut to the target's limit (OpenAI: 1024 characters), flags kept whole.
    fn description(&mut self) -> Option<String> {
        let limit = self.to.description_limit();
        let text = self.tool.description.as_deref();
        if self.from == Some(Format::Atip) {
            let meta = &self.tool.source_meta;
            let d = if meta.safety_flags.is_empty() {
                let effects: Effects = meta
                    .effects
                    .as_ref()
                    .and_then(|e| serde_json::from_value(e.clone()).ok())
                    .unwrap_or_default();
                describe(text.unwrap_or(""), &effects, limit)
            } else {
                describe_with_flags(text.unwrap_or(""), &meta.safety_flags, limit)
            };
            return (!d.is_empty()).then_some(d);
        }
        let text = text?;
        match limit {
            Some(limit) if text.chars().count() > limit => {
                self.lose(
                    self.field_pointer("description"),
                    Feature::Field("description".to_owned()),
                    Resolution::Rewritten(format!(
                        "shorter: cut from {} to {limit} characters, the provider's limit",
                        text.chars().count()
                    )),
                );
                Some(describe(text, &Effects::default(), Some(limit)))
            }
            _ => Some(text.to_owned()),
        }
    }

    /// The name, made valid for the target where its rule does not allow it.
    fn name(&mut self) -> String {
        let name = &self.tool.name;
        if valid_name(name, self.to) {
            return name.clone();
        }
        let fixed = names::tool_name::<&str>(name, &[]);
        self.lose(
            self.field_pointer("name"),
            Feature::Name,
            Resolution::Rewritten(format!("as {fixed:?}")),
        );
        fixed
    }

    fn schema_pointer(&self, relative: &str, default: &str) -> String {
        let rel = if relative.is_empty() {
            default
        } else {
            relative
        };
        format!("{}{rel}", self.tool.source_meta.origin)
    }

    fn input(&mut self) -> Result<SchemaObject, ConvertError> {
        let at = self.schema_pointer(&self.tool.source_meta.input_pointer, "/inputSchema");
        let mut rewriter = Rewriter::new(
            Dialect::input(self.to),
            &self.tool.input_schema,
            &at,
            self.from,
            self.to,
            self.warnings,
        );
        rewriter.root(&self.tool.input_schema)
    }

    /// The output schema for targets that take one; reported lost for the others.
    fn output(&mut self) -> Result<Option<Value>, ConvertError> {
        let Some(schema) = &self.tool.output_schema else {
            return Ok(None);
        };
        let at = self.schema_pointer(&self.tool.source_meta.output_pointer, "/outputSchema");
        if self.to.output_schema_key().is_none() {
            self.lose(
                at,
                Feature::Field(output_field(self.from).to_owned()),
                Resolution::Dropped,
            );
            return Ok(None);
        }
        let object = match schema {
            Schema::Object(o) => (**o).clone(),
            Schema::Bool(_) => SchemaObject::default(),
        };
        let mut rewriter = Rewriter::new(
            Dialect::JsonSchema,
            &object,
            &at,
            self.from,
            self.to,
            self.warnings,
        );
        let rewritten = match schema {
            Schema::Object(_) => Schema::from(rewriter.root(&object)?),
            Schema::Bool(b) => Schema::Bool(*b),
        };
        // MCP (2025-11-25) requires an object at the root of `outputSchema`.
        let is_object = rewritten
            .as_object()
            .is_some_and(|o| o.schema_type == Some(SchemaType::Single(InstanceType::Object)));
        if self.to == Provider::Mcp && !is_object {
            self.lose(
                at,
                Feature::Field(output_field(self.from).to_owned()),
                Resolution::Rewritten(
                    "away: MCP output schemas describe objects, this one does not".to_owned(),
                ),
            );
            return Ok(None);
        }
        Ok(Some(rewritten.to_value()))
    }

    /// Fields of the source the target has no place for.
    fn envelope_losses(&mut self) {
        let meta = &self.tool.source_meta;
        // ATIP's title and annotations are derived from its effects, which the description's
        // safety flags carry to every target.
        let derived = self.from == Some(Format::Atip);
        let mut lost: Vec<(String, Feature)> = Vec::new();
        if self.to != Provider::Mcp && !derived {
            if meta.title.is_some() {
                lost.push((self.field_pointer("title"), Feature::Field("title".into())));
            }
            if meta.annotations.is_some() {
                lost.push((
                    self.field_pointer("annotations"),
                    Feature::Field("annotations".into()),
                ));
            }
        }
        if meta.strict == Some(true) {
            let kept = match self.to {
                Provider::OpenAiStrict | Provider::OpenAiResponsesStrict => true,
                Provider::Anthropic => self.same,
                _ => false,
            };
            if !kept {
                lost.push((
                    self.field_pointer("strict"),
                    Feature::Field("strict".into()),
                ));
            }
        }
        if !self.same {
            for key in meta.fields.keys() {
                lost.push((self.field_pointer(key), Feature::Field(key.clone())));
            }
        }
        for (at, feature) in lost {
            self.lose(at, feature, Resolution::Dropped);
        }
    }

    /// The source's own fields, back in their own format.
    fn restore(&self, fields: &mut Map<String, Value>) {
        if !self.same {
            return;
        }
        for (k, v) in &self.tool.source_meta.fields {
            fields.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }

    /// In the source's order when writing its own format.
    fn ordered(&self, mut fields: Map<String, Value>) -> Map<String, Value> {
        if !self.same || self.tool.source_meta.key_order.is_empty() {
            return fields;
        }
        let mut out = Map::new();
        for k in &self.tool.source_meta.key_order {
            if let Some(v) = fields.remove(k) {
                out.insert(k.clone(), v);
            }
        }
        out.extend(fields);
        out
    }
}

/// The source's name for its output schema field.
fn output_field(from: Option<Format>) -> &'static str {
    from.and_then(Format::provider)
        .and_then(Provider::output_schema_key)
        .unwrap_or("outputSchema")
}

/// Whether `name` is allowed by `to`'s naming rule (its length limit from the table of
/// [`atip_core::providers::limits`]).
fn valid_name(name: &str, to: Provider) -> bool {
    let len = name.chars().count();
    let fits = (1..=to.limits().max_name_len).contains(&len);
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    match to {
        Provider::OpenAi
        | Provider::OpenAiStrict
        | Provider::OpenAiResponses
        | Provider::OpenAiResponsesStrict
        | Provider::Anthropic => fits && name.chars().all(plain),
        Provider::Gemini => {
            fits && name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| plain(c) || c == '.' || c == ':')
        }
        Provider::Mcp => fits && name.chars().all(|c| plain(c) || c == '.'),
    }
}

/// Whether a Gemini declaration needs `parameters`: not for an object schema without
/// properties (`{"type": "object"}`, perhaps closed with `additionalProperties: false`).
fn has_parameters(input: &SchemaObject) -> bool {
    let bare = SchemaObject {
        schema_type: Some(SchemaType::Single(InstanceType::Object)),
        ..SchemaObject::default()
    };
    let empty_props = input.properties.as_ref().is_none_or(|p| p.is_empty());
    let mut rest = input.clone();
    rest.properties = None;
    rest.required = None;
    if rest.additional_properties == Some(Schema::Bool(false)) {
        rest.additional_properties = None;
    }
    !(empty_props && rest == bare)
}

/// Gemini spells types in upper case.
fn gemini_value(s: &Schema) -> Value {
    let mut v = s.to_value();
    upper_types(&mut v);
    v
}

fn upper_types(v: &mut Value) {
    let Value::Object(map) = v else { return };
    if let Some(Value::String(t)) = map.get_mut("type") {
        *t = t.to_ascii_uppercase();
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for p in props.values_mut() {
            upper_types(p);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = map.get_mut(key) {
            upper_types(sub);
        }
    }
    if let Some(Value::Array(list)) = map.get_mut("anyOf") {
        for s in list {
            upper_types(s);
        }
    }
}
