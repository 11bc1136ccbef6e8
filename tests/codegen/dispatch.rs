//! Generated schemas and typed dispatch against the run-time path on the same metadata:
//! byte-identical provider JSON, identical `ToolSpec`s, and the same argv or the same errors
//! for the same tool call.

use std::path::Path;

use atip_runtime::providers::{tool_definition, tool_definitions_json, Provider};
use atip_runtime::{
    tool::ValueKind, Command, Document, FlattenOptions, LoadOptions, LoadedCommands, ToInvocation,
    ToolCall, ToolSpec,
};
use atip_tests::git::SetGlobals;
use atip_tests::{git, ls, weird};
use serde_json::{json, Map, Value};

fn loaded(file: &str) -> LoadedCommands {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    LoadedCommands::new(doc, None)
}

/// `git` again, with every provider's definitions generated as constants.
mod git_with_schemas {
    atip_runtime::include_atip!(
        "../examples/atip/git.json",
        schemas = [
            "openai",
            "openai-strict",
            "openai-responses",
            "openai-responses-strict",
            "anthropic",
            "gemini",
            "mcp"
        ]
    );
}

#[test]
fn generated_definitions_are_byte_identical_to_the_run_time_path() {
    for (file, tools, definitions) in [
        (
            "examples/atip/git.json",
            git::TOOLS.as_slice(),
            git::definitions as fn(Provider) -> &'static str,
        ),
        (
            "examples/atip/ls.json",
            ls::TOOLS.as_slice(),
            ls::definitions,
        ),
        (
            "tests/fixtures/adversarial.json",
            weird::TOOLS.as_slice(),
            weird::definitions,
        ),
    ] {
        let rt = loaded(file);
        assert_eq!(
            tools,
            rt.specs(),
            "{file}: generated spec table == ToolSpec::from_flat"
        );
        for provider in Provider::ALL {
            let text = definitions(provider);
            assert_eq!(
                text,
                tool_definitions_json(rt.specs(), provider),
                "{file} {}",
                provider.as_str()
            );
            assert_eq!(text, rt.definitions_json(provider), "{file}");
            // Computed once, then the same text.
            assert!(std::ptr::eq(text, definitions(provider)));
        }
    }
}

#[test]
fn schemas_option_generates_the_same_json_as_constants() {
    use git_with_schemas::schemas;
    for (provider, text) in [
        (Provider::OpenAi, schemas::OPENAI),
        (Provider::OpenAiStrict, schemas::OPENAI_STRICT),
        (Provider::OpenAiResponses, schemas::OPENAI_RESPONSES),
        (
            Provider::OpenAiResponsesStrict,
            schemas::OPENAI_RESPONSES_STRICT,
        ),
        (Provider::Anthropic, schemas::ANTHROPIC),
        (Provider::Gemini, schemas::GEMINI),
        (Provider::Mcp, schemas::MCP),
    ] {
        assert_eq!(text, git::definitions(provider), "{}", provider.as_str());
    }
}

#[test]
fn one_command_definition_comes_from_its_tool_spec() {
    let v = tool_definition(git::Clean::tool(), Provider::Anthropic);
    assert_eq!(v["name"], json!("git_clean"));
    assert!(v["description"]
        .as_str()
        .unwrap()
        .ends_with("[⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE]"));
    let v = tool_definition(git::Clean::tool(), Provider::Mcp);
    assert_eq!(
        v["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false})
    );
    let v = tool_definition(ls::Ls::tool(), Provider::OpenAi);
    assert!(v["function"]["description"]
        .as_str()
        .unwrap()
        .ends_with("[🔒 READ-ONLY]"));
    // The array is the definitions joined.
    let all: Value = serde_json::from_str(git::definitions(Provider::Mcp)).unwrap();
    let i = git::Call::NAMES
        .iter()
        .position(|n| *n == "git_clean")
        .unwrap();
    assert_eq!(all[i], tool_definition(git::Clean::tool(), Provider::Mcp));
}

fn call(name: &str, args: Value) -> ToolCall {
    let Value::Object(m) = args else { panic!() };
    ToolCall::new(Some("id".into()), name, m)
}

#[test]
fn typed_dispatch_returns_the_command() {
    let c = git::Call::from_tool_call(&call(
        "git_commit",
        json!({"message": "Fix", "all": true, "no_verify": null, "no_pager": true}),
    ))
    .unwrap();
    assert_eq!(
        c,
        git::Call::Commit(git::Commit::new("Fix").all(true).no_pager(true))
    );
    let c =
        git::Call::from_tool_call(&call("git_status", json!({"untracked_files": "no"}))).unwrap();
    assert_eq!(c.argv(), ["git", "status", "--untracked-files=no"]);
    let err =
        git::Call::from_tool_call(&call("git_commit", json!({"all": "maybe", "force": true})))
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool call `git_commit`: unknown parameter `force`; parameter `message` is required: a string; \
         parameter `all`: expected a boolean, found string \"maybe\""
    );
    let err = git::Call::from_tool_call(&call("git-commit", json!({}))).unwrap_err();
    assert!(err.to_string().contains("did you mean `git_commit`?"));
    // Two edits away: a hint, never a dispatch.
    let err = git::Call::from_tool_call(&call("git_stash_drop", json!({}))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool call `git_stash_drop`: no tool of that name; did you mean `git_stash_pop`?"
    );
    let err = git::Call::from_tool_call(&call("git_blame", json!({}))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool call `git_blame`: no tool of that name"
    );
}

