//! Loading and validation: errors with JSON paths and line:column, all errors at once,
//! versions, unknown fields, lenient mode.

use crate::{load, Diagnostic, LoadError, LoadOptions, Location, Mode, Severity};

fn strict(text: &str) -> Result<crate::ValidatedTree, LoadError> {
    load(text, &LoadOptions::strict().with_file("t.json"))
}

fn errors(text: &str) -> Vec<String> {
    strict(text)
        .expect_err("document should be rejected")
        .errors()
        .map(|d| d.render(Some("t.json")))
        .collect()
}

const HEAD: &str = r#""atip": {"version": "0.6"}, "name": "t", "version": "1", "description": "d""#;

#[test]
fn accepts_minimal_legacy_and_object_versions() {
    for v in [
        r#""0.1""#,
        r#""0.3""#,
        r#""0.4""#,
        r#"{"version": "0.5"}"#,
        r#"{"version": "0.6", "features": ["trust-v1"]}"#,
    ] {
        let text = format!(r#"{{"atip": {v}, "name": "t", "version": "1", "description": "d"}}"#);
        let loaded = strict(&text).unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!(loaded.tool.name, "t");
        assert!(loaded.warnings.is_empty(), "{v}: {:?}", loaded.warnings);
    }
}

#[test]
fn rejects_unknown_versions() {
    for v in [
        r#""0.7""#,
        r#""1.0""#,
        r#"{"version": "99.99"}"#,
        r#"{"version": 6}"#,
        "6",
    ] {
        let text = format!(r#"{{"atip": {v}, "name": "t", "version": "1", "description": "d"}}"#);
        let errs = errors(&text);
        assert_eq!(errs.len(), 1, "{v}: {errs:?}");
        assert!(errs[0].contains("$.atip"), "{}", errs[0]);
    }
}

#[test]
fn error_has_file_json_path_line_column_and_expectation() {
    let text = format!(
        "{{{HEAD},\n  \"commands\": {{\n    \"pr\": {{\"description\": \"p\", \"commands\": {{\n      \"create\": {{\"description\": \"c\", \"options\": [\n        {{\"name\": \"a\", \"flags\": [\"-a\"], \"type\": \"string\", \"description\": \"x\"}},\n        {{\"name\": \"b\", \"flags\": [\"-b\"], \"type\": \"string\", \"description\": \"x\"}},\n        {{\"name\": \"c\", \"flags\": [\"-c\"], \"type\": \"text\", \"description\": \"x\"}}\n      ]}}}}}}}}}}"
    );
    let errs = errors(&text);
    assert_eq!(
        errs,
        [concat!(
            "t.json:7:48: $.commands.pr.commands.create.options[2].type: expected one of ",
            "\"string\", \"integer\", \"number\", \"boolean\", \"file\", \"directory\", \"url\", ",
            "\"enum\", \"array\", found \"text\""
        )]
    );
}

#[test]
fn every_error_is_reported_in_document_order() {
    let text = r#"{
  "atip": "0.4",
  "name": "bad name",
  "description": 5,
  "commands": {
    "x": {"effects": {"destructive": "yes", "cost": {"estimate": "huge"}}}
  }
}"#;
    let err = strict(text).unwrap_err();
    let got: Vec<(String, Option<Location>)> = err
        .errors()
        .map(|d| (format!("{}: {}", d.path, d.message), d.location))
        .collect();
    let paths: Vec<&str> = got
        .iter()
        .map(|(m, _)| m.split(':').next().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "$",
            "$.name",
            "$.description",
            "$.commands.x",
            "$.commands.x.effects.destructive",
            "$.commands.x.effects.cost.estimate"
        ]
    );
    assert!(got[0].0.contains("missing required field `version`"));
    assert!(got[1].0.contains("^[a-zA-Z0-9_-]+$"));
    assert!(got[3].0.contains("missing required field `description`"));
    let lines: Vec<usize> = got.iter().map(|(_, l)| l.unwrap().line).collect();
    assert_eq!(lines, [1, 3, 4, 6, 6, 6]);
}

