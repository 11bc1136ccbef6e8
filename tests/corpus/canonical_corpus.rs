//! The canonical representation on real MCP tool definitions (`../shared/corpus/mcp`): every
//! definition round-trips MCP → canonical → MCP unchanged, and converts to every provider format
//! with output the providers' own SDK types accept (`../shared/validators`, zero FAIL), with the
//! feature-loss warnings checked by hand on several definitions.
//!
//! Not part of a user's `cargo test`: `cargo test -p atip-tests --test corpus canonical_corpus::
//! -- --ignored` (the CI does). They fail, never skip, when ../shared is missing.

use crate::support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use atip_runtime::canonical::{convert, read, write, Format, Warning};
use atip_runtime::providers::Provider;
use serde_json::Value;

use support::validators::{shared, validate, validator_name};

/// `(server, file stem, definition)` for every tool of the corpus, in a stable order.
fn corpus() -> Vec<(String, String, Value)> {
    let root = shared().join("corpus/mcp");
    let mut servers: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    servers.sort();
    let mut out = Vec::new();
    for dir in servers {
        let server = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("_server.json"))
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let value: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
            out.push((server.clone(), stem, value));
        }
    }
    assert!(out.len() > 200, "only {} corpus definitions", out.len());
    out
}

fn find<'a>(corpus: &'a [(String, String, Value)], server: &str, stem: &str) -> &'a Value {
    &corpus
        .iter()
        .find(|(s, f, _)| s == server && f == stem)
        .unwrap_or_else(|| panic!("{server}/{stem} is not in the corpus"))
        .2
}

#[test]
#[ignore = "needs ../shared"]
fn every_mcp_definition_round_trips_unchanged() {
    let corpus = corpus();
    for (server, stem, value) in &corpus {
        let out = convert(value, Format::Mcp, Provider::Mcp)
            .unwrap_or_else(|e| panic!("{server}/{stem}: {e}"));
        assert_eq!(&out.value, value, "{server}/{stem}");
        assert_eq!(
            serde_json::to_string(&out.value).unwrap(),
            serde_json::to_string(value).unwrap(),
            "{server}/{stem}: same keys in the same order"
        );
        assert!(
            out.warnings.is_empty(),
            "{server}/{stem}: {:?}",
            out.warnings
        );
    }
    println!("{} MCP definitions round-trip unchanged", corpus.len());
}

#[test]
#[ignore = "needs ../shared"]
fn every_definition_converts_to_every_provider_and_the_validators_accept_it() {
    let corpus = corpus();
    let mut by_server: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
    for (server, _, value) in &corpus {
        by_server.entry(server).or_default().push(value);
    }
    let mut entries = Vec::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (server, defs) in &by_server {
        let input = Value::Array(defs.iter().map(|v| (*v).clone()).collect());
        let tools = read(&input, Format::Mcp).unwrap().tools;
        for p in Provider::ALL {
            let out = write(&tools, p, true)
                .unwrap_or_else(|e| panic!("{server} to {}: {e}", p.as_str()));
            *counts.entry(p.as_str()).or_default() += out.warnings.len();
            entries.push((
                "tools",
                validator_name(p),
                format!("{server}.{}.json", p.as_str()),
                out.value,
            ));
        }
    }
    let out = validate("canonical", entries);
    assert!(out.contains("TOTAL tools:"), "{out}");
    for (target, n) in &counts {
        println!("feature-loss warnings to {target}: {n}");
    }
    // Per-target validator summaries, for the record.
    for p in Provider::ALL {
        let (mut passed, mut failed) = (0, 0);
        for line in out.lines().filter(|l| {
            l.starts_with("validate_tools.py ") && l.contains(&format!(".{}.json:", p.as_str()))
        }) {
            let summary = line.rsplit(": ").next().unwrap_or_default();
            let nums: Vec<usize> = summary
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .filter_map(|s| s.parse().ok())
                .collect();
            passed += nums.first().copied().unwrap_or(0);
            failed += nums.get(1).copied().unwrap_or(0);
        }
        println!("validator {}: {passed} passed, {failed} failed", p.as_str());
        assert_eq!(failed, 0, "{}", p.as_str());
        assert_eq!(passed, corpus.len(), "{}", p.as_str());
    }
}

/// The warnings of one conversion as `pointer | display` lines.
fn losses(value: &Value, to: Provider) -> Vec<String> {
    convert(value, Format::Mcp, to)
        .unwrap()
        .warnings
        .iter()
        .map(Warning::to_string)
        .collect()
}

