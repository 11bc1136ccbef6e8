//! The Fig importer (`atip_fig`) on the real package: `../shared/corpus/fig/
//! withfig-autocomplete-2.692.3.tgz`, unpacked at test time into the target directory's `tmp/atip-fig-package/`
//! (nothing of it is committed). Ignored by default — `cargo test -p atip-tests --test corpus
//! fig:: -- --ignored` (CI runs them); they FAIL, never skip, when ../shared is missing.
//!
//! * at least 98% of the package's top-level specs convert to ATIP that loads strictly, every
//!   failure listed with its reason;
//! * the imported gh's effects are never safer than the hand-written gh metadata, and at least
//!   80% of its truly destructive commands are declared destructive;
//! * the imported kubectl, docker, gh, git, npm, cargo, terraform and helm compile with
//!   `include_atip!` in a scratch crate, and their provider definitions pass the shared
//!   validators.

use crate::support;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use atip_core::{Document, FlattenOptions, LoadOptions};
use atip_fig::{ImportOptions, Importer, Package, Summary};
use atip_runtime::providers::{tool_definitions, Provider};
use atip_runtime::LoadedCommands;
use support::validators::{shared, validate, validator_name};

const TARBALL: &str = "corpus/fig/withfig-autocomplete-2.692.3.tgz";

/// The package, unpacked once per test process.
fn package() -> Package {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let tgz = shared().join(TARBALL);
        assert!(tgz.is_file(), "{} is missing", tgz.display());
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("atip-fig-package");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = std::fs::File::open(&tgz).unwrap();
        tar::Archive::new(flate2::read::GzDecoder::new(file))
            .unpack(&dir)
            .unwrap();
        dir.join("package")
    });
    Package::open(dir).unwrap()
}

pub(crate) fn importer() -> Importer {
    Importer::new(package(), ImportOptions::default()).unwrap()
}

#[test]
#[ignore = "needs ../shared"]
fn at_least_98_percent_of_the_specs_convert_and_load_strictly() {
    let importer = importer();
    let names = importer.package().spec_names().unwrap();
    assert!(names.len() > 700, "only {} specs", names.len());
    let start = Instant::now();
    let mut summary = Summary::default();
    importer.import_many(&names, 2, |name, result| {
        if let Ok(imported) = &result {
            // The importer checked it; check the text a user gets, as `atip check` would.
            let text = imported.to_json_pretty();
            Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(imported.document["trust"]["source"], "inferred");
            assert_eq!(
                imported.document["x-atip-rust"]["generator"]["source"],
                "fig"
            );
        }
        summary.add(name, &result);
    });
    println!("{}", summary.report());
    println!(
        "time: {:.1} s (this build's profile, 2 threads)",
        start.elapsed().as_secs_f64()
    );
    let rate = summary.converted as f64 / summary.total() as f64;
    assert!(rate >= 0.98, "{:.1}% converted", 100.0 * rate);
    assert!(summary.stats.generators > 0 && summary.stats.generate_specs > 0);
}

/// `path` → merged `destructive` of every command of a document, widest over the options
/// that declare effects of their own (a command with a dangerous `--force` can destroy).
fn destructive_by_path(doc: &Document) -> HashMap<String, Option<bool>> {
    doc.commands
        .iter()
        .map(|c| {
            // What a call can do: the command's effects and those of any option it may give.
            let widest = c
                .params()
                .filter_map(|p| p.effects.as_ref())
                .fold(c.effects.clone(), |acc, e| acc.raised_by(e));
            (c.path.join(" "), widest.destructive)
        })
        .collect()
}

/// `path` → the innermost `destructive` declared on the way to each leaf of a document's
/// command tree: the command's own, else its nearest group's.
fn declared_by_path(
    commands: &serde_json::Map<String, serde_json::Value>,
    prefix: &[String],
    inherited: Option<bool>,
    out: &mut HashMap<String, Option<bool>>,
) {
    for (name, cmd) in commands {
        let mut path = prefix.to_vec();
        if !name.is_empty() {
            path.push(name.clone());
        }
        let here = cmd["effects"]["destructive"].as_bool().or(inherited);
        match cmd["commands"].as_object() {
            Some(children) if !children.is_empty() => declared_by_path(children, &path, here, out),
            _ => {
                out.insert(path.join(" "), here);
            }
        }
    }
}

