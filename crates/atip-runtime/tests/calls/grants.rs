//! Session grants: a confirmation answered "for this session" lets later calls of the same
//! command run without asking, as far as the grant's scope reaches; grants are the runner's
//! own, never another runner's, and never turn a refusal into a run.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use atip_runtime::{
    exec::GrantScope, Answer, AuditLog, ConfirmationRequest, EffectRule, Policy, RunError, Runner,
};
use common::{call, rt};
use serde_json::Value;

/// Destructive but reversible: one reason for confirmation under [`policy`].
const DESTRUCTIVE: &str = r#"{"filesystem":{"read":true,"write":false,"delete":false},
    "network":false,"destructive":true,"idempotent":true,"reversible":true}"#;
/// Destructive and not reversible: a second reason.
const DESTRUCTIVE_FOR_GOOD: &str = r#"{"filesystem":{"read":true,"write":false,"delete":false},
    "network":false,"destructive":true,"idempotent":true,"reversible":false}"#;

/// The default policy, and non-reversible calls confirmed too.
fn policy() -> Policy {
    Policy {
        non_reversible: EffectRule::Confirm,
        ..Policy::default()
    }
}

/// A runner whose handler answers `answer` and counts how often it was asked.
fn asking(answer: Answer) -> (Runner, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let runner = Runner::new()
        .policy(policy())
        .confirm_with(move |_: ConfirmationRequest| {
            count.fetch_add(1, Ordering::SeqCst);
            async move { answer }
        });
    (runner, asked)
}

#[test]
fn a_grant_for_the_session_covers_later_calls_with_the_same_reasons_and_no_more() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    rt().block_on(async {
        let (runner, asked) = asking(Answer::ForSession(GrantScope::SameReasons));
        let runner = runner.audit_log(AuditLog::open(&path).unwrap());
        for id in ["call_1", "call_2", "call_3"] {
            let out = runner.run(&call(id, &["true"], DESTRUCTIVE)).await.unwrap();
            assert!(out.success());
        }
        assert_eq!(asked.load(Ordering::SeqCst), 1, "asked once, granted after");
        // A call of the same command with a reason the person did not see is asked about.
        runner
            .run(&call("call_4", &["true"], DESTRUCTIVE_FOR_GOOD))
            .await
            .unwrap();
        assert_eq!(asked.load(Ordering::SeqCst), 2);
        // Another command is asked about too.
        runner
            .run(&call("call_5", &["echo"], DESTRUCTIVE))
            .await
            .unwrap();
        assert_eq!(asked.load(Ordering::SeqCst), 3);
        let grants = runner.grants().list();
        assert_eq!(grants.len(), 3, "{grants:?}");
        assert_eq!(grants[0].command, "test_true");
        assert_eq!(grants[0].origin_call_id.as_deref(), Some("call_1"));
    });
    let lines: Vec<Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["confirmedBy"], "handler");
    // The answer's line shows the grant it created.
    assert_eq!(lines[0]["grant"]["id"], 1);
    for line in &lines[1..3] {
        assert_eq!(line["decision"], "confirmed");
        assert_eq!(line["confirmedBy"], "grant");
        assert_eq!(line["grant"]["originCallId"], "call_1");
        assert_eq!(line["grant"]["scope"], "sameReasons");
        assert_eq!(line["grant"]["grantedBy"], "handler");
        assert_eq!(line["reasons"][0]["code"], "destructive");
    }
    assert_eq!(lines[3]["confirmedBy"], "handler");
}

#[test]
fn a_grant_for_the_command_covers_every_reason_of_that_command_only() {
    rt().block_on(async {
        let (runner, asked) = asking(Answer::ForSession(GrantScope::Command));
        runner
            .run(&call("a", &["true"], DESTRUCTIVE))
            .await
            .unwrap();
        runner
            .run(&call("b", &["true"], DESTRUCTIVE_FOR_GOOD))
            .await
            .unwrap();
        assert_eq!(asked.load(Ordering::SeqCst), 1);
        runner
            .run(&call("c", &["echo"], DESTRUCTIVE))
            .await
            .unwrap();
        assert_eq!(asked.load(Ordering::SeqCst), 2);
    });
}

#[test]
fn once_grants_nothing() {
    rt().block_on(async {
        let (runner, asked) = asking(Answer::Once);
        runner
            .run(&call("a", &["true"], DESTRUCTIVE))
            .await
            .unwrap();
        runner
            .run(&call("b", &["true"], DESTRUCTIVE))
            .await
            .unwrap();
        assert_eq!(asked.load(Ordering::SeqCst), 2);
        assert!(runner.grants().list().is_empty());
    });
}

#[test]
fn grants_end_with_the_runner_and_are_never_shared() {
    rt().block_on(async {
        let (runner, asked) = asking(Answer::ForSession(GrantScope::Command));
        runner
            .run(&call("a", &["true"], DESTRUCTIVE))
            .await
            .unwrap();
        assert_eq!(runner.grants().list().len(), 1);
        // A clone is another runner: same handler, no grants.
        let clone = runner.clone();
        assert!(clone.grants().list().is_empty());
        clone.run(&call("b", &["true"], DESTRUCTIVE)).await.unwrap();
        assert_eq!(asked.load(Ordering::SeqCst), 2);
        // A fresh runner without a handler: the grant of the first does not reach it.
        let other = Runner::new().policy(policy());
        assert!(matches!(
            other.run(&call("c", &["true"], DESTRUCTIVE)).await,
            Err(RunError::NeedsConfirmation(_))
        ));
        // Cleared: asked again.
        runner.grants().clear();
        runner
            .run(&call("d", &["true"], DESTRUCTIVE))
            .await
            .unwrap();
        assert_eq!(asked.load(Ordering::SeqCst), 3);
        assert_eq!(runner.grants().revoke("test_true"), 1);
        assert!(runner.grants().list().is_empty());
    });
}

