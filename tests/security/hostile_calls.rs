//! Tool calls written by a hostile (prompt-injected) model never escape the declared command.
//!
//! Each hostile value goes into every kind of slot — positional, long option, short option,
//! repeated option, file — of a command whose program prints its argv as JSON
//! (`src/bin/argv-json.rs`); the process must receive exactly the declared shape with the value
//! untouched. Calls of the wrong shape or to names that are not tools are refused before
//! anything runs. Real coreutils in a temp dir show that shell syntax in values is inert.

use std::path::Path;
use std::time::Duration;

use atip_runtime::{
    DispatchError, Document, FlattenOptions, LoadOptions, LoadedCommands, Runner, ToolCall,
};
use serde_json::{json, Map, Value};

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn argvtool() -> LoadedCommands {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/argvtool.json");
    let text = std::fs::read_to_string(path).unwrap();
    let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    LoadedCommands::new(doc, Some(env!("CARGO_BIN_EXE_argv-json").to_owned()))
}

fn call(name: &str, args: Value) -> ToolCall {
    let Value::Object(map) = args else {
        panic!("arguments must be an object")
    };
    ToolCall::new(Some("call_1".into()), name, map)
}

/// Values a model might send to break out of its argument.
fn hostile_values() -> Vec<String> {
    vec![
        "-rf".into(),
        "--force".into(),
        "--name=other".into(),
        "-".into(),
        "--".into(),
        "a=b=c".into(),
        "two words".into(),
        "\"double\" 'single'".into(),
        "line1\nline2\r\n".into(),
        "$(touch pwned)".into(),
        "`touch pwned`".into(),
        "; touch pwned".into(),
        "| touch pwned".into(),
        "&& touch pwned &".into(),
        "> /tmp/pwned".into(),
        "${HOME}".into(),
        "*".into(),
        "../../../etc/passwd".into(),
        "\u{202e}txt.exe".into(),
        "\u{2066}hidden\u{2069}".into(),
        "emoji 🦀 and ü".into(),
        // Under Linux's 128 KiB limit for one argument; 1 MB is its own test.
        "x".repeat(100_000),
    ]
}

/// The argv the program receives, parsed from its stdout.
async fn received(runner: &Runner, tool: &LoadedCommands, call: &ToolCall) -> Vec<String> {
    let inv = tool.invocation(call).unwrap_or_else(|e| panic!("{e}"));
    let out = runner.run(&inv).await.unwrap_or_else(|e| panic!("{e}"));
    assert!(out.success(), "{}", out.stderr_lossy());
    serde_json::from_str(&out.stdout_lossy()).unwrap()
}

#[test]
fn hostile_values_reach_the_process_exactly_as_declared() {
    let tool = argvtool();
    // This test is about what reaches the process; paths may point anywhere here (the policy's
    // path confinement is tested in attacks.rs).
    let runner = Runner::new()
        .timeout(Duration::from_secs(20))
        .max_output_bytes(8 << 20)
        .policy(atip_runtime::Policy {
            path_roots: vec!["/".into()],
            ..Default::default()
        });
    rt().block_on(async {
        for v in hostile_values() {
            let got = received(
                &runner,
                &tool,
                &call(
                    "argvtool_echo",
                    json!({"config": v, "text": v, "name": v, "short": v, "tag": [v, v], "path": v}),
                ),
            )
            .await;
            let mut want: Vec<String> = vec!["-c".into(), v.clone(), "echo".into()];
            want.push(format!("--name={v}"));
            want.push("-s".into());
            want.push(v.clone());
            want.push(format!("--tag={v}"));
            want.push(format!("--tag={v}"));
            want.push(format!("--path={v}"));
            if v.starts_with('-') {
                want.push("--".into());
            }
            want.push(v.clone());
            assert_eq!(got, want, "value {:?}", &v[..v.len().min(40)]);
        }
    });
}

