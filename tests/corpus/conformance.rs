//! Conformance against the shared corpus (`../shared/corpus/atip/`). Not part of a user's
//! `cargo test`: run with `cargo test -p atip-tests --test corpus conformance:: -- --ignored`
//! (the CI does). Fails, never skips, when the corpus is missing.
//!
//! * `valid/` and `invalid/` agree with `index.tsv`: every valid file loads and flattens to the
//!   listed number of leaf commands, every invalid file is rejected with the listed number of
//!   schema errors, each with a JSON path.
//! * Every valid file generates code that compiles under `deny(warnings, missing_docs)`.
//! * The real aws metadata (`scale/aws-mid.json`, 819 commands) loads leniently with every
//!   command kept: options it declares twice with other texts merge.
//! * `gh.json` yields 167 commands whose argv, for calls checked by hand against gh's syntax
//!   (pflag accepts `--flag=value`), is right.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use atip_build::{expand, Options};
use atip_core::{Document, FlattenOptions, Mode};

fn corpus() -> PathBuf {
    let dir = support::workspace().join("../shared/corpus/atip");
    assert!(
        dir.join("index.tsv").is_file(),
        "the shared corpus is missing at {}: these tests need ../shared next to the workspace",
        dir.display()
    );
    dir
}

struct Row {
    file: String,
    /// Error count from the first `FAIL(n)` of the schema verdict.
    schema_errors: Option<usize>,
    leaf_commands: Option<usize>,
}

fn index() -> Vec<Row> {
    let text = std::fs::read_to_string(corpus().join("index.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let schema_errors = cols[2]
                .split_once("FAIL(")
                .and_then(|(_, rest)| rest.split(')').next())
                .map(|n| n.parse().unwrap());
            Row {
                file: cols[0].to_owned(),
                schema_errors,
                leaf_commands: cols.get(3).and_then(|c| c.parse().ok()),
            }
        })
        .collect()
}

fn files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

fn parse(path: &Path) -> Result<Document, atip_core::LoadError> {
    Document::from_path(path, Mode::Strict, &FlattenOptions::default())
}

#[test]
#[ignore = "needs ../shared"]
fn corpus_split_is_the_oracle() {
    let rows = index();
    let listed: BTreeMap<&str, &Row> = rows.iter().map(|r| (r.file.as_str(), r)).collect();
    let mut checked = 0;
    for dir in ["valid", "invalid"] {
        for path in files(dir) {
            let key = format!("{dir}/{}", path.file_name().unwrap().to_string_lossy());
            let row = listed
                .get(key.as_str())
                .unwrap_or_else(|| panic!("{key} is not in index.tsv"));
            match (dir, parse(&path)) {
                ("valid", Ok(doc)) => {
                    if let Some(n) = row.leaf_commands {
                        assert_eq!(doc.commands.len(), n, "{key}: leaf commands");
                    }
                }
                ("valid", Err(e)) => panic!("{key} must load:\n{e}"),
                (_, Ok(_)) => panic!("{key} must be rejected"),
                (_, Err(e)) => {
                    let errors: Vec<_> = e.errors().collect();
                    assert!(!errors.is_empty());
                    for d in &errors {
                        let line = d.render(e.file.as_deref());
                        assert!(line.contains(": $"), "{key}: no JSON path in {line:?}");
                        assert!(d.location.is_some(), "{key}: no line:column in {line:?}");
                    }
                    if let Some(n) = row.schema_errors {
                        assert_eq!(
                            errors.len(),
                            n,
                            "{key}: every schema violation is reported:\n{e}"
                        );
                    }
                }
            }
            checked += 1;
        }
    }
    assert_eq!(checked, rows.len(), "every indexed file was checked");
}

#[test]
#[ignore = "needs ../shared"]
fn gh_flattens_to_167_commands_with_inherited_repo() {
    let doc = parse(&corpus().join("valid/examples__gh.json")).unwrap();
    assert_eq!(doc.commands.len(), 167);
    let create = doc
        .commands
        .iter()
        .find(|c| c.name == "gh_pr_create")
        .unwrap();
    assert_eq!(create.path, ["pr", "create"]);
    assert_eq!(create.options.len(), 1);
    assert_eq!(
        create.options[0].declared_name, "repo",
        "inherited from `pr`"
    );
    assert_eq!(create.effects.network, Some(true));
    assert_eq!(create.effects.idempotent, Some(false));
    let gpg = doc
        .commands
        .iter()
        .find(|c| c.name == "gh_gpg-key_list")
        .unwrap();
    assert_eq!(gpg.path, ["gpg-key", "list"]);
}

/// What `main` of the scratch crate checks on the generated gh module: calls written by hand,
/// with the argv gh's own syntax gives for them.
const GH_MAIN: &str = r#"
use atip_runtime::Command;
use scratch::gh;
use scratch::gh::SetPrOptions; // `--repo`, declared on `gh pr` for every command below it

fn s(argv: Vec<std::ffi::OsString>) -> Vec<String> {
    argv.into_iter().map(|a| a.into_string().unwrap()).collect()
}

