//! A prompt-injected model attacking through the public API, against real binaries. Each test
//! first shows the attack working where it can (sandbox off, no rule), then that the layer
//! under test stops it: dispatch, the policy's argument rules and command lists, the sandbox,
//! the checksum, truncation.
//!
//! Sandboxed runs need Linux with Landlock ABI 4+ (see
//! `crates/atip-runtime/tests/sandbox/sandbox.rs`); `ATIP_SANDBOX_TESTS=skip` skips the tests
//! that need the sandbox, with a printed reason.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use atip_runtime::wire::parse_response;
use atip_runtime::Provider;
use atip_runtime::{
    policy::ArgumentRule, policy::ReasonCode, Decision, Document, FlattenOptions, LoadOptions,
    LoadedCommands, Mode, Policy, RunError, Runner, Sandbox, ToolCall, TrustSource,
};
use atip_tests::git;
use serde_json::{json, Value};

fn skip_sandbox() -> bool {
    if std::env::var("ATIP_SANDBOX_TESTS").as_deref() == Ok("skip") {
        eprintln!("skipped: ATIP_SANDBOX_TESTS=skip");
        return true;
    }
    false
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn load(path: &Path) -> LoadedCommands {
    let doc = Document::from_path(path, Mode::Strict, &FlattenOptions::default()).unwrap();
    LoadedCommands::new(doc, None)
}

fn call(name: &str, args: Value) -> ToolCall {
    ToolCall::new(
        Some("call_1".into()),
        name,
        args.as_object().unwrap().clone(),
    )
}

/// A git repository with one commit.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let ok = Process::new("git")
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
    dir
}

const FSMONITOR: &str = "core.fsmonitor=touch pwned; false";

#[test]
fn the_shipped_git_metadata_exposes_no_configuration_or_directory_switch() {
    let shipped = load(&fixture("../examples/atip/git.json"));
    for (param, value) in [
        ("config", json!([FSMONITOR])),
        ("chdir", json!("/")),
        ("c", json!(FSMONITOR)),
    ] {
        let c = call("git_status", json!({ param: value }));
        let err = shipped.invocation(&c).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("unknown parameter `{param}`")),
            "{err}"
        );
        let err = git::Call::from_tool_call(&c).unwrap_err();
        assert!(err.to_string().contains("unknown parameter"), "{err}");
    }
    // No exposed parameter of any shipped tool is a free-form path outside the working
    // directory: every file and directory parameter is confined by the default policy.
    for file in ["git", "ls", "cat", "wc", "mkdir", "rm", "seq", "sleep"] {
        let tool = load(&fixture(&format!("../examples/atip/{file}.json")));
        for spec in tool.specs() {
            for p in spec.params.iter() {
                assert!(
                    ![
                        "config",
                        "chdir",
                        "exec-path",
                        "git-dir",
                        "work-tree",
                        "exec"
                    ]
                    .contains(&p.name.as_ref()),
                    "{}: {}",
                    spec.name,
                    p.name
                );
            }
        }
    }
}

#[test]
fn the_fsmonitor_injection_is_contained_by_the_sandbox() {
    if skip_sandbox() {
        return;
    }
    let tool = load(&fixture("fixtures/git-with-config.json"));
    let attack = call("git_status", json!({"config": [FSMONITOR], "short": true}));
    let invocation = tool.invocation(&attack).unwrap();
    // The policy sees a read-only command and lets it through: the lie is in the metadata.
    assert_eq!(Policy::default().evaluate(&invocation), Decision::Allow);

    // Without the sandbox the attack works: git runs the value through a shell.
    let dir = repo();
    let open = Runner::new()
        .current_dir(dir.path())
        .sandbox(Sandbox::off());
    rt().block_on(open.run(&invocation)).unwrap();
    assert!(
        dir.path().join("pwned").exists(),
        "the attack is real: fsmonitor ran"
    );

    // With it, the same call creates nothing, and git status still reports.
    let dir = repo();
    std::fs::write(dir.path().join("untracked.txt"), "u\n").unwrap();
    let sandboxed = Runner::new().current_dir(dir.path());
    let out = rt().block_on(sandboxed.run(&invocation)).unwrap();
    assert!(!dir.path().join("pwned").exists(), "{out:?}");
    assert!(out.sandbox.limits_writes(), "{}", out.sandbox);
    assert!(out.stdout_lossy().contains("?? untracked.txt"), "{out:?}");

    // An argument rule refuses the parameter before anything runs.
    let ruled = Runner::new()
        .current_dir(dir.path())
        .policy(Policy {
            arguments: vec![ArgumentRule {
                deny: true,
                ..ArgumentRule::new("config")
            }],
            ..Policy::default()
        })
        .sandbox(Sandbox::off());
    match rt().block_on(ruled.run(&invocation)) {
        Err(RunError::Denied { reasons, .. }) => {
            assert_eq!(reasons[0].code, ReasonCode::ArgumentDenied)
        }
        other => panic!("{other:?}"),
    }
    assert!(!dir.path().join("pwned").exists());
}

