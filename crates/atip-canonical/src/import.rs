//! Reading definitions of each format into [`CanonicalTool`]s.

use serde_json::{Map, Value};

use super::schema::{self, describe_json, InstanceType, Repair, Schema, SchemaObject, SchemaType};
use super::warning::{ConvertError, Warning};
use super::{pointer, CanonicalTool, Format, Read, SourceMeta};
use atip_core::providers::{tool_definition, Provider};

/// MCP annotation hints, whose values are booleans.
const MCP_HINTS: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

pub(crate) fn read(value: &Value, format: Format) -> Result<Read, ConvertError> {
    let mut warnings = Vec::new();
    if format == Format::Atip {
        let text = serde_json::to_string(value).unwrap_or_default();
        let doc = atip_core::Document::parse(
            &text,
            &atip_core::LoadOptions::strict(),
            &atip_core::FlattenOptions::default(),
        )
        .map_err(|e| ConvertError::invalid(format, "", e.to_string()))?;
        return Ok(Read {
            tools: atip(&doc),
            warnings,
            many: true,
        });
    }
    let mut tools = Vec::new();
    let many = match (value, format) {
        (Value::Array(items), _) => {
            for (i, item) in items.iter().enumerate() {
                let at = format!("/{i}");
                match gemini_wrapper(item, format) {
                    Some((key, decls)) => {
                        for (j, d) in decls.iter().enumerate() {
                            let at = pointer::push(&pointer::push(&at, key), &j.to_string());
                            tools.push(definition(d, format, &at, &mut warnings)?);
                        }
                    }
                    None => tools.push(definition(item, format, &at, &mut warnings)?),
                }
            }
            true
        }
        (Value::Object(map), Format::Mcp) if map.get("tools").is_some_and(Value::is_array) => {
            let items = map["tools"].as_array().map(Vec::as_slice).unwrap_or(&[]);
            for (i, item) in items.iter().enumerate() {
                tools.push(definition(
                    item,
                    format,
                    &format!("/tools/{i}"),
                    &mut warnings,
                )?);
            }
            true
        }
        _ => match gemini_wrapper(value, format) {
            Some((key, decls)) => {
                for (j, d) in decls.iter().enumerate() {
                    let at = pointer::push(&pointer::push("", key), &j.to_string());
                    tools.push(definition(d, format, &at, &mut warnings)?);
                }
                true
            }
            None => {
                tools.push(definition(value, format, "", &mut warnings)?);
                false
            }
        },
    };
    Ok(Read {
        tools,
        warnings,
        many,
    })
}

/// A Gemini `Tool` (`{"functionDeclarations": [...]}`): the key and the declarations.
fn gemini_wrapper(value: &Value, format: Format) -> Option<(&'static str, &Vec<Value>)> {
    if format != Format::Gemini {
        return None;
    }
    let map = value.as_object()?;
    ["functionDeclarations", "function_declarations"]
        .into_iter()
        .find_map(|k| map.get(k).and_then(Value::as_array).map(|a| (k, a)))
}

/// Reads one definition found at `origin` in the input.
pub(crate) fn definition(
    value: &Value,
    format: Format,
    origin: &str,
    warnings: &mut Vec<Warning>,
) -> Result<CanonicalTool, ConvertError> {
    let mut reader = Reader {
        format,
        origin,
        warnings,
    };
    let map = value.as_object().ok_or_else(|| {
        reader.invalid(
            "",
            format!("expected a JSON object, got {}", describe_json(value)),
        )
    })?;
    let tool = match format {
        Format::Mcp => reader.mcp(map),
        Format::OpenAi => reader.openai(map),
        Format::OpenAiResponses => reader.responses(map),
        Format::Anthropic => reader.anthropic(map),
        Format::Gemini => reader.gemini(map),
        Format::Atip => Err(reader.invalid("", "ATIP documents are read whole")),
    }?;
    Ok(tool)
}

struct Reader<'a> {
    format: Format,
    origin: &'a str,
    warnings: &'a mut Vec<Warning>,
}

/// The fields of an envelope as read so far.
struct Envelope {
    name: String,
    description: Option<String>,
    meta: SourceMeta,
}

