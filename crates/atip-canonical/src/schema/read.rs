//! Reading any JSON value as a schema, repairing what is not one (see [`Repair`]).

use serde_json::{Map, Number, Value};

use indexmap::IndexMap;

use super::{InstanceType, Repair, Schema, SchemaObject, SchemaType};
use crate::pointer;

/// Reads one schema at `ptr`.
pub(crate) fn read(value: &Value, ptr: &str, repairs: &mut Vec<Repair>) -> Schema {
    match value {
        Value::Bool(b) => Schema::Bool(*b),
        Value::Object(map) => Schema::Object(Box::new(read_object(map, ptr, repairs))),
        Value::String(name) if InstanceType::parse(&name.to_ascii_lowercase()).is_some() => {
            let t = InstanceType::parse(&name.to_ascii_lowercase()).unwrap_or(InstanceType::Null);
            repairs.push(Repair {
                pointer: ptr.to_owned(),
                problem: format!("the string {name:?} where a schema belongs"),
                fix: format!("read as {{\"type\": \"{}\"}}", t.as_str()),
            });
            Schema::of_type(t)
        }
        other => {
            repairs.push(Repair {
                pointer: ptr.to_owned(),
                problem: format!("{} where a schema belongs", describe_json(other)),
                fix: "read as {} (any value)".to_owned(),
            });
            Schema::any()
        }
    }
}

fn read_object(map: &Map<String, Value>, ptr: &str, repairs: &mut Vec<Repair>) -> SchemaObject {
    let mut o = SchemaObject {
        key_order: map.keys().cloned().collect(),
        ..SchemaObject::default()
    };
    for (key, value) in map {
        let at = pointer::push(ptr, key);
        // What the keyword's value should have been, when it is not.
        let mut expected: Option<&str> = None;
        macro_rules! set {
            ($field:expr, $read:expr, $expected:literal) => {
                match $read {
                    Some(v) => $field = Some(v),
                    None => expected = Some($expected),
                }
            };
        }
        match key.as_str() {
            "$schema" => set!(o.schema, as_string(value), "a string"),
            "$id" => set!(o.id, as_string(value), "a string"),
            "$ref" => set!(o.reference, as_string(value), "a string"),
            "$defs" => set!(o.defs, read_map(value, &at, repairs), "an object"),
            "definitions" => set!(o.definitions, read_map(value, &at, repairs), "an object"),
            "type" => match read_type(value) {
                Ok(t) => o.schema_type = Some(t),
                Err(TypeProblem::Case(t)) => {
                    repairs.push(Repair {
                        pointer: at.clone(),
                        problem: format!("type names are lower case in JSON Schema, got {value}"),
                        fix: format!("read as {}", t.to_value()),
                    });
                    o.schema_type = Some(t);
                }
                Err(TypeProblem::Unknown) => {
                    repairs.push(Repair {
                        pointer: at.clone(),
                        problem: format!("`type` {value} names no JSON Schema type"),
                        fix: "dropped".to_owned(),
                    });
                }
            },
            "title" => set!(o.title, as_string(value), "a string"),
            "description" => set!(o.description, as_string(value), "a string"),
            "default" => o.default = Some(value.clone()),
            "examples" => set!(o.examples, value.as_array().cloned(), "an array"),
            "enum" => set!(o.enum_values, value.as_array().cloned(), "an array"),
            "const" => o.const_value = Some(value.clone()),
            "format" => set!(o.format, as_string(value), "a string"),
            "pattern" => set!(o.pattern, as_string(value), "a string"),
            "minLength" | "maxLength" | "minProperties" | "maxProperties" | "minItems"
            | "maxItems" => match as_count(value) {
                Count::Exact(n) => {
                    let field = match key.as_str() {
                        "minLength" => &mut o.min_length,
                        "maxLength" => &mut o.max_length,
                        "minProperties" => &mut o.min_properties,
                        "maxProperties" => &mut o.max_properties,
                        "minItems" => &mut o.min_items,
                        _ => &mut o.max_items,
                    };
                    *field = Some(n);
                }
                // `3.0` is a valid count; kept verbatim so it reads back unchanged.
                Count::Integral => {
                    o.extra.insert(key.clone(), value.clone());
                }
                Count::Invalid => expected = Some("a non-negative integer"),
            },
            "minimum" => set!(o.minimum, as_number(value), "a number"),
            "maximum" => set!(o.maximum, as_number(value), "a number"),
            "exclusiveMinimum" if value.is_boolean() => {
                o.extra.insert(key.clone(), value.clone());
            }
            "exclusiveMaximum" if value.is_boolean() => {
                o.extra.insert(key.clone(), value.clone());
            }
            "exclusiveMinimum" => set!(o.exclusive_minimum, as_number(value), "a number"),
            "exclusiveMaximum" => set!(o.exclusive_maximum, as_number(value), "a number"),
            "multipleOf" => set!(o.multiple_of, as_number(value), "a number"),
            "properties" => set!(o.properties, read_map(value, &at, repairs), "an object"),
            "required" => match value {
                Value::Array(items) if items.iter().all(Value::is_string) => {
                    o.required = Some(
                        items
                            .iter()
                            .filter_map(|s| s.as_str().map(str::to_owned))
                            .collect(),
                    );
                }
                _ => expected = Some("an array of property names"),
            },
            "additionalProperties" => o.additional_properties = Some(read(value, &at, repairs)),
            "items" if value.is_array() => {
                o.extra.insert(key.clone(), value.clone());
            }
            "items" => o.items = Some(read(value, &at, repairs)),
            "uniqueItems" => set!(o.unique_items, value.as_bool(), "a boolean"),
            "anyOf" => set!(
                o.any_of,
                read_list(value, &at, repairs),
                "an array of schemas"
            ),
            "oneOf" => set!(
                o.one_of,
                read_list(value, &at, repairs),
                "an array of schemas"
            ),
            "allOf" => set!(
                o.all_of,
                read_list(value, &at, repairs),
                "an array of schemas"
            ),
            "not" => o.not = Some(read(value, &at, repairs)),
            "nullable" => set!(o.nullable, value.as_bool(), "a boolean"),
            _ => {
                o.extra.insert(key.clone(), value.clone());
            }
        }
        if let Some(expected) = expected {
            repairs.push(Repair {
                pointer: at,
                problem: format!("`{key}` is {}, not {expected}", describe_json(value)),
                fix: "dropped".to_owned(),
            });
        }
    }
    o
}

