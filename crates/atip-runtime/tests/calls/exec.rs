//! The runner on real processes: exit codes and signals, timeouts that kill the whole
//! process group, the output cap, cancellation, environment and directory, and the policy
//! gate with and without a confirmation handler.
//!
//! `sh` appears here only as a test program that forks and sleeps; the runner itself never
//! uses a shell.

#![cfg(all(unix, feature = "exec"))]

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use atip_runtime::{
    exec::BatchOptions, exec::ExitStatus, exec::OutputChunk, exec::StreamKind, policy::ReasonCode,
    Effects, Invocation, RunError, Runner,
};

/// A command declared not destructive (and nothing else), so the default policy runs it.
fn inv(argv: &[&str]) -> Invocation {
    Invocation::new(
        argv[0],
        argv.iter().map(Into::into).collect(),
        Effects::UNKNOWN.with_destructive(false),
    )
}

fn with_effects(mut i: Invocation, json: &str) -> Invocation {
    i.effects = atip_runtime::Shared::new(serde_json::from_str(json).unwrap());
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
            .current_dir(dir.path())
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
            .current_dir(dir.path())
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
        assert_eq!(out.dropped_bytes(), 4_194_304 + 1_048_576 - 1000);
        assert!(out.truncated());
    });
}

#[test]
fn dropping_the_run_future_kills_the_group() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("leader.pid");
        let script = format!("echo $$ > {}; sleep 60", pidfile.display());
        let runner = Runner::new().current_dir(dir.path());
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
        let yes = Runner::new()
            .current_dir(dir.path())
            .confirm_with(|_req| async { true });
        assert!(yes.run(&rm).await.unwrap().success());
        assert!(!victim.exists());
    });
}

#[test]
fn interactive_commands_are_refused_even_when_confirmed() {
    rt().block_on(async {
        let login = with_effects(
            inv(&["true"]),
            r#"{"destructive": false, "interactive": {"stdin": "password"}}"#,
        );
        match Runner::new().run(&login).confirmed(true).await {
            Err(RunError::Denied { reasons, .. }) => {
                assert_eq!(reasons[0].code, ReasonCode::Interactive)
            }
            other => panic!("{other:?}"),
        }
        let allowed = Runner::new().policy(atip_runtime::Policy {
            interactive: atip_runtime::EffectRule::Allow,
            ..Default::default()
        });
        assert!(
            allowed.run(&login).await.unwrap().success(),
            "stdin is /dev/null"
        );
    });
}

#[test]
fn per_command_timeouts_come_from_effects_and_are_clamped() {
    rt().block_on(async {
        let runner = Runner::new()
            .timeout(Duration::from_secs(30))
            .kill_grace(Duration::from_millis(200));
        let quick = with_effects(
            inv(&["sleep", "5"]),
            r#"{"destructive": false, "duration": {"timeout": "1s"}}"#,
        );
        let started = Instant::now();
        let out = runner.run(&quick).await.unwrap();
        assert!(out.timed_out);
        assert_eq!(out.timeout, Duration::from_secs(1));
        assert!(started.elapsed() < Duration::from_secs(4));
        assert!(out
            .to_tool_result()
            .content
            .ends_with("[timed out after 1 s]"));

        let greedy = with_effects(
            inv(&["sleep", "5"]),
            r#"{"destructive": false, "duration": {"timeout": "10m"}}"#,
        );
        let capped = runner.clone().max_timeout(Duration::from_millis(500));
        assert_eq!(
            capped.timeout_for(&greedy.effects),
            Duration::from_millis(500)
        );
        let out = capped.run(&greedy).await.unwrap();
        assert!(out.timed_out);
        assert_eq!(
            runner.timeout_for(&Effects::UNKNOWN),
            Duration::from_secs(30)
        );
    });
}