#[test]
fn a_one_megabyte_value_is_a_clear_error_from_the_kernel_not_a_panic() {
    let tool = argvtool();
    let big = "y".repeat(1 << 20);
    let inv = tool
        .invocation(&call("argvtool_echo", json!({"text": big})))
        .unwrap();
    let err = rt()
        .block_on(Runner::new().run(&inv))
        .unwrap_err()
        .to_string();
    assert!(err.contains("Argument list too long"), "{err}");
}

#[test]
fn a_nul_byte_is_refused_before_anything_runs() {
    let tool = argvtool();
    let c = call("argvtool_echo", json!({"text": "a\u{0}b"}));
    let err = tool.invocation(&c).unwrap_err().to_string();
    assert!(err.contains("NUL"), "{err}");
}

fn refused(tool: &LoadedCommands, c: &ToolCall) -> String {
    match tool.invocation(c) {
        Ok(inv) => panic!("dispatched: {:?}", inv.argv),
        Err(e) => {
            let e: DispatchError = e;
            e.to_string()
        }
    }
}

#[test]
fn calls_of_the_wrong_shape_are_refused() {
    let tool = argvtool();
    let cases: Vec<(Value, &str)> = vec![
        (json!({"text": ["a", "b"]}), "text"),
        (json!({"text": "a", "tag": "single"}), "tag"),
        (json!({"text": "a", "force": "yes please"}), "force"),
        (json!({"text": {"nested": true}}), "text"),
        (json!({"text": "a", "extra": "--delete"}), "extra"),
        (
            json!({"text": "a", "__proto__": {"admin": true}}),
            "__proto__",
        ),
        (json!({"text": "a", "constructor": "x"}), "constructor"),
        (json!({"text": "a", "Name": "x"}), "Name"),
        (json!({}), "text"),
    ];
    for (args, param) in cases {
        let err = refused(&tool, &call("argvtool_echo", args.clone()));
        assert!(err.contains(param), "{args}: {err}");
    }
}

#[test]
fn names_that_are_not_tools_are_refused() {
    let tool = argvtool();
    let args = json!({"text": "a"});
    for name in [
        "ARGVTOOL_ECHO",         // differs only in case
        "argvtool_еcho",         // Cyrillic `е`
        "argvtool_echo\u{200b}", // zero-width space
        "argvtool_group",        // interior command, not a tool
        "argvtool",              // the program itself
        "constructor",
        "__proto__",
        "toString",
        "",
        "argvtool_echo; rm -rf /",
    ] {
        let err = refused(&tool, &call(name, args.clone()));
        assert!(
            err.contains("unknown tool") || err.contains("no tool"),
            "{name:?}: {err}"
        );
    }
    // The real interior-leaf tool works.
    assert!(tool
        .invocation(&call("argvtool_group_leaf", json!({})))
        .is_ok());
}

#[test]
fn shell_syntax_in_values_is_inert_for_real_tools() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/atip/mkdir.json"),
    )
    .unwrap();
    let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    let mkdir = LoadedCommands::new(doc, None);
    let name = mkdir.names().next().unwrap().to_owned();
    let param = mkdir.specs()[0]
        .params
        .iter()
        .find(|p| p.required)
        .unwrap()
        .name
        .to_string();
    let runner = Runner::new()
        .current_dir(root)
        .timeout(Duration::from_secs(10));
    let values = [
        "$(touch pwned)",
        "`touch pwned`",
        "; touch pwned",
        "a && touch pwned",
        "-p",
    ];
    rt().block_on(async {
        for v in values {
            let mut args = Map::new();
            args.insert(param.clone(), json!([v]));
            let inv = mkdir
                .invocation(&ToolCall::new(None, name.clone(), args))
                .unwrap();
            let out = runner.run(&inv).await.unwrap();
            assert!(out.success(), "{v}: {}", out.stderr_lossy());
            assert!(root.join(v).is_dir(), "{v} was not created literally");
        }
    });
    let mut entries: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    let mut want: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    want.sort();
    assert_eq!(
        entries, want,
        "nothing but the requested directories exists"
    );
    assert!(!root.join("pwned").exists());
}
