//! `atip serve` end to end against the official MCP Python SDK's stdio client
//! (`tests/mcp/client.py`, run with the validators' Python, which has `mcp` installed):
//! tools listed with annotations from effects, git commands run in a temp repository (the
//! server's working directory), a destructive call refused with the reason, bad arguments,
//! unknown tools and a path outside the working directory as error results.

mod support;

use std::process::Command;

use serde_json::Value;
use support::validators::python;

#[test]
#[ignore = "needs ../shared (the validators' Python with the MCP SDK)"]
fn the_python_sdk_lists_and_calls_git_tools_through_atip_serve() {
    let workspace = support::workspace();
    let built = Command::new(env!("CARGO"))
        .args(["build", "-q", "-p", "atip-cli"])
        .current_dir(&workspace)
        .status()
        .unwrap();
    assert!(built.success());
    let atip = workspace.join("target/debug/atip");
    let repo = tempfile::tempdir().unwrap();
    let out = Command::new(python())
        .arg(workspace.join("tests/mcp/client.py"))
        .arg(&atip)
        .arg(workspace.join("examples/atip/git.json"))
        .arg(repo.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "client failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    println!("{}", serde_json::to_string_pretty(&t).unwrap());

    assert_eq!(t["server"], "atip");
    let tools = t["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 13);
    let clean = tools.iter().find(|x| x["name"] == "git_clean").unwrap();
    assert_eq!(clean["annotations"]["destructiveHint"], true);
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
