//! Issue 33's compile target, side by side in one run: `atip compile --lenient --globals none
//! --provider anthropic` against the TypeScript reference's `compileTools([doc], "anthropic")`
//! (lenulus/atip `reference/atip-bridge`, under node), both as whole processes on 25× aws-mid
//! (20,475 real-shaped commands, ≈ 65 MB), with `serde_json`'s parse of the same text in this
//! process as a floor. Each sample is one process from start to exit, output written to a
//! file, as a user runs them.
//!
//! Opt-in, and it fails rather than skips once asked for:
//!
//! ```sh
//! cargo build --release -p atip-cli
//! # the reference, built once: git archive reference/atip-bridge of lenulus/atip, then
//! (cd atip-bridge && npm install && npm run build)
//! ATIP_BENCH_REAL_AWS=1 ATIP_BENCH_REFERENCE=/path/to/atip-bridge \
//!     cargo bench -p atip-tests --bench reference
//! ```
//!
//! `ATIP_BENCH_ATIP` names the `atip` binary when it is not `target/release/atip` beside this
//! bench. Figures in BENCHMARKS.md, "Side by side with the TypeScript reference".

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use criterion::Criterion;

mod common {
    pub mod real_aws;
}

/// The reference's `dist/index.js` and the `atip` binary, or `None` when the bench is not
/// asked for.
///
/// # Panics
///
/// When asked for (both variables set) and either program is missing.
fn programs() -> Option<(PathBuf, PathBuf)> {
    let reference = PathBuf::from(std::env::var_os("ATIP_BENCH_REFERENCE")?);
    let index = reference.join("dist/index.js");
    assert!(
        index.is_file(),
        "ATIP_BENCH_REFERENCE: no {} (run `npm install && npm run build` there)",
        index.display()
    );
    let atip = match std::env::var_os("ATIP_BENCH_ATIP") {
        Some(path) => PathBuf::from(path),
        // target/release/deps/reference-… → target/release/atip
        None => std::env::current_exe()
            .expect("the bench's own path")
            .parent()
            .and_then(Path::parent)
            .expect("a target directory")
            .join("atip"),
    };
    assert!(
        atip.is_file(),
        "no {} (run `cargo build --release -p atip-cli`, or set ATIP_BENCH_ATIP)",
        atip.display()
    );
    Some((index, atip))
}

/// Runs `command` to its end, its standard output to the file `out` (none: discarded), and
/// checks that it succeeded.
fn run(command: &mut Command, out: Option<&Path>) {
    let stdout = match out {
        Some(out) => Stdio::from(std::fs::File::create(out).expect("the output file")),
        None => Stdio::null(),
    };
    let status = command
        .stdout(stdout)
        .stderr(Stdio::null())
        .status()
        .expect("the program starts");
    assert!(status.success(), "{command:?}: {status}");
}

fn side_by_side(c: &mut Criterion) {
    let Some((_, text)) = common::real_aws::documents() else {
        return;
    };
    let Some((index, atip)) = programs() else {
        return;
    };
    // Removed when dropped, also when a check below fails.
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let dir = scratch.path();
    let document = dir.join("aws25.json");
    std::fs::write(&document, &text).expect("the document");
    let script = dir.join("compile.mjs");
    std::fs::write(
        &script,
        format!(
            "import {{ readFileSync, writeFileSync }} from 'node:fs';\n\
             import {{ compileTools }} from {index:?};\n\
             const [, , input, output] = process.argv;\n\
             const doc = JSON.parse(readFileSync(input, 'utf8'));\n\
             writeFileSync(output, JSON.stringify(compileTools([doc], 'anthropic')));\n",
            index = index.display().to_string()
        ),
    )
    .expect("the reference's script");
    let (ours_out, theirs_out) = (dir.join("ours.json"), dir.join("theirs.json"));

    let ours = || {
        run(
            Command::new(&atip)
                .args(["compile", "--lenient", "--globals", "none"])
                .args([
                    "--provider".as_ref(),
                    "anthropic".as_ref(),
                    document.as_os_str(),
                ]),
            Some(&ours_out),
        )
    };
    let theirs = || {
        run(
            Command::new("node")
                .arg(&script)
                .arg(&document)
                .arg(&theirs_out),
            None,
        )
    };

    // Both write a tool per command: a check that the work is the same.
    ours();
    theirs();
    let count = |path: &Path| {
        let tools: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path).expect("an output")).expect("JSON");
        // Ours: the array of tools; the reference's: `{"provider": …, "tools": [...]}`.
        let tools = tools.get("tools").unwrap_or(&tools);
        tools.as_array().map_or(0, Vec::len)
    };
    assert_eq!(
        count(&ours_out),
        count(&theirs_out),
        "both write every command"
    );

    let mut g = common::real_aws::group(c, "reference");
    g.bench_function("parse-floor", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&text)).unwrap())
    });
    g.bench_function("ours", |b| b.iter(ours));
    g.bench_function("typescript", |b| b.iter(theirs));
    g.finish();
}

criterion::criterion_group!(benches, side_by_side);
criterion::criterion_main!(benches);
