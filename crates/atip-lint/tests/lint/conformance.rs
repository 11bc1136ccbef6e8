//! The reference tools' fixtures (`../shared/corpus/upstream/`, lenulus/atip atip-lint and
//! atip-diff): each must give the verdict the corpus README names.

use std::path::{Path, PathBuf};

use atip_lint::{diff_texts, lint, Bump, Category, ChangeKind, Finding, RULES};

fn upstream() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/upstream");
    assert!(
        dir.join("lint/valid").is_dir() && dir.join("diff/base").is_dir(),
        "../shared is missing at {}: these tests need the shared corpus",
        dir.display()
    );
    dir
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// The rule an invalid fixture is named for.
fn rule_of(fixture: &str) -> &'static str {
    match fixture {
        "bad-description" => "description-quality",
        "destructive-missing-reversible" => "destructive-needs-reversible",
        "duplicate-flags" => "no-duplicate-flags",
        "inconsistent-naming" => "consistent-naming",
        "invalid-effects-values" => "valid-effects-values",
        "missing-required-fields" => "no-missing-required-fields",
        "no-empty-effects" => "no-empty-effects",
        other => panic!("no rule known for fixture {other}"),
    }
}

fn upstream_rules(findings: &[Finding]) -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = findings
        .iter()
        .filter(|f| RULES.iter().any(|r| r.id == f.rule && r.upstream))
        .map(|f| f.rule)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

#[test]
#[ignore = "needs ../shared"]
fn valid_lint_fixtures_give_no_finding() {
    let files = json_files(&upstream().join("lint/valid"));
    assert_eq!(files.len(), 2);
    for file in files {
        let findings = lint(&read(&file));
        assert!(findings.is_empty(), "{}: {findings:#?}", file.display());
    }
}

#[test]
#[ignore = "needs ../shared"]
fn each_invalid_lint_fixture_gives_the_finding_its_name_says() {
    let files = json_files(&upstream().join("lint/invalid"));
    assert_eq!(files.len(), 7);
    for file in files {
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let expected = rule_of(stem);
        let findings = lint(&read(&file));
        // The named rule fires, and no other rule of the reference linter does.
        assert_eq!(
            upstream_rules(&findings),
            [expected],
            "{}: {findings:#?}",
            file.display()
        );
    }
}

#[test]
#[ignore = "needs ../shared"]
fn breaking_diff_fixtures_are_breaking() {
    let dir = upstream().join("diff");
    let cases = [
        (
            "base/complete.json",
            "breaking/command-removed.json",
            ChangeKind::CommandRemoved,
        ),
        (
            "base/minimal.json",
            "breaking/required-arg-added.json",
            ChangeKind::RequiredArgumentAdded,
        ),
        (
            "base/complete.json",
            "breaking/type-stricter.json",
            ChangeKind::EnumValuesRemoved,
        ),
    ];
    for (old, new, kind) in cases {
        let report = diff_texts(&read(&dir.join(old)), old, &read(&dir.join(new)), new).unwrap();
        assert!(report.is_breaking(), "{new}: {report:#?}");
        assert_eq!(report.semver, Bump::Major, "{new}");
        let change = report
            .of_kind(kind)
            .next()
            .unwrap_or_else(|| panic!("{new}: no {kind}"));
        assert_eq!(change.category, Category::Breaking);
    }
}

#[test]
#[ignore = "needs ../shared"]
fn non_breaking_diff_fixtures_are_minor() {
    let dir = upstream().join("diff");
    let cases = [
        (
            "base/complete.json",
            "non-breaking/command-added.json",
            ChangeKind::CommandAdded,
        ),
        (
            "base/minimal.json",
            "non-breaking/optional-arg-added.json",
            ChangeKind::OptionalArgumentAdded,
        ),
    ];
    for (old, new, kind) in cases {
        let report = diff_texts(&read(&dir.join(old)), old, &read(&dir.join(new)), new).unwrap();
        assert!(!report.is_breaking(), "{new}: {report:#?}");
        assert_eq!(report.count(Category::Breaking), 0, "{new}");
        assert_eq!(report.semver, Bump::Minor, "{new}");
        assert_eq!(
            report.of_kind(kind).next().unwrap().category,
            Category::NonBreaking
        );
    }
}

#[test]
#[ignore = "needs ../shared"]
fn destructive_added_is_an_effects_change_called_out() {
    let dir = upstream().join("diff");
    let (old, new) = ("base/complete.json", "effects/destructive-added.json");
    let report = diff_texts(&read(&dir.join(old)), old, &read(&dir.join(new)), new).unwrap();
    assert!(!report.is_breaking());
    let change = report.of_kind(ChangeKind::DestructiveAdded).next().unwrap();
    assert_eq!(change.category, Category::Effects);
    assert_eq!(change.impact, Some(atip_lint::Impact::High));
    assert_eq!(
        change.path.to_string(),
        "$.commands.deploy.effects.destructive"
    );
    assert!(report
        .of_kind(ChangeKind::ReversibleChanged)
        .next()
        .is_some());
    assert!(report
        .of_kind(ChangeKind::CostChanged)
        .any(|c| c.impact == Some(atip_lint::Impact::High)));
    assert_eq!(report.semver, Bump::Minor);
}

#[test]
#[ignore = "needs ../shared"]
fn the_other_diff_fixtures() {
    let dir = upstream().join("diff");
    let base = read(&dir.join("base/complete.json"));
    let multi = read(&dir.join("complex/multi-change.json"));
    let report = diff_texts(&base, "old", &multi, "new").unwrap();
    assert!(report.is_breaking());
    assert!(report.count(Category::Effects) > 0);
    // Documents that are not valid ATIP are refused, naming the side.
    for bad in ["invalid.json", "missing-name.json"] {
        let err = diff_texts(&base, "old", &read(&dir.join(bad)), bad).unwrap_err();
        assert_eq!(err.side, "new", "{bad}");
    }
    let legacy = read(&dir.join("legacy/legacy-format.json"));
    let same = diff_texts(&legacy, "old", &legacy, "new").unwrap();
    assert_eq!(same.semver, Bump::None);
    assert!(same.changes.is_empty());
}
