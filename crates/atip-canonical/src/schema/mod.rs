//! A typed JSON Schema: 2020-12 keywords with draft-07 compatibility, plus OpenAPI's
//! `nullable`.
//!
//! [`Schema::from_value`] reads any JSON value and never fails: what cannot be read the way its
//! specification says is repaired and reported (see [`Repair`]). [`Schema::to_value`] writes
//! only what is set, keywords in the order they were read, new ones after them in a fixed order,
//! so the same schema always gives the same bytes and an unchanged schema gives back its input.

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Number, Value};

mod read;

pub(crate) use read::{describe_json, read};

/// A JSON Schema: `true` (anything), `false` (nothing) or a schema object.
#[derive(Debug, Clone, PartialEq)]
pub enum Schema {
    /// The boolean schemas `true` and `false` (2020-12 §4.3.2).
    Bool(bool),
    /// A schema object.
    Object(Box<SchemaObject>),
}

/// One of JSON Schema's seven instance types (2020-12 validation §6.1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceType {
    /// `null`
    Null,
    /// `boolean`
    Boolean,
    /// `object`
    Object,
    /// `array`
    Array,
    /// `number`
    Number,
    /// `string`
    String,
    /// `integer`
    Integer,
}

impl InstanceType {
    /// The keyword value: `null`, `boolean`, `object`, `array`, `number`, `string`, `integer`.
    pub const fn as_str(self) -> &'static str {
        match self {
            InstanceType::Null => "null",
            InstanceType::Boolean => "boolean",
            InstanceType::Object => "object",
            InstanceType::Array => "array",
            InstanceType::Number => "number",
            InstanceType::String => "string",
            InstanceType::Integer => "integer",
        }
    }

    /// Reads a type name exactly as JSON Schema spells it (lower case).
    pub fn parse(name: &str) -> Option<InstanceType> {
        Some(match name {
            "null" => InstanceType::Null,
            "boolean" => InstanceType::Boolean,
            "object" => InstanceType::Object,
            "array" => InstanceType::Array,
            "number" => InstanceType::Number,
            "string" => InstanceType::String,
            "integer" => InstanceType::Integer,
            _ => return None,
        })
    }
}

/// The value of `type`: one type, or an array of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaType {
    /// `"type": "string"`
    Single(InstanceType),
    /// `"type": ["string", "null"]`
    Union(Vec<InstanceType>),
}

impl SchemaType {
    /// The types listed.
    pub fn types(&self) -> &[InstanceType] {
        match self {
            SchemaType::Single(t) => std::slice::from_ref(t),
            SchemaType::Union(ts) => ts,
        }
    }

    /// Whether `t` is listed.
    pub fn contains(&self, t: InstanceType) -> bool {
        self.types().contains(&t)
    }

    /// The listed types other than `null`.
    pub fn non_null(&self) -> Vec<InstanceType> {
        self.types()
            .iter()
            .copied()
            .filter(|t| *t != InstanceType::Null)
            .collect()
    }

    /// `Single` for one type, `Union` otherwise.
    pub fn from_types(types: Vec<InstanceType>) -> SchemaType {
        if types.len() == 1 {
            SchemaType::Single(types[0])
        } else {
            SchemaType::Union(types)
        }
    }

    fn to_value(&self) -> Value {
        match self {
            SchemaType::Single(t) => Value::from(t.as_str()),
            SchemaType::Union(ts) => ts.iter().map(|t| Value::from(t.as_str())).collect(),
        }
    }
}

