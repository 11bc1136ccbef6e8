//! Tests of the conversion: the rows of the mapping, names made to flatten cleanly, what argv
//! cannot express, limits and errors.

use super::*;
use atip_core::{Document, FlattenOptions, LoadOptions};

fn generator() -> Generator {
    Generator {
        package: "@withfig/autocomplete".into(),
        version: "2.692.3".into(),
        spec: "t.js".into(),
        license: None,
        copyright: None,
    }
}

fn conv(spec: Value) -> Converted {
    convert(&spec, &generator(), None, 1000).unwrap()
}

fn load(doc: &Value) -> Document {
    Document::parse(
        &doc.to_string(),
        &LoadOptions::strict(),
        &FlattenOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}\n{doc:#}"))
}

#[test]
fn a_single_command_tool_becomes_the_empty_command() {
    let c = conv(json!({
        "name": "wc", "description": "Count",
        "options": [{"name": "-l", "description": "Lines"}],
        "args": {"name": "file", "template": "filepaths", "isOptional": true, "isVariadic": true}
    }));
    let doc = load(&c.document);
    assert_eq!(doc.commands.len(), 1);
    let cmd = &doc.commands[0];
    assert_eq!(cmd.name, "wc");
    let file = &c.document["commands"][""]["arguments"][0];
    assert_eq!(file["type"], "file");
    assert_eq!(file["required"], false);
    assert_eq!(file["variadic"], true);
    assert_eq!(c.document["commands"][""]["options"][0]["type"], "boolean");
    assert_eq!(
        c.document["trust"],
        json!({"source": "inferred", "verified": false})
    );
    assert_eq!(
        c.document["x-atip-rust"]["generator"],
        json!({"source": "fig", "package": "@withfig/autocomplete", "version": "2.692.3", "spec": "t.js"})
    );
}

#[test]
fn names_aliases_types_and_repeats() {
    let c = conv(json!({
        "name": "t", "description": "T",
        "subcommands": [{
            "name": ["remove", "rm"], "description": "Remove things",
            "options": [
                {"name": ["-o", "--output"], "args": {"name": "dir", "template": "folders"}, "isRequired": true},
                {"name": "--label", "args": {"name": "l"}, "isRepeatable": true, "requiresSeparator": true},
                {"name": "--secret", "hidden": true},
                {"name": "--a", "exclusiveOn": ["--b"], "dependsOn": ["--c"]}
            ],
            "args": [{"name": "<name>", "suggestions": ["x", {"name": "y"}]}]
        }]
    }));
    load(&c.document);
    let rm = &c.document["commands"]["remove"];
    assert_eq!(rm["x-atip-rust"]["aliases"], json!(["rm"]));
    let opts = rm["options"].as_array().unwrap();
    assert_eq!(opts.len(), 3, "hidden dropped: {opts:?}");
    assert_eq!(opts[0]["name"], "output");
    assert_eq!(opts[0]["type"], "directory");
    assert_eq!(opts[0]["required"], true);
    assert_eq!(opts[1]["variadic"], true);
    assert_eq!(
        opts[2]["x-atip-rust"],
        json!({"exclusiveOn": ["--b"], "dependsOn": ["--c"]})
    );
    assert!(opts[2]["description"]
        .as_str()
        .unwrap()
        .contains("Not with --b. Requires --c."));
    let arg = &rm["arguments"][0];
    assert_eq!(arg["name"], "name");
    assert_eq!(arg["type"], "string", "suggestions never make an enum");
    assert!(arg["description"]
        .as_str()
        .unwrap()
        .contains("Suggested values: x, y."));
    assert_eq!(
        rm["effects"],
        json!({"destructive": true, "reversible": false})
    );
    assert_eq!(c.stats.hidden, 1);
}

#[test]
fn persistent_options_are_inherited_and_the_rest_go_to_the_empty_child() {
    let c = conv(json!({
        "name": "t", "description": "T",
        "options": [{"name": "--verbose"}],
        "subcommands": [{
            "name": "stash", "description": "Stash",
            "options": [
                {"name": "--repo", "isPersistent": true, "args": {"name": "r"}},
                {"name": "--keep"}
            ],
            "subcommands": [{"name": "list", "options": [{"name": "--repo", "args": {"name": "r"}}]}]
        }]
    }));
    let doc = load(&c.document);
    let names: Vec<&str> = doc.commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["t_stash", "t_stash_list"]);
    assert_eq!(c.document["globalOptions"][0]["name"], "verbose");
    assert_eq!(
        c.document["commands"]["stash"]["options"][0]["name"],
        "repo"
    );
    assert_eq!(
        c.document["commands"]["stash"]["commands"][""]["options"][0]["name"],
        "keep"
    );
    // `list` repeats the inherited --repo: kept once, on the group.
    assert!(c.document["commands"]["stash"]["commands"]["list"]
        .get("options")
        .is_none());
    let list = &doc.commands[1];
    assert!(list.params().any(|p| p.name == "repo"));
    assert_eq!(
        c.document["commands"]["stash"]["commands"]["list"]["effects"],
        json!({"destructive": false, "filesystem": {"write": false}})
    );
}

