//! A program started for as long as the caller holds it (`Runner::start`: a server spoken to
//! over its stdin and stdout), attacked through its own protocol: asked to read a credential
//! store, write outside its working directory and reach the network while it runs, it cannot;
//! dropping it takes its whole process group; the secret variables it got are redacted from
//! what it says by their values.

use std::path::Path;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::common::*;

/// A line server: each command line gets its answer lines, then `END`.
const SERVER: &str = r#"
while read -r cmd; do
  case "$cmd" in
    ssh) cat ~/.ssh/id_ed25519 2>&1 || true ;;
    write-here) { echo x > here.txt && echo WROTE; } 2>/dev/null || echo NOWRITE ;;
    write-outside) { echo x > "$OUTSIDE/planted.txt" && echo WROTE; } 2>/dev/null || echo NOWRITE ;;
    net) { exec 3<>"/dev/tcp/127.0.0.1/$PORT" && echo CONNECTED; } 2>/dev/null || echo NONET ;;
    env) echo "token=$GH_TOKEN" ;;
    quit) exit 0 ;;
  esac
  echo END
done
"#;

/// Sends `command` and returns the answer lines before `END`.
async fn ask<R: tokio::io::AsyncBufRead + Unpin>(
    stdin: &mut (dyn tokio::io::AsyncWrite + Send + Unpin),
    lines: &mut tokio::io::Lines<R>,
    command: &str,
) -> Vec<String> {
    stdin
        .write_all(format!("{command}\n").as_bytes())
        .await
        .unwrap();
    stdin.flush().await.unwrap();
    let mut answer = Vec::new();
    loop {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("an answer within 10 s")
            .unwrap()
            .expect("the server is still there");
        if line == "END" {
            return answer;
        }
        answer.push(line);
    }
}

#[test]
fn a_started_server_is_confined_for_its_whole_life() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".ssh")).unwrap();
    std::fs::write(home.path().join(".ssh/id_ed25519"), "SSH-KEY\n").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let runner = in_dir(dir.path())
        .env("HOME", home.path().as_os_str())
        .env("OUTSIDE", outside.path().as_os_str())
        .env("PORT", port.to_string());
    rt().block_on(async {
        let mut server = runner
            .start(&bash(SERVER, WRITER_OFFLINE))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut stdin = server.stdin.take().unwrap();
        let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
        // Twice over, a moment apart: the confinement is the program's, not the first call's.
        for round in 0..2 {
            let key = ask(&mut *stdin, &mut lines, "ssh").await;
            assert!(!key.concat().contains("SSH-KEY"), "round {round}: {key:?}");
            assert_eq!(
                ask(&mut *stdin, &mut lines, "write-here").await,
                ["WROTE"],
                "round {round}"
            );
            assert_eq!(
                ask(&mut *stdin, &mut lines, "write-outside").await,
                ["NOWRITE"],
                "round {round}"
            );
            assert_eq!(
                ask(&mut *stdin, &mut lines, "net").await,
                ["NONET"],
                "round {round}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(dir.path().join("here.txt").is_file());
        assert!(!outside.path().join("planted.txt").exists());
        assert!(listener.accept().is_err(), "a connection reached the host");
        stdin.write_all(b"quit\n").await.unwrap();
        let status = tokio::time::timeout(Duration::from_secs(10), server.wait())
            .await
            .expect("exits when asked")
            .unwrap();
        assert!(status.success(), "{status:?}");
        assert!(
            !server.report().enforced.is_empty(),
            "{:?}",
            server.report()
        );
    });
}

#[test]
fn dropping_a_started_program_ends_its_whole_process_group() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runner = in_dir(dir.path());
    rt().block_on(async {
        let mut server = runner
            .start(&bash("sleep 300 & echo $!; wait", READ_ONLY_OFFLINE))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
        let child: i32 = lines.next_line().await.unwrap().unwrap().parse().unwrap();
        let leader = server.id() as i32;
        assert!(alive(child) && alive(leader));
        drop(server);
        let until = Instant::now() + Duration::from_secs(5);
        while (alive(child) || alive(leader)) && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!alive(child), "the background process outlived the drop");
        assert!(!alive(leader), "the program outlived the drop");
    });
}

#[test]
fn what_a_started_program_says_is_redacted_by_the_values_of_its_secret_variables() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // No rule knows this shape: only its value, from the environment, can find it.
    let value = "plain-words-only-4Qz8Lm2Rx7Tk";
    let runner = in_dir(dir.path()).env("GH_TOKEN", value);
    rt().block_on(async {
        let mut server = runner
            .start(&bash(SERVER, READ_ONLY_OFFLINE))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut stdin = server.stdin.take().unwrap();
        let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
        let said = ask(&mut *stdin, &mut lines, "env").await.concat();
        assert_eq!(said, format!("token={value}"));
        let (redacted, count) = server.filter().redact(&said);
        assert_eq!(count, 1, "{redacted}");
        assert!(!redacted.contains(value), "{redacted}");
    });
}

/// A started program whose checksum does not match never starts.
#[test]
fn a_started_program_must_match_its_checksum() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join("server");
    std::fs::write(&tool, "#!/bin/sh\necho started\n").unwrap();
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut call = with_effects(vec![tool.display().to_string()], READ_ONLY_OFFLINE);
    call.checksum = Some(format!("sha256:{}", "0".repeat(64)).into());
    let err = rt()
        .block_on(in_dir(Path::new(dir.path())).start(&call))
        .unwrap_err();
    assert!(matches!(err, atip_runtime::RunError::Checksum(_)), "{err}");
}
