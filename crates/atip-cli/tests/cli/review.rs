//! `atip --agent`, `atip lint`, `atip diff` and `atip mark`.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn atip(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_atip"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const DOC: &str = r#"{"atip": {"version": "0.6"}, "name": "shop", "version": "1.0.0",
  "description": "Manage a small shop",
  "commands": {
    "list": {"description": "List every item for sale",
      "options": [{"name": "tag", "flags": ["--tag"], "type": "string", "description": "Only items with this tag"}],
      "effects": {"network": false, "destructive": false}},
    "remove": {"description": "Remove items for good",
      "arguments": [{"name": "id", "type": "string", "description": "The item to remove"}],
      "effects": {"destructive": true, "reversible": false}}}}"#;

#[test]
fn atip_answers_agent_with_its_own_native_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = atip(&["--agent"], dir.path());
    assert_eq!(code, 0, "{err}");
    atip_runtime::load(&out, &atip_runtime::LoadOptions::strict())
        .unwrap_or_else(|e| panic!("atip --agent must load strictly: {e}"));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["name"], "atip");
    assert_eq!(v["trust"]["source"], "native");
    let effects = |c: &str| v["commands"][c]["effects"].clone();
    // `run` executes other programs: not read-only.
    assert_eq!(effects("run")["subprocess"], true);
    assert_eq!(effects("run")["destructive"], true);
    assert_eq!(effects("run")["filesystem"]["write"], true);
    // `check` reads files and nothing else.
    assert_eq!(effects("check")["filesystem"]["read"], true);
    assert_eq!(effects("check")["filesystem"]["write"], false);
    assert_eq!(effects("check")["destructive"], false);
    assert_eq!(effects("lint")["network"], false);
    // Its own review finds no error in it.
    let file = dir.path().join("atip.json");
    std::fs::write(&file, &out).unwrap();
    let (code, out, err) = atip(&["lint", file.to_str().unwrap()], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(": 0 errors,"), "{out}");
}

#[test]
fn lint_reports_rule_ids_and_fails_on_errors() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    std::fs::write(&good, DOC).unwrap();
    let (code, out, err) = atip(&["lint", "good.json"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out, "good.json: 0 errors, 0 warnings\n");

    let bad = dir.path().join("bad.json");
    let text = DOC
        .replace(r#"["--tag"]"#, r#"["--tag", "--tag"]"#)
        .replace(
            r#""destructive": true, "reversible": false"#,
            r#""destructive": true"#,
        );
    std::fs::write(&bad, text).unwrap();
    let (code, out, _) = atip(&["lint", "bad.json"], dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("bad.json:5:44: error[no-duplicate-flags]: $.commands.list.options[0].flags: duplicate flag \"--tag\" within option"),
        "{out}"
    );
    assert!(
        out.contains("warn[destructive-needs-reversible]: $.commands.remove.effects"),
        "{out}"
    );
    assert!(out.ends_with("bad.json: 1 error, 1 warning\n"), "{out}");

    let (code, out, _) = atip(&["lint", "--json", "bad.json", "good.json"], dir.path());
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["file"], "bad.json");
    assert_eq!(v[0]["findings"][0]["rule"], "no-duplicate-flags");
    assert_eq!(v[0]["findings"][0]["severity"], "error");
    assert_eq!(v[0]["findings"][0]["location"], "5:44");
    assert_eq!(v[1]["findings"], Value::Array(Vec::new()));
}

#[test]
fn diff_names_changes_and_exits_1_when_breaking() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.json"), DOC).unwrap();
    let added = DOC.replace(
        r#""list": {"#,
        r#""audit": {"description": "Audit the shop's books", "effects": {"network": false}},
    "list": {"#,
    );
    std::fs::write(dir.path().join("added.json"), &added).unwrap();
    let (code, out, err) = atip(&["diff", "old.json", "added.json"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("non-breaking command-added $.commands.audit: command `audit` was added"),
        "{out}"
    );
    assert!(
        out.ends_with("semver: minor (0 breaking, 1 non-breaking, 0 effects)\n"),
        "{out}"
    );

    let (code, out, _) = atip(&["diff", "added.json", "old.json", "--json"], dir.path());
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["semver"], "major");
    assert_eq!(v["breaking"], true);
    assert_eq!(v["changes"][0]["kind"], "command-removed");
    assert_eq!(v["changes"][0]["category"], "breaking");

    let destructive = DOC.replace(
        r#""effects": {"network": false, "destructive": false}"#,
        r#""effects": {"network": false, "destructive": true, "reversible": false}"#,
    );
    std::fs::write(dir.path().join("destructive.json"), destructive).unwrap();
    let (code, out, _) = atip(&["diff", "old.json", "destructive.json"], dir.path());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("effects (high) destructive-added $.commands.list.effects.destructive"),
        "{out}"
    );
    assert!(
        out.contains("note: 1 command newly declared destructive"),
        "{out}"
    );

    std::fs::write(dir.path().join("broken.json"), "{").unwrap();
    let (code, _, err) = atip(&["diff", "old.json", "broken.json"], dir.path());
    assert_eq!(code, 2);
    assert!(err.contains("the new document is not valid ATIP"), "{err}");
}