#[test]
fn nul_in_a_raw_argv_is_refused_before_spawning() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("ran");
        let script = format!("touch {}", marker.display());
        let bad = Invocation::new(
            "sh",
            vec!["sh".into(), "-c".into(), script.into(), "a\0b".into()],
            Effects::UNKNOWN,
        );
        match Runner::new().run(&bad).await {
            Err(RunError::Argv(e)) => {
                assert!(e.to_string().contains("argv[3] contains a NUL byte"), "{e}")
            }
            other => panic!("{other:?}"),
        }
        assert!(!marker.exists());
    });
}

#[test]
fn environment_allow_list_passes_only_named_variables() {
    rt().block_on(async {
        std::env::set_var("ATIP_TEST_KEEP", "kept");
        std::env::set_var("ATIP_TEST_SECRET", "leak");
        let out = Runner::new()
            .env_allow(["PATH", "ATIP_TEST_KEEP"])
            .env("ATIP_TEST_ADDED", "added")
            .run(&inv(&[
                "sh",
                "-c",
                "echo ${ATIP_TEST_KEEP:-none} ${ATIP_TEST_SECRET:-none} ${ATIP_TEST_ADDED:-none}",
            ]))
            .await
            .unwrap();
        assert_eq!(out.stdout_lossy(), "kept none added\n");
    });
}

#[test]
fn stdin_bytes_are_fed_and_default_stdin_is_empty() {
    rt().block_on(async {
        let out = Runner::new()
            .stdin(b"line one\nline two\n".to_vec())
            .run(&inv(&["cat"]))
            .await
            .unwrap();
        assert_eq!(out.stdout, b"line one\nline two\n");
        let out = Runner::new().run(&inv(&["cat"])).await.unwrap();
        assert!(
            out.stdout.is_empty(),
            "cat reads /dev/null and ends at once"
        );
    });
}

#[test]
fn streaming_delivers_chunks_as_they_arrive() {
    rt().block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<OutputChunk>(16);
        let runner = Runner::new();
        let cmd = inv(&[
            "sh",
            "-c",
            "echo first; sleep 0.3; echo second >&2; sleep 0.3; echo third",
        ]);
        let started = Instant::now();
        let collector = tokio::spawn(async move {
            let mut seen = Vec::new();
            while let Some(chunk) = rx.recv().await {
                seen.push((started.elapsed(), chunk));
            }
            seen
        });
        let out = runner.run(&cmd).stream_to(tx).await.unwrap();
        let seen = collector.await.unwrap();
        let texts: Vec<(StreamKind, String)> = seen
            .iter()
            .map(|(_, c)| (c.stream, String::from_utf8_lossy(&c.bytes).into_owned()))
            .collect();
        assert_eq!(
            texts,
            [
                (StreamKind::Stdout, "first\n".to_owned()),
                (StreamKind::Stderr, "second\n".to_owned()),
                (StreamKind::Stdout, "third\n".to_owned())
            ]
        );
        assert!(
            seen[0].0 < Duration::from_millis(250),
            "the first chunk came before the command ended"
        );
        assert_eq!(out.stdout_lossy(), "first\nthird\n");
    });
}

#[test]
fn streamed_chunks_are_redacted_even_when_a_secret_is_split_between_them() {
    rt().block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<OutputChunk>(16);
        // The token arrives in two writes 200 ms apart: two chunks.
        let cmd = inv(&[
            "sh",
            "-c",
            "printf 'ok\\nGITHUB_TOKEN=ghp_0123456789abcdef'; sleep 0.2; printf 'ghijABCDEFGHIJabcdef12 done\\n'",
        ]);
        let collector = tokio::spawn(async move {
            let mut text = String::new();
            let mut chunks = 0;
            while let Some(chunk) = rx.recv().await {
                text.push_str(&String::from_utf8_lossy(&chunk.bytes));
                chunks += 1;
            }
            (text, chunks)
        });
        let out = Runner::new().run(&cmd).stream_to(tx).await.unwrap();
        let (text, chunks) = collector.await.unwrap();
        assert_eq!(text, "ok\nGITHUB_TOKEN=[REDACTED] done\n");
        assert!(chunks >= 2, "the finished line went first: {chunks}");
        assert!(out.stdout_lossy().contains("ghp_"), "the caller keeps the raw output");
    });
}

