//! Reading a document one node of its command tree at a time.
//!
//! A node (the root or a command) is read in one pass over its text: every member but
//! `commands` becomes a [`Value`]; `commands`, when it is an object, becomes `{}` in the value
//! and its members are kept as raw text, each read when its turn comes. So each byte of a
//! command is parsed once and skipped once per level above it, and a large document is never
//! held as one `Value`.
//!
//! The parser's depth limit (serde_json parses 127 levels of arrays and objects, which keeps
//! its stack bounded) is kept for the whole text: each node is read with the room the levels
//! above it leave, and a node that would nest deeper does not parse.

use indexmap::IndexMap;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Levels of arrays and objects serde_json parses (it refuses the 128th).
pub(super) const MAX_DEPTH: usize = 127;

/// The members of a JSON object as raw text, in order; a name given twice keeps its first
/// place and its last value, as in a `Value`.
pub(super) type Members<'t> = IndexMap<String, &'t RawValue>;

/// A node read from its text: its members (with `commands` as `{}` when it is an object)
/// and its subcommands as raw text.
pub(super) struct Node<'t> {
    pub(super) value: Value,
    pub(super) children: Option<Members<'t>>,
}

/// Reads the node in `text`, found `above` levels of arrays and objects deep in the
/// document.
///
/// # Errors
///
/// When `text` does not parse, or parses only as something other than an object. `None`
/// when it does not parse at all, or would nest deeper than [`MAX_DEPTH`] in the document;
/// otherwise the value, for validation to report it.
pub(super) fn read(text: &str, above: usize) -> Result<Node<'_>, Option<Value>> {
    let room = MAX_DEPTH.saturating_sub(above);
    let mut de = serde_json::Deserializer::from_str(text);
    let node = (NodeSeed { room })
        .deserialize(&mut de)
        .and_then(|node| de.end().map(|()| node));
    match node {
        Ok(node) => Ok(node),
        Err(_) => {
            let mut de = serde_json::Deserializer::from_str(text);
            let value = Bounded { room }
                .deserialize(&mut de)
                .and_then(|value| de.end().map(|()| value));
            Err(value.ok())
        }
    }
}

/// A node: an object whose members get one level less room.
struct NodeSeed {
    room: usize,
}

impl<'de> DeserializeSeed<'de> for NodeSeed {
    type Value = Node<'de>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node<'de>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for NodeSeed {
    type Value = Node<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let room = inner(self.room)?;
        let mut members = Map::new();
        let mut children = None;
        while let Some(key) = map.next_key::<String>()? {
            let value = if key == "commands" {
                match map.next_value_seed(CommandsSeed { room })? {
                    Commands::Object(names) => {
                        children = Some(names);
                        Value::Object(Map::new())
                    }
                    Commands::Other(value) => {
                        children = None;
                        value
                    }
                }
            } else {
                map.next_value_seed(Bounded { room })?
            };
            members.insert(key, value);
        }
        Ok(Node {
            value: Value::Object(members),
            children,
        })
    }
}

/// The room inside a container that had `room`, or the parser's error when there is none.
fn inner<E: serde::de::Error>(room: usize) -> Result<usize, E> {
    room.checked_sub(1)
        .ok_or_else(|| E::custom("recursion limit exceeded"))
}

/// A `commands` member: an object's members as raw text, anything else as a [`Value`].
enum Commands<'t> {
    Object(Members<'t>),
    Other(Value),
}

struct CommandsSeed {
    room: usize,
}

impl<'de> DeserializeSeed<'de> for CommandsSeed {
    type Value = Commands<'de>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CommandsSeed {
    type Value = Commands<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // The commands' own levels are counted when each is read.
        inner::<A::Error>(self.room)?;
        let mut members = Members::new();
        while let Some((name, raw)) = map.next_entry::<String, &'de RawValue>()? {
            members.insert(name, raw);
        }
        Ok(Commands::Object(members))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Bounded { room: self.room }
            .visit_seq(seq)
            .map(Commands::Other)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(Commands::Other(Value::Bool(b)))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
        Ok(Commands::Other(Value::from(n)))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
        Ok(Commands::Other(Value::from(n)))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Self::Value, E> {
        Ok(Commands::Other(Value::from(n)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Commands::Other(Value::String(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(Commands::Other(Value::String(s)))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Commands::Other(Value::Null))
    }
}

/// A [`Value`] with at most `room` levels of arrays and objects.
struct Bounded {
    room: usize,
}

impl<'de> DeserializeSeed<'de> for Bounded {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Bounded {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let room = inner(self.room)?;
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Bounded { room })?;
            members.insert(key, value);
        }
        Ok(Value::Object(members))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let room = inner(self.room)?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(Bounded { room })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `levels` nested arrays around `1`.
    fn nested(levels: usize) -> String {
        format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn a_value_nests_as_deep_as_serde_json_allows_and_no_deeper() {
        for levels in [0, 1, 50, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 400] {
            let text = nested(levels);
            let whole = serde_json::from_str::<Value>(&text);
            let mut de = serde_json::Deserializer::from_str(&text);
            let ours = Bounded { room: MAX_DEPTH }.deserialize(&mut de);
            assert_eq!(ours.is_ok(), whole.is_ok(), "{levels} levels");
            if let (Ok(ours), Ok(whole)) = (ours, whole) {
                assert_eq!(ours, whole);
            }
        }
    }

    #[test]
    fn a_node_gets_the_room_the_levels_above_it_leave() {
        // A command at depth 1 sits 2 levels deep (`$` and `commands`); its member may nest
        // 127 - 3 = 124 levels.
        let node = |levels: usize| format!(r#"{{"options": {}}}"#, nested(levels));
        assert!(read(&node(124), 2).is_ok());
        assert!(matches!(read(&node(125), 2), Err(None)));
        // Whole: `{"commands": {"c": <node>}}` parses exactly when the node read alone does.
        for levels in [123, 124, 125] {
            let whole = format!(r#"{{"commands": {{"c": {}}}}}"#, node(levels));
            assert_eq!(
                serde_json::from_str::<Value>(&whole).is_ok(),
                read(&node(levels), 2).is_ok(),
                "{levels}"
            );
        }
    }

    #[test]
    fn members_keep_their_order_and_commands_stay_raw() {
        let node = read(
            r#"{"b": 1, "commands": {"x": {"a": [1]}, "y": 2, "x": {"z": 3}}, "a": [true, null, 1.5, "s"], "b": 2}"#,
            0,
        )
        .expect("an object");
        assert_eq!(
            node.value,
            serde_json::json!({"b": 2, "commands": {}, "a": [true, null, 1.5, "s"]})
        );
        let children = node.children.expect("commands is an object");
        let raw: Vec<(&str, &str)> = children
            .iter()
            .map(|(k, v)| (k.as_str(), v.get()))
            .collect();
        assert_eq!(raw, [("x", r#"{"z": 3}"#), ("y", "2")]);
        // A `commands` given last as something else stays in the value, for validation.
        let node = read(r#"{"commands": {"x": {}}, "commands": [1]}"#, 0).expect("an object");
        assert_eq!(node.value, serde_json::json!({"commands": [1]}));
        assert!(node.children.is_none());
        // Not an object: the value; not JSON: nothing.
        assert!(matches!(read("[1, 2]", 0), Err(Some(Value::Array(_)))));
        assert!(matches!(read(r#"{"a": "\ud800"}"#, 0), Err(None)));
        assert!(matches!(read(r#"{"a": 1} x"#, 0), Err(None)));
    }
}