#[test]
fn duplicates_and_clashes_are_resolved_deterministically() {
    let c = conv(json!({
        "name": "t",
        "subcommands": [
            {"name": "a", "description": "first"},
            {"name": "a", "description": "second", "options": [{"name": "--x"}]},
            {"name": "b.c", "description": "dots"},
            {"name": "b_c", "description": "underscores"},
            {"name": "d", "options": [
                {"name": "--dry-run"}, {"name": "--dry_run"}, {"name": "--dry-run"},
                {"name": "--file", "args": {"name": "f"}}
            ], "args": {"name": "file"}}
        ]
    }));
    let doc = load(&c.document);
    let names: Vec<&str> = doc.commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["t_a", "t_b_c", "t_d"]);
    assert_eq!(c.document["commands"]["a"]["description"], "first");
    let d = &c.document["commands"]["d"];
    let opt_names: Vec<&str> = d["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(opt_names, ["dry-run", "dry_run-2", "file"]);
    assert_eq!(d["arguments"][0]["name"], "file-arg");
    let text: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
    let all = text.join("\n");
    assert!(all.contains("declared twice"), "{all}");
    assert!(all.contains("already the name of `t b.c`"), "{all}");
    assert!(all.contains("kept once"), "{all}");
}

/// A spec that gives two options of one command the same flag (kubectl expose's `-l` for
/// `--selector` and `--labels`) keeps it on the first; an option left without flags goes.
/// (`atip lint`'s `no-duplicate-flags` is an error for a flag two options share.)
#[test]
fn a_flag_two_options_share_stays_with_the_first() {
    let c = conv(json!({
        "name": "t",
        "subcommands": [{"name": "expose", "options": [
            {"name": ["-l", "--selector"], "args": {"name": "query"}},
            {"name": ["-l", "--labels"], "args": {"name": "labels"}},
            {"name": "-l", "args": {"name": "again"}}
        ]}]
    }));
    let options = c.document["commands"]["expose"]["options"]
        .as_array()
        .unwrap();
    let flags: Vec<&Value> = options.iter().map(|o| &o["flags"]).collect();
    assert_eq!(flags, [&json!(["-l", "--selector"]), &json!(["--labels"])]);
    let all: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
    let all = all.join("\n");
    assert!(
        all.contains("-l is also another option's here: dropped from this one"),
        "{all}"
    );
    assert!(
        all.contains("every flag of this option is another option's: dropped"),
        "{all}"
    );
    load(&c.document);
}

