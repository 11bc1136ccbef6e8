//! Flattening: leaves, `""` commands, inherited and global options, shadowing, collisions,
//! names, effects along the path, the command filter.

use crate::flatten::{OptionScope, ParamPlacement};
use crate::{Document, FlatCommand, FlattenOptions, LoadError, LoadOptions};

fn doc(text: &str) -> Document {
    Document::parse(text, &LoadOptions::strict(), &FlattenOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn doc_err(text: &str) -> LoadError {
    Document::parse(text, &LoadOptions::strict(), &FlattenOptions::default())
        .expect_err("should be rejected")
}

fn filtered(text: &str, commands: &[&str]) -> Result<Document, LoadError> {
    Document::parse(
        text,
        &LoadOptions::strict(),
        &FlattenOptions {
            commands: Some(commands.iter().map(|s| s.to_string()).collect()),
        },
    )
}

fn names(d: &Document) -> Vec<&str> {
    d.commands.iter().map(|c| c.name.as_str()).collect()
}

fn find<'a>(d: &'a Document, name: &str) -> &'a FlatCommand {
    d.commands.iter().find(|c| c.name == name).unwrap()
}

fn opt(name: &str, flags: &str) -> String {
    format!(
        r#"{{"name": "{name}", "flags": [{flags}], "type": "string", "description": "{name}"}}"#
    )
}

fn tool(rest: &str) -> String {
    format!(
        r#"{{"atip": {{"version": "0.6"}}, "name": "git", "version": "1", "description": "d", {rest}}}"#
    )
}

#[test]
fn empty_name_stands_for_the_parent() {
    let d = doc(&tool(
        r#""commands": {
            "": {"description": "the tool itself"},
            "stash": {"description": "s", "commands": {
                "": {"description": "push"},
                "pop": {"description": "pop"}}}}"#,
    ));
    assert_eq!(names(&d), ["git", "git_stash", "git_stash_pop"]);
    assert_eq!(find(&d, "git").path, Vec::<String>::new());
    assert_eq!(
        find(&d, "git_stash").path,
        ["stash"],
        "no empty argv element"
    );
    assert_eq!(
        find(&d, "git_stash").json_path.to_string(),
        "$.commands.stash.commands['']"
    );
}

#[test]
fn names_with_underscores_and_dashes_map_back_exactly() {
    let d = doc(&tool(
        r#""commands": {"list_all": {"description": "a"}, "setup-git": {"description": "b"},
                        "remote": {"description": "r", "commands": {"set-url": {"description": "c"}}}}"#,
    ));
    assert_eq!(
        names(&d),
        ["git_list_all", "git_setup-git", "git_remote_set-url"]
    );
    assert_eq!(find(&d, "git_list_all").path, ["list_all"]);
    assert_eq!(find(&d, "git_setup-git").path, ["setup-git"]);
    assert_eq!(find(&d, "git_remote_set-url").path, ["remote", "set-url"]);
}

