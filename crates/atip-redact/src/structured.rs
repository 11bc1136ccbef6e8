//! Command output that is JSON, kept as JSON: detected, redacted as text, and cut to size by
//! eliding array items — never by cutting bytes, which would leave invalid JSON. Output that
//! elision cannot bring under the budget is left to the caller to cut as plain text.
//!
//! Cost: the value is measured once (one walk, no text written), each round of elision
//! updates those sizes for what it removed, and the rounds are capped, so fitting is linear in
//! the size of the value, whatever its shape.

use std::fmt::Write as _;

use serde_json::Value;

/// How many arrays [`fit`] elides items from before it gives up on keeping the JSON whole.
/// A round costs a scan of the value's arrays and objects (not of its text); output with one
/// large list (the usual shape) needs one round.
pub const MAX_ELISION_ROUNDS: usize = 16;

/// A JSON result that fits a byte budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Structured {
    /// The value, with array items elided where needed.
    pub value: Value,
    /// Its compact JSON text (`serde_json::to_string`), at most the budget in bytes.
    pub text: String,
    /// How many array items were left out.
    pub elided: usize,
}

/// Parses `text` as a JSON object or array (surrounding whitespace allowed); `None` for
/// anything else — scalars, several documents, JSON lines, invalid JSON, or nesting deeper
/// than serde_json's limit of 128 levels.
pub fn detect(text: &str) -> Option<Value> {
    let t = text.trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    match serde_json::from_str::<Value>(t) {
        Ok(v @ (Value::Object(_) | Value::Array(_))) => Some(v),
        _ => None,
    }
}

/// Fits `value` into `max_bytes` bytes of compact JSON by removing items from the end of its
/// largest array (the one with the longest compact text, anywhere in the value), as many as
/// the excess needs, then from the next largest, for at most [`MAX_ELISION_ROUNDS`] arrays.
/// The result is valid JSON of the same shape with the first items of every array kept;
/// [`Structured::elided`] says how many items went.
///
/// `None` when that cannot bring the text within `max_bytes`: too little in arrays (long
/// strings, many keys), too many arrays to empty, or a budget under 2 bytes. The caller then
/// cuts the text as plain text, as the runtime's `Output::format` does.
///
/// Time and memory: linear in the value's size. It is measured once (one walk, no text
/// written), into a table of every array's and object's size (about 32 bytes per array or
/// object), which each round updates for what it removed; the text is written once at the
/// end. It stops as soon as the rounds left could not remove the excess even by emptying the
/// largest array each time. The walk recurses once per level of nesting, as serde_json's own
/// writer does.
pub fn fit(mut value: Value, max_bytes: usize) -> Option<Structured> {
    let mut nodes = Vec::new();
    let mut total = measure(&value, NO_PARENT, &mut nodes);
    let mut elided = 0;
    for round in 0..=MAX_ELISION_ROUNDS {
        if total <= max_bytes {
            let text = value.to_string();
            debug_assert_eq!(text.len(), total, "the measure is serde_json's length");
            return Some(Structured {
                value,
                text,
                elided,
            });
        }
        // No array with items left: nothing more to elide.
        let (id, size) = largest_array(&nodes)?;
        let excess = total - max_bytes;
        // A round saves less than the largest array's size, and arrays only shrink: when
        // the rounds left cannot save the excess even so, stop now (the shape of output made
        // of many small arrays).
        if (MAX_ELISION_ROUNDS - round).saturating_mul(size) < excess {
            return None;
        }
        let Some(Value::Array(items)) = container_mut(&mut value, &nodes, id) else {
            return None;
        };
        // Each item's size and, for an array or object, its number.
        let mut child = id + 1;
        let sized: Vec<(usize, Option<usize>)> = items
            .iter()
            .map(|item| match item {
                Value::Array(_) | Value::Object(_) => {
                    let this = child;
                    child = nodes[this].end;
                    (nodes[this].size, Some(this))
                }
                scalar => (compact_len(scalar), None),
            })
            .collect();
        let mut saved = 0;
        let mut keep = items.len();
        while keep > 0 && saved < excess {
            keep -= 1;
            // An item after the first goes with the comma before it.
            saved += sized[keep].0 + usize::from(keep > 0);
        }
        elided += items.len() - keep;
        items.truncate(keep);
        // What went is no longer a candidate; the array and everything around it shrank.
        if let Some(first) = sized[keep..].iter().find_map(|(_, number)| *number) {
            let end = nodes[id].end;
            for gone in &mut nodes[first..end] {
                gone.size = 0;
            }
        }
        let mut at = id;
        while at != NO_PARENT {
            nodes[at].size -= saved;
            at = nodes[at].parent;
        }
        total -= saved;
    }
    None
}

