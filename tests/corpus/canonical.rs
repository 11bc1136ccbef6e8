//! The canonical tool representation and conversion between formats, on definitions written
//! here: repairs of slightly-off input, rejections, references, round trips, determinism, and
//! ATIP conversion agreeing with the compiler. The corpus and the providers' validators are in
//! `canonical_corpus.rs`.

use crate::support;

use atip_runtime::canonical::{
    convert, from_atip, read, write, CanonicalTool, ConvertError, Feature, Format, InstanceType,
    InvalidTool, Resolution, Schema, SchemaObject, SchemaType, Warning,
};
use atip_runtime::providers::{tool_definitions, Provider};
use atip_runtime::{Document, FlattenOptions, LoadOptions, LoadedCommands};
use serde_json::{json, Value};

fn lines(warnings: &[Warning]) -> Vec<String> {
    warnings.iter().map(Warning::to_string).collect()
}

/// `pointer resolution` of each feature loss.
fn resolutions(warnings: &[Warning]) -> Vec<String> {
    warnings
        .iter()
        .filter_map(Warning::as_loss)
        .map(|l| format!("{} {}", l.pointer, l.resolution))
        .collect()
}

#[test]
fn slightly_off_mcp_definitions_are_repaired_and_reported() {
    let input = json!({
        "name": "scan",
        "description": 42,
        "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#"},
        "annotations": {"readOnlyHint": "true", "destructiveHint": 0, "vendorRisk": "low"}
    });
    let out = convert(&input, Format::Mcp, Provider::Mcp).unwrap();
    assert_eq!(
        out.value,
        json!({
            "name": "scan",
            "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"},
            "annotations": {"readOnlyHint": true, "vendorRisk": "low"}
        })
    );
    assert_eq!(
        lines(&out.warnings),
        [
            "/description: `description` is the number 42, not a string in the mcp input; dropped",
            "/inputSchema: the input schema has no `type` in the mcp input; set to \"object\"",
            "/annotations/readOnlyHint: `readOnlyHint` is the string \"true\", not a boolean in the mcp input; read as true",
            "/annotations/destructiveHint: `destructiveHint` is the number 0, not a boolean in the mcp input; dropped",
        ]
    );
    // Type unions at the root and snake_case keys are repaired too.
    let out = convert(
        &json!({"name": "t", "input_schema": {"type": ["object", "null"], "properties": {}}}),
        Format::Mcp,
        Provider::Mcp,
    )
    .unwrap();
    assert_eq!(out.value["inputSchema"]["type"], "object");
    assert_eq!(out.warnings.len(), 2, "{:?}", lines(&out.warnings));
}

