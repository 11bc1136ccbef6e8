//! Review of the Linux spawner (`atip-spawn`: `clone(CLONE_VM | CLONE_VFORK)` on a stack of
//! its own, setup in the child, pidfd exit watch, namespaces held by the parent), as attacks on
//! real processes (`bash`, `perl`, `cat`). The review found two problems, fixed since: a
//! working directory entered before the mount namespace kept the directory underneath a
//! protected or hidden path (F1), and descriptors the child needs could sit on 0-2 when the
//! host had closed its standard streams (F2). The other tests pin down protections that hold
//! and would fail without them.
//!
//! Like `tests/sandbox/escapes.rs`, these need Linux with Landlock and namespaces (root, or
//! unprivileged user namespaces); `ATIP_SANDBOX_TESTS=skip` skips them.

#![cfg(all(target_os = "linux", feature = "exec"))]

use crate::common::*;

use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use atip_runtime::{exec::ExitStatus, sandbox::limits::ResourceLimits, Policy, RunError, Sandbox};

fn git_init(dir: &Path) {
    let ok = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

/// `(state, ppid)` of `pid` from `/proc/PID/stat`, or `None` once it is gone.
fn state_and_parent(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(") ")?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

/// Whether `pid` is still this process's child, running or a zombie not reaped.
fn still_ours(pid: i32) -> bool {
    state_and_parent(pid).is_some_and(|(_, ppid)| ppid == std::process::id() as i32)
}

fn wait_until_not_ours(pid: i32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while still_ours(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

// ---- F1: a working directory inside a protected or hidden path -----------------------------

#[test]
fn a_working_directory_inside_a_protected_directory_does_not_make_it_writable() {
    if skip() {
        return;
    }
    // The home directory is writable (Sandbox::writable), so ~/.config/git is protected:
    // bound read-only over itself. The run works in that directory.
    let home = tempfile::tempdir().unwrap();
    let git_dir = home.path().join(".config/git");
    std::fs::create_dir_all(&git_dir).unwrap();
    std::fs::write(git_dir.join("config"), "[core]\n").unwrap();
    let runner = in_dir(&git_dir)
        .env("HOME", home.path().as_os_str())
        .sandbox(Sandbox::new().writable(home.path()));
    let script = "echo '[core] pager = touch /tmp/atip-pwned' >> config && echo RELATIVE; \
                  echo x >> \"$HOME/.config/git/config\" && echo ABSOLUTE; echo done";
    let out = rt()
        .block_on(runner.run(&bash(script, WRITER_OFFLINE)))
        .unwrap();
    let stdout = out.stdout_lossy();
    assert!(
        out.sandbox.enforced.iter().any(|c| matches!(
            c,
            atip_runtime::sandbox::Containment::ReadOnly { paths } if paths.contains(&git_dir)
        )),
        "{}",
        out.sandbox
    );
    // The absolute path meets the read-only mount, and so does the relative one: the child
    // enters its working directory after the mounts.
    assert!(!stdout.contains("ABSOLUTE"), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(git_dir.join("config")).unwrap(),
        "[core]\n",
        "the protected git configuration was rewritten through the working directory: {stdout}"
    );
}

#[test]
fn a_working_directory_inside_a_hidden_credential_store_does_not_reveal_it() {
    if skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let aws = home.path().join(".aws");
    std::fs::create_dir(&aws).unwrap();
    std::fs::write(aws.join("credentials"), "AWS-KEY\n").unwrap();
    let runner = in_dir(&aws).env("HOME", home.path().as_os_str());
    let out = rt()
        .block_on(runner.run(&bash(
            "cat ~/.aws/credentials 2>/dev/null; echo ---; cat credentials",
            READ_ONLY_OFFLINE,
        )))
        .unwrap();
    let stdout = out.stdout_lossy();
    assert!(
        out.sandbox.enforced.iter().any(|c| matches!(
            c,
            atip_runtime::sandbox::Containment::Hidden { paths } if paths.contains(&aws)
        )),
        "{}",
        out.sandbox
    );
    assert!(stdout.starts_with("---"), "hidden by path: {stdout}");
    assert!(
        !stdout.contains("AWS-KEY"),
        "the hidden store was read through the working directory: {stdout}"
    );
}

// ---- F2: descriptors the child needs, when the host closed 0-2 ----------------------------------

const CLOSED_STDIO_CHILD: &str = "ATIP_SPAWN_REVIEW_CLOSED_STDIO";

#[test]
fn runs_start_when_the_host_has_closed_stdin_and_stdout() {
    if skip() {
        return;
    }
    if std::env::var_os(CLOSED_STDIO_CHILD).is_some() {
        // In the re-executed test process: fds 0 and 1 are free, so the verified program
        // (the opened file, then its sealed copy) gets one of them.
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("tool");
        let text = b"#!/bin/sh\necho ran\n";
        std::fs::write(&tool, text).unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let sum = {
            let out = std::process::Command::new("sha256sum")
                .arg(&tool)
                .stderr(std::process::Stdio::inherit())
                .output()
                .unwrap();
            String::from_utf8(out.stdout).unwrap()[..64].to_owned()
        };
        let mut call = with_effects(vec![tool.display().to_string()], READ_ONLY_OFFLINE);
        call.checksum = Some(format!("sha256:{sum}").into());
        let rt = rt();
        // SAFETY: this process runs this one test; nothing else uses fds 0 and 1.
        unsafe {
            libc::close(0);
            libc::close(1);
        }
        let mut failed = Vec::new();
        // The pinned program with the sandbox off (only the kept descriptor matters), then a
        // sandboxed run (the Landlock ruleset, the shared network namespace).
        for (name, runner, call) in [
            (
                "pinned, sandbox off",
                in_dir(dir.path()).sandbox(Sandbox::off()),
                call.clone(),
            ),
            (
                "sandboxed",
                in_dir(dir.path()),
                bash("echo ran", READ_ONLY_OFFLINE),
            ),
            ("pinned, sandboxed", in_dir(dir.path()), call),
        ] {
            match rt.block_on(runner.run(&call)) {
                Ok(out) if out.stdout_lossy() == "ran\n" => {}
                other => failed.push(format!("{name}: {other:?}")),
            }
        }
        // With 0 and 1 open again, a new offline run: a descriptor the runner keeps for the
        // process's lifetime (a root runner's shared network namespace) stays broken.
        // SAFETY: reopens the two descriptors closed above.
        unsafe {
            libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
            libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
        }
        match rt.block_on(in_dir(dir.path()).run(&bash("echo ran", READ_ONLY_OFFLINE))) {
            Ok(out) if out.stdout_lossy() == "ran\n" => {}
            other => failed.push(format!("later offline run, stdio open again: {other:?}")),
        }
        assert!(failed.is_empty(), "{}", failed.join("\n"));
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "runs_start_when_the_host_has_closed_stdin_and_stdout",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(CLOSED_STDIO_CHILD, "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---- descriptors ----------------------------------------------------------------------------

#[test]
fn descriptors_left_open_without_close_on_exec_are_not_in_the_childs_table() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(dir.path().join("host.log")).unwrap();
    // SAFETY: dup/dup2 of a valid descriptor, closed below; neither copy is close-on-exec.
    let (low, high) = unsafe {
        let low = libc::dup(file.as_raw_fd());
        let high = libc::dup2(file.as_raw_fd(), 900);
        (low, high)
    };
    assert!(low > 2 && high == 900);
    let list = "opendir(my $d, '/proc/self/fd') or die $!; \
                for (sort { $a <=> $b } grep { /^\\d+$/ } readdir $d) { \
                  print \"$_ \", (readlink(\"/proc/self/fd/$_\") // '?'), \"\\n\" }";
    for (name, runner) in [
        ("sandboxed", in_dir(dir.path())),
        ("sandbox off", in_dir(dir.path()).sandbox(Sandbox::off())),
    ] {
        let out = rt()
            .block_on(runner.run(&perl(list, READ_ONLY_OFFLINE)))
            .unwrap();
        let stdout = out.stdout_lossy();
        let fds: Vec<(i32, &str)> = stdout
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(n, t)| (n.parse().unwrap(), t))
            .collect();
        assert!(fds.iter().any(|(n, _)| *n == 2), "{name}: {out:?}");
        // 0-2, and the directory perl is reading: nothing else.
        for (n, target) in &fds {
            assert!(
                *n <= 2 || target.starts_with("/proc/"),
                "{name}: descriptor {n} -> {target} reached the child: {stdout}"
            );
            assert!(!target.ends_with("host.log"), "{name}: {stdout}");
        }
        assert!(fds.len() <= 4, "{name}: {stdout}");
    }
    // SAFETY: closes the descriptors made above.
    unsafe {
        libc::close(low);
        libc::close(high);
    }
}

#[test]
fn the_runners_descriptors_and_other_runs_namespaces_are_out_of_reach() {
    if skip() {
        return;
    }
    // While run A (offline, a repository: private mount and network namespaces the runner
    // holds open) sleeps, run B goes after the runner's descriptors, its namespaces and its
    // root, which has no read-only bind mounts.
    let dir = tempfile::tempdir().unwrap();
    git_init(dir.path());
    let runner = in_dir(dir.path()).env("HOME", dir.path().as_os_str());
    let me = std::process::id();
    let hooks = dir.path().join(".git/hooks");
    let attack = format!(
        "sleep 0.3; for f in /proc/{me}/fd/*; do t=$(readlink \"$f\" 2>/dev/null) && echo \"LINK $f $t\"; done; \
         for n in net mnt user; do readlink /proc/{me}/ns/$n >/dev/null 2>&1 && echo NS-$n; done; \
         echo '#!/bin/sh' > /proc/{me}/root{hooks}/pre-commit 2>/dev/null && echo HOOK-VIA-ROOT; \
         ls /proc/{me}/cwd/ >/dev/null 2>&1 && echo CWD; \
         ls /proc/1/root/ >/dev/null 2>&1 && echo INIT-ROOT; echo done",
        hooks = hooks.display()
    );
    let (sleeper, attacker) = (
        bash("sleep 1.5", WRITER_OFFLINE),
        bash(&attack, WRITER_OFFLINE),
    );
    let (a, b) = rt().block_on(async { tokio::join!(runner.run(&sleeper), runner.run(&attacker)) });
    a.unwrap();
    let b = b.unwrap();
    let stdout = b.stdout_lossy();
    assert_eq!(stdout, "done\n", "{b:?}");
    assert!(!hooks.join("pre-commit").exists());
}

// ---- lifetime: cancellation, timeouts, exit statuses ------------------------------------------

#[test]
fn a_cancelled_run_leaves_neither_a_process_nor_a_zombie() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runner = in_dir(dir.path());
    let mut pids = Vec::new();
    for (i, sandbox) in [Sandbox::new(), Sandbox::off(), Sandbox::new()]
        .into_iter()
        .enumerate()
    {
        let pidfile = dir.path().join(format!("pid{i}"));
        let script = format!("echo $$ > {}; exec sleep 30", pidfile.display());
        let runner = runner.clone().sandbox(sandbox);
        let cancelled = rt().block_on(async {
            tokio::time::timeout(
                Duration::from_millis(400),
                runner.run(&bash(&script, WRITER_OFFLINE)),
            )
            .await
        });
        assert!(cancelled.is_err(), "not cancelled");
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        pids.push(pid);
    }
    for pid in pids {
        assert!(
            wait_until_not_ours(pid, Duration::from_secs(5)),
            "{pid} is still a child of the runner: {:?}",
            state_and_parent(pid)
        );
    }
}

#[test]
fn a_timed_out_run_is_reaped_before_the_call_returns() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runner = in_dir(dir.path())
        .timeout(Duration::from_millis(300))
        .kill_grace(Duration::from_millis(200));
    // Ignores SIGTERM: SIGKILL ends it.
    let out = rt()
        .block_on(runner.run(&bash(
            "trap '' TERM; echo $$; exec sleep 30",
            WRITER_OFFLINE,
        )))
        .unwrap();
    assert!(out.timed_out, "{out:?}");
    assert_eq!(out.status, ExitStatus::Signal(libc::SIGKILL));
    let pid: i32 = out.stdout_lossy().trim().parse().unwrap();
    assert!(!still_ours(pid), "{:?}", state_and_parent(pid));
}

#[test]
fn exit_codes_signals_and_core_dumps_are_decoded() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runner = in_dir(dir.path());
    let cases: &[(&str, ExitStatus)] = &[
        ("exit 0", ExitStatus::Code(0)),
        ("exit 3", ExitStatus::Code(3)),
        ("exit 255", ExitStatus::Code(255)),
        ("exit 256", ExitStatus::Code(0)),
        ("kill -TERM $$", ExitStatus::Signal(libc::SIGTERM)),
        ("kill -KILL $$", ExitStatus::Signal(libc::SIGKILL)),
        ("kill -USR1 $$", ExitStatus::Signal(libc::SIGUSR1)),
        // With a core dump (the status carries 0x80 as well).
        (
            "ulimit -c unlimited; exec perl -e 'kill q(SEGV), $$'",
            ExitStatus::Signal(libc::SIGSEGV),
        ),
        (
            "ulimit -c unlimited; exec perl -e 'kill q(ABRT), $$'",
            ExitStatus::Signal(libc::SIGABRT),
        ),
    ];
    for (script, want) in cases {
        let out = rt()
            .block_on(runner.run(&bash(script, WRITER_OFFLINE)))
            .unwrap();
        assert_eq!(out.status, *want, "{script}: {out:?}");
    }
}

// ---- signals ------------------------------------------------------------------------------

fn status_mask(status: &str, field: &str) -> u64 {
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("{field} in {status}"));
    u64::from_str_radix(line[field.len()..].trim(), 16).unwrap()
}

#[test]
fn signals_the_runner_blocks_or_ignores_are_default_in_the_child() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // SAFETY: the disposition of SIGUSR1 and this thread's mask, restored below.
    let (old_action, old_mask) = unsafe {
        let mut ignore: libc::sigaction = std::mem::zeroed();
        ignore.sa_sigaction = libc::SIG_IGN;
        let mut old_action: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGUSR1, &ignore, &mut old_action);
        let mut block: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut block);
        libc::sigaddset(&mut block, libc::SIGUSR2);
        libc::sigaddset(&mut block, libc::SIGTERM);
        let mut old_mask: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, &block, &mut old_mask);
        (old_action, old_mask)
    };
    let call = with_effects(
        vec!["cat".into(), "/proc/self/status".into()],
        READ_ONLY_OFFLINE,
    );
    // The current-thread runtime spawns on this thread.
    let out = rt().block_on(in_dir(dir.path()).run(&call)).unwrap();
    // SAFETY: restores what was saved above.
    unsafe {
        libc::sigaction(libc::SIGUSR1, &old_action, std::ptr::null_mut());
        libc::pthread_sigmask(libc::SIG_SETMASK, &old_mask, std::ptr::null_mut());
    }
    let status = out.stdout_lossy();
    assert_eq!(status_mask(&status, "SigBlk:"), 0, "{status}");
    let bit = |s: i32| 1u64 << (s - 1);
    let ignored = status_mask(&status, "SigIgn:");
    for s in [libc::SIGUSR1, libc::SIGPIPE] {
        assert_eq!(ignored & bit(s), 0, "signal {s} still ignored: {status}");
    }
}