/// A schema object. Every keyword is optional; `None` means absent (so `Some(Value::Null)` in
/// [`default`](Self::default) is an explicit `"default": null`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SchemaObject {
    /// `$schema`: the dialect's URI.
    pub schema: Option<String>,
    /// `$id`
    pub id: Option<String>,
    /// `$ref`: a reference, local (`#/$defs/Name`) or not.
    pub reference: Option<String>,
    /// `$defs` (2020-12).
    pub defs: Option<IndexMap<String, Schema>>,
    /// `definitions` (draft-07).
    pub definitions: Option<IndexMap<String, Schema>>,
    /// `type`
    pub schema_type: Option<SchemaType>,
    /// `title`
    pub title: Option<String>,
    /// `description`
    pub description: Option<String>,
    /// `default`
    pub default: Option<Value>,
    /// `examples`
    pub examples: Option<Vec<Value>>,
    /// `enum`
    pub enum_values: Option<Vec<Value>>,
    /// `const`
    pub const_value: Option<Value>,
    /// `format`
    pub format: Option<String>,
    /// `pattern`: an ECMA-262 regular expression.
    pub pattern: Option<String>,
    /// `minLength`, in characters.
    pub min_length: Option<u64>,
    /// `maxLength`, in characters.
    pub max_length: Option<u64>,
    /// `minimum`
    pub minimum: Option<Number>,
    /// `maximum`
    pub maximum: Option<Number>,
    /// `exclusiveMinimum` (the draft-06+ number form; draft-04's boolean form stays in
    /// [`extra`](Self::extra)).
    pub exclusive_minimum: Option<Number>,
    /// `exclusiveMaximum` (number form, as [`exclusive_minimum`](Self::exclusive_minimum)).
    pub exclusive_maximum: Option<Number>,
    /// `multipleOf`
    pub multiple_of: Option<Number>,
    /// `properties`, in declaration order.
    pub properties: Option<IndexMap<String, Schema>>,
    /// `required`
    pub required: Option<Vec<String>>,
    /// `additionalProperties`: `Schema::Bool(false)` forbids extra properties.
    pub additional_properties: Option<Schema>,
    /// `minProperties`
    pub min_properties: Option<u64>,
    /// `maxProperties`
    pub max_properties: Option<u64>,
    /// `items` (the single-schema form; draft-07's array form stays in
    /// [`extra`](Self::extra)).
    pub items: Option<Schema>,
    /// `minItems`
    pub min_items: Option<u64>,
    /// `maxItems`
    pub max_items: Option<u64>,
    /// `uniqueItems`
    pub unique_items: Option<bool>,
    /// `anyOf`
    pub any_of: Option<Vec<Schema>>,
    /// `oneOf`
    pub one_of: Option<Vec<Schema>>,
    /// `allOf`
    pub all_of: Option<Vec<Schema>>,
    /// `not`
    pub not: Option<Schema>,
    /// `nullable` (OpenAPI 3.0, as Gemini uses it; not JSON Schema).
    pub nullable: Option<bool>,
    /// Every other keyword, verbatim and in source order: never dropped on reading.
    pub extra: Map<String, Value>,
    /// The order the keywords had when read; [`Schema::to_value`] follows it. Empty for
    /// schemas built in code.
    pub key_order: KeyOrder,
}

/// The order of a schema's keywords as read: presentation, not meaning. Two schemas that
/// differ only in key order compare equal.
#[derive(Debug, Clone, Default)]
pub struct KeyOrder(pub Vec<String>);

impl PartialEq for KeyOrder {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::ops::Deref for KeyOrder {
    type Target = Vec<String>;

    fn deref(&self) -> &Vec<String> {
        &self.0
    }
}

impl std::ops::DerefMut for KeyOrder {
    fn deref_mut(&mut self) -> &mut Vec<String> {
        &mut self.0
    }
}

impl FromIterator<String> for KeyOrder {
    fn from_iter<I: IntoIterator<Item = String>>(iter: I) -> Self {
        KeyOrder(iter.into_iter().collect())
    }
}

/// Something in a schema that could not be read as its specification says, and what was done
/// about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repair {
    /// JSON pointer (RFC 6901) to the repaired place, relative to where reading started.
    pub pointer: String,
    /// What was wrong.
    pub problem: String,
    /// What was done.
    pub fix: String,
}

impl std::fmt::Display for Repair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}; {}", self.pointer, self.problem, self.fix)
    }
}

impl Schema {
    /// An empty schema object (accepts anything).
    pub fn any() -> Schema {
        Schema::Object(Box::default())
    }

    /// `{"type": t}`.
    pub fn of_type(t: InstanceType) -> Schema {
        Schema::Object(Box::new(SchemaObject {
            schema_type: Some(SchemaType::Single(t)),
            ..SchemaObject::default()
        }))
    }

    /// The schema object, if this is one.
    pub fn as_object(&self) -> Option<&SchemaObject> {
        match self {
            Schema::Object(o) => Some(o),
            Schema::Bool(_) => None,
        }
    }

    /// The schema object, if this is one.
    pub fn as_object_mut(&mut self) -> Option<&mut SchemaObject> {
        match self {
            Schema::Object(o) => Some(o),
            Schema::Bool(_) => None,
        }
    }

    /// Reads a schema from JSON. Never fails: a value that is not a schema becomes the closest
    /// schema (a type name such as `"string"` becomes `{"type": "string"}`, anything else
    /// `{}`), and a keyword whose value has the wrong JSON type is dropped; each such change
    /// is returned as a [`Repair`]. Unknown keywords are kept in
    /// [`SchemaObject::extra`].
    pub fn from_value(value: &Value) -> (Schema, Vec<Repair>) {
        let mut repairs = Vec::new();
        let schema = read(value, "", &mut repairs);
        (schema, repairs)
    }