/// An option whose value makes the tool run a program (git's `-c`, `--upload-pack`) carries
/// effects of its own that are never read-only, and says so in its description; a boolean
/// option of the same flag runs nothing.
#[test]
fn options_that_run_programs_carry_effects_of_their_own() {
    let c = conv(json!({
        "name": "git",
        "options": [{"name": "-c", "args": {"name": "name=value"}}],
        "subcommands": [
            {"name": "status", "description": "Show the working tree status"},
            {"name": "fetch", "options": [
                {"name": "--upload-pack", "args": {"name": "path"}},
                {"name": "--exec"}
            ]},
            {"name": "commit", "options": [
                {"name": ["-c", "--reedit-message"], "args": {"name": "commit"}}
            ]}
        ]
    }));
    // `git commit -c` reuses a message: git's `-c` runs programs only before the subcommand.
    assert!(c.document["commands"]["commit"]["options"][0]
        .get("x-atip-rust")
        .is_none());
    let global = &c.document["globalOptions"][0];
    assert_eq!(global["flags"], json!(["-c"]));
    assert_eq!(
        global["x-atip-rust"]["effects"],
        json!({"destructive": true, "subprocess": true, "network": true, "filesystem": {"write": true}})
    );
    assert!(global["description"]
        .as_str()
        .unwrap()
        .contains("[runs programs:"));
    let fetch = c.document["commands"]["fetch"]["options"]
        .as_array()
        .unwrap();
    assert!(fetch[0]["x-atip-rust"]["effects"]["subprocess"] == json!(true));
    assert!(
        fetch[1].get("x-atip-rust").is_none(),
        "a flag without a value runs nothing"
    );
    // The command itself keeps its guess: only a call that gives `-c` brings the effects.
    assert_eq!(
        c.document["commands"]["status"]["effects"]["destructive"],
        false
    );
    load(&c.document);
}

/// A command comes through under its longest name, the others as aliases; a `help` tree
/// that repeats the commands to print help pages is left out.
#[test]
fn commands_take_their_longest_name_and_help_copies_go() {
    let c = conv(json!({
        "name": "helm",
        "subcommands": [
            {"name": ["del", "delete", "un", "uninstall"], "description": "Uninstall a release"},
            {"name": ["ls", "list"], "description": "List releases"},
            {"name": "help", "subcommands": [{"name": "list"}, {"name": "uninstall"}]}
        ]
    }));
    let names: Vec<&String> = c.document["commands"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["uninstall", "list"]);
    assert_eq!(
        c.document["commands"]["uninstall"]["x-atip-rust"]["aliases"],
        json!(["del", "delete", "un"])
    );
    let all: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
    assert!(
        all.join("\n").contains("`help` repeats the command tree"),
        "{all:?}"
    );
}

/// Argument labels become parameter names a model reads; the spec's label stays in the
/// description.
#[test]
fn argument_labels_become_readable_parameter_names() {
    let c = conv(json!({
        "name": "kubectl",
        "subcommands": [{"name": "annotate", "args": [
            {"name": "TYPE | TYPE/NAME"},
            {"name": "KEY=VAL", "isVariadic": true},
            {"name": "<file>"}
        ]}]
    }));
    let args = c.document["commands"]["annotate"]["arguments"]
        .as_array()
        .unwrap();
    let names: Vec<&str> = args.iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["type", "key_val", "file"]);
    assert!(args[0]["description"]
        .as_str()
        .unwrap()
        .contains("(written `TYPE | TYPE/NAME`)"));
    assert!(!args[2]["description"].as_str().unwrap().contains("written"));
    let doc = load(&c.document);
    let params: Vec<&str> = doc.commands[0]
        .arguments
        .iter()
        .map(|p| p.name.as_ref())
        .collect();
    assert_eq!(params, ["type", "key_val", "file"]);
}

#[test]
fn options_argv_cannot_express_are_dropped_with_a_warning() {
    let c = conv(json!({
        "name": "t",
        "options": [
            {"name": "-D", "requiresSeparator": true, "args": {"name": "kv"}},
            {"name": "--x", "requiresSeparator": ":", "args": {"name": "v"}},
            {"name": "--pair", "args": [{"name": "k"}, {"name": "v"}]},
            {"name": "outfile", "args": {"name": "f"}},
            {"name": "--field=value"},
            {"name": "--ok", "requiresSeparator": "=", "args": {"name": "v"}}
        ]
    }));
    load(&c.document);
    let opts = c.document["commands"][""]["options"].as_array().unwrap();
    assert_eq!(opts.len(), 1);
    assert_eq!(opts[0]["name"], "ok");
    assert_eq!(c.warnings.len(), 5, "{:?}", c.warnings);
}

