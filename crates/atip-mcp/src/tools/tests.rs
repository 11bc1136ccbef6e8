//! An MCP server's tools beside an ATIP tool in one turn, against a scripted server (python3,
//! one JSON-RPC message per line): dispatched, gated, answered by the server, redacted.

use super::*;
use atip_runtime::agent::{CallStatus, TurnDriver};
use atip_runtime::{FilesystemEffects, Provider};
use serde_json::json;

/// Answers initialize, lists `look` (read-only; `path` required, `lines` an integer, `tags` a
/// list of integers, `all` a boolean, `--env` a string), `wipe` (destructive) and `fail`
/// (read-only; its description and the JSON-RPC error it answers with hold its
/// `MY_SERVICE_PASSWORD`), and `$MANY_TOOLS` more (`look` with `$MANY_PROPS` more
/// properties), and answers each other call with its
/// arguments as JSON and a token; writes each tool it runs to `calls.log` in its working
/// directory.
const SERVER: &str = r#"
import json, os, sys
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
for line in sys.stdin:
    m = json.loads(line)
    method, id = m.get("method"), m.get("id")
    if id is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "scripted", "version": "3.1"}}
    elif method == "tools/list":
        look = {"type": "object", "required": ["path"], "properties": {
            "path": {"type": "string"}, "lines": {"type": "integer"}, "--env": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "integer"}},
            "all": {"type": "boolean"}, "filter": {"type": "object"}}}
        result = {"tools": [
            {"name": "look", "description": "Look at a file", "inputSchema": look,
             "annotations": {"readOnlyHint": True, "openWorldHint": False}},
            {"name": "wipe", "inputSchema": {"type": "object"},
             "annotations": {"destructiveHint": True}},
            {"name": "fail", "inputSchema": {"type": "object"},
             "description": "Fails (debug: " + os.environ.get("MY_SERVICE_PASSWORD", "") + ")",
             "annotations": {"readOnlyHint": True}}]}
        for i in range(int(os.environ.get("MANY_PROPS", "0"))):
            look["properties"][f"p{i}"] = {"type": "string"}
        if os.environ.get("MANY_TOOLS"):
            result["tools"] += [{"name": f"t{i}", "inputSchema": {"type": "object"}}
                                for i in range(int(os.environ["MANY_TOOLS"]))]
    elif method == "tools/call" and m["params"]["name"] == "fail":
        error = {"code": -32000, "message": "bad key " + os.environ.get("MY_SERVICE_PASSWORD", "")}
        print(json.dumps({"jsonrpc": "2.0", "id": id, "error": error}), flush=True)
        continue
    elif method == "tools/call":
        name, args = m["params"]["name"], m["params"].get("arguments")
        with open("calls.log", "a") as f:
            f.write(name + "\n")
        result = {"content": [{"type": "text", "text": json.dumps(args, sort_keys=True)},
                              {"type": "text", "text": "token " + TOKEN + " key "
                                                       + os.environ.get("MY_SERVICE_PASSWORD", "")}]}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": id, "result": result}), flush=True)
"#;

fn skip() -> bool {
    std::env::var("ATIP_SANDBOX_TESTS").as_deref() == Ok("skip")
}

fn server_effects() -> Effects {
    let mut effects = Effects::UNKNOWN;
    effects.network = Some(false);
    effects.filesystem = Some(FilesystemEffects {
        read: Some(true),
        write: Some(true),
        ..Default::default()
    });
    effects
}

fn server() -> Invocation {
    Invocation::new(
        "scripted",
        vec!["python3".into(), "-c".into(), SERVER.into()],
        server_effects(),
    )
}

/// `echo say WORDS`: a read-only ATIP command.
fn echo() -> LoadedCommands {
    let doc = json!({
        "atip": {"version": "0.6"}, "name": "echo", "version": "1", "description": "Echo",
        "commands": {"say": {"description": "Say words",
            "effects": {"destructive": false, "idempotent": true, "network": false,
                        "filesystem": {"read": false, "write": false, "delete": false}},
            "arguments": [{"name": "words", "type": "string", "description": "What"}]}}
    });
    let doc =
        atip_runtime::Document::parse(&doc.to_string(), &Default::default(), &Default::default())
            .unwrap();
    LoadedCommands::new(doc, None)
}

/// A model's call of `name` with `arguments` (a JSON object).
fn call(name: &str, arguments: serde_json::Value) -> atip_runtime::command::dispatch::ToolCall {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    atip_runtime::command::dispatch::ToolCall::new(None, name, arguments)
}

