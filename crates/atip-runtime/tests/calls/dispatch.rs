//! Argument checking, untyped dispatch and action groups.

use atip_runtime::command::dispatch::{check_arguments, Problem};
use atip_runtime::{Document, FlattenOptions, LoadOptions, LoadedCommands, ToolCall, ToolGroup};
use serde_json::{json, Map, Value};

const TOOL: &str = r#"{
  "atip": {"version": "0.6"}, "name": "gh", "version": "2", "description": "GitHub CLI",
  "trust": {"source": "vendor"},
  "globalOptions": [{"name": "verbose", "flags": ["-v"], "type": "boolean", "description": "More output"}],
  "commands": {
    "pr": {"description": "Pull requests",
      "options": [{"name": "repo", "flags": ["-R", "--repo"], "type": "string", "description": "OWNER/REPO"}],
      "commands": {
        "list": {"description": "List pull requests", "options": [
          {"name": "state", "flags": ["-s", "--state"], "type": "enum", "enum": ["open", "closed", "all"], "description": "Filter"},
          {"name": "limit", "flags": ["-L", "--limit"], "type": "integer", "description": "Max"},
          {"name": "label", "flags": ["--label"], "type": "string", "variadic": true, "description": "Labels"}],
          "effects": {"network": true, "idempotent": true}},
        "create": {"description": "Create a pull request",
          "arguments": [{"name": "title", "type": "string", "description": "Title"}],
          "options": [{"name": "draft", "flags": ["-d", "--draft"], "type": "boolean", "description": "Draft"},
                      {"name": "ratio", "flags": ["--ratio"], "type": "number", "description": "R"},
                      {"name": "web", "flags": ["--web-url"], "type": "url", "description": "U"},
                      {"name": "dry-run", "flags": ["--dry-run"], "type": "boolean", "description": "Only show"}],
          "effects": {"network": true, "idempotent": false}},
        "close": {"description": "Close a pull request",
          "arguments": [{"name": "number", "type": "integer", "description": "PR number"}],
          "effects": {"network": true, "reversible": false}}
      }},
    "repo": {"description": "Repositories", "commands": {
      "delete": {"description": "Delete a repository",
        "arguments": [{"name": "repo", "type": "string", "description": "OWNER/REPO"}],
        "effects": {"destructive": true, "reversible": false}}}}
  }
}"#;

fn tool() -> LoadedCommands {
    let doc = Document::parse(TOOL, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    LoadedCommands::new(doc, None)
}

fn call(name: &str, args: Value) -> ToolCall {
    let Value::Object(m) = args else { panic!() };
    ToolCall::new(Some("call_1".into()), name, m)
}

fn argv(t: &LoadedCommands, c: &ToolCall) -> Vec<String> {
    t.invocation(c)
        .unwrap_or_else(|e| panic!("{e}"))
        .argv
        .into_iter()
        .map(|a| a.into_string().unwrap())
        .collect()
}

#[test]
fn untyped_dispatch_builds_the_argv() {
    let t = tool();
    assert_eq!(
        argv(
            &t,
            &call(
                "gh_pr_list",
                json!({"state": "closed", "limit": 5, "label": ["bug", "ui"], "repo": "cli/cli", "verbose": true})
            )
        ),
        [
            "gh",
            "-v",
            "pr",
            "list",
            "--repo=cli/cli",
            "--state=closed",
            "--limit=5",
            "--label=bug",
            "--label=ui"
        ]
    );
    assert_eq!(
        argv(
            &t,
            &call("gh_pr_create", json!({"title": "-rf", "dry_run": true}))
        ),
        ["gh", "pr", "create", "--dry-run", "--", "-rf"],
        "`dry_run` maps back to --dry-run; a dash value goes after --"
    );
    let inv = t
        .invocation(&call("gh_repo_delete", json!({"repo": "a/b"})))
        .unwrap();
    assert_eq!(inv.effects.destructive, Some(true));
    assert_eq!(inv.trust, Some(atip_runtime::TrustSource::Vendor));
}

#[test]
fn safe_coercions_only() {
    let t = tool();
    // "42" → 42, 3.0 → 3, "true" → true, null → absent, a number for a string.
    assert_eq!(
        argv(
            &t,
            &call(
                "gh_pr_list",
                json!({"limit": "42", "state": null, "repo": 7})
            )
        ),
        ["gh", "pr", "list", "--repo=7", "--limit=42"]
    );
    assert_eq!(
        argv(&t, &call("gh_pr_close", json!({"number": 3.0}))),
        ["gh", "pr", "close", "3"]
    );
    assert_eq!(
        argv(
            &t,
            &call(
                "gh_pr_create",
                json!({"title": "t", "draft": "true", "ratio": "0.5"})
            )
        ),
        ["gh", "pr", "create", "--draft", "--ratio=0.5", "t"]
    );
    let err = t
        .invocation(&call("gh_pr_close", json!({"number": 3.5})))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool call `gh_pr_close`: parameter `number`: expected an integer, found number 3.5"
    );
    let err = t
        .invocation(&call("gh_pr_create", json!({"title": "t", "draft": "yes"})))
        .unwrap_err();
    assert_eq!(err.problems.len(), 1);
    assert!(err
        .to_string()
        .contains("parameter `draft`: expected a boolean, found string \"yes\""));
}

