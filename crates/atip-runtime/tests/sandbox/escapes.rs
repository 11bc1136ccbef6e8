//! Escapes found in review (issue 32), each as an attack on real processes: the "attacker" is
//! `perl -e CODE` or `bash -c CODE` run through metadata that lies about its effects, and each
//! test asserts what stops it. Run with the sandbox off where that shows the attack is real.
//!
//! Like `sandbox.rs`, these need Linux with Landlock ABI 6+ and unprivileged user
//! namespaces (the CI machines have ABI 7); `ATIP_SANDBOX_TESTS=skip` skips them with a reason.

use crate::common;
use common::*;

use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use atip_runtime::{
    sandbox::limits::ResourceLimits, sandbox::Containment, AuditLog, Policy, RunError, Sandbox,
};

fn kill(pid: i32) {
    // SAFETY: a plain syscall; the test cleans up what an attack left behind.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

// ---- 1. process-group escape -------------------------------------------------------------

#[test]
fn a_child_that_joins_the_runners_process_group_is_still_killed_at_the_timeout() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runner = in_dir(dir.path())
        .timeout(Duration::from_secs(1))
        .kill_grace(Duration::from_millis(300));
    let code = "setpgrp(0, getpgrp(getppid())) ? print \"joined\\n\" : print \"refused: $!\\n\"; \
                $| = 1; sleep 20; print \"survived\\n\"";
    let started = Instant::now();
    let out = rt()
        .block_on(runner.run(&perl(code, READ_ONLY_OFFLINE)))
        .unwrap();
    let took = started.elapsed();
    assert!(out.timed_out, "{out:?}");
    assert!(took < Duration::from_secs(8), "the run waited {took:?}");
    let stdout = out.stdout_lossy();
    assert!(stdout.contains("refused"), "{stdout}");
    assert!(!stdout.contains("survived"), "{stdout}");
}

#[test]
fn a_grandchild_in_a_new_session_does_not_outlive_the_run() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The grandchild reports its pid, tries to leave the session and the group, lets go of the
    // pipes and sleeps; its parent exits a second later.
    let code = "use POSIX; my $pid = fork(); if ($pid == 0) { \
                my $s = POSIX::setsid(); my $g = setpgrp(0, 0); \
                print \"grandchild $$ setsid=\", ($s > 0 ? $s : \"refused\"), \
                \" setpgrp=\", ($g ? \"ok\" : \"refused\"), \"\\n\"; \
                close STDOUT; close STDERR; sleep 30; exit 0 } \
                sleep 1; exit 0";
    let out = rt()
        .block_on(in_dir(dir.path()).run(&perl(code, READ_ONLY_OFFLINE)))
        .unwrap();
    let stdout = out.stdout_lossy();
    let pid: i32 = stdout
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {stdout:?}"));
    // Reaping by init may take a moment after the kill.
    let deadline = Instant::now() + Duration::from_secs(3);
    while alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survived = alive(pid);
    kill(pid);
    assert!(!survived, "grandchild {pid} outlived the run: {stdout}");
    assert!(stdout.contains("setsid=refused"), "{stdout}");
    assert!(stdout.contains("setpgrp=refused"), "{stdout}");
    assert!(
        out.sandbox.enforces(&Containment::NoNewSessions),
        "{}",
        out.sandbox
    );
}

// ---- 3. checksum cache ------------------------------------------------------------------

fn sha256_hex(bytes: &[u8]) -> String {
    // `sha256sum` from coreutils, so the test does not share the runtime's hashing code.
    use std::io::Write;
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_owned()
}

#[test]
fn a_pinned_binary_rewritten_in_place_with_its_old_size_and_mtime_never_runs() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join("tool");
    let honest = b"#!/bin/sh\necho honest\n".to_vec();
    std::fs::write(&tool, &honest).unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let pinned = format!("sha256:{}", sha256_hex(&honest));
    let call = || {
        let mut i = with_effects(vec![tool.display().to_string()], READ_ONLY_OFFLINE);
        i.checksum = Some(pinned.clone().into());
        i
    };
    let runner = in_dir(dir.path());
    let out = rt().block_on(runner.run(&call())).unwrap();
    assert_eq!(out.stdout_lossy(), "honest\n");

    // Same size, same mtime, same inode: only the contents (and the ctime) change.
    let evil = b"#!/bin/sh\necho PWNED!\n".to_vec();
    assert_eq!(evil.len(), honest.len());
    let before = std::fs::metadata(&tool).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&tool)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &evil))
        .unwrap();
    let mtime = std::fs::FileTimes::new().set_modified(before.modified().unwrap());
    std::fs::File::options()
        .write(true)
        .open(&tool)
        .unwrap()
        .set_times(mtime)
        .unwrap();
    let after = std::fs::metadata(&tool).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (before.len(), before.modified().unwrap())
    );
    let result = rt().block_on(runner.run(&call()));
    match result {
        Err(RunError::Checksum(e)) => assert!(e.to_string().contains("does not match"), "{e}"),
        other => panic!("the rewritten binary ran: {other:?}"),
    }
}