/// The commands typed code made from `saved`, an older list of the scripted server, would have.
fn from_saved(saved: &serde_json::Value) -> LoadedCommands {
    let converted = mcp_to_atip(saved, "scripted", "1").unwrap();
    let document = atip_runtime::Document::parse(
        &converted.value.to_string(),
        &Default::default(),
        &Default::default(),
    )
    .unwrap();
    LoadedCommands::new(document, None)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn an_mcp_servers_tools_and_an_atip_tool_in_one_turn() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runner = Runner::new().current_dir(dir.path());
    runtime().block_on(async {
        let mcp = McpTools::start(&runner, &server()).await.unwrap();
        assert_eq!(mcp.name(), "scripted");
        let names: Vec<&str> = mcp.commands().specs().iter().map(|s| &*s.name).collect();
        assert_eq!(names, ["scripted_look", "scripted_wipe", "scripted_fail"]);
        // The object parameter is left out, and said.
        assert!(
            mcp.warnings()
                .iter()
                .any(|w| w.to_string().contains("properties/filter")),
            "{:?}",
            mcp.warnings()
        );
        let tools = vec![echo(), mcp.commands().clone()];
        let mut driver = TurnDriver::new(Provider::Anthropic, tools, mcp.attach(runner));
        let body = json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "stop_reason": "tool_use",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "echo_say",
                 "input": {"words": "hello"}},
                {"type": "tool_use", "id": "toolu_2", "name": "scripted_look",
                 "input": {"path": "a.txt", "lines": 3, "tags": [1, 2], "all": true}},
                {"type": "tool_use", "id": "toolu_3", "name": "scripted_wipe", "input": {}},
                {"type": "tool_use", "id": "toolu_4", "name": "scripted_look",
                 "input": {"lines": 3}}
            ]
        });
        let outcome = driver.turn(&body.to_string()).await.unwrap();
        let calls = &outcome.calls;
        assert_eq!(calls[0].status, CallStatus::Ran { success: true });
        assert!(
            calls[0].result.content.starts_with("say hello\n"),
            "{}",
            calls[0].result.content
        );
        // Read-only by its annotations: runs unasked, its arguments typed again for the
        // server, its token redacted.
        assert_eq!(calls[1].status, CallStatus::Ran { success: true });
        let look = &calls[1].result.content;
        assert!(
            look.contains(r#"{"all": true, "lines": 3, "path": "a.txt", "tags": [1, 2]}"#),
            "{look}"
        );
        assert!(!look.contains("aB3dE5fG7hJ9"), "{look}");
        assert!(look.contains("[REDACTED"), "{look}");
        // Destructive: needs a person, and without one never reaches the server.
        assert_eq!(calls[2].status, CallStatus::Unconfirmed);
        // A missing required parameter: the model is told, the server never sees it.
        assert_eq!(calls[3].status, CallStatus::Invalid);
        assert!(
            calls[3].result.content.contains("path"),
            "{}",
            calls[3].result.content
        );
        let log = std::fs::read_to_string(dir.path().join("calls.log")).unwrap();
        assert_eq!(log, "look\n");
    });
}

#[test]
fn a_served_tool_is_never_started_as_a_program() {
    if skip() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    // A program named like the server, first on PATH: it would leave a mark if started.
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let mark = dir.path().join("started");
    let program = bin.join("scripted");
    std::fs::write(&program, format!("#!/bin/sh\ntouch {}\n", mark.display())).unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let runner = Runner::new().current_dir(dir.path()).env("PATH", &bin);
    runtime().block_on(async {
        let mcp = McpTools::start(&Runner::new().current_dir(dir.path()), &server())
            .await
            .unwrap();
        let call = call("scripted_look", json!({"path": "x"}));
        let invocation = mcp.commands().invocation(&call).unwrap();
        assert_eq!(invocation.server.as_deref(), Some("scripted"));
        // Not attached: not started, and said why.
        let err = runner.run(&invocation).await.unwrap_err();
        assert!(err.to_string().contains("no MCP server named"), "{err}");
        let err = runner.execute(invocation.clone()).await.unwrap_err();
        assert!(err.to_string().contains("no MCP server named"), "{err}");
        assert!(runner.start(&invocation).await.is_err());
        assert!(!mark.exists());
        // Attached: the server answers.
        let out = mcp.attach(runner).run(&invocation).await.unwrap();
        assert!(out.success());
        assert!(!mark.exists());
        // What the server's sandbox holds it to is the call's report.
        assert!(!out.sandbox.enforced.is_empty(), "{:?}", out.sandbox);
    });
}

