//! Tests of the child-process protocol and of the parent's side against children that
//! misbehave (shell scripts standing in for a program that serves requests). The real child
//! (`atip __fig-eval`) is exercised by the `atip` command's tests.

use std::time::Duration;

use super::*;

fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn limits(ms: u64) -> Limits {
    Limits {
        time: Duration::from_millis(ms),
        ..Limits::default()
    }
}

/// The header and body `serve` would write for `request`, evaluated without limiting this
/// process.
fn reply_for(request: &Request) -> (Value, Vec<u8>) {
    let result = serve::evaluate(request);
    let header = serde_json::from_slice(&reply_header(&result)).unwrap();
    let body = match &result {
        Ok(Evaluated::Json(text)) => text.as_bytes().to_vec(),
        _ => Vec::new(),
    };
    (header, body)
}

#[test]
fn a_request_survives_the_trip() {
    let request = Request {
        root: "/pkg/build".into(),
        module: "az/2.53.0.js".into(),
        limits: limits(1500),
    };
    let line = request.encode().unwrap();
    assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
    assert!(line.ends_with(b"\n"));
    assert_eq!(Request::decode(&line).unwrap(), request);
    let other = String::from_utf8(line)
        .unwrap()
        .replace("\"protocol\":1", "\"protocol\":2");
    let err = Request::decode(other.as_bytes()).unwrap_err();
    assert!(err.contains("protocol 2 asked"), "{err}");
    assert!(Request::decode(b"{}").is_err());
}

#[test]
fn replies_carry_what_the_engine_gives() {
    let dir = package(&[
        (
            "t.js",
            "export default {name:'t',args:{generators:{postProcess:o=>[]}}};",
        ),
        ("v.js", "export default () => ({versionedSpecPath: 'v/2'});"),
        ("x.js", "throw new TypeError('boom');"),
        ("n.js", "export default 3;"),
        ("loop.js", "for(;;){} export default {};"),
    ]);
    let engine = Engine::new(dir.path(), limits(200)).unwrap();
    for name in ["t", "v", "x", "n", "loop"] {
        let module = engine.module_path(name).unwrap();
        let request = Request {
            root: engine.root().to_path_buf(),
            module: module.clone(),
            limits: limits(200),
        };
        let (header, body) = reply_for(&request);
        let decoded = decode_reply(&header, &body, &module, limits(200)).unwrap();
        assert_eq!(decoded, engine.evaluate(name), "{name}");
    }
    let odd = json!({"protocol": 1, "result": "odd"});
    let err = decode_reply(&odd, b"", "t.js", limits(1)).unwrap_err();
    assert!(err.contains("unknown result"), "{err}");
    let old = json!({"protocol": 0, "result": "spec"});
    assert!(decode_reply(&old, b"{}", "t.js", limits(1)).is_err());
}

#[cfg(unix)]
mod unix {
    use std::time::Instant;

    use super::*;

    /// A child that is `sh -c SCRIPT`.
    fn shell(script: &str) -> Isolation {
        Isolation::ChildProcess {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
        }
    }

    /// The reply header and spec a script prints for a spec of `json`.
    fn spec_reply(json: &str) -> String {
        format!(
            r#"printf '%s\n%s' '{{"protocol":1,"result":"spec","bytes":{}}}' '{json}'"#,
            json.len()
        )
    }

    /// `sh -c SCRIPT` evaluating `t.js` of a package under `ms` milliseconds.
    fn run(script: &str, ms: u64) -> (Result<Export, EvalError>, Duration) {
        let dir = package(&[("t.js", "export default {name:'t'};")]);
        let engine = Engine::new(dir.path(), limits(ms)).unwrap();
        let start = Instant::now();
        let result = shell(script).evaluate(&engine, "t");
        (result, start.elapsed())
    }

    fn child_reason(result: Result<Export, EvalError>) -> String {
        match result {
            Err(EvalError::Child { module, reason }) => {
                assert_eq!(module, "t.js");
                reason
            }
            other => panic!("expected a child error, got {other:?}"),
        }
    }