    /// The schema as JSON: unset keywords omitted; keywords in [`SchemaObject::key_order`]
    /// first, in that order, then the rest in a fixed order; [`extra`](SchemaObject::extra)
    /// keywords where they were read, or last.
    pub fn to_value(&self) -> Value {
        match self {
            Schema::Bool(b) => Value::Bool(*b),
            Schema::Object(o) => Value::Object(o.to_map()),
        }
    }
}

impl From<SchemaObject> for Schema {
    fn from(o: SchemaObject) -> Self {
        Schema::Object(Box::new(o))
    }
}

impl SchemaObject {
    /// Reads a schema object; see [`Schema::from_value`]. A boolean schema becomes `{}`
    /// (`true`) or `{"not": {}}` (`false`), with a repair.
    pub fn from_value(value: &Value) -> (SchemaObject, Vec<Repair>) {
        let (schema, mut repairs) = Schema::from_value(value);
        let object = match schema {
            Schema::Object(o) => *o,
            Schema::Bool(b) => {
                repairs.push(Repair {
                    pointer: String::new(),
                    problem: format!("the boolean schema `{b}` where an object is needed"),
                    fix: if b {
                        "read as {}".to_owned()
                    } else {
                        "read as {\"not\": {}}".to_owned()
                    },
                });
                let mut o = SchemaObject::default();
                if !b {
                    o.not = Some(Schema::any());
                }
                o
            }
        };
        (object, repairs)
    }

    /// The schema as a JSON object; see [`Schema::to_value`].
    pub fn to_value(&self) -> Value {
        Value::Object(self.to_map())
    }

    /// Whether `type` lists `t`.
    pub fn has_type(&self, t: InstanceType) -> bool {
        self.schema_type.as_ref().is_some_and(|s| s.contains(t))
    }

    /// Whether this describes objects: `type` lists `object`, or there is no `type` and there
    /// are `properties`.
    pub fn is_object_schema(&self) -> bool {
        self.has_type(InstanceType::Object)
            || (self.schema_type.is_none() && self.properties.is_some())
    }

    pub(crate) fn to_map(&self) -> Map<String, Value> {
        let mut out = Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(v) = value {
                out.insert(key.to_owned(), v);
            }
        };
        let string = |s: &Option<String>| s.as_ref().map(|s| Value::from(s.as_str()));
        let number = |n: &Option<Number>| n.clone().map(Value::Number);
        let count = |n: &Option<u64>| n.map(Value::from);
        let map = |m: &Option<IndexMap<String, Schema>>| {
            m.as_ref()
                .map(|m| Value::Object(m.iter().map(|(k, s)| (k.clone(), s.to_value())).collect()))
        };
        let list = |l: &Option<Vec<Schema>>| {
            l.as_ref()
                .map(|l| l.iter().map(Schema::to_value).collect::<Value>())
        };
        put("$schema", string(&self.schema));
        put("$id", string(&self.id));
        put("$ref", string(&self.reference));
        put("type", self.schema_type.as_ref().map(SchemaType::to_value));
        put("title", string(&self.title));
        put("description", string(&self.description));
        put("properties", map(&self.properties));
        put(
            "required",
            self.required
                .as_ref()
                .map(|r| r.iter().map(|s| Value::from(s.as_str())).collect()),
        );
        put(
            "additionalProperties",
            self.additional_properties.as_ref().map(Schema::to_value),
        );
        put("minProperties", count(&self.min_properties));
        put("maxProperties", count(&self.max_properties));
        put("items", self.items.as_ref().map(Schema::to_value));
        put("minItems", count(&self.min_items));
        put("maxItems", count(&self.max_items));
        put("uniqueItems", self.unique_items.map(Value::Bool));
        put("enum", self.enum_values.clone().map(Value::Array));
        put("const", self.const_value.clone());
        put("format", string(&self.format));
        put("pattern", string(&self.pattern));
        put("minLength", count(&self.min_length));
        put("maxLength", count(&self.max_length));
        put("minimum", number(&self.minimum));
        put("exclusiveMinimum", number(&self.exclusive_minimum));
        put("maximum", number(&self.maximum));
        put("exclusiveMaximum", number(&self.exclusive_maximum));
        put("multipleOf", number(&self.multiple_of));
        put("anyOf", list(&self.any_of));
        put("oneOf", list(&self.one_of));
        put("allOf", list(&self.all_of));
        put("not", self.not.as_ref().map(Schema::to_value));
        put("nullable", self.nullable.map(Value::Bool));
        put("default", self.default.clone());
        put("examples", self.examples.clone().map(Value::Array));
        put("$defs", map(&self.defs));
        put("definitions", map(&self.definitions));
        for (k, v) in &self.extra {
            if !out.contains_key(k) {
                out.insert(k.clone(), v.clone());
            }
        }
        if self.key_order.is_empty() {
            return out;
        }
        let mut ordered = Map::new();
        for k in self.key_order.iter() {
            if let Some(v) = out.remove(k) {
                ordered.insert(k.clone(), v);
            }
        }
        ordered.extend(out);
        ordered
    }
}