/// An array or object of the value being fitted, numbered in pre-order.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// Its compact JSON size in bytes; 0 once it has been elided with its parent's item.
    size: usize,
    /// The number after the last array or object inside it.
    end: usize,
    /// The number of the array or object it is in, or [`NO_PARENT`].
    parent: usize,
    /// Whether it is an array.
    array: bool,
}

/// [`Node::parent`] of the outermost value.
const NO_PARENT: usize = usize::MAX;

/// [`compact_len`] of `value`, recording each array and object in it, in pre-order, in
/// `nodes`.
fn measure(value: &Value, parent: usize, nodes: &mut Vec<Node>) -> usize {
    let (array, items) = match value {
        Value::Array(items) => (true, items.len()),
        Value::Object(map) => (false, map.len()),
        scalar => return compact_len(scalar),
    };
    let id = nodes.len();
    nodes.push(Node {
        size: 0,
        end: 0,
        parent,
        array,
    });
    let mut size = 2 + items.saturating_sub(1);
    match value {
        Value::Array(items) => {
            for item in items {
                size += measure(item, id, nodes);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                size += string_len(key) + 1 + measure(item, id, nodes);
            }
        }
        _ => {}
    }
    nodes[id].size = size;
    nodes[id].end = nodes.len();
    size
}

/// The number and size of the largest array with items (the first of equal ones: as none
/// of those holds another, pre-order and post-order agree on which).
fn largest_array(nodes: &[Node]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for (id, node) in nodes.iter().enumerate() {
        // `[]` is 2 bytes; an array with an item is at least 3.
        if node.array && node.size > 2 && best.is_none_or(|(_, most)| node.size > most) {
            best = Some((id, node.size));
        }
    }
    best
}

/// The array or object numbered `target` (as [`measure`] numbered them), found by descending
/// into the child whose numbers hold it.
fn container_mut<'v>(value: &'v mut Value, nodes: &[Node], target: usize) -> Option<&'v mut Value> {
    /// Among `children` of the node numbered `id`, the one holding `target`, and its number.
    fn holding<'v>(
        children: impl Iterator<Item = &'v mut Value>,
        id: usize,
        nodes: &[Node],
        target: usize,
    ) -> Option<(&'v mut Value, usize)> {
        let mut child = id + 1;
        for item in children {
            if matches!(item, Value::Array(_) | Value::Object(_)) {
                let end = nodes.get(child)?.end;
                if target < end {
                    return Some((item, child));
                }
                child = end;
            }
        }
        None
    }
    let mut at = value;
    let mut id = 0;
    while id != target {
        (at, id) = match at {
            Value::Array(items) => holding(items.iter_mut(), id, nodes, target)?,
            Value::Object(map) => holding(map.values_mut(), id, nodes, target)?,
            _ => return None,
        };
    }
    Some(at)
}

/// The length in bytes of `value`'s compact JSON text, exactly as `serde_json::to_string`
/// writes it, computed without writing it.
pub fn compact_len(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_len(n),
        Value::String(s) => string_len(s),
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) + items.iter().map(compact_len).sum::<usize>()
        }
        Value::Object(map) => {
            2 + map.len().saturating_sub(1)
                + map
                    .iter()
                    .map(|(key, item)| string_len(key) + 1 + compact_len(item))
                    .sum::<usize>()
        }
    }
}

