//! Correctness on the aws-sized document (`atip_tests::large`, 21,000 commands, ≈ 49 MB):
//! provider-valid distinct names, every command dispatchable through `LoadedCommands`, argv of
//! sampled calls, the generator's command limit and filter. Timings are in the benches
//! (`cargo bench -p atip-tests`), not here.

use crate::support;

use std::collections::HashSet;
use std::sync::OnceLock;

use atip_build::{expand, Options, DEFAULT_MAX_COMMANDS};
use atip_runtime::flatten::OptionScope;
use atip_runtime::providers::Provider;
use atip_runtime::{
    flatten::ParamPlacement, tool::ValueKind, Document, FlattenOptions, LoadOptions,
    LoadedCommands, ToolCall,
};
use atip_tests::large::{document, operation_name, service_name, Shape};
use serde_json::{json, Map, Value};

/// The aws document's text, generated once for all tests of this file.
fn aws_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| document(&Shape::AWS))
}

/// The aws document loaded for dispatch, once.
fn aws_tool() -> &'static LoadedCommands {
    static TOOL: OnceLock<LoadedCommands> = OnceLock::new();
    TOOL.get_or_init(|| {
        let doc = Document::parse(
            aws_text(),
            &LoadOptions::strict(),
            &FlattenOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        LoadedCommands::new(doc, None)
    })
}

/// A valid value of `kind` for a parameter named `name`.
fn sample(name: &str, kind: ValueKind, values: Option<&[std::borrow::Cow<'static, str>]>) -> Value {
    if let Some(values) = values {
        return json!(values.last().map(|v| v.as_ref()).unwrap_or_default());
    }
    match kind {
        ValueKind::Boolean => json!(true),
        ValueKind::Integer => json!(7),
        ValueKind::Number => json!(2.5),
        ValueKind::Url => json!(format!("https://example.com/{name}")),
        _ => json!(format!("{name}-value")),
    }
}

#[test]
fn the_document_is_aws_sized() {
    let text = aws_text();
    assert!(text.len() > 30_000_000, "{} bytes", text.len());
    let tool = aws_tool();
    assert_eq!(tool.specs().len(), 21_000);
    assert_eq!(Shape::AWS.command_count(), 21_000);
}

#[test]
fn names_are_distinct_and_valid_for_every_provider() {
    let valid = regex::Regex::new("^[a-zA-Z0-9_-]{1,64}$").unwrap();
    let tool = aws_tool();
    let names: Vec<&str> = tool.names().collect();
    let distinct: HashSet<&str> = names.iter().copied().collect();
    assert_eq!(distinct.len(), names.len(), "duplicate tool names");
    for name in &names {
        assert!(valid.is_match(name), "{name} is not a valid tool name");
    }
    // The long service names push some flattened names past 64 characters: those were
    // shortened, and still map back to their command.
    let mut long = 0;
    for c in &tool.document().commands {
        let full = format!("awsx_{}", c.path.join("_"));
        if full.len() > 64 {
            long += 1;
            assert!(
                c.name.len() <= 64 && c.name != full,
                "{full} kept as {}",
                c.name
            );
            assert!(tool.has_command(&c.name));
        }
    }
    assert!(long > 0, "the shape must exercise names over 64 characters");
}

#[test]
fn every_command_dispatches_with_its_required_parameters() {
    let tool = aws_tool();
    for spec in tool.specs() {
        let mut args = Map::new();
        for p in spec.params.iter().filter(|p| p.required) {
            args.insert(
                p.name.to_string(),
                sample(&p.name, p.kind, p.values.as_deref()),
            );
        }
        let call = ToolCall::new(None, spec.name.to_string(), args);
        let inv = tool
            .invocation(&call)
            .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
        assert_eq!(inv.name, spec.name);
        let argv: Vec<String> = inv
            .argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(argv[0], "awsx");
        assert_eq!(
            argv[1..=spec.path.len()],
            spec.path.iter().map(|s| s.to_string()).collect::<Vec<_>>()[..]
        );
    }
}

#[test]
fn sampled_calls_with_every_parameter_give_the_declared_argv() {
    let tool = aws_tool();
    // Every 997th command: spread over services, operations and verbs.
    for spec in tool.specs().iter().step_by(997) {
        let mut args = Map::new();
        for p in spec.params.iter() {
            let v = sample(&p.name, p.kind, p.values.as_deref());
            args.insert(
                p.name.to_string(),
                if p.multiple { json!([v, v]) } else { v },
            );
        }
        let call = ToolCall::new(None, spec.name.to_string(), args);
        let inv = tool
            .invocation(&call)
            .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
        let argv: Vec<String> = inv
            .argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let (command, _) = tool.command(&spec.name).unwrap();
        // Program, global options, path, then the command's own and inherited options, each
        // in declaration order, values joined to their flag (`--flag=value`, so a value can
        // never be read as a flag).
        let mut globals: Vec<String> = Vec::new();
        let mut rest: Vec<String> = Vec::new();
        for (param, p) in command.params().zip(spec.params.iter()) {
            let flag = param
                .flag()
                .expect("every aws option has a flag")
                .text
                .clone();
            let value = sample(&p.name, p.kind, p.values.as_deref());
            let text = match &value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let global = matches!(
                param.kind,
                ParamPlacement::Option {
                    scope: OptionScope::Global,
                    ..
                }
            );
            let out = if global { &mut globals } else { &mut rest };
            for _ in 0..if p.multiple { 2 } else { 1 } {
                out.push(if p.kind == ValueKind::Boolean {
                    flag.clone()
                } else {
                    format!("{flag}={text}")
                });
            }
        }
        let mut expected: Vec<String> = vec!["awsx".into()];
        expected.extend(globals);
        expected.extend(command.path.iter().cloned());
        expected.extend(rest);
        assert_eq!(argv, expected, "{}", spec.name);
    }
}

#[test]
fn every_provider_gets_one_definition_per_command() {
    let tool = aws_tool();
    for provider in Provider::ALL {
        let text = tool.definitions_json(provider);
        // Each definition checked as JSON, not built as a map: 84,000 of them.
        let defs: Vec<&serde_json::value::RawValue> = serde_json::from_str(&text).unwrap();
        assert_eq!(defs.len(), 21_000, "{provider:?}");
    }
}

#[test]
fn the_unfiltered_document_is_refused_early_with_a_hint() {
    let err = expand(aws_text(), &Options::default()).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("`awsx` has 21000 commands"), "{msg}");
    assert!(
        msg.contains(&format!("limit of {DEFAULT_MAX_COMMANDS}")),
        "{msg}"
    );
    assert!(msg.contains("commands = [\""), "{msg}");
    assert!(msg.contains("max_commands = 21000"), "{msg}");
}

#[test]
fn a_filter_generates_only_what_it_keeps() {
    let service = service_name(1);
    let op = operation_name(2, 3);
    let exp = expand(
        aws_text(),
        &Options::new().commands([service.clone(), format!("{} {op}", service_name(2))]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let structs: Vec<String> = support::generated_items(exp.tokens)
        .iter()
        .filter_map(|i| match i {
            syn::Item::Struct(s) => Some(s.ident.to_string()),
            _ => None,
        })
        .collect();
    // One service's operations, one more operation, the global options and the options of
    // the two services kept.
    assert_eq!(structs.len(), Shape::AWS.operations + 4, "{structs:?}");
    assert_eq!(structs[0], "Globals");
    assert_eq!(
        structs.iter().filter(|s| s.ends_with("Options")).count(),
        2,
        "{structs:?}"
    );
}
