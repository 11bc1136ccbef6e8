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

/// The real MCP servers, installed once per test process (`tests/mcp/install-servers.sh`)
/// into `$ATIP_MCP_SERVERS` (default `/tmp/atip-mcp-servers`). Two tests use them side by
/// side: each running the script on a fresh machine raced two `npm install`s into one
/// directory, and one lost the other's `node_modules/.bin` link.
fn real_servers() -> std::path::PathBuf {
    static INSTALLED: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let servers = std::env::var_os("ATIP_MCP_SERVERS")
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| std::path::PathBuf::from("/tmp/atip-mcp-servers"));
            let installed = Command::new("bash")
                .arg(support::workspace().join("tests/mcp/install-servers.sh"))
                .arg(&servers)
                .status()
                .expect("bash runs");
            assert!(installed.success(), "tests/mcp/install-servers.sh failed");
            servers
        })
        .clone()
}

/// Real MCP servers from the registries (`tests/mcp/install-servers.sh`: mcp-server-time and
/// mcp-server-git from PyPI, the filesystem server from npm), each wrapped by `atip mcp wrap`
/// and driven by the official Python client (`tests/mcp/wrap.py`): read-only tools run
/// unasked; the filesystem server, allowed all of `/` by its own arguments, cannot read
/// `~/.ssh` or write outside the working directory; a token it reads is redacted; its
/// destructive writes ask (yes runs, no does not), and without elicitation are refused.
#[test]
#[ignore = "needs ../shared (the validators' Python with the MCP SDK) and the package registries"]
fn real_servers_run_confined_gated_and_redacted_through_atip_mcp_wrap() {
    let atip = atip_binary();
    let servers = real_servers();
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".ssh")).unwrap();
    std::fs::write(home.path().join(".ssh/id_ed25519"), "SSH-KEY\n").unwrap();
    let token = format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5");
    std::fs::write(work.path().join("config.txt"), format!("token: {token}\n")).unwrap();
    std::fs::write(data.path().join("notes.txt"), format!("token: {token}\n")).unwrap();
    for args in [
        &["init", "-q"][..],
        &["add", "config.txt"],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "commit",
            "-qm",
            "first",
        ],
    ] {
        assert!(Command::new("git")
            .args(args)
            .current_dir(work.path())
            .status()
            .unwrap()
            .success());
    }
    let t = transcript(
        "wrap.py",
        &[
            atip.as_os_str(),
            servers.as_os_str(),
            work.path().as_os_str(),
            home.path().as_os_str(),
            outside.path().as_os_str(),
            data.path().as_os_str(),
        ],
    );
    let call = |server: &str, i: usize| t[server]["calls"][i].clone();
    let text = |server: &str, i: usize| call(server, i)["text"].as_str().unwrap().to_owned();

    // Read-only by their annotations: run without a question.
    assert_eq!(call("time", 0)["is_error"], false, "{}", call("time", 0));
    assert!(text("time", 0).contains("\"timezone\": \"UTC\""));
    assert_eq!(t["time"]["asked"].as_array().unwrap().len(), 0);
    assert_eq!(call("git", 0)["is_error"], false, "{}", call("git", 0));
    assert!(text("git", 0).contains("config.txt") || text("git", 0).contains("On branch"));
    assert_eq!(t["git"]["asked"].as_array().unwrap().len(), 0);

    // The credential store is hidden by the sandbox, whatever the server allows itself.
    assert_eq!(call("filesystem", 0)["is_error"], true);
    assert!(
        !text("filesystem", 0).contains("SSH-KEY"),
        "{}",
        text("filesystem", 0)
    );
    // A secret it reads is redacted before the client sees it.
    assert_eq!(call("filesystem", 1)["is_error"], false);
    assert!(
        !text("filesystem", 1).contains(&token),
        "{}",
        text("filesystem", 1)
    );
    assert!(text("filesystem", 1).contains("[REDACTED]"));
    // Destructive writes ask: yes outside the working directory runs into the sandbox; yes
    // inside writes; no does not run.
    assert_eq!(t["filesystem"]["asked"].as_array().unwrap().len(), 3);
    assert!(t["filesystem"]["asked"][0]
        .as_str()
        .unwrap()
        .contains("\"write_file\""));
    assert_eq!(call("filesystem", 2)["is_error"], true);
    assert!(!outside.path().join("planted.txt").exists());
    assert_eq!(
        call("filesystem", 3)["is_error"],
        false,
        "{}",
        call("filesystem", 3)
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("note.txt")).unwrap(),
        "kept"
    );
    assert_eq!(call("filesystem", 4)["is_error"], true);
    assert!(text("filesystem", 4).contains("was not run: the user declined"));
    assert!(!work.path().join("declined.txt").exists());
    // Without elicitation, refused with the reason.
    let unasked = text("filesystem_no_elicitation", 0);
    assert!(
        unasked.contains("cannot ask (no elicitation)") && unasked.contains("destructive"),
        "{unasked}"
    );
    assert!(!work.path().join("unasked.txt").exists());

    // Described (SERVER.json): reads and writes held to its roots although the server itself
    // allows the working directory too; its tools judged on the description, not on their annotations (write_file
    // says it is destructive, the description that it is not: no question).
    assert_eq!(t["described"]["asked"].as_array().unwrap().len(), 0);
    assert_eq!(
        call("described", 0)["is_error"],
        false,
        "{}",
        call("described", 0)
    );
    assert!(text("described", 0).contains("[REDACTED]"));
    assert!(!text("described", 0).contains(&token));
    assert_eq!(
        call("described", 1)["is_error"],
        true,
        "{}",
        call("described", 1)
    );
    assert_eq!(
        call("described", 2)["is_error"],
        false,
        "{}",
        call("described", 2)
    );
    assert_eq!(
        std::fs::read_to_string(data.path().join("written.txt")).unwrap(),
        "in"
    );
    assert_eq!(call("described", 3)["is_error"], true);
    assert!(!work.path().join("planted.txt").exists());
    assert_eq!(call("described", 4)["is_error"], true);
    assert!(!outside.path().join("planted.txt").exists());

    // The time server described with reads held to its installation still answers, unasked.
    assert_eq!(
        call("time_described", 0)["is_error"],
        false,
        "{}",
        call("time_described", 0)
    );
    assert!(text("time_described", 0).contains("\"timezone\": \"UTC\""));
    assert_eq!(t["time_described"]["asked"].as_array().unwrap().len(), 0);

    // The fetch server reaches the loopback site its description lists, and the token there
    // is redacted; the other site is out of reach.
    assert_eq!(call("fetch", 0)["is_error"], false, "{}", call("fetch", 0));
    assert!(
        text("fetch", 0).contains("listed page"),
        "{}",
        text("fetch", 0)
    );
    assert!(!text("fetch", 0).contains(&token));
    assert_eq!(call("fetch", 1)["is_error"], true, "{}", call("fetch", 1));
    assert!(!text("fetch", 1).contains("the other site"));
}

