//! Tight first (issue 47): a call whose effects are unknown runs first, unasked, in the
//! tightest sandbox; only when that run fails is a person asked, with what was refused. Each
//! test drives real binaries (coreutils, git, curl, python3) through a runner with a counting
//! confirmation handler, and asserts both how often a person was asked and what changed on disk
//! or on the wire.

use crate::common;
use common::*;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use atip_runtime::policy::{Policy, Reason, ReasonCode};
use atip_runtime::{ConfirmationRequest, RunError, Runner};

/// Effects an importer leaves: nothing declared.
const UNKNOWN: &str = "{}";

/// A runner in `dir` whose handler answers `yes`, counting the questions and keeping the last.
fn asking(
    dir: &Path,
    yes: bool,
) -> (
    Runner,
    Arc<AtomicUsize>,
    Arc<Mutex<Option<ConfirmationRequest>>>,
) {
    let asked = Arc::new(AtomicUsize::new(0));
    let last = Arc::new(Mutex::new(None));
    let (count, keep) = (asked.clone(), last.clone());
    let runner =
        in_dir(dir)
            .env("HOME", dir.as_os_str())
            .confirm_with(move |r: ConfirmationRequest| {
                count.fetch_add(1, Ordering::SeqCst);
                *keep.lock().unwrap() = Some(r);
                async move { yes }
            });
    (runner, asked, last)
}

/// The `tight-first` reason of a question, if it has one.
fn tight_reason(request: &ConfirmationRequest) -> Option<&Reason> {
    request
        .reasons
        .iter()
        .find(|r| r.code == ReasonCode::TightFirst)
}

/// Runs `call` in `dir` with a handler that says no: it is declined after exactly one
/// question, which is returned.
fn declined_once(dir: &Path, call: &atip_runtime::Invocation) -> ConfirmationRequest {
    let (runner, asked, last) = asking(dir, false);
    let result = rt().block_on(runner.run(call));
    assert!(matches!(result, Err(RunError::Declined(_))), "{result:?}");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    let request = last.lock().unwrap().clone().unwrap();
    request
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn read_only_calls_with_unknown_effects_run_unasked_and_say_how_they_ran() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "a.txt"]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    let (runner, asked, _) = asking(dir.path(), false);
    for words in [
        &["cat", "a.txt"][..],
        &["ls", "-la"],
        &["wc", "-l", "a.txt"],
        &["git", "log", "--oneline"],
        &["git", "status", "--short"],
    ] {
        let out = rt()
            .block_on(runner.run(&with_effects(argv(words), UNKNOWN)))
            .unwrap_or_else(|e| panic!("{words:?}: {e}"));
        assert!(out.success(), "{words:?}: {out:?}");
        assert!(out.tight_first, "{words:?} ran tight first");
        let result = runner.tool_result(&out);
        assert_eq!(result.meta["tightFirst"], true);
        assert!(
            result.content.contains("[ran read-only and offline"),
            "{}",
            result.content
        );
    }
    assert_eq!(asked.load(Ordering::SeqCst), 0, "nobody was asked");
}

#[test]
fn a_write_is_refused_in_the_tight_run_and_happens_only_after_a_yes() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let call = with_effects(argv(&["touch", "made.txt"]), UNKNOWN);
    // Without a handler the call cannot be asked about: the tight run failed, nothing written.
    let err = rt().block_on(in_dir(dir.path()).run(&call)).unwrap_err();
    let RunError::NeedsConfirmation(request) = err else {
        panic!("{err}")
    };
    let tight = tight_reason(&request).expect("the tight run's reason");
    assert!(
        tight.message.contains("refused: a write"),
        "{}",
        tight.message
    );
    assert!(!dir.path().join("made.txt").exists());

    declined_once(dir.path(), &call);
    assert!(
        !dir.path().join("made.txt").exists(),
        "a no changes nothing"
    );

    let (yes, asked, _) = asking(dir.path(), true);
    let out = rt().block_on(yes.run(&call)).unwrap();
    assert!(out.success() && !out.tight_first, "{out:?}");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert!(
        dir.path().join("made.txt").exists(),
        "a yes runs it with its effects"
    );
}

#[test]
fn a_commit_with_unknown_effects_changes_nothing_without_a_yes() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "a.txt"]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    std::fs::write(dir.path().join("a.txt"), "b\n").unwrap();
    let head = std::fs::read_to_string(dir.path().join(".git/refs/heads/main")).unwrap();
    let (runner, asked, last) = asking(dir.path(), false);
    for words in [
        &[
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e.invalid",
            "commit",
            "-qam",
            "second",
        ][..],
        &["git", "tag", "v1"],
        &["git", "branch", "feature"],
    ] {
        let result = rt().block_on(runner.run(&with_effects(argv(words), UNKNOWN)));
        assert!(
            matches!(result, Err(RunError::Declined(_))),
            "{words:?}: {result:?}"
        );
    }
    assert_eq!(asked.load(Ordering::SeqCst), 3);
    let request = last.lock().unwrap().clone().unwrap();
    assert!(tight_reason(&request).is_some(), "{request}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".git/refs/heads/main")).unwrap(),
        head,
        "no commit"
    );
    assert!(!dir.path().join(".git/refs/tags/v1").exists(), "no tag");
    assert!(
        !dir.path().join(".git/refs/heads/feature").exists(),
        "no branch"
    );
}

#[test]
fn a_connection_is_refused_in_the_tight_run_and_nothing_reaches_the_server() {
    if skip() || !super::egress::curl() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let call = with_effects(argv(&["curl", "-sS", "--max-time", "5", &url]), UNKNOWN);
    let request = declined_once(dir.path(), &call);
    let tight = tight_reason(&request).unwrap();
    assert!(tight.message.contains("the network"), "{}", tight.message);
    assert!(
        listener.accept().is_err(),
        "no connection reached the server"
    );
}

#[test]
fn a_unix_socket_is_refused_in_the_tight_run() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("daemon.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let script = format!(
        "import socket; s = socket.socket(socket.AF_UNIX); s.connect({:?}); s.send(b'x')",
        path.display().to_string()
    );
    let call = with_effects(argv(&["python3", "-c", &script]), UNKNOWN);
    let request = declined_once(dir.path(), &call);
    assert!(tight_reason(&request).is_some(), "{request}");
    assert!(
        listener.accept().is_err(),
        "nothing connected to the socket"
    );
}

#[test]
fn a_call_that_declares_a_write_is_asked_first_and_never_run_twice() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Declared to write, destructive left unknown: the policy asks, and tight first does not
    // apply, so the handler is asked before anything runs, once.
    let call = with_effects(
        argv(&["bash", "-c", "echo run >> runs.txt"]),
        r#"{"filesystem": {"write": true}}"#,
    );
    let (runner, asked, last) = asking(dir.path(), true);
    rt().block_on(runner.run(&call)).unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    let request = last.lock().unwrap().clone().unwrap();
    assert!(tight_reason(&request).is_none(), "{request}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("runs.txt")).unwrap(),
        "run\n"
    );
}

#[test]
fn a_policy_can_opt_out_and_ask_first() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let policy = Policy {
        tight_first: false,
        ..Policy::default()
    };
    let (runner, asked, last) = asking(dir.path(), false);
    let runner = runner.policy(policy);
    let call = with_effects(argv(&["ls"]), UNKNOWN);
    assert!(matches!(
        rt().block_on(runner.run(&call)),
        Err(RunError::Declined(_))
    ));
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    let request = last.lock().unwrap().clone().unwrap();
    assert!(tight_reason(&request).is_none(), "{request}");
}
