//! Sloppy real-world metadata, as generators of metadata (from a CLI's service models, its
//! `--help`, a community crawler) write it: the [`crate::large`] document with options declared
//! twice (identically, or in conflict), options that shadow a global, a giant enum, and a deep
//! command chain. [`Sloppy::expected`] says what lenient loading must report.

use serde_json::{json, Value};

use crate::large::{self, Shape};

/// Every how many operations one gets an identical duplicate of its first option.
pub const IDENTICAL_EVERY: usize = 50;
/// Every how many operations one gets a conflicting duplicate of its first option (offset by
/// 7 so that it never falls on an identical one).
pub const CONFLICTING_EVERY: usize = 200;
/// Every how many operations one declares its own `region`, shadowing the global option.
pub const SHADOWING_EVERY: usize = 100;
/// Values of the giant enum (instance types).
pub const GIANT_ENUM_VALUES: usize = 1_400;
/// Depth of the deep command chain (`deep l1 l2 … lN`).
pub const DEPTH: usize = 12;

/// A sloppy document and what loading it must report.
#[derive(Debug, Clone)]
pub struct Sloppy {
    /// The document's JSON text.
    pub text: String,
    /// What lenient loading must say about it.
    pub expected: Expected,
}

/// The load report lenient mode must give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// Commands that load (every leaf but the skipped ones).
    pub commands: usize,
    /// Identical duplicates merged.
    pub merged: usize,
    /// Command paths left out, in document order.
    pub skipped: Vec<String>,
    /// JSON paths of the conflicting second declarations (strict mode's errors).
    pub conflicts: Vec<String>,
    /// The command path of the command with the giant enum.
    pub giant: String,
    /// The command path at the end of the deep chain.
    pub deep: String,
}

/// `n` instance types (`m5.large`, `c7g.2xlarge`, …), distinct, in a stable order.
pub fn instance_types(n: usize) -> Vec<String> {
    const FAMILIES: [&str; 16] = [
        "m5", "m6i", "m7g", "c5", "c6g", "c7i", "r5", "r6a", "t3", "t4g", "x2idn", "i4i", "g5",
        "p4d", "inf2", "trn1",
    ];
    const SIZES: [&str; 12] = [
        "nano", "micro", "small", "medium", "large", "xlarge", "2xlarge", "4xlarge", "8xlarge",
        "12xlarge", "16xlarge", "metal",
    ];
    let mut out = Vec::with_capacity(n);
    let mut generation = 0;
    'fill: loop {
        for f in FAMILIES {
            for s in SIZES {
                if out.len() == n {
                    break 'fill;
                }
                let family = if generation == 0 {
                    f.to_owned()
                } else {
                    format!(
                        "{f}{}",
                        ['a', 'd', 'n', 'e', 'z', 'b', 'f', 'h'][(generation - 1) % 8]
                    )
                };
                let extra = if generation > 8 {
                    format!("-v{generation}")
                } else {
                    String::new()
                };
                out.push(format!("{family}.{s}{extra}"));
            }
        }
        generation += 1;
    }
    out
}

/// The sloppy form of the aws-like document of `commands` operations (≥ 400, so that every kind
/// of slip occurs).
pub fn document(commands: usize) -> Sloppy {
    let shape = Shape::commands(commands.max(400));
    let mut doc = large::value(&shape);
    let mut index = 0usize;
    let mut merged = 0;
    let mut skipped = Vec::new();
    let mut conflicts = Vec::new();
    let mut giant = String::new();
    let services = doc["commands"].as_object_mut().expect("services");
    for (service, s) in services.iter_mut() {
        let operations = s["commands"].as_object_mut().expect("operations");
        for (operation, o) in operations.iter_mut() {
            let path = format!("{service} {operation}");
            let json_path = format!("$.commands{}.commands{}", key(service), key(operation));
            let options = o["options"].as_array_mut().expect("options");
            let first = options[0].clone();
            if index.is_multiple_of(IDENTICAL_EVERY) {
                options.push(first.clone());
                merged += 1;
            }
            if index % CONFLICTING_EVERY == 7 {
                let mut conflicting = first.clone();
                conflicting["type"] = json!("boolean");
                conflicting.as_object_mut().map(|m| m.remove("enum"));
                conflicts.push(format!("{json_path}.options[{}]", options.len()));
                options.push(conflicting);
                skipped.push(path.clone());
            }
            if index % SHADOWING_EVERY == 3 {
                options.push(
                    json!({"name": "region", "flags": ["--region"], "type": "string",
                                    "description": "The region of this operation's resource"}),
                );
            }
            if index == 11 {
                options.push(json!({
                    "name": "instance-type", "flags": ["--instance-type"], "type": "enum",
                    "enum": instance_types(GIANT_ENUM_VALUES),
                    "description": "The instance type to launch"
                }));
                giant = path.clone();
            }
            index += 1;
        }
    }
    // A deep chain: deep → l1 → … → lDEPTH, a leaf at the bottom.
    let mut node = json!({
        "description": "The operation at the bottom of a deep chain",
        "options": [{"name": "depth", "flags": ["--depth"], "type": "integer", "description": "How deep"}],
        "effects": {"filesystem": {"read": true, "write": false, "delete": false},
                    "network": true, "destructive": false, "idempotent": true}
    });
    let mut deep = vec!["deep".to_owned()];
    for level in (1..=DEPTH).rev() {
        node = json!({"description": format!("Level {level}"),
                      "commands": {format!("l{level}"): node}});
    }
    for level in 1..=DEPTH {
        deep.push(format!("l{level}"));
    }
    doc["commands"]
        .as_object_mut()
        .expect("services")
        .insert("deep".into(), node);
    let commands = shape.command_count() + 1 - skipped.len();
    Sloppy {
        text: serde_json::to_string_pretty(&doc).unwrap_or_default(),
        expected: Expected {
            commands,
            merged,
            skipped,
            conflicts,
            giant,
            deep: deep.join(" "),
        },
    }
}

/// A JSON path member as diagnostics write it: `.name`, or `['odd-name']`.
fn key(k: &str) -> String {
    let plain = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        format!(".{k}")
    } else {
        format!("['{k}']")
    }
}

/// The document as a JSON value (for tests that edit it further).
pub fn value(commands: usize) -> Value {
    serde_json::from_str(&document(commands).text).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_types_are_distinct_and_long_enough_to_break_openai_strict() {
        let v = instance_types(GIANT_ENUM_VALUES);
        let set: std::collections::HashSet<&String> = v.iter().collect();
        assert_eq!(set.len(), GIANT_ENUM_VALUES);
        assert!(v.iter().map(String::len).sum::<usize>() > 15_000);
    }
}
