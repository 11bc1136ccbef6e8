//! Secrets the runner itself hands a command — the values of variables named like secrets in
//! its environment (`GH_PAT`, `OPENAI_KEY`, a declared `authentication` variable) — are
//! redacted by value from everything a model is sent, whatever their shape: a command that
//! prints `$GH_PAT`, or `env`, gives the value back in no form a rule recognises.
//!
//! `sh` appears here only as a test program that prints its environment.

#![cfg(all(unix, feature = "exec"))]

use crate::common::rt;
use atip_runtime::{exec::OutputChunk, Effects, Invocation, Runner, Sandbox};

const HEX: &str = "4f1c2b9a8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b";
const OPAQUE: &str = "abcdEFGH1234ijklMNOP5678qrstUVWX";
const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

fn sh(script: &str) -> Invocation {
    Invocation::new(
        "printer",
        vec!["/bin/sh".into(), "-c".into(), script.into()],
        Effects::UNKNOWN.with_destructive(false),
    )
}

fn runner() -> Runner {
    Runner::new()
        .sandbox(Sandbox::off())
        .env("GH_PAT", HEX)
        .env("OPENAI_KEY", OPAQUE)
        .env("AWS_SECRET_ACCESS_KEY", AWS_SECRET)
        .env("AWS_REGION", "eu-central-1")
        .env("SHORT_KEY", "abc12")
}

#[test]
fn values_of_secret_variables_are_redacted_in_the_result() {
    rt().block_on(async {
        let out = runner()
            .run(&sh(
                r#"printf '%s\n%s\n%s\n' "$GH_PAT" "$OPENAI_KEY" "$AWS_SECRET_ACCESS_KEY"; env; echo "$SHORT_KEY""#,
            )).tool_result()
            .await;
        for value in [HEX, OPAQUE, AWS_SECRET] {
            assert!(!out.content.contains(value), "{value} in {}", out.content);
        }
        assert!(out.content.starts_with("[REDACTED]\n[REDACTED]\n[REDACTED]\n"), "{}", out.content);
        // Names stay, and so do values of variables not named like secrets, and values too
        // short to be redacted everywhere they occur.
        assert!(out.content.contains("GH_PAT=[REDACTED]"), "{}", out.content);
        assert!(out.content.contains("AWS_REGION=eu-central-1"), "{}", out.content);
        assert!(out.content.contains("SHORT_KEY=abc12"), "{}", out.content);
        assert!(out.content.contains("\nabc12\n"), "{}", out.content);
        // In stderr too, and in a structured result.
        let out = runner()
            .run(&sh(r#"printf '{"k":"%s"}\n' "$GH_PAT"; printf '%s\n' "$OPENAI_KEY" >&2"#)).tool_result()
            .await;
        assert!(!out.content.contains(HEX) && !out.content.contains(OPAQUE), "{}", out.content);
        let structured = out.structured.map(|s| s.to_string()).unwrap_or_default();
        assert!(!structured.contains(HEX), "{structured}");
    });
}

#[test]
fn values_of_secret_variables_are_redacted_in_a_stream() {
    rt().block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<OutputChunk>(64);
        let collect = tokio::spawn(async move {
            let mut seen = String::new();
            while let Some(chunk) = rx.recv().await {
                seen.push_str(&String::from_utf8_lossy(&chunk.bytes));
            }
            seen
        });
        let r = runner();
        let out = r
            .run(&sh(r#"printf 'x %s y\n' "$GH_PAT""#))
            .stream_to(tx)
            .await
            .unwrap();
        let streamed = collect.await.unwrap();
        assert_eq!(streamed, "x [REDACTED] y\n");
        assert!(r.tool_result(&out).content.starts_with("x [REDACTED] y\n"));
        // The raw output is the caller's, as it always is; its Debug does not show the values.
        assert!(out.stdout_lossy().contains(HEX));
        let debug = format!("{out:?}");
        assert!(
            !debug.contains(OPAQUE) && !debug.contains(AWS_SECRET),
            "{debug}"
        );
    });
}

/// A variable a tool declares for authentication, passed from the runner's own environment.
#[test]
fn a_declared_authentication_variable_is_redacted_by_value() {
    // SAFETY (test): set before any thread of this test reads the environment; the name is
    // used by no other test.
    unsafe { std::env::set_var("KNOWN_SECRETS_TEST_GH_TOKEN", HEX) };
    let json = r#"{"atip": {"version": "0.6"}, "name": "printenv", "version": "1",
      "description": "print a variable",
      "authentication": {"required": true,
        "methods": [{"type": "token", "envVar": "KNOWN_SECRETS_TEST_GH_TOKEN"}]},
      "commands": {"": {"description": "print one variable",
        "effects": {"destructive": false, "network": false, "idempotent": true,
                    "filesystem": {"read": true, "write": false, "delete": false}},
        "arguments": [{"name": "name", "type": "string", "required": true,
                       "description": "variable"}]}}}"#;
    let doc = atip_runtime::Document::parse(
        json,
        &atip_runtime::LoadOptions::strict(),
        &atip_runtime::FlattenOptions::default(),
    )
    .unwrap();
    let tool = atip_runtime::LoadedCommands::new(doc, None);
    let call = atip_runtime::ToolCall::new(
        None,
        "printenv",
        serde_json::json!({"name": "KNOWN_SECRETS_TEST_GH_TOKEN"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let invocation = atip_runtime::command::dispatch::Dispatch::invocation(&tool, &call).unwrap();
    rt().block_on(async {
        let out = Runner::new().run(&invocation).tool_result().await;
        assert!(!out.content.contains(HEX), "{}", out.content);
        assert!(out.content.starts_with("[REDACTED]"), "{}", out.content);
    });
}