// ---- 5. scratch directories -------------------------------------------------------------

#[test]
fn every_run_gets_a_scratch_directory_of_its_own() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runner = in_dir(dir.path());
    let first = rt()
        .block_on(runner.run(&bash(
            "chmod 0777 \"$TMPDIR\"; echo \"$TMPDIR\"",
            READ_ONLY_OFFLINE,
        )))
        .unwrap();
    let first_dir = PathBuf::from(first.stdout_lossy().trim());
    let second = rt()
        .block_on(runner.run(&bash(
            "echo \"$TMPDIR\"; stat -c %a \"$TMPDIR\"",
            READ_ONLY_OFFLINE,
        )))
        .unwrap();
    let stdout = second.stdout_lossy();
    let mut lines = stdout.lines();
    let second_dir = PathBuf::from(lines.next().unwrap());
    assert_ne!(first_dir, second_dir, "a scratch directory was handed on");
    assert_eq!(lines.next(), Some("700"), "{stdout}");
    assert!(!first_dir.exists(), "{} was kept", first_dir.display());
}

// ---- 6. Landlock rights of this kernel, abstract sockets, file metadata -----------------

#[test]
fn device_ioctls_are_denied_where_the_kernel_handles_them() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // TCGETS on /dev/null opened after the sandbox is in place: ENOTTY when the ioctl reaches
    // the driver, EACCES when Landlock (ABI 5+) stops it first.
    let code = "open(my $f, '<', '/dev/null') or die; \
                ioctl($f, 0x5401, my $buf = ' ' x 64) ? print \"ok\\n\" : print \"$!\\n\"";
    let out = rt()
        .block_on(in_dir(dir.path()).run(&perl(code, READ_ONLY_OFFLINE)))
        .unwrap();
    assert_eq!(out.stdout_lossy().trim(), "Permission denied", "{out:?}");
    let open = rt()
        .block_on(
            in_dir(dir.path())
                .sandbox(Sandbox::off())
                .run(&perl(code, READ_ONLY_OFFLINE)),
        )
        .unwrap();
    assert_eq!(open.stdout_lossy().trim(), "Inappropriate ioctl for device");
}

#[test]
fn an_online_run_whose_writes_are_limited_cannot_reach_abstract_unix_sockets() {
    if skip() {
        return;
    }
    use std::os::linux::net::SocketAddrExt;
    let name = format!("atip-escapes-{}", std::process::id());
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let listener = std::os::unix::net::UnixListener::bind_addr(&addr).unwrap();
    listener.set_nonblocking(true).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let code = format!(
        "use Socket; socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die; \
         connect($s, pack_sockaddr_un(\"\\0{name}\")) ? print \"CONNECTED\\n\" : print \"refused: $!\\n\""
    );
    // The run may open Unix sockets (its policy lists one): Landlock is what refuses the
    // abstract one.
    let listed = dir.path().join("listed.sock");
    let _listed = std::os::unix::net::UnixListener::bind(&listed).unwrap();
    let policy: atip_runtime::Policy =
        serde_json::from_value(serde_json::json!({"unixSockets": [listed]})).unwrap();
    let out = rt()
        .block_on(
            in_dir(dir.path())
                .policy(policy)
                .run(&perl(&code, READ_ONLY_ONLINE)),
        )
        .unwrap();
    assert!(out.stdout_lossy().contains("refused"), "{out:?}");
    assert!(listener.accept().is_err(), "the listener was reached");
    assert!(
        !out.sandbox.enforces(&Containment::NoUnixSockets),
        "{}",
        out.sandbox
    );
    assert!(
        out.sandbox.enforces(&Containment::NoAbstractUnixSockets),
        "{}",
        out.sandbox
    );
    // Without the sandbox the same call connects: the test can fail.
    let open = rt()
        .block_on(
            in_dir(dir.path())
                .sandbox(Sandbox::off())
                .run(&perl(&code, READ_ONLY_ONLINE)),
        )
        .unwrap();
    assert!(open.stdout_lossy().contains("CONNECTED"), "{open:?}");
}