#[test]
fn a_line_after_a_long_held_key_is_streamed_when_the_output_pauses() {
    // A 10 KB key, its last line and END line a moment later, with a prompt: the redactor
    // keeps that little text back rather than read the key again for it, and the runner
    // passes it on when the pipe is empty, not when the command ends.
    let dir = tempfile::tempdir().unwrap();
    let part = dir.path().join("part.pem");
    let body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n".repeat(150);
    std::fs::write(&part, format!("-----BEGIN RSA PRIVATE KEY-----\n{body}")).unwrap();
    let script = format!(
        "cat '{}'; sleep 0.3; printf 'AAAA\\n-----END RSA PRIVATE KEY-----\\nWaiting for confirmation (type yes):\\n'; sleep 3",
        part.display()
    );
    rt().block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<OutputChunk>(16);
        let started = Instant::now();
        let collector = tokio::spawn(async move {
            let mut text = String::new();
            let mut prompt_at = None;
            while let Some(chunk) = rx.recv().await {
                text.push_str(&String::from_utf8_lossy(&chunk.bytes));
                if prompt_at.is_none() && text.contains("Waiting for confirmation") {
                    prompt_at = Some(started.elapsed());
                }
            }
            (text, prompt_at)
        });
        let out = Runner::new()
            .timeout(Duration::from_secs(2))
            .run(&inv(&["sh", "-c", &script]))
            .stream_to(tx)
            .await
            .unwrap();
        let (text, prompt_at) = collector.await.unwrap();
        assert!(out.timed_out, "the command was still waiting");
        assert!(!text.contains("MIIE"), "the key is redacted: {text}");
        let prompt_at = prompt_at.expect("the prompt was streamed");
        assert!(
            prompt_at < Duration::from_millis(1500),
            "the prompt came at {prompt_at:?}, with the command's end, not when it paused"
        );
    });
}

#[test]
fn megabytes_streamed_are_redacted_as_the_whole_output_is() {
    // Several MiB at once: the redactor gets what each read of the pipe brings (up to 64 KiB),
    // cut anywhere in a line, a character or a token.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.txt");
    let mut text = String::new();
    let mut i = 0u64;
    while text.len() < 4 << 20 {
        if i.is_multiple_of(97) {
            let token: String = (0..36)
                .map(|k| {
                    char::from(b"abcdefghijKLMNOPQRST0123456789uvwxyz"[((i + k) % 36) as usize])
                })
                .collect();
            text.push_str(&format!("export GITHUB_TOKEN=ghp_{token}\n"));
        } else {
            text.push_str(&format!(
                "{i:>9} an ordinary line of build output, é and ✓\n"
            ));
        }
        i += 1;
    }
    // The last line is unfinished: what the redactor holds comes out at the end.
    text.push_str("last GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJabcdef");
    std::fs::write(&file, &text).unwrap();
    rt().block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<OutputChunk>(4);
        let collector = tokio::spawn(async move {
            let mut bytes = Vec::new();
            let mut chunks = 0;
            while let Some(chunk) = rx.recv().await {
                bytes.extend_from_slice(&chunk.bytes);
                chunks += 1;
            }
            (bytes, chunks)
        });
        let cat = inv(&["cat", file.to_str().unwrap()]);
        let out = Runner::new()
            .max_output_bytes(8 << 20)
            .run(&cat)
            .stream_to(tx)
            .await
            .unwrap();
        let (streamed, chunks) = collector.await.unwrap();
        assert_eq!(out.stdout.len(), text.len());
        let streamed = String::from_utf8(streamed).unwrap();
        let (whole, n) = atip_runtime::ResultFilter::new().redact(&text);
        assert_eq!(
            n as u64,
            i.div_ceil(97) + 1,
            "every token is found in the whole output"
        );
        assert!(!streamed.contains("ghp_"), "no token is streamed");
        assert!(
            streamed == whole,
            "the stream ({chunks} chunks) differs from the whole output"
        );
    });
}

