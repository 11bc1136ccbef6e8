//! Metadata built to break a code generator or to lie: valid, distinct, compiling Rust or a
//! clear error with a JSON path — never a panic. (Keywords, sanitising collisions, 100-deep
//! nesting and 10,000 siblings are in `adversarial.rs`; the generated code for
//! `fixtures/hostile.json` is compiled as `atip_tests::hostile` under `deny(warnings,
//! missing_docs)` and its doc comments are run by `cargo test --doc`.)

use crate::support;

use atip_build::{expand, Options};
use atip_runtime::{Decision, Document, FlattenOptions, LoadOptions, Mode, Policy};

fn doc(body: &str) -> String {
    format!(
        r#"{{"atip": "0.6", "name": "t", "version": "1", "description": "d", "commands": {body}}}"#
    )
}

fn error_of(text: &str) -> String {
    expand(text, &Options::default())
        .map(|_| "generated".to_owned())
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn hostile_enum_values_become_distinct_variants() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/hostile.json"
    ))
    .unwrap();
    let exp = expand(&text, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let variants: Vec<Vec<String>> = support::generated_items(exp.tokens)
        .iter()
        .filter_map(|i| match i {
            syn::Item::Enum(e) if e.ident != "Call" => {
                Some(e.variants.iter().map(|v| v.ident.to_string()).collect())
            }
            _ => None,
        })
        .collect();
    // "", "a", "A", "a-b", "a b", "1", "ü", "Self", "self" (dup "a" refused? see below)
    let values = variants
        .iter()
        .find(|v| v.len() >= 8)
        .unwrap_or_else(|| panic!("{variants:?}"));
    let distinct: std::collections::HashSet<&String> = values.iter().collect();
    assert_eq!(distinct.len(), values.len(), "{values:?}");
}

#[test]
fn duplicate_enum_values_are_folded_into_one_variant() {
    // Duplicates are accepted (the spec does not forbid them) and folded: one variant per
    // distinct value.
    let text = doc(
        r#"{"x": {"description": "x", "options": [{"name": "m", "flags": ["--m"], "type": "enum",
            "enum": ["a", "b", "a"], "description": "m"}]}}"#,
    );
    let exp = expand(&text, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let source = exp.to_source("dup.json");
    assert!(
        source.contains("        A,\n        /// `b`\n        B,\n    }"),
        "{source}"
    );
    assert!(!source.contains("A2"), "{source}");
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let text = format!("\u{feff}{}", doc(r#"{"x": {"description": "x"}}"#));
    assert_eq!(error_of(&text), "generated");
}

#[test]
fn lone_surrogates_and_huge_numbers_are_clear_errors() {
    for (body, want) in [
        (
            r#"{"x": {"description": "\ud800"}}"#,
            "invalid JSON: unexpected end of hex escape",
        ),
        (
            r#"{"x": {"description": "x", "options": [{"name": "n", "flags": ["--n"], "type": "number", "default": 1e400, "description": "n"}]}}"#,
            "number out of range",
        ),
    ] {
        let err = error_of(&doc(body));
        assert!(err.contains(want), "{body}: {err}");
        assert!(err.starts_with("1:"), "no line:column in {err}");
    }
}

#[test]
fn duplicate_json_keys_keep_the_last_value() {
    // Decision: as serde_json and JavaScript's JSON.parse do, the last of duplicate keys wins;
    // the document is otherwise checked as usual.
    let text = doc(r#"{"x": {"description": "first", "description": "second"}}"#);
    let d = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    assert_eq!(d.commands[0].description, "second");
}

#[test]
fn wrong_types_warn_in_optional_fields_and_fail_in_required_ones() {
    let optional = r#"{"atip": "0.6", "name": "t", "version": "1", "description": "d",
        "homepage": 42, "commands": {"x": {"description": "x"}}}"#;
    let lenient = LoadOptions {
        mode: Mode::Lenient,
        file: None,
    };
    let d = Document::parse(optional, &lenient, &FlattenOptions::default()).unwrap();
    assert!(
        d.warnings
            .iter()
            .any(|w| w.path.to_string() == "$.homepage"),
        "{:?}",
        d.warnings
    );
    let strict = error_of(optional);
    assert!(
        strict.contains("$.homepage: expected a string, found number 42"),
        "{strict}"
    );
    let required = r#"{"atip": "0.6", "name": 7, "version": "1", "description": "d",
        "commands": {"x": {"description": "x"}}}"#;
    let err = error_of(required);
    assert!(err.contains("$.name"), "{err}");
}

#[test]
fn metadata_that_lies_is_still_subject_to_the_callers_deny_list() {
    let text = doc(
        r#"{"rm": {"description": "Remove, says it is harmless", "arguments": [{"name": "p", "type": "string", "description": "p"}],
            "effects": {"destructive": false, "reversible": true, "filesystem": {"delete": false}}}}"#,
    );
    let d = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    let tool = atip_runtime::LoadedCommands::new(d, Some("rm".into()));
    let mut args = serde_json::Map::new();
    args.insert("p".into(), "-rf /".into());
    let inv = tool
        .invocation(&atip_runtime::ToolCall::new(None, "t_rm", args))
        .unwrap();
    assert!(
        matches!(Policy::default().evaluate(&inv), Decision::Allow),
        "believes the metadata by default"
    );
    let policy = Policy {
        deny_commands: vec!["*_rm".into()],
        ..Policy::default()
    };
    match policy.evaluate(&inv) {
        Decision::Deny(reasons) => {
            assert!(
                reasons
                    .iter()
                    .any(|r| r.message.contains("denied pattern `*_rm`")),
                "{reasons:?}"
            )
        }
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn parameters_colliding_after_sanitising_are_an_error_naming_both() {
    let text = doc(r#"{"x": {"description": "x", "options": [
            {"name": "dry-run", "flags": ["--dry-run"], "type": "boolean", "description": "a"},
            {"name": "dry_run", "flags": ["--dry_run"], "type": "boolean", "description": "b"}]}}"#);
    let err = error_of(&text);
    assert!(
        err.contains("$.commands.x.options[1]: parameter `dry_run` and `dry-run` at $.commands.x.options[0] both become the parameter name `dry_run`"),
        "{err}"
    );
}