enum TypeProblem {
    /// Readable after lower-casing.
    Case(SchemaType),
    Unknown,
}

fn read_type(value: &Value) -> Result<SchemaType, TypeProblem> {
    let one = |v: &Value| -> Result<InstanceType, TypeProblem> {
        let name = v.as_str().ok_or(TypeProblem::Unknown)?;
        match InstanceType::parse(name) {
            Some(t) => Ok(t),
            None => match InstanceType::parse(&name.to_ascii_lowercase()) {
                Some(t) => Err(TypeProblem::Case(SchemaType::Single(t))),
                None => Err(TypeProblem::Unknown),
            },
        }
    };
    match value {
        Value::String(_) => one(value).map(SchemaType::Single),
        Value::Array(items) if !items.is_empty() => {
            let mut types = Vec::new();
            let mut case = false;
            for item in items {
                match one(item) {
                    Ok(t) => types.push(t),
                    Err(TypeProblem::Case(SchemaType::Single(t))) => {
                        case = true;
                        types.push(t);
                    }
                    Err(_) => return Err(TypeProblem::Unknown),
                }
            }
            if case {
                Err(TypeProblem::Case(SchemaType::Union(types)))
            } else {
                Ok(SchemaType::Union(types))
            }
        }
        _ => Err(TypeProblem::Unknown),
    }
}

fn read_map(
    value: &Value,
    ptr: &str,
    repairs: &mut Vec<Repair>,
) -> Option<IndexMap<String, Schema>> {
    let map = value.as_object()?;
    Some(
        map.iter()
            .map(|(k, v)| (k.clone(), read(v, &pointer::push(ptr, k), repairs)))
            .collect(),
    )
}

fn read_list(value: &Value, ptr: &str, repairs: &mut Vec<Repair>) -> Option<Vec<Schema>> {
    let items = value.as_array()?;
    Some(
        items
            .iter()
            .enumerate()
            .map(|(i, v)| read(v, &pointer::push(ptr, &i.to_string()), repairs))
            .collect(),
    )
}

fn as_string(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

fn as_number(v: &Value) -> Option<Number> {
    match v {
        Value::Number(n) => Some(n.clone()),
        _ => None,
    }
}

enum Count {
    Exact(u64),
    /// A non-negative whole number written as a float (`3.0`).
    Integral,
    Invalid,
}

fn as_count(v: &Value) -> Count {
    match v {
        Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(u), _) => Count::Exact(u),
            (None, Some(f)) if f.fract() == 0.0 && f >= 0.0 => Count::Integral,
            _ => Count::Invalid,
        },
        _ => Count::Invalid,
    }
}

/// "a string", "the number 3", … for messages.
pub(crate) fn describe_json(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() <= 40 => format!("the string {s:?}"),
        Value::String(_) => "a string".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}
