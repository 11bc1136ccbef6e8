//! Hostile metadata written to break a code generator: each case yields valid Rust with
//! distinct identifiers, or a clear error with a JSON path — never a panic.
//!
//! The hand-written adversarial fixture (`tests/fixtures/adversarial.json`: keywords,
//! prelude names, digits, non-ASCII, enum values that are empty, symbols or differ only in
//! case, comment-breaking descriptions) is compiled under `deny(warnings, missing_docs)` as a
//! golden; this file covers shapes built programmatically.

use std::collections::HashSet;

use atip_build::{expand, Options};

fn wrap(commands: &str) -> String {
    format!(
        r#"{{"atip": {{"version": "0.6"}}, "name": "t", "version": "1", "description": "d", "commands": {commands}}}"#
    )
}

/// Every struct and enum name in the generated file; panics if the tokens are not a file.
/// No command limit: these documents are about naming, not size.
fn unlimited() -> Options {
    Options::new().max_commands(usize::MAX)
}

fn type_names(text: &str) -> Vec<String> {
    let exp = expand(text, &unlimited()).unwrap_or_else(|e| panic!("{e}"));
    support::generated_items(exp.tokens)
        .iter()
        .filter_map(|i| match i {
            syn::Item::Struct(s) => Some(s.ident.to_string()),
            syn::Item::Enum(e) => Some(e.ident.to_string()),
            _ => None,
        })
        .collect()
}

fn nested(depth: usize) -> String {
    let mut json = r#"{"description": "leaf"}"#.to_owned();
    for i in (0..depth).rev() {
        json = format!(r#"{{"description": "level {i}", "commands": {{"c{i}": {json}}}}}"#);
    }
    wrap(&format!(r#"{{"root": {json}}}"#))
}

#[test]
fn sixty_levels_of_subcommands_generate() {
    let text = nested(60);
    let names = type_names(&text);
    assert_eq!(names.len(), 2, "one struct and the Call enum: {names:?}");
    assert!(names[0].starts_with("RootC0C1C2"), "{}", names[0]);
    let doc = atip_core::Document::parse(&text, &Default::default(), &Default::default()).unwrap();
    let name = &doc.commands[0].name;
    assert_eq!(
        name.len(),
        64,
        "long flattened names are shortened with a hash: {name}"
    );
    assert!(name.starts_with("t_root_c0_c1_c2_c3"), "{name}");
    assert_eq!(doc.commands[0].path.len(), 61);
}

#[test]
fn a_hundred_levels_is_a_clear_error_not_a_stack_overflow() {
    let err = expand(&nested(100), &Options::new().file("deep.json")).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("deep.json:1:"), "{msg}");
    assert!(
        msg.contains("$: invalid JSON: recursion limit exceeded"),
        "{msg}"
    );
    assert!(msg.contains("deeper than 128 JSON levels"), "{msg}");
}

#[test]
fn ten_thousand_siblings_get_distinct_names() {
    let commands: Vec<String> = (0..10_000)
        .map(|i| format!(r#""cmd-{i}": {{"description": "command {i}"}}"#))
        .collect();
    let text = wrap(&format!("{{{}}}", commands.join(",")));
    let names = type_names(&text);
    assert_eq!(names.len(), 10_001);
    let distinct: HashSet<&String> = names.iter().collect();
    assert_eq!(distinct.len(), names.len());
    assert_eq!(names[0], "Cmd0");
    assert_eq!(names[9_999], "Cmd9999");
}

#[test]
fn names_colliding_after_sanitising_are_errors_naming_both() {
    let text = wrap(
        r#"{"a_b": {"description": "x", "commands": {"c": {"description": "1"}}},
                      "a": {"description": "y", "commands": {"b_c": {"description": "2"}}}}"#,
    );
    let err = expand(&text, &Options::default()).unwrap_err().to_string();
    assert!(err.contains("$.commands.a.commands.b_c: flattened tool name `t_a_b_c` is also the name of the command at $.commands.a_b.commands.c"), "{err}");

    let text = wrap(
        r#"{"x": {"description": "x", "options": [
        {"name": "dry-run", "flags": ["--dry-run"], "type": "boolean", "description": "a"},
        {"name": "dry_run", "flags": ["--dry_run"], "type": "boolean", "description": "b"}]}}"#,
    );
    let err = expand(&text, &Options::default()).unwrap_err().to_string();
    assert!(
        err.contains(
            "$.commands.x.options[1]: parameter `dry_run` and `dry-run` at $.commands.x.options[0]"
        ),
        "{err}"
    );
}