#[test]
fn every_problem_is_reported_at_once() {
    let t = tool();
    let err = t
        .invocation(&call(
            "gh_pr_list",
            json!({"state": "merged", "limit": [1], "label": "bug", "rm_rf": true, "repo": {"x": 1}}),
        ))
        .unwrap_err();
    assert_eq!(err.call_id.as_deref(), Some("call_1"));
    let got: Vec<String> = err.problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        got,
        [
            "unknown parameter `rm_rf`",
            "parameter `repo`: expected a string, found an object",
            "parameter `state`: expected one of \"open\", \"closed\", \"all\", found string \"merged\"",
            "parameter `limit`: expected an integer, found an array",
            "parameter `label`: expected an array whose items are a string, found string \"bug\"",
        ]
    );
    let err = t
        .invocation(&call("gh_pr_create", json!({"web": "not a url"})))
        .unwrap_err();
    let got: Vec<String> = err.problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        got,
        [
            "parameter `title` is required: a string",
            "parameter `web`: expected an absolute URL (string), found string \"not a url\""
        ]
    );
}

#[test]
fn unknown_tools_and_bad_arguments() {
    let t = tool();
    let err = t.invocation(&call("GH_PR_LIST", json!({}))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool call `GH_PR_LIST`: no tool of that name; did you mean `gh_pr_list`?"
    );
    let err = t.invocation(&call("gh_pr", json!({}))).unwrap_err();
    assert_eq!(
        err.problems,
        [Problem::UnknownTool { suggestion: None }],
        "interior commands are not tools"
    );
    let bad = ToolCall::from_json_text(Some("c".into()), "gh_pr_list", "{'state': 'open'}");
    let err = t.invocation(&bad).unwrap_err();
    assert!(
        err.to_string().contains("arguments are not valid JSON"),
        "{err}"
    );
    let empty = ToolCall::from_json_text(None, "gh_pr_list", "");
    assert!(t.invocation(&empty).is_ok(), "'' means {{}}");
    let arr = ToolCall::from_json_text(None, "gh_pr_list", "[1]");
    assert!(t
        .invocation(&arr)
        .unwrap_err()
        .to_string()
        .contains("must be a JSON object, found an array"));
}

#[test]
fn nul_in_a_value_is_a_dispatch_error() {
    let t = tool();
    let err = t
        .invocation(&call("gh_pr_create", json!({"title": "a\u{0}b"})))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool call `gh_pr_create`: parameter `title` contains a NUL byte, which no command line can carry"
    );
}