#[test]
fn a_read_only_run_cannot_change_modes_owners_or_times() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "s").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let before = std::fs::metadata(&secret).unwrap();
    let script = "chmod 0666 secret && echo CHMOD; chown 0:0 secret && echo CHOWN; \
                  touch -d 2001-01-01 secret && echo TOUCH; echo done";
    let out = rt()
        .block_on(in_dir(dir.path()).run(&bash(script, READ_ONLY_OFFLINE)))
        .unwrap();
    let stdout = out.stdout_lossy();
    assert_eq!(stdout, "done\n", "{out:?}");
    let after = std::fs::metadata(&secret).unwrap();
    assert_eq!(after.permissions().mode() & 0o777, 0o600);
    assert_eq!(after.modified().unwrap(), before.modified().unwrap());
    assert!(
        out.sandbox.enforces(&Containment::NoMetadataChanges),
        "{}",
        out.sandbox
    );
}

// ---- 8. inherited file descriptors ------------------------------------------------------

#[test]
fn descriptors_the_runner_leaves_open_do_not_reach_the_child() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("host.log");
    let file = std::fs::File::create(&log).unwrap();
    // A descriptor without close-on-exec, as a careless host library would leave it.
    // SAFETY: dup of a valid descriptor; the result is closed below.
    let fd = unsafe { libc::dup(file.as_raw_fd()) };
    assert!(fd > 2);
    let script = format!("echo pwned >&{fd} && echo WROTE; echo done");
    let out = rt()
        .block_on(in_dir(dir.path()).run(&bash(&script, READ_ONLY_OFFLINE)))
        .unwrap();
    // SAFETY: closes the descriptor duplicated above.
    unsafe {
        libc::close(fd);
    }
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "", "{out:?}");
    assert!(!out.stdout_lossy().contains("WROTE"));
}

// ---- 9. root runners ----------------------------------------------------------------------

#[test]
fn children_hold_no_capabilities_even_when_the_runner_is_root() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status; \
                  ip link set lo up 2>/dev/null && echo LINK-UP; echo done";
    for effects in [READ_ONLY_OFFLINE, READ_ONLY_ONLINE, WRITER_OFFLINE] {
        let out = rt()
            .block_on(in_dir(dir.path()).run(&bash(script, effects)))
            .unwrap();
        let stdout = out.stdout_lossy();
        // A runner that is not root cannot drop the bounding set outside a user namespace;
        // it grants nothing there (no_new_privs, no file capabilities).
        let checked = |l: &&str| l.starts_with("Cap") && (is_root() || !l.starts_with("CapBnd"));
        for line in stdout.lines().filter(checked) {
            assert!(line.ends_with("0000000000000000"), "{effects}: {stdout}");
        }
        assert_eq!(stdout.lines().filter(|l| l.starts_with("Cap")).count(), 5);
        assert!(!stdout.contains("LINK-UP"), "{effects}: {stdout}");
        if is_root() {
            assert!(
                out.sandbox.enforces(&Containment::NoCapabilities),
                "{}",
                out.sandbox
            );
        }
    }
}

#[test]
fn a_process_limit_root_ignores_is_reported_as_not_enforced() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let policy = Policy {
        limits: ResourceLimits {
            processes: Some(5),
            ..ResourceLimits::default()
        },
        ..Policy::default()
    };
    let out = rt()
        .block_on(
            in_dir(dir.path())
                .policy(policy)
                .run(&bash("true", READ_ONLY_OFFLINE)),
        )
        .unwrap();
    let said = out
        .sandbox
        .not_enforced
        .iter()
        .any(|l| l.contains("processes"));
    assert_eq!(said, is_root(), "{}", out.sandbox);
}

// ---- 11. path roots held by the kernel ----------------------------------------------------

#[test]
fn a_path_swapped_after_the_policy_check_still_cannot_lead_outside_the_roots() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    // The call names `out/result` (inside the working directory: the policy allows it); the
    // program then swaps `out` for a link leading outside and writes through it.
    let script = format!(
        "rm -r out && ln -s {} out && echo pwned > \"$1\" && echo WROTE; echo done",
        outside.path().display()
    );
    let mut call = with_effects(
        vec![
            "bash".into(),
            "-c".into(),
            script,
            "bash".into(),
            "out/result".into(),
        ],
        r#"{"destructive": false, "network": false, "filesystem": {"write": true}}"#,
    );
    call.arguments
        .push(atip_runtime::command::argv::ArgumentValue {
            param: "output".into(),
            value: std::borrow::Cow::Owned("out/result".into()),
            path: true,
        });
    let out = rt().block_on(in_dir(dir.path()).run(&call)).unwrap();
    assert!(!outside.path().join("result").exists(), "{out:?}");
    assert!(!out.stdout_lossy().contains("WROTE"));
}

// ---- 12. declared paths -----------------------------------------------------------------

