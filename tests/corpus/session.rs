//! A session over imported metadata (issue 47): git and coreutils imported from the real Fig
//! package (effects inferred or left unknown), each call dispatched as a model's tool call and
//! run by a default runner whose confirmation handler counts the questions and says no. Twenty
//! ordinary read-only calls ask nobody and run; six mutating calls — a commit, a tag, a branch,
//! a file write, a fetch over the network, a request over a Unix socket — change nothing.
//! Ignored by default (needs `../shared`); `ATIP_SANDBOX_TESTS=skip` skips it where no sandbox
//! can be had.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use atip_core::flatten::ParamPlacement;
use atip_core::{Document, FlattenOptions, LoadOptions};
use atip_runtime::{ConfirmationRequest, Invocation, LoadedCommands, RunError, Runner, ToolCall};
use serde_json::{json, Map, Value};

/// The imported tools by name.
struct Imported(HashMap<&'static str, LoadedCommands>);

impl Imported {
    fn new(names: &[&'static str]) -> Self {
        let importer = super::fig::importer();
        let tools = names
            .iter()
            .map(|name| {
                let text = importer
                    .import(name)
                    .unwrap_or_else(|e| panic!("{name}: {e}"))
                    .to_json_pretty();
                let doc =
                    Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default())
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                (*name, LoadedCommands::new(doc, None))
            })
            .collect();
        Imported(tools)
    }

    /// The call of `words` (`git log`) with options given by their flags and positionals in
    /// order, as a model would make it, dispatched through the imported metadata.
    fn call(&self, words: &str, options: &[(&str, Value)], positionals: &[Value]) -> Invocation {
        let mut words = words.split(' ');
        let tool = &self.0[words.next().unwrap()];
        let path: Vec<&str> = words.collect();
        let command = tool
            .document()
            .commands
            .iter()
            .find(|c| c.path == path)
            .unwrap_or_else(|| panic!("no command {path:?}"));
        let mut args = Map::new();
        for (flag, value) in options {
            let param = command
                .options
                .iter()
                .find(|p| matches!(&p.kind, ParamPlacement::Option { flag: f, .. } if f.text == *flag))
                .unwrap_or_else(|| {
                    let flags: Vec<String> = command
                        .options
                        .iter()
                        .filter_map(|p| match &p.kind {
                            ParamPlacement::Option { flag, .. } => Some(flag.text.clone()),
                            ParamPlacement::Argument => None,
                        })
                        .collect();
                    panic!("{} has no {flag}: {flags:?}", command.name)
                });
            args.insert(param.name.to_string(), value.clone());
        }
        for (param, value) in command.arguments.iter().zip(positionals) {
            let value = if param.multiple && !value.is_array() {
                json!([value])
            } else {
                value.clone()
            };
            args.insert(param.name.to_string(), value);
        }
        assert!(
            positionals.len() <= command.arguments.len(),
            "{} takes {} positionals",
            command.name,
            command.arguments.len()
        );
        tool.invocation(&ToolCall::new(None, command.name.as_str(), args))
            .unwrap_or_else(|e| panic!("{}: {e}", command.name))
    }
}

fn git(dir: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
#[ignore = "needs ../shared"]
fn twenty_read_only_calls_ask_nobody_and_six_mutating_calls_change_nothing_without_a_yes() {
    let tools = Imported::new(&[
        "git", "ls", "cat", "wc", "head", "tail", "du", "stat", "sort", "uniq", "basename",
        "touch", "curl",
    ]);
    if std::env::var("ATIP_SANDBOX_TESTS").as_deref() == Ok("skip") {
        eprintln!("skipped: ATIP_SANDBOX_TESTS=skip");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.txt"), "b\na\na\n").unwrap();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["add", "a.txt"]);
    git(d, &["commit", "-q", "-m", "first"]);
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let runner = Runner::new()
        .current_dir(d)
        .env("HOME", d.as_os_str())
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .timeout(std::time::Duration::from_secs(20))
        .confirm_with(move |_: ConfirmationRequest| {
            count.fetch_add(1, Ordering::SeqCst);
            async { false }
        });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let s = |v: &str| json!(v);

    let read_only = [
        tools.call("git status", &[], &[]),
        tools.call("git log", &[("--oneline", json!(true))], &[]),
        tools.call("git diff", &[], &[]),
        tools.call("git show", &[], &[]),
        tools.call("git branch", &[], &[]),
        tools.call("git tag", &[], &[]),
        tools.call("git remote", &[], &[]),
        tools.call("git reflog", &[], &[]),
        tools.call("git stash list", &[], &[]),
        tools.call("git blame", &[], &[s("a.txt")]),
        tools.call("ls", &[], &[s(".")]),
        tools.call("cat", &[], &[s("a.txt")]),
        tools.call("wc", &[("-l", json!(true))], &[s("a.txt")]),
        tools.call("head", &[], &[s("a.txt")]),
        tools.call("tail", &[], &[s("a.txt")]),
        tools.call("du", &[], &[s("a.txt")]),
        tools.call("stat", &[], &[s("a.txt")]),
        tools.call("sort", &[], &[s("a.txt")]),
        tools.call("uniq", &[], &[s("a.txt")]),
        tools.call("basename", &[], &[s("dir/b.txt")]),
    ];
    for inv in &read_only {
        let out = rt
            .block_on(runner.run(inv))
            .unwrap_or_else(|e| panic!("{:?}: {e}", inv.argv));
        assert!(out.success(), "{:?}: {out:?}", inv.argv);
    }
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "twenty read-only calls, nobody asked"
    );

    let head = std::fs::read_to_string(d.join(".git/refs/heads/main")).unwrap();
    std::fs::write(d.join("a.txt"), "changed\n").unwrap();
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    server.set_nonblocking(true).unwrap();
    let remote = format!("http://{}/repo.git", server.local_addr().unwrap());
    let socket_path = d.join("daemon.sock");
    let socket = std::os::unix::net::UnixListener::bind(&socket_path).unwrap();
    socket.set_nonblocking(true).unwrap();
    let mutating = [
        tools.call(
            "git commit",
            &[("--all", json!(true)), ("--message", s("second"))],
            &[],
        ),
        tools.call("git tag", &[], &[s("v1")]),
        tools.call("git switch", &[("--create", s("feature"))], &[s("main")]),
        tools.call("touch", &[], &[s("new.txt")]),
        tools.call("git fetch", &[], &[s(&remote)]),
        tools.call(
            "curl",
            &[("--unix-socket", s(&socket_path.display().to_string()))],
            &[s("http://localhost/containers/x/stop")],
        ),
    ];
    for inv in &mutating {
        match rt.block_on(runner.run(inv)) {
            Err(RunError::Declined(_)) | Err(RunError::Denied { .. }) => {}
            other => panic!("{:?} ran without a yes: {other:?}", inv.argv),
        }
    }
    assert_eq!(
        asked.load(Ordering::SeqCst),
        6,
        "each mutating call was put to the person"
    );
    assert_eq!(
        std::fs::read_to_string(d.join(".git/refs/heads/main")).unwrap(),
        head
    );
    assert!(!d.join(".git/refs/tags/v1").exists(), "no tag");
    assert!(!d.join(".git/refs/heads/feature").exists(), "no branch");
    assert!(!d.join("new.txt").exists(), "no file");
    assert!(server.accept().is_err(), "nothing reached the server");
    assert!(socket.accept().is_err(), "nothing reached the socket");
}
