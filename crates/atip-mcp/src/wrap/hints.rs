//! A wrapped server's tool annotations as effects, on the safe side. MCP's hints
//! (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`; MCP specification,
//! "Tool annotations") are the server's own claims: a hint that is absent is unknown here, not
//! the protocol's default, and unknown is what the policy asks a person about. A lying hint
//! gets past the policy but not the sandbox the server runs in.

use atip_runtime::{Effects, FilesystemEffects};
use serde_json::Value;

/// The effects a tool's `annotations` claim: `readOnlyHint: true` — nothing destroyed,
/// written or deleted; otherwise `destructiveHint` as given; `idempotentHint` as given;
/// `openWorldHint` as `network`. Absent hints, and hints that are not booleans, stay unknown.
pub fn effects_of(annotations: Option<&Value>) -> Effects {
    let hint = |name: &str| {
        annotations
            .and_then(|a| a.get(name))
            .and_then(Value::as_bool)
    };
    let mut effects = Effects::UNKNOWN;
    if hint("readOnlyHint") == Some(true) {
        effects.destructive = Some(false);
        effects.filesystem = Some(FilesystemEffects {
            read: Some(true),
            write: Some(false),
            delete: Some(false),
            ..FilesystemEffects::default()
        });
    } else {
        effects.destructive = hint("destructiveHint");
    }
    effects.idempotent = hint("idempotentHint");
    effects.network = hint("openWorldHint");
    effects
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_hints_are_unknown_and_read_only_means_nothing_written() {
        assert_eq!(effects_of(None), Effects::UNKNOWN);
        assert_eq!(effects_of(Some(&json!({}))), Effects::UNKNOWN);
        let read = effects_of(Some(&json!({"readOnlyHint": true, "openWorldHint": false})));
        assert_eq!(read.destructive, Some(false));
        assert_eq!(read.filesystem_write(), Some(false));
        assert_eq!(read.network, Some(false));
        // A destructive hint beside a read-only one is meaningless (MCP): read-only wins.
        let both = effects_of(Some(
            &json!({"readOnlyHint": true, "destructiveHint": true}),
        ));
        assert_eq!(both.destructive, Some(false));
        let writer = effects_of(Some(
            &json!({"readOnlyHint": false, "destructiveHint": false}),
        ));
        assert_eq!(writer.destructive, Some(false));
        assert_eq!(writer.filesystem, None);
        let wrong = effects_of(Some(&json!({"readOnlyHint": "yes", "destructiveHint": 0})));
        assert_eq!(wrong, Effects::UNKNOWN);
    }
}