#[test]
fn doctor_reports_every_layer_and_exits_by_whether_the_sandbox_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, _) = atip(&["doctor"], dir.path());
    let layers: Vec<&str> = out
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| l[8..].split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(
        layers,
        ["landlock", "user", "seccomp", "capabilities", "cgroups"],
        "{out}"
    );
    let all_ok = out
        .lines()
        .filter(|l| !l.starts_with(' '))
        .all(|l| l.starts_with("ok"));
    assert_eq!(code == 0, all_ok, "{out}");
    assert!(
        out.lines().filter(|l| l.starts_with("MISSING")).count() <= out.matches("fix:").count()
    );
}

/// An imported kubectl in miniature: effects left unknown, a group with a read-only and a
/// destructive command.
const IMPORTED: &str = r#"{"atip": {"version": "0.6"}, "name": "kube", "version": "1",
  "description": "Kubernetes, imported", "trust": {"source": "inferred", "verified": false},
  "commands": {
    "get": {"description": "Display resources"},
    "describe": {"description": "Show details"},
    "delete": {"description": "Delete resources"},
    "config": {"description": "Modify kubeconfig files", "commands": {
      "view": {"description": "Display merged kubeconfig settings"},
      "delete-context": {"description": "Delete a context"},
      "": {"description": "Kubeconfig itself"}}},
    "locked": {"description": "A group that declares destructive", "effects": {"destructive": true},
      "commands": {"show": {"description": "Show"}}}}}"#;

#[test]
fn mark_settles_an_import_by_pattern_and_checks_every_mark() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("kube.json"), IMPORTED).unwrap();
    let (code, out, err) = atip(
        &[
            "mark",
            "kube.json",
            "--read-only",
            "get",
            "--read-only",
            "describe",
            "--read-only",
            "config view",
            "--destructive",
            "delete",
            "--destructive",
            "config delete-*",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("3 command(s) marked read-only, 2 destructive"),
        "{err}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let c = &v["commands"];
    for read_only in [&c["get"], &c["describe"], &c["config"]["commands"]["view"]] {
        assert_eq!(read_only["effects"]["destructive"], false);
        assert_eq!(read_only["effects"]["filesystem"]["write"], false);
        assert_eq!(read_only["effects"]["filesystem"]["delete"], false);
    }
    for destructive in [&c["delete"], &c["config"]["commands"]["delete-context"]] {
        assert_eq!(destructive["effects"]["destructive"], true);
        assert_eq!(destructive["effects"]["reversible"], false);
    }
    assert!(
        c["config"]["commands"][""].get("effects").is_none(),
        "unnamed: untouched"
    );
    atip_runtime::load(&out, &atip_runtime::LoadOptions::strict()).unwrap();

    // A pattern that names nothing is a typo, not a no-op.
    let (code, _, err) = atip(&["mark", "kube.json", "--read-only", "gte"], dir.path());
    assert_eq!(code, 1);
    assert!(err.contains("`gte` matches no command"), "{err}");
    // A mark the conservative merge would override is refused.
    let (code, _, err) = atip(
        &["mark", "kube.json", "--read-only", "locked show"],
        dir.path(),
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("`kube locked show`") && err.contains("cannot be marked"),
        "{err}"
    );
    // A pattern never lowers a command declared destructive to read-only.
    let owned = IMPORTED.replace(
        r#""delete": {"description": "Delete resources"}"#,
        r#""delete": {"description": "Delete resources", "effects": {"destructive": true}}"#,
    );
    std::fs::write(dir.path().join("owned.json"), owned).unwrap();
    let (code, _, err) = atip(&["mark", "owned.json", "--read-only", "*"], dir.path());
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`kube delete` declared destructive"), "{err}");
    // Real tool names match (`kube_config_delete-context` keeps its `-`), and a destructive
    // mark takes an importer's read-only guess away.
    let guessed = IMPORTED.replace(
        r#""view": {"description": "Display merged kubeconfig settings"}"#,
        r#""view": {"description": "Display", "effects": {"destructive": false, "filesystem": {"write": false}}}"#,
    );
    std::fs::write(dir.path().join("guessed.json"), guessed).unwrap();
    let (code, out, err) = atip(
        &[
            "mark",
            "guessed.json",
            "--destructive",
            "kube_config_view",
            "--destructive",
            "kube_config_delete-context",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let view = &v["commands"]["config"]["commands"]["view"]["effects"];
    assert_eq!(view["destructive"], true);
    assert!(view.get("filesystem").is_none(), "{view}");
    // --out writes the file.
    let (code, _, err) = atip(
        &[
            "mark",
            "kube.json",
            "--read-only",
            "get",
            "--out",
            "kube.reviewed.json",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(dir.path().join("kube.reviewed.json")).unwrap();
    assert!(written.contains("\"destructive\": false"));
}
