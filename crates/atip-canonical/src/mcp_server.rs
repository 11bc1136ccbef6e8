//! An MCP server's tools as an ATIP document: what the generator and the loader read to type,
//! gate and dispatch them like commands ([`mcp_to_atip`]).

use serde_json::{json, Map, Value};

use atip_core::formats::is_tool_name;
use atip_core::{Effects, FilesystemEffects};

use super::schema::{InstanceType, Schema, SchemaObject};
use super::warning::{Feature, Resolution, Warning};
use super::{import, pointer, CanonicalTool, ConvertError, Converted, Format};

/// The effects an MCP tool's `annotations` claim, on the safe side. MCP's hints
/// (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`; MCP specification,
/// "Tool annotations") are the server's own claims: a hint that is absent is unknown here, not
/// the protocol's default, and unknown is what a policy asks a person about.
///
/// `readOnlyHint: true` — nothing destroyed, written or deleted; otherwise `destructiveHint`
/// as given; `idempotentHint` as given; `openWorldHint` as `network`. Absent hints, and hints
/// that are not booleans, stay unknown.
pub fn effects_of_annotations(annotations: Option<&Map<String, Value>>) -> Effects {
    let hint = |name: &str| {
        annotations
            .and_then(|a| a.get(name))
            .and_then(Value::as_bool)
    };
    let mut effects = Effects::UNKNOWN;
    if hint("readOnlyHint") == Some(true) {
        effects.destructive = Some(false);
        effects.filesystem = Some(FilesystemEffects {
            read: Some(true),
            write: Some(false),
            delete: Some(false),
            ..FilesystemEffects::default()
        });
    } else {
        effects.destructive = hint("destructiveHint");
    }
    effects.idempotent = hint("idempotentHint");
    effects.network = hint("openWorldHint");
    effects
}

/// The ATIP document of an MCP server's tools: one command per tool, named as the tool, its
/// effects from its annotations ([`effects_of_annotations`]), one option `--<property>` per
/// property of its input schema, and `x-atip-rust.mcp: true`, so a call of one of its commands
/// is a `tools/call` of the server `server` names, never a process (atip-core
/// `ToolExtension::mcp`).
///
/// `tools` is a saved `tools/list` result (`{"tools": […]}`, also with the `initialize`
/// result's `serverInfo` beside it), an array of MCP `Tool`s or one. `server` names the
/// server (`^[a-zA-Z0-9_-]+$`, the document's `name`: flattened names are
/// `<server>_<tool>`); `version` is its version (empty: `serverInfo.version`, else `0`).
///
/// What ATIP cannot type is reported as [`Warning`]s (to `None`, meaning ATIP), pointers into
/// `tools`:
///
/// | input | becomes |
/// |---|---|
/// | `string`, `integer`, `number`, `boolean` property | an option of that type |
/// | `enum` of strings | an `enum` option |
/// | `array` of scalars | an `array` option (values as text; the server gets its item type back) |
/// | `["string", "null"]`, `anyOf` with a `null` branch | the other type, rewritten |
/// | `boolean` with `default: true` | a flag: `true` or left out (the default), rewritten |
/// | `minimum`, `pattern`, `format`, … | in the option's description (the server enforces them) |
/// | optional `object`, union or nested array | dropped |
/// | a tool with a required one, or a name outside `[A-Za-z0-9_-]` (tool or property) | the tool dropped |
/// | a tool listed more than once | left out, every definition of it |
/// | names that become one (`a-b`, `a_b`), tools or properties | the first kept, the others dropped (a required property: its tool) |
///
/// # Errors
///
/// [`ConvertError::Invalid`] when `tools` is not MCP tool definitions or `server` is not a
/// valid ATIP tool name.
pub fn mcp_to_atip(tools: &Value, server: &str, version: &str) -> Result<Converted, ConvertError> {
    if !is_tool_name(server) {
        return Err(ConvertError::invalid(
            Format::Mcp,
            "",
            format!("the server's name {server:?} is no ATIP tool name (^[a-zA-Z0-9_-]+$)"),
        ));
    }
    let read = import::read(tools, Format::Mcp)?;
    let mut warnings = read.warnings;
    let version = match version {
        "" => tools
            .pointer("/serverInfo/version")
            .and_then(Value::as_str)
            .unwrap_or("0"),
        v => v,
    };
    let mut commands = Map::new();
    // Names listed more than once: which definition the server runs is unknown.
    let mut listed: std::collections::HashMap<&str, usize> = Default::default();
    for tool in &read.tools {
        *listed.entry(tool.name.as_str()).or_default() += 1;
    }
    // Flattened names taken, with the tool that took each.
    let mut flattened: std::collections::HashMap<String, String> = Default::default();
    for tool in &read.tools {
        let flat = atip_core::names::tool_name(server, &[tool.name.as_str()]);
        if flattened
            .get(&flat)
            .is_some_and(|first| *first != tool.name)
        {
            // `a-b` beside `a_b`: one flattened name, one command; the first keeps it.
            loss(
                &mut warnings,
                Feature::Name,
                pointer::push(&tool.source_meta.origin, "name"),
                Resolution::Dropped,
            );
            continue;
        }
        flattened.insert(flat, tool.name.clone());
        if listed[tool.name.as_str()] > 1 {
            // Listed twice: a client may show one entry and the server run the other, and
            // their parameters may differ too: no definition of it is believed.
            loss(
                &mut warnings,
                Feature::Tool,
                pointer::push(&tool.source_meta.origin, "name"),
                Resolution::Dropped,
            );
            continue;
        }
        if let Some(command) = command_of(tool, &mut warnings) {
            commands.insert(tool.name.clone(), command);
        }
    }
    let value = json!({
        "atip": {"version": "0.6"},
        "name": server,
        "version": version,
        "description": format!("Tools of the MCP server {server}"),
        "trust": {"source": "inferred", "verified": false},
        "x-atip-rust": {"mcp": true},
        "commands": commands,
    });
    Ok(Converted { value, warnings })
}