fn stamp_script(log: &Path, tag: &str, secs: &str) -> String {
    format!(
        "echo start {tag} $(date +%s%N) >> {log}; sleep {secs}; echo end {tag} $(date +%s%N) >> {log}; echo {tag}",
        log = log.display()
    )
}

fn intervals(log: &Path) -> std::collections::HashMap<String, (u128, u128)> {
    let mut m = std::collections::HashMap::new();
    for line in std::fs::read_to_string(log).unwrap().lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let t: u128 = parts[2].parse().unwrap();
        let e = m.entry(parts[1].to_owned()).or_insert((0, 0));
        if parts[0] == "start" {
            e.0 = t
        } else {
            e.1 = t
        }
    }
    m
}

fn overlap(a: (u128, u128), b: (u128, u128)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

#[test]
fn batches_keep_order_run_safe_calls_together_and_serialise_conflicts() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let read_only = r#"{"filesystem": {"write": false, "delete": false}, "destructive": false, "idempotent": true}"#;
        let writes = r#"{"filesystem": {"write": true, "delete": false}, "destructive": false, "idempotent": true}"#;
        let calls = vec![
            with_effects(inv(&["sh", "-c", &stamp_script(&log, "w1", "0.3")]), writes),
            with_effects(inv(&["sh", "-c", &stamp_script(&log, "r1", "0.3")]), read_only),
            with_effects(inv(&["sh", "-c", &stamp_script(&log, "w2", "0.3")]), writes),
            with_effects(inv(&["sh", "-c", &stamp_script(&log, "r2", "0.3")]), read_only),
        ];
        // The "readers" write their timestamps to the log: the caller lets them, since the
        // sandbox would otherwise hold them to their declared `write: false`.
        let logging = Runner::new().sandbox(atip_runtime::Sandbox::new().writable(dir.path()));
        let results = logging
            .run_batch(calls, BatchOptions { concurrency: 4, stop_on_error: false })
            .await;
        let outs: Vec<String> = results.iter().map(|r| r.as_ref().unwrap().stdout_lossy()).collect();
        assert_eq!(outs, ["w1\n", "r1\n", "w2\n", "r2\n"], "results in input order");
        let t = intervals(&log);
        assert!(!overlap(t["w1"], t["w2"]), "two writers never overlap");
        assert!(t["w1"].1 <= t["w2"].0, "conflicting calls keep their order");
        assert!(overlap(t["w1"], t["r1"]), "a reader runs beside a writer");
        assert!(overlap(t["r1"], t["r2"]) || overlap(t["r2"], t["w2"]), "independent calls run together");

        // Sequential by default.
        let log2 = dir.path().join("log2");
        let calls = vec![
            with_effects(inv(&["sh", "-c", &stamp_script(&log2, "a", "0.1")]), read_only),
            with_effects(inv(&["sh", "-c", &stamp_script(&log2, "b", "0.1")]), read_only),
        ];
        logging.run_batch(calls, BatchOptions::default()).await;
        let t = intervals(&log2);
        assert!(!overlap(t["a"], t["b"]));
    });
}

