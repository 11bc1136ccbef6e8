//! Rewriting a schema into what one target accepts, reporting each feature it cannot express.
//!
//! Children are rewritten before their parent, so a parent sees them in the target's form.
//! `$ref`s are inlined where the target cannot hold them: the referenced schema is rewritten
//! with its own pointer, so a feature inside a definition used twice is reported once, where
//! it is written.

use std::collections::BTreeSet;

use indexmap::IndexMap;
use serde_json::Value;

use super::schema::{InstanceType, Schema, SchemaObject, SchemaType};
use super::warning::{ConvertError, Feature, Resolution, Warning};
use super::{pointer, Format};

mod edit;

use atip_core::providers::Provider;
pub(crate) use edit::make_nullable_json;
use edit::{
    append_notes, decode_fragment, is_null_branch, merge_into, note, nullable_to_json, overlay,
    rename, take,
};

/// What a target's schemas may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// JSON Schema 2020-12 as it is: MCP, and every output schema.
    JsonSchema,
    /// JSON Schema without references.
    Anthropic,
    /// JSON Schema without references, `oneOf`, `allOf` or `not`.
    OpenAi,
    /// OpenAI's Structured Outputs subset.
    OpenAiStrict,
    /// Gemini's OpenAPI 3.0 subset (`FunctionDeclaration.parameters`).
    Gemini,
}

impl Dialect {
    /// The dialect of `to`'s input schemas.
    pub(crate) fn input(to: Provider) -> Dialect {
        match to {
            Provider::Mcp => Dialect::JsonSchema,
            Provider::Anthropic => Dialect::Anthropic,
            Provider::OpenAi | Provider::OpenAiResponses => Dialect::OpenAi,
            Provider::OpenAiStrict | Provider::OpenAiResponsesStrict => Dialect::OpenAiStrict,
            Provider::Gemini => Dialect::Gemini,
        }
    }

    /// Strict mode and Gemini accept only a closed set of keywords.
    fn closed(self) -> bool {
        matches!(self, Dialect::OpenAiStrict | Dialect::Gemini)
    }
}

/// Formats OpenAI's strict mode documents for strings.
const STRICT_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Formats Gemini's `Schema` documents (for STRING, NUMBER and INTEGER).
const GEMINI_FORMATS: [&str; 6] = ["enum", "date-time", "float", "double", "int32", "int64"];

/// Annotation keywords that constrain nothing: dropped, not described, where not accepted.
const ANNOTATIONS: [&str; 9] = [
    "$comment",
    "$anchor",
    "$dynamicAnchor",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
    "propertyOrdering",
];

/// Rewrites a tool's input or output schema for `to`.
pub(crate) struct Rewriter<'a> {
    dialect: Dialect,
    /// The whole source schema, for resolving `$ref`s.
    root: Value,
    /// Where the root is in the input.
    root_ptr: String,
    from: Option<Format>,
    to: Provider,
    warnings: &'a mut Vec<Warning>,
    seen: BTreeSet<(String, Feature)>,
    /// References being inlined, outermost first: a repeat is a cycle.
    stack: Vec<String>,
    /// Keep `$ref`s and `$defs` instead of inlining (a recursive schema, for a target whose
    /// schemas hold recursive references: `limits::Limits::recursive_refs`).
    keep_refs: bool,
    /// Cut each cycle at its closing `$ref` (a recursive schema, for a target that cannot hold
    /// references: Gemini's `parameters`).
    cut_cycles: bool,
    /// The first cycle met while inlining: pointer to its closing `$ref`, and the reference.
    cycle: Option<(String, String)>,
}

impl<'a> Rewriter<'a> {
    pub(crate) fn new(
        dialect: Dialect,
        root: &SchemaObject,
        root_ptr: &str,
        from: Option<Format>,
        to: Provider,
        warnings: &'a mut Vec<Warning>,
    ) -> Self {
        Rewriter {
            dialect,
            root: root.to_value(),
            root_ptr: root_ptr.to_owned(),
            from,
            to,
            warnings,
            seen: BTreeSet::new(),
            stack: vec!["#".to_owned()],
            keep_refs: false,
            cut_cycles: false,
            cycle: None,
        }
    }

