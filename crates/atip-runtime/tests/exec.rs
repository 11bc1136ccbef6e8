//! The runner on real processes: exit codes and signals, timeouts that kill the whole
//! process group, the output cap, cancellation, environment and directory, and the policy
//! gate with and without a confirmation handler.
//!
//! `sh` appears here only as a test program that forks and sleeps; the runner itself never
//! uses a shell.

#![cfg(unix)]

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use atip_runtime::{Effects, ExitStatus, Invocation, ReasonCode, RunError, Runner};

fn inv(argv: &[&str]) -> Invocation {
    Invocation {
        name: Cow::Owned(argv[0].to_owned()),
        argv: argv.iter().map(Into::into).collect(),
        effects: Cow::Owned(Effects::UNKNOWN),
        trust: None,
    }
}

fn with_effects(mut i: Invocation, json: &str) -> Invocation {
    i.effects = Cow::Owned(serde_json::from_str(json).unwrap());
    i
}

/// Whether `pid` is a live process: it exists and is not a zombie (a killed grandchild is
/// reparented and may wait a moment to be reaped by init).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        // SAFETY: signal 0 only checks that the process exists.
        Err(_) => unsafe { libc::kill(pid, 0) == 0 },
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn exit_codes_and_signals_are_reported() {
    rt().block_on(async {
        let r = Runner::new();
        let out = r.run(&inv(&["true"])).await.unwrap();
        assert_eq!(out.status, ExitStatus::Code(0));
        assert!(out.success());
        let out = r
            .run(&inv(&["sh", "-c", "echo oops >&2; exit 3"]))
            .await
            .unwrap();
        assert_eq!(out.status, ExitStatus::Code(3));
        assert_eq!(out.stderr, b"oops\n");
        let out = r.run(&inv(&["sh", "-c", "kill -9 $$"])).await.unwrap();
        assert_eq!(out.status, ExitStatus::Signal(9));
    });
}

#[test]
fn arguments_are_passed_without_a_shell() {
    rt().block_on(async {
        let hostile = "$(touch /tmp/atip-should-not-exist); `id` | rm -rf / ; 'x'";
        let out = Runner::new()
            .run(&inv(&["printf", "%s", hostile]))
            .await
            .unwrap();
        assert_eq!(out.stdout_lossy(), hostile);
        assert!(!std::path::Path::new("/tmp/atip-should-not-exist").exists());
    });
}

#[test]
fn timeout_kills_the_whole_process_group() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("bg.pid");
        let script = format!(
            "sleep 60 & echo $! > {}; echo started; wait",
            pidfile.display()
        );
        let started = Instant::now();
        let out = Runner::new()
            .timeout(Duration::from_millis(500))
            .kill_grace(Duration::from_millis(300))
            .run(&inv(&["sh", "-c", &script]))
            .await
            .unwrap();
        assert!(out.timed_out);
        assert!(!out.success());
        assert_eq!(out.stdout_lossy(), "started\n", "partial output is kept");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        let bg: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(
            !alive(bg),
            "the background grandchild {bg} was killed with the group"
        );
    });
}

#[test]
fn a_process_ignoring_sigterm_is_killed_after_the_grace_period() {
    rt().block_on(async {
        let started = Instant::now();
        let out = Runner::new()
            .timeout(Duration::from_millis(300))
            .kill_grace(Duration::from_millis(300))
            .run(&inv(&["sh", "-c", "trap '' TERM; sleep 30"]))
            .await
            .unwrap();
        assert!(out.timed_out);
        assert_eq!(out.status, ExitStatus::Signal(libc::SIGKILL));
        assert!(started.elapsed() < Duration::from_secs(5));
    });
}

#[test]
fn leftover_background_processes_are_killed_when_the_command_exits() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("bg.pid");
        let script = format!("sleep 60 >/dev/null 2>&1 & echo $! > {}", pidfile.display());
        let out = Runner::new()
            .run(&inv(&["sh", "-c", &script]))
            .await
            .unwrap();
        assert!(out.success());
        let bg: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!alive(bg), "no orphans");
    });
}

#[test]
fn output_is_capped_while_the_pipe_keeps_draining() {
    rt().block_on(async {
        // 4 MiB on stdout and 1 MiB on stderr, far beyond a pipe buffer: the child must not
        // block on a full pipe, and only the cap is kept.
        let script = "head -c 4194304 /dev/zero; head -c 1048576 /dev/zero >&2";
        let out = Runner::new()
            .max_output_bytes(1000)
            .timeout(Duration::from_secs(20))
            .run(&inv(&["sh", "-c", script]))
            .await
            .unwrap();
        assert!(out.success(), "{:?}", out.status);
        assert!(!out.timed_out);
        assert_eq!(out.stdout.len() + out.stderr.len(), 1000);
        assert_eq!(out.dropped_bytes, 4_194_304 + 1_048_576 - 1000);
        assert!(out.truncated());
    });
}

