//! Redaction of what a wrapped server sends: every string of a message but the protocol's own
//! fields, so that a secret reaches the client in no part of a result — text content,
//! structured content, an embedded resource's text, an error message, a log or progress
//! message.

use atip_runtime::filter::ResultFilter;
use serde_json::Value;

/// Redacts every string in `message` except its top-level `jsonrpc`, `id` and `method`, and
/// object keys, and except base64 `blob`s and `data` of binary content (images, audio), which
/// no rule reads. Returns how many secrets were redacted.
pub fn message(filter: &ResultFilter, tool: Option<&str>, message: &mut Value) -> usize {
    let Value::Object(map) = message else {
        return 0;
    };
    map.iter_mut()
        .filter(|(k, _)| !matches!(k.as_str(), "jsonrpc" | "id" | "method"))
        .map(|(_, v)| value(filter, tool, v))
        .sum()
}

fn value(filter: &ResultFilter, tool: Option<&str>, v: &mut Value) -> usize {
    match v {
        Value::String(text) => {
            let (clean, n) = filter.redact_for(tool, text);
            if n > 0 {
                *text = clean.into_owned();
            }
            n
        }
        Value::Array(items) => items.iter_mut().map(|i| value(filter, tool, i)).sum(),
        Value::Object(map) => {
            let binary = matches!(
                map.get("type").and_then(Value::as_str),
                Some("image" | "audio")
            );
            map.iter_mut()
                .filter(|(k, _)| !(k.as_str() == "blob" || (binary && k.as_str() == "data")))
                .map(|(_, v)| value(filter, tool, v))
                .sum()
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_string_but_the_protocol_s_own_fields_is_redacted() {
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
        let n = message(&ResultFilter::new(), None, &mut m);
        assert_eq!(n, 3, "{m}");
        assert!(!m.to_string().contains(&token), "{m}");
        assert_eq!(m["id"], "ghp_not_an_id_but_kept");
        assert_eq!(m["result"]["content"][2]["data"], "aGVsbG8=");
    }
}