fn main() {
    assert_eq!(gh::Call::NAMES.len(), 167);
    // gh pr list
    assert_eq!(s(gh::PrList::new().argv()), ["gh", "pr", "list"]);
    // gh repo delete
    assert_eq!(s(gh::RepoDelete::new().argv()), ["gh", "repo", "delete"]);
    // gh api --hostname=github.example.com --jq=.login --method=POST (declaration order)
    assert_eq!(
        s(gh::Api::new().method("POST").jq(".login").hostname("github.example.com").argv()),
        ["gh", "api", "--hostname=github.example.com", "--jq=.login", "--method=POST"]
    );
    // gh status --exclude=cli/cli --org=cli
    assert_eq!(
        s(gh::Status::new().org("cli").exclude("cli/cli").argv()),
        ["gh", "status", "--exclude=cli/cli", "--org=cli"]
    );
    // gh completion --shell=bash
    assert_eq!(s(gh::Completion::new().shell("bash").argv()), ["gh", "completion", "--shell=bash"]);
    // gh browse --branch=main
    assert_eq!(s(gh::Browse::new().branch("main").argv()), ["gh", "browse", "--branch=main"]);
    // gh gpg-key list
    assert_eq!(s(gh::GpgKeyList::new().argv()), ["gh", "gpg-key", "list"]);
    // Inherited option of `pr` goes after the subcommand path (metadata types it boolean);
    // it lives in the `PrOptions` group, set through `SetPrOptions`.
    assert_eq!(s(gh::PrView::new().repo(true).argv()), ["gh", "pr", "view", "--repo"]);
    assert!(gh::PrView::new().repo(true).pr_options.repo);
    assert_eq!(<gh::PrCreate as Command>::EFFECTS.idempotent, Some(false));
    assert_eq!(<gh::PrCreate as Command>::TRUST, Some(atip_runtime::TrustSource::Inferred));
    println!("ok");
}
"#;

#[test]
#[ignore = "needs ../shared"]
fn every_valid_file_generates_code_that_compiles() {
    let mut krate = support::ScratchCrate::new("atip-conformance");
    let mut count = 0;
    for (i, path) in files("valid").iter().enumerate() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let exp =
            expand(&text, &Options::new().file(name.clone())).unwrap_or_else(|e| panic!("{e}"));
        let module = if name == "examples__gh.json" {
            "gh".to_owned()
        } else {
            format!("m{i:03}")
        };
        krate.module(&module, &name, exp.to_source(&name));
        count += 1;
    }
    assert!(count >= 80, "only {count} valid files");
    krate.main(GH_MAIN);
    assert_eq!(krate.build_and_run().trim(), "ok");
}

/// Leaf commands of a document's raw JSON: command objects without `commands` of their own.
fn leaves(node: &serde_json::Value) -> usize {
    match node.get("commands").and_then(serde_json::Value::as_object) {
        Some(children) if !children.is_empty() => children.values().map(leaves).sum(),
        _ => 1,
    }
}

#[test]
#[ignore = "needs ../shared"]
fn the_real_aws_metadata_keeps_every_command_and_merges_its_repeated_options() {
    let path = corpus().join("scale/aws-mid.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let raw: serde_json::Value = serde_json::from_str(&text).unwrap();
    let doc = Document::from_path(&path, Mode::Lenient, &FlattenOptions::default()).unwrap();
    assert!(
        doc.skipped.is_empty(),
        "skipped: {:?}",
        doc.skipped.iter().map(|s| &s.reasons).collect::<Vec<_>>()
    );
    assert_eq!(doc.commands.len(), leaves(&raw));
    assert_eq!(doc.commands.len(), 819);
    // Each repeated option is one merge with a warning naming both places.
    assert!(doc.merged_duplicates > 0);
    let merges = doc
        .warnings
        .iter()
        .filter(|w| w.message.contains("declared again"))
        .count();
    assert_eq!(merges, doc.merged_duplicates);
    // Strict loading keeps them too: a merge is a warning, not an error.
    let strict = parse(&path).unwrap();
    assert_eq!(strict.commands.len(), doc.commands.len());
}

/// Each distinct value list of a string enumeration in a raw document (options, arguments,
/// global options), in no order.
fn value_lists(node: &serde_json::Value, out: &mut std::collections::HashSet<Vec<String>>) {
    for key in ["options", "arguments", "globalOptions"] {
        for param in node
            .get(key)
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            let values = param.get("enum").and_then(|v| v.as_array());
            if let Some(values) = values.filter(|v| v.iter().all(|v| v.is_string())) {
                out.insert(
                    values
                        .iter()
                        .map(|v| v.as_str().unwrap().to_owned())
                        .collect(),
                );
            }
        }
    }
    if let Some(children) = node.get("commands").and_then(|v| v.as_object()) {
        children.values().for_each(|c| value_lists(c, out));
    }
}

#[test]
#[ignore = "needs ../shared"]
fn the_real_aws_metadata_generates_one_enum_per_value_list_within_four_times_its_size() {
    let path = corpus().join("scale/aws-mid.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let raw: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut lists = std::collections::HashSet::new();
    value_lists(&raw, &mut lists);
    let exp = expand(
        &text,
        &Options::new().file("aws-mid.json").max_commands(100_000),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let source = exp.to_source("aws-mid.json");
    // 1,143 enumeration parameters, 141 value lists (783 of them `--generate-cli-skeleton
    // {input, output}`): one type each. (A long type name puts `for` on the next line.)
    assert_eq!(source.matches("impl Enumeration").count(), lists.len());
    assert!(lists.len() < 200, "{} value lists", lists.len());
    assert!(
        source.len() <= 4 * text.len(),
        "generated {} bytes from {} ({:.2}×)",
        source.len(),
        text.len(),
        source.len() as f64 / text.len() as f64
    );
    // Every command reads the same authentication variables: one list, not 819.
    assert_eq!(source.matches("const ENV0:").count(), 1);
    assert!(!source.contains("const ENV1:"));
    let renamed: Vec<_> = exp
        .warnings
        .iter()
        .filter(|w| w.message.contains("Rust type"))
        .collect();
    assert!(renamed.is_empty(), "{renamed:?}");
}