#[test]
fn what_cannot_be_a_definition_is_rejected_with_the_reason() {
    let cases = [
        (json!([1]), Format::Mcp, "/0: not a valid mcp tool definition: expected a JSON object, got the number 1"),
        (json!({"inputSchema": {"type": "object"}}), Format::Mcp, "(root): not a valid mcp tool definition: `name` is missing"),
        (
            json!({"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}),
            Format::Mcp,
            "(root): not a valid mcp tool definition: `name` is missing (this looks like openai input: --from openai)",
        ),
        (
            json!({"name": "f", "inputSchema": {"type": "string"}}),
            Format::Mcp,
            "/inputSchema/type: not a valid mcp tool definition: the input schema must describe an object (arguments are named), not string",
        ),
        (json!({"name": "f"}), Format::Mcp, "`inputSchema` is missing"),
        (
            json!({"type": "web_search"}),
            Format::OpenAi,
            "/type: not a valid openai tool definition: a `web_search` tool, not a function definition",
        ),
        (
            json!({"type": "bash_20250124", "name": "bash"}),
            Format::Anthropic,
            "a `bash_20250124` tool (Anthropic-defined or server tool), not a custom tool definition",
        ),
        (
            json!({"name": "g", "parameters": {"type": "OBJECT"}, "parametersJsonSchema": {"type": "object"}}),
            Format::Gemini,
            "`parameters` and `parametersJsonSchema` are mutually exclusive",
        ),
        (json!({"name": "", "input_schema": {"type": "object"}}), Format::Anthropic, "/name: not a valid anthropic tool definition: `name` is empty"),
        (json!({"atip": "0.4"}), Format::Atip, "not a valid atip tool definition"),
    ];
    for (input, from, expected) in cases {
        let err = convert(&input, from, Provider::OpenAi).unwrap_err();
        assert!(
            err.to_string().contains(expected),
            "{input}: got {err}, expected {expected}"
        );
        assert!(matches!(err, ConvertError::Invalid { .. }));
    }
}

#[test]
fn references_are_inlined_where_the_target_cannot_hold_them() {
    // tooladapter's example: a root `$ref` into `$defs`.
    let input = json!({
        "name": "example",
        "inputSchema": {
            "$ref": "#/$defs/Person",
            "$defs": {"Person": {"type": "object", "properties": {"name": {"type": "string"}}}}
        }
    });
    let out = convert(&input, Format::Mcp, Provider::OpenAi).unwrap();
    assert_eq!(
        out.value["function"]["parameters"],
        json!({"type": "object", "properties": {"name": {"type": "string"}}})
    );
    let features: Vec<(&Feature, &str)> = out
        .warnings
        .iter()
        .filter_map(Warning::as_loss)
        .map(|l| (&l.feature, l.pointer.as_str()))
        .collect();
    assert_eq!(
        features,
        [
            (&Feature::Keyword("$ref".into()), "/inputSchema/$ref"),
            (&Feature::Keyword("$defs".into()), "/inputSchema/$defs"),
        ]
    );
    // MCP keeps them; its rule that the root is `type: object` is repaired.
    let out = convert(&input, Format::Mcp, Provider::Mcp).unwrap();
    assert_eq!(out.value["inputSchema"]["$ref"], "#/$defs/Person");
    assert_eq!(out.value["inputSchema"]["type"], "object");
    assert_eq!(
        lines(&out.warnings),
        ["/inputSchema: the input schema has no `type` in the mcp input; set to \"object\""]
    );

    // A definition used twice is inlined twice; what it loses is reported once, where written.
    let twice = json!({
        "name": "pair",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/Id"}, "b": {"$ref": "#/$defs/Id", "description": "second"}},
            "$defs": {"Id": {"type": "string", "minLength": 3, "description": "an id"}}
        }
    });
    let out = convert(&twice, Format::Mcp, Provider::OpenAiStrict).unwrap();
    let props = &out.value["function"]["parameters"]["properties"];
    assert_eq!(props["a"]["description"], "an id (minLength: 3)");
    assert_eq!(
        props["b"]["description"], "second",
        "keywords beside `$ref` win"
    );
    let min_length = out
        .warnings
        .iter()
        .filter(|w| w.pointer() == "/inputSchema/$defs/Id/minLength")
        .count();
    assert_eq!(min_length, 1);

    // Remote or dangling references cannot be inlined: unconstrained, and said so.
    let dangling = json!({"name": "d", "inputSchema": {"type": "object", "properties": {
        "x": {"$ref": "#/$defs/Missing"}, "y": {"$ref": "https://example.com/s.json"}}}});
    let out = convert(&dangling, Format::Mcp, Provider::Anthropic).unwrap();
    assert_eq!(
        out.value["input_schema"]["properties"],
        json!({"x": {}, "y": {}})
    );
    assert!(lines(&out.warnings)[0].contains("points to nothing"));
    assert!(lines(&out.warnings)[1].contains("not a reference within this schema"));
}

/// Recursive schemas (`tests/canonical/recursive.json`): a tree of nodes (`tree`) and a
/// reference to the root (`nest`).
fn recursive() -> Vec<serde_json::Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("canonical/recursive.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The tree of nodes.
fn tree() -> serde_json::Value {
    recursive().swap_remove(0)
}

#[test]
fn recursive_schemas_keep_their_references_where_the_target_holds_them() {
    let tree = tree();
    // MCP holds references, so nothing changes.
    assert_eq!(
        convert(&tree, Format::Mcp, Provider::Mcp).unwrap().value,
        tree
    );
    for (to, key) in [
        (Provider::Anthropic, "input_schema"),
        (Provider::OpenAi, "parameters"),
        (Provider::OpenAiStrict, "parameters"),
    ] {
        let out = convert(&tree, Format::Mcp, to).unwrap();
        let def = out.value.get("function").unwrap_or(&out.value);
        let schema = &def[key];
        assert!(schema["$defs"]["Node"].is_object(), "{to:?}: {schema}");
        assert_eq!(
            schema["$defs"]["Node"]["properties"]["children"]["items"]["$ref"],
            "#/$defs/Node"
        );
        let w = lines(&out.warnings);
        assert!(
            w.iter()
                .any(|l| l.contains("as a reference, with its `$defs`")
                    && l.contains("/inputSchema/$defs/Node/properties/children/items/$ref")),
            "{to:?}: {w:?}"
        );
        if to == Provider::OpenAiStrict {
            // Strict: a kept reference stands alone, every object is closed and fully required.
            assert_eq!(
                schema["properties"]["root"],
                json!({"$ref": "#/$defs/Node"})
            );
            assert!(w
                .iter()
                .any(|l| l.contains("keywords beside a kept `$ref` are dropped")));
            assert_eq!(schema["$defs"]["Node"]["additionalProperties"], false);
            assert_eq!(
                schema["$defs"]["Node"]["required"],
                json!(["name", "children"])
            );
        } else {
            assert_eq!(schema["properties"]["root"]["description"], "The root node");
        }
    }
}

#[test]
fn recursive_schemas_are_cut_where_the_target_cannot_hold_references() {
    let out = convert(&tree(), Format::Mcp, Provider::Gemini).unwrap();
    let root = &out.value["parameters"]["properties"]["root"];
    // Inlined once; the reference that closes the cycle becomes an unconstrained value.
    assert_eq!(root["properties"]["name"]["type"], "STRING");
    assert_eq!(root["properties"]["children"]["type"], "ARRAY");
    assert_eq!(root["properties"]["children"]["items"], json!({}));
    assert!(out.value["parameters"].get("$defs").is_none());
    let w = lines(&out.warnings);
    assert!(
        w.iter().any(
            |l| l.contains("/inputSchema/$defs/Node/properties/children/items/$ref")
                && l.contains("as an unconstrained value")
                && l.contains("gemini cannot hold references")
        ),
        "{w:?}"
    );
    // A reference to the root itself is a cycle too.
    let root = recursive().swap_remove(1);
    let out = convert(&root, Format::Mcp, Provider::Gemini).unwrap();
    assert_eq!(out.value["parameters"]["properties"]["self"], json!({}));
    let out = convert(&root, Format::Mcp, Provider::OpenAi).unwrap();
    assert_eq!(
        out.value["function"]["parameters"]["properties"]["self"]["$ref"],
        "#"
    );
}

#[test]
fn strict_mode_gets_required_nullable_properties_and_closed_objects() {
    let input = json!({
        "name": "search",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer", "default": 10},
                "sort": {"enum": ["asc", "desc"]},
                "filter": {"type": "object", "properties": {"tag": {"const": "x"}}},
                "after": {"oneOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
                "exclude": {"not": {"type": "null"}},
                "both": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                                   {"properties": {"b": {"type": "number"}}}]}
            },
            "required": ["query"]
        }
    });
    let out = convert(&input, Format::Mcp, Provider::OpenAiResponsesStrict).unwrap();
    assert_eq!(
        out.value,
        json!({
            "type": "function",
            "name": "search",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": ["integer", "null"], "description": "(default: 10)"},
                    "sort": {"enum": ["asc", "desc", null]},
                    "filter": {
                        "type": ["object", "null"],
                        "properties": {"tag": {"enum": ["x", null]}},
                        "additionalProperties": false,
                        "required": ["tag"]
                    },
                    "after": {"type": ["string", "null"], "format": "date-time"},
                    "exclude": {"description": "(not: {\"type\":\"null\"})"},
                    "both": {
                        "type": ["object", "null"],
                        "properties": {"a": {"type": "string"}, "b": {"type": ["number", "null"]}},
                        "required": ["a", "b"],
                        "additionalProperties": false
                    }
                },
                "required": ["query", "limit", "sort", "filter", "after", "exclude", "both"],
                "additionalProperties": false
            },
            "strict": true
        })
    );
    let features = resolutions(&out.warnings);
    assert_eq!(
        features,
        [
            "/inputSchema/properties/limit/default moved into the description (not enforced)",
            "/inputSchema/properties/after/oneOf rewritten as a nullable type",
            "/inputSchema/properties/exclude/not moved into the description (not enforced)",
            "/inputSchema/properties/both/allOf rewritten by merging its schemas into one",
        ]
    );
}

