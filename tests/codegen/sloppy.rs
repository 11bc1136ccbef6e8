//! Sloppy real-world metadata (`atip_tests::sloppy`): lenient loading merges identical
//! duplicates, leaves out exactly the commands with conflicting ones (every other command
//! works), and says so in one summary line; strict loading names every conflict.

use crate::support;

use atip_runtime::{Document, FlattenOptions, LoadOptions, LoadedCommands, ToolCall};
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
    let tool = LoadedCommands::new(doc, None);
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
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A 1,400-value enum does not fit OpenAI strict mode (≤ 1,000 enum values per schema; a string
/// enum of more than 250 values ≤ 15,000 characters): it is sent as a plain string with the
/// values in its description, with a note saying so; every other format keeps the enum, and
/// dispatch still accepts only the allowed values.
#[test]
fn a_giant_enum_is_degraded_only_where_the_provider_cannot_hold_it() {
    use atip_runtime::limits;
    use atip_runtime::providers::{tool_definition, Provider};
    let s = sloppy::document(400);
    let doc =
        Document::parse(&s.text, &LoadOptions::lenient(), &FlattenOptions::default()).unwrap();
    let tool = LoadedCommands::new(doc, None);
    let giant = tool
        .specs()
        .iter()
        .find(|t| t.title.ends_with(&s.expected.giant))
        .unwrap();
    for p in Provider::ALL {
        let def = tool_definition(giant, p);
        let schema = def.get("function").unwrap_or(&def);
        let schema = &schema[p.input_schema_key()]["properties"]["instance_type"];
        let notes = limits::notes([giant], p);
        if p.is_strict() {
            assert!(schema.get("enum").is_none(), "{p:?}: {schema}");
            let text = schema["description"].as_str().unwrap();
            assert!(text.contains("One of: m5.nano, m5.micro"), "{text}");
            assert!(text.contains("more)."), "{text}");
            assert_eq!(notes.len(), 1, "{notes:?}");
            assert!(notes[0].contains("instance_type") && notes[0].contains("1401 enum values"));
            // Still strict: the rest of the schema fits.
            assert!(def.to_string().contains("\"strict\":true"));
        } else {
            let n = schema["enum"].as_array().map_or(0, Vec::len);
            assert!(n >= sloppy::GIANT_ENUM_VALUES, "{p:?} keeps the enum: {n}");
            assert!(notes.is_empty(), "{p:?}: {notes:?}");
        }
    }
    let call = |v: &str| {
        ToolCall::new(
            None,
            giant.name.to_string(),
            json!({"instance_type": v, "instance_id": "i-1"})
                .as_object()
                .unwrap()
                .clone(),
        )
    };
    let err = tool.invocation(&call("m5.larg")).unwrap_err().to_string();
    assert!(
        err.contains("expected one of 1400 allowed values")
            && err.contains("did you mean \"m5.large\"?"),
        "{err}"
    );
    assert!(err.len() < 400, "the list is not repeated: {err}");
    assert!(tool.invocation(&call("m5.large")).is_ok());
}

/// Every provider's definitions of the sloppy document (a 1,400-value enum included) pass the
/// providers' own SDK types and rules (`../shared/validators`).
#[test]
#[ignore = "needs ../shared"]
fn the_validators_accept_every_provider_output_for_sloppy_metadata() {
    use atip_runtime::providers::{tool_definitions, Provider};
    let s = sloppy::document(400);
    let doc = Document::parse(&s.text, &LoadOptions::lenient(), &FlattenOptions::default())
        .expect("lenient loading succeeds");
    let tool = LoadedCommands::new(doc, None);
    let mut entries = Vec::new();
    for p in Provider::ALL {
        let chunk = p.max_tools().unwrap_or(usize::MAX);
        for (k, part) in tool.specs().chunks(chunk).enumerate() {
            entries.push((
                "tools",
                support::validators::validator_name(p),
                format!("sloppy.{}.{k}.json", p.as_str()),
                tool_definitions(part, p),
            ));
        }
    }
    support::validators::validate("sloppy", entries);
}