/// A string's length as JSON: quotes, `\"`, `\\` and the short escapes of `\b \f \n \r \t`
/// take two bytes, other control characters six (`\u001f`), everything else (DEL and
/// non-ASCII included) itself.
fn string_len(s: &str) -> usize {
    let escaped: usize = s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 2,
            0x00..=0x1f => 6,
            _ => 1,
        })
        .sum();
    escaped + 2
}

/// A number's length as serde_json writes it: integers in full (counted), floats in their
/// shortest round-trip form (formatted, without allocating).
fn number_len(n: &serde_json::Number) -> usize {
    if let Some(u) = n.as_u64() {
        return digits(u);
    }
    if let Some(i) = n.as_i64() {
        return 1 + digits(i.unsigned_abs());
    }
    struct Count(usize);
    impl std::fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing into `Count` cannot fail.
    let _ = write!(count, "{n}");
    count.0
}

/// How many decimal digits `n` has.
fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn only_objects_and_arrays_are_structured() {
        assert_eq!(detect(" {\"a\": 1}\n"), Some(json!({"a": 1})));
        assert_eq!(detect("[1,2]"), Some(json!([1, 2])));
        for text in [
            "42",
            "\"s\"",
            "{\"a\":1}\n{\"b\":2}",
            "[1,",
            "plain text",
            "",
        ] {
            assert_eq!(detect(text), None, "{text}");
        }
    }

    #[test]
    fn elision_keeps_valid_json_and_counts_items() {
        let items: Vec<Value> = (0..1000)
            .map(|i| json!({"id": i, "name": format!("instance-{i}")}))
            .collect();
        let value = json!({"count": 1000, "items": items, "next": null});
        let full = value.to_string().len();
        let fitted = fit(value.clone(), 2000).expect("one list to elide from");
        assert!(fitted.text.len() <= 2000, "{}", fitted.text.len());
        let back: Value = serde_json::from_str(&fitted.text).unwrap();
        assert_eq!(back, fitted.value);
        let kept = back["items"].as_array().unwrap().len();
        assert_eq!(kept + fitted.elided, 1000);
        assert!(kept > 0 && fitted.elided > 900);
        assert_eq!(
            back["items"][0]["name"], "instance-0",
            "the first items stay"
        );
        assert_eq!(back["count"], 1000);
        assert_eq!(
            fitted.text.len(),
            compact_len(&fitted.value),
            "the measure is the text's length"
        );
        assert!(
            fitted.text.len() > 2000 - 40,
            "no more items go than the excess needs: {}",
            fitted.text.len()
        );
        let untouched = fit(value.clone(), full).unwrap();
        assert_eq!(untouched.elided, 0);
        assert_eq!(untouched.value, value);
        assert_eq!(untouched.text, value.to_string());
        // Nothing left to elide: no JSON within the budget, the caller cuts the text.
        assert_eq!(fit(json!({"k": "x".repeat(100)}), 10), None);
        assert_eq!(fit(json!({"k": ["x".repeat(100)]}), 7), None);
        assert_eq!(fit(json!([]), 1), None);
        let emptied = fit(json!({"k": ["x".repeat(100)]}), 8).expect("{\"k\":[]} is 8 bytes");
        assert_eq!(emptied.text, r#"{"k":[]}"#);
        assert_eq!(emptied.elided, 1);
    }

    /// Elision from several arrays, largest first, each losing only what the excess needs.
    #[test]
    fn the_largest_array_loses_items_first_then_the_next() {
        let value = json!({
            "small": [1, 2, 3],
            "big": (0..100).map(|i| format!("item-{i:03}")).collect::<Vec<_>>(),
            "nested": [[10, 20, 30, 40], "x"]
        });
        let full = compact_len(&value);
        // 30 bytes less: items of 11 bytes ("item-099",) from `big`'s end, three of them.
        let fitted = fit(value.clone(), full - 30).unwrap();
        assert_eq!(fitted.elided, 3);
        assert_eq!(fitted.value["big"].as_array().unwrap().len(), 97);
        assert_eq!(fitted.value["big"][96], "item-096");
        assert_eq!(fitted.value["small"], json!([1, 2, 3]));
        assert_eq!(fitted.value["nested"], value["nested"]);
        // Room for little but the skeleton: `big` empties, then `nested`, then `small`.
        let skeleton = r#"{"small":[],"big":[],"nested":[]}"#;
        let fitted = fit(value.clone(), skeleton.len()).unwrap();
        assert_eq!(fitted.text, skeleton);
        assert_eq!(fitted.elided, 3 + 100 + 2);
    }

    /// At most [`MAX_ELISION_ROUNDS`] arrays lose items: sixteen arrays emptied fit, a
    /// seventeenth needed does not.
    #[test]
    fn elision_stops_after_the_round_cap() {
        let value: Value = (0..20)
            .map(|i| (format!("k{i:02}"), json!(["0123456789"])))
            .collect::<serde_json::Map<_, _>>()
            .into();
        let full = compact_len(&value);
        // `["0123456789"]` becomes `[]`: 12 bytes each.
        let sixteen = full - 16 * 12;
        let fitted = fit(value.clone(), sixteen).expect("sixteen rounds are enough");
        assert_eq!(fitted.elided, 16);
        assert_eq!(fitted.value["k15"], json!([]), "equal arrays go in order");
        assert_eq!(fitted.value["k16"], json!(["0123456789"]));
        assert_eq!(Some(fitted), reference_fit(value.clone(), sixteen));
        assert_eq!(fit(value.clone(), sixteen - 1), None);
        assert_eq!(reference_fit(value, sixteen - 1), None);
    }

    /// JSON shaped against elision (security review, finding 10): nothing comes back over
    /// the budget, and what does come back is valid JSON of the same shape.
    #[test]
    fn crafted_values_never_come_back_over_the_budget() {
        let budget = crate::DEFAULT_MAX_BYTES;
        let mut deep = json!((0..30_000).collect::<Vec<_>>());
        for level in 0..127 {
            deep = json!([deep, level]);
        }
        let many: serde_json::Map<String, Value> = (0..10_000)
            .map(|i| (format!("k{i:05}"), json!([[i], [[i]], []])))
            .collect();
        let nested: Vec<Value> = (0..10_000).map(|i| json!([[[i, i], [i]], [[]]])).collect();
        let escaped = "\"\\\n\u{1}\u{7f}é😀".repeat(20_000);
        let cases = [
            ("deep", deep, true),
            (
                "10,000 small nested arrays in an object",
                Value::Object(many),
                false,
            ),
            ("arrays of arrays of arrays", Value::Array(nested), true),
            ("long escaped string", json!({"s": escaped}), false),
            (
                "long escaped strings in one list",
                json!([escaped.clone(), escaped]),
                true,
            ),
        ];
        for (what, value, fits) in cases {
            assert!(compact_len(&value) > budget, "{what}");
            match fit(value.clone(), budget) {
                Some(f) => {
                    assert!(fits, "{what}: expected no JSON within the budget");
                    assert!(f.text.len() <= budget, "{what}: {}", f.text.len());
                    assert!(f.elided > 0, "{what}");
                    let back: Value = serde_json::from_str(&f.text).unwrap();
                    assert_eq!(back, f.value, "{what}");
                }
                None => assert!(!fits, "{what}: expected elision to fit it"),
            }
        }
    }

    /// Strings exercising every escape serde_json writes.
    fn tricky_strings() -> Vec<String> {
        let mut all: String = (0u8..=0x7f).map(char::from).collect();
        all.push_str("é✓😀\u{2028}\u{feff}");
        vec![
            String::new(),
            all,
            "\"\\/".into(),
            "\u{0}\u{1f}\u{7f}".into(),
        ]
    }

    #[test]
    fn compact_len_is_serde_jsons_length() {
        let mut values = vec![
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-1),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(0.1),
            json!(-1.5e300),
            json!(1e-7),
            json!(f64::MAX),
            json!(f64::MIN_POSITIVE),
            json!(100.0),
            json!([]),
            json!({}),
            json!([[], [[]], {}, {"": []}]),
        ];
        for s in tricky_strings() {
            values.push(json!(s.clone()));
            values.push(json!({ s.clone(): [s] }));
        }
        for v in values {
            assert_eq!(
                compact_len(&v),
                serde_json::to_string(&v).unwrap().len(),
                "{v}"
            );
        }
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let number = prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from), // NaN and infinities become null
        ];
        let string = prop_oneof![
            any::<String>(),
            "[\\x00-\\x7f]{0,12}",
            "[\"\\\\\\x00-\\x1f\\x7fé😀]{0,12}",
        ];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            number,
            string.clone().prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 64, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((string.clone(), inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    /// The array numbered `index` among arrays in pre-order, counting from `*seen`.
    fn nth_array<'v>(
        value: &'v mut Value,
        index: usize,
        seen: &mut usize,
    ) -> Option<&'v mut Vec<Value>> {
        match value {
            Value::Array(items) => {
                if *seen == index {
                    return Some(items);
                }
                *seen += 1;
                items
                    .iter_mut()
                    .find_map(|item| nth_array(item, index, seen))
            }
            Value::Object(map) => map
                .values_mut()
                .find_map(|item| nth_array(item, index, seen)),
            _ => None,
        }
    }

    /// What [`fit`] must give, the slow way: the text written out each round, sizes taken
    /// from it, and items removed one at a time; no early stop.
    fn reference_fit(mut value: Value, max_bytes: usize) -> Option<Structured> {
        /// Pre-order number and text length of the largest non-empty array (the first to
        /// end, in post-order, of equal lengths).
        fn largest(v: &Value, seen: &mut usize, best: &mut Option<(usize, usize)>) {
            match v {
                Value::Array(items) => {
                    let index = *seen;
                    *seen += 1;
                    for item in items {
                        largest(item, seen, best);
                    }
                    let len = v.to_string().len();
                    if !items.is_empty() && best.is_none_or(|(most, _)| len > most) {
                        *best = Some((len, index));
                    }
                }
                Value::Object(map) => map.values().for_each(|item| largest(item, seen, best)),
                _ => {}
            }
        }
        let mut elided = 0;
        for round in 0..=MAX_ELISION_ROUNDS {
            let text = value.to_string();
            if text.len() <= max_bytes {
                return Some(Structured {
                    value,
                    text,
                    elided,
                });
            }
            let mut best = None;
            largest(&value, &mut 0, &mut best);
            let (_, index) = best?;
            if round == MAX_ELISION_ROUNDS {
                return None;
            }
            let items = nth_array(&mut value, index, &mut 0)?;
            let mut len = text.len();
            let full = items.len();
            // Each item out, measured by writing the array again, until the excess is gone.
            while !items.is_empty() && len > max_bytes {
                let before = Value::Array(items.clone()).to_string().len();
                items.pop();
                len -= before - Value::Array(items.clone()).to_string().len();
            }
            elided += full - items.len();
        }
        None
    }

    proptest! {
        #[test]
        fn fit_gives_what_the_slow_way_gives(v in any_value(), share in 0.0f64..1.0) {
            // A budget of some share of the value's size: most need a few rounds.
            let budget = (compact_len(&v) as f64 * share) as usize;
            prop_assert_eq!(fit(v.clone(), budget), reference_fit(v, budget));
        }

        #[test]
        fn compact_len_matches_serde_json_on_any_value(v in any_value()) {
            prop_assert_eq!(compact_len(&v), serde_json::to_string(&v).unwrap().len());
        }

        #[test]
        fn fit_stays_within_any_budget(v in any_value(), budget in 0usize..400) {
            if let Some(f) = fit(v.clone(), budget) {
                prop_assert!(f.text.len() <= budget);
                prop_assert_eq!(f.text.len(), compact_len(&f.value));
                // Valid JSON; compared as text, since serde_json's float parsing need not
                // give back the very same f64.
                prop_assert!(serde_json::from_str::<Value>(&f.text).is_ok());
                prop_assert_eq!(f.text, f.value.to_string());
            } else {
                prop_assert!(compact_len(&v) > budget);
            }
        }
    }
}