    /// Whether `$ref`s are replaced by what they point to.
    fn inlines_refs(&self) -> bool {
        self.dialect != Dialect::JsonSchema && !self.keep_refs
    }

    /// Rewrites the root schema, which must stay an object schema.
    ///
    /// References are inlined where the target has no references of its own. A recursive
    /// schema cannot be inlined: it is rewritten again keeping its `$ref`s and `$defs` where the
    /// target holds recursive references (OpenAI, strict included; Anthropic), or with each
    /// cycle cut to an unconstrained value where it cannot (Gemini), with a warning either way.
    pub(crate) fn root(&mut self, o: &SchemaObject) -> Result<SchemaObject, ConvertError> {
        let mark = self.warnings.len();
        let out = self.root_once(o)?;
        let Some((at, reference)) = self.cycle.take() else {
            return Ok(out);
        };
        self.warnings.truncate(mark);
        self.seen.clear();
        self.stack = vec!["#".to_owned()];
        if atip_core::providers::limits::limits(self.to).recursive_refs {
            self.keep_refs = true;
            self.report(
                at,
                Feature::Keyword("$ref".to_owned()),
                Resolution::Rewritten(format!(
                    "as a reference, with its `$defs`: {reference:?} refers back to a schema \
                     that contains it, so it cannot be inlined, and {} holds recursive references",
                    self.to.as_str()
                )),
            );
        } else {
            self.cut_cycles = true;
        }
        self.root_once(o)
    }

    fn root_once(&mut self, o: &SchemaObject) -> Result<SchemaObject, ConvertError> {
        let ptr = self.root_ptr.clone();
        let mut out = self.object(o, &ptr)?;
        if self.dialect == Dialect::OpenAiStrict {
            // Strict mode forbids a union at the root.
            if let Some(any) = out.any_of.take() {
                let notes = vec![note(
                    "anyOf",
                    &Value::Array(any.iter().map(Schema::to_value).collect()),
                )];
                self.loss(&ptr, "anyOf", Resolution::Described);
                append_notes(&mut out, notes);
            }
        }
        Ok(out)
    }

    fn loss(&mut self, at: &str, keyword: &str, resolution: Resolution) {
        self.report(
            pointer::push(at, keyword),
            Feature::Keyword(keyword.to_owned()),
            resolution,
        );
    }

    fn report(&mut self, pointer: String, feature: Feature, resolution: Resolution) {
        if self.seen.insert((pointer.clone(), feature.clone())) {
            self.warnings.push(Warning::loss(
                feature,
                pointer,
                self.from,
                Some(self.to),
                resolution,
            ));
        }
    }

    /// Moves `keyword: value` into the description's notes, and says so.
    fn describe(&mut self, notes: &mut Vec<String>, ptr: &str, keyword: &str, value: &Value) {
        notes.push(note(keyword, value));
        self.loss(ptr, keyword, Resolution::Described);
    }

    fn schema(&mut self, s: &Schema, ptr: &str) -> Result<Schema, ConvertError> {
        match s {
            Schema::Bool(b) if self.dialect.closed() => {
                if !b {
                    self.report(
                        ptr.to_owned(),
                        Feature::Keyword("false".to_owned()),
                        Resolution::Rewritten(
                            "as an unconstrained schema: the target has no schema that \
                             matches nothing"
                                .to_owned(),
                        ),
                    );
                }
                Ok(Schema::any())
            }
            Schema::Bool(b) => Ok(Schema::Bool(*b)),
            Schema::Object(o) => Ok(Schema::from(self.object(o, ptr)?)),
        }
    }

