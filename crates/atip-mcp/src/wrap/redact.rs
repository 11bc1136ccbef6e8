//! Redaction of what a wrapped server sends: every string of a message, so that a secret
//! reaches the client in no part of it — text content, structured content, an embedded
//! resource, binary content, an error, a log or progress message, an id, a method, a key.

use atip_runtime::filter::ResultFilter;
use serde_json::Value;

/// Redacts every string in `message` — object keys, ids and method names included — but its
/// top-level `jsonrpc`; a batch (an array) element by element. Binary content (`data`,
/// `blob`) is read too: a secret is redacted wherever the server puts it, even at the cost of
/// a false match inside an image. Returns how many secrets were redacted.
pub fn message(filter: &ResultFilter, tool: Option<&str>, message: &mut Value) -> usize {
    match message {
        Value::Object(map) => object(filter, tool, map, Some("jsonrpc")),
        other => value(filter, tool, other),
    }
}

fn value(filter: &ResultFilter, tool: Option<&str>, v: &mut Value) -> usize {
    match v {
        Value::String(s) => {
            let (clean, n) = text(filter, tool, std::mem::take(s));
            *s = clean;
            n
        }
        Value::Array(items) => items.iter_mut().map(|i| value(filter, tool, i)).sum(),
        Value::Object(map) => object(filter, tool, map, None),
        _ => 0,
    }
}

/// The keys and values of `map`, but the value of `keep`.
fn object(
    filter: &ResultFilter,
    tool: Option<&str>,
    map: &mut serde_json::Map<String, Value>,
    keep: Option<&str>,
) -> usize {
    let mut n = 0;
    for (key, mut v) in std::mem::take(map) {
        if keep != Some(key.as_str()) {
            n += value(filter, tool, &mut v);
        }
        let (key, k) = text(filter, tool, key);
        n += k;
        map.insert(key, v);
    }
    n
}

fn text(filter: &ResultFilter, tool: Option<&str>, text: String) -> (String, usize) {
    let (clean, n) = filter.redact_for(tool, &text);
    if n > 0 {
        (clean.into_owned(), n)
    } else {
        (text, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_string_of_a_message_is_redacted() {
        let token = "ghp_".to_owned() + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5";
        let mut m = json!({
            "jsonrpc": "2.0", "id": "ghp_not_an_id_but_kept", "result": {
                "content": [
                    {"type": "text", "text": format!("token: {token}")},
                    {"type": "resource", "resource": {"uri": "file:///a", "text": token.clone()}},
                    {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}
                ],
                "structuredContent": {"nested": [{"deep": format!("export GH_TOKEN={token}")}]},
                "isError": false
            }
        });
        m["result"]["structuredContent"][token.clone()] = json!(1);
        let n = message(&ResultFilter::new(), None, &mut m);
        assert_eq!(n, 4, "{m}");
        assert!(!m.to_string().contains(&token), "{m}");
        assert_eq!(m["id"], "ghp_not_an_id_but_kept");
        assert_eq!(m["result"]["content"][2]["data"], "aGVsbG8=");
        let mut batch = json!([{"jsonrpc": "2.0", "method": "notifications/message",
                                "params": {"data": format!("GH_TOKEN={token}")}}]);
        assert_eq!(message(&ResultFilter::new(), None, &mut batch), 1);
        assert!(!batch.to_string().contains(&token));
    }
}