#[test]
fn options_are_global_then_inherited_outermost_first_then_own() {
    let d = doc(&tool(&format!(
        r#""globalOptions": [{g}],
           "commands": {{"a": {{"description": "a", "options": [{a}], "commands": {{
               "b": {{"description": "b", "options": [{b}], "commands": {{
                   "c": {{"description": "c", "options": [{c}],
                          "arguments": [{{"name": "x", "type": "string", "description": "x"}}]}}}}}}}}}}}}"#,
        g = opt("glob", r#""-g""#),
        a = opt("outer", r#""--outer""#),
        b = opt("inner", r#""-i", "--inner""#),
        c = opt("own", r#""--own""#),
    )));
    let c = find(&d, "git_a_b_c");
    let opts: Vec<(&str, OptionScope, &str, bool)> = c
        .options
        .iter()
        .map(|p| match &p.kind {
            ParamPlacement::Option { flag, scope } => {
                (p.name.as_str(), *scope, flag.text.as_str(), flag.attached)
            }
            ParamPlacement::Argument => unreachable!(),
        })
        .collect();
    assert_eq!(
        opts,
        [
            ("glob", OptionScope::Global, "-g", false),
            ("outer", OptionScope::Inherited, "--outer", true),
            ("inner", OptionScope::Inherited, "--inner", true),
            ("own", OptionScope::Own, "--own", true),
        ]
    );
    assert_eq!(c.arguments[0].name, "x");
}

#[test]
fn own_option_shadows_inherited_and_global_with_a_warning() {
    let d = doc(&tool(&format!(
        r#""globalOptions": [{g}],
           "commands": {{"pr": {{"description": "p", "options": [{r}], "commands": {{
               "list": {{"description": "l", "options": [{r2}]}},
               "view": {{"description": "v"}}}}}}}}"#,
        g = opt("repo", r#""--repo""#),
        r = opt("repo", r#""-R", "--repo""#),
        r2 = opt("repo", r#""--repository""#),
    )));
    let list = find(&d, "git_pr_list");
    assert_eq!(list.options.len(), 1, "argv carries the option once");
    assert_eq!(list.options[0].flag().unwrap().text, "--repository");
    let view = find(&d, "git_pr_view");
    assert_eq!(view.options.len(), 1);
    assert_eq!(
        view.options[0].json_path().to_string(),
        "$.commands.pr.options[0]"
    );
    let warned: Vec<String> = d.warnings.iter().map(|w| w.path.to_string()).collect();
    assert_eq!(
        warned,
        ["$.globalOptions[0]", "$.commands.pr.options[0]"],
        "each shadowed option reported once, in document order: {:?}",
        d.warnings
    );
}

#[test]
fn an_inherited_option_shadowed_under_each_of_many_groups_is_reported_for_each() {
    // Each group's option is shadowed in its only command, so nothing keeps it once the walk
    // leaves the group: the next group's option may be given the same address, which must not
    // pass for the option already reported.
    let groups: Vec<String> = (0..50)
        .map(|i| {
            format!(
                r#""g{i}": {{"description": "g", "options": [{o}], "commands": {{
                    "c": {{"description": "c", "options": [{o}]}}}}}}"#,
                o = opt("repo", r#""--repo""#)
            )
        })
        .collect();
    let d = doc(&tool(&format!(r#""commands": {{{}}}"#, groups.join(", "))));
    let warned: Vec<String> = d.warnings.iter().map(|w| w.path.to_string()).collect();
    let expected: Vec<String> = (0..50)
        .map(|i| format!("$.commands.g{i}.options[0]"))
        .collect();
    assert_eq!(warned, expected);
}

#[test]
fn argument_and_option_with_the_same_name_collide() {
    let err = doc_err(&tool(&format!(
        r#""commands": {{"a": {{"description": "a",
            "arguments": [{{"name": "dry-run", "type": "string", "description": "x"}}],
            "options": [{o}]}}}}"#,
        o = opt("dry_run", r#""--dry-run""#),
    )));
    let e: Vec<String> = err
        .errors()
        .map(|d| format!("{}: {}", d.path, d.message))
        .collect();
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("$.commands.a.options[0]: parameter `dry_run` and `dry-run` at $.commands.a.arguments[0] both become the parameter name `dry_run`"), "{}", e[0]);
    assert!(err.errors().next().unwrap().location.is_some());
}

#[test]
fn commands_with_the_same_flattened_name_collide() {
    let err = doc_err(&tool(
        r#""commands": {"a_b": {"description": "x"}, "a": {"description": "y", "commands": {"b": {"description": "z"}}}}"#,
    ));
    let e: Vec<String> = err
        .errors()
        .map(|d| format!("{}: {}", d.path, d.message))
        .collect();
    assert_eq!(
        e,
        ["$.commands.a.commands.b: flattened tool name `git_a_b` is also the name of the command at $.commands.a_b; rename one of the two commands"]
    );
}

#[test]
fn arguments_on_groups_are_ignored_with_a_warning() {
    let d = doc(&tool(
        r#""commands": {"g": {"description": "g", "arguments": [{"name": "x", "type": "string", "description": "x"}],
            "commands": {"leaf": {"description": "l"}}}}"#,
    ));
    assert!(find(&d, "git_g_leaf").arguments.is_empty());
    assert_eq!(d.warnings.len(), 1);
    assert_eq!(d.warnings[0].path.to_string(), "$.commands.g.arguments");
}

#[test]
fn effects_merge_along_the_path_and_unknown_stays_unknown() {
    let d = doc(&tool(
        r#""effects": {"network": false},
           "commands": {"repo": {"description": "r", "effects": {"reversible": true},
               "commands": {"delete": {"description": "d", "effects": {"destructive": true, "reversible": false}},
                            "view": {"description": "v"}}}}"#,
    ));
    let del = find(&d, "git_repo_delete");
    assert_eq!(del.effects.destructive, Some(true));
    assert_eq!(del.effects.reversible, Some(false));
    assert_eq!(del.effects.network, Some(false));
    let view = find(&d, "git_repo_view");
    assert_eq!(
        view.effects.destructive, None,
        "nothing declares it: unknown, not false"
    );
    assert_eq!(view.effects.reversible, Some(true));
    assert_eq!(view.effects.idempotent, None);
}

#[test]
fn parameter_names_are_provider_valid() {
    let d = doc(&tool(&format!(
        r#""commands": {{"a": {{"description": "a", "options": [{o1}, {o2}]}}}}"#,
        o1 = opt("dry-run", r#""--dry-run""#),
        o2 = opt("no.color", r#""--no-color""#),
    )));
    let a = find(&d, "git_a");
    let got: Vec<(&str, &str)> = a
        .options
        .iter()
        .map(|p| (p.name.as_str(), p.declared_name.as_str()))
        .collect();
    assert_eq!(got, [("dry_run", "dry-run"), ("no_color", "no.color")]);
}

#[test]
fn unusable_flags_are_errors() {
    let err = doc_err(&tool(&format!(
        r#""commands": {{"a": {{"description": "a", "options": [{o}]}}}}"#,
        o = opt("x", r#""--x=1""#),
    )));
    assert!(
        err.to_string()
            .contains("$.commands.a.options[0].flags[0]: flag \"--x=1\""),
        "{err}"
    );
}

#[test]
fn command_filter_keeps_subtrees_and_reports_misses() {
    let text = tool(
        r#""commands": {"pr": {"description": "p", "commands": {"create": {"description": "c"}, "list": {"description": "l"}}},
                        "repo": {"description": "r", "commands": {"delete": {"description": "d"}, "view": {"description": "v"}}},
                        "issue": {"description": "i", "commands": {"list": {"description": "l"}}}}"#,
    );
    let d = filtered(&text, &["pr", "repo delete"]).unwrap();
    assert_eq!(
        names(&d),
        ["git_pr_create", "git_pr_list", "git_repo_delete"]
    );
    let err = filtered(&text, &["pr", "nope", "repo  gone"]).unwrap_err();
    let e: Vec<String> = err.errors().map(|d| d.message.clone()).collect();
    assert_eq!(
        e,
        [
            "command filter entry \"nope\" matches no command of `git`",
            "command filter entry \"repo  gone\" matches no command of `git`"
        ]
    );
}

#[test]
fn enum_handling_and_multiple_values() {
    let d = doc(&tool(
        r#""commands": {"a": {"description": "a", "options": [
            {"name": "state", "flags": ["--state"], "type": "enum", "enum": ["open", "open", "closed"], "description": "s"},
            {"name": "kind", "flags": ["--kind"], "type": "enum", "description": "no list"},
            {"name": "level", "flags": ["--level"], "type": "integer", "enum": [1, 2], "description": "l"},
            {"name": "tag", "flags": ["--tag"], "type": "array", "description": "t"},
            {"name": "v", "flags": ["-v"], "type": "boolean", "variadic": true, "description": "v"}]}}"#,
    ));
    let a = find(&d, "git_a");
    assert_eq!(
        a.options[0].enum_values.as_deref(),
        Some(&["open".to_string(), "closed".to_string()][..])
    );
    assert_eq!(a.options[1].enum_values, None);
    assert_eq!(a.options[2].enum_values, None);
    assert_eq!(a.options[2].listed_values, ["1", "2"]);
    assert!(a.options[3].multiple);
    assert!(!a.options[4].multiple);
    let warned: Vec<String> = d.warnings.iter().map(|w| w.path.to_string()).collect();
    assert_eq!(
        warned,
        [
            "$.commands.a.options[0].enum",
            "$.commands.a.options[1]",
            "$.commands.a.options[4].variadic"
        ]
    );
}

