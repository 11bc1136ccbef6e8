//! The agent example, run as a user runs it, against a local server that speaks each
//! provider's streaming wire format: a valid call runs, an invalid one is answered with its
//! problems, a destructive one asks on stdin and is refused on "n", a response cut short runs
//! nothing, and the final text ends on stdout.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    head: String,
    body: Value,
}

/// Serves `responses` (event-stream bodies) in order, one per connection, and records requests.
fn serve(responses: Vec<String>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        let mut responses = responses.into_iter();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            log.lock().unwrap().push(Seen {
                head,
                body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            });
            let reply = responses.next().unwrap_or_default();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    (base, seen)
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        assert!(Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .unwrap()
            .success());
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    git(&["add", "a.txt"]);
    git(&["commit", "-q", "-m", "first"]);
    std::fs::write(dir.path().join("junk.tmp"), "junk\n").unwrap();
    dir
}

/// Runs the agent in `dir` with `env`, answering `stdin`; (status, stdout, stderr).
fn agent(
    dir: &Path,
    provider: &str,
    env: &[(&str, &str)],
    stdin: &str,
    extra: &[&str],
) -> (i32, String, String) {
    let git = Path::new(env!("CARGO_MANIFEST_DIR")).join("../atip/git.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent"))
        .args(["--provider", provider, "--tools"])
        .arg(&git)
        .args(extra)
        .arg("What is untracked here? Clean it up.")
        .current_dir(dir)
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn sse_data(events: &[Value]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

/// A Chat Completions stream: text, then calls (name, arguments), then the finish reason.
fn chat(text: &str, calls: &[(&str, &str)], finish: &str) -> String {
    let chunk = |delta: Value, fr: Value| {
        json!({"id": "chatcmpl-t", "object": "chat.completion.chunk", "created": 1,
               "model": "gpt-t", "choices": [{"index": 0, "delta": delta, "finish_reason": fr}]})
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    if !text.is_empty() {
        events.push(chunk(json!({"content": text}), Value::Null));
    }
    for (i, (name, args)) in calls.iter().enumerate() {
        events.push(chunk(
            json!({"tool_calls": [{"index": i, "id": format!("call_{i}"), "type": "function",
                                   "function": {"name": name, "arguments": ""}}]}),
            Value::Null,
        ));
        let (a, b) = args.split_at(args.len() / 2);
        for piece in [a, b] {
            events.push(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}),
                Value::Null,
            ));
        }
    }
    events.push(chunk(json!({}), json!(finish)));
    sse_data(&events) + "data: [DONE]\n\n"
}

/// An Anthropic Messages stream: text, then `tool_use` blocks, then the stop reason.
fn anthropic(text: &str, calls: &[(&str, &str)], stop: &str) -> String {
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": "msg_t", "type": "message",
        "role": "assistant", "model": "claude-t", "content": [], "stop_reason": null,
        "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    ];
    let mut index = 0;
    if !text.is_empty() {
        events.push(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}));
        events.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}));
        events.push(json!({"type": "content_block_stop", "index": 0}));
        index = 1;
    }
    for (i, (name, args)) in calls.iter().enumerate() {
        let at = index + i;
        events.push(json!({"type": "content_block_start", "index": at,
            "content_block": {"type": "tool_use", "id": format!("toolu_{i}"), "name": name, "input": {}}}));
        let (a, b) = args.split_at(args.len() / 2);
        for piece in [a, b] {
            events.push(json!({"type": "content_block_delta", "index": at,
                "delta": {"type": "input_json_delta", "partial_json": piece}}));
        }
        events.push(json!({"type": "content_block_stop", "index": at}));
    }
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 9}}));
    events.push(json!({"type": "message_stop"}));
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect()
}