fn loss(warnings: &mut Vec<Warning>, feature: Feature, pointer: String, resolution: Resolution) {
    warnings.push(Warning::loss(
        feature,
        pointer,
        Some(Format::Mcp),
        None,
        resolution,
    ));
}

/// One tool's command, or `None` (said in `warnings`) when ATIP cannot call it.
fn command_of(tool: &CanonicalTool, warnings: &mut Vec<Warning>) -> Option<Value> {
    let at = &tool.source_meta.origin;
    if !is_tool_name(&tool.name) {
        loss(
            warnings,
            Feature::Name,
            pointer::push(at, "name"),
            Resolution::Dropped,
        );
        return None;
    }
    let schema_at = pointer::push(at, "inputSchema");
    let required = tool.input_schema.required.clone().unwrap_or_default();
    let mut options = Vec::new();
    let mut params = std::collections::HashSet::new();
    for (name, schema) in tool.input_schema.properties.iter().flatten() {
        let at = pointer::push(&pointer::push(&schema_at, "properties"), name);
        let is_required = required.contains(name);
        if !params.insert(atip_core::names::param_name(name)) {
            // `a-b` beside `a_b`: one parameter name for the model; the first keeps it.
            loss(warnings, Feature::Name, at.clone(), Resolution::Dropped);
            if is_required {
                loss(warnings, Feature::Tool, at, Resolution::Dropped);
                return None;
            }
            continue;
        }
        match option_of(name, schema, is_required, &at, warnings) {
            Some(option) => options.push(option),
            None if is_required => {
                loss(warnings, Feature::Tool, at, Resolution::Dropped);
                return None;
            }
            None => {}
        }
    }
    let description = tool
        .description
        .clone()
        .or_else(|| tool.source_meta.title.clone())
        .unwrap_or_else(|| tool.name.clone());
    let effects = effects_of_annotations(tool.source_meta.annotations.as_ref());
    Some(json!({
        "description": description,
        "effects": serde_json::to_value(effects).unwrap_or_else(|_| json!({})),
        "options": options,
    }))
}