#[test]
fn check_arguments_normalises_in_spec_order() {
    let t = tool();
    let (_, spec) = t.command("gh_pr_list").unwrap();
    let mut args = Map::new();
    args.insert("limit".into(), json!("7"));
    args.insert("repo".into(), json!("a/b"));
    args.insert("state".into(), Value::Null);
    let out = check_arguments(spec, &args).unwrap();
    assert_eq!(Value::Object(out), json!({"repo": "a/b", "limit": 7}));
    assert_eq!(
        out_keys(&check_arguments(spec, &Map::new()).unwrap()),
        Vec::<String>::new()
    );
}

fn out_keys(m: &Map<String, Value>) -> Vec<String> {
    m.keys().cloned().collect()
}

#[test]
fn action_groups_compile_and_resolve() {
    let t = tool();
    let group = ToolGroup::from_path(t.specs(), &["pr"], "gh_pr", "Manage pull requests").unwrap();
    let actions: Vec<&str> = group.actions().iter().map(|(a, _)| a.as_str()).collect();
    assert_eq!(actions, ["list", "create", "close"]);
    let spec = group.spec();
    assert_eq!(spec.params[0].name, "action");
    assert!(spec.params[0].required);
    assert!(spec.params.iter().skip(1).all(|p| !p.required));
    assert_eq!(spec.effects.reversible, Some(false), "riskiest action wins");
    assert_eq!(spec.effects.idempotent, Some(false));
    let repo = spec.param("repo").unwrap();
    assert!(
        repo.description.ends_with("(actions: list, create, close)"),
        "{}",
        repo.description
    );

    // A strict-mode call: every parameter present, unused ones null.
    let c = call(
        "gh_pr",
        json!({"action": "close", "number": 12, "title": null, "state": null, "repo": "a/b"}),
    );
    let flat = group.resolve(&c).unwrap();
    assert_eq!(flat.name, "gh_pr_close");
    assert_eq!(flat.id.as_deref(), Some("call_1"));
    assert_eq!(argv(&t, &flat), ["gh", "pr", "close", "--repo=a/b", "12"]);

    let err = group
        .resolve(&call("gh_pr", json!({"action": "close", "title": "x"})))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool call `gh_pr`: parameter `title` does not apply to action \"close\""
    );
    let err = group
        .resolve(&call("gh_pr", json!({"action": "merge"})))
        .unwrap_err();
    assert!(err
        .to_string()
        .contains("expected one of \"list\", \"create\", \"close\""));
    let err = group.resolve(&call("gh_pr", json!({}))).unwrap_err();
    assert!(err.to_string().contains("parameter `action` is required"));

    // Schemas compile like any tool.
    let def = atip_runtime::providers::tool_definition(spec, atip_runtime::Provider::OpenAiStrict);
    assert_eq!(
        def["function"]["parameters"]["properties"]["action"]["enum"],
        json!(["list", "create", "close"])
    );
}

#[test]
fn conflicting_parameters_are_renamed_per_action_and_mapped_back() {
    let text = TOOL.replace(
        r#"{"name": "number", "type": "integer", "description": "PR number"}"#,
        r#"{"name": "limit", "type": "string", "description": "PR number"}"#,
    );
    let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    let t = LoadedCommands::new(doc, None);
    let group = ToolGroup::from_path(t.specs(), &["pr"], "gh_pr", "d").unwrap();
    assert_eq!(group.renamed(), [("close", "limit_close", "limit")]);
    let spec = group.spec();
    assert_eq!(
        spec.param("limit").unwrap().kind,
        atip_runtime::tool::ValueKind::Integer
    );
    assert_eq!(
        spec.param("limit_close").unwrap().kind,
        atip_runtime::tool::ValueKind::String
    );
    // `limit_close` goes back to close's own `limit`; list keeps its `limit`.
    let close = group
        .resolve(&call(
            "gh_pr",
            json!({"action": "close", "limit_close": "7"}),
        ))
        .unwrap();
    assert_eq!(close.name, "gh_pr_close");
    assert_eq!(close.arguments.as_ref().unwrap()["limit"], "7");
    let list = group
        .resolve(&call("gh_pr", json!({"action": "list", "limit": 3})))
        .unwrap();
    assert_eq!(list.arguments.as_ref().unwrap()["limit"], 3);
    // The integer `limit` is list's: given to close it is refused, not passed on.
    let err = group
        .resolve(&call("gh_pr", json!({"action": "close", "limit": 3})))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("parameter `limit` does not apply to action \"close\""),
        "{err}"
    );
    assert!(t.invocation(&close).is_ok());
    assert!(ToolGroup::from_path(t.specs(), &["nope"], "x", "d").is_err());
}