#[test]
fn batches_stop_on_the_first_error_when_asked() {
    rt().block_on(async {
        let ok = r#"{"destructive": false, "idempotent": true, "filesystem": {"write": false, "delete": false}}"#;
        let calls = || {
            vec![
                with_effects(inv(&["true"]), ok),
                with_effects(inv(&["false"]), ok),
                with_effects(inv(&["true"]), ok),
            ]
        };
        let r = Runner::new().run_batch(calls(), BatchOptions { concurrency: 1, stop_on_error: true }).await;
        assert!(r[0].as_ref().unwrap().success());
        assert_eq!(r[1].as_ref().unwrap().status, ExitStatus::Code(1));
        assert!(matches!(&r[2], Err(RunError::Skipped { name }) if name == "true"));
        let r = Runner::new().run_batch(calls(), BatchOptions::default()).await;
        assert!(r[2].as_ref().unwrap().success(), "continue by default");
    });
}

#[test]
fn tool_results_are_filtered() {
    rt().block_on(async {
        let out = Runner::new()
            .run(&inv(&["sh", "-c", "echo GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJabcdef12; echo fine >&2; exit 3"]))
            .await
            .unwrap();
        let r = Runner::new().tool_result(&out);
        assert!(r.is_error);
        assert_eq!(r.content, "GITHUB_TOKEN=[REDACTED]\n[stderr]\nfine\n[exit code 3]");
        assert!(out.stdout_lossy().contains("ghp_"), "the caller still has the raw output");
        let err = Runner::new()
            .run(&with_effects(inv(&["curl", "-H", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz"]), r#"{"destructive": true}"#))
            .await
            .unwrap_err();
        let r = err.to_tool_result();
        assert!(r.is_error);
        assert!(r.content.contains("Bearer [REDACTED]"), "{}", r.content);
    });
}

#[test]
fn commands_missing_from_partial_metadata_follow_the_safety_assumption() {
    use atip_runtime::{Document, FlattenOptions, LoadOptions, LoadedCommands};
    rt().block_on(async {
        let doc = |assumption: &str| {
            let text = format!(
                r#"{{"atip": {{"version": "0.6"}}, "name": "printf", "version": "9", "description": "Format and print",
                    "partial": true, "omitted": {{"reason": "filtered", "safetyAssumption": "{assumption}"}},
                    "effects": {{"destructive": false}},
                    "commands": {{"listed": {{"description": "a listed command"}}}}}}"#
            );
            LoadedCommands::new(
                Document::parse(&text, &LoadOptions::lenient(), &FlattenOptions::default()).unwrap(),
                None,
            )
        };
        let unknown = doc("unknown");
        let inv = unknown.unlisted_invocation(&[], &["%s", "-n"]).unwrap();
        assert_eq!(inv.argv, ["printf", "%s", "-n"]);
        // Unknown safety asks a person, unless a first try in the tightest sandbox settles it.
        let asking_first = Runner::new().policy(atip_runtime::Policy {
            tight_first: false,
            ..Default::default()
        });
        match asking_first.run(&inv).await {
            Err(RunError::NeedsConfirmation(req)) => {
                assert_eq!(req.reasons[0].code, ReasonCode::NotInMetadata);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(asking_first.run(&inv).confirmed(true).await.unwrap().stdout, b"-n");
        if std::env::var("ATIP_SANDBOX_TESTS").as_deref() != Ok("skip") {
            let tried = Runner::new().run(&inv).await.unwrap();
            assert!(tried.tight_first && tried.stdout == b"-n", "{tried:?}");
        }

        let safe = doc("known-safe");
        let inv = safe.unlisted_invocation(&[], &["ok"]).unwrap();
        assert_eq!(Runner::new().run(&inv).await.unwrap().stdout, b"ok");

        assert!(safe.unlisted_invocation(&["listed"], &[]).unwrap_err().contains("is listed"));
        let complete = LoadedCommands::new(
            Document::parse(
                r#"{"atip": "0.6", "name": "printf", "version": "9", "description": "d"}"#,
                &LoadOptions::strict(),
                &FlattenOptions::default(),
            )
            .unwrap(),
            None,
        );
        assert!(complete.unlisted_invocation(&[], &["x"]).unwrap_err().contains("not `partial`"));
    });
}