#[test]
fn a_declined_call_grants_nothing_and_a_grant_never_lifts_a_refusal() {
    rt().block_on(async {
        let (runner, _) = asking(Answer::No);
        assert!(matches!(
            runner.run(&call("a", &["true"], DESTRUCTIVE)).await,
            Err(RunError::Declined(_))
        ));
        assert!(runner.grants().list().is_empty());

        let (runner, asked) = asking(Answer::ForSession(GrantScope::Command));
        runner
            .run(&call("b", &["true"], DESTRUCTIVE))
            .await
            .unwrap();
        let strict = Runner::new().policy(Policy {
            destructive: EffectRule::Deny,
            ..Policy::default()
        });
        // The application copies the grant to a stricter runner: still refused.
        for grant in runner.grants().list() {
            strict.grants().grant(grant);
        }
        assert!(matches!(
            strict.run(&call("c", &["true"], DESTRUCTIVE)).await,
            Err(RunError::Denied { .. })
        ));
        assert_eq!(asked.load(Ordering::SeqCst), 1);
    });
}

#[test]
fn concurrent_calls_of_one_runner_share_its_grants() {
    rt().block_on(async {
        let (runner, asked) = asking(Answer::ForSession(GrantScope::SameReasons));
        runner
            .run(&call("a", &["true"], DESTRUCTIVE))
            .await
            .unwrap();
        let calls: Vec<_> = (0..4)
            .map(|i| call(&format!("b{i}"), &["true"], DESTRUCTIVE))
            .collect();
        let results = runner
            .run_batch(calls, atip_runtime::exec::BatchOptions::default())
            .await;
        assert!(results
            .iter()
            .all(|r| r.as_ref().is_ok_and(|o| o.success())));
        assert_eq!(asked.load(Ordering::SeqCst), 1);
    });
}

/// A destructive invocation described by metadata: titled `title`, program `argv[0]`.
fn described(name: &str, title: &str, argv: &[&str]) -> atip_runtime::Invocation {
    let mut i = call("c", argv, DESTRUCTIVE);
    i.name = atip_runtime::Shared::from(name.to_owned());
    i.title = Some(atip_runtime::Shared::from(title.to_owned()));
    i
}

#[test]
fn a_grant_is_for_one_command_of_one_tool() {
    // Two tools whose commands flatten to one name (`app cache clear`, `app_cache clear`).
    let first = described(
        "app_cache_clear",
        "app cache clear",
        &["echo", "cache", "clear"],
    );
    let second = described("app_cache_clear", "app_cache clear", &["touch", "clear"]);
    let runner = Runner::new().policy(policy());
    let reasons = runner.decide(&first).decision.reasons().to_vec();
    let request = ConfirmationRequest {
        invocation: first.clone(),
        reasons: reasons.clone(),
    };
    let grant = runner
        .grants()
        .grant(request.grant(GrantScope::Command, "test"));
    assert_eq!(grant.id, 1);
    assert!(runner.grants().covering(&first, &reasons).is_some());
    assert!(runner.grants().covering(&second, &reasons).is_none());
}

#[test]
fn a_grant_for_a_bare_command_line_covers_that_command_line_only() {
    let runner = Runner::new().policy(policy());
    let echo = call("a", &["sh", "-c", "echo hi"], DESTRUCTIVE);
    let touch = call("b", &["sh", "-c", "touch PWNED"], DESTRUCTIVE);
    let reasons = runner.decide(&echo).decision.reasons().to_vec();
    for scope in [GrantScope::SameReasons, GrantScope::Command] {
        runner.grants().clear();
        let request = ConfirmationRequest {
            invocation: echo.clone(),
            reasons: reasons.clone(),
        };
        runner.grants().grant(request.grant(scope, "test"));
        assert!(runner.grants().covering(&echo, &reasons).is_some());
        assert!(
            runner.grants().covering(&touch, &reasons).is_none(),
            "{scope:?}"
        );
    }
}

#[test]
fn the_answer_that_grants_is_in_the_audit_log_with_the_grant() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    rt().block_on(async {
        let (runner, _) = asking(Answer::ForSession(GrantScope::SameReasons));
        let runner = runner.audit_log(AuditLog::open(&path).unwrap());
        let mut first = call("x", &["true"], DESTRUCTIVE);
        first.call_id = None;
        runner.run(&first).await.unwrap();
        runner.run(&first).await.unwrap();
    });
    let lines: Vec<Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["confirmedBy"], "handler");
    assert_eq!(lines[0]["grant"]["id"], 1);
    assert_eq!(lines[1]["confirmedBy"], "grant");
    assert_eq!(lines[1]["grant"]["id"], 1);
}
