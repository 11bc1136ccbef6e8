//! `atip serve` end to end against the official MCP Python SDK's stdio client
//! (`tests/mcp/client.py`, run with the validators' Python, which has `mcp` installed):
//! tools listed with annotations from effects, git commands run in a temp repository (the
//! server's working directory), a destructive call refused with the reason, bad arguments,
//! unknown tools and a path outside the working directory as error results; and the protocol
//! features beyond list and call (`tests/mcp/features.py`): instructions, elicitation,
//! progress, cancellation, conflict-aware concurrency and `tools/list_changed`.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use serde_json::Value;
use support::validators::python;

#[test]
#[ignore = "needs ../shared (the validators' Python with the MCP SDK)"]
fn the_python_sdk_lists_and_calls_git_tools_through_atip_serve() {
    let workspace = support::workspace();
    let atip = atip_binary();
    let repo = tempfile::tempdir().unwrap();
    let t = transcript(
        "client.py",
        &[
            atip.as_os_str(),
            workspace.join("examples/atip/git.json").as_os_str(),
            repo.path().as_os_str(),
        ],
    );

    assert_eq!(t["server"], "atip");
    let tools = t["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 20);
    let clean = tools.iter().find(|x| x["name"] == "git_clean").unwrap();
    assert_eq!(clean["annotations"]["destructiveHint"], true);
    // Destructive only with --force (or a refspec): the annotation is the union over options.
    let push = tools.iter().find(|x| x["name"] == "git_push").unwrap();
    assert_eq!(push["annotations"]["destructiveHint"], true);
    let status = tools.iter().find(|x| x["name"] == "git_status").unwrap();
    assert_eq!(status["annotations"]["readOnlyHint"], true);
    let commit = tools.iter().find(|x| x["name"] == "git_commit").unwrap();
    assert_eq!(commit["required"], serde_json::json!(["message"]));

    let calls = t["calls"].as_array().unwrap();
    let init = &calls[0];
    assert_eq!(init["is_error"], false, "{init}");
    assert!(init["text"]
        .as_str()
        .unwrap()
        .contains("Initialized empty Git repository"));
    assert!(
        repo.path().join(".git").is_dir(),
        "git init ran in the repository"
    );
    assert_eq!(calls[1]["is_error"], false, "{}", calls[1]);
    let refused = &calls[2];
    assert_eq!(refused["is_error"], true);
    let text = refused["text"].as_str().unwrap();
    assert!(
        text.contains("`git_clean` was not run") && text.contains("destructive"),
        "{text}"
    );
    let bad = &calls[3];
    assert_eq!(bad["is_error"], true);
    assert!(bad["text"]
        .as_str()
        .unwrap()
        .contains("parameter `short`: expected a boolean"));
    let unknown = &calls[4];
    assert_eq!(unknown["is_error"], true);
    assert!(unknown["text"]
        .as_str()
        .unwrap()
        .contains("no tool of that name"));
    let escape = &calls[5];
    assert_eq!(escape["is_error"], true);
    assert!(
        escape["text"]
            .as_str()
            .unwrap()
            .contains("path-outside-roots"),
        "{escape}"
    );
}

/// Runs `tests/mcp/SCRIPT ARGS…` with the validators' Python and returns the JSON transcript
/// it prints (also printed here, for the record).
fn transcript(script: &str, args: &[&std::ffi::OsStr]) -> Value {
    let out = Command::new(python())
        .arg(support::workspace().join("tests/mcp").join(script))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "client failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    println!("{}", serde_json::to_string_pretty(&t).unwrap());
    t
}

/// Builds the CLI and returns its path (in the target directory cargo uses for this workspace).
fn atip_binary() -> std::path::PathBuf {
    let workspace = support::workspace();
    let built = Command::new(env!("CARGO"))
        .args(["build", "-q", "-p", "atip-cli", "--message-format", "json"])
        .current_dir(&workspace)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    String::from_utf8_lossy(&built.stdout)
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["target"]["name"] == "atip" && m["executable"].is_string())
        .map(|m| m["executable"].as_str().unwrap().into())
        .next()
        .expect("cargo names the atip executable")
}

/// A script standing in for a CLI: `read`/`write` print `start <ns>`, sleep, print `end <ns>`;
/// `wipe` prints `wiped`.
const PROBE: &str = r#"#!/bin/sh
case "$1" in
    wipe) echo wiped ;;
    *) echo "start $(date +%s%N)"; sleep "$2"; echo "end $(date +%s%N)" ;;
esac
"#;