impl Reader<'_> {
    fn invalid(&self, at: &str, reason: impl Into<String>) -> ConvertError {
        ConvertError::invalid(self.format, &format!("{}{at}", self.origin), reason)
    }

    fn repair(&mut self, at: &str, problem: impl Into<String>, fix: impl Into<String>) {
        self.warnings.push(Warning::Repaired {
            format: self.format,
            repair: Repair {
                pointer: format!("{}{at}", self.origin),
                problem: problem.into(),
                fix: fix.into(),
            },
        });
    }

    /// `name`, required, a non-empty string.
    fn name(&self, map: &Map<String, Value>, at: &str) -> Result<String, ConvertError> {
        match map.get("name") {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(Value::String(_)) => Err(self.invalid(&format!("{at}/name"), "`name` is empty")),
            Some(other) => Err(self.invalid(
                &format!("{at}/name"),
                format!("`name` must be a string, got {}", describe_json(other)),
            )),
            None => Err(self.invalid(
                at,
                format!("`name` is missing{}", looks_like(map, self.format)),
            )),
        }
    }

    /// An optional string field; another type is dropped with a repair.
    fn text(&mut self, map: &Map<String, Value>, key: &str, at: &str) -> Option<String> {
        match map.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.repair(
                    &pointer::push(at, key),
                    format!("`{key}` is {}, not a string", describe_json(other)),
                    "dropped",
                );
                None
            }
        }
    }

    /// An optional boolean field; `"true"`/`"false"` are read as booleans, anything else is
    /// dropped, each with a repair.
    fn flag(&mut self, map: &Map<String, Value>, key: &str, at: &str) -> Option<bool> {
        let value = map.get(key)?;
        let at = pointer::push(at, key);
        match value {
            Value::Null => None,
            Value::Bool(b) => Some(*b),
            Value::String(s) if s == "true" || s == "false" => {
                self.repair(
                    &at,
                    format!("`{key}` is the string {s:?}, not a boolean"),
                    format!("read as {s}"),
                );
                Some(s == "true")
            }
            other => {
                self.repair(
                    &at,
                    format!("`{key}` is {}, not a boolean", describe_json(other)),
                    "dropped",
                );
                None
            }
        }
    }

    /// Reads a JSON Schema at `at` (relative to the definition), reporting repairs.
    fn schema(&mut self, value: &Value, at: &str) -> Schema {
        let mut repairs = Vec::new();
        let s = schema::read(value, "", &mut repairs);
        for mut r in repairs {
            r.pointer.insert_str(0, &format!("{}{at}", self.origin));
            self.warnings.push(Warning::Repaired {
                format: self.format,
                repair: r,
            });
        }
        s
    }

    /// Reads an input schema: an object schema whose root is `type: object`. A missing type
    /// (a schema holding only `$schema`, say) or a type union listing `object` is repaired; any
    /// other root type cannot describe arguments.
    fn input_schema(&mut self, value: &Value, at: &str) -> Result<SchemaObject, ConvertError> {
        if !value.is_object() {
            return Err(self.invalid(
                at,
                format!(
                    "the input schema must be a JSON object, got {}",
                    describe_json(value)
                ),
            ));
        }
        let mut o = match self.schema(value, at) {
            Schema::Object(o) => *o,
            Schema::Bool(_) => SchemaObject::default(),
        };
        self.root_object(&mut o, at)?;
        Ok(o)
    }

    fn root_object(&mut self, o: &mut SchemaObject, at: &str) -> Result<(), ConvertError> {
        match &o.schema_type {
            Some(SchemaType::Single(InstanceType::Object)) => Ok(()),
            None => {
                self.repair(at, "the input schema has no `type`", "set to \"object\"");
                o.schema_type = Some(SchemaType::Single(InstanceType::Object));
                let pos = usize::from(o.key_order.first().is_some_and(|k| k == "$schema"));
                let len = o.key_order.len();
                o.key_order.insert(pos.min(len), "type".to_owned());
                Ok(())
            }
            Some(t) if t.contains(InstanceType::Object) => {
                self.repair(
                    &format!("{at}/type"),
                    "the input schema's type is a union; arguments are always an object",
                    "set to \"object\"",
                );
                o.schema_type = Some(SchemaType::Single(InstanceType::Object));
                Ok(())
            }
            Some(t) => {
                let names: Vec<&str> = t.types().iter().map(|t| t.as_str()).collect();
                Err(self.invalid(
                    &format!("{at}/type"),
                    format!(
                        "the input schema must describe an object (arguments are named), not {}",
                        names.join(" | ")
                    ),
                ))
            }
        }
    }

    /// Name, description and the rest of an envelope; `known` fields are read by the caller,
    /// everything else is kept verbatim in `SourceMeta::fields`.
    fn envelope(
        &mut self,
        map: &Map<String, Value>,
        at: &str,
        known: &[&str],
    ) -> Result<Envelope, ConvertError> {
        let name = self.name(map, at)?;
        let description = self.text(map, "description", at);
        let mut meta = SourceMeta {
            key_order: map.keys().cloned().collect(),
            origin: self.origin.to_owned(),
            ..SourceMeta::default()
        };
        for (k, v) in map {
            if k != "name" && k != "description" && !known.contains(&k.as_str()) {
                meta.fields.insert(k.clone(), v.clone());
            }
        }
        Ok(Envelope {
            name,
            description,
            meta,
        })
    }

    fn tool(&self, e: Envelope, input: SchemaObject, output: Option<Schema>) -> CanonicalTool {
        let mut tool = CanonicalTool::new(e.name, input);
        tool.description = e.description;
        tool.output_schema = output;
        tool.source_format = Some(self.format);
        tool.source_meta = e.meta;
        tool
    }

    fn mcp(&mut self, map: &Map<String, Value>) -> Result<CanonicalTool, ConvertError> {
        let known = [
            "title",
            "inputSchema",
            "outputSchema",
            "annotations",
            "input_schema",
        ];
        let mut e = self.envelope(map, "", &known)?;
        let input = match (map.get("inputSchema"), map.get("input_schema")) {
            (Some(v), _) => {
                e.meta.input_pointer = "/inputSchema".to_owned();
                self.input_schema(v, "/inputSchema")?
            }
            (None, Some(v)) => {
                self.repair(
                    "/input_schema",
                    "snake_case `input_schema` (MCP spells it `inputSchema`)",
                    "read as inputSchema",
                );
                rename_key(&mut e.meta.key_order, "input_schema", "inputSchema");
                e.meta.input_pointer = "/input_schema".to_owned();
                self.input_schema(v, "/input_schema")?
            }
            (None, None) => {
                return Err(self.invalid(
                    "",
                    format!(
                        "`inputSchema` is missing (MCP requires it; a tool without arguments has \
                         {{\"type\": \"object\"}}){}",
                        looks_like(map, self.format)
                    ),
                ))
            }
        };
        e.meta.title = self.text(map, "title", "");
        e.meta.annotations = match map.get("annotations") {
            None | Some(Value::Null) => None,
            Some(Value::Object(a)) => Some(self.annotations(a)),
            Some(other) => {
                self.repair(
                    "/annotations",
                    format!("`annotations` is {}, not an object", describe_json(other)),
                    "dropped",
                );
                None
            }
        };
        let output = self.output(map, "outputSchema", &mut e.meta);
        Ok(self.tool(e, input, output))
    }

    /// MCP annotations: hints must be booleans (`"true"` is read as `true`), `title` a string;
    /// any other key is kept as it is.
    fn annotations(&mut self, a: &Map<String, Value>) -> Map<String, Value> {
        let mut out = Map::new();
        for (k, v) in a {
            if MCP_HINTS.contains(&k.as_str()) {
                if let Some(b) = self.flag(a, k, "/annotations") {
                    out.insert(k.clone(), Value::Bool(b));
                }
            } else if k == "title" {
                if let Some(t) = self.text(a, k, "/annotations") {
                    out.insert(k.clone(), Value::String(t));
                }
            } else {
                out.insert(k.clone(), v.clone());
            }
        }
        out
    }

    /// An optional output schema under `key`.
    fn output(
        &mut self,
        map: &Map<String, Value>,
        key: &str,
        meta: &mut SourceMeta,
    ) -> Option<Schema> {
        match map.get(key) {
            None | Some(Value::Null) => None,
            Some(v @ (Value::Object(_) | Value::Bool(_))) => {
                meta.output_pointer = pointer::push("", key);
                Some(self.schema(v, &pointer::push("", key)))
            }
            Some(other) => {
                self.repair(
                    &pointer::push("", key),
                    format!("`{key}` is {}, not a schema", describe_json(other)),
                    "dropped",
                );
                None
            }
        }
    }

    /// Parameters that may be absent or `null` (no arguments): `{"type": "object"}`.
    fn optional_input(
        &mut self,
        map: &Map<String, Value>,
        key: &str,
        at: &str,
        meta: &mut SourceMeta,
    ) -> Result<SchemaObject, ConvertError> {
        let at = pointer::push(at, key);
        meta.input_pointer = at.clone();
        match map.get(key) {
            None | Some(Value::Null) => Ok(object_schema()),
            Some(v) => self.input_schema(v, &at),
        }
    }

    fn openai(&mut self, map: &Map<String, Value>) -> Result<CanonicalTool, ConvertError> {
        let function = match (map.get("type"), map.get("function")) {
            (Some(Value::String(t)), Some(Value::Object(f))) if t == "function" => f,
            (Some(Value::String(t)), _) if t != "function" => {
                return Err(
                    self.invalid("/type", format!("a `{t}` tool, not a function definition"))
                )
            }
            (None, Some(Value::Object(f))) => {
                self.repair("", "no `type`", "read as \"function\"");
                f
            }
            (_, Some(other)) => {
                return Err(self.invalid(
                    "/function",
                    format!("`function` must be an object, got {}", describe_json(other)),
                ))
            }
            (_, None) if map.contains_key("name") && !map.contains_key("type") => {
                self.repair(
                    "",
                    "a bare function object (the legacy `functions` shape)",
                    "read as the tool's `function`",
                );
                return self.openai_function(map, "");
            }
            (_, None) => {
                return Err(self.invalid(
                    "",
                    format!("`function` is missing{}", looks_like(map, self.format)),
                ))
            }
        };
        for k in map.keys().filter(|k| *k != "type" && *k != "function") {
            self.repair(
                &pointer::push("", k),
                format!("`{k}` is not a field of a Chat Completions tool"),
                "dropped",
            );
        }
        self.openai_function(function, "/function")
    }

    fn openai_function(
        &mut self,
        f: &Map<String, Value>,
        at: &str,
    ) -> Result<CanonicalTool, ConvertError> {
        let mut e = self.envelope(f, at, &["parameters", "strict"])?;
        let input = self.optional_input(f, "parameters", at, &mut e.meta)?;
        e.meta.strict = self.flag(f, "strict", at);
        Ok(self.tool(e, input, None))
    }

    fn responses(&mut self, map: &Map<String, Value>) -> Result<CanonicalTool, ConvertError> {
        match map.get("type") {
            Some(Value::String(t)) if t == "function" => {}
            Some(Value::String(t)) => {
                return Err(
                    self.invalid("/type", format!("a `{t}` tool, not a function definition"))
                )
            }
            Some(other) => {
                return Err(self.invalid(
                    "/type",
                    format!("`type` must be \"function\", got {}", describe_json(other)),
                ))
            }
            None if map.contains_key("function") => return Err(self.invalid(
                "",
                "a nested `function` object: this is the Chat Completions shape (--from openai)",
            )),
            None => self.repair("", "no `type`", "read as \"function\""),
        }
        let mut e = self.envelope(map, "", &["type", "parameters", "strict", "output_schema"])?;
        let input = self.optional_input(map, "parameters", "", &mut e.meta)?;
        e.meta.strict = self.flag(map, "strict", "");
        let output = self.output(map, "output_schema", &mut e.meta);
        Ok(self.tool(e, input, output))
    }

    fn anthropic(&mut self, map: &Map<String, Value>) -> Result<CanonicalTool, ConvertError> {
        match map.get("type") {
            None | Some(Value::Null) => {}
            Some(Value::String(t)) if t == "custom" => {}
            Some(Value::String(t)) => {
                return Err(self.invalid(
                    "/type",
                    format!(
                        "a `{t}` tool (Anthropic-defined or server tool), not a custom tool \
                         definition"
                    ),
                ))
            }
            Some(other) => {
                return Err(self.invalid(
                    "/type",
                    format!(
                        "`type` must be \"custom\" or absent, got {}",
                        describe_json(other)
                    ),
                ))
            }
        }
        let mut e = self.envelope(map, "", &["input_schema", "inputSchema", "strict"])?;
        let input = match (map.get("input_schema"), map.get("inputSchema")) {
            (Some(v), _) => {
                e.meta.input_pointer = "/input_schema".to_owned();
                self.input_schema(v, "/input_schema")?
            }
            (None, Some(v)) => {
                self.repair(
                    "/inputSchema",
                    "camelCase `inputSchema` (Anthropic spells it `input_schema`)",
                    "read as input_schema",
                );
                rename_key(&mut e.meta.key_order, "inputSchema", "input_schema");
                e.meta.input_pointer = "/inputSchema".to_owned();
                self.input_schema(v, "/inputSchema")?
            }
            (None, None) => {
                return Err(self.invalid(
                    "",
                    format!("`input_schema` is missing{}", looks_like(map, self.format)),
                ))
            }
        };
        e.meta.strict = self.flag(map, "strict", "");
        Ok(self.tool(e, input, None))
    }

    fn gemini(&mut self, map: &Map<String, Value>) -> Result<CanonicalTool, ConvertError> {
        const PARAMS: [&str; 4] = [
            "parameters",
            "parametersJsonSchema",
            "parameters_json_schema",
            "response",
        ];
        const MORE: [&str; 2] = ["responseJsonSchema", "response_json_schema"];
        let known: Vec<&str> = PARAMS.iter().chain(MORE.iter()).copied().collect();
        let mut e = self.envelope(map, "", &known)?;
        let json_schema = map
            .get("parametersJsonSchema")
            .map(|v| ("parametersJsonSchema", v))
            .or_else(|| {
                map.get("parameters_json_schema")
                    .map(|v| ("parameters_json_schema", v))
            });
        if map.contains_key("parameters") && json_schema.is_some() {
            return Err(self.invalid(
                "/parameters",
                "`parameters` and `parametersJsonSchema` are mutually exclusive",
            ));
        }
        let input = match (map.get("parameters"), json_schema) {
            (Some(Value::Null), _) | (None, None) => object_schema(),
            (Some(v), _) => {
                e.meta.input_pointer = "/parameters".to_owned();
                self.input_schema(&from_openapi(v), "/parameters")?
            }
            (None, Some((key, v))) => {
                e.meta.input_pointer = pointer::push("", key);
                self.input_schema(v, &e.meta.input_pointer.clone())?
            }
        };
        let output = match (map.get("response"), map.get("responseJsonSchema")) {
            (Some(v), _) if v.is_object() => {
                e.meta.output_pointer = "/response".to_owned();
                Some(self.schema(&from_openapi(v), "/response"))
            }
            _ => {
                let key = if map.contains_key("responseJsonSchema") {
                    "responseJsonSchema"
                } else {
                    "response_json_schema"
                };
                self.output(map, key, &mut e.meta)
            }
        };
        Ok(self.tool(e, input, output))
    }
}