impl Serialize for Schema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Schema {
    /// Fails where [`Schema::from_value`] would repair.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let (schema, repairs) = Schema::from_value(&value);
        match repairs.first() {
            None => Ok(schema),
            Some(r) => Err(serde::de::Error::custom(format!("invalid schema: {r}"))),
        }
    }
}

impl Serialize for SchemaObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_map().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SchemaObject {
    /// Fails where [`SchemaObject::from_value`] would repair.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let (schema, repairs) = SchemaObject::from_value(&value);
        match repairs.first() {
            None => Ok(schema),
            Some(r) => Err(serde::de::Error::custom(format!("invalid schema: {r}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(v: Value) {
        let (s, repairs) = Schema::from_value(&v);
        assert!(repairs.is_empty(), "{repairs:?}");
        assert_eq!(s.to_value(), v);
        assert_eq!(
            serde_json::to_string(&s.to_value()).unwrap(),
            serde_json::to_string(&v).unwrap(),
            "key order is kept"
        );
    }

    #[test]
    fn every_keyword_round_trips_with_its_order() {
        round_trip(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "urn:x",
            "type": "object",
            "title": "T",
            "description": "D",
            "required": ["a"],
            "properties": {
                "a": {"type": ["string", "null"], "minLength": 1, "maxLength": 9,
                      "pattern": "^a", "format": "email", "default": null},
                "b": {"type": "number", "minimum": 0, "maximum": 1.5,
                      "exclusiveMinimum": -1, "exclusiveMaximum": 2.0, "multipleOf": 0.5},
                "c": {"type": "array", "items": {"$ref": "#/$defs/C"}, "minItems": 0,
                      "maxItems": 3, "uniqueItems": true},
                "d": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "e": {"oneOf": [{"const": 1}, {"enum": [2, "x", null]}], "examples": [1]},
                "f": {"allOf": [{"type": "object"}], "not": {"type": "null"}},
                "g": true,
                "h": {"type": "string", "nullable": true, "x-custom": {"k": 1}},
                "i": {"type": "object", "additionalProperties": {"type": "string"},
                      "minProperties": 1, "maxProperties": 2, "propertyNames": {"pattern": "^x"}}
            },
            "additionalProperties": false,
            "$defs": {"C": {"type": "integer"}},
            "definitions": {"D": false}
        }));
    }

    #[test]
    fn draft_forms_stay_verbatim() {
        round_trip(json!({"type": "number", "minimum": 0, "exclusiveMinimum": true}));
        round_trip(json!({"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}));
        round_trip(json!({"type": "string", "minLength": 3.0}));
    }

    #[test]
    fn wrong_shapes_are_repaired_and_reported() {
        let (s, repairs) = Schema::from_value(&json!({
            "type": "object",
            "properties": {
                "a": "string",
                "b": 3,
                "c": {"type": "String", "minLength": "1"},
                "d": {"type": "file"}
            },
            "required": true
        }));
        let pointers: Vec<&str> = repairs.iter().map(|r| r.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/properties/a",
                "/properties/b",
                "/properties/c/type",
                "/properties/c/minLength",
                "/properties/d/type",
                "/required"
            ]
        );
        assert_eq!(
            s.to_value(),
            json!({"type": "object", "properties": {
                "a": {"type": "string"}, "b": {}, "c": {"type": "string"}, "d": {}
            }})
        );
        assert!(repairs[0]
            .to_string()
            .contains("read as {\"type\": \"string\"}"));
    }

    #[test]
    fn pointers_escape_slash_and_tilde() {
        let (_, repairs) = Schema::from_value(&json!({"properties": {"a/b~c": 1}}));
        assert_eq!(repairs[0].pointer, "/properties/a~1b~0c");
    }

    #[test]
    fn built_schemas_use_the_fixed_order() {
        let s = SchemaObject {
            description: Some("d".into()),
            schema_type: Some(SchemaType::Single(InstanceType::String)),
            ..SchemaObject::default()
        };
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"type":"string","description":"d"}"#
        );
    }

    #[test]
    fn serde_refuses_what_from_value_repairs() {
        assert!(serde_json::from_value::<Schema>(json!({"minLength": -1})).is_err());
        let s: Schema = serde_json::from_value(json!({"minLength": 1})).unwrap();
        assert_eq!(s.as_object().unwrap().min_length, Some(1));
    }
}