#[test]
fn described_effects_replace_annotations_and_lookalikes_are_unknown() {
    let mut document = json!({"commands": {
        "look": {"effects": {"destructive": false}},
        "LOOK": {"effects": {"destructive": false}},
        "other": {"effects": {"destructive": true}}
    }});
    let mut described = HashMap::new();
    let mut look = Effects::UNKNOWN;
    look.destructive = Some(true);
    described.insert("look".to_owned(), look);
    describe(&mut document, &described);
    assert_eq!(document["commands"]["look"]["effects"]["destructive"], true);
    assert_eq!(document["commands"]["LOOK"]["effects"], json!({}));
    assert_eq!(
        document["commands"]["other"]["effects"]["destructive"],
        true
    );
}

#[test]
fn values_go_back_to_their_json_types() {
    assert_eq!(json_value("3", "integer"), json!(3));
    assert_eq!(json_value("x3", "integer"), json!("x3"));
    assert_eq!(json_value("1.5", "number"), json!(1.5));
    assert_eq!(json_value("true", "boolean"), json!(true));
    assert_eq!(json_value("3", "string"), json!("3"));
    assert_eq!(json_type(&json!({"type": ["null", "integer"]})), "integer");
    assert_eq!(
        json_type(&json!({"anyOf": [{"type": "number"}, {"type": "null"}]})),
        "number"
    );
    assert_eq!(json_type(&json!({})), "string");
}

#[test]
fn a_servers_error_is_redacted_with_the_values_of_its_variables() {
    if skip() {
        return;
    }
    let secret = "Zq8xTr4vLm2NpQ7wKc9B";
    let dir = tempfile::tempdir().unwrap();
    let runner = Runner::new()
        .current_dir(dir.path())
        .env("MY_SERVICE_PASSWORD", secret);
    runtime().block_on(async {
        let mcp = McpTools::start(&runner, &server()).await.unwrap();
        let runner = mcp.attach(runner);
        let call = call("scripted_fail", json!({}));
        let invocation = mcp.commands().invocation(&call).unwrap();
        let err = runner.run(&invocation).await.unwrap_err();
        let shown = runner.error_result(&err).content;
        assert!(shown.contains("bad key"), "{shown}");
        assert!(!shown.contains(secret), "{shown}");
        // Nor in what the model is offered, nor in the list saved for typed code.
        let definitions = serde_json::to_string(&mcp.commands().specs()).unwrap();
        assert!(definitions.contains("Fails (debug: "), "{definitions}");
        assert!(!definitions.contains(secret), "{definitions}");
        assert!(!mcp.tools_list().to_string().contains(secret));
    });
}

#[test]
fn a_list_past_the_bounds_is_refused() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runner = Runner::new()
        .current_dir(dir.path())
        .env("MANY_TOOLS", MAX_TOOLS.to_string());
    runtime().block_on(async {
        let err = McpTools::start(&runner, &server()).await.unwrap_err();
        assert!(err.to_string().contains("more than 10000 tools"), "{err}");
    });
    let runner = Runner::new()
        .current_dir(dir.path())
        .env("MANY_PROPS", MAX_TOOL_PROPERTIES.to_string());
    runtime().block_on(async {
        let err = McpTools::start(&runner, &server()).await.unwrap_err();
        assert!(
            err.to_string().contains("more than 500 parameters"),
            "{err}"
        );
    });
}