#[test]
fn paths_outside_the_working_directory_are_refused() {
    let dir = repo();
    std::os::unix::fs::symlink("/etc", dir.path().join("etc-link")).unwrap();
    let runner = Runner::new().current_dir(dir.path());
    for pathspec in ["/etc/passwd", "../../../../etc/passwd", "etc-link/passwd"] {
        let c = git::Call::from_tool_call(&call(
            "git_diff",
            json!({"paths": [pathspec], "name_only": true}),
        ))
        .unwrap();
        match rt().block_on(runner.run(&c)) {
            Err(RunError::Denied { reasons, .. }) => {
                assert_eq!(reasons[0].code, ReasonCode::PathOutsideRoots, "{pathspec}");
                assert!(reasons[0].message.contains("`paths`"));
            }
            other => panic!("{pathspec}: {other:?}"),
        }
    }
    let inside = git::Call::from_tool_call(&call("git_diff", json!({"paths": ["a.txt"]}))).unwrap();
    assert!(rt().block_on(runner.run(&inside)).unwrap().success());
}

#[test]
fn an_omitted_positional_never_shifts_a_later_value_into_its_slot() {
    let dir = repo();
    Process::new("git")
        .args(["branch", "feature"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    let attack = call(
        "git_branch",
        json!({"delete": true, "start_point": "feature"}),
    );
    let err = git::Call::from_tool_call(&attack)
        .and_then(|c| {
            atip_runtime::ToInvocation::to_invocation(&c).map_err(|e| atip_runtime::DispatchError {
                tool: "git_branch".into(),
                call_id: None,
                problems: vec![atip_runtime::command::dispatch::Problem::Argv {
                    message: e.to_string(),
                }],
            })
        })
        .unwrap_err();
    // Found with the types, before any argv is written.
    assert!(
        err.to_string()
            .contains("parameter `start_point` is given but `branchname`"),
        "{err}"
    );
    let err = load(&fixture("../examples/atip/git.json"))
        .invocation(&attack)
        .unwrap_err();
    assert!(
        err.to_string().contains("positionals are filled in order"),
        "{err}"
    );
    // The branch is still there.
    let branches = Process::new("git")
        .args(["branch", "--list", "feature"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&branches.stdout).contains("feature"));
}

#[test]
fn deny_lists_name_commands_by_path_too() {
    let dir = repo();
    let status = git::Call::from_tool_call(&call("git_status", json!({}))).unwrap();
    for pattern in ["git status", "status", "git_status", "git_*"] {
        let runner = Runner::new().current_dir(dir.path()).policy(Policy {
            deny_commands: vec![pattern.into()],
            ..Policy::default()
        });
        match rt().block_on(runner.run(&status)) {
            Err(RunError::Denied { reasons, .. }) => {
                assert_eq!(reasons[0].code, ReasonCode::DenyListed, "{pattern}")
            }
            other => panic!("{pattern}: {other:?}"),
        }
    }
    let typo = Policy {
        deny_commands: vec!["git stauts".into()],
        ..Policy::default()
    };
    let err = typo.check_against(&git::TOOLS).unwrap_err();
    assert!(
        err.to_string().contains("`git stauts` matches no command"),
        "{err}"
    );
}

#[test]
fn calls_from_truncated_responses_never_run() {
    let dir = tempfile::tempdir().unwrap();
    let args = r#"{"initial_branch": "main"}"#;
    let responses = [
        (
            Provider::OpenAi,
            json!({"choices": [{"finish_reason": "length", "message": {"role": "assistant",
                "tool_calls": [{"id": "c1", "type": "function",
                    "function": {"name": "git_init", "arguments": args}}]}}]}),
        ),
        (
            Provider::OpenAiResponses,
            json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
                "output": [{"type": "function_call", "call_id": "c1", "name": "git_init",
                    "arguments": args}]}),
        ),
        (
            Provider::Anthropic,
            json!({"stop_reason": "max_tokens", "content": [{"type": "tool_use", "id": "c1",
                "name": "git_init", "input": {"initial_branch": "main"}}]}),
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"finishReason": "MAX_TOKENS", "content": {"role": "model",
                "parts": [{"functionCall": {"name": "git_init", "args": {"initial_branch": "main"}}}]}}]}),
        ),
    ];
    let loaded = load(&fixture("../examples/atip/git.json"));
    let runner = Runner::new().current_dir(dir.path());
    for (format, body) in responses {
        let parsed = parse_response(format, &body.to_string()).unwrap();
        assert!(parsed.truncated, "{format:?}");
        assert_eq!(parsed.tool_calls.len(), 1, "{format:?}");
        let c = &parsed.tool_calls[0];
        let typed = git::Call::from_tool_call(c).unwrap_err();
        assert!(typed.to_string().contains("cut short"), "{typed}");
        let untyped = loaded.invocation(c).unwrap_err();
        assert!(
            untyped.to_string().contains("make the call again"),
            "{untyped}"
        );
        // The arguments that arrived are kept for the caller, not for running.
        let raw = c.arguments.as_ref().unwrap_err().raw.clone().unwrap();
        assert!(raw.contains("initial_branch"), "{raw}");
        if let Ok(cmd) = git::Call::from_tool_call(c) {
            rt().block_on(runner.run(&cmd)).unwrap();
        }
    }
    assert!(!dir.path().join(".git").exists(), "nothing ran");
}

