//! Small edits of a schema object the rewriter makes: taking and renaming keywords, merging
//! `allOf` branches, nullable forms, notes about what a target cannot say.

use serde_json::{Map, Value};

use crate::schema::{InstanceType, Schema, SchemaObject, SchemaType};

/// `null`'s own branch: `{"type": "null"}`, perhaps with a description.
pub(super) fn is_null_branch(s: &Schema) -> bool {
    match s {
        Schema::Object(o) => {
            matches!(o.schema_type, Some(SchemaType::Single(InstanceType::Null)))
                && o.properties.is_none()
                && o.any_of.is_none()
                && o.one_of.is_none()
        }
        Schema::Bool(_) => false,
    }
}

pub(super) fn take(o: &mut SchemaObject, key: &str) {
    if key == "anyOf" {
        o.any_of = None;
    } else {
        o.one_of = None;
    }
}

/// Copies `branch`'s keywords that `o` lacks into `o`. With `union`, `properties` and
/// `required` are merged; keywords both set to different values are returned (and `o` keeps
/// its own).
pub(super) fn merge_into(o: &mut SchemaObject, branch: &Schema, union: bool) -> Map<String, Value> {
    let mut conflicts = Map::new();
    let Schema::Object(b) = branch else {
        if let Schema::Bool(false) = branch {
            conflicts.insert("false".to_owned(), Value::Bool(false));
        }
        return conflicts;
    };
    let key_order = o.key_order.clone();
    let mut mine = match o.to_value() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    for (k, v) in b.to_map() {
        match (mine.get_mut(&k), k.as_str()) {
            (None, _) => {
                mine.insert(k, v);
            }
            (Some(Value::Object(props)), "properties") if union => {
                if let Value::Object(theirs) = v {
                    for (name, s) in theirs {
                        props.entry(name).or_insert(s);
                    }
                }
            }
            (Some(Value::Array(req)), "required") if union => {
                if let Value::Array(theirs) = v {
                    for r in theirs {
                        if !req.contains(&r) {
                            req.push(r);
                        }
                    }
                }
            }
            (Some(existing), _) => {
                if *existing != v {
                    conflicts.insert(k, v);
                }
            }
        }
    }
    let (mut merged, _) = SchemaObject::from_value(&Value::Object(mine));
    let mut order = key_order;
    for k in merged.key_order.iter() {
        if !order.contains(k) {
            order.push(k.clone());
        }
    }
    merged.key_order = order;
    *o = merged;
    conflicts
}

/// The schema a `$ref` pointed to, with the keywords written beside the `$ref` on top.
pub(super) fn overlay(target: Schema, rest: SchemaObject) -> SchemaObject {
    let mut base = match target {
        Schema::Object(t) => *t,
        Schema::Bool(true) => SchemaObject::default(),
        Schema::Bool(false) => SchemaObject {
            not: Some(Schema::any()),
            ..SchemaObject::default()
        },
    };
    base.key_order.clear();
    let mut map = match base.to_value() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    for (k, v) in rest.to_map() {
        map.insert(k, v);
    }
    SchemaObject::from_value(&Value::Object(map)).0
}

/// JSON Schema has no `nullable`: `nullable: true` becomes `null` among the types.
pub(super) fn nullable_to_json(o: &mut SchemaObject) {
    if let Some(true) = o.nullable.take() {
        make_nullable_json(o);
    }
}

/// Lets `o` accept `null` as well, in plain JSON Schema.
pub(crate) fn make_nullable_json(o: &mut SchemaObject) {
    if let Some(c) = o.const_value.take() {
        o.enum_values = Some(vec![c]);
        rename(&mut o.key_order, "const", "enum");
    }
    if let Some(values) = &mut o.enum_values {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
    match &mut o.schema_type {
        Some(t) if !t.contains(InstanceType::Null) => {
            let mut types = t.types().to_vec();
            types.push(InstanceType::Null);
            *t = SchemaType::Union(types);
        }
        Some(_) => {}
        None => {
            if let Some(any) = &mut o.any_of {
                if !any.iter().any(is_null_branch) {
                    any.push(Schema::of_type(InstanceType::Null));
                }
            }
        }
    }
}

pub(super) fn rename(order: &mut [String], from: &str, to: &str) {
    if order.iter().any(|k| k == to) {
        return;
    }
    for k in order.iter_mut().filter(|k| *k == from) {
        *k = to.to_owned();
    }
}

/// `keyword: value` for a description.
pub(super) fn note(keyword: &str, value: &Value) -> String {
    format!("{keyword}: {value}")
}

/// Appends `(note; note)` to the description.
pub(super) fn append_notes(o: &mut SchemaObject, notes: Vec<String>) {
    if notes.is_empty() {
        return;
    }
    let joined = notes.join("; ");
    o.description = Some(match o.description.take() {
        Some(d) if !d.trim().is_empty() => format!("{} ({joined})", d.trim_end()),
        _ => format!("({joined})"),
    });
}

/// A `$ref` fragment is URI-encoded: `%24defs` and the like, decoded.
pub(super) fn decode_fragment(fragment: &str) -> String {
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| fragment.to_owned())
}
