//! `atip import fig`: one spec to stdout, a whole package with a summary, and shims that
//! `atip discover` finds by the binary's hash — on small packages made here, in throwaway
//! HOME and XDG directories.

use std::path::Path;
use std::process::Command;

fn atip(args: &[&str], home: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_atip"))
        .args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A Fig autocomplete package in `dir` with `files` under `build/` (shared with `fig_child`).
pub(crate) fn package(dir: &Path, files: &[(&str, &str)]) {
    std::fs::write(
        dir.join("package.json"),
        r#"{"name": "@withfig/autocomplete", "version": "2.692.3"}"#,
    )
    .unwrap();
    for (name, text) in files {
        let path = dir.join("build").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

const TOOL: &str = "var s={name:'figtool',description:'A tool',subcommands:[\
    {name:['remove','rm'],description:'Remove it',args:{name:'item'}},\
    {name:'list',description:'List them',options:[{name:'--all'},{name:'--all'}]}]};\
    export{s as default};";

#[test]
fn one_spec_prints_atip_on_stdout_and_warnings_on_stderr() {
    let home = tempfile::tempdir().unwrap();
    package(home.path(), &[("figtool.js", TOOL)]);
    let spec = home.path().join("build/figtool.js");
    let (code, out, err) = atip(&["import", "fig", spec.to_str().unwrap()], home.path());
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["trust"]["source"], "inferred");
    assert_eq!(doc["x-atip-rust"]["generator"]["spec"], "figtool.js");
    assert_eq!(doc["commands"]["remove"]["effects"]["destructive"], true);
    assert!(
        err.contains("warning: figtool list --all: option is declared twice"),
        "{err}"
    );
    // What it printed loads strictly.
    std::fs::write(home.path().join("figtool.json"), &out).unwrap();
    let (code, out, err) = atip(&["check", "figtool.json"], home.path());
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn all_specs_give_a_summary_with_every_failure() {
    let home = tempfile::tempdir().unwrap();
    package(
        home.path(),
        &[
            ("figtool.js", TOOL),
            ("broken.js", "throw new Error('no spec here');"),
            ("c++.js", "export default {name:'c++'};"),
            ("loops.js", "for(;;){} export default {};"),
        ],
    );
    let out_dir = home.path().join("out");
    let (code, out, err) = atip(
        &[
            "import",
            "fig",
            "--all",
            home.path().to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
            "--timeout",
            "1",
        ],
        home.path(),
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("converted 1 of 4 specs (25.0%), failed 3"),
        "{out}"
    );
    assert!(
        out.contains("FAILED broken: module broken.js threw: Error: no spec here"),
        "{out}"
    );
    assert!(out.contains("FAILED c++: tool name \"c++\""), "{out}");
    assert!(
        out.contains("FAILED loops: module loops.js ran longer than 1000 ms"),
        "{out}"
    );
    assert!(
        out.contains("ignored: 0 generators, 0 generateSpec"),
        "{out}"
    );
    assert!(out_dir.join("figtool.json").is_file());
    assert!(!out_dir.join("broken.json").exists());
    // Progress on stderr (not a terminal here: a line per 50 specs and the last).
    assert!(err.contains("import: 4/4"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_shim_written_by_import_is_found_by_discover() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    package(home.path(), &[("figtool.js", TOOL)]);
    let binary = home.path().join("figtool");
    std::fs::write(&binary, "#!/bin/sh\necho \"no --agent here\" >&2\nexit 2\n").unwrap();
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
    let spec = home.path().join("build/figtool.js");
    let (code, out, err) = atip(
        &[
            "import",
            "fig",
            spec.to_str().unwrap(),
            "--shim",
            "--binary",
            binary.to_str().unwrap(),
        ],
        home.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty());
    let hex = atip_runtime::shim::sha256_file(&binary).unwrap();
    let shim = home
        .path()
        .join(format!("data/agent-tools/shims/sha256/{hex}.json"));
    assert!(
        err.contains(&format!("wrote the shim {}", shim.display())),
        "{err}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&shim).unwrap()).unwrap();
    assert_eq!(doc["binary"]["hash"], format!("sha256:{hex}"));

    let (code, out, err) = atip(&["discover", binary.to_str().unwrap()], home.path());
    assert_eq!(code, 0, "{err}");
    let found: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(found, doc);

    // Without the shim directory, the tool's own failure is reported.
    std::fs::remove_file(&shim).unwrap();
    let (code, _, err) = atip(&["discover", binary.to_str().unwrap()], home.path());
    assert_eq!(code, 1);
    assert!(err.contains("no --agent here"), "{err}");
}