/// A small deterministic generator of argument objects, valid and invalid.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }

    fn value(&mut self, p: &atip_runtime::ParamSpec) -> Value {
        let strings = [
            "a",
            "-rf",
            "--amend",
            "x y",
            "ümlaut",
            "$(id)",
            "",
            "https://example.com/x",
            "42",
        ];
        let one = |g: &mut Gen| -> Value {
            if g.next().is_multiple_of(10) {
                // Occasionally a wrong type.
                return g
                    .pick(&[
                        json!(null),
                        json!({"o": 1}),
                        json!(true),
                        json!(2.5),
                        json!("not-a-number"),
                    ])
                    .clone();
            }
            match (&p.values, p.kind) {
                (Some(v), ValueKind::Integer | ValueKind::Number) => {
                    json!(g.pick(v).parse::<f64>().unwrap() as i64)
                }
                (Some(v), _) => json!(g.pick(v).to_string()),
                (None, ValueKind::Integer) => json!(*g.pick(&[0_i64, -3, 7, i64::MAX])),
                (None, ValueKind::Number) => json!(*g.pick(&[0.5_f64, -1.0, 1e21, 3.0])),
                (None, ValueKind::Boolean) => json!(g.next().is_multiple_of(2)),
                (None, ValueKind::Url) => {
                    json!(*g.pick(&["https://example.com/a", "ftp://h/p", "no scheme"]))
                }
                (None, _) => json!(*g.pick(&strings)),
            }
        };
        if p.multiple {
            let n = self.next() % 3;
            Value::Array((0..n).map(|_| one(self)).collect())
        } else {
            one(self)
        }
    }

    fn args(&mut self, spec: &ToolSpec) -> Map<String, Value> {
        let mut m = Map::new();
        for p in spec.params.iter() {
            if p.required || self.next().is_multiple_of(2) {
                m.insert(p.name.to_string(), self.value(p));
            }
        }
        if self.next().is_multiple_of(15) {
            m.insert("unexpected".into(), json!(1));
        }
        m
    }
}

fn strings(argv: Vec<std::ffi::OsString>) -> Vec<String> {
    argv.into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn typed_and_untyped_dispatch_agree_on_argv_and_errors() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let mut compared = 0;
    let mut accepted = 0;
    for (file, tools) in [
        ("examples/atip/git.json", git::TOOLS.as_slice()),
        ("tests/fixtures/adversarial.json", weird::TOOLS.as_slice()),
    ] {
        let rt = loaded(file);
        for spec in tools {
            for _ in 0..40 {
                let c = ToolCall::new(Some("id".into()), spec.name.to_string(), g.args(spec));
                let untyped = rt.invocation(&c);
                let typed = if file.contains("git") {
                    git::Call::from_tool_call(&c)
                        .map_err(|e| e.to_string())
                        .and_then(|t| t.to_invocation().map_err(|e| format!("{e}")))
                } else {
                    weird::Call::from_tool_call(&c)
                        .map_err(|e| e.to_string())
                        .and_then(|t| t.to_invocation().map_err(|e| format!("{e}")))
                };
                match (typed, untyped) {
                    (Ok(t), Ok(u)) => {
                        assert_eq!(
                            strings(t.argv),
                            strings(u.argv),
                            "{} {:?}",
                            spec.name,
                            c.arguments
                        );
                        assert_eq!(t.effects, u.effects);
                        accepted += 1;
                    }
                    (Err(t), Err(u)) => {
                        // Argument problems read the same; argv problems (NUL, URL) are
                        // reported by the typed path when building the argv.
                        if !u.problems.iter().any(|p| {
                            matches!(p, atip_runtime::command::dispatch::Problem::Argv { .. })
                        }) {
                            assert_eq!(t, u.to_string(), "{}", spec.name);
                        }
                    }
                    (t, u) => panic!(
                        "{}: typed {t:?} vs untyped {u:?} for {:?}",
                        spec.name, c.arguments
                    ),
                }
                compared += 1;
            }
        }
    }
    assert!(
        compared > 1000 && accepted > 200,
        "compared {compared}, accepted {accepted}"
    );
}