#[test]
fn gemini_gets_its_openapi_subset() {
    let input = json!({
        "name": "book",
        "description": "Book a room",
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "room": {"type": "integer", "enum": [101, 201]},
                "note": {"type": ["string", "null"], "maxLength": 200},
                "kind": {"const": "single"},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "examples": [["a"], ["b"]]},
                "price": {"type": "number", "exclusiveMinimum": 0, "format": "decimal"},
                "x": {"type": "string", "x-internal": true}
            },
            "required": ["room"]
        }
    });
    let out = convert(&input, Format::Mcp, Provider::Gemini).unwrap();
    assert_eq!(
        out.value,
        json!({
            "name": "book",
            "description": "Book a room",
            "parameters": {
                "type": "OBJECT",
                "properties": {
                    "room": {"type": "INTEGER", "enum": ["101", "201"], "format": "enum"},
                    "note": {"type": "STRING", "maxLength": 200, "nullable": true},
                    "kind": {"enum": ["single"], "format": "enum"},
                    "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "description": "(uniqueItems: true)", "example": ["a"]},
                    "price": {"type": "NUMBER", "description": "(format: \"decimal\"; exclusiveMinimum: 0)"},
                    "x": {"type": "STRING"}
                },
                "required": ["room"]
            }
        })
    );
    let features = resolutions(&out.warnings);
    assert_eq!(
        features,
        [
            "/inputSchema/properties/room/enum rewritten with its values as strings",
            "/inputSchema/properties/note/type rewritten as one type with `nullable: true`",
            "/inputSchema/properties/kind/const rewritten as a one-value `enum`",
            "/inputSchema/properties/tags/uniqueItems moved into the description (not enforced)",
            "/inputSchema/properties/tags/examples rewritten as `example`, keeping only the first",
            "/inputSchema/properties/price/format moved into the description (not enforced)",
            "/inputSchema/properties/price/exclusiveMinimum moved into the description (not enforced)",
            "/inputSchema/properties/x/x-internal dropped",
        ]
    );

    // And back: Gemini's conventions become JSON Schema again, losing nothing.
    let back = convert(&out.value, Format::Gemini, Provider::Mcp).unwrap();
    assert_eq!(
        back.value["inputSchema"]["properties"]["room"],
        json!({"type": "integer", "enum": [101, 201]})
    );
    assert_eq!(
        back.value["inputSchema"]["properties"]["note"],
        json!({"type": ["string", "null"], "maxLength": 200})
    );
    assert!(back.warnings.is_empty(), "{:?}", lines(&back.warnings));
    // Gemini -> Gemini is the identity.
    let again = convert(&out.value, Format::Gemini, Provider::Gemini).unwrap();
    assert_eq!(again.value, out.value);
    assert!(again.warnings.is_empty(), "{:?}", lines(&again.warnings));
}

