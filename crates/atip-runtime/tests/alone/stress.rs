//! The runner under load and against hostile children, alone, so that file-descriptor and
//! process counts see no other test.
//!
//! * 1,000 executions with 16 in flight: no leaked file descriptors (`/proc/self/fd`), no
//!   child left behind (zombie or running, found by parent pid and by process group), resident
//!   memory flat.
//! * A child that closes stdout and stderr early and keeps running: ended at the timeout.
//! * A child that ignores SIGTERM and forks a grandchild holding the pipes: both killed, the
//!   run ends within timeout + grace, nothing alive is left in its process group.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use atip_runtime::{exec::ExitStatus, Effects, Invocation, Runner};

fn inv(argv: &[&str]) -> Invocation {
    Invocation::new(
        argv[0],
        argv.iter().map(Into::into).collect(),
        Effects::UNKNOWN.with_destructive(false),
    )
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap()
}

/// Every process on the machine as (pid, parent pid, process group, state).
fn processes() -> Vec<(i32, i32, i32, char)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let state = fields[0].chars().next().unwrap_or('?');
        let ppid: i32 = fields[1].parse().unwrap_or(0);
        let pgrp: i32 = fields[2].parse().unwrap_or(0);
        out.push((pid, ppid, pgrp, state));
    }
    out
}

fn children_of_this_process() -> Vec<(i32, char)> {
    let me = std::process::id() as i32;
    processes()
        .into_iter()
        .filter(|(_, ppid, _, _)| *ppid == me)
        .map(|(pid, _, _, state)| (pid, state))
        .collect()
}

async fn thousand_runs() {
    let runner = Arc::new(Runner::new().timeout(Duration::from_secs(30)));
    let limit = Arc::new(tokio::sync::Semaphore::new(16));
    let batch = |n: usize| {
        let runner = runner.clone();
        let limit = limit.clone();
        async move {
            let mut set = tokio::task::JoinSet::new();
            for i in 0..n {
                let runner = runner.clone();
                let permit = limit.clone().acquire_owned().await.unwrap();
                set.spawn(async move {
                    let _permit = permit;
                    // Alternate a bare exit with one that writes to both pipes and reports
                    // its process group, so every pipe and group is exercised.
                    let argv: &[&str] = if i % 2 == 0 {
                        &["true"]
                    } else {
                        &["sh", "-c", "echo out; echo err >&2; ps -o pgid= -p $$"]
                    };
                    let out = runner.run(&inv(argv)).await.unwrap();
                    assert!(out.success());
                    out.stdout_lossy()
                        .lines()
                        .nth(1)
                        .and_then(|g| g.trim().parse::<i32>().ok())
                });
            }
            let mut groups = HashSet::new();
            while let Some(done) = set.join_next().await {
                if let Some(g) = done.unwrap() {
                    groups.insert(g);
                }
            }
            groups
        }
    };
    // Warm up: the runtime's worker threads, the allocator's arenas.
    batch(100).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let fds = open_fds();
    let rss = rss_kib();
    let started = Instant::now();
    let groups = batch(1_000).await;
    let elapsed = started.elapsed();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let fds_after = open_fds();
    let rss_after = rss_kib();
    println!(
        "1,000 runs, 16 in flight: {elapsed:?}; fds {fds} → {fds_after}; RSS {rss} → {rss_after} KiB"
    );
    assert_eq!(fds_after, fds, "file descriptors leaked");
    assert!(
        rss_after < rss + 16 * 1024,
        "memory grew from {rss} to {rss_after} KiB"
    );
    let left = children_of_this_process();
    assert!(left.is_empty(), "children left behind: {left:?}");
    assert_eq!(groups.len(), 500, "every child led its own process group");
    let me = std::process::id() as i32;
    let in_groups: Vec<_> = processes()
        .into_iter()
        .filter(|(pid, _, pgrp, _)| groups.contains(pgrp) && *pid != me)
        .collect();
    assert!(
        in_groups.is_empty(),
        "processes left in the children's groups: {in_groups:?}"
    );
}

async fn closes_its_pipes_and_keeps_running() {
    let started = Instant::now();
    let out = Runner::new()
        .timeout(Duration::from_millis(500))
        .kill_grace(Duration::from_millis(300))
        .run(&inv(&["sh", "-c", "echo early; exec >&- 2>&-; sleep 30"]))
        .await
        .unwrap();
    let took = started.elapsed();
    assert!(out.timed_out, "{out:?}");
    assert_eq!(out.stdout_lossy(), "early\n");
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert!(children_of_this_process().is_empty());
}

async fn ignores_sigterm_with_a_grandchild_holding_the_pipes() {
    let started = Instant::now();
    let out = Runner::new()
        .timeout(Duration::from_millis(500))
        .kill_grace(Duration::from_millis(300))
        .run(&inv(&[
            "sh",
            "-c",
            "trap '' TERM; (trap '' TERM; sleep 30; echo late) & echo $$; sleep 30",
        ]))
        .await
        .unwrap();
    let took = started.elapsed();
    assert!(out.timed_out);
    assert_eq!(out.status, ExitStatus::Signal(libc::SIGKILL));
    assert!(took < Duration::from_secs(3), "took {took:?}");
    // The shell led its own group ($$ is its pid); nothing may be left alive in that group.
    // Killed grandchildren were orphaned to pid 1, which reaps them; in a container whose pid
    // 1 does not, they stay zombies (dead, holding nothing but a pid) — not ours to reap.
    let group: i32 = out.stdout_lossy().trim().parse().unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let left: Vec<_> = processes()
        .into_iter()
        .filter(|(_, ppid, pgrp, state)| *pgrp == group && !(*state == 'Z' && *ppid == 1))
        .collect();
    assert!(left.is_empty(), "left in the group: {left:?}");
}

pub fn the_runner_under_load_and_against_hostile_children() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        thousand_runs().await;
        closes_its_pipes_and_keeps_running().await;
        ignores_sigterm_with_a_grandchild_holding_the_pipes().await;
    });
}