// ---- errors -------------------------------------------------------------------------------

#[test]
fn programs_that_cannot_be_started_are_errors_not_hangs() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("not-executable"), "#!/bin/sh\necho hi\n").unwrap();
    std::fs::write(p.join("bad-interpreter"), "#!/nonexistent/sh\necho hi\n").unwrap();
    std::fs::set_permissions(
        p.join("bad-interpreter"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::fs::create_dir(p.join("a-directory")).unwrap();
    let runner = in_dir(p);
    for (program, kind) in [
        ("/nonexistent/program", std::io::ErrorKind::NotFound),
        ("./not-executable", std::io::ErrorKind::PermissionDenied),
        ("./a-directory", std::io::ErrorKind::PermissionDenied),
        ("./bad-interpreter", std::io::ErrorKind::NotFound),
        ("no-such-program-atip", std::io::ErrorKind::NotFound),
    ] {
        let result = rt().block_on(async {
            tokio::time::timeout(
                Duration::from_secs(10),
                runner.execute(with_effects(vec![program.into()], READ_ONLY_OFFLINE)),
            )
            .await
        });
        match result {
            Ok(Err(RunError::Spawn { source, .. })) => {
                assert_eq!(source.kind(), kind, "{program}: {source}")
            }
            other => panic!("{program}: {other:?}"),
        }
    }
    // A NUL byte in a variable, and an environment over the kernel's limit.
    let nul = rt().block_on(
        in_dir(p)
            .env("BAD", "a\0b")
            .execute(bash("true", READ_ONLY_OFFLINE)),
    );
    assert!(
        matches!(&nul, Err(RunError::Spawn { source, .. }) if source.kind() == std::io::ErrorKind::InvalidInput),
        "{nul:?}"
    );
    let big = rt().block_on(
        in_dir(p)
            .env("BIG", "x".repeat(4 << 20))
            .execute(bash("true", READ_ONLY_OFFLINE)),
    );
    assert!(
        matches!(&big, Err(RunError::Spawn { source, .. }) if source.raw_os_error() == Some(libc::E2BIG)),
        "{big:?}"
    );
    // The runner still runs commands afterwards.
    let ok = rt()
        .block_on(runner.run(&bash("echo fine", READ_ONLY_OFFLINE)))
        .unwrap();
    assert_eq!(ok.stdout_lossy(), "fine\n");
}

// ---- pipes ----------------------------------------------------------------------------------

#[test]
fn closing_stdout_early_or_leaving_it_to_a_grandchild_does_not_hold_the_run() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runner = in_dir(dir.path()).kill_grace(Duration::from_millis(500));
    let out = rt()
        .block_on(runner.run(&bash(
            "exec 1>&-; sleep 0.3; echo bye >&2",
            READ_ONLY_OFFLINE,
        )))
        .unwrap();
    assert_eq!(out.status, ExitStatus::Code(0), "{out:?}");
    assert_eq!(out.stderr_lossy(), "bye\n");
    let started = Instant::now();
    let out = rt()
        .block_on(runner.run(&bash("sleep 30 & echo $!; echo started", READ_ONLY_OFFLINE)))
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5), "{out:?}");
    let grandchild: i32 = out.stdout_lossy().lines().next().unwrap().parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(3);
    while alive(grandchild) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(grandchild), "the grandchild outlived the run");
}