/// Every problem of a call in one answer, whatever phase would find it: types and allowed
/// values, an empty required list, a NUL byte, a positional after an omitted one.
#[test]
fn every_problem_is_reported_in_one_answer() {
    let text = r#"{
      "atip": {"version": "0.6"}, "name": "ship", "version": "1", "description": "Ships",
      "commands": {"deploy": {"description": "Deploy",
        "arguments": [
          {"name": "env", "type": "string", "required": false, "description": "E"},
          {"name": "target", "type": "string", "required": true, "variadic": true, "description": "T"}],
        "options": [
          {"name": "ratio", "flags": ["--ratio"], "type": "number", "description": "R"},
          {"name": "level", "flags": ["--level"], "type": "enum", "enum": [1, 2, 3], "description": "L"},
          {"name": "note", "flags": ["--note"], "type": "string", "description": "N"}],
        "effects": {"destructive": false}}}
    }"#;
    let doc = Document::parse(text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    let t = LoadedCommands::new(doc, None);
    let err = t
        .invocation(&call(
            "ship_deploy",
            json!({"target": [], "ratio": 1, "level": 9, "note": "a\u{0}b"}),
        ))
        .unwrap_err();
    let text = err.to_string();
    assert_eq!(err.problems.len(), 3, "{text}");
    assert!(
        matches!(&err.problems[0], Problem::NotAllowed { param, .. } if param == "level"),
        "{text}"
    );
    assert!(
        matches!(&err.problems[1], Problem::Nul { param } if param == "note"),
        "{text}"
    );
    assert!(
        matches!(&err.problems[2], Problem::Missing { param, expected } if param == "target" && expected.starts_with("at least one value")),
        "{text}"
    );

    // A positional given after an omitted one is found with the rest.
    let err = t
        .invocation(&call("ship_deploy", json!({"target": ["a"], "level": 4})))
        .unwrap_err();
    assert_eq!(err.problems.len(), 2, "{err}");
    assert!(
        err.to_string().contains(
            "parameter `target` is given but `env`, the positional argument before it, is not"
        ),
        "{err}"
    );
    // And the same call, corrected, goes through.
    t.invocation(&call(
        "ship_deploy",
        json!({"env": "prod", "target": ["a"], "ratio": 1, "level": 2}),
    ))
    .unwrap();
}

/// A tool loaded from a file remembers where it was read (as an absolute path; a relative one
/// is made absolute, which this test cannot show without changing the process's directory),
/// so that trust rules by metadata location match it; a missing file is an error.
#[test]
fn loaded_from_a_path_carries_its_absolute_location() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gh.json");
    std::fs::write(&file, TOOL).unwrap();
    let tool = LoadedCommands::from_path(
        &file,
        atip_runtime::Mode::Strict,
        &FlattenOptions::default(),
    )
    .unwrap();
    let inv = tool.invocation(&call("gh_pr_list", json!({}))).unwrap();
    assert_eq!(inv.metadata.as_deref(), Some(file.to_str().unwrap()));
    assert!(std::path::Path::new(inv.metadata.as_deref().unwrap()).is_absolute());
    let missing = LoadedCommands::from_path(
        &dir.path().join("nope.json"),
        atip_runtime::Mode::Strict,
        &FlattenOptions::default(),
    );
    assert!(missing.is_err());
}