/// The arguments object as a provider might write it: compact or spaced, and now and then a
/// key written with an escape or given twice (the last value counts), and texts that are not
/// usable objects at all.
fn texts(g: &mut Gen, args: &Map<String, Value>) -> Vec<String> {
    let mut out = vec![
        serde_json::to_string(args).unwrap(),
        serde_json::to_string_pretty(args).unwrap(),
    ];
    if let Some(k) = args.keys().next() {
        // The first key again with another value, then with its first letter escaped.
        let mut dup = serde_json::to_string(args).unwrap();
        dup.pop();
        let other = g.value_any();
        dup.push_str(&format!(",{}:{other}}}", json!(k)));
        out.push(dup);
        let first = k.chars().next().unwrap();
        let escaped = format!("\\u{:04x}{}", first as u32, &k[first.len_utf8()..]);
        let mut m = serde_json::to_string(args).unwrap();
        m = m.replacen(&format!("{}:", json!(k)), &format!("\"{escaped}\":"), 1);
        out.push(m);
    }
    out.extend(
        [
            "",
            "  ",
            "[]",
            "null",
            "\"text\"",
            "{",
            "{}",
            "{} x",
            "{\"a\":1,}",
            "{\"message\":\"x\\u0000\"}",
        ]
        .map(String::from),
    );
    out
}

impl Gen {
    fn value_any(&mut self) -> Value {
        self.pick(&[json!(null), json!(true), json!(3), json!("x"), json!(["a"])])
            .clone()
    }
}

#[test]
fn dispatch_from_text_equals_dispatch_of_the_parsed_call() {
    let mut g = Gen(0x2545_f491_4f6c_dd1d);
    let (mut compared, mut accepted) = (0, 0);
    for (file, tools) in [
        ("examples/atip/git.json", git::TOOLS.as_slice()),
        ("tests/fixtures/adversarial.json", weird::TOOLS.as_slice()),
    ] {
        let rt = loaded(file);
        for spec in tools.iter().chain([&ToolSpec {
            name: "no_such_tool".into(),
            ..tools[0].clone()
        }]) {
            for _ in 0..30 {
                let args = g.args(spec);
                for text in texts(&mut g, &args) {
                    let name = spec.name.as_ref();
                    let parsed = ToolCall::from_json_text(None, name, &text);
                    if file.contains("git") {
                        let direct = git::Call::from_json_text(name, &text);
                        accepted += usize::from(direct.is_ok());
                        assert_eq!(direct, git::Call::from_tool_call(&parsed), "{name} {text}");
                    } else {
                        assert_eq!(
                            weird::Call::from_json_text(name, &text),
                            weird::Call::from_tool_call(&parsed),
                            "{name} {text}"
                        );
                    }
                    assert_eq!(
                        rt.invocation_from_json_text(name, &text),
                        rt.invocation(&parsed),
                        "{name} {text}"
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(
        compared > 5000 && accepted > 300,
        "compared {compared}, accepted {accepted}"
    );
}

#[test]
fn dispatch_from_text_moves_escaped_and_coerced_values_into_the_command() {
    let text = r#"{"message":"line\nnext \u00fc","all":"true","author":"A <a@x>","no_pager":null}"#;
    let git::Call::Commit(c) = git::Call::from_json_text("git_commit", text).unwrap() else {
        panic!("not a commit");
    };
    assert_eq!(c.message, "line\nnext ü");
    assert!(c.all, "\"true\" is coerced to a boolean");
    assert_eq!(c.author.as_deref(), Some("A <a@x>"));
    assert!(!c.globals.no_pager);
    let e = git::Call::from_json_text("git_commit", r#"{"all":true,"bogus":1}"#).unwrap_err();
    assert_eq!(
        e.to_string(),
        git::Call::from_tool_call(&ToolCall::from_json_text(
            None,
            "git_commit",
            r#"{"all":true,"bogus":1}"#
        ))
        .unwrap_err()
        .to_string()
    );
    assert!(e.to_string().contains("bogus"), "{e}");
    assert!(e.to_string().contains("message"), "{e}");
}

#[test]
fn typed_dispatch_reports_every_problem_in_one_answer() {
    let err = weird::Call::from_tool_call(&call(
        "weird_enums",
        json!({"files": ["f"], "out": "o", "level": 9, "tags": [], "mode": "a\u{0}", "count": "ten"}),
    ))
    .unwrap_err();
    let text = err.to_string();
    assert_eq!(err.problems.len(), 3, "{text}");
    for param in ["level", "mode", "count"] {
        assert!(text.contains(&format!("`{param}`")), "{text}");
    }
    assert!(text.contains("NUL"), "{text}");
}

mod gh_env {
    atip_runtime::include_atip!("fixtures/auth-env.json");
}

#[test]
fn generated_commands_carry_the_environment_variables_they_declare() {
    use atip_runtime::{Command, ToInvocation};
    let names = |env: &[atip_runtime::Shared<str>]| -> Vec<String> {
        env.iter().map(|s| s.as_str().to_owned()).collect()
    };
    assert_eq!(names(gh_env::Api::ENV), ["GH_TOKEN", "GH_HOST"]);
    assert_eq!(names(gh_env::Status::ENV), ["GH_TOKEN"]);
    let inv = gh_env::Api::new().to_invocation().unwrap();
    assert_eq!(names(&inv.env), ["GH_TOKEN", "GH_HOST"]);
}
