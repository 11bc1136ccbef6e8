//! The `atip` binary: `check` exit status and diagnostics, `gen` output identical to the
//! goldens (which `build.rs` writes too).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn atip(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_atip"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn check_passes_valid_files_with_warnings_on_stderr() {
    let (code, out, err) = atip(&[
        "check",
        "examples/atip/git.json",
        "tests/fixtures/adversarial.json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("examples/atip/git.json: ok: 20 commands, 2 warnings"),
        "{out}"
    );
    assert!(
        err.contains(
            "examples/atip/git.json:135:9: warning: $.commands.branch.arguments[0]: optional \
             argument `branchname` is not the last positional"
        ),
        "{err}"
    );
    assert!(
        out.contains("tests/fixtures/adversarial.json: ok: 16 commands, 5 warnings"),
        "{out}"
    );
    assert!(
        err.lines()
            .find(|l| l.starts_with("tests/fixtures/adversarial.json"))
            .unwrap()
            .starts_with("tests/fixtures/adversarial.json:13:5: warning: $.globalOptions[0]: "),
        "{err}"
    );
}

#[test]
fn check_summary_says_what_lenient_loading_did() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cloud.json");
    std::fs::write(
        &file,
        r#"{"atip": {"version": "0.6"}, "name": "cloud", "version": "1", "description": "Cloud",
  "commands": {
    "list": {"description": "List", "options": [
      {"name": "page-size", "flags": ["--page-size"], "type": "integer", "description": "Size"},
      {"name": "page-size", "flags": ["--page-size"], "type": "integer", "description": "Size"}]},
    "get": {"description": "Get", "options": [
      {"name": "id", "flags": ["--id"], "type": "string", "description": "Id"},
      {"name": "id", "flags": ["--identifier"], "type": "integer", "description": "Other"}]}}}"#,
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let (code, out, err) = atip(&["check", "--lenient", "--summary", f]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "cloud.json: ok: 1 command, 1 merged duplicate, 1 command skipped, 3 warnings"
        ),
        "{out}"
    );
    assert!(
        out.contains("  skipped `get` ($.commands.get): $.commands.get.options[1]: parameter `id`"),
        "{out}"
    );
    assert!(
        err.is_empty(),
        "--summary prints no individual warnings: {err}"
    );
    // Strict: the conflict is an error; the document is not usable.
    let (code, out, err) = atip(&["check", f]);
    assert_eq!(code, 1);
    assert!(out.contains("cloud.json: 1 error"), "{out}");
    assert!(err.contains("$.commands.get.options[1]"), "{err}");
}