    fn object(&mut self, o: &SchemaObject, ptr: &str) -> Result<SchemaObject, ConvertError> {
        // Strict mode takes a kept reference alone: its SDK inlines one with siblings.
        if let (Some(reference), true) = (
            &o.reference,
            self.keep_refs && self.dialect == Dialect::OpenAiStrict,
        ) {
            let alone = SchemaObject {
                reference: Some(reference.clone()),
                ..SchemaObject::default()
            };
            if *o != alone {
                self.loss(
                    ptr,
                    "$ref",
                    Resolution::Rewritten(
                        "alone: keywords beside a kept `$ref` are dropped in strict mode"
                            .to_owned(),
                    ),
                );
            }
            return Ok(alone);
        }
        if let (Some(reference), true) = (&o.reference, self.inlines_refs()) {
            let mut rest = o.clone();
            rest.reference = None;
            let resolved = self.resolve(reference, ptr)?;
            let rest = self.object(&rest, ptr)?;
            return Ok(match resolved {
                Some(target) => overlay(target, rest),
                None => rest,
            });
        }
        let mut out = o.clone();
        out.properties = match &o.properties {
            Some(props) => {
                let at = pointer::push(ptr, "properties");
                let mut map = IndexMap::new();
                for (name, s) in props {
                    map.insert(name.clone(), self.schema(s, &pointer::push(&at, name))?);
                }
                Some(map)
            }
            None => None,
        };
        out.items = match &o.items {
            Some(s) => Some(self.schema(s, &pointer::push(ptr, "items"))?),
            None => None,
        };
        out.additional_properties = match &o.additional_properties {
            Some(Schema::Object(a)) if self.dialect != Dialect::OpenAiStrict => Some(Schema::from(
                self.object(a, &pointer::push(ptr, "additionalProperties"))?,
            )),
            other => other.clone(),
        };
        out.any_of = self.list(&o.any_of, ptr, "anyOf")?;
        out.one_of = self.list(&o.one_of, ptr, "oneOf")?;
        out.all_of = self.list(&o.all_of, ptr, "allOf")?;
        out.not = match (&o.not, self.dialect) {
            (Some(s), Dialect::JsonSchema | Dialect::Anthropic) => {
                Some(self.schema(s, &pointer::push(ptr, "not"))?)
            }
            (other, _) => other.clone(),
        };
        for (key, defs) in [("$defs", &o.defs), ("definitions", &o.definitions)] {
            let Some(defs) = defs else { continue };
            let kept = if self.inlines_refs() {
                self.report(
                    pointer::push(ptr, key),
                    Feature::Keyword(key.to_owned()),
                    Resolution::Rewritten("away: each `$ref` to it is inlined".to_owned()),
                );
                None
            } else {
                let at = pointer::push(ptr, key);
                let mut map = IndexMap::new();
                for (name, s) in defs {
                    map.insert(name.clone(), self.schema(s, &pointer::push(&at, name))?);
                }
                Some(map)
            };
            if key == "$defs" {
                out.defs = kept;
            } else {
                out.definitions = kept;
            }
        }
        self.node(&mut out, ptr);
        Ok(out)
    }

    fn list(
        &mut self,
        list: &Option<Vec<Schema>>,
        ptr: &str,
        key: &str,
    ) -> Result<Option<Vec<Schema>>, ConvertError> {
        let Some(list) = list else { return Ok(None) };
        let at = pointer::push(ptr, key);
        let mut out = Vec::with_capacity(list.len());
        for (i, s) in list.iter().enumerate() {
            out.push(self.schema(s, &pointer::push(&at, &i.to_string()))?);
        }
        Ok(Some(out))
    }

    /// The rewritten schema a `$ref` at `ptr` points to; `None` when it points nowhere in this
    /// schema (reported).
    fn resolve(&mut self, reference: &str, ptr: &str) -> Result<Option<Schema>, ConvertError> {
        let at = pointer::push(ptr, "$ref");
        let fragment = match reference.strip_prefix('#') {
            Some(f) if f.is_empty() || f.starts_with('/') => f,
            _ => {
                self.report(
                    at,
                    Feature::Keyword("$ref".to_owned()),
                    Resolution::Rewritten(format!(
                        "as an unconstrained schema: {reference:?} is not a reference within \
                         this schema"
                    )),
                );
                return Ok(None);
            }
        };
        if self.stack.iter().any(|r| r == reference) {
            if self.cut_cycles {
                self.report(
                    at,
                    Feature::Keyword("$ref".to_owned()),
                    Resolution::Rewritten(format!(
                        "as an unconstrained value: {reference:?} refers back to a schema that \
                         contains it, and {} cannot hold references",
                        self.to.as_str()
                    )),
                );
            } else {
                self.cycle.get_or_insert((at, reference.to_owned()));
            }
            return Ok(None);
        }
        let Some(target) = self.root.pointer(&decode_fragment(fragment)).cloned() else {
            self.report(
                at,
                Feature::Keyword("$ref".to_owned()),
                Resolution::Rewritten(format!(
                    "as an unconstrained schema: {reference:?} points to nothing"
                )),
            );
            return Ok(None);
        };
        self.report(at, Feature::Keyword("$ref".to_owned()), Resolution::Inlined);
        let (schema, _) = Schema::from_value(&target);
        let target_ptr = format!("{}{}", self.root_ptr, decode_fragment(fragment));
        self.stack.push(reference.to_owned());
        let out = self.schema(&schema, &target_ptr);
        self.stack.pop();
        out.map(Some)
    }