#[test]
fn a_declared_file_is_writable_and_a_declared_link_grants_nothing() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("build")).unwrap();
    let effects = r#"{"destructive": false, "network": false,
        "filesystem": {"write": true, "paths": ["./notes.txt", "./build"]}}"#;
    let out = rt()
        .block_on(in_dir(dir.path()).run(&bash(
            "echo note >> notes.txt && echo NOTE; echo pwned > build/x && echo LINK; echo done",
            effects,
        )))
        .unwrap();
    assert_eq!(out.stdout_lossy(), "NOTE\ndone\n", "{out:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        "note\n"
    );
    assert!(!outside.path().join("x").exists());
    assert!(
        out.sandbox
            .not_enforced
            .iter()
            .any(|l| l.contains("build") && l.contains("symbolic link")),
        "{}",
        out.sandbox
    );
}

#[test]
fn a_cancelled_call_that_started_is_in_the_audit_log() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let path = logs.path().join("audit.jsonl");
    let runner = in_dir(dir.path()).audit_log(AuditLog::open(&path).unwrap());
    let call = bash("sleep 10", READ_ONLY_OFFLINE);
    let cancelled = rt().block_on(async {
        tokio::time::timeout(Duration::from_millis(500), runner.run(&call)).await
    });
    assert!(cancelled.is_err(), "the call was cancelled");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        lines.iter().any(|l| l["tool"] == "liar"),
        "no audit line for a call that ran: {text:?}"
    );
}

/// Review of issue 47: the kernel lets a process change another process's limits, priority,
/// CPU affinity and scheduling without a ptrace check, which Landlock does not hook; a run
/// could starve the agent, or kill it through `RLIMIT_CPU` / `RLIMIT_FSIZE`. The filter refuses
/// every such call aimed at anyone but the caller; the caller's own still work.
#[test]
fn a_run_cannot_change_another_process_s_limits_priority_or_affinity() {
    if skip() {
        return;
    }
    let mut victim = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let pid = victim.id().to_string();
    let limits = || std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let nice = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        stat.rsplit(')')
            .next()
            .unwrap()
            .split_whitespace()
            .nth(16)
            .unwrap()
            .to_owned()
    };
    let (limits_before, nice_before) = (limits(), nice());
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "prlimit --pid {pid} --nofile=4:4 --cpu=1:1 && echo PRLIMIT; \
         renice -n 19 -p {pid} >/dev/null 2>&1 && echo RENICE; \
         taskset -p 1 {pid} >/dev/null 2>&1 && echo TASKSET; \
         chrt -i -p 0 {pid} >/dev/null 2>&1 && echo CHRT; \
         prlimit --nofile=64:64 true && nice -n 1 true && echo OWN"
    );
    let out = rt()
        .block_on(in_dir(dir.path()).run(&bash(&script, READ_ONLY_OFFLINE)))
        .unwrap();
    let (limits_after, nice_after) = (limits(), nice());
    let _ = victim.kill();
    let _ = victim.wait();
    assert_eq!(out.stdout_lossy(), "OWN\n", "{out:?}");
    assert_eq!(limits_after, limits_before);
    assert_eq!(nice_after, nice_before);
}

// ---- a repository hidden from the search (review of issue 48) -----------------------------

/// Repositories are found down to `MAX_DEPTH` levels and `MAX_DIRECTORIES` directories below
/// a writable root. A repository deeper than six levels used to be writable, hooks included,
/// and a run could make directories enough to push one past the search; now a deep repository
/// is held, and a root the search cannot finish is read-only for the run.
#[test]
fn a_repository_deep_in_the_root_is_held_and_a_root_too_large_to_search_is_read_only() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = "a/b/c/d/e/f/g/h/repo";
    std::fs::create_dir_all(dir.path().join(repo)).unwrap();
    git(&dir.path().join(repo), &["init", "-q"]);
    let runner = in_dir(dir.path());
    let plant = format!(
        "echo 'touch ran' > {repo}/.git/hooks/post-commit && echo PLANTED; \
         echo kept > note.txt && echo WROTE"
    );
    let out = rt()
        .block_on(runner.run(&bash(&plant, WRITER_OFFLINE)))
        .unwrap();
    let stdout = out.stdout_lossy();
    assert!(!stdout.contains("PLANTED"), "{stdout}");
    assert!(stdout.contains("WROTE"), "{out:?}");
    assert!(!dir
        .path()
        .join(repo)
        .join(".git/hooks/post-commit")
        .exists());

    let mut past = dir.path().to_path_buf();
    for _ in 0..=atip_runtime::sandbox::protect::git::MAX_DEPTH {
        past.push("d");
    }
    std::fs::create_dir_all(&past).unwrap();
    let out = rt()
        .block_on(runner.run(&bash(
            "echo again > again.txt && echo WROTE",
            WRITER_OFFLINE,
        )))
        .unwrap();
    assert!(!out.stdout_lossy().contains("WROTE"), "{out:?}");
    assert!(!dir.path().join("again.txt").exists());
    assert!(
        out.sandbox
            .not_enforced
            .iter()
            .any(|n| n.contains("read-only for this run")),
        "{:?}",
        out.sandbox
    );
}