#[test]
fn check_says_when_the_conservative_merge_overrides_a_declaration() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("vars.json");
    std::fs::write(
        &file,
        r#"{"atip": {"version": "0.6"}, "name": "gh", "version": "2", "description": "GitHub",
  "commands": {"variable": {"description": "Variables", "effects": {"destructive": true},
    "commands": {"list": {"description": "List variables",
      "effects": {"destructive": false, "network": true}}}}}}"#,
    )
    .unwrap();
    let (code, out, err) = atip(&["check", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ok: 1 command, 1 warning"), "{out}");
    assert!(
        err.contains(
            "$.commands.variable.commands.list.effects.destructive: declares `destructive: \
             false`, but `destructive: true` from an enclosing command or the tool wins"
        ),
        "{err}"
    );
}

#[test]
fn check_fails_with_file_line_column_path_message() {
    let (code, out, err) = atip(&[
        "check",
        "tests/fixtures/malformed.json",
        "examples/atip/ls.json",
        "tests/fixtures/collision.json",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            "tests/fixtures/malformed.json:5:3: $: invalid JSON: expected `,` or `}`",
            "tests/fixtures/collision.json:13:14: $.commands.a.commands.b: flattened tool name \
             `clash_a_b` is also the name of the command at $.commands.a_b; rename one of the two commands",
        ]
    );
    assert!(
        out.contains("examples/atip/ls.json: ok"),
        "every file is checked: {out}"
    );
}

#[test]
fn gen_prints_exactly_the_golden() {
    for (input, golden) in [
        ("examples/atip/git.json", "tests/golden/git.rs"),
        (
            "tests/fixtures/adversarial.json",
            "tests/golden/adversarial.rs",
        ),
    ] {
        let (code, out, err) = atip(&["gen", input]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            out,
            std::fs::read_to_string(root().join(golden)).unwrap(),
            "{input}"
        );
    }
}

#[test]
fn gen_applies_the_command_filter_and_program() {
    let (code, out, _) = atip(&[
        "gen",
        "examples/atip/git.json",
        "--commands",
        "log,stash pop",
        "--program",
        "/usr/bin/git",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("pub struct Log {"));
    assert!(out.contains("pub struct StashPop {"));
    assert!(!out.contains("pub struct Commit {"));
    assert!(out.contains("const PROGRAM: &str = \"/usr/bin/git\";"));
    assert!(
        !out.contains("pub mod schemas"),
        "no JSON constants unless asked"
    );
    let (code, out, _) = atip(&[
        "gen",
        "examples/atip/git.json",
        "--schemas",
        "mcp,anthropic",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("pub mod schemas {"));
    assert!(out.contains("pub const MCP: &str = "));
    assert!(out.contains("pub const ANTHROPIC: &str = "));
    assert!(!out.contains("pub const OPENAI"));
    assert!(
        !out.contains("impl serde::Serialize for Log"),
        "no serde impls on commands unless asked"
    );
    let (code, out, _) = atip(&["gen", "examples/atip/git.json", "--serde"]);
    assert_eq!(code, 0);
    assert!(out.contains("impl serde::Serialize for Log {"));
    assert!(out.contains("impl<'de> serde::Deserialize<'de> for Log {"));
    let (code, _, err) = atip(&["gen", "examples/atip/git.json", "--commands", "nope"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("command filter entry \"nope\" matches no command of `git`"),
        "{err}"
    );
}

#[test]
fn compile_prints_what_the_runtime_compiles() {
    use atip_runtime::providers::{tool_definitions_json, Provider};
    use atip_runtime::{Document, FlattenOptions, LoadOptions, LoadedCommands};
    let text = std::fs::read_to_string(root().join("examples/atip/git.json")).unwrap();
    let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    let tool = LoadedCommands::new(doc, None);
    for p in Provider::ALL {
        let (code, out, err) = atip(&[
            "compile",
            "--provider",
            p.as_str(),
            "examples/atip/git.json",
        ]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            out.trim_end(),
            tool_definitions_json(tool.specs(), p),
            "{}",
            p.as_str()
        );
    }
    let (code, _, err) = atip(&[
        "compile",
        "--provider",
        "openai",
        "examples/atip/git.json",
        "examples/atip/git.json",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("tool name `git_init` is also defined by examples/atip/git.json"),
        "{err}"
    );
    let (code, _, err) = atip(&["compile", "--provider", "claude", "examples/atip/git.json"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("expected one of openai, openai-strict"),
        "{err}"
    );
    // What the definitions cost, per provider: their bytes as compiled, and a token estimate.
    let (code, out, err) = atip(&["compile", "--stats", "examples/atip/git.json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), Provider::ALL.len());
    for (row, p) in rows.iter().zip(Provider::ALL) {
        let bytes = tool_definitions_json(tool.specs(), p).len() as u64;
        assert_eq!(row["provider"], p.as_str());
        assert_eq!(row["commands"], tool.specs().len() as u64);
        assert_eq!(row["bytes"], bytes, "{}", p.as_str());
        assert_eq!(row["estimatedTokens"], bytes.div_ceil(4));
    }
}

#[test]
fn prompt_parse_and_dispatch() {
    let (code, out, _) = atip(&["prompt", "examples/atip/git.json", "examples/atip/rm.json"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("## Tool safety"));
    assert!(out.contains("### Destructive") && out.contains("- `rm`"));

    let (code, out, _) = atip(&[
        "parse",
        "--provider",
        "openai",
        "examples/replay/openai-chat.json",
    ]);
    assert_eq!(code, 0);
    let calls: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(calls[2]["name"], "git_clean");
    assert_eq!(
        calls[2]["arguments"],
        serde_json::json!({"force": true, "directories": true})
    );
    assert_eq!(calls[2]["error"], serde_json::Value::Null);

    let (code, out, err) = atip(&[
        "dispatch",
        "--tools",
        "examples/atip/git.json",
        "--provider",
        "openai-responses",
        "examples/replay/openai-responses.json",
    ]);
    assert_eq!(code, 0, "{err}");
    let out: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(out[0]["argv"], serde_json::json!(["git", "diff", "--stat"]));
    assert_eq!(
        out[1]["errors"],
        serde_json::json!(["parameter `message` is required: a string"])
    );

    let (code, _, err) = atip(&[
        "parse",
        "--provider",
        "gemini",
        "examples/replay/openai-chat.json",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("is not a Gemini generateContent response"),
        "{err}"
    );
}

fn atip_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_atip"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A git repository with one commit and an untracked file.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    git(&["add", "a.txt"]);
    git(&["commit", "-q", "-m", "first"]);
    std::fs::write(dir.path().join("notes.tmp"), "scratch\n").unwrap();
    dir
}

#[test]
fn run_executes_allowed_calls_and_refuses_unconfirmed_ones() {
    let dir = repo();
    let git_json = root().join("examples/atip/git.json");
    let response = root().join("examples/replay/openai-chat.json");
    let args = [
        "run",
        "--tools",
        git_json.to_str().unwrap(),
        "--provider",
        "openai",
        response.to_str().unwrap(),
    ];
    let (code, out, err) = atip_in(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    let messages: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(messages[0]["role"], "tool");
    assert_eq!(messages[0]["content"], "?? notes.tmp\n[exit code 0]");
    assert!(messages[1]["content"].as_str().unwrap().contains("first"));
    let refused = messages[2]["content"].as_str().unwrap();
    assert!(
        refused.starts_with(
            "Error: `git_clean` was not run: it needs a person's confirmation (destructive:"
        ),
        "{refused}"
    );
    assert!(dir.path().join("notes.tmp").exists());

    // A person said yes; every call is in the audit log, with the model's call ids. (Kept
    // outside the repository: `git clean` would remove it, as it removes any untracked file.)
    let logs = tempfile::tempdir().unwrap();
    let audit = logs.path().join("audit.jsonl");
    let mut yes = args.to_vec();
    yes.extend(["--yes", "--audit-log", audit.to_str().unwrap()]);
    let (code, out, _) = atip_in(dir.path(), &yes);
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(lines.iter().all(|l| l["callId"]
        .as_str()
        .is_some_and(|id| id.starts_with("call_"))));
    assert_eq!(lines[2]["tool"], "git_clean");
    assert_eq!(lines[2]["decision"], "confirmed");
    assert_eq!(lines[2]["confirmedBy"], "caller");
    assert_eq!(lines[2]["exitCode"], 0);
    let messages: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(messages[2]["content"], "Removing notes.tmp\n[exit code 0]");
    assert!(!dir.path().join("notes.tmp").exists());

    // A policy file restricting the commands.
    let policy = dir.path().join("policy.json");
    std::fs::write(&policy, r#"{"allowCommands": ["git_status"]}"#).unwrap();
    let mut restricted = args.to_vec();
    restricted.extend(["--policy", policy.to_str().unwrap()]);
    let (code, out, _) = atip_in(dir.path(), &restricted);
    assert_eq!(code, 0);
    let messages: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(messages[1]["content"].as_str().unwrap().contains(
        "`git_log` was not run: the policy refuses it (not-allow-listed: this command is not \
             among those the policy allows)"
    ));
    std::fs::write(&policy, r#"{"allowDestrutive": true}"#).unwrap();
    let (code, _, err) = atip_in(dir.path(), &restricted);
    assert_eq!(code, 1);
    assert!(err.contains("unknown field `allowDestrutive`"), "{err}");
}

#[test]
fn discover_prints_validated_metadata() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join("faketool");
    std::fs::write(
        &tool,
        "#!/bin/sh\ncat <<'JSON'\n{\"atip\": \"0.6\", \"name\": \"faketool\", \"version\": \"1\", \"description\": \"d\"}\nJSON\n",
    )
    .unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, out, _) = atip(&["discover", tool.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("\"name\": \"faketool\""));
    let (code, _, err) = atip(&["discover", "atip-no-such-tool-anywhere"]);
    assert_eq!(code, 1);
    assert!(err.contains("is not installed"), "{err}");

    // A bare name is looked up on PATH, and the tool inherits the caller's environment.
    let named = dir.path().join("atip-test-discovered-by-name");
    std::fs::write(
        &named,
        "#!/bin/sh\nprintf '{\"atip\": \"0.6\", \"name\": \"faketool\", \"version\": \"1\", \"description\": \"%s\"}' \"$ATIP_TEST_INHERITED\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&named, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(std::iter::once(dir.path().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_atip"))
        .args(["discover", "atip-test-discovered-by-name"])
        .env("PATH", path)
        .env("ATIP_TEST_INHERITED", "from the caller")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("\"description\": \"from the caller\""),
        "{stdout}"
    );
}

#[test]
fn convert_prints_definitions_and_warnings_pointer_first() {
    let (code, out, err) = atip(&[
        "convert",
        "--from",
        "mcp",
        "--to",
        "gemini",
        "tests/canonical/mixed.json",
    ]);
    assert_eq!(code, 0, "{err}");
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        value.as_array().unwrap().len(),
        3,
        "an array in, an array out"
    );
    assert_eq!(value[0]["name"], "files.search");
    assert_eq!(value[2], serde_json::json!({"name": "ping"}));
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines.len() > 10, "{err}");
    assert!(lines.iter().all(|l| l.starts_with('/')), "{err}");
    assert!(
        lines.contains(&"/0/inputSchema/properties/root/$ref: `$ref`, mcp to gemini: inlined"),
        "{err}"
    );

    // One definition in, one out; standard input works.
    let one = r#"{"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": ["string", "null"]}}}}"#;
    let mut child = Command::new(env!("CARGO_BIN_EXE_atip"))
        .args(["convert", "--from", "mcp", "--to", "openai-strict", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(one.as_bytes())
        .unwrap();
    let done = child.wait_with_output().unwrap();
    assert!(done.status.success());
    let value: serde_json::Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(value["function"]["strict"], true);
    assert_eq!(
        value["function"]["parameters"]["required"],
        serde_json::json!(["a"])
    );
    assert!(done.stderr.is_empty());
}

#[test]
fn convert_refuses_input_that_is_not_a_definition_of_the_format() {
    let dir = tempfile::tempdir().unwrap();
    let openai = dir.path().join("openai.json");
    std::fs::write(
        &openai,
        r#"{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}"#,
    )
    .unwrap();
    let (code, out, err) = atip(&[
        "convert",
        "--from",
        "mcp",
        "--to",
        "anthropic",
        openai.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("not a valid mcp tool definition: `name` is missing (this looks like openai input: --from openai)"),
        "{err}"
    );
    let (code, out, _) = atip(&[
        "convert",
        "--from",
        "openai",
        "--to",
        "anthropic",
        openai.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("\"input_schema\""));
    std::fs::write(&openai, "{not json").unwrap();
    let (code, _, err) = atip(&[
        "convert",
        "--from",
        "mcp",
        "--to",
        "mcp",
        openai.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("invalid JSON"), "{err}");
    let (code, _, err) = atip(&["convert", "--from", "yaml", "--to", "mcp", "x.json"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("expected one of mcp, openai, openai-responses"),
        "{err}"
    );
}

#[test]
fn convert_from_atip_matches_compile() {
    for provider in ["openai", "mcp", "anthropic"] {
        let (code, converted, err) = atip(&[
            "convert",
            "--from",
            "atip",
            "--to",
            provider,
            "examples/atip/git.json",
        ]);
        assert_eq!(code, 0, "{err}");
        let (_, compiled, _) = atip(&["compile", "--provider", provider, "examples/atip/git.json"]);
        let a: serde_json::Value = serde_json::from_str(&converted).unwrap();
        let b: serde_json::Value = serde_json::from_str(&compiled).unwrap();
        assert_eq!(a, b, "{provider}");
    }
    let (code, _, err) = atip(&[
        "convert",
        "--from",
        "atip",
        "--to",
        "mcp",
        "tests/fixtures/malformed.json",
    ]);
    assert_eq!(code, 1);
    assert!(err.starts_with("tests/fixtures/malformed.json"), "{err}");
}

/// Writes `body` as a response file in `dir`.
fn response(dir: &Path, name: &str, body: serde_json::Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body.to_string()).unwrap();
    path
}

#[test]
fn run_never_executes_calls_from_truncated_responses() {
    let dir = tempfile::tempdir().unwrap();
    let git_json = root().join("examples/atip/git.json");
    let args = r#"{"initial_branch": "main"}"#;
    let init = serde_json::json!({"initial_branch": "main"});
    for (provider, body) in [
        (
            "openai",
            serde_json::json!({"choices": [{"finish_reason": "length", "message": {"role": "assistant",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "git_init", "arguments": args}}]}}]}),
        ),
        (
            "openai-responses",
            serde_json::json!({"status": "incomplete", "output": [{"type": "function_call", "call_id": "c1",
                "name": "git_init", "arguments": args}]}),
        ),
        (
            "anthropic",
            serde_json::json!({"stop_reason": "max_tokens", "content": [{"type": "tool_use", "id": "c1",
                "name": "git_init", "input": init}]}),
        ),
        (
            "gemini",
            serde_json::json!({"candidates": [{"finishReason": "MAX_TOKENS", "content": {"role": "model",
                "parts": [{"functionCall": {"name": "git_init", "args": init}}]}}]}),
        ),
    ] {
        let body = response(dir.path(), "response.json", body);
        let (code, out, err) = atip_in(
            dir.path(),
            &[
                "run",
                "--tools",
                git_json.to_str().unwrap(),
                "--provider",
                provider,
                body.to_str().unwrap(),
                "--yes",
            ],
        );
        assert_eq!(code, 0, "{provider}: {err}");
        assert!(
            err.contains("none of its 1 calls runs"),
            "{provider}: {err}"
        );
        assert!(out.contains("cut short"), "{provider}: {out}");
        assert!(out.contains("make the call again"), "{provider}: {out}");
        assert!(
            !dir.path().join(".git").exists(),
            "{provider}: git init ran"
        );
    }
}

#[test]
fn run_contains_the_fsmonitor_injection() {
    let attack = serde_json::json!({"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant",
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "git_status",
            "arguments": "{\"config\": [\"core.fsmonitor=touch pwned; false\"], \"short\": true}"}}]}}]});
    let tools = root().join("tests/fixtures/git-with-config.json");
    let run = |dir: &Path, extra: &[&str]| {
        let body = response(dir, "attack.json", attack.clone());
        let mut args = vec![
            "run".to_owned(),
            "--tools".to_owned(),
            tools.display().to_string(),
            "--provider".to_owned(),
            "openai".to_owned(),
            body.display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        atip_in(dir, &args)
    };
    // The attack is real: without the sandbox git runs the value through a shell.
    let dir = repo();
    let (code, _, err) = run(dir.path(), &["--no-sandbox"]);
    assert_eq!(code, 0, "{err}");
    assert!(dir.path().join("pwned").exists());
    // Sandboxed (the default), the read-only command can write nothing.
    if std::env::var("ATIP_SANDBOX_TESTS").as_deref() != Ok("skip") {
        let dir = repo();
        let (code, out, err) = run(dir.path(), &[]);
        assert_eq!(code, 0, "{err}");
        assert!(!dir.path().join("pwned").exists(), "{out}");
        assert!(
            out.contains("?? notes.tmp"),
            "git status still answers: {out}"
        );
    }
    // An argument rule refuses it outright; a rule naming no parameter is an error.
    let dir = repo();
    let (_, out, _) = run(
        dir.path(),
        &[
            "--no-sandbox",
            "--policy",
            r#"{"arguments": [{"parameter": "config", "deny": true}]}"#,
        ],
    );
    assert!(out.contains("argument-denied: parameter `config`"), "{out}");
    assert!(!dir.path().join("pwned").exists());
    let (code, _, err) = run(
        dir.path(),
        &[
            "--policy",
            r#"{"arguments": [{"parameter": "confgi", "deny": true}]}"#,
        ],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("parameter `confgi` is not a parameter of any command"),
        "{err}"
    );
}

#[test]
fn run_refuses_a_binary_that_does_not_match_its_checksum() {
    let dir = repo();
    let meta = dir.path().join("git.json");
    std::fs::write(
        &meta,
        r#"{"atip": {"version": "0.6"}, "name": "git", "version": "2", "description": "git",
  "trust": {"source": "vendor", "integrity": {"checksum": "sha256:0000000000000000000000000000000000000000000000000000000000000000"}},
  "commands": {"status": {"description": "Status", "effects": {"destructive": false, "network": false}}}}"#,
    )
    .unwrap();
    let body = response(
        dir.path(),
        "r.json",
        serde_json::json!({"content": [{"type": "tool_use", "id": "t1", "name": "git_status", "input": {}}],
            "stop_reason": "tool_use"}),
    );
    let (code, out, err) = atip_in(
        dir.path(),
        &[
            "run",
            "--tools",
            "git.json",
            "--provider",
            "anthropic",
            body.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("checksum: binary"), "{out}");
    assert!(out.contains("does not match its metadata"), "{out}");
}

#[test]
fn search_prints_the_best_commands_one_per_line() {
    let (code, out, err) = atip(&[
        "search",
        "examples/atip/gh.json",
        "examples/atip/git.json",
        "--query",
        "merge a pull request",
        "--top",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0], "gh_pr_merge");
    let (code, out, err) = atip(&["search", "examples/atip/git.json", "--query", "zzzz qqqq"]);
    assert_eq!(code, 0);
    assert!(out.is_empty());
    assert!(err.contains("no command matches \"zzzz qqqq\""), "{err}");
}

#[test]
fn search_reads_leniently_unless_strict() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ship.json");
    // `down` declares `x` twice with other flags: a conflict lenient loading leaves out.
    std::fs::write(
        &file,
        r#"{"atip": {"version": "0.6"}, "name": "ship", "version": "1", "description": "Ships",
  "commands": {"up": {"description": "Bring the service up"},
    "down": {"description": "Take the service down", "options": [
      {"name": "x", "flags": ["--x"], "type": "string", "description": "one"},
      {"name": "x", "flags": ["--y"], "type": "integer", "description": "two"}]}}}"#,
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let (code, out, err) = atip(&["search", file, "--query", "bring the service up"]);
    assert_eq!((code, out.as_str()), (0, "ship_up\n"), "{err}");
    assert!(err.contains("command `down` is left out"), "{err}");
    // The warnings themselves are counted, not listed: the names on stdout are the point.
    assert!(
        err.contains(&format!(
            "{file}: 2 warnings (`atip check --lenient {file}` lists them)"
        )),
        "{err}"
    );
    assert_eq!(err.lines().count(), 2, "{err}");
    let (code, out, _) = atip(&["search", file, "--query", "bring up", "--lenient"]);
    assert_eq!((code, out.as_str()), (0, "ship_up\n"));
    let (code, out, err) = atip(&["search", file, "--query", "up", "--strict"]);
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("rename one of them"), "{err}");
}

#[test]
fn compile_globals_chooses_what_the_model_sees() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cloud.json");
    std::fs::write(
        &file,
        r#"{"atip": {"version": "0.6"}, "name": "cloud", "version": "1", "description": "Cloud",
  "globalOptions": [
    {"name": "region", "flags": ["--region"], "type": "string", "description": "Region"},
    {"name": "profile", "flags": ["--profile"], "type": "string", "description": "Profile"}],
  "commands": {"list": {"description": "List"}}}"#,
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let props = |globals: &str| -> Vec<String> {
        let (code, out, err) = atip(&[
            "compile",
            "--provider",
            "anthropic",
            "--globals",
            globals,
            f,
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v[0]["input_schema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(props("all"), ["region", "profile"]);
    assert_eq!(props("region"), ["region"]);
    assert!(props("none").is_empty());
    let (code, _, err) = atip(&[
        "compile",
        "--provider",
        "anthropic",
        "--globals",
        "regoin",
        f,
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("`regoin` is not a global option"), "{err}");
}

/// A policy carrying examples is checked against the tools before the server starts: one
/// whose examples hold serves; one with a wrong expectation is refused, naming the example
/// and the rule that decided it.
#[test]
fn serve_refuses_a_policy_whose_examples_do_not_hold() {
    let policy = |expect: &str| {
        format!(
            r#"{{"examples": [{{"call": {{"name": "gh_pr_merge", "arguments": {{"number": "42", "method": "squash"}}}}, "expect": "{expect}"}}]}}"#
        )
    };
    let good = policy("confirm");
    // Past the check it serves (and stops at once: no client on its standard input).
    let (_, _, err) = atip(&[
        "serve",
        "--tools",
        "examples/atip/gh.json",
        "--policy",
        &good,
    ]);
    assert!(
        err.contains("atip serve: MCP on stdin/stdout, 13 tools") && !err.contains("do not hold"),
        "{err}"
    );
    let bad = policy("allow");
    let (code, out, err) = atip(&[
        "serve",
        "--tools",
        "examples/atip/gh.json",
        "--policy",
        &bad,
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("--policy: the policy's examples do not hold: examples[0] (`gh_pr_merge`")
            && err.contains("expects allow, the policy decides confirm (decided by destructive)"),
        "{err}"
    );
    assert!(out.is_empty(), "{out}");
}

/// `atip policy check` explains what the runner would decide for each call — the decision,
/// every rule with its code, the effects and argv — from calls as JSON or a provider
/// response, and runs nothing.
#[test]
fn policy_check_shows_the_hosts_a_call_may_reach() {
    let dir = tempfile::tempdir().unwrap();
    let git = root().join("examples/atip/git.json");
    std::fs::write(
        dir.path().join("calls.json"),
        r#"[{"name": "git_push", "arguments": {}}, {"name": "git_status"}]"#,
    )
    .unwrap();
    let (code, out, err) = atip_in(
        dir.path(),
        &[
            "policy",
            "check",
            "--tools",
            git.to_str().unwrap(),
            "--policy",
            r#"{"egress": {"deny": ["169.254.169.254"]},
                "egressRules": [{"commands": ["git push"], "allow": ["github.com:443"]}]}"#,
            "calls.json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let answers: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        answers[0]["egress"],
        serde_json::json!({"allow": ["github.com:443"], "deny": ["169.254.169.254"]}),
        "{out}"
    );
    assert_eq!(
        answers[1]["egress"],
        serde_json::json!({"allow": [], "deny": ["169.254.169.254"]}),
        "{out}"
    );
    // A rule for a command no tool has is an error, as for argument rules.
    let (code, _, err) = atip_in(
        dir.path(),
        &[
            "policy",
            "check",
            "--tools",
            git.to_str().unwrap(),
            "--policy",
            r#"{"egressRules": [{"commands": ["git pusj"], "allow": ["github.com"]}]}"#,
            "calls.json",
        ],
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("egressRules[0] command pattern `git pusj`"),
        "{err}"
    );
}

#[test]
fn policy_check_explains_each_decision_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let git = root().join("examples/atip/git.json");
    let git = git.to_str().unwrap();
    std::fs::write(
        dir.path().join("calls.json"),
        r#"[{"name": "git_init", "arguments": {}},
            {"name": "git_clean", "arguments": "{\"force\": true}"},
            {"name": "git_status"},
            {"name": "git_comit", "arguments": {}},
            {"name": "git_push", "arguments": {"force": true}}]"#,
    )
    .unwrap();
    let (code, out, err) = atip_in(
        dir.path(),
        &[
            "policy",
            "check",
            "--tools",
            git,
            "--policy",
            r#"{"denyCommands": ["git init"]}"#,
            "calls.json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let answers: serde_json::Value = serde_json::from_str(&out).unwrap();
    let decisions: Vec<&str> = answers
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["decision"].as_str().unwrap())
        .collect();
    assert_eq!(
        decisions,
        ["deny", "confirm", "allow", "invalid", "confirm"],
        "{out}"
    );
    assert_eq!(answers[0]["rules"][0]["code"], "deny-listed", "{out}");
    assert_eq!(answers[0]["argv"], serde_json::json!(["git", "init"]));
    assert_eq!(answers[1]["rules"][0]["code"], "destructive", "{out}");
    assert_eq!(answers[1]["effects"]["destructive"], true, "{out}");
    assert!(answers[3]["errors"][0]
        .as_str()
        .unwrap()
        .contains("did you mean `git_commit`?"));
    // The call's effects, with the option they came from.
    assert_eq!(
        answers[4]["rules"][0]["message"],
        "`--force` declares destructive (the command alone does not)",
        "{out}"
    );
    assert_eq!(answers[4]["effects"]["destructive"], true, "{out}");
    assert_eq!(answers[4]["effectsFrom"][0]["flag"], "--force", "{out}");
    assert_eq!(
        answers[4]["effectsFrom"][0]["effects"]["destructive"], true,
        "{out}"
    );
    assert_eq!(answers[2]["effectsFrom"], serde_json::Value::Null, "{out}");
    assert_eq!(
        answers[4]["egress"],
        serde_json::Value::Null,
        "no egress rules: {out}"
    );
    // Nothing ran: `git init` would have made a repository here.
    assert!(!dir.path().join(".git").exists());

    // The same calls in a provider's response.
    let body = response(
        dir.path(),
        "r.json",
        serde_json::json!({"content": [{"type": "tool_use", "id": "t1", "name": "git_init", "input": {}}],
            "stop_reason": "tool_use"}),
    );
    let (code, out, err) = atip_in(
        dir.path(),
        &[
            "policy",
            "check",
            "--tools",
            git,
            "--provider",
            "anthropic",
            body.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let answers: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(answers[0]["decision"], "allow", "{out}");
    assert!(!dir.path().join(".git").exists());
    // Calls that are not calls are an error.
    std::fs::write(dir.path().join("bad.json"), r#"[{"arguments": {}}]"#).unwrap();
    let (code, _, err) = atip_in(dir.path(), &["policy", "check", "bad.json", "--tools", git]);
    assert_eq!(code, 1);
    assert!(
        err.contains("bad.json: call 0: `name` (a string) is required"),
        "{err}"
    );
}

/// A stdio MCP server (python3, one message per line) with one read-only tool that takes a
/// path and an object, and one destructive tool.
const LISTING_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("id") is None:
        continue
    if m["method"] == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "notes server", "version": "2.0"}}
    elif m["method"] == "tools/list":
        result = {"tools": [
            {"name": "find", "annotations": {"readOnlyHint": True},
             "inputSchema": {"type": "object", "required": ["path"], "properties": {
                 "path": {"type": "string"}, "limit": {"type": "integer"},
                 "where": {"type": "object"}}}},
            {"name": "erase", "annotations": {"destructiveHint": True},
             "inputSchema": {"type": "object"}}]}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": result}), flush=True)
"#;

#[test]
fn mcp_tools_prints_a_confined_servers_tool_list_that_generates_typed_code() {
    if std::env::var("ATIP_SANDBOX_TESTS").as_deref() == Ok("skip") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = atip_in(
        dir.path(),
        &["mcp", "tools", "--", "python3", "-c", LISTING_SERVER],
    );
    assert_eq!(code, 0, "{err}");
    let listed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listed["serverInfo"]["name"], "notes server");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["find", "erase"]);
    // What typed code cannot hold is said.
    assert!(
        err.contains("/tools/0/inputSchema/properties/where: `type`, mcp to atip: dropped"),
        "{err}"
    );
    // Saved, it generates one typed command per tool, called over MCP.
    std::fs::write(dir.path().join("notes.tools.json"), &out).unwrap();
    let (code, code_out, err) = atip_in(dir.path(), &["gen", "notes.tools.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        code_out.contains("const SERVER: Option<&str> = Some(\"notes-server\");"),
        "{code_out}"
    );
    assert!(code_out.contains("pub struct Find"), "{code_out}");
    assert!(
        code_out.contains("pub fn new(path: impl Into<String>)"),
        "{code_out}"
    );
}
