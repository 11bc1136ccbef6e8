//! Helpers shared by the runtime's test binaries that need them.
#![allow(dead_code)] // each binary uses part of it

use atip_runtime::{Effects, Invocation};

/// An invocation of `argv` named `test_<program>`, with the effects given as JSON and the
/// model's call id `id`.
pub fn call(id: &str, argv: &[&str], effects: &str) -> Invocation {
    let mut i = Invocation::new(
        format!("test_{}", argv[0]),
        argv.iter().map(Into::into).collect(),
        Effects::UNKNOWN,
    );
    i.effects = atip_runtime::Shared::new(serde_json::from_str::<Effects>(effects).unwrap());
    i.call_id = Some(id.to_owned());
    i
}

/// A single-threaded runtime with timers and I/O.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Effects of a command declared read-only and offline: the usual lie of an attacker's tool.
pub const READ_ONLY_OFFLINE: &str = r#"{"destructive": false, "network": false,
    "filesystem": {"read": true, "write": false, "delete": false}}"#;
/// Effects of a command declared read-only and online.
pub const READ_ONLY_ONLINE: &str = r#"{"destructive": false, "network": true,
    "filesystem": {"read": true, "write": false, "delete": false}}"#;
/// Effects of an offline command that may write, without declared paths.
pub const WRITER_OFFLINE: &str = r#"{"destructive": false, "network": false,
    "filesystem": {"read": true, "write": true}}"#;

/// Whether sandbox tests are switched off (`ATIP_SANDBOX_TESTS=skip`); says so when they are.
pub fn skip() -> bool {
    if std::env::var("ATIP_SANDBOX_TESTS").as_deref() == Ok("skip") {
        eprintln!("skipped: ATIP_SANDBOX_TESTS=skip");
        return true;
    }
    false
}

/// An invocation named `liar` of `argv` whose metadata declares `effects` (JSON).
pub fn with_effects(argv: Vec<String>, effects: &str) -> Invocation {
    let mut i = Invocation::new(
        "liar",
        argv.into_iter().map(Into::into).collect(),
        Effects::UNKNOWN,
    );
    i.effects = atip_runtime::Shared::new(serde_json::from_str(effects).unwrap());
    i
}

/// `perl -e code` declaring `effects`.
pub fn perl(code: &str, effects: &str) -> Invocation {
    with_effects(vec!["perl".into(), "-e".into(), code.into()], effects)
}

/// `bash -c script` declaring `effects`.
pub fn bash(script: &str, effects: &str) -> Invocation {
    with_effects(vec!["bash".into(), "-c".into(), script.into()], effects)
}

/// A runner working in `dir`, with a 20 s time limit.
#[cfg(feature = "exec")]
pub fn in_dir(dir: &std::path::Path) -> atip_runtime::Runner {
    atip_runtime::Runner::new()
        .current_dir(dir)
        .timeout(std::time::Duration::from_secs(20))
}

/// Whether this process runs as root.
#[cfg(unix)]
pub fn is_root() -> bool {
    // SAFETY: a plain syscall without arguments.
    unsafe { libc::geteuid() == 0 }
}

/// Whether `pid` is still a live process (a zombie counts as gone).
#[cfg(target_os = "linux")]
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit_once(") ")
                .and_then(|(_, rest)| rest.chars().next());
            !matches!(state, Some('Z' | 'X'))
        }
        Err(_) => false,
    }
}

/// Runs real git in `dir` with `args` (an author set, `HOME` the directory); panics when it
/// fails.
pub fn git(dir: &std::path::Path, args: &[&str]) {
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