// ---- capabilities over the run's namespaces ---------------------------------------------------

#[test]
fn a_child_cannot_reconfigure_its_network_namespace_or_unmount_protected_paths() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    git_init(dir.path());
    let runner = in_dir(dir.path()).env("HOME", dir.path().as_os_str());
    let before = std::fs::read_to_string("/proc/sys/net/ipv4/ping_group_range").ok();
    let script = "ip link set lo up 2>/dev/null && echo LINK-UP; \
                  ip addr add 10.9.9.9/24 dev lo 2>/dev/null && echo ADDR; \
                  unshare -n true 2>/dev/null && echo UNSHARE-NET; \
                  unshare -Ur true 2>/dev/null && echo UNSHARE-USER; \
                  echo '0 2147483647' > /proc/sys/net/ipv4/ping_group_range 2>/dev/null && echo SYSCTL; \
                  umount .git/hooks 2>/dev/null && echo UMOUNT; \
                  umount -l .git/hooks 2>/dev/null && echo UMOUNT-LAZY; \
                  mount -o remount,bind,rw .git/hooks 2>/dev/null && echo REMOUNT; \
                  echo x > .git/hooks/pre-commit 2>/dev/null && echo HOOK; \
                  cat /proc/sys/net/ipv4/ping_group_range; echo done";
    for effects in [WRITER_OFFLINE, READ_ONLY_OFFLINE] {
        let out = rt().block_on(runner.run(&bash(script, effects))).unwrap();
        let stdout = out.stdout_lossy();
        assert!(stdout.ends_with("done\n"), "{out:?}");
        for word in [
            "LINK-UP",
            "ADDR",
            "UNSHARE-NET",
            "UNSHARE-USER",
            "SYSCTL",
            "UMOUNT",
            "REMOUNT",
            "HOOK",
        ] {
            assert!(!stdout.contains(word), "{effects}: {word}: {stdout}");
        }
        assert!(
            out.sandbox
                .enforces(&atip_runtime::sandbox::Containment::NetworkNamespace),
            "{}",
            out.sandbox
        );
    }
    assert!(!dir.path().join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string("/proc/sys/net/ipv4/ping_group_range").ok(),
        before
    );
}

