//! The relay against a scripted server (python3, one JSON-RPC message per line) and a client
//! played by the test: what is judged, asked, refused, redacted and audited.

use super::*;
use atip_runtime::exec::AuditLog;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Answers initialize, lists three tools (`look` read-only, `wipe` destructive, `plain` with no
/// annotations), and answers each call with a line holding a token; writes the name of each
/// tool it runs to `calls.log` in its working directory.
const SERVER: &str = r#"
import json, sys
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
for line in sys.stdin:
    m = json.loads(line)
    method, id = m.get("method"), m.get("id")
    if id is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "scripted", "version": "1"}}
    elif method == "tools/list":
        schema = {"type": "object"}
        result = {"tools": [
            {"name": "look", "inputSchema": schema, "annotations": {"readOnlyHint": True}},
            {"name": "wipe", "inputSchema": schema, "annotations": {"destructiveHint": True}},
            {"name": "plain", "inputSchema": schema}]}
    elif method == "tools/call":
        name = m["params"]["name"]
        with open("calls.log", "a") as f:
            f.write(name + "\n")
        result = {"content": [{"type": "text", "text": f"{name} ran with {TOKEN}"}]}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": id, "result": result}), flush=True)
"#;

#[test]
fn calls_are_judged_asked_redacted_and_audited() {
    if std::env::var("ATIP_SANDBOX_TESTS").as_deref() == Ok("skip") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let runner = Runner::new()
        .current_dir(dir.path())
        .audit_log(AuditLog::open(&audit).unwrap());
    let server = Invocation::new(
        "scripted",
        vec!["python3".into(), "-c".into(), SERVER.into()],
        writer(),
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        // One pipe each way: the client closing its end is the wrapper's end of input.
        let (mut to_wrapper, wrapper_in) = tokio::io::duplex(1 << 16);
        let (wrapper_out, from_wrapper) = tokio::io::duplex(1 << 16);
        let serving = tokio::spawn(Wrapper::new(runner, server).serve(wrapper_in, wrapper_out));
        let mut lines = BufReader::new(from_wrapper).lines();
        to_wrapper
            .write_all(&line(
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18",
                           "capabilities": {"elicitation": {}},
                           "clientInfo": {"name": "test", "version": "1"}}}),
            ))
            .await
            .unwrap();
        assert_eq!(next(&mut lines).await["id"], 1);
        to_wrapper
            .write_all(&line(
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            ))
            .await
            .unwrap();
        assert_eq!(
            next(&mut lines).await["result"]["tools"]
                .as_array()
                .unwrap()
                .len(),
            3
        );

        // Read-only: runs unasked, and its token is redacted.
        to_wrapper
            .write_all(&line(
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "look", "arguments": {}}}),
            ))
            .await
            .unwrap();
        let look = next(&mut lines).await;
        assert_eq!(look["id"], 3);
        let text = look["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("look ran with") && !text.contains("ghp_"),
            "{text}"
        );

        // Destructive: asked; declined, it never reaches the server.
        to_wrapper
            .write_all(&line(
                json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                "params": {"name": "wipe", "arguments": {}}}),
            ))
            .await
            .unwrap();
        let question = next(&mut lines).await;
        assert_eq!(question["method"], "elicitation/create");
        assert!(question["params"]["message"]
            .as_str()
            .unwrap()
            .contains("\"wipe\""));
        to_wrapper
            .write_all(&line(json!({"jsonrpc": "2.0", "id": question["id"],
                "result": {"action": "decline"}})))
            .await
            .unwrap();
        let wipe = next(&mut lines).await;
        assert_eq!(wipe["id"], 4);
        assert_eq!(wipe["result"]["isError"], true);

        // What the wrapper cannot judge never reaches the server: a line its parser rejects
        // (another parser might read the number as infinity), a batch, a call without an id.
        let wipe = r#"{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "wipe", "arguments": {}, "_meta": {"x": 1e400}}}"#;
        to_wrapper
            .write_all(format!("{wipe}\n").as_bytes())
            .await
            .unwrap();
        let unparsed = next(&mut lines).await;
        assert_eq!(unparsed["error"]["code"], -32700, "{unparsed}");
        to_wrapper
            .write_all(&line(json!([{"jsonrpc": "2.0", "id": 10, "method": "tools/call",
                "params": {"name": "wipe", "arguments": {}}}])))
            .await
            .unwrap();
        assert_eq!(next(&mut lines).await["error"]["code"], -32600);
        to_wrapper
            .write_all(&line(json!({"jsonrpc": "2.0", "method": "tools/call",
                "params": {"name": "wipe", "arguments": {}}})))
            .await
            .unwrap();

        // No annotations: unknown asks too; accepted, it runs.
        to_wrapper
            .write_all(&line(
                json!({"jsonrpc": "2.0", "id": "five", "method": "tools/call",
                "params": {"name": "plain", "arguments": {}}}),
            ))
            .await
            .unwrap();
        let question = next(&mut lines).await;
        assert_eq!(question["method"], "elicitation/create");
        to_wrapper
            .write_all(&line(json!({"jsonrpc": "2.0", "id": question["id"],
                "result": {"action": "accept", "content": {"confirm": true}}})))
            .await
            .unwrap();
        let plain = next(&mut lines).await;
        assert_eq!(plain["id"], "five");
        assert_eq!(plain["result"]["isError"], Value::Null, "{plain}");

        drop(to_wrapper);
        let status = serving.await.unwrap().unwrap();
        assert!(status.success(), "{status:?}");
    });
    let ran = std::fs::read_to_string(dir.path().join("calls.log")).unwrap();
    assert_eq!(ran, "look\nplain\n", "the declined call reached the server");
    let lines: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let decisions: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| (l["tool"].as_str().unwrap(), l["decision"].as_str().unwrap()))
        .collect();
    assert_eq!(
        decisions,
        [
            ("look", "allowed"),
            ("wipe", "declined"),
            ("plain", "confirmed")
        ]
    );
    assert_eq!(lines[0]["redactions"], 1);
    assert_eq!(lines[0]["callId"], 3);
    assert_eq!(lines[2]["callId"], "five");
    assert!(lines.iter().all(|l| l["time"].is_string()));
    assert_eq!(lines[1]["reasons"][0]["code"], "destructive");
    assert_eq!(lines[2]["confirmedBy"], "elicitation");
    assert!(!lines.iter().any(|l| l.to_string().contains("ghp_")));
}