/// The ATIP type of a scalar schema type.
fn scalar(t: InstanceType) -> Option<&'static str> {
    match t {
        InstanceType::String => Some("string"),
        InstanceType::Integer => Some("integer"),
        InstanceType::Number => Some("number"),
        InstanceType::Boolean => Some("boolean"),
        _ => None,
    }
}

/// The one non-null type of `schema`: its `type` without `null`, or the other branch of an
/// `anyOf`/`oneOf` with a `null` branch (the nullability is said in `warnings`).
fn single_type<'a>(
    schema: &'a SchemaObject,
    at: &str,
    warnings: &mut Vec<Warning>,
) -> Option<(InstanceType, &'a SchemaObject)> {
    if let Some(types) = &schema.schema_type {
        let non_null = types.non_null();
        if non_null.len() == 1 {
            if types.types().len() > 1 {
                loss(
                    warnings,
                    Feature::TypeUnion,
                    pointer::push(at, "type"),
                    Resolution::Rewritten("as its non-null type, left out for null".to_owned()),
                );
            }
            return Some((non_null[0], schema));
        }
        return None;
    }
    for (keyword, branches) in [("anyOf", &schema.any_of), ("oneOf", &schema.one_of)] {
        let Some(branches) = branches else { continue };
        let others: Vec<&SchemaObject> = branches
            .iter()
            .filter_map(Schema::as_object)
            .filter(|b| !b.has_type(InstanceType::Null) || b.schema_type.is_none())
            .collect();
        if branches.len() == 2 && others.len() == 1 {
            let branch = others[0];
            let t = branch.schema_type.as_ref()?.non_null();
            if t.len() == 1 {
                loss(
                    warnings,
                    Feature::Keyword(keyword.to_owned()),
                    pointer::push(at, keyword),
                    Resolution::Rewritten("as its non-null branch, left out for null".to_owned()),
                );
                return Some((t[0], branch));
            }
        }
    }
    None
}

