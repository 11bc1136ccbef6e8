//! The turn driver on real git in a temporary repository: a response in, the next messages out,
//! for loaded metadata and a generated module, with invalid, refused, confirmed and cut-off
//! calls.

use std::path::Path;
use std::process::Command as Process;

use atip_runtime::agent::{CallStatus, GeneratedCommands, TurnDriver};
use atip_runtime::{Document, FlattenOptions, LoadedCommands, Provider, Runner};
use serde_json::{json, Value};

mod git {
    atip_runtime::include_atip!("../../examples/atip/git.json");
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let ok = Process::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    git(&["add", "a.txt"]);
    git(&["commit", "-q", "-m", "first"]);
    std::fs::write(dir.path().join("junk.tmp"), "junk\n").unwrap();
    dir
}

fn loaded() -> LoadedCommands {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/atip/git.json");
    let doc = Document::from_path(
        &path,
        atip_runtime::Mode::Strict,
        &FlattenOptions::default(),
    )
    .unwrap();
    LoadedCommands::new(doc, None)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// An Anthropic response with the given `tool_use` blocks (name, input) after some text.
fn anthropic(calls: &[(&str, Value)], stop: &str) -> String {
    let mut content = vec![json!({"type": "text", "text": "Working on it."})];
    for (i, (name, input)) in calls.iter().enumerate() {
        content.push(
            json!({"type": "tool_use", "id": format!("toolu_{i}"), "name": name, "input": input}),
        );
    }
    json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
           "content": content, "stop_reason": stop})
    .to_string()
}

#[test]
fn one_turn_runs_valid_calls_and_answers_every_call() {
    let dir = repo();
    let runner = Runner::new().current_dir(dir.path());
    let mut driver = TurnDriver::new(Provider::Anthropic, loaded(), runner);
    let body = anthropic(
        &[
            ("git_status", json!({"short": true})),
            ("git_log", json!({"max_count": "many"})),
            ("git_clean", json!({"force": true})),
            ("git_stauts", json!({})),
        ],
        "tool_use",
    );
    let out = rt().block_on(driver.turn(&body)).unwrap();
    assert!(!out.finished && !out.truncated && !out.budget_spent);
    assert_eq!(out.text, ["Working on it."]);
    let statuses: Vec<&CallStatus> = out.calls.iter().map(|c| &c.status).collect();
    assert_eq!(
        statuses,
        [
            &CallStatus::Ran { success: true },
            &CallStatus::Invalid,
            &CallStatus::Unconfirmed,
            &CallStatus::Invalid,
        ]
    );
    assert!(out.calls[0].result.content.contains("junk.tmp"));
    assert!(out.calls[1].result.content.contains("max_count"));
    assert!(out.calls[3]
        .result
        .content
        .contains("did you mean `git_status`"));
    // The destructive clean did not run: the file is still there.
    assert!(dir.path().join("junk.tmp").exists());
    // The model's turn echoed, then one user message with every result in call order.
    assert_eq!(out.messages.len(), 2);
    assert_eq!(out.messages[0]["role"], "assistant");
    let results = out.messages[1]["content"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    assert_eq!(results[2]["tool_use_id"], "toolu_2");
    assert_eq!(results[2]["is_error"], true);
}

#[test]
fn a_confirmed_destructive_call_runs() {
    let dir = repo();
    let runner = Runner::new().current_dir(dir.path()).confirm_with(
        |req: atip_runtime::ConfirmationRequest| async move { req.invocation.name == "git_clean" },
    );
    let mut driver = TurnDriver::new(Provider::Anthropic, loaded(), runner);
    let body = anthropic(&[("git_clean", json!({"force": true}))], "tool_use");
    let out = rt().block_on(driver.turn(&body)).unwrap();
    assert_eq!(out.calls[0].status, CallStatus::Ran { success: true });
    assert!(!dir.path().join("junk.tmp").exists());
}

#[test]
fn a_cut_off_response_runs_nothing_and_asks_again() {
    let dir = repo();
    let mut driver = TurnDriver::new(
        Provider::Anthropic,
        loaded(),
        Runner::new().current_dir(dir.path()),
    );
    let body = anthropic(&[("git_status", json!({}))], "max_tokens");
    let out = rt().block_on(driver.turn(&body)).unwrap();
    assert!(out.truncated);
    assert_eq!(out.calls[0].status, CallStatus::Invalid);
    assert!(out.calls[0].result.content.contains("make the call again"));
}

#[test]
fn text_without_calls_ends_the_loop() {
    let mut driver = TurnDriver::new(Provider::Anthropic, loaded(), Runner::new());
    let out = rt()
        .block_on(driver.turn(&anthropic(&[], "end_turn")))
        .unwrap();
    assert!(out.finished);
    assert_eq!(out.messages.len(), 1);
    assert_eq!(out.text, ["Working on it."]);
}

#[test]
fn the_retry_budget_ends_a_loop_of_invalid_calls() {
    let mut driver = TurnDriver::new(Provider::Anthropic, loaded(), Runner::new()).retry_budget(1);
    let bad = anthropic(&[("git_log", json!({"max_count": "x"}))], "tool_use");
    let first = rt().block_on(driver.turn(&bad)).unwrap();
    assert!(!first.budget_spent);
    let second = rt().block_on(driver.turn(&bad)).unwrap();
    assert!(second.budget_spent);
    let text = second.messages[1]["content"][0]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("stop calling tools"),
        "{}",
        second.messages[1]
    );
}

#[test]
fn generated_modules_drive_the_same_way_in_every_provider_format() {
    let dir = repo();
    let runner = Runner::new().current_dir(dir.path());
    let mut driver = TurnDriver::new(
        Provider::OpenAi,
        GeneratedCommands::<git::Call>::new(),
        runner,
    );
    assert_eq!(driver.definitions().len(), git::Call::NAMES.len());
    let body = json!({"id": "c", "object": "chat.completion", "model": "m", "choices": [{
        "index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "git_status", "arguments": "{\"porcelain\": true}"}}]}}]})
    .to_string();
    let out = rt().block_on(driver.turn(&body)).unwrap();
    assert_eq!(out.calls[0].status, CallStatus::Ran { success: true });
    assert_eq!(
        out.calls[0].argv.as_ref().unwrap(),
        &["git", "status", "--porcelain"]
    );
    assert_eq!(out.messages[0]["role"], "assistant");
    assert_eq!(out.messages[1]["role"], "tool");
    assert_eq!(out.messages[1]["tool_call_id"], "call_1");
    assert!(out.messages[1]["content"]
        .as_str()
        .unwrap()
        .contains("junk.tmp"));
}