#[test]
fn hostile_names_in_every_position_generate_or_fail_cleanly() {
    let names = [
        "",
        " ",
        "-",
        "--",
        "_",
        "__",
        "0",
        "9lives",
        "self",
        "Self",
        "super",
        "crate",
        "type",
        "async",
        "gen",
        "r#type",
        "a-b",
        "a.b",
        "a b",
        "ÄÖÜ",
        "日本",
        "e\u{301}",
        "emoji🚀",
        "call",
        "Call",
        "EFFECTS",
        "new",
        "argv",
        "default",
        "x".repeat(80).leak(),
        "\u{202e}rtl",
        "quote\"",
        "back\\slash",
        "*/",
        "#[x]",
    ];
    for (i, name) in names.iter().enumerate() {
        let enc = serde_json::to_string(name).unwrap();
        let text = wrap(&format!(
            r#"{{{enc}: {{"description": {enc}, "arguments": [{{"name": {enc}, "type": "enum", "enum": [{enc}, "x"], "description": {enc}}}],
                "options": [{{"name": "{i}{enc_inner}", "flags": ["--o"], "type": "string", "description": {enc}}}]}}}}"#,
            enc_inner = name.replace(['"', '\\'], "")
        ));
        match expand(&text, &Options::default()) {
            Ok(exp) => {
                syn::parse2::<syn::File>(exp.tokens)
                    .unwrap_or_else(|e| panic!("{name:?}: generated tokens do not parse: {e}"));
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("$."),
                    "{name:?}: error without a JSON path: {msg}"
                );
            }
        }
    }
}

/// The field names of each struct the generator emitted, by struct name.
fn struct_fields(text: &str) -> std::collections::HashMap<String, Vec<String>> {
    let exp = expand(text, &unlimited()).unwrap_or_else(|e| panic!("{e}"));
    support::generated_items(exp.tokens)
        .iter()
        .filter_map(|i| match i {
            syn::Item::Struct(s) => Some((
                s.ident.to_string(),
                s.fields
                    .iter()
                    .filter_map(|f| f.ident.as_ref().map(ToString::to_string))
                    .collect(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn option_groups_hold_whole_levels_and_never_make_a_call_ambiguous() {
    let opt = |name: &str, flag: &str, required: bool| {
        format!(
            r#"{{"name": "{name}", "flags": ["{flag}"], "type": "string", "description": "d", "required": {required}}}"#
        )
    };
    let leaf = r#"{"description": "leaf"}"#;
    let text = format!(
        r#"{{"atip": {{"version": "0.6"}}, "name": "t", "version": "1", "description": "d",
            "globalOptions": [{global}],
            "commands": {{
              "a": {{"description": "a", "options": [{a1}, {a2}],
                     "commands": {{"one": {leaf}, "two": {{"description": "two", "options": [{a1}]}}}}}},
              "b": {{"description": "b", "options": [{b1}],
                     "commands": {{"one": {leaf}}}}},
              "c": {{"description": "c", "options": [{c1}],
                     "commands": {{"one": {leaf}}}}}
            }}}}"#,
        global = opt("dry-run", "--dry-run", false),
        a1 = opt("x", "--x", false),
        a2 = opt("y", "--y", false),
        // Its setter would be `dry_run`, as the global option's: one call, two traits.
        b1 = opt("dryRun", "--dryrun", false),
        c1 = opt("z", "--z", true),
    );
    let structs = struct_fields(&text);
    // `a`'s options: one group, held whole by `a one`.
    assert_eq!(structs["AOptions"], ["x", "y"]);
    assert_eq!(structs["AOne"], ["globals", "a_options"]);
    // `a two` shadows `--x`: it holds `--y` as a field of its own.
    assert_eq!(structs["ATwo"], ["globals", "y", "x"]);
    // `b`'s group would put a second `dry_run` setter on `b one`: its option stays its own,
    // and its setter is renamed.
    assert_eq!(structs["BOne"], ["globals", "dry_run"]);
    assert!(!structs.contains_key("BOptions"), "no command holds it");
    // `c`'s option is required: no group, the constructor takes it.
    assert!(!structs.contains_key("COptions"), "{:?}", structs.keys());
    assert_eq!(structs["COne"], ["globals", "z"]);
    let exp = expand(&text, &unlimited()).unwrap();
    let source = exp.tokens.to_string();
    assert!(source.contains("pub fn dry_run_2"), "{source}");
    assert!(source.contains("impl SetAOptions for AOne"), "{source}");
    assert!(!source.contains("impl SetAOptions for ATwo"), "{source}");
}

use crate::support;

#[test]
#[ignore = "slow: compiles the generated code for 10,000 sibling commands (run by .ci/run)"]
fn ten_thousand_siblings_compile() {
    let commands: Vec<String> = (0..10_000)
        .map(|i| {
            format!(
                r#""cmd-{i}": {{"description": "command {i}", "options": [{{"name": "flag", "flags": ["--flag"], "type": "boolean", "description": "f"}}]}}"#
            )
        })
        .collect();
    let text = wrap(&format!("{{{}}}", commands.join(",")));
    let exp = expand(&text, &unlimited()).unwrap();
    let mut krate = support::ScratchCrate::new("atip-adversarial-wide");
    krate.module("wide", "10,000 siblings", exp.to_source("wide.json"));
    krate.main(
        "use atip_runtime::Command;\nfn main() {\n    let c = scratch::wide::Cmd9999::new().flag(true);\n    \
         assert_eq!(c.argv(), [\"t\", \"cmd-9999\", \"--flag\"]);\n    \
         assert_eq!(scratch::wide::Call::NAMES.len(), 10_000);\n    println!(\"ok\");\n}\n",
    );
    assert_eq!(krate.build_and_run().trim(), "ok");
}