const SLOPPY: &str = r#"{"atip":{"version":"0.6"},"name":"cloud","version":"1","description":"A cloud CLI",
 "commands":{
  "db":{"description":"Databases",
        "options":[{"name":"zone","flags":["--zone"],"type":"string","description":"Zone"},
                   {"name":"zone","flags":["-z"],"type":"integer","description":"Zone number"}],
        "commands":{"list":{"description":"List"},"drop":{"description":"Drop"}}},
  "list":{"description":"List things","options":[
     {"name":"page-size","flags":["--page-size"],"type":"integer","description":"Page size"},
     {"name":"page-size","flags":["--page-size"],"type":"integer","description":"Page size"}]},
  "get":{"description":"Get","options":[
     {"name":"id","flags":["--id"],"type":"string","description":"Id"},
     {"name":"id","flags":["--identifier"],"type":"integer","description":"Other id"}]},
  "ok":{"description":"Fine"}
 }}"#;

#[test]
fn duplicates_that_differ_only_in_description_merge_keeping_the_first() {
    // The aws CLI's shape: `--page-size` declared twice with the same flags and type, the
    // texts differing.
    let text = SLOPPY.replace(
        r#"{"name":"page-size","flags":["--page-size"],"type":"integer","description":"Page size"}]"#,
        r#"{"name":"page-size","flags":["--page-size"],"type":"integer","description":"The size of each page to get in the service call."}]"#,
    );
    assert_ne!(text, SLOPPY);
    for options in [LoadOptions::lenient(), LoadOptions::default()] {
        // Strict fails only for the group's real conflict, not for this merge.
        let Ok(doc) = Document::parse(&text, &options, &FlattenOptions::default()) else {
            let err = doc_err(&text);
            let errors: Vec<String> = err.errors().map(|d| d.path.to_string()).collect();
            assert_eq!(
                errors,
                ["$.commands.db.options[1]", "$.commands.get.options[1]"]
            );
            continue;
        };
        let list = doc
            .commands
            .iter()
            .find(|c| c.name == "cloud_list")
            .expect("the command is kept");
        assert_eq!(list.options.len(), 1);
        assert_eq!(list.options[0].description, "Page size");
        let warning = doc
            .warnings
            .iter()
            .find(|w| w.message.contains("page-size"))
            .unwrap();
        assert!(
            warning
                .message
                .contains("another description (the first is kept)")
                && warning.message.contains("$.commands.list.options[0]")
                && warning.message.contains("$.commands.list.options[1]"),
            "{warning}"
        );
        // Different flags or types still conflict: `get` (another flag and type) is left out.
        assert!(doc.commands.iter().all(|c| c.name != "cloud_get"));
        assert!(doc.skipped.iter().any(|s| s.path == "get"));
    }
}