/// The four turns both providers play: valid + invalid calls, a destructive call, a cut-off
/// response, the answer.
fn script(
    stream: fn(&str, &[(&str, &str)], &str) -> String,
    calls: &str,
    cut: &str,
    end: &str,
) -> Vec<String> {
    vec![
        stream(
            "Let me look.",
            &[
                ("git_status", r#"{"short": true}"#),
                ("git_log", r#"{"max_count": "lots"}"#),
            ],
            calls,
        ),
        stream("", &[("git_clean", r#"{"force": true}"#)], calls),
        stream("", &[("git_status", r#"{"porcelain": true}"#)], cut),
        stream(
            "There is one untracked file, junk.tmp; I left it in place.",
            &[],
            end,
        ),
    ]
}

fn check(provider: &str, code: i32, stdout: &str, stderr: &str, dir: &Path, seen: &[Seen]) {
    assert_eq!(code, 0, "{provider}: {stderr}");
    // Each turn's text on lines of its own, the final answer last.
    assert_eq!(
        stdout, "Let me look.\nThere is one untracked file, junk.tmp; I left it in place.\n",
        "{provider}"
    );
    // The transcript: tools sent, each call, its decision, its filtered result.
    assert!(stderr.contains("→ 20 tools sent"), "{stderr}");
    assert!(stderr.contains("max_count?: integer"), "{stderr}");
    assert!(
        stderr.contains("← call git_status {\"short\":true}"),
        "{stderr}"
    );
    assert!(stderr.contains("decision: ran"), "{stderr}");
    assert!(stderr.contains("?? junk.tmp"), "{stderr}");
    assert!(stderr.contains("decision: invalid"), "{stderr}");
    assert!(stderr.contains("parameter `max_count`"), "{stderr}");
    assert!(stderr.contains("run it? [y/N/a]"), "{stderr}");
    assert!(stderr.contains("decision: refused"), "{stderr}");
    assert!(stderr.contains("cut short"), "{stderr}");
    // The destructive call did not run.
    assert!(dir.join("junk.tmp").exists());
    // Four requests, each carrying the results of the turn before.
    assert_eq!(seen.len(), 4, "{provider}");
    let second = seen[1].body.to_string();
    assert!(second.contains("junk.tmp"), "{provider}: {second}");
    assert!(second.contains("max_count"), "{provider}: {second}");
    let third = seen[2].body.to_string();
    assert!(third.contains("declined"), "{provider}: {third}");
    let fourth = seen[3].body.to_string();
    assert!(
        fourth.contains("make the call again"),
        "{provider}: {fourth}"
    );
    assert_eq!(seen[0].body["stream"], true);
    assert!(seen[0].body["tools"].to_string().contains("git_clean"));
}

#[test]
fn openai_compatible_chat_completions_through_async_openai() {
    let dir = repo();
    let (base, seen) = serve(script(chat, "tool_calls", "length", "stop"));
    let base = format!("{base}/v1");
    let (code, stdout, stderr) = agent(
        dir.path(),
        "openai",
        &[
            ("OPENAI_BASE_URL", &base),
            ("OPENAI_API_KEY", "sk-test-key"),
        ],
        "n\n",
        &[],
    );
    let seen = seen.lock().unwrap().clone();
    check("openai", code, &stdout, &stderr, dir.path(), &seen);
    assert!(
        seen[0].head.starts_with("POST /v1/chat/completions"),
        "{}",
        seen[0].head
    );
    assert!(seen[0]
        .head
        .to_ascii_lowercase()
        .contains("authorization: bearer sk-test-key"));
    // The system prompt tells the model which commands are destructive.
    assert_eq!(seen[0].body["messages"][0]["role"], "system");
    assert_eq!(seen[1].body["messages"][3]["role"], "tool");
}

#[test]
fn anthropic_messages_through_reqwest() {
    let dir = repo();
    let (base, seen) = serve(script(anthropic, "tool_use", "max_tokens", "end_turn"));
    let (code, stdout, stderr) = agent(
        dir.path(),
        "anthropic",
        &[
            ("ANTHROPIC_BASE_URL", &base),
            ("ANTHROPIC_API_KEY", "test-key"),
        ],
        "n\n",
        &[],
    );
    let seen = seen.lock().unwrap().clone();
    check("anthropic", code, &stdout, &stderr, dir.path(), &seen);
    assert!(
        seen[0].head.starts_with("POST /v1/messages"),
        "{}",
        seen[0].head
    );
    assert!(seen[0]
        .head
        .to_ascii_lowercase()
        .contains("x-api-key: test-key"));
    assert!(seen[0].head.contains("anthropic-version: 2023-06-01"));
    assert!(seen[0].body["system"]
        .as_str()
        .unwrap()
        .contains("git_clean"));
}

#[test]
fn a_missing_key_is_a_clear_error() {
    let dir = repo();
    let (code, _, stderr) = agent(dir.path(), "anthropic", &[], "", &[]);
    assert_eq!(code, 1);
    assert!(stderr.contains("ANTHROPIC_API_KEY is not set"), "{stderr}");
}

#[test]
fn only_y_confirms_and_then_the_destructive_call_runs() {
    for (answer, runs) in [("y\n", true), ("yes\n", false), ("\n", false)] {
        let dir = repo();
        let logs = tempfile::tempdir().unwrap();
        let audit = logs.path().join("audit.jsonl");
        let (base, _seen) = serve(script(anthropic, "tool_use", "max_tokens", "end_turn"));
        let (code, _, stderr) = agent(
            dir.path(),
            "anthropic",
            &[
                ("ANTHROPIC_BASE_URL", &base),
                ("ANTHROPIC_API_KEY", "test-key"),
            ],
            answer,
            &["--audit-log", audit.to_str().unwrap()],
        );
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(
            !dir.path().join("junk.tmp").exists(),
            runs,
            "{answer:?}: {stderr}"
        );
        assert_eq!(
            stderr.contains("Removing junk.tmp"),
            runs,
            "{answer:?}: {stderr}"
        );
        // The audit log: git_status ran, git_clean confirmed by the y/N handler or declined
        // (the invalid and the cut-off calls never reached the runner).
        let lines: Vec<Value> = std::fs::read_to_string(&audit)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let seen: Vec<(&str, &str)> = lines
            .iter()
            .map(|l| (l["tool"].as_str().unwrap(), l["decision"].as_str().unwrap()))
            .collect();
        let clean = if runs { "confirmed" } else { "declined" };
        assert_eq!(seen, [("git_status", "allowed"), ("git_clean", clean)]);
        assert_eq!(lines[1]["callId"], "toolu_0");
        if runs {
            assert_eq!(lines[1]["confirmedBy"], "handler");
        }
    }
}

#[test]
fn a_confirms_for_the_session_and_the_same_call_later_runs_unasked() {
    let dir = repo();
    let logs = tempfile::tempdir().unwrap();
    let audit = logs.path().join("audit.jsonl");
    let (base, _seen) = serve(vec![
        anthropic("", &[("git_clean", r#"{"force": true}"#)], "tool_use"),
        anthropic("", &[("git_clean", r#"{"force": true}"#)], "tool_use"),
        anthropic("Cleaned twice.", &[], "end_turn"),
    ]);
    let (code, stdout, stderr) = agent(
        dir.path(),
        "anthropic",
        &[
            ("ANTHROPIC_BASE_URL", &base),
            ("ANTHROPIC_API_KEY", "test-key"),
        ],
        // One answer only: a second question would read end of input and refuse.
        "a\n",
        &["--audit-log", audit.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "Cleaned twice.\n");
    assert_eq!(stderr.matches("run it? [y/N/a]").count(), 1, "{stderr}");
    assert!(!dir.path().join("junk.tmp").exists(), "{stderr}");
    let lines: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["decision"], "confirmed");
    assert_eq!(lines[0]["confirmedBy"], "handler");
    assert_eq!(lines[1]["decision"], "confirmed");
    assert_eq!(lines[1]["confirmedBy"], "grant");
    assert_eq!(lines[1]["grant"]["originCallId"], lines[0]["callId"]);
    assert_eq!(lines[1]["grant"]["scope"], "sameReasons");
    assert_eq!(lines[1]["exitCode"], 0);
}
