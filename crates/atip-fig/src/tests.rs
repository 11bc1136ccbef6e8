//! Tests of importing from a package: `loadSpec` references followed and limited, versioned
//! specs, the list of specs, and many imports added up in a summary.

use super::*;
use serde_json::json;

fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name": "@withfig/autocomplete", "version": "9.9.9", "license": "ISC"}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("LICENSE"),
        "MIT License\n\nCopyright (c) 2021 Someone\n",
    )
    .unwrap();
    for (name, text) in files {
        let path = dir.path().join("build").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn importer(dir: &tempfile::TempDir) -> Importer {
    Importer::new(Package::open(dir.path()).unwrap(), ImportOptions::default()).unwrap()
}

#[test]
fn follows_load_spec_within_the_package_and_stops_at_cycles() {
    let dir = package(&[
        (
            "t.js",
            "export default {name:'t',subcommands:[{name:'s3',description:'S3',loadSpec:'t/s3'},{name:'me',loadSpec:'t'}]};",
        ),
        (
            "t/s3.js",
            "export default {name:'s3',description:'other',subcommands:[{name:'ls',description:'List'}]};",
        ),
    ]);
    let i = importer(&dir).import("t").unwrap();
    assert_eq!(i.document["commands"]["s3"]["description"], "S3");
    assert_eq!(
        i.document["commands"]["s3"]["commands"]["ls"]["description"],
        "List"
    );
    assert_eq!(i.stats.load_specs_followed, 1);
    assert_eq!(i.stats.load_specs_ignored, 1);
    assert!(i
        .warnings
        .iter()
        .any(|w| w.message.contains("refers back to t.js")));
    assert_eq!(
        i.document["x-atip-rust"]["generator"],
        json!({"source": "fig", "package": "@withfig/autocomplete", "version": "9.9.9", "spec": "t.js",
               "license": "ISC", "copyright": "Copyright (c) 2021 Someone"})
    );
}

#[test]
fn a_long_chain_of_load_specs_stops_at_the_depth_limit() {
    let mut files: Vec<(String, String)> = Vec::new();
    for i in 0..20 {
        files.push((
            format!("m{i}.js"),
            format!(
                "export default {{name:'m{i}',subcommands:[{{name:'leaf'}},{{name:'next',loadSpec:'m{}'}}]}};",
                i + 1
            ),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let dir = package(&refs);
    let i = importer(&dir).import("m0").unwrap();
    assert_eq!(i.stats.load_specs_followed, MAX_LOAD_SPEC_DEPTH);
    assert!(i.warnings.iter().any(|w| w.message.contains("limits")));
}

#[test]
fn imports_versioned_specs_at_their_newest_version() {
    let dir = package(&[
        (
            "v/index.js",
            "export default async () => ({versionedSpecPath: 'v/2.0.0'});",
        ),
        ("v/2.0.0.js", "export default {name:'v',description:'two'};"),
    ]);
    let i = importer(&dir).import("v").unwrap();
    assert_eq!(i.module, "v/2.0.0.js");
    assert_eq!(i.document["description"], "two");
}

#[test]
fn lists_top_level_specs() {
    let dir = package(&[
        ("gh.js", ""),
        ("index.js", ""),
        ("@capgo/cli.js", ""),
        ("aws/s3.js", ""),
    ]);
    let p = Package::open(dir.path()).unwrap();
    assert_eq!(p.spec_names().unwrap(), ["@capgo/cli", "gh"]);
    std::fs::write(
        dir.path().join("build/index.json"),
        r#"{"completions": ["gh", "aws", "aws/s3", "@capgo/cli", "az"]}"#,
    )
    .unwrap();
    assert_eq!(p.spec_names().unwrap(), ["@capgo/cli", "aws", "az", "gh"]);
}

#[test]
fn finds_the_package_of_a_spec_file() {
    let dir = package(&[("@capgo/cli.js", "")]);
    let (p, name) = Package::for_spec_file(&dir.path().join("build/@capgo/cli.js")).unwrap();
    assert_eq!(name, "@capgo/cli");
    assert_eq!(p.version, "9.9.9");
    assert!(Package::for_spec_file(&dir.path().join("build/none.js")).is_err());
}

#[test]
fn import_many_reports_every_result_and_the_summary_lists_failures() {
    let dir = package(&[
        ("a.js", "export default {name:'a'};"),
        ("b.js", "throw new Error('broken');"),
        ("c++.js", "export default {name:'c++'};"),
    ]);
    let names: Vec<String> = ["a", "b", "c++"].map(String::from).to_vec();
    let mut summary = Summary::default();
    importer(&dir).import_many(&names, 2, |n, r| summary.add(n, &r));
    assert_eq!(summary.converted, 1);
    assert_eq!(summary.failed.len(), 2);
    let report = summary.report();
    assert!(report.contains("converted 1 of 3 specs"), "{report}");
    assert!(
        report.contains("FAILED b: module b.js threw: Error: broken"),
        "{report}"
    );
    assert!(report.contains("failed (tool-name): 1"), "{report}");
}

#[test]
fn oversized_package_files_are_not_read() {
    let dir = package(&[("gh.js", "")]);
    let big = format!(
        r#"{{"name": "big", "version": "1", "pad": "{}"}}"#,
        "x".repeat(2 * 1024 * 1024)
    );
    std::fs::write(dir.path().join("package.json"), big).unwrap();
    let p = Package::open(dir.path()).unwrap();
    assert_eq!(p.name, "unknown");
    assert_eq!(p.license, None);
    assert_eq!(p.copyright.as_deref(), Some("Copyright (c) 2021 Someone"));
}