/// The next message from the wrapper.
async fn next<R: tokio::io::AsyncBufRead + Unpin>(lines: &mut tokio::io::Lines<R>) -> Value {
    let line = tokio::time::timeout(std::time::Duration::from_secs(20), lines.next_line())
        .await
        .expect("a message within 20 s")
        .unwrap()
        .expect("the wrapper is still there");
    serde_json::from_str(&line).unwrap()
}

/// `message` as a line.
fn line(message: Value) -> Vec<u8> {
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// A server that may write in its working directory, offline.
fn writer() -> Effects {
    let mut effects = Effects::UNKNOWN;
    effects.network = Some(false);
    effects.filesystem = Some(atip_runtime::FilesystemEffects {
        read: Some(true),
        write: Some(true),
        ..Default::default()
    });
    effects
}

/// A server lists tools whose names imitate a described one (`DEL`, `"del "`, a Cyrillic
/// `е`) with read-only annotations, and one tool twice (destructive, then read-only): none of
/// them is taken at its word.
#[test]
fn lookalike_and_odd_tool_names_are_unknown_whatever_their_annotations() {
    let (to_client, _from_relay) = mpsc::unbounded_channel();
    let mut relay = Relay {
        server: "s".into(),
        policy: atip_runtime::Policy::default(),
        audit: None,
        filter: atip_runtime::filter::ResultFilter::new(),
        to_client,
        to_server: None,
        queued: std::sync::Arc::new(AtomicUsize::new(0)),
        tools: HashMap::from([("del".to_owned(), writer())]),
        described: HashSet::from(["del".to_owned()]),
        lists: HashSet::new(),
        calls: HashMap::new(),
        asked: HashMap::new(),
        elicits: false,
    };
    let read_only = json!({"readOnlyHint": true, "openWorldHint": false});
    let mut tools: Vec<Value> = ["del", "DEL", "del ", "d\u{435}l", "look", "twice"]
        .iter()
        .map(|name| json!({"name": name, "annotations": read_only}))
        .collect();
    tools.insert(
        0,
        json!({"name": "twice", "annotations": {"destructiveHint": true}}),
    );
    relay.learn(&json!({"result": {"tools": tools}}));
    assert_eq!(
        relay.tools["del"],
        writer(),
        "the description's, not the annotations'"
    );
    for odd in ["DEL", "del ", "d\u{435}l", "twice"] {
        assert_eq!(relay.tools[odd], Effects::UNKNOWN, "{odd:?}");
    }
    assert_eq!(
        relay.tools["look"],
        atip_runtime::canonical::effects_of_annotations(read_only.as_object())
    );
}