    #[test]
    fn a_reply_is_a_spec() {
        let script = format!("read -r r; {}", spec_reply(r#"{"name":"from-child"}"#));
        let (result, _) = run(&script, 5000);
        assert_eq!(
            result.unwrap(),
            Export::Spec(serde_json::json!({"name": "from-child"}))
        );
    }

    #[test]
    fn the_request_names_the_module_root_and_limits() {
        let out = tempfile::tempdir().unwrap();
        let file = out.path().join("request.json");
        let (result, _) = run(
            &format!(
                r#"read -r r; printf '%s' "$r" > '{}'; printf '{{"protocol":1,"result":"versioned","path":"t/2"}}\n'"#,
                file.display()
            ),
            5000,
        );
        assert_eq!(result.unwrap(), Export::Versioned("t/2".into()));
        let request = Request::decode(&std::fs::read(&file).unwrap()).unwrap();
        assert_eq!(request.module, "t.js");
        assert!(request.root.is_absolute());
        assert_eq!(request.limits, limits(5000));
    }

    #[test]
    fn a_child_serves_many_modules_until_anything_fails() {
        let out = tempfile::tempdir().unwrap();
        let starts = out.path().join("starts");
        let dir = package(&[("t.js", ""), ("u.js", "")]);
        let engine = Engine::new(dir.path(), limits(5000)).unwrap();
        let serving = |reply: &str| {
            shell(&format!(
                "echo start >> '{}'; while read -r r; do {reply}; done",
                starts.display()
            ))
        };
        let started = || std::fs::read_to_string(&starts).unwrap().lines().count();
        let pool = Pool::default();
        let good = serving(&spec_reply(r#"{"name":"t"}"#));
        for name in ["t", "u", "t"] {
            assert!(pool.evaluate(&good, &engine, name).is_ok());
        }
        assert_eq!(started(), 1);
        drop(pool);
        let pool = Pool::default();
        let bad = serving(
            r#"printf '%s\n' '{"protocol":1,"result":"error","category":"exception","detail":"no"}'"#,
        );
        for name in ["t", "u"] {
            let err = pool.evaluate(&bad, &engine, name).unwrap_err();
            assert_eq!(err.category(), "exception", "{err}");
        }
        assert_eq!(started(), 3);
    }

    #[test]
    fn a_child_that_never_ends_is_killed_at_the_time_limit() {
        let (result, elapsed) = run("exec sleep 100", 300);
        assert_eq!(result.unwrap_err().category(), "timeout");
        assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
        // Also when it closed its output (an empty reply) and lingers.
        let (result, elapsed) = run("read -r r; exec >&- 2>&-; exec sleep 100", 300);
        assert_eq!(result.unwrap_err().category(), "timeout");
        assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    }

    #[test]
    fn deaths_and_garbage_are_child_errors() {
        let reason = child_reason(run("read -r r; echo hello", 5000).0);
        assert!(
            reason.contains("replied with a header that is not JSON"),
            "{reason}"
        );
        let reason = child_reason(run("read -r r", 5000).0);
        assert_eq!(reason, "exited without a reply");
        let reason = child_reason(run("exit 0", 5000).0);
        assert_eq!(reason, "exited without a reply");
        let reason = child_reason(run("echo boom >&2; exit 3", 5000).0);
        assert!(
            reason.contains("failed (exit status: 3); it said: boom"),
            "{reason}"
        );
        let reason = child_reason(run("kill -SEGV $$", 5000).0);
        assert!(
            reason.contains("was killed by signal 11 (SIGSEGV)"),
            "{reason}"
        );
        let reason = child_reason(
            run(
                r#"read -r r; printf '{"protocol":1,"result":"spec","bytes":9}\n{}'"#,
                5000,
            )
            .0,
        );
        assert_eq!(reason, "stopped in the middle of its reply");
        let missing = Isolation::ChildProcess {
            program: "/nonexistent/atip".into(),
            args: vec![],
        };
        let dir = package(&[("t.js", "")]);
        let engine = Engine::new(dir.path(), limits(1000)).unwrap();
        let reason = child_reason(missing.evaluate(&engine, "t"));
        assert!(
            reason.starts_with("could not be started (/nonexistent/atip"),
            "{reason}"
        );
    }

    #[test]
    fn out_of_cpu_time_is_a_timeout_and_a_failed_allocation_is_out_of_memory() {
        let (result, _) = run("kill -XCPU $$", 5000);
        assert_eq!(result.unwrap_err().category(), "timeout");
        let (result, _) = run(
            "echo 'memory allocation of 1048576 bytes failed' >&2; kill -ABRT $$",
            5000,
        );
        let err = result.unwrap_err();
        assert_eq!(err.category(), "memory", "{err}");
        assert!(err.to_string().contains("512 MiB"), "{err}");
    }

    #[test]
    fn replies_past_the_caps_are_refused_without_reading_them() {
        let (result, elapsed) = run("read -r r; exec head -c 100000000 /dev/zero", 20_000);
        let reason = child_reason(result);
        assert!(
            reason.contains(&format!(
                "a header line longer than {MAX_HEADER_BYTES} bytes (the cap)"
            )),
            "{reason}"
        );
        assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
        let (result, elapsed) = run(
            r#"read -r r; printf '{"protocol":1,"result":"spec","bytes":100000000}\n'; exec sleep 100"#,
            20_000,
        );
        let reason = child_reason(result);
        assert!(
            reason.contains(&format!(
                "announced a spec of 100000000 bytes, more than {MAX_SPEC_JSON_BYTES} (the cap)"
            )),
            "{reason}"
        );
        assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    }

    #[test]
    fn an_importer_evaluates_through_its_isolation() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("build")).unwrap();
        std::fs::write(dir.path().join("build/t.js"), "export default {name:'no'};").unwrap();
        let options = crate::ImportOptions {
            isolation: shell(&format!(
                "while read -r r; do {}; done",
                spec_reply(r#"{"name":"t","description":"from the child"}"#)
            )),
            ..crate::ImportOptions::default()
        };
        let importer =
            crate::Importer::new(crate::Package::open(dir.path()).unwrap(), options).unwrap();
        let imported = importer.import("t").unwrap();
        assert_eq!(imported.document["description"], "from the child");
    }
}