#[test]
#[ignore = "needs ../shared"]
fn feature_losses_on_real_definitions_are_the_expected_ones() {
    let corpus = corpus();

    // A `$ref` into `$defs` inside an optional `anyOf` (pydantic's shape).
    let pricing = find(&corpus, "awslabs-aws-pricing-mcp-server", "get_pricing");
    let to_openai = losses(pricing, Provider::OpenAi);
    assert!(to_openai.contains(
        &"/inputSchema/properties/output_options/anyOf/0/$ref: `$ref`, mcp to openai: inlined"
            .to_owned()
    ));
    assert!(to_openai.contains(
        &"/inputSchema/$defs: `$defs`, mcp to openai: rewritten away: each `$ref` to it is inlined"
            .to_owned()
    ));
    assert!(to_openai
        .contains(&"/outputSchema: the field `outputSchema`, mcp to openai: dropped".to_owned()));
    let strict = losses(pricing, Provider::OpenAiStrict);
    assert!(strict.contains(
        &"/inputSchema/properties/next_token/anyOf: `anyOf`, mcp to openai-strict: rewritten as a nullable type"
            .to_owned()
    ));
    assert!(strict.contains(
        &"/inputSchema/properties/max_results/default: `default`, mcp to openai-strict: moved into the description (not enforced)"
            .to_owned()
    ));
    // Inside a definition used once: reported where it is written.
    assert!(strict.contains(
        &"/inputSchema/$defs/PricingFilter/properties/Field/minLength: `minLength`, mcp to openai-strict: moved into the description (not enforced)"
            .to_owned()
    ));
    let out = convert(pricing, Format::Mcp, Provider::OpenAiStrict)
        .unwrap()
        .value;
    let p = &out["function"]["parameters"]["properties"];
    assert_eq!(
        p["next_token"]["type"],
        serde_json::json!(["string", "null"])
    );
    assert_eq!(
        p["output_options"]["type"],
        serde_json::json!(["object", "null"])
    );
    assert_eq!(p["output_options"]["additionalProperties"], false);
    assert!(p["max_results"]["description"]
        .as_str()
        .unwrap()
        .ends_with("(default: 100)"));
    // The region accepts a string or a list of strings: a real union stays one.
    assert_eq!(p["region"]["anyOf"].as_array().unwrap().len(), 3);

    // `oneOf` of a string or an object, in array items.
    let labels = find(&corpus, "github-mcp-server", "update_issue_labels");
    for (to, text) in [
        (
            Provider::OpenAi,
            "/inputSchema/properties/labels/items/oneOf: `oneOf`, mcp to openai: rewritten as `anyOf`: more than one branch may now match",
        ),
        (
            Provider::Gemini,
            "/inputSchema/properties/labels/items/oneOf: `oneOf`, mcp to gemini: rewritten as `anyOf`: more than one branch may now match",
        ),
    ] {
        assert!(losses(labels, to).contains(&text.to_owned()), "{to:?}");
    }
    assert!(losses(labels, Provider::Anthropic)
        .iter()
        .all(|w| !w.contains("oneOf")));
    assert!(losses(labels, Provider::Mcp).is_empty());
    let strict = losses(labels, Provider::OpenAiStrict);
    assert!(strict.contains(
        &"/inputSchema/properties/labels/items/oneOf/1/properties/rationale/maxLength: `maxLength`, mcp to openai-strict: moved into the description (not enforced)"
            .to_owned()
    ));

    // A type union of three types, which Gemini cannot hold.
    let issue = find(&corpus, "github-mcp-server", "issue_write");
    let gemini = losses(issue, Provider::Gemini);
    assert!(gemini.contains(
        &"/inputSchema/properties/issue_fields/items/properties/value/type: a type union, mcp to gemini: rewritten as `anyOf`, one schema per type"
            .to_owned()
    ));
    let out = convert(issue, Format::Mcp, Provider::Gemini).unwrap().value;
    let value = &out["parameters"]["properties"]["issue_fields"]["items"]["properties"]["value"];
    assert_eq!(
        value["anyOf"],
        serde_json::json!([{"type": "STRING"}, {"type": "NUMBER"}, {"type": "BOOLEAN"}])
    );

    // A free-form map (`additionalProperties` schema, `propertyNames`).
    let drop = find(&corpus, "playwright-mcp", "browser_drop");
    let strict = losses(drop, Provider::OpenAiStrict);
    assert!(strict.contains(
        &"/inputSchema/properties/data/additionalProperties: `additionalProperties`, mcp to openai-strict: rewritten as `false`: strict mode allows no properties beyond those listed"
            .to_owned()
    ));
    assert!(strict.contains(
        &"/inputSchema/properties/data/propertyNames: `propertyNames`, mcp to openai-strict: moved into the description (not enforced)"
            .to_owned()
    ));
    assert!(losses(drop, Provider::Gemini).contains(
        &"/inputSchema/properties/data/propertyNames: `propertyNames`, mcp to gemini: moved into the description (not enforced)"
            .to_owned()
    ));

    // Title, annotations and the 2025-11-25 `execution` field have no place outside MCP.
    let sum = find(&corpus, "server-everything", "get-sum");
    assert_eq!(
        losses(sum, Provider::Anthropic),
        [
            "/title: the field `title`, mcp to anthropic: dropped",
            "/annotations: the field `annotations`, mcp to anthropic: dropped",
            "/execution: the field `execution`, mcp to anthropic: dropped",
        ]
    );
}

