//! The policy's path roots against real coreutils, with the sandbox off so that only the
//! policy layer stands between a model and the file system (security review, finding 4).
//!
//! A symbolic link in the working directory points at another directory. A value that walks
//! through a component that does not exist yet and back out of it with `..`
//! (`missing/../lnk/pwned`) must still be seen to go through the link: `mkdir -p` creates
//! `missing` as a real directory, so the kernel then resolves `missing/..` to the working
//! directory and follows `lnk` out of it.

use std::path::Path;

use atip_runtime::{
    policy::ReasonCode, Document, FlattenOptions, LoadOptions, LoadedCommands, Policy, RunError,
    Runner, Sandbox, ToolCall,
};
use serde_json::{json, Value};

/// `mkdir` and `cat` as ATIP tools of their own (`{"": …}` is the program itself).
const MKDIR: &str = r#"{
  "atip": {"version": "0.6"}, "name": "mkdir", "version": "9", "description": "Make directories",
  "trust": {"source": "user"},
  "commands": {"": {"description": "Make directories",
    "options": [{"name": "parents", "flags": ["-p", "--parents"], "type": "boolean", "description": "Make parents as needed"}],
    "arguments": [{"name": "directories", "type": "directory", "variadic": true, "description": "Directories to make"}],
    "effects": {"destructive": false, "filesystem": {"write": true}}}}
}"#;

const CAT: &str = r#"{
  "atip": {"version": "0.6"}, "name": "cat", "version": "9", "description": "Print files",
  "trust": {"source": "user"},
  "commands": {"": {"description": "Print files",
    "arguments": [{"name": "files", "type": "file", "variadic": true, "description": "Files to print"}],
    "effects": {"destructive": false, "filesystem": {"read": true, "write": false}}}}
}"#;

fn tool(json: &str) -> LoadedCommands {
    let doc = Document::parse(json, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    LoadedCommands::new(doc, None)
}

fn call(name: &str, args: Value) -> ToolCall {
    let Value::Object(m) = args else {
        panic!("arguments are an object")
    };
    ToolCall::new(Some("call_1".into()), name, m)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A working directory whose `lnk` points at a second directory holding `secret`.
struct Scene {
    _base: tempfile::TempDir,
    work: std::path::PathBuf,
    outside: std::path::PathBuf,
}

fn scene() -> Scene {
    let base = tempfile::tempdir().unwrap();
    let work = base.path().join("work");
    let outside = base.path().join("outside");
    std::fs::create_dir(&work).unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret"), "the secret\n").unwrap();
    std::os::unix::fs::symlink(&outside, work.join("lnk")).unwrap();
    Scene {
        _base: base,
        work,
        outside,
    }
}

fn runner(work: &Path, roots: &[&str]) -> Runner {
    Runner::new()
        .current_dir(work)
        .policy(Policy {
            path_roots: roots.iter().map(|r| (*r).to_owned()).collect(),
            ..Policy::default()
        })
        .sandbox(Sandbox::off())
}

fn refused(result: Result<atip_runtime::Output, RunError>, what: &str) {
    match result {
        Err(RunError::Denied { reasons, .. }) => {
            assert_eq!(reasons.len(), 1, "{what}: {reasons:?}");
            assert_eq!(reasons[0].code, ReasonCode::PathOutsideRoots, "{what}");
        }
        other => panic!("{what}: not refused: {other:?}"),
    }
}

#[test]
fn a_missing_component_and_dot_dot_do_not_hide_a_link_out_of_the_root() {
    let s = scene();
    let t = tool(MKDIR);
    let mkdir = |dir: &str| {
        t.invocation(&call(
            "mkdir",
            json!({"parents": true, "directories": [dir]}),
        ))
        .unwrap()
    };

    // The attack is real: with any path allowed, the kernel follows `lnk` after `missing/..`.
    let open = runner(&s.work, &["/"]);
    let out = rt()
        .block_on(open.run(&mkdir("missing/../lnk/pwned")))
        .unwrap();
    assert!(out.success(), "{out:?}");
    assert!(
        s.outside.join("pwned").is_dir(),
        "mkdir -p went through lnk"
    );
    std::fs::remove_dir(s.outside.join("pwned")).unwrap();
    std::fs::remove_dir(s.work.join("missing")).unwrap();

    // Confined to the working directory, every way through the link is refused.
    let confined = runner(&s.work, &["."]);
    for dir in [
        "lnk/x",
        "missing/../lnk/pwned",
        "./missing/./../lnk/pwned/",
        "missing/deeper/../../lnk/pwned",
        "missing/../missing2/../lnk/pwned",
    ] {
        refused(rt().block_on(confined.run(&mkdir(dir))), dir);
    }
    let absolute = s.work.join("missing/../lnk/pwned").display().to_string();
    refused(rt().block_on(confined.run(&mkdir(&absolute))), &absolute);
    assert_eq!(
        std::fs::read_dir(&s.outside).unwrap().count(),
        1,
        "nothing was created outside the root"
    );
    assert!(!s.work.join("missing").exists());

    // A read through the same walk is refused too, and its output never reaches the model.
    let cat = tool(CAT)
        .invocation(&call("cat", json!({"files": ["missing/../lnk/secret"]})))
        .unwrap();
    refused(
        rt().block_on(confined.run(&cat)),
        "cat missing/../lnk/secret",
    );

    // What stays inside is still allowed.
    let out = rt()
        .block_on(confined.run(&mkdir("missing/../inside/x")))
        .unwrap();
    assert!(out.success(), "{out:?}");
    assert!(s.work.join("inside/x").is_dir());
}

#[test]
fn a_walk_longer_than_the_link_budget_is_refused_not_taken_as_written() {
    let s = scene();
    // c0 -> c1 -> … -> c39 -> dir: all 40 links stay inside the working directory.
    std::fs::create_dir(s.work.join("dir")).unwrap();
    for i in 0..40 {
        let next = if i == 39 {
            "dir".to_owned()
        } else {
            format!("c{}", i + 1)
        };
        std::os::unix::fs::symlink(next, s.work.join(format!("c{i}"))).unwrap();
    }
    let t = tool(MKDIR);
    let attack = t
        .invocation(&call(
            "mkdir",
            json!({"parents": true, "directories": ["c0/../lnk/pwned"]}),
        ))
        .unwrap();
    // `mkdir -p` walks one component at a time, each with a fresh kernel budget, so the 41st
    // link (`lnk`) is followed.
    let open = runner(&s.work, &["/"]);
    assert!(rt().block_on(open.run(&attack)).unwrap().success());
    assert!(s.outside.join("pwned").is_dir());
    std::fs::remove_dir(s.outside.join("pwned")).unwrap();

    let confined = runner(&s.work, &["."]);
    refused(rt().block_on(confined.run(&attack)), "c0/../lnk/pwned");
    assert!(!s.outside.join("pwned").exists());
}