#[test]
fn each_format_round_trips_through_canonical() {
    let cases = [
        (
            Format::OpenAi,
            Provider::OpenAi,
            json!({"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}, "strict": false}}),
        ),
        (
            Format::OpenAi,
            Provider::OpenAiStrict,
            json!({"type": "function", "function": {"name": "f", "strict": true, "parameters": {"type": "object", "properties": {"a": {"type": ["string", "null"]}}, "required": ["a"], "additionalProperties": false}}}),
        ),
        (
            Format::OpenAiResponses,
            Provider::OpenAiResponses,
            json!({"type": "function", "name": "f", "parameters": {"type": "object", "properties": {}}, "strict": false, "defer_loading": true}),
        ),
        (
            Format::Anthropic,
            Provider::Anthropic,
            json!({"name": "f", "description": "d", "input_schema": {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}, "cache_control": {"type": "ephemeral"}}),
        ),
        (
            Format::Gemini,
            Provider::Gemini,
            json!({"name": "f", "description": "d", "parameters": {"type": "OBJECT", "properties": {"a": {"type": "STRING", "nullable": true}}, "propertyOrdering": ["a"]}, "behavior": "NON_BLOCKING"}),
        ),
        (
            Format::Mcp,
            Provider::Mcp,
            json!({"name": "f", "title": "F", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}, "icons": [{"src": "data:,"}], "_meta": {"k": 1}}),
        ),
    ];
    for (from, to, input) in &cases {
        let out = convert(input, *from, *to).unwrap();
        assert_eq!(&out.value, input, "{} -> {}", from.as_str(), to.as_str());
        assert!(out.warnings.is_empty(), "{:?}", lines(&out.warnings));
    }
    // Fields of one format are reported lost in another.
    let out = convert(&cases[3].2, Format::Anthropic, Provider::OpenAi).unwrap();
    assert_eq!(
        lines(&out.warnings),
        ["/cache_control: the field `cache_control`, anthropic to openai: dropped"]
    );
}

#[test]
fn arrays_and_wrappers_keep_their_shape_and_pointers() {
    let input = json!([
        {"name": "a", "inputSchema": {"type": "object"}},
        {"name": "b", "inputSchema": {"type": "object", "properties": {"x": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}}
    ]);
    let out = convert(&input, Format::Mcp, Provider::OpenAi).unwrap();
    assert!(out.value.is_array());
    assert_eq!(out.value.as_array().unwrap().len(), 2);
    assert_eq!(
        out.warnings[0].pointer(),
        "/1/inputSchema/properties/x/oneOf"
    );
    // MCP `tools/list` results and Gemini `Tool`s hold lists too.
    let listed = convert(&json!({"tools": input}), Format::Mcp, Provider::Anthropic).unwrap();
    assert_eq!(listed.value.as_array().unwrap().len(), 2);
    let gemini = json!({"functionDeclarations": [{"name": "g", "parameters": {"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}}}]});
    let out = convert(&gemini, Format::Gemini, Provider::Mcp).unwrap();
    assert_eq!(
        out.value,
        json!([{"name": "g", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}])
    );
    let bad = json!({"functionDeclarations": [{"parameters": {}}]});
    assert!(convert(&bad, Format::Gemini, Provider::Mcp)
        .unwrap_err()
        .to_string()
        .starts_with("/functionDeclarations/0: "));
}

#[test]
fn names_and_descriptions_are_fitted_to_the_target() {
    let long = "x".repeat(1500);
    let input =
        json!({"name": "files.read", "description": long, "inputSchema": {"type": "object"}});
    let out = convert(&input, Format::Mcp, Provider::OpenAi).unwrap();
    assert_eq!(out.value["function"]["name"], "files_read");
    let description = out.value["function"]["description"].as_str().unwrap();
    assert_eq!(description.chars().count(), 1024);
    assert!(description.ends_with("..."));
    assert_eq!(
        lines(&out.warnings),
        [
            "/name: the name, mcp to openai: rewritten as \"files_read\"",
            "/description: the field `description`, mcp to openai: rewritten shorter: cut from 1500 to 1024 characters, the provider's limit",
        ]
    );
    // Gemini and MCP allow dots; Anthropic has no description limit.
    assert_eq!(
        convert(&input, Format::Mcp, Provider::Gemini)
            .unwrap()
            .value["name"],
        "files.read"
    );
    let anthropic = convert(&input, Format::Mcp, Provider::Anthropic).unwrap();
    assert_eq!(anthropic.value["description"].as_str().unwrap().len(), 1500);
}

#[test]
fn conversions_are_deterministic() {
    let input: Value = serde_json::from_str(include_str!("../canonical/mixed.json")).unwrap();
    for p in Provider::ALL {
        let a = convert(&input, Format::Mcp, p).unwrap();
        let b = convert(&input, Format::Mcp, p).unwrap();
        assert_eq!(
            serde_json::to_string(&a.value).unwrap(),
            serde_json::to_string(&b.value).unwrap()
        );
        assert_eq!(lines(&a.warnings), lines(&b.warnings));
    }
}

fn example(name: &str) -> LoadedCommands {
    let path = support::workspace()
        .join("examples/atip")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(path).unwrap();
    let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    LoadedCommands::new(doc, None)
}

/// Where two JSON values first differ, for a readable failure.
fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => {
                        if let Some(d) = first_difference(u, v, format!("{at}/{k}")) {
                            return Some(d);
                        }
                    }
                    (u, v) => return Some(format!("{at}/{k}: {u:?} vs {v:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (u, v))| first_difference(u, v, format!("{at}/{i}"))),
        _ if a == b => None,
        _ => Some(format!("{at}: {a} vs {b}")),
    }
}

#[test]
fn atip_conversion_agrees_with_the_compiler() {
    for name in ["git", "ls", "cat", "wc", "mkdir", "rm", "sleep", "seq"] {
        let tool = example(name);
        let tools = from_atip(tool.document());
        assert_eq!(tools.len(), tool.specs().len());
        for p in Provider::ALL {
            let converted = write(&tools, p, true).unwrap();
            let mut compiled = tool_definitions(tool.specs(), p);
            if p == Provider::Gemini {
                // The compiler leaves `additionalProperties: false` out of Gemini's schemas;
                // conversion keeps it (Gemini's `Schema` has the field).
                for (decl, ours) in compiled
                    .as_array_mut()
                    .unwrap()
                    .iter_mut()
                    .zip(converted.value.as_array().unwrap())
                {
                    if let Some(params) = decl.get_mut("parameters") {
                        assert_eq!(ours["parameters"]["additionalProperties"], false);
                        params["additionalProperties"] = json!(false);
                    }
                }
            }
            if let Some(diff) = first_difference(&converted.value, &compiled, String::new()) {
                panic!("{name} as {}: {diff}", p.as_str());
            }
            for w in &converted.warnings {
                // Only Gemini's string enums are worth a word.
                assert!(w.to_string().contains("with its values as strings"), "{w}");
            }
        }
    }
    let rm = &from_atip(example("rm").document())[0];
    assert_eq!(rm.id(), "rm:rm");
    assert_eq!(rm.source_format, Some(Format::Atip));
    assert_eq!(
        rm.source_meta.effects.as_ref().unwrap()["destructive"],
        true
    );
    let log = from_atip(example("git").document())
        .into_iter()
        .find(|t| t.name == "git_log")
        .unwrap();
    assert_eq!(log.timeout, Some(std::time::Duration::from_secs(30)));
    assert_eq!(log.version.as_deref(), Some("2.47.3"));
    // Read from JSON, the same.
    let text =
        std::fs::read_to_string(support::workspace().join("examples/atip/git.json")).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    let via_read = read(&value, Format::Atip).unwrap();
    assert!(via_read.many);
    assert_eq!(via_read.tools, from_atip(example("git").document()));
}

#[test]
fn canonical_tools_built_in_code_validate_and_serialise() {
    let mut input = SchemaObject {
        schema_type: Some(SchemaType::Single(InstanceType::Object)),
        ..SchemaObject::default()
    };
    input.properties = Some([("q".to_owned(), Schema::of_type(InstanceType::String))].into());
    let mut tool = CanonicalTool::new("search", input);
    tool.namespace = Some("web".into());
    tool.timeout = Some(std::time::Duration::from_millis(1500));
    assert_eq!(tool.id(), "web:search");
    assert_eq!(tool.validate(), Ok(()));
    let json = serde_json::to_value(&tool).unwrap();
    assert_eq!(
        json["inputSchema"]["properties"]["q"],
        json!({"type": "string"})
    );
    assert_eq!(json["timeoutMs"], 1500);
    let back: CanonicalTool = serde_json::from_value(json).unwrap();
    assert_eq!(back, tool);
    let (def, warnings) = tool.to_definition(Provider::Anthropic).unwrap();
    assert_eq!(
        def,
        json!({"name": "search", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}})
    );
    assert!(warnings.is_empty());

    let mut nameless = tool.clone();
    nameless.name.clear();
    assert_eq!(nameless.validate(), Err(InvalidTool::EmptyName));
    let mut scalar = tool.clone();
    scalar.input_schema.schema_type = Some(SchemaType::Single(InstanceType::String));
    assert!(scalar
        .validate()
        .unwrap_err()
        .to_string()
        .contains("has type string"));
    // A loss from a tool built in code says so.
    let mut one_of = tool;
    one_of.input_schema.one_of = Some(vec![Schema::any()]);
    let (_, warnings) = one_of.to_definition(Provider::OpenAi).unwrap();
    let loss = warnings[0].as_loss().unwrap();
    assert_eq!(loss.from, None);
    assert!(matches!(loss.resolution, Resolution::Rewritten(_)));
    assert!(warnings[0].to_string().contains("canonical to openai"));
}