/// `{"type": "object"}`: the input schema of a tool without arguments.
fn object_schema() -> SchemaObject {
    SchemaObject {
        schema_type: Some(SchemaType::Single(InstanceType::Object)),
        ..SchemaObject::default()
    }
}

fn rename_key(order: &mut [String], from: &str, to: &str) {
    for k in order.iter_mut().filter(|k| *k == from) {
        *k = to.to_owned();
    }
}

/// A hint naming the format `map` looks like, when that is not `format`.
fn looks_like(map: &Map<String, Value>, format: Format) -> String {
    let guess = if map.contains_key("function") {
        Some(Format::OpenAi)
    } else if map.contains_key("input_schema") {
        Some(Format::Anthropic)
    } else if map.contains_key("inputSchema") {
        Some(Format::Mcp)
    } else if map.contains_key("functionDeclarations") || map.contains_key("parametersJsonSchema") {
        Some(Format::Gemini)
    } else if map.get("type").and_then(Value::as_str) == Some("function") {
        Some(Format::OpenAiResponses)
    } else if map.contains_key("atip") || map.contains_key("commands") {
        Some(Format::Atip)
    } else {
        None
    };
    match guess {
        Some(g) if g != format => format!(
            " (this looks like {} input: --from {})",
            g.as_str(),
            g.as_str()
        ),
        _ => String::new(),
    }
}

