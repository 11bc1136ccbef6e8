//! Writing a [`CanonicalTool`] as one target's definition.

use serde_json::{json, Map, Value};

use super::rewrite::{Dialect, Rewriter};
use super::schema::{InstanceType, Schema, SchemaObject, SchemaType};
use super::warning::{ConvertError, Feature, Resolution, Warning};
use super::{pointer, CanonicalTool, Format};
use crate::effects::Effects;
use crate::names;
use crate::providers::{describe, Provider};

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
    let mut fields = Map::new();
    let description = w.description().map(Value::String);
    // Where the target keeps an output schema (`output` is `None` for the others).
    let output_key = to.output_schema_key().unwrap_or("outputSchema");
    let value = match to {
        Provider::Mcp => {
            fields.insert("name".into(), json!(name));
            if let Some(t) = &tool.source_meta.title {
                fields.insert("title".into(), json!(t));
            }
            put(&mut fields, "description", description);
            fields.insert(to.input_schema_key().into(), input.to_value());
            put(&mut fields, output_key, output);
            if let Some(a) = &tool.source_meta.annotations {
                fields.insert("annotations".into(), Value::Object(a.clone()));
            }
            w.restore(&mut fields);
            Value::Object(w.ordered(fields))
        }
        Provider::OpenAi | Provider::OpenAiStrict => {
            fields.insert("name".into(), json!(name));
            put(&mut fields, "description", description);
            fields.insert(to.input_schema_key().into(), input.to_value());
            if to == Provider::OpenAiStrict {
                fields.insert("strict".into(), json!(true));
            } else if w.same && tool.source_meta.strict == Some(false) {
                fields.insert("strict".into(), json!(false));
            }
            w.restore(&mut fields);
            json!({"type": "function", "function": w.ordered(fields)})
        }
        Provider::OpenAiResponses | Provider::OpenAiResponsesStrict => {
            fields.insert("type".into(), json!("function"));
            fields.insert("name".into(), json!(name));
            put(&mut fields, "description", description);
            fields.insert(to.input_schema_key().into(), input.to_value());
            fields.insert(
                "strict".into(),
                json!(to == Provider::OpenAiResponsesStrict),
            );
            put(&mut fields, output_key, output);
            w.restore(&mut fields);
            Value::Object(w.ordered(fields))
        }
        Provider::Anthropic => {
            fields.insert("name".into(), json!(name));
            put(&mut fields, "description", description);
            fields.insert(to.input_schema_key().into(), input.to_value());
            if w.same {
                if let Some(s) = tool.source_meta.strict {
                    fields.insert("strict".into(), json!(s));
                }
            }
            w.restore(&mut fields);
            Value::Object(w.ordered(fields))
        }
        Provider::Gemini => {
            fields.insert("name".into(), json!(name));
            put(&mut fields, "description", description);
            if has_parameters(&input) {
                fields.insert(
                    to.input_schema_key().into(),
                    gemini_value(&Schema::from(input)),
                );
            }
            put(&mut fields, output_key, output);
            w.restore(&mut fields);
            Value::Object(w.ordered(fields))
        }
    };
    Ok(value)
}

fn put(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(v) = value {
        map.insert(key.to_owned(), v);
    }
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
            feature, pointer, self.from, self.to, resolution,
        ));
    }

    /// The description: for ATIP commands with the spec §8.2 safety flags of their effects;
    /// cut to the target's limit (OpenAI: 1024 characters), flags kept whole.
    fn description(&mut self) -> Option<String> {
        let limit = self.to.description_limit();
        let text = self.tool.description.as_deref();
        if self.from == Some(Format::Atip) {
            let effects: Effects = self
                .tool
                .source_meta
                .effects
                .as_ref()
                .and_then(|e| serde_json::from_value(e.clone()).ok())
                .unwrap_or_default();
            let d = describe(text.unwrap_or(""), &effects, limit);
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
        let takes = matches!(
            self.to,
            Provider::Mcp
                | Provider::OpenAiResponses
                | Provider::OpenAiResponsesStrict
                | Provider::Gemini
        );
        if !takes {
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

/// Whether `name` is allowed by `to`'s naming rule.
fn valid_name(name: &str, to: Provider) -> bool {
    let len = name.chars().count();
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    match to {
        Provider::OpenAi
        | Provider::OpenAiStrict
        | Provider::OpenAiResponses
        | Provider::OpenAiResponsesStrict => (1..=64).contains(&len) && name.chars().all(plain),
        Provider::Anthropic => (1..=128).contains(&len) && name.chars().all(plain),
        Provider::Gemini => {
            (1..=128).contains(&len)
                && name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| plain(c) || c == '.' || c == ':')
        }
        Provider::Mcp => (1..=128).contains(&len) && name.chars().all(|c| plain(c) || c == '.'),
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