const PROBE_JSON: &str = r#"{
  "atip": {"version": "0.6"},
  "name": "atip-probe",
  "version": "1.0",
  "description": "A probe for the MCP tests",
  "commands": {
    "read": {
      "description": "Sleep, reading nothing",
      "arguments": [{"name": "seconds", "type": "string", "required": true, "description": "How long"}],
      "effects": {"filesystem": {"read": true, "write": false, "delete": false}, "network": false,
                  "idempotent": true, "reversible": true, "destructive": false}
    },
    "write": {
      "description": "Sleep, as a command that writes files would",
      "arguments": [{"name": "seconds", "type": "string", "required": true, "description": "How long"}],
      "effects": {"filesystem": {"read": true, "write": true, "delete": false}, "network": false,
                  "idempotent": true, "reversible": true, "destructive": false}
    },
    "wipe": {
      "description": "Pretend to destroy data",
      "effects": {"filesystem": {"read": true, "write": true, "delete": true}, "network": false,
                  "idempotent": true, "reversible": false, "destructive": true}
    }
  }
}"#;

#[test]
#[ignore = "needs ../shared (the validators' Python with the MCP SDK)"]
fn the_python_sdk_sees_elicitation_progress_cancellation_concurrency_and_list_changes() {
    let atip = atip_binary();
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let probe = bin.join("atip-probe");
    std::fs::write(&probe, PROBE).unwrap();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let json = dir.path().join("probe.json");
    std::fs::write(&json, PROBE_JSON).unwrap();
    let t = transcript(
        "features.py",
        &[
            atip.as_os_str(),
            json.as_os_str(),
            work.as_os_str(),
            bin.as_os_str(),
        ],
    );

    // The safety prompt is the server's instructions; the tool list can change.
    let instructions = t["instructions"].as_str().unwrap();
    assert!(instructions.contains("atip-probe_wipe"), "{instructions}");
    assert_eq!(t["list_changed"], true);
    assert_eq!(
        t["tools"],
        serde_json::json!(["atip-probe_read", "atip-probe_wipe", "atip-probe_write"])
    );

    // Elicitation: yes runs, no and an unticked form refuse, yes for the session runs that call
    // and the next unasked; each question names the reasons.
    let wipe = t["wipe"].as_array().unwrap();
    assert_eq!(wipe[0]["is_error"], false, "{}", wipe[0]);
    assert!(wipe[0]["text"].as_str().unwrap().contains("wiped"));
    assert_eq!(wipe[1]["is_error"], true);
    assert!(
        wipe[1]["text"].as_str().unwrap().contains("declined"),
        "{}",
        wipe[1]
    );
    assert_eq!(wipe[2]["is_error"], true);
    assert!(
        wipe[2]["text"].as_str().unwrap().contains("did not tick"),
        "{}",
        wipe[2]
    );
    for question in t["asked"].as_array().unwrap() {
        let q = question.as_str().unwrap();
        assert!(
            q.contains("`atip-probe_wipe` needs confirmation") && q.contains("destructive"),
            "{q}"
        );
    }
    // Yes for the session: that call runs, and the next runs without a question.
    for granted in &wipe[3..5] {
        assert_eq!(granted["is_error"], false, "{granted}");
        assert!(granted["text"].as_str().unwrap().contains("wiped"));
    }
    assert_eq!(t["asked"].as_array().unwrap().len(), 4);
    for fields in t["fields"].as_array().unwrap() {
        assert_eq!(fields, &serde_json::json!(["confirm", "forSession"]));
    }
    // A client without elicitation: refused with the reasons.
    let unasked = t["unasked"]["text"].as_str().unwrap();
    assert_eq!(t["unasked"]["is_error"], true);
    assert!(
        unasked.contains("does not support elicitation"),
        "{unasked}"
    );
    assert!(!unasked.contains("wiped"));

    // Progress every second of a 2.6 s call, increasing.
    assert_eq!(
        t["progress_call"]["is_error"], false,
        "{}",
        t["progress_call"]
    );
    let progress: Vec<f64> = t["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert!(progress.len() >= 2, "{progress:?}");
    assert!(progress.windows(2).all(|w| w[0] < w[1]), "{progress:?}");

    // Two writes never overlap; two reads do.
    let span = |v: &Value| (v[0].as_f64().unwrap(), v[1].as_f64().unwrap());
    let w = t["writes"].as_array().unwrap();
    let (a, b) = (span(&w[0]), span(&w[1]));
    assert!(a.1 <= b.0 || b.1 <= a.0, "writes overlapped: {a:?} {b:?}");
    let r = t["reads"].as_array().unwrap();
    let (a, b) = (span(&r[0]), span(&r[1]));
    assert!(a.0 < b.1 && b.0 < a.1, "reads did not overlap: {a:?} {b:?}");

    // Cancellation kills the process group: the sleep was running, and is gone.
    assert_ne!(t["cancel_raised"], false);
    assert!(
        !t["running_before_cancel"].as_array().unwrap().is_empty(),
        "the sleep was not running: {t}"
    );
    assert_eq!(t["left_after_cancel"], serde_json::json!([]), "{t}");

    // Editing the metadata file: the client is told, and lists the new command.
    assert_eq!(t["notified"], true);
    assert!(t["tools_after"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("atip-probe_extra")));
}