#[test]
fn syntax_errors_have_line_and_column() {
    let err =
        strict("{\n  \"atip\": \"0.6\",\n  \"name\": \"t\"\n  \"version\": \"1\"\n}").unwrap_err();
    let d: Vec<&Diagnostic> = err.errors().collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].location, Some(Location { line: 4, column: 3 }));
    assert!(
        d[0].message
            .starts_with("invalid JSON: expected `,` or `}`"),
        "{}",
        d[0].message
    );
    assert_eq!(
        err.to_string(),
        "t.json:4:3: $: invalid JSON: expected `,` or `}`"
    );
}

#[test]
fn unknown_fields_warn_and_extensions_are_ignored() {
    let text = format!(
        r#"{{{HEAD}, "x-acme": {{"owner": "me"}}, "_cached_at": 1, "$schema": "s", "licence": "MIT",
            "commands": {{"a": {{"description": "d", "interactive": {{"tty": true}}, "x-note": 1}}}}}}"#
    );
    let loaded = strict(&text).unwrap();
    let w: Vec<String> = loaded.warnings.iter().map(|d| d.path.to_string()).collect();
    assert_eq!(w, ["$.licence", "$.commands.a.interactive"]);
    assert!(loaded
        .warnings
        .iter()
        .all(|d| d.severity == Severity::Warning));
}

#[test]
fn fields_of_other_versions_are_warned_about_and_used() {
    let text = r#"{"atip": "0.4", "name": "t", "version": "1", "description": "d",
      "commands": {"a": {"description": "d", "options": [
        {"name": "tag", "flags": ["--tag"], "type": "string", "description": "t", "variadic": true}]}}}"#;
    let loaded = strict(text).unwrap();
    assert_eq!(loaded.warnings.len(), 1);
    assert!(loaded.warnings[0].message.contains("0.4"));
    assert_eq!(loaded.tool.commands["a"].options[0].variadic, Some(true));

    let bad = text.replace("\"variadic\": true", "\"variadic\": \"yes\"");
    let loaded = strict(&bad).unwrap();
    assert_eq!(
        loaded.tool.commands["a"].options[0].variadic, None,
        "ill-formed foreign field dropped"
    );
}

#[test]
fn feature_lists_follow_the_declared_schema() {
    let text = r#"{"atip": {"version": "0.4", "features": ["content-addressable"]}, "name": "t", "version": "1", "description": "d"}"#;
    let errs = errors(text);
    assert_eq!(errs.len(), 1);
    assert!(errs[0].contains("$.atip.features[0]"), "{}", errs[0]);
    let text = text.replace("0.4", "0.6");
    assert!(strict(&text).is_ok());
}

#[test]
fn lenient_mode_relaxes_descriptive_fields_only() {
    let text = format!(
        r#"{{{HEAD}, "homepage": "not a url", "patterns": [{{"name": "p"}}, {{"name": "q", "description": "d", "steps": []}}],
            "commands": {{"a": {{"description": "d", "examples": ["ok", 5]}}}}}}"#
    );
    assert_eq!(strict(&text).unwrap_err().errors().count(), 4);

    let loaded = load(&text, &LoadOptions::lenient()).unwrap();
    assert_eq!(loaded.tool.homepage, None);
    assert_eq!(
        loaded.tool.patterns.len(),
        1,
        "the invalid pattern is dropped, the valid kept"
    );
    assert_eq!(loaded.tool.commands["a"].examples, ["ok"]);
    assert!(
        loaded
            .warnings
            .iter()
            .all(|w| w.message.ends_with("ignored)")),
        "{:?}",
        loaded.warnings
    );

    // Effects and trust are never relaxed.
    for bad in [
        r#""effects": {"destructive": "yes"}"#,
        r#""trust": {"source": "nobody"}"#,
    ] {
        let text = format!("{{{HEAD}, {bad}}}");
        assert!(load(&text, &LoadOptions::lenient()).is_err(), "{bad}");
    }
}

