//! Command output that is JSON, kept as JSON: detected, redacted as text, and cut to size by
//! eliding array items — never by cutting bytes, which would leave invalid JSON.

use serde_json::Value;

/// A JSON result that fits a byte budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Structured {
    /// The value, with array items elided where needed.
    pub value: Value,
    /// Its compact JSON text, at most the budget (or the smallest form elision reaches).
    pub text: String,
    /// How many array items were left out.
    pub elided: usize,
}

/// Parses `text` as a JSON object or array (surrounding whitespace allowed); `None` for
/// anything else — scalars, several documents, JSON lines, invalid JSON.
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

/// Fits `value` into `max_bytes` of compact JSON by removing items from the end of its
/// largest arrays, one array at a time, until it fits or no array has items left. The
/// result stays valid JSON of the same shape; [`Structured::elided`] says how many items went.
pub fn fit(mut value: Value, max_bytes: usize) -> Structured {
    let mut text = value.to_string();
    let mut elided = 0;
    while text.len() > max_bytes {
        let excess = text.len() - max_bytes;
        let Some(array) = largest_array(&mut value) else {
            break;
        };
        // Remove about as many items as the excess needs, judged by the average item size,
        // then measure again; at least one.
        let bytes: usize = array.iter().map(|v| v.to_string().len() + 1).sum();
        let average = (bytes / array.len().max(1)).max(1);
        let remove = (excess / average + 1).min(array.len());
        array.truncate(array.len() - remove);
        elided += remove;
        text = value.to_string();
    }
    Structured {
        value,
        text,
        elided,
    }
}

/// The non-empty array with the longest serialised items, anywhere in `value`.
fn largest_array(value: &mut Value) -> Option<&mut Vec<Value>> {
    fn size(v: &Value) -> usize {
        match v {
            Value::Array(items) if !items.is_empty() => v.to_string().len(),
            _ => 0,
        }
    }
    fn best(v: &Value, path: &mut Vec<usize>, found: &mut (usize, Vec<usize>)) {
        match v {
            Value::Array(items) => {
                let s = size(v);
                if s > found.0 {
                    *found = (s, path.clone());
                }
                for (i, item) in items.iter().enumerate() {
                    path.push(i);
                    best(item, path, found);
                    path.pop();
                }
            }
            Value::Object(map) => {
                for (i, item) in map.values().enumerate() {
                    path.push(i);
                    best(item, path, found);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut found = (0, Vec::new());
    best(value, &mut Vec::new(), &mut found);
    if found.0 == 0 {
        return None;
    }
    let mut at = value;
    for i in found.1 {
        at = match at {
            Value::Array(items) => &mut items[i],
            Value::Object(map) => map.values_mut().nth(i)?,
            _ => return None,
        };
    }
    match at {
        Value::Array(items) => Some(items),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let fitted = fit(value.clone(), 2000);
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
        let untouched = fit(value.clone(), full);
        assert_eq!(untouched.elided, 0);
        assert_eq!(untouched.value, value);
        // Nothing left to elide: the smallest form is returned, over budget.
        let tiny = fit(json!({"k": "x".repeat(100)}), 10);
        assert_eq!(tiny.elided, 0);
        assert!(tiny.text.len() > 10);
    }
}