/// The hand-written gh metadata (`examples__gh.json`, 167 commands) declares `destructive` on
/// every command; its groups also declare `destructive: true` as a summary when one of their
/// members deletes (`issue` has `issue delete`), which the runtime's conservative merge spreads
/// to every member (`issue list` would count as destructive). The truth here is each command's
/// own declaration: 18 destructive commands.
#[test]
#[ignore = "needs ../shared"]
fn gh_effects_are_never_safer_than_the_hand_written_truth() {
    let truth_text =
        std::fs::read_to_string(shared().join("corpus/atip/valid/examples__gh.json")).unwrap();
    let truth_json: serde_json::Value = serde_json::from_str(&truth_text).unwrap();
    let mut truth = HashMap::new();
    declared_by_path(
        truth_json["commands"].as_object().unwrap(),
        &[],
        truth_json["effects"]["destructive"].as_bool(),
        &mut truth,
    );
    assert_eq!(truth.values().filter(|d| **d == Some(true)).count(), 18);
    let imported = importer().import("gh").unwrap();
    let ours = Document::parse(
        &imported.document.to_string(),
        &LoadOptions::strict(),
        &FlattenOptions::default(),
    )
    .unwrap();
    let ours = destructive_by_path(&ours);
    assert_eq!(truth.len(), 167);
    let mut both: Vec<&String> = truth.keys().filter(|p| ours.contains_key(*p)).collect();
    both.sort();
    let truly: Vec<&&String> = both.iter().filter(|p| truth[**p] == Some(true)).collect();
    let caught: Vec<&&String> = truly
        .iter()
        .filter(|p| ours[***p] == Some(true))
        .copied()
        .collect();
    let safer: Vec<&&String> = both
        .iter()
        .filter(|p| truth[**p] == Some(true) && ours[**p] == Some(false))
        .collect();
    let unknown = both.iter().filter(|p| ours[**p].is_none()).count();
    let read_only = both.iter().filter(|p| ours[**p] == Some(false)).count();
    let wrong_read_only = both
        .iter()
        .filter(|p| ours[**p] == Some(false) && truth[**p] != Some(false))
        .count();
    println!(
        "gh: {} commands in the truth, {} imported, {} in both; truly destructive in both: {}, \
         declared destructive: {} ({:.0}%); declared safer than the truth: {}; \
         declared read-only: {read_only} ({wrong_read_only} not read-only in the truth); undeclared: {unknown}",
        truth.len(),
        ours.len(),
        both.len(),
        truly.len(),
        caught.len(),
        100.0 * caught.len() as f64 / truly.len().max(1) as f64,
        safer.len(),
    );
    let missed: Vec<&&&String> = truly.iter().filter(|p| !caught.contains(p)).collect();
    println!("gh: truly destructive, not declared: {missed:?}");
    let mut absent: Vec<&String> = truth
        .iter()
        .filter(|(p, d)| **d == Some(true) && !ours.contains_key(*p))
        .map(|(p, _)| p)
        .collect();
    absent.sort();
    println!("gh: truly destructive, absent from the Fig spec: {absent:?}");
    assert!(both.len() >= 80, "only {} commands in both", both.len());
    assert!(safer.is_empty(), "declared safer than the truth: {safer:?}");
    assert!(
        caught.len() * 10 >= truly.len() * 8,
        "{} of {} truly destructive commands declared destructive",
        caught.len(),
        truly.len()
    );
}

const POPULAR: [&str; 8] = [
    "kubectl",
    "docker",
    "gh",
    "git",
    "npm",
    "cargo",
    "terraform",
    "helm",
];

#[test]
#[ignore = "needs ../shared"]
fn popular_tools_compile_with_include_atip_and_pass_the_validators() {
    let importer = importer();
    let mut krate = support::ScratchCrate::new("atip-fig-popular");
    let mut entries = Vec::new();
    let mut main = String::from("use atip_runtime::Command;\nfn main() {\n");
    for tool in POPULAR {
        let imported = importer
            .import(tool)
            .unwrap_or_else(|e| panic!("{tool}: {e}"));
        let text = imported.to_json_pretty();
        krate.write_file(&format!("atip/{tool}.json"), &text);
        krate.raw_lib(&format!(
            "#[doc = \"{tool}, imported from Fig\"]\n#[allow(deprecated, missing_docs)]\npub mod {tool} {{\n    atip_runtime::include_atip!(\"atip/{tool}.json\");\n}}\n"
        ));
        main.push_str(&format!(
            "    println!(\"{tool}: {{}} commands\", scratch::{tool}::TOOLS.len());\n"
        ));
        let doc =
            Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
        let loaded = LoadedCommands::new(doc, None);
        for p in Provider::ALL {
            let chunk = p.max_tools().unwrap_or(usize::MAX);
            for (k, part) in loaded.specs().chunks(chunk).enumerate() {
                entries.push((
                    "tools",
                    validator_name(p),
                    format!("{tool}.{}.{k}.json", p.as_str()),
                    tool_definitions(part, p),
                ));
            }
        }
    }
    // Typed calls on the imported metadata: argv and effects as the importer inferred them.
    main.push_str(
        "    assert_eq!(<scratch::gh::RepoDelete as Command>::EFFECTS.destructive, Some(true));\n\
         assert_eq!(<scratch::gh::PrList as Command>::EFFECTS.destructive, Some(false));\n\
         assert_eq!(<scratch::gh::PrCreate as Command>::EFFECTS.destructive, None);\n\
         assert_eq!(<scratch::gh::PrList as Command>::TRUST, Some(atip_runtime::TrustSource::Inferred));\n\
         println!(\"ok\");\n}\n",
    );
    krate.main(&main);
    let start = Instant::now();
    let out = krate.build_and_run();
    println!(
        "{out}scratch crate built and ran in {:.0} s",
        start.elapsed().as_secs_f64()
    );
    assert!(out.trim_end().ends_with("ok"), "{out}");
    let report = validate("fig-popular", entries);
    assert!(report.contains("TOTAL tools:"), "{report}");
}

/// `atip lint` and `atip check` agree on freshly imported specs of the CLIs people use most:
/// each loads strictly and lints without an error (warnings remain: imported effects are
/// guesses, descriptions short).
#[test]
#[ignore = "needs ../shared"]
fn six_imported_clis_lint_without_errors() {
    let importer = importer();
    for tool in ["kubectl", "docker", "terraform", "helm", "npm", "git"] {
        let text = importer
            .import(tool)
            .unwrap_or_else(|e| panic!("{tool}: {e}"))
            .to_json_pretty();
        Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default())
            .unwrap_or_else(|e| panic!("{tool}: {e}"));
        let errors: Vec<String> = atip_lint::lint(&text)
            .into_iter()
            .filter(|f| f.severity == atip_lint::Severity::Error)
            .map(|f| f.to_string())
            .collect();
        assert!(errors.is_empty(), "{tool}: {errors:#?}");
    }
}
