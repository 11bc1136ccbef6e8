//! Goldens: the generated Rust for each metadata file is checked in under `tests/golden/` and
//! must match what the generator produces now. Review changes with `git diff`; regenerate
//! with `EXPECTORATE=overwrite cargo test -p atip-tests --test codegen golden::`.

use std::path::Path;

use atip_build::{expand, Builder, Input, Options};

/// (metadata file relative to the workspace root, golden relative to `tests/`)
pub const GOLDENS: &[(&str, &str)] = &[
    ("examples/atip/git.json", "golden/git.rs"),
    ("examples/atip/gh.json", "golden/gh.rs"),
    ("examples/atip/ls.json", "golden/ls.rs"),
    ("examples/atip/cat.json", "golden/cat.rs"),
    ("examples/atip/wc.json", "golden/wc.rs"),
    ("examples/atip/mkdir.json", "golden/mkdir.rs"),
    ("examples/atip/rm.json", "golden/rm.rs"),
    ("tests/fixtures/adversarial.json", "golden/adversarial.rs"),
    ("tests/fixtures/minimal.json", "golden/minimal.rs"),
    ("tests/fixtures/hostile.json", "golden/hostile.rs"),
    ("tests/fixtures/shared-enums.json", "golden/shared_enums.rs"),
];

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn generated(input: &str) -> String {
    let path = workspace().join(input);
    let text = std::fs::read_to_string(&path).unwrap();
    let exp = expand(&text, &Options::new().file(input)).unwrap_or_else(|e| panic!("{e}"));
    exp.to_source(input)
}

#[test]
fn goldens_match_the_generator() {
    // An absolute path: the test passes from any current directory.
    let tests = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (input, golden) in GOLDENS {
        expectorate::assert_contents(tests.join(golden), &generated(input));
    }
}

#[test]
fn generation_is_deterministic() {
    for (input, _) in GOLDENS {
        let first = generated(input);
        for _ in 0..3 {
            assert_eq!(first, generated(input), "{input}");
        }
    }
}

#[test]
fn build_rs_writes_the_same_bytes() {
    let out = tempfile::tempdir().unwrap();
    let mut builder = Builder::new().out_dir(out.path()).cargo_directives(false);
    for (input, _) in GOLDENS {
        builder = builder.input(Input::new(workspace().join(input)));
    }
    let written = builder.generate().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(written.len(), GOLDENS.len());
    for ((input, _), g) in GOLDENS.iter().zip(&written) {
        assert!(g.changed);
        assert_eq!(
            g.path,
            out.path().join("atip").join(format!("{}.rs", g.tool))
        );
        let bytes = std::fs::read_to_string(&g.path).unwrap();
        assert_eq!(bytes, generated(input), "{input}");
    }
    // A second run finds nothing to rewrite.
    let mut builder = Builder::new().out_dir(out.path()).cargo_directives(false);
    for (input, _) in GOLDENS {
        builder = builder.input(Input::new(workspace().join(input)));
    }
    assert!(builder.generate().unwrap().iter().all(|g| !g.changed));
}

#[test]
fn builder_reports_every_failing_input() {
    let out = tempfile::tempdir().unwrap();
    let err = Builder::new()
        .out_dir(out.path())
        .cargo_directives(false)
        .input(workspace().join("tests/fixtures/malformed.json"))
        .input(workspace().join("examples/atip/git.json"))
        .input(workspace().join("tests/fixtures/missing-name.json"))
        .input(workspace().join("tests/fixtures/nope.json"))
        .generate()
        .unwrap_err();
    let text = err.to_string();
    assert_eq!(err.errors.len(), 3, "{text}");
    assert!(
        text.contains("malformed.json:5:3: $: invalid JSON"),
        "{text}"
    );
    assert!(
        text.contains("missing-name.json:1:1: $: missing required field `name`"),
        "{text}"
    );
    assert!(text.contains("nope.json: $: cannot read"), "{text}");
    assert!(
        !out.path().join("atip/git.rs").exists(),
        "nothing is written on failure"
    );
}

#[test]
fn builder_rejects_two_inputs_for_one_tool() {
    let out = tempfile::tempdir().unwrap();
    let git = workspace().join("examples/atip/git.json");
    let err = Builder::new()
        .out_dir(out.path())
        .cargo_directives(false)
        .input(git.clone())
        .input(Input::new(git).commands(["log"]))
        .generate()
        .unwrap_err();
    assert!(err
        .to_string()
        .contains("another input also describes the tool `git`"));
}