#[test]
fn identical_duplicates_merge_in_both_modes() {
    let text = SLOPPY.replace(
        r#"{"name":"id","flags":["--identifier"],"type":"integer","description":"Other id"}"#,
        r#"{"name":"id","flags":["--id"],"type":"string","description":"Id"}"#,
    );
    let lenient =
        Document::parse(&text, &LoadOptions::lenient(), &FlattenOptions::default()).unwrap();
    assert_eq!(lenient.merged_duplicates, 2);
    let list = lenient
        .commands
        .iter()
        .find(|c| c.name == "cloud_list")
        .unwrap();
    assert_eq!(list.options.len(), 1);
    let warning = lenient
        .warnings
        .iter()
        .find(|w| w.message.contains("page-size"))
        .unwrap();
    assert!(
        warning.message.contains("$.commands.list.options[0]")
            && warning.message.contains("$.commands.list.options[1]"),
        "{warning}"
    );
    // Strict: the same merge; the group's conflict is still an error.
    let err = doc_err(&text);
    let errors: Vec<String> = err.errors().map(|d| d.path.to_string()).collect();
    assert_eq!(errors, ["$.commands.db.options[1]"]);
}

#[test]
fn lenient_mode_leaves_out_only_the_commands_a_conflict_touches() {
    let d = Document::parse(SLOPPY, &LoadOptions::lenient(), &FlattenOptions::default()).unwrap();
    // The group's conflict takes both its commands; `get` its own; `list` merged; `ok` fine.
    assert_eq!(names(&d), ["cloud_list", "cloud_ok"]);
    let skipped: Vec<&str> = d.skipped.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(skipped, ["db list", "db drop", "get"]);
    assert!(d.skipped[0].reasons[0].starts_with("$.commands.db.options[1]: "));
    assert!(d.skipped[2].reasons[0].starts_with("$.commands.get.options[1]: "));
    assert_eq!(
        d.summary(),
        "2 commands, 1 merged duplicate, 3 commands skipped"
    );
    assert!(d.warnings.iter().all(|w| !w.is_error()));
    // Strict: every conflict is an error, with its path.
    let err = doc_err(SLOPPY);
    let errors: Vec<String> = err.errors().map(|d| d.path.to_string()).collect();
    assert_eq!(
        errors,
        ["$.commands.db.options[1]", "$.commands.get.options[1]"]
    );
}

#[test]
fn two_commands_flattening_to_one_name_skip_the_second_when_lenient() {
    let text = r#"{"atip":{"version":"0.6"},"name":"t","version":"1","description":"T",
      "commands":{"a.b":{"description":"First"},"a_b":{"description":"Second"}}}"#;
    let d = Document::parse(text, &LoadOptions::lenient(), &FlattenOptions::default()).unwrap();
    assert_eq!(names(&d), ["t_a_b"]);
    assert_eq!(d.skipped.len(), 1);
    assert_eq!(d.skipped[0].path, "a_b");
    assert!(doc_err(text).errors().count() == 1);
}

