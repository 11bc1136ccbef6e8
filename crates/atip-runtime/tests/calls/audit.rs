//! The audit trail: one JSON line per call for allowed, confirmed, refused and failed calls,
//! with the decision, its reasons, who confirmed, the sandbox, the exit, redactions and
//! truncation. (The `tracing` spans are checked in `tests/alone/traced.rs`, first in a binary of its own:
//! `tracing` caches per call site whether anyone listens, across threads.)

use crate::common;

use atip_runtime::{AuditLog, ConfirmationRequest, EffectRule, Policy, Runner};
use common::{call, rt};
use serde_json::Value;

const READ_ONLY: &str = r#"{"filesystem":{"read":true,"write":false,"delete":false},"network":false,
    "destructive":false,"idempotent":true,"reversible":true}"#;
const DESTRUCTIVE: &str = r#"{"filesystem":{"read":true,"write":false,"delete":false},"network":false,
    "destructive":true,"idempotent":true,"reversible":false}"#;

fn lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn every_call_leaves_one_line_saying_what_happened() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let log = AuditLog::open(&path).unwrap();
    let secret = "ghp_0123456789abcdefghijABCDEFGHIJabcdef12";
    rt().block_on(async {
        let plain = Runner::new().audit_log(log.clone()).max_output_bytes(64);
        // Allowed, with a secret in its output and more output than the cap.
        let long = format!("{secret} {}", "x".repeat(200));
        plain
            .run(&call("call_1", &["echo", &long], READ_ONLY))
            .tool_result()
            .await;
        // Needs a person, none to ask.
        assert!(plain
            .run(&call("call_2", &["true"], DESTRUCTIVE))
            .await
            .is_err());
        // The caller asked someone.
        plain
            .run(&call("call_3", &["true"], DESTRUCTIVE))
            .confirmed(true)
            .await
            .unwrap();
        // A handler says no, then yes.
        let no = Runner::new()
            .audit_log(log.clone())
            .confirm_with(|_: ConfirmationRequest| async { false });
        assert!(no
            .run(&call("call_4", &["true"], DESTRUCTIVE))
            .await
            .is_err());
        let yes = Runner::new()
            .audit_log(log.clone())
            .confirm_with(|_: ConfirmationRequest| async { true });
        yes.run(&call("call_5", &["true"], DESTRUCTIVE))
            .await
            .unwrap();
        // Denied by policy.
        let strict = Runner::new().audit_log(log.clone()).policy(Policy {
            destructive: EffectRule::Deny,
            ..Policy::default()
        });
        assert!(strict
            .run(&call("call_6", &["true"], DESTRUCTIVE))
            .await
            .is_err());
        // Does not start.
        assert!(plain
            .run(&call("call_7", &["atip-no-such-program"], READ_ONLY))
            .await
            .is_err());
        // Fails.
        plain
            .run(&call("call_8", &["false"], READ_ONLY))
            .await
            .unwrap();
    });

    let l = lines(&path);
    assert_eq!(l.len(), 8, "{l:#?}");
    let ids: Vec<&str> = l.iter().map(|r| r["callId"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["call_1", "call_2", "call_3", "call_4", "call_5", "call_6", "call_7", "call_8"]
    );

    let ran = &l[0];
    assert_eq!(ran["tool"], "test_echo");
    assert_eq!(ran["decision"], "allowed");
    assert_eq!(ran["exitCode"], 0);
    assert_eq!(ran["timedOut"], false);
    assert_eq!(ran["redactions"], 1);
    assert!(ran["truncated"].as_u64().unwrap() > 100, "{ran}");
    assert!(
        !ran["sandbox"]["enforced"].as_array().unwrap().is_empty(),
        "{ran}"
    );
    assert!(ran["time"].as_str().unwrap().ends_with('Z'));
    assert!(ran["durationMs"].is_u64());
    assert_eq!(ran["argv"][0], "echo");

    let decisions: Vec<&str> = l.iter().map(|r| r["decision"].as_str().unwrap()).collect();
    assert_eq!(
        decisions,
        [
            "allowed",
            "unconfirmed",
            "confirmed",
            "declined",
            "confirmed",
            "denied",
            "allowed",
            "allowed"
        ]
    );
    let by: Vec<&Value> = l.iter().map(|r| &r["confirmedBy"]).collect();
    assert_eq!(by[2], "caller");
    assert_eq!(by[4], "handler");
    assert!(by[1].is_null() && by[3].is_null());
    for r in [&l[1], &l[2], &l[3], &l[4], &l[5]] {
        assert_eq!(r["reasons"][0]["code"], "destructive", "{r}");
    }
    // Refused calls never ran: no exit, no sandbox, an error.
    for r in [&l[1], &l[3], &l[5]] {
        assert!(r["exitCode"].is_null() && r["sandbox"].is_null(), "{r}");
        assert!(r["error"].is_string(), "{r}");
    }
    assert!(l[6]["error"]
        .as_str()
        .unwrap()
        .contains("atip-no-such-program"));
    assert_eq!(l[7]["exitCode"], 1);
    // The secret itself is not in the log: argv holds it (the model chose it), the output
    // does not appear at all.
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches(secret).count(), 1, "only in call_1's argv");
}