#[test]
#[ignore = "needs ../shared"]
fn every_format_read_back_converts_to_every_provider_and_the_validators_accept_it() {
    // The corpus written in each format, then read in that format and written in every other:
    // a matrix of 5 x 7 conversions over every real definition, plus this crate's own mixed
    // and repaired fixtures.
    let corpus = corpus();
    let mut by_server: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    for (server, _, value) in &corpus {
        by_server.entry(server).or_default().push(value.clone());
    }
    by_server.insert(
        "fixture-mixed",
        serde_json::from_str::<Vec<Value>>(include_str!("../canonical/mixed.json")).unwrap(),
    );
    by_server.insert(
        "fixture-repaired",
        vec![
            serde_json::json!({"name": "scan", "description": "Scan", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#"}, "annotations": {"readOnlyHint": "true", "vendorRisk": "low"}}),
            serde_json::json!({"name": "t", "input_schema": {"type": ["object", "null"], "properties": {"a": "string"}}}),
        ],
    );
    let sources = [
        (Provider::OpenAi, Format::OpenAi),
        (Provider::OpenAiResponses, Format::OpenAiResponses),
        (Provider::Anthropic, Format::Anthropic),
        (Provider::Gemini, Format::Gemini),
        (Provider::Mcp, Format::Mcp),
    ];
    let mut entries = Vec::new();
    let mut definitions = 0;
    for (server, defs) in &by_server {
        let mcp = Value::Array(defs.clone());
        for (as_provider, format) in sources {
            let written = convert(&mcp, Format::Mcp, as_provider)
                .unwrap_or_else(|e| panic!("{server} to {}: {e}", as_provider.as_str()))
                .value;
            for p in Provider::ALL {
                let out = convert(&written, format, p).unwrap_or_else(|e| {
                    panic!("{server}: {} to {}: {e}", format.as_str(), p.as_str())
                });
                definitions += defs.len();
                entries.push((
                    "tools",
                    validator_name(p),
                    format!("{server}.{}.{}.json", format.as_str(), p.as_str()),
                    out.value,
                ));
            }
        }
    }
    let out = validate("canonical-matrix", entries);
    let total = out.lines().find(|l| l.starts_with("TOTAL")).unwrap();
    assert!(
        total.contains(&format!("tools: {definitions} passed, 0 failed")),
        "{total}"
    );
}

#[test]
#[ignore = "needs ../shared"]
fn atip_corpus_converts_as_the_compiler_compiles() {
    let dir = shared().join("corpus/atip/valid");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let mut compared = 0;
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = atip_runtime::Document::parse(
            &text,
            &atip_runtime::LoadOptions::strict(),
            &atip_runtime::FlattenOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let tool = atip_runtime::LoadedCommands::new(doc, None);
        let tools = atip_runtime::canonical::from_atip(tool.document());
        for p in Provider::ALL {
            let mut ours = write(&tools, p, true).unwrap().value;
            let compiled = atip_runtime::providers::tool_definitions(tool.specs(), p);
            if p == Provider::Gemini {
                // Conversion keeps `additionalProperties: false`, which the compiler leaves out.
                for decl in ours.as_array_mut().unwrap() {
                    if let Some(Value::Object(params)) = decl.get_mut("parameters") {
                        assert_eq!(
                            params.remove("additionalProperties"),
                            Some(Value::Bool(false))
                        );
                    }
                }
            }
            assert_eq!(ours, compiled, "{} as {}", path.display(), p.as_str());
        }
        compared += tools.len();
    }
    println!("{compared} ATIP commands x 7 formats: conversion equals compilation");
    assert!(compared > 250, "{compared}");
}

/// Recursive schemas (`tests/canonical/recursive.json`: a tree of nodes, a reference to the
/// root): kept as references for
/// OpenAI (strict too), Anthropic and MCP, cut for Gemini; every provider's SDK accepts it.
#[test]
#[ignore = "needs ../shared"]
fn recursive_schemas_pass_the_validators_for_every_provider() {
    let input: Value = serde_json::from_str(
        &std::fs::read_to_string(support::workspace().join("tests/canonical/recursive.json"))
            .unwrap(),
    )
    .unwrap();
    let tools = read(&input, Format::Mcp).unwrap().tools;
    let mut entries = Vec::new();
    for p in Provider::ALL {
        let out = write(&tools, p, true).unwrap();
        entries.push((
            "tools",
            validator_name(p),
            format!("recursive.{}.json", p.as_str()),
            out.value,
        ));
    }
    let out = validate("recursive", entries);
    assert!(out.contains("TOTAL tools:"), "{out}");
}