fn sha256_of(path: &Path) -> String {
    let out = Process::new("sha256sum").arg(path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    format!("sha256:{}", text.split_whitespace().next().unwrap())
}

fn which(program: &str) -> PathBuf {
    let out = Process::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .unwrap();
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn git_with_checksum(checksum: &str) -> LoadedCommands {
    let text = json!({
        "atip": {"version": "0.6"}, "name": "git", "version": "2", "description": "git",
        "trust": {"source": "vendor", "integrity": {"checksum": checksum}},
        "commands": {"status": {"description": "Status",
            "effects": {"destructive": false, "network": false, "filesystem": {"write": false}}}}
    })
    .to_string();
    let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    LoadedCommands::new(doc, None)
}

#[test]
fn a_binary_that_does_not_match_its_checksum_never_runs() {
    let dir = repo();
    let runner = Runner::new().current_dir(dir.path());
    let tampered = git_with_checksum(
        "sha256:0000000000000000000000000000000000000000000000000000000000000000",
    );
    let inv = tampered.invocation(&call("git_status", json!({}))).unwrap();
    match rt().block_on(runner.run(&inv)) {
        Err(e @ RunError::Checksum(_)) => {
            let text = e.to_string();
            assert!(text.starts_with("checksum: binary "), "{text}");
            assert!(text.contains("does not match its metadata"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    let honest = git_with_checksum(
        &sha256_of(&which("git"))
            .to_uppercase()
            .replacen("SHA256", "sha256", 1),
    );
    let inv = honest.invocation(&call("git_status", json!({}))).unwrap();
    let out = rt().block_on(runner.run(&inv)).unwrap();
    assert!(out.success(), "{out:?}");
}

mod tampered {
    //! Generated from metadata with a wrong checksum.
    atip_runtime::include_atip!("fixtures/tampered-checksum.json");
}

#[test]
fn generated_commands_carry_their_checksum_and_are_refused_when_it_fails() {
    use atip_runtime::Command;
    assert_eq!(
        tampered::Status::CHECKSUM,
        Some("sha256:0000000000000000000000000000000000000000000000000000000000000000")
    );
    assert_eq!(<git::Status as Command>::CHECKSUM, None);
    let dir = repo();
    let err = rt()
        .block_on(
            Runner::new()
                .current_dir(dir.path())
                .run(&tampered::Status::new()),
        )
        .unwrap_err();
    assert!(matches!(err, RunError::Checksum(_)), "{err}");
}

#[test]
fn trust_comes_from_the_caller_not_from_the_metadata() {
    let dir = repo();
    // git-with-config.json claims `native`.
    let tool = load(&fixture("fixtures/git-with-config.json"));
    let inv = tool.invocation(&call("git_status", json!({}))).unwrap();
    let vendor_only = Policy {
        min_trust_level: TrustSource::Vendor,
        ..Policy::default()
    };
    let runner = Runner::new().current_dir(dir.path()).policy(vendor_only);
    match rt().block_on(runner.run(&inv)) {
        Err(RunError::Denied { reasons, .. }) => assert_eq!(reasons[0].code, ReasonCode::LowTrust),
        other => panic!("a self-declared `native` is not enough: {other:?}"),
    }
    let git_path = which("git");
    let assigned = runner
        .clone()
        .trust_program(git_path.display().to_string(), TrustSource::Vendor);
    assert!(rt().block_on(assigned.run(&inv)).unwrap().success());
    let by_location = runner.trust_metadata("*/fixtures/git-with-config.json", TrustSource::Org);
    let located = load(&fixture("fixtures/git-with-config.json")).metadata_path(
        fixture("fixtures/git-with-config.json")
            .display()
            .to_string(),
    );
    let inv = located.invocation(&call("git_status", json!({}))).unwrap();
    match rt().block_on(by_location.run(&inv)) {
        Err(RunError::Denied { reasons, .. }) => {
            assert!(
                reasons[0].message.contains("`org`"),
                "{}",
                reasons[0].message
            )
        }
        other => panic!("org is below vendor: {other:?}"),
    }
}