#[test]
fn counts_generators_and_generate_spec() {
    let m = FUNCTION_MARKER;
    let c = conv(json!({
        "name": "t", "generateSpec": m,
        "args": {"name": "x", "generators": {"script": ["t"], "postProcess": m}},
        "options": [{"name": "--y", "args": {"generators": [{"custom": m}]}}]
    }));
    assert_eq!(c.stats.generators, 2);
    assert_eq!(c.stats.generate_specs, 1);
}

#[test]
fn refuses_names_the_schema_refuses() {
    assert_eq!(
        convert(&json!({"name": "c++"}), &generator(), None, 10).unwrap_err(),
        ConvertError::ToolName("c++".into())
    );
    assert_eq!(
        convert(&json!([1]), &generator(), None, 10)
            .unwrap_err()
            .category(),
        "not-a-spec"
    );
}

#[test]
fn the_tool_is_named_after_the_command_the_spec_completes() {
    let c = convert(
        &json!({"name": "@forge/cli"}),
        &generator(),
        Some("forge"),
        10,
    )
    .unwrap();
    assert_eq!(c.document["name"], "forge");
    assert!(c.warnings[0].message.contains("@forge/cli"));
}

#[test]
fn flag_like_subcommands_stay_but_lone_dashes_do_not() {
    let c = conv(
        json!({"name": "gpg", "subcommands": [{"name": "--decrypt"}, {"name": "-"}, {"name": "a b"}]}),
    );
    let doc = load(&c.document);
    let names: Vec<&str> = doc.commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["gpg_--decrypt"]);
    assert_eq!(doc.commands[0].path, ["--decrypt"]);
}

#[test]
fn stops_at_the_command_limit() {
    let subs: Vec<Value> = (0..20).map(|i| json!({"name": format!("c{i}")})).collect();
    let err = convert(
        &json!({"name": "t", "subcommands": subs}),
        &generator(),
        None,
        10,
    )
    .unwrap_err();
    assert_eq!(err, ConvertError::TooManyCommands { limit: 10 });
}

#[test]
fn dangerous_options_make_the_command_destructive_and_say_why() {
    let c = conv(json!({
        "name": "t",
        "subcommands": [
            {"name": "push", "options": [{"name": ["-f", "--force"], "isDangerous": true}]},
            {"name": "archive", "isDangerous": true},
            {"name": "deploy"}
        ]
    }));
    load(&c.document);
    // The option carries the danger: a call with `--force` is destructive, one without is
    // as unknown as before (no read-only guess), and the description names the option.
    let push = &c.document["commands"]["push"];
    assert!(push.get("effects").is_none());
    assert_eq!(
        push["options"][0]["x-atip-rust"]["effects"],
        json!({"destructive": true})
    );
    assert!(push["description"].as_str().unwrap().contains("-f/--force"));
    assert_eq!(
        c.document["commands"]["archive"]["effects"],
        json!({"destructive": true})
    );
    assert!(c.document["commands"]["deploy"].get("effects").is_none());
    assert_eq!(c.stats.destructive, 1);
    let doc = atip_core::Document::parse(
        &c.document.to_string(),
        &atip_core::LoadOptions::strict(),
        &atip_core::FlattenOptions::default(),
    )
    .unwrap();
    let push = doc
        .commands
        .iter()
        .find(|cmd| cmd.name == "t_push")
        .unwrap();
    assert_eq!(push.effects.destructive, None);
    let force = push.params().find(|p| p.name == "force").unwrap();
    assert_eq!(force.effects.as_ref().unwrap().destructive, Some(true));
}

#[test]
fn long_root_descriptions_are_cut_at_the_schema_limit() {
    let long = "é".repeat(300);
    let c = conv(json!({"name": "t", "description": long}));
    let d = c.document["description"].as_str().unwrap();
    assert_eq!(d.chars().count(), MAX_TOOL_DESCRIPTION);
    load(&c.document);
}