/// Gemini's OpenAPI-subset `Schema` as JSON Schema: type names in lower case, integer and
/// number enums (which Gemini writes as strings) as numbers, and `format: "enum"` (Gemini's
/// marker for enums) dropped; `nullable` stays for the writer to turn into JSON Schema.
fn from_openapi(value: &Value) -> Value {
    let Value::Object(map) = value else {
        return value.clone();
    };
    let numeric = map
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.eq_ignore_ascii_case("integer") || t.eq_ignore_ascii_case("number"));
    let mut out = Map::new();
    for (k, v) in map {
        let v = match k.as_str() {
            "type" => match v {
                Value::String(t) => Value::String(t.to_ascii_lowercase()),
                other => other.clone(),
            },
            "format" if v == "enum" && map.contains_key("enum") => continue,
            "enum" if numeric => match v {
                Value::Array(items) => items
                    .iter()
                    .map(|i| match i {
                        Value::String(s) => serde_json::from_str::<serde_json::Number>(s)
                            .map(Value::Number)
                            .unwrap_or_else(|_| i.clone()),
                        other => other.clone(),
                    })
                    .collect(),
                other => other.clone(),
            },
            "example" => {
                out.insert("examples".to_owned(), Value::Array(vec![v.clone()]));
                continue;
            }
            "properties" => match v {
                Value::Object(props) => Value::Object(
                    props
                        .iter()
                        .map(|(name, s)| (name.clone(), from_openapi(s)))
                        .collect(),
                ),
                other => other.clone(),
            },
            "items" | "additionalProperties" => from_openapi(v),
            "anyOf" => match v {
                Value::Array(items) => items.iter().map(from_openapi).collect(),
                other => other.clone(),
            },
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    Value::Object(out)
}

/// ATIP commands as canonical tools, one per flattened command in declaration order.
///
/// Each spec is built as a loaded tool builds it with its default settings: from the flattened
/// command, every global option kept.
pub(crate) fn atip(document: &atip_core::Document) -> Vec<CanonicalTool> {
    let doc = &document.tool;
    document
        .commands
        .iter()
        .enumerate()
        .map(|(i, cmd)| {
            let spec = atip_core::ToolSpec::from_flat(&doc.name, cmd)
                .with_global_options(&atip_core::GlobalOptions::All);
            let mcp = tool_definition(&spec, Provider::Mcp);
            let mut ignored = Vec::new();
            let origin = format!("/{i}");
            let mut t = definition(&mcp, Format::Mcp, &origin, &mut ignored).unwrap_or_else(|_| {
                // The MCP form is compiled by this crate; reading it cannot fail.
                CanonicalTool::new(spec.name.to_string(), object_schema())
            });
            // The description's safety flags are written per target, from the effects.
            t.description = Some(spec.description.to_string()).filter(|d| !d.is_empty());
            t.namespace = Some(doc.name.clone());
            t.version = Some(doc.version.clone());
            t.timeout = spec
                .effects
                .timeout_hint()
                .and_then(|h| humantime::parse_duration(h).ok());
            t.source_format = Some(Format::Atip);
            t.source_meta.effects = serde_json::to_value(&spec.effects).ok();
            t.source_meta.safety_flags = atip_core::providers::tool_safety_flags(&spec);
            t
        })
        .collect()
}