    /// The target's rules for one schema whose children are rewritten.
    fn node(&mut self, o: &mut SchemaObject, ptr: &str) {
        let mut notes = Vec::new();
        match self.dialect {
            Dialect::JsonSchema | Dialect::Anthropic => nullable_to_json(o),
            Dialect::OpenAi => {
                self.merge_all_of(o, ptr, &mut notes);
                self.one_of_as_any_of(o, ptr, &mut notes);
                self.describe_not(o, ptr, &mut notes);
                nullable_to_json(o);
            }
            Dialect::OpenAiStrict => {
                self.merge_all_of(o, ptr, &mut notes);
                self.collapse_optional(o, ptr);
                self.one_of_as_any_of(o, ptr, &mut notes);
                self.describe_not(o, ptr, &mut notes);
                nullable_to_json(o);
                self.strict_keywords(o, ptr, &mut notes);
                self.strict_object(o, ptr);
            }
            Dialect::Gemini => {
                self.merge_all_of(o, ptr, &mut notes);
                self.collapse_optional(o, ptr);
                self.one_of_as_any_of(o, ptr, &mut notes);
                self.describe_not(o, ptr, &mut notes);
                self.gemini_types(o, ptr);
                self.gemini_keywords(o, ptr, &mut notes);
            }
        }
        append_notes(o, notes);
    }

    /// `allOf`: its branches merged into the schema; keywords that disagree are described.
    fn merge_all_of(&mut self, o: &mut SchemaObject, ptr: &str, notes: &mut Vec<String>) {
        let Some(branches) = o.all_of.take() else {
            return;
        };
        self.loss(
            ptr,
            "allOf",
            Resolution::Rewritten("by merging its schemas into one".to_owned()),
        );
        for branch in &branches {
            let conflicts = merge_into(o, branch, true);
            if !conflicts.is_empty() {
                notes.push(note("allOf also requires", &Value::Object(conflicts)));
            }
        }
    }