/// A result cut at the output cap inside a secret: neither the result nor the stream of the
/// call shows its first part.
#[test]
fn a_secret_cut_at_the_cap_is_not_streamed_in_part() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // `{"path": "a"}`, a newline, `token `, the token, ` key ` and 16 of the key's 20
    // characters: a value only known as the server's variable, which no rule finds in part.
    let secret = "Zq8xTr4vLm2NpQ7wKc9B";
    let runner = Runner::new()
        .current_dir(dir.path())
        .env("MY_SERVICE_PASSWORD", secret)
        .max_output_bytes(13 + 1 + 6 + 40 + 5 + 16);
    runtime().block_on(async {
        let mcp = McpTools::start(&runner, &server()).await.unwrap();
        let runner = mcp.attach(runner);
        let call = call("scripted_look", json!({"path": "a"}));
        let invocation = mcp.commands().invocation(&call).unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::channel(8);
        let out = runner.run(&invocation).stream_to(tx).await.unwrap();
        assert!(out.truncated());
        let mut streamed = String::new();
        while let Ok(chunk) = rx.try_recv() {
            streamed.push_str(&String::from_utf8_lossy(&chunk.bytes));
        }
        assert!(streamed.starts_with(r#"{"path": "a"}"#), "{streamed}");
        assert!(!streamed.contains(&secret[..8]), "{streamed}");
        let shown = runner.tool_result(&out).content;
        assert!(!shown.contains(&secret[..8]), "{shown}");
    });
}

#[test]
fn a_property_whose_name_starts_with_dashes_keeps_them() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runner = Runner::new().current_dir(dir.path());
    runtime().block_on(async {
        let mcp = McpTools::start(&runner, &server()).await.unwrap();
        let runner = mcp.attach(runner);
        let arguments = json!({"path": "a", "__env": "prod"});
        let call = call("scripted_look", arguments);
        let out = runner
            .run(&mcp.commands().invocation(&call).unwrap())
            .await
            .unwrap();
        let shown = runner.tool_result(&out).content;
        assert!(
            shown.contains(r#"{"--env": "prod", "path": "a"}"#),
            "{shown}"
        );
    });
}

#[test]
fn a_parameter_the_server_no_longer_lists_stops_the_call() {
    if skip() {
        return;
    }
    // Typed code from an older list where `look` had `dry_run`.
    let saved = json!({"tools": [
        {"name": "look", "annotations": {"readOnlyHint": true, "openWorldHint": false},
         "inputSchema": {"type": "object", "required": ["path"], "properties": {
            "path": {"type": "string"}, "dry_run": {"type": "boolean"}}}}]});
    let old = from_saved(&saved);
    let arguments = json!({"path": "a", "dry_run": true});
    let call = call("scripted_look", arguments);
    let invocation = old.invocation(&call).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let runner = Runner::new().current_dir(dir.path());
    runtime().block_on(async {
        let mcp = McpTools::start(&runner, &server()).await.unwrap();
        let runner = mcp.attach(runner);
        let err = runner.run(&invocation).await.unwrap_err();
        assert!(
            err.to_string()
                .contains("no longer lists the parameter \"dry_run\""),
            "{err}"
        );
        assert!(!dir.path().join("calls.log").exists());
    });
}

#[test]
fn a_policy_that_requires_the_sandbox_refuses_a_server_started_without_it() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let unconfined = Runner::new()
        .current_dir(dir.path())
        .sandbox(atip_runtime::Sandbox::off());
    let policy = atip_runtime::Policy {
        require_sandbox: true,
        ..Default::default()
    };
    runtime().block_on(async {
        let mcp = McpTools::start(&unconfined, &server()).await.unwrap();
        let runner = mcp.attach(Runner::new().current_dir(dir.path()).policy(policy));
        let call = call("scripted_look", json!({"path": "a"}));
        let err = runner
            .run(&mcp.commands().invocation(&call).unwrap())
            .await
            .unwrap_err();
        assert!(err.to_string().contains("started without it"), "{err}");
        assert!(!dir.path().join("calls.log").exists());
    });
}

/// Typed code from an older list that called `wipe` read-only: the live list says destructive,
/// so the call is judged on both claims' risks and asks.
#[test]
fn a_call_from_an_older_list_is_judged_on_the_risks_of_both_lists() {
    if skip() {
        return;
    }
    let saved = json!({"tools": [
        {"name": "wipe", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": true, "openWorldHint": false}}]});
    let old = from_saved(&saved);
    let call = call("scripted_wipe", json!({}));
    let invocation = old.invocation(&call).unwrap();
    assert_eq!(invocation.effects.destructive, Some(false));
    let dir = tempfile::tempdir().unwrap();
    let runner = Runner::new().current_dir(dir.path());
    runtime().block_on(async {
        let mcp = McpTools::start(&runner, &server()).await.unwrap();
        let runner = mcp.attach(runner);
        let decision = runner.decide(&invocation).decision;
        assert!(
            matches!(decision, atip_runtime::Decision::NeedsConfirmation(_)),
            "{decision:?}"
        );
        let err = runner.run(&invocation).await.unwrap_err();
        assert!(
            matches!(err, atip_runtime::RunError::NeedsConfirmation(_)),
            "{err}"
        );
        assert!(!dir.path().join("calls.log").exists());
    });
}
