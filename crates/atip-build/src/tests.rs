//! `TOOL --agent` discovery through `Builder` on real processes: fake tools are small shell
//! scripts.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::{discover, Builder, DiscoverError, Input};

const GOOD: &str = r#"{"atip": {"version": "0.6"}, "name": "faketool", "version": "1.0", "description": "A fake tool",
  "commands": {"hello": {"description": "Say hello", "effects": {"network": false}}}}"#;

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn agent(dir: &Path, json: &str) -> PathBuf {
    script(
        dir,
        "faketool",
        &format!("[ \"$1\" = \"--agent\" ] || exit 2\ncat <<'JSON'\n{json}\nJSON"),
    )
}

fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, r)| r.split_whitespace().next().unwrap_or("").to_owned())
        })
        .is_some_and(|state| state != "Z" && state != "X")
}

#[test]
fn valid_metadata_is_returned_as_printed() {
    let dir = tempfile::tempdir().unwrap();
    let tool = agent(dir.path(), GOOD);
    let text = discover(tool.to_str().unwrap(), Duration::from_secs(5)).unwrap();
    assert_eq!(text.trim(), GOOD);
}

#[test]
fn failures_are_explained() {
    let dir = tempfile::tempdir().unwrap();
    let bad = agent(
        dir.path(),
        r#"{"atip": "0.6", "name": "faketool", "version": "1"}"#,
    );
    match discover(bad.to_str().unwrap(), Duration::from_secs(5)) {
        Err(DiscoverError::Invalid(e)) => {
            let msg = e.to_string();
            assert!(
                msg.contains("faketool --agent:1:1: $: missing required field `description`"),
                "{msg}"
            );
        }
        other => panic!("{other:?}"),
    }
    let failing = script(dir.path(), "failing", "echo 'no such flag' >&2; exit 3");
    match discover(failing.to_str().unwrap(), Duration::from_secs(5)) {
        Err(e @ DiscoverError::Failed { .. }) => {
            assert!(
                e.to_string()
                    .ends_with("failed with exit code 3: no such flag"),
                "{e}"
            )
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        discover("atip-no-such-tool-anywhere", Duration::from_secs(5)),
        Err(DiscoverError::NotFound { .. })
    ));
}

#[test]
fn a_hanging_tool_is_killed_with_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("child.pid");
    let slow = script(
        dir.path(),
        "slow",
        &format!("sleep 30 & echo $! > {}\nwait", pidfile.display()),
    );
    let started = Instant::now();
    match discover(slow.to_str().unwrap(), Duration::from_millis(500)) {
        Err(DiscoverError::TimedOut { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    std::thread::sleep(Duration::from_millis(100));
    let child: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!alive(child), "the tool's own child was killed too");
}

#[test]
fn a_tool_that_leaves_its_process_group_cannot_hang_discovery() {
    // The tool joins its parent's process group (outside the group discovery kills) and
    // sleeps; discovery must still end near its time limit.
    let dir = tempfile::tempdir().unwrap();
    let sneaky = script(
        dir.path(),
        "sneaky",
        "exec perl -e 'setpgrp(0, getpgrp(getppid())); sleep 20'",
    );
    let started = Instant::now();
    match discover(sneaky.to_str().unwrap(), Duration::from_millis(500)) {
        Err(DiscoverError::TimedOut { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "discovery waited {:?}",
        started.elapsed()
    );
}

#[test]
fn builder_discovers_or_falls_back_when_the_tool_is_absent() {
    let dir = tempfile::tempdir().unwrap();
    let tool = agent(dir.path(), GOOD);
    let out = dir.path().join("out");
    let written = Builder::new()
        .out_dir(&out)
        .cargo_directives(false)
        .discover(tool.to_str().unwrap())
        .generate()
        .unwrap();
    assert_eq!(written[0].tool, "faketool");
    assert!(std::fs::read_to_string(&written[0].path)
        .unwrap()
        .contains("pub struct Hello"));
    assert_eq!(
        std::fs::read_to_string(out.join("atip/faketool.agent.json"))
            .unwrap()
            .trim(),
        GOOD
    );

    let fallback = dir.path().join("fallback.json");
    std::fs::write(
        &fallback,
        GOOD.replace("Say hello", "Say hello (checked in)"),
    )
    .unwrap();
    let written = Builder::new()
        .out_dir(dir.path().join("out2"))
        .cargo_directives(false)
        .input(Input::discover("atip-no-such-tool-anywhere").fallback(&fallback))
        .generate()
        .unwrap();
    assert!(std::fs::read_to_string(&written[0].path)
        .unwrap()
        .contains("checked in"));

    // Installed but broken: failing, or printing invalid metadata. The fallback is used and
    // the warning says why.
    let failing = script(
        dir.path(),
        "broken",
        "echo 'unknown flag --agent' >&2; exit 2",
    );
    let invalid = script(dir.path(), "invalid", "echo '{\"atip\": \"0.6\"}'");
    for (tool, why) in [
        (&failing, "failed with exit code 2"),
        (&invalid, "missing required field"),
    ] {
        let written = Builder::new()
            .out_dir(dir.path().join("out-fallback"))
            .cargo_directives(false)
            .input(Input::discover(tool.to_str().unwrap()).fallback(&fallback))
            .generate()
            .unwrap();
        assert!(std::fs::read_to_string(&written[0].path)
            .unwrap()
            .contains("checked in"));
        let warning = &written[0].warnings[0];
        assert!(
            warning.contains("gave no usable metadata, so the fallback file is used")
                && warning.contains(why),
            "{warning}"
        );
    }
    // Without a fallback, a broken tool is a build error.
    let err = Builder::new()
        .out_dir(dir.path().join("out4"))
        .cargo_directives(false)
        .discover(failing.to_str().unwrap())
        .generate()
        .unwrap_err();
    assert!(err.to_string().contains("failed with exit code 2"), "{err}");

    let err = Builder::new()
        .out_dir(dir.path().join("out3"))
        .cargo_directives(false)
        .discover("atip-no-such-tool-anywhere")
        .generate()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("is not installed (not found on PATH), and no fallback file was given"),
        "{err}"
    );
}

/// Partial discovery (spec §3.1.1): the flags reach the tool as `--commands=a,b --depth=N`.
#[test]
fn partial_discovery_passes_the_spec_flags() {
    let dir = tempfile::tempdir().unwrap();
    let tool = script(
        dir.path(),
        "faketool",
        r#"[ "$1" = "--agent" ] || exit 2
cat <<JSON
{"atip": {"version": "0.6"}, "name": "faketool", "version": "1.0", "description": "args: $2 $3",
  "partial": true, "commands": {"hello": {"description": "Say hello", "effects": {"network": false}}}}
JSON"#,
    );
    let partial = crate::Partial {
        commands: vec!["pods".into(), "deployments".into()],
        depth: Some(1),
    };
    let text =
        crate::discover_partial(tool.to_str().unwrap(), &partial, Duration::from_secs(5)).unwrap();
    assert!(
        text.contains("\"args: --commands=pods,deployments --depth=1\""),
        "{text}"
    );
    let text = discover(tool.to_str().unwrap(), Duration::from_secs(5)).unwrap();
    assert!(
        text.contains("\"args:  \""),
        "no flags without a filter: {text}"
    );
}
