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
        out.contains("examples/atip/git.json: ok: 13 commands, 0 warnings"),
        "{out}"
    );
    assert!(
        out.contains("tests/fixtures/adversarial.json: ok: 16 commands, 5 warnings"),
        "{out}"
    );
    assert!(
        err.lines()
            .next()
            .unwrap()
            .starts_with("tests/fixtures/adversarial.json:13:5: warning: $.globalOptions[0]: "),
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
    assert!(out.contains("const PROGRAM: &'static str = \"/usr/bin/git\";"));
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
    use atip_runtime::{Document, FlattenOptions, LoadOptions, LoadedTool};
    let text = std::fs::read_to_string(root().join("examples/atip/git.json")).unwrap();
    let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    let tool = LoadedTool::new(doc, None);
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
            tool_definitions_json(tool.tools(), p),
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