#[test]
fn long_description_is_an_error_when_strict_and_a_warning_when_lenient() {
    let text = format!(
        r#"{{"atip": "0.6", "name": "t", "version": "1", "description": "{}"}}"#,
        "x".repeat(201)
    );
    assert_eq!(errors(&text).len(), 1);
    let loaded = load(
        &text,
        &LoadOptions {
            mode: Mode::Lenient,
            file: None,
        },
    )
    .unwrap();
    assert_eq!(loaded.warnings.len(), 1);
}

#[test]
fn integral_floats_are_integers_and_bom_is_skipped() {
    let text = format!("\u{feff}{{{HEAD}, \"totalCommands\": 3.0, \"trust\": {{\"provenance\": {{\"slsaLevel\": 5}}}}}}");
    let errs = errors(&text);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].contains("$.trust.provenance.slsaLevel: expected an integer <= 4, found 5"));
    let ok = format!("\u{feff}{{{HEAD}, \"totalCommands\": 3.0}}");
    assert_eq!(strict(&ok).unwrap().tool.total_commands, Some(3));
}

#[test]
fn enum_values_may_be_strings_or_numbers_only() {
    let text = format!(
        r#"{{{HEAD}, "commands": {{"a": {{"description": "d", "arguments": [
            {{"name": "n", "type": "enum", "description": "d", "enum": [1, "two", true]}}]}}}}}}"#
    );
    let errs = errors(&text);
    assert_eq!(errs.len(), 1);
    assert!(errs[0].contains("$.commands.a.arguments[0].enum[2]: expected a string or a number"));
}

/// Diagnostics below a command are located from that command's object (recorded while
/// loading), and land where a search from the root puts them: load warnings (unknown members)
/// and flattening's (repeated options), at every depth, on pretty and one-line text.
#[test]
fn diagnostics_located_from_their_command_land_where_the_root_search_puts_them() {
    let leaf = |n: usize| {
        format!(
            r#"{{"description": "leaf {n}", "surprise{n}": true, "options": [
                {{"name": "page-size", "flags": ["--page-size"], "type": "integer", "description": "a"}},
                {{"name": "page-size", "flags": ["--page-size"], "type": "integer", "description": "b"}}]}}"#
        )
    };
    let service = |s: usize| {
        let leaves: Vec<String> = (0..3).map(|n| format!(r#""c{n}": {}"#, leaf(n))).collect();
        format!(
            r#"{{"description": "service {s}", "odd{s}": 1, "commands": {{{}}}}}"#,
            leaves.join(", ")
        )
    };
    let services: Vec<String> = (0..3)
        .map(|s| format!(r#""s{s}": {}"#, service(s)))
        .collect();
    let pretty = format!(
        "{{\n  \"atip\": {{\"version\": \"0.6\"}}, \"name\": \"t\", \"version\": \"1\",\n  \
         \"description\": \"T\", \"weird\": 0,\n  \"commands\": {{\n{}\n}}\n}}",
        services.join(",\n")
    );
    let minified: String =
        serde_json::to_string(&serde_json::from_str::<serde_json::Value>(&pretty).unwrap())
            .unwrap();
    for text in [pretty.as_str(), minified.as_str()] {
        let doc = crate::Document::parse(
            text,
            &LoadOptions::lenient(),
            &crate::FlattenOptions::default(),
        )
        .unwrap();
        // 1 root + 3 services + 9 leaves with an unknown member, 9 repeated options.
        assert_eq!(doc.warnings.len(), 22, "{:#?}", doc.warnings);
        let mut from_root: Vec<Diagnostic> = doc.warnings.clone();
        for d in &mut from_root {
            d.location = None;
        }
        crate::diagnostic::locate(text, &mut from_root);
        assert!(doc.warnings.iter().all(|d| d.location.is_some()));
        assert_eq!(doc.warnings, from_root);
    }
}