// ---- the child shares the runner's memory until exec --------------------------------------------

#[test]
fn many_concurrent_spawns_under_allocation_pressure_all_run() {
    if skip() {
        return;
    }
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let runner = Arc::new(in_dir(dir.path()));
    let stop = Arc::new(AtomicBool::new(false));
    // A thread that allocates and frees all the time: a child that touched the allocator
    // while sharing the runner's memory would corrupt or deadlock it.
    let churn = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let v: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 64 + i * 16]).collect();
                n += v.iter().map(|x| x.len() as u64).sum::<u64>();
            }
            n
        })
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    let results: Vec<_> = rt.block_on(async {
        let tasks: Vec<_> = (0..48)
            .map(|i| {
                let runner = runner.clone();
                tokio::spawn(async move {
                    let effects = if i % 2 == 0 {
                        READ_ONLY_OFFLINE
                    } else {
                        READ_ONLY_ONLINE
                    };
                    runner.run(&bash(&format!("echo {i}"), effects)).await
                })
            })
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap());
        }
        out
    });
    stop.store(true, Ordering::Relaxed);
    churn.join().unwrap();
    for (i, r) in results.into_iter().enumerate() {
        let out = r.unwrap();
        assert_eq!(out.stdout_lossy(), format!("{i}\n"), "{out:?}");
    }
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_memory_limit_below_the_runners_address_space_still_lets_the_program_start() {
    if skip() {
        return;
    }
    // The child shares the runner's address space until exec: 4 GiB reserved here must not
    // count against the run's limit.
    // SAFETY: an inaccessible anonymous reservation, unmapped below.
    let reserved = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            4 << 30,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    assert_ne!(reserved, libc::MAP_FAILED);
    let dir = tempfile::tempdir().unwrap();
    let policy = Policy {
        limits: ResourceLimits {
            memory_bytes: Some(256 << 20),
            ..ResourceLimits::default()
        },
        ..Policy::default()
    };
    let out = rt().block_on(
        in_dir(dir.path())
            .policy(policy)
            .run(&bash("echo started", READ_ONLY_OFFLINE)),
    );
    // SAFETY: unmaps the reservation made above.
    unsafe { libc::munmap(reserved, 4 << 30) };
    let out = out.unwrap();
    assert_eq!(out.stdout_lossy(), "started\n", "{out:?}");
}