#[test]
fn lenient_loading_fails_when_no_command_is_left() {
    // A conflict among the global options touches every command.
    let text = r#"{"atip":{"version":"0.6"},"name":"t","version":"1","description":"T",
      "globalOptions":[{"name":"x","flags":["--x"],"type":"string","description":"X"},
                       {"name":"x","flags":["-x"],"type":"integer","description":"Y"}],
      "commands":{"a":{"description":"A"},"b":{"description":"B"}}}"#;
    let err = Document::parse(text, &LoadOptions::lenient(), &FlattenOptions::default())
        .expect_err("nothing usable is left");
    let errors: Vec<String> = err.errors().map(|d| d.message.clone()).collect();
    assert!(
        errors
            .iter()
            .any(|m| m.starts_with("command `a` is unusable: $.globalOptions[1]")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|m| m.starts_with("command `b` is unusable")),
        "{errors:?}"
    );
}

/// One spec refilled command after command (as a loaded tool's definitions writer does) is
/// each time exactly the spec built afresh: texts, lists, argv forms, values and defaults that
/// come and go between commands, in both directions through the documents.
#[test]
fn a_refilled_spec_equals_the_spec_built_afresh() {
    use crate::tool::ToolSpec;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut commands = Vec::new();
    for file in [
        "examples/atip/git.json",
        "examples/atip/gh.json",
        "examples/atip/ls.json",
        "examples/atip/rm.json",
        "tests/fixtures/adversarial.json",
    ] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let doc = Document::parse(
            &text,
            &crate::LoadOptions::strict(),
            &FlattenOptions::default(),
        )
        .unwrap();
        let tool = doc.tool.name.clone();
        commands.extend(doc.commands.into_iter().map(|c| (tool.clone(), c)));
    }
    assert!(commands.len() > 40);
    let mut spec = ToolSpec::from_flat(&commands[0].0, &commands[0].1);
    let mut compared = 0;
    for (tool, cmd) in commands.iter().chain(commands.iter().rev()) {
        spec.refill_from_flat(tool, cmd);
        assert_eq!(spec, ToolSpec::from_flat(tool, cmd), "{}", cmd.name);
        compared += 1;
    }
    assert_eq!(compared, 2 * commands.len());
    // What the refill reuses shows in the defaults and values that appear and vanish.
    assert!(commands
        .iter()
        .any(|(_, c)| c.params().any(|p| p.default.is_some())));
    assert!(commands
        .iter()
        .any(|(_, c)| c.params().any(|p| p.enum_values.is_some())));
}

#[test]
fn duplicates_that_differ_only_in_a_numeric_or_string_type_merge_as_the_wider_type() {
    // The real aws CLI's shape on cloudfront and route53 `list-*`: `--max-items` declared
    // twice with the same flag, once `integer` and once `string`. The command stays, with one
    // option that takes the values of both, and a warning names both places and the types.
    let text = SLOPPY.replace(
        r#"{"name":"page-size","flags":["--page-size"],"type":"integer","description":"Page size"}]"#,
        r#"{"name":"page-size","flags":["--page-size"],"type":"string","description":"Page size, as text"}]"#,
    );
    let doc = Document::parse(&text, &LoadOptions::lenient(), &FlattenOptions::default()).unwrap();
    let list = doc
        .commands
        .iter()
        .find(|c| c.name == "cloud_list")
        .expect("the command is kept");
    assert_eq!(list.options.len(), 1);
    assert_eq!(
        list.options[0].ty,
        crate::ParamType::String,
        "the wider type"
    );
    let warning = doc
        .warnings
        .iter()
        .find(|w| w.message.contains("page-size"))
        .unwrap();
    assert!(
        warning
            .message
            .contains("type `string` here and `integer` first")
            && warning.message.contains("kept as `string`")
            && warning.message.contains("$.commands.list.options[1]"),
        "{warning}"
    );
    // Another flag, or a type outside integer/number/string, still conflicts: `get` is left
    // out.
    assert!(doc.skipped.iter().any(|s| s.path == "get"));
    let boolean = SLOPPY.replace(
        r#"{"name":"page-size","flags":["--page-size"],"type":"integer","description":"Page size"}]"#,
        r#"{"name":"page-size","flags":["--page-size"],"type":"boolean","description":"Page size"}]"#,
    );
    let doc = Document::parse(
        &boolean,
        &LoadOptions::lenient(),
        &FlattenOptions::default(),
    )
    .unwrap();
    assert!(doc.skipped.iter().any(|s| s.path == "list"));
}