/// The option of property `name`, or `None` (said in `warnings`) when ATIP cannot type it.
fn option_of(
    name: &str,
    schema: &Schema,
    required: bool,
    at: &str,
    warnings: &mut Vec<Warning>,
) -> Option<Value> {
    let dropped = |warnings: &mut Vec<Warning>, feature: Feature| {
        loss(warnings, feature, at.to_owned(), Resolution::Dropped);
    };
    if !is_tool_name(name) {
        dropped(warnings, Feature::Name);
        return None;
    }
    let Some(object) = schema.as_object() else {
        // `true`: anything goes, which no ATIP type says.
        dropped(warnings, Feature::Keyword("true".to_owned()));
        return None;
    };
    let Some((t, typed)) = single_type(object, at, warnings) else {
        dropped(warnings, Feature::TypeUnion);
        return None;
    };
    let mut option = Map::new();
    option.insert("name".into(), json!(name));
    option.insert("flags".into(), json!([format!("--{name}")]));
    let mut notes = Vec::new();
    let described = |keyword: &str| {
        !matches!(
            keyword,
            "type" | "description" | "title" | "default" | "enum" | "items" | "$schema"
        )
    };
    match (t, scalar(t)) {
        (_, Some(atip)) => {
            let strings: Option<Vec<&str>> = typed
                .enum_values
                .as_ref()
                .map(|values| values.iter().filter_map(Value::as_str).collect());
            match strings {
                Some(values)
                    if t == InstanceType::String
                        && !values.is_empty()
                        && Some(values.len()) == typed.enum_values.as_ref().map(Vec::len) =>
                {
                    option.insert("type".into(), json!("enum"));
                    option.insert("enum".into(), json!(values));
                }
                _ => {
                    option.insert("type".into(), json!(atip));
                    if let Some(values) = &typed.enum_values {
                        notes.push(format!("one of {}", Value::Array(values.clone())));
                    }
                }
            }
            if t == InstanceType::Boolean && typed.default == Some(Value::Bool(true)) {
                loss(
                    warnings,
                    Feature::Keyword("default".to_owned()),
                    pointer::push(at, "default"),
                    Resolution::Rewritten(
                        "as a flag: a call sends `true` or leaves it out (the server's default \
                         `true` then applies), never `false`"
                            .to_owned(),
                    ),
                );
            }
        }
        (InstanceType::Array, None) => {
            let item = typed.items.as_ref().and_then(Schema::as_object);
            let item_type = item
                .and_then(|i| i.schema_type.as_ref())
                .map(|t| t.non_null())
                .filter(|t| t.len() == 1)
                .and_then(|t| scalar(t[0]));
            let Some(item_type) = item_type else {
                dropped(warnings, Feature::Keyword("items".to_owned()));
                return None;
            };
            option.insert("type".into(), json!("array"));
            if item_type != "string" {
                notes.push(format!("each value a JSON {item_type}"));
            }
        }
        _ => {
            dropped(warnings, Feature::Keyword("type".to_owned()));
            return None;
        }
    }
    let text = typed.to_value();
    for (keyword, value) in text.as_object().into_iter().flatten() {
        if described(keyword) {
            notes.push(format!("{keyword}: {value}"));
            loss(
                warnings,
                Feature::Keyword(keyword.clone()),
                pointer::push(at, keyword),
                Resolution::Described,
            );
        }
    }
    let mut description = typed
        .description
        .clone()
        .or_else(|| object.description.clone())
        .unwrap_or_default();
    if !notes.is_empty() {
        if !description.is_empty() {
            description.push(' ');
        }
        description.push_str(&format!("({})", notes.join("; ")));
    }
    option.insert("description".into(), json!(description));
    if required {
        option.insert("required".into(), json!(true));
    }
    if let Some(default) = &typed.default {
        if !default.is_null() {
            option.insert("default".into(), default.clone());
        }
    }
    Some(Value::Object(option))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_hints_are_unknown_and_read_only_means_nothing_written() {
        let hints = |v: Value| effects_of_annotations(v.as_object());
        assert_eq!(effects_of_annotations(None), Effects::UNKNOWN);
        assert_eq!(hints(json!({})), Effects::UNKNOWN);
        let read = hints(json!({"readOnlyHint": true, "openWorldHint": false}));
        assert_eq!(read.destructive, Some(false));
        assert_eq!(read.filesystem_write(), Some(false));
        assert_eq!(read.network, Some(false));
        // A destructive hint beside a read-only one is meaningless (MCP): read-only wins.
        let both = hints(json!({"readOnlyHint": true, "destructiveHint": true}));
        assert_eq!(both.destructive, Some(false));
        let writer = hints(json!({"readOnlyHint": false, "destructiveHint": false}));
        assert_eq!(writer.destructive, Some(false));
        assert_eq!(writer.filesystem, None);
        let wrong = hints(json!({"readOnlyHint": "yes", "destructiveHint": 0}));
        assert_eq!(wrong, Effects::UNKNOWN);
    }

    fn tools() -> Value {
        json!({"serverInfo": {"name": "files", "version": "1.2.0"}, "tools": [
            {"name": "read_file", "description": "Read a file",
             "annotations": {"readOnlyHint": true},
             "inputSchema": {"type": "object", "required": ["path"], "properties": {
                "path": {"type": "string", "description": "Where"},
                "head": {"type": ["integer", "null"], "minimum": 1},
                "mode": {"type": "string", "enum": ["text", "base64"]},
                "paths": {"type": "array", "items": {"type": "integer"}},
                "follow": {"type": "boolean", "default": true},
                "filter": {"type": "object", "properties": {}}
             }}},
            {"name": "search", "inputSchema": {"type": "object", "required": ["q"],
             "properties": {"q": {"type": "object"}}}},
            {"name": "bad.name", "inputSchema": {"type": "object"}},
            {"name": "purge", "inputSchema": {"type": "object", "required": ["q"],
             "properties": {"q": {"type": "object"}}}},
            {"name": "purge", "annotations": {"readOnlyHint": true},
             "inputSchema": {"type": "object"}},
            {"name": "two", "inputSchema": {"type": "object", "properties": {
                "dry-run": {"type": "boolean"}, "dry_run": {"type": "string"}}}}
        ]})
    }

    #[test]
    fn a_tool_list_becomes_a_document_of_its_server_with_every_loss_said() {
        let out = mcp_to_atip(&tools(), "files", "").unwrap();
        let doc = &out.value;
        assert_eq!(doc["name"], "files");
        assert_eq!(doc["version"], "1.2.0");
        assert_eq!(doc["x-atip-rust"], json!({"mcp": true}));
        let commands = doc["commands"].as_object().unwrap();
        // `purge`, listed twice (the first definition one ATIP cannot type, the second
        // read-only), is left out whatever either claims.
        assert_eq!(commands.keys().collect::<Vec<_>>(), ["read_file", "two"]);
        // Two properties that become one parameter name: the first kept.
        assert_eq!(commands["two"]["options"].as_array().unwrap().len(), 1);
        assert_eq!(commands["two"]["options"][0]["name"], "dry-run");
        let read = &commands["read_file"];
        assert_eq!(read["effects"]["destructive"], false);
        assert_eq!(read["effects"]["filesystem"]["write"], false);
        let options = read["options"].as_array().unwrap();
        let names: Vec<&str> = options
            .iter()
            .map(|o| o["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["path", "head", "mode", "paths", "follow"]);
        assert_eq!(options[0]["flags"], json!(["--path"]));
        assert_eq!(options[0]["required"], true);
        assert_eq!(options[1]["type"], "integer");
        assert_eq!(options[1]["description"], "(minimum: 1)");
        assert_eq!(options[2]["type"], "enum");
        assert_eq!(options[2]["enum"], json!(["text", "base64"]));
        assert_eq!(options[3]["type"], "array");
        assert_eq!(options[4]["type"], "boolean");
        let said: Vec<String> = out.warnings.iter().map(ToString::to_string).collect();
        let has = |needle: &str| said.iter().any(|w| w.contains(needle));
        assert!(
            has("/tools/0/inputSchema/properties/head/type: a type union, mcp to atip: rewritten"),
            "{said:#?}"
        );
        assert!(has("/tools/0/inputSchema/properties/head/minimum: `minimum`, mcp to atip: moved into the description"), "{said:#?}");
        assert!(
            has("/tools/0/inputSchema/properties/follow/default"),
            "{said:#?}"
        );
        assert!(
            has("/tools/0/inputSchema/properties/filter: `type`, mcp to atip: dropped"),
            "{said:#?}"
        );
        assert!(
            has("/tools/1/inputSchema/properties/q: the tool, mcp to atip: dropped"),
            "{said:#?}"
        );
        assert!(
            has("/tools/2/name: the name, mcp to atip: dropped"),
            "{said:#?}"
        );
        for i in [3, 4] {
            assert!(
                has(&format!("/tools/{i}/name: the tool, mcp to atip: dropped")),
                "{said:#?}"
            );
        }
    }

    #[test]
    fn the_document_loads_and_says_its_commands_are_a_servers() {
        let out = mcp_to_atip(&tools(), "files", "").unwrap();
        let text = out.value.to_string();
        let doc =
            atip_core::Document::parse(&text, &Default::default(), &Default::default()).unwrap();
        assert!(doc.tool.is_mcp_server());
        assert_eq!(doc.commands[0].name, "files_read_file");
    }

    #[test]
    fn a_name_that_is_no_tool_name_is_an_error() {
        for bad in ["", "my server", "a/b"] {
            assert!(mcp_to_atip(&tools(), bad, "1").is_err(), "{bad:?}");
        }
        assert!(mcp_to_atip(&json!({"nope": 1}), "files", "1").is_err());
    }
}