/// The official filesystem server's tools, typed from its saved `tools/list`
/// (`examples/mcp/filesystem.tools.json`, the list of the version `install-servers.sh` pins).
mod filesystem {
    atip_runtime::include_atip!("../examples/mcp/filesystem.tools.json");
}

/// Typed calls of the real filesystem server, started confined by `McpTools` and given `/` by
/// its own arguments: a read redacted, a destructive write asked about, held by the sandbox
/// outside the working directory and done inside it after a yes, and not run after a no.
#[test]
#[ignore = "needs the package registries (installs the MCP filesystem server from npm)"]
fn typed_calls_reach_the_real_filesystem_server_confined_gated_and_redacted() {
    use atip_runtime::{Effects, FilesystemEffects, Invocation, Runner};
    let servers = real_servers();
    let work = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let token = format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5");
    std::fs::write(work.path().join("notes.txt"), format!("token: {token}\n")).unwrap();
    let mut effects = Effects::UNKNOWN;
    effects.network = Some(false);
    effects.filesystem = Some(FilesystemEffects {
        read: Some(true),
        write: Some(true),
        ..FilesystemEffects::default()
    });
    let server = Invocation::new(
        "secure-filesystem-server",
        vec![
            servers
                .join("node_modules/.bin/mcp-server-filesystem")
                .into(),
            "/".into(),
        ],
        effects,
    );
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let answers = std::sync::Arc::new(std::sync::Mutex::new(vec![false, true, true]));
    let (log, next) = (asked.clone(), answers.clone());
    let runner = Runner::new().current_dir(work.path()).confirm_with(
        move |request: atip_runtime::ConfirmationRequest| {
            log.lock()
                .unwrap()
                .push(request.invocation.name.to_string());
            let yes = next.lock().unwrap().pop().unwrap_or(false);
            async move { yes }
        },
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mcp = atip_mcp::McpTools::start(&runner, &server).await.unwrap();
        let runner = mcp.attach(runner);
        // The live list is the saved one: the typed names are the server's.
        for name in filesystem::Call::NAMES {
            assert!(mcp.commands().has_command(name), "{name}");
        }
        // Read-only by its annotations: runs unasked; the token is redacted.
        let read = filesystem::ReadTextFile::new(work.path().join("notes.txt").to_str().unwrap());
        let out = runner.run(&read).await.unwrap();
        let shown = runner.tool_result(&out).content;
        assert!(out.success(), "{shown}");
        assert!(
            shown.contains("[REDACTED]") && !shown.contains(&token),
            "{shown}"
        );
        assert!(asked.lock().unwrap().is_empty());
        // Destructive: asked. Yes, outside the working directory: the sandbox holds it.
        let planted = outside.path().join("planted.txt");
        let write = filesystem::WriteFile::new(planted.to_str().unwrap(), "x");
        let out = runner.run(&write).await.unwrap();
        let shown = runner.tool_result(&out).content;
        assert!(!out.success(), "{shown}");
        assert!(
            shown.contains("EACCES") || shown.contains("EROFS"),
            "{shown}"
        );
        assert!(!planted.exists());
        // Yes, inside: written.
        let kept = work.path().join("kept.txt");
        let write = filesystem::WriteFile::new(kept.to_str().unwrap(), "kept");
        let out = runner.run(&write).await.unwrap();
        assert!(out.success(), "{}", runner.tool_result(&out).content);
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "kept");
        // No: not run.
        let declined = work.path().join("declined.txt");
        let write = filesystem::WriteFile::new(declined.to_str().unwrap(), "no");
        let err = runner.run(&write).await.unwrap_err();
        assert!(matches!(err, atip_runtime::RunError::Declined(_)), "{err}");
        assert!(!declined.exists());
        assert_eq!(asked.lock().unwrap().len(), 3);
    });
}
