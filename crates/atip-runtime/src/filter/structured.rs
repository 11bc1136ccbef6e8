//! Command output that is JSON, kept as JSON: detected, redacted as text, and cut to size by
//! eliding array items — never by cutting bytes, which would leave invalid JSON. Output that
//! elision cannot bring under the budget is left to the caller to cut as plain text.
//!
//! Cost: each round of elision measures the value once (one walk, no text written) and the
//! rounds are capped, so fitting is linear in the size of the value, whatever its shape.

use std::fmt::Write as _;

use serde_json::Value;

/// How many arrays [`fit`] elides items from before it gives up on keeping the JSON whole.
/// Each round costs one walk over the value; output with one large list (the usual shape)
/// needs one round.
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
/// cuts the text as plain text, as [`crate::Output::format`] does.
///
/// Time: `O(n × rounds)` for a value of `n` nodes and bytes of text, plus writing the text
/// once; it stops as soon as the rounds left could not remove the excess even by emptying
/// the largest array each time, so output of many small arrays costs one walk. The walk
/// recurses once per level of nesting, as serde_json's own writer does.
pub fn fit(mut value: Value, max_bytes: usize) -> Option<Structured> {
    let mut elided = 0;
    for round in 0..=MAX_ELISION_ROUNDS {
        let mut arrays = 0;
        let mut largest = None;
        let total = measure(&value, &mut arrays, &mut largest);
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
        let (size, index) = largest?;
        let excess = total - max_bytes;
        // A round saves less than the largest array's size, and arrays only shrink: when
        // the rounds left cannot save the excess even so, stop now (the shape of output made
        // of many small arrays).
        if (MAX_ELISION_ROUNDS - round).saturating_mul(size) < excess {
            return None;
        }
        let items = nth_array(&mut value, index, &mut 0)?;
        let mut saved = 0;
        let mut keep = items.len();
        while keep > 0 && saved < excess {
            keep -= 1;
            // An item after the first goes with the comma before it.
            saved += compact_len(&items[keep]) + usize::from(keep > 0);
        }
        elided += items.len() - keep;
        items.truncate(keep);
    }
    None
}

/// The length in bytes of `value`'s compact JSON text, exactly as `serde_json::to_string`
/// writes it, computed without writing it.
pub fn compact_len(value: &Value) -> usize {
    measure(value, &mut 0, &mut None)
}

/// [`compact_len`] of `value`, numbering the arrays in pre-order from `*arrays` on and
/// keeping in `largest` the size and number of the largest non-empty array (the first one,
/// in post-order, of equal sizes).
fn measure(value: &Value, arrays: &mut usize, largest: &mut Option<(usize, usize)>) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_len(n),
        Value::String(s) => string_len(s),
        Value::Array(items) => {
            let index = *arrays;
            *arrays += 1;
            let mut size = 2 + items.len().saturating_sub(1);
            for item in items {
                size += measure(item, arrays, largest);
            }
            if !items.is_empty() && largest.is_none_or(|(most, _)| size > most) {
                *largest = Some((size, index));
            }
            size
        }
        Value::Object(map) => {
            let mut size = 2 + map.len().saturating_sub(1);
            for (key, item) in map {
                size += string_len(key) + 1 + measure(item, arrays, largest);
            }
            size
        }
    }
}

/// The array numbered `index` in pre-order (as [`measure`] numbers them), counting from
/// `*seen`.
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
        let budget = crate::filter::DEFAULT_MAX_BYTES;
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
        fn fit_gives_what_the_slow_way_gives(v in any_value(), budget in 0usize..400) {
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