#[test]
fn invocations_carry_the_environment_variables_their_command_declares() {
    let json = r#"{"atip": {"version": "0.6"}, "name": "gh", "version": "2", "description": "GitHub CLI",
      "authentication": {"required": true, "methods": [{"type": "token", "envVar": "GH_TOKEN"}]},
      "commands": {
        "api": {"description": "Call the API", "options": [
          {"name": "host", "flags": ["--hostname"], "type": "string", "envVar": "GH_HOST", "description": "Host"}]},
        "status": {"description": "Status"}}}"#;
    let doc = Document::parse(json, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    let names = |c: usize| doc.declared_env(&doc.commands[c]).join(",");
    assert_eq!(names(0), "GH_TOKEN,GH_HOST");
    assert_eq!(names(1), "GH_TOKEN");
    let tool = LoadedCommands::new(doc, None);
    let inv = tool.invocation(&call("gh_api", json!({}))).unwrap();
    let env: Vec<&str> = inv.env.iter().map(|s| s.as_str()).collect();
    assert_eq!(env, ["GH_TOKEN", "GH_HOST"]);
}

/// Definitions written one command at a time with their notes are those of every spec built
/// first, and the notes are what `limits::notes` says of each (its note on the number of tools
/// aside), for every provider and for fixtures that must give (a 10 kB description, hostile
/// texts, a giant enum) — whether or not the specs were built before.
#[test]
fn definitions_and_their_notes_in_one_pass_match_the_specs() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut noted = 0;
    for file in ["hostile.json", "giant_enum.json", "wide.json"] {
        let path = fixtures.join(file);
        noted += definitions_match_the_specs(file, || {
            LoadedCommands::from_path(
                &path,
                atip_runtime::Mode::Lenient,
                &FlattenOptions::default(),
            )
            .unwrap()
        });
    }
    assert!(noted > 0, "no fixture had to give");
}

/// The same for a document large enough to be written in two halves on two threads, with a
/// command that must give in each half: the halves joined are the one-thread text, notes in
/// command order.
#[test]
fn definitions_written_in_two_halves_match_the_specs() {
    // 1,000 values of 24 characters: more than OpenAI's strict schemas take.
    let values: Vec<String> = (0..1000).map(|v| format!("value-{v:018}")).collect();
    let commands: serde_json::Map<String, serde_json::Value> = (0..6000)
        .map(|i| {
            let mut out = json!({"name": "out", "flags": ["--out"], "type": "string",
                                 "description": "where"});
            if i == 10 || i == 5000 {
                out["enum"] = json!(values);
            }
            let command = json!({"description": format!("command {i}"), "options": [out]});
            (format!("c{i}"), command)
        })
        .collect();
    let text = json!({"atip": {"version": "0.6"}, "name": "big", "version": "1",
                      "description": "d", "commands": commands})
    .to_string();
    let noted = definitions_match_the_specs("6,000 commands", || {
        LoadedCommands::new(
            Document::parse(&text, &LoadOptions::lenient(), &FlattenOptions::default()).unwrap(),
            None,
        )
    });
    assert!(
        noted >= 2,
        "{noted} notes: a command in each half must give"
    );
}

/// Checks [`LoadedCommands::definitions_json_and_notes`] against the specs for every provider;
/// the number of notes found.
fn definitions_match_the_specs(label: &str, load: impl Fn() -> LoadedCommands) -> usize {
    use atip_runtime::limits;
    use atip_runtime::Provider;
    let mut noted = 0;
    for p in &Provider::ALL {
        let streamed = load();
        let (json, notes) = streamed.definitions_json_and_notes(*p);
        let built = load();
        let mut expected = limits::notes(built.specs(), *p);
        if limits::count_note(built.specs().len(), *p).is_some() {
            expected.pop();
        }
        assert_eq!(json, built.definitions_json(*p), "{label} {p:?}");
        assert_eq!(notes, expected, "{label} {p:?}");
        // With the specs built first, the same.
        assert_eq!(built.definitions_json_and_notes(*p), (json, notes.clone()));
        noted += notes.len();
    }
    noted
}
