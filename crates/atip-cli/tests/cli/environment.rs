//! The environment a command gets through `atip run` is built, not inherited (issue 28): a
//! secret in atip's own environment that the command does not declare never reaches it; the
//! variables its metadata declares (`authentication.methods[].envVar`) do; the audit line names
//! what was removed, never its value. `printenv` is the command.

use std::path::Path;
use std::process::Command;

const METADATA: &str = r#"{"atip": {"version": "0.6"}, "name": "printenv", "version": "9",
  "description": "Print the environment",
  "authentication": {"required": false, "methods": [{"type": "token", "envVar": "PRINTENV_TOKEN"}]},
  "commands": {"": {"description": "Print every variable",
    "effects": {"destructive": false, "network": false,
      "filesystem": {"read": true, "write": false, "delete": false}}}}}"#;

fn run(dir: &Path, extra: &[&str]) -> (String, String) {
    std::fs::write(dir.join("printenv.json"), METADATA).unwrap();
    let body = serde_json::json!({"choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "printenv", "arguments": "{}"}}]}}]});
    std::fs::write(dir.join("response.json"), body.to_string()).unwrap();
    let audit = dir.join("audit.jsonl");
    let _ = std::fs::remove_file(&audit);
    let mut args = vec![
        "run",
        "--tools",
        "printenv.json",
        "--provider",
        "openai",
        "response.json",
        "--audit-log",
    ];
    let audit_arg = audit.to_str().unwrap().to_owned();
    args.push(&audit_arg);
    args.extend(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_atip"))
        .args(&args)
        .current_dir(dir)
        .env("MY_APP_SECRET_X", "s3cr3t-value-1")
        .env("PRINTENV_TOKEN", "declared-token")
        .env("ATIP_TEST_ALLOWED", "allowed-value")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        std::fs::read_to_string(&audit).unwrap(),
    )
}

#[test]
fn undeclared_variables_never_reach_the_command_and_their_names_are_audited() {
    let dir = tempfile::tempdir().unwrap();
    let (out, audit) = run(dir.path(), &[]);
    // The value reaches the command; the result filter then redacts it for the model.
    assert!(out.contains("PRINTENV_TOKEN=[REDACTED]"), "{out}");
    assert!(out.contains("PATH="), "the base set stays: {out}");
    assert!(!out.contains("MY_APP_SECRET_X"), "{out}");
    assert!(!out.contains("ATIP_TEST_ALLOWED"), "{out}");
    let line: serde_json::Value = serde_json::from_str(audit.lines().next().unwrap()).unwrap();
    let removed = line["sandbox"]["envRemoved"].as_array().unwrap();
    assert!(removed.iter().any(|n| n == "MY_APP_SECRET_X"), "{line}");
    assert!(
        !removed.iter().any(|n| n == "PRINTENV_TOKEN" || n == "PATH"),
        "{line}"
    );
    assert!(!audit.contains("s3cr3t-value-1"), "values are never logged");

    // Allowed by name, or everything with the opt-out.
    let (out, _) = run(dir.path(), &["--env-allow", "ATIP_TEST_ALLOWED"]);
    assert!(out.contains("ATIP_TEST_ALLOWED=allowed-value"), "{out}");
    assert!(!out.contains("MY_APP_SECRET_X"), "{out}");
    let (out, audit) = run(dir.path(), &["--inherit-env"]);
    assert!(out.contains("MY_APP_SECRET_X="), "{out}");
    assert!(!audit.contains("envRemoved\":[\""), "{audit}");
}