#[test]
fn dropping_the_run_future_kills_the_group() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("leader.pid");
        let script = format!("echo $$ > {}; sleep 60", pidfile.display());
        let runner = Runner::new();
        let invocation = inv(&["sh", "-c", &script]);
        let run = runner.run(&invocation);
        let _ = tokio::time::timeout(Duration::from_millis(500), run).await;
        let leader: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        // Killed and reaped (tokio reaps dropped children), so it no longer exists.
        assert!(!alive(leader), "the cancelled command {leader} was killed");
    });
}

#[test]
fn environment_and_directory_are_controllable() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let out = Runner::new()
            .current_dir(dir.path())
            .env_clear()
            .env("ATIP_TEST", "yes")
            .env("PATH", std::env::var_os("PATH").unwrap())
            .run(&inv(&[
                "sh",
                "-c",
                "pwd; echo $ATIP_TEST; echo ${HOME:-unset}",
            ]))
            .await
            .unwrap();
        let lines: Vec<String> = out.stdout_lossy().lines().map(str::to_owned).collect();
        assert_eq!(
            std::fs::canonicalize(&lines[0]).unwrap(),
            std::fs::canonicalize(dir.path()).unwrap()
        );
        assert_eq!(lines[1..], ["yes", "unset"]);
    });
}

#[test]
fn missing_programs_and_bad_argv_are_errors_not_panics() {
    rt().block_on(async {
        let r = Runner::new();
        match r.run(&inv(&["atip-no-such-program-xyz"])).await {
            Err(RunError::Spawn { program, .. }) => assert_eq!(program, "atip-no-such-program-xyz"),
            other => panic!("{other:?}"),
        }
        let empty = Invocation {
            argv: Vec::new(),
            ..inv(&["x"])
        };
        assert!(matches!(r.run(&empty).await, Err(RunError::Spawn { .. })));
    });
}

#[test]
fn destructive_commands_need_confirmation() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "x").unwrap();
        let rm = with_effects(
            inv(&["rm", victim.to_str().unwrap()]),
            r#"{"destructive": true, "reversible": false}"#,
        );

        // No handler: refused with everything a person needs to decide.
        match Runner::new().run(&rm).await {
            Err(RunError::NeedsConfirmation(req)) => {
                assert_eq!(req.reasons.len(), 1);
                assert_eq!(req.reasons[0].code, ReasonCode::Destructive);
                assert_eq!(req.invocation.argv, rm.argv);
                assert_eq!(req.invocation.effects.destructive, Some(true));
                assert!(req.to_string().contains("needs confirmation"));
            }
            other => panic!("{other:?}"),
        }
        assert!(victim.exists());

        // A handler that says no.
        let asked = Arc::new(AtomicUsize::new(0));
        let count = asked.clone();
        let no = Runner::new().confirm_with(move |req: atip_runtime::ConfirmationRequest| {
            count.fetch_add(1, Ordering::SeqCst);
            assert_eq!(req.invocation.name, "rm");
            async { false }
        });
        assert!(matches!(no.run(&rm).await, Err(RunError::Declined(_))));
        assert_eq!(asked.load(Ordering::SeqCst), 1);
        assert!(victim.exists());

        // A handler that says yes.
        let yes = Runner::new().confirm_with(|_req| async { true });
        assert!(yes.run(&rm).await.unwrap().success());
        assert!(!victim.exists());
    });
}

#[test]
fn interactive_commands_are_refused_even_when_confirmed() {
    rt().block_on(async {
        let login = with_effects(inv(&["true"]), r#"{"interactive": {"stdin": "password"}}"#);
        match Runner::new().run_confirmed(&login).await {
            Err(RunError::Denied { reasons, .. }) => {
                assert_eq!(reasons[0].code, ReasonCode::Interactive)
            }
            other => panic!("{other:?}"),
        }
        let allowed = Runner::new().policy(atip_runtime::Policy {
            allow_interactive: true,
            ..Default::default()
        });
        assert!(
            allowed.run(&login).await.unwrap().success(),
            "stdin is /dev/null"
        );
    });
}
