//! Sloppy real-world metadata (`atip_tests::sloppy`): lenient loading merges identical
//! duplicates, leaves out exactly the commands with conflicting ones (every other command
//! works), and says so in one summary line; strict loading names every conflict.

use atip_runtime::{Document, FlattenOptions, LoadOptions, LoadedTool, ToolCall};
use atip_tests::sloppy::{self, IDENTICAL_EVERY};
use serde_json::json;

#[test]
fn lenient_loading_keeps_every_command_but_the_conflicting_ones() {
    let s = sloppy::document(1_000);
    let doc = Document::parse(&s.text, &LoadOptions::lenient(), &FlattenOptions::default())
        .expect("lenient loading succeeds");
    assert_eq!(doc.commands.len(), s.expected.commands);
    assert_eq!(doc.merged_duplicates, s.expected.merged);
    let skipped: Vec<&str> = doc.skipped.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(skipped, s.expected.skipped);
    assert_eq!(
        doc.summary(),
        format!(
            "{} commands, {} merged duplicates, {} commands skipped",
            thousands(s.expected.commands),
            s.expected.merged,
            s.expected.skipped.len()
        )
    );
    // Each skipped command says why, with the JSON path of the conflict.
    for (skipped, conflict) in doc.skipped.iter().zip(&s.expected.conflicts) {
        assert!(
            skipped
                .reasons
                .iter()
                .any(|r| r.starts_with(conflict.as_str())),
            "{skipped:?} should name {conflict}"
        );
    }
    // A merged duplicate leaves one parameter; a warning names both JSON paths.
    let merged = doc
        .warnings
        .iter()
        .filter(|w| w.message.contains("declared again, identically"))
        .count();
    assert_eq!(merged, s.expected.merged);
    assert!(doc.warnings.iter().any(|w| w
        .message
        .contains("is shadowed by the parameter of the same name")));

    // Every kept command dispatches; a skipped one is unknown.
    let tool = LoadedTool::new(doc, None);
    let deep = tool
        .specs()
        .iter()
        .find(|t| t.title.ends_with(&s.expected.deep))
        .expect("the deep chain's leaf is a tool");
    let inv = tool
        .invocation(&ToolCall::new(
            None,
            deep.name.to_string(),
            json!({"depth": 12}).as_object().unwrap().clone(),
        ))
        .unwrap();
    let argv: Vec<String> = inv
        .argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    assert_eq!(argv[1..14].join(" "), s.expected.deep);
    let gone = &s.expected.skipped[0];
    assert!(!tool
        .specs()
        .iter()
        .any(|t| t.title.ends_with(gone.as_str())));
}

#[test]
fn strict_loading_names_every_conflict() {
    let s = sloppy::document(1_000);
    let err = Document::parse(&s.text, &LoadOptions::strict(), &FlattenOptions::default())
        .expect_err("conflicts are errors in strict mode");
    let errors: Vec<String> = err.errors().map(|d| d.path.to_string()).collect();
    assert_eq!(errors, s.expected.conflicts);
    // Identical duplicates are merged in strict mode too: they are not errors.
    assert!(!err.errors().any(|d| d.message.contains("identically")));
    assert!(s.expected.merged >= 1_000 / IDENTICAL_EVERY);
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