    /// `anyOf`/`oneOf` with `null` among its branches: strict mode gets the one other branch
    /// as a nullable type; Gemini gets `nullable: true` and, with one other branch, that
    /// branch.
    fn collapse_optional(&mut self, o: &mut SchemaObject, ptr: &str) {
        for key in ["anyOf", "oneOf"] {
            let list = if key == "anyOf" { &o.any_of } else { &o.one_of };
            let Some(branches) = list else { continue };
            let (nulls, others): (Vec<&Schema>, Vec<&Schema>) =
                branches.iter().partition(|b| is_null_branch(b));
            if nulls.is_empty() || others.is_empty() {
                continue;
            }
            let single = others.len() == 1 && o.schema_type.is_none();
            match self.dialect {
                Dialect::OpenAiStrict if single => {
                    let branch = others[0].clone();
                    take(o, key);
                    merge_into(o, &branch, false);
                    make_nullable_json(o);
                    self.loss(
                        ptr,
                        key,
                        Resolution::Rewritten("as a nullable type".to_owned()),
                    );
                }
                Dialect::Gemini => {
                    let others: Vec<Schema> = others.into_iter().cloned().collect();
                    take(o, key);
                    o.nullable = Some(true);
                    if single {
                        merge_into(o, &others[0], false);
                        self.loss(
                            ptr,
                            key,
                            Resolution::Rewritten("as one schema with `nullable: true`".to_owned()),
                        );
                    } else {
                        self.loss(
                            ptr,
                            key,
                            Resolution::Rewritten(
                                "without its `null` branch, as `nullable: true`".to_owned(),
                            ),
                        );
                        if key == "anyOf" {
                            o.any_of = Some(others);
                        } else {
                            o.one_of = Some(others);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn one_of_as_any_of(&mut self, o: &mut SchemaObject, ptr: &str, notes: &mut Vec<String>) {
        let Some(branches) = o.one_of.take() else {
            return;
        };
        if o.any_of.is_some() {
            let value = Value::Array(branches.iter().map(Schema::to_value).collect());
            self.describe(notes, ptr, "oneOf", &value);
            return;
        }
        o.any_of = Some(branches);
        rename(&mut o.key_order, "oneOf", "anyOf");
        self.loss(
            ptr,
            "oneOf",
            Resolution::Rewritten("as `anyOf`: more than one branch may now match".to_owned()),
        );
    }

    fn describe_not(&mut self, o: &mut SchemaObject, ptr: &str, notes: &mut Vec<String>) {
        if let Some(n) = o.not.take() {
            self.describe(notes, ptr, "not", &n.to_value());
        }
    }

    /// Strict mode: keywords outside its subset move into the description.
    fn strict_keywords(&mut self, o: &mut SchemaObject, ptr: &str, notes: &mut Vec<String>) {
        match o.default.take() {
            None | Some(Value::Null) => {}
            Some(v) => {
                self.describe(notes, ptr, "default", &v);
            }
        }
        let counts = [
            ("minLength", o.min_length.take()),
            ("maxLength", o.max_length.take()),
            ("minProperties", o.min_properties.take()),
            ("maxProperties", o.max_properties.take()),
        ];
        for (key, value) in counts {
            if let Some(n) = value {
                self.describe(notes, ptr, key, &Value::from(n));
            }
        }
        if let Some(u) = o.unique_items.take() {
            self.describe(notes, ptr, "uniqueItems", &Value::Bool(u));
        }
        if let Some(f) = o.format.take_if(|f| !STRICT_FORMATS.contains(&f.as_str())) {
            self.describe(notes, ptr, "format", &Value::String(f));
        }
        self.closed_extras(o, ptr, notes, &["$comment"]);
    }

    /// Unknown keywords of a closed dialect: annotations dropped, constraints described;
    /// `keep` stays.
    fn closed_extras(
        &mut self,
        o: &mut SchemaObject,
        ptr: &str,
        notes: &mut Vec<String>,
        keep: &[&str],
    ) {
        let extra = std::mem::take(&mut o.extra);
        for (k, v) in extra {
            if keep.contains(&k.as_str()) {
                o.extra.insert(k, v);
            } else if k.starts_with("x-") || ANNOTATIONS.contains(&k.as_str()) {
                self.loss(ptr, &k, Resolution::Dropped);
            } else {
                self.describe(notes, ptr, &k, &v);
            }
        }
    }

    /// Strict mode's objects: `additionalProperties: false`, every property required, the
    /// optional ones nullable.
    fn strict_object(&mut self, o: &mut SchemaObject, ptr: &str) {
        if !o.is_object_schema() {
            return;
        }
        match &o.additional_properties {
            Some(Schema::Bool(false)) | None => {}
            Some(_) => self.loss(
                ptr,
                "additionalProperties",
                Resolution::Rewritten(
                    "as `false`: strict mode allows no properties beyond those listed".to_owned(),
                ),
            ),
        }
        o.additional_properties = Some(Schema::Bool(false));
        if let Some(props) = &mut o.properties {
            let required: BTreeSet<String> = o.required.iter().flatten().cloned().collect();
            for (name, s) in props.iter_mut() {
                if !required.contains(name) {
                    if let Schema::Object(p) = s {
                        make_nullable_json(p);
                    }
                }
            }
            o.required = Some(props.keys().cloned().collect());
        }
    }

    /// Gemini: one type per schema; a union with `null` becomes `nullable`, one of several
    /// types an `anyOf`.
    fn gemini_types(&mut self, o: &mut SchemaObject, ptr: &str) {
        let Some(SchemaType::Union(types)) = &o.schema_type else {
            return;
        };
        let had_null = types.contains(&InstanceType::Null);
        let non_null: Vec<InstanceType> = types
            .iter()
            .copied()
            .filter(|t| *t != InstanceType::Null)
            .collect();
        let at = pointer::push(ptr, "type");
        match non_null.len() {
            0 => o.schema_type = Some(SchemaType::Single(InstanceType::Null)),
            1 => {
                o.schema_type = Some(SchemaType::Single(non_null[0]));
                if had_null {
                    o.nullable = Some(true);
                }
                self.report(
                    at,
                    Feature::TypeUnion,
                    Resolution::Rewritten(if had_null {
                        "as one type with `nullable: true`".to_owned()
                    } else {
                        "as its one type".to_owned()
                    }),
                );
            }
            _ if o.any_of.is_none() => {
                o.schema_type = None;
                o.any_of = Some(non_null.into_iter().map(Schema::of_type).collect());
                if had_null {
                    o.nullable = Some(true);
                }
                self.report(
                    at,
                    Feature::TypeUnion,
                    Resolution::Rewritten("as `anyOf`, one schema per type".to_owned()),
                );
            }
            _ => {
                // Several types beside an `anyOf` of its own: the types become text.
                let text = o
                    .schema_type
                    .take()
                    .map(|t| {
                        t.non_null()
                            .iter()
                            .map(|t| t.as_str())
                            .collect::<Vec<_>>()
                            .join(" | ")
                    })
                    .unwrap_or_default();
                if had_null {
                    o.nullable = Some(true);
                }
                append_notes(o, vec![format!("type: {text}")]);
                self.report(at, Feature::TypeUnion, Resolution::Described);
            }
        }
    }

    /// Gemini's keyword subset.
    fn gemini_keywords(&mut self, o: &mut SchemaObject, ptr: &str, notes: &mut Vec<String>) {
        o.schema = None; // the dialect is the target's own
        if o.id.take().is_some() {
            self.loss(ptr, "$id", Resolution::Dropped);
        }
        if let Some(c) = o.const_value.take() {
            o.enum_values = Some(vec![c]);
            rename(&mut o.key_order, "const", "enum");
            self.loss(
                ptr,
                "const",
                Resolution::Rewritten("as a one-value `enum`".to_owned()),
            );
        }
        if let Some(values) = o.enum_values.take() {
            let mut strings = Vec::with_capacity(values.len());
            let mut changed = false;
            for v in values {
                match v {
                    Value::Null => o.nullable = Some(true),
                    Value::String(s) => strings.push(Value::String(s)),
                    Value::Number(n) => {
                        changed = true;
                        strings.push(Value::String(n.to_string()));
                    }
                    other => {
                        changed = true;
                        strings.push(Value::String(other.to_string()));
                    }
                }
            }
            if changed && self.from != Some(Format::Gemini) {
                self.loss(
                    ptr,
                    "enum",
                    Resolution::Rewritten("with its values as strings".to_owned()),
                );
            }
            o.enum_values = Some(strings);
            if o.format.is_none() {
                o.format = Some("enum".to_owned());
            }
        }
        if let Some(f) = o.format.take_if(|f| !GEMINI_FORMATS.contains(&f.as_str())) {
            self.describe(notes, ptr, "format", &Value::String(f));
        }
        let numbers = [
            ("exclusiveMinimum", o.exclusive_minimum.take()),
            ("exclusiveMaximum", o.exclusive_maximum.take()),
            ("multipleOf", o.multiple_of.take()),
        ];
        for (key, value) in numbers {
            if let Some(n) = value {
                self.describe(notes, ptr, key, &Value::Number(n));
            }
        }
        if let Some(u) = o.unique_items.take() {
            self.describe(notes, ptr, "uniqueItems", &Value::Bool(u));
        }
        let example = match o.examples.take() {
            Some(list) => {
                if list.len() > 1 {
                    self.loss(
                        ptr,
                        "examples",
                        Resolution::Rewritten("as `example`, keeping only the first".to_owned()),
                    );
                }
                list.into_iter().next()
            }
            None => None,
        };
        let ordering_ok = o.extra.get("propertyOrdering").is_some_and(|v| {
            v.as_array().is_some_and(|names| {
                names.iter().all(|n| {
                    n.as_str()
                        .is_some_and(|n| o.properties.as_ref().is_some_and(|p| p.contains_key(n)))
                })
            })
        });
        let keep: &[&str] = if ordering_ok {
            &["propertyOrdering"]
        } else {
            &[]
        };
        self.closed_extras(o, ptr, notes, keep);
        if let Some(e) = example {
            o.extra.insert("example".to_owned(), e);
            rename(&mut o.key_order, "examples", "example");
        }
    }
}
