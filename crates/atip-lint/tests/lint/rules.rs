//! Each lint rule and each diff change kind on small inline documents (no ../shared needed).

use atip_lint::{diff_texts, has_errors, lint, Bump, Category, ChangeKind, Impact, Severity};
use serde_json::{json, Value};

/// A valid document with one command, `cmd`, whose body is merged with `command`; `root`
/// members are merged into the tool.
fn doc(root: Value, command: Value) -> String {
    let mut cmd = json!({"description": "Do the one thing", "effects": {"network": false}});
    merge(&mut cmd, command);
    let mut tool = json!({
        "atip": {"version": "0.6"}, "name": "tool", "version": "1.0.0",
        "description": "A tool for tests",
        "commands": {"cmd": cmd}
    });
    merge(&mut tool, root);
    tool.to_string()
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(a), Value::Object(b)) = (into, from) {
        for (k, v) in b {
            if v.is_null() {
                a.remove(&k);
            } else {
                a.insert(k, v);
            }
        }
    }
}

/// `(rule, severity, path)` of every finding.
fn findings(text: &str) -> Vec<(&'static str, Severity, String)> {
    lint(text)
        .into_iter()
        .map(|f| (f.rule, f.severity, f.path.to_string()))
        .collect()
}

fn only(text: &str, rule: &str) -> Vec<(Severity, String)> {
    findings(text)
        .into_iter()
        .filter(|(r, _, _)| *r == rule)
        .map(|(_, s, p)| (s, p))
        .collect()
}

#[test]
fn a_clean_document_has_no_finding() {
    assert_eq!(findings(&doc(json!({}), json!({}))), []);
}

#[test]
fn destructive_needs_reversible() {
    let text = doc(json!({}), json!({"effects": {"destructive": true}}));
    assert_eq!(
        only(&text, "destructive-needs-reversible"),
        [(Severity::Warn, "$.commands.cmd.effects".to_owned())]
    );
    let fine = doc(
        json!({}),
        json!({"effects": {"destructive": true, "reversible": false}}),
    );
    assert_eq!(only(&fine, "destructive-needs-reversible"), []);
}

#[test]
fn billable_needs_confirmation() {
    let text = doc(
        json!({}),
        json!({"effects": {"cost": {"billable": true}, "idempotent": true}}),
    );
    assert_eq!(
        only(&text, "billable-needs-confirmation"),
        [(
            Severity::Warn,
            "$.commands.cmd.effects.idempotent".to_owned()
        )]
    );
    let fine = doc(
        json!({}),
        json!({"effects": {"cost": {"billable": true}, "idempotent": false}}),
    );
    assert_eq!(only(&fine, "billable-needs-confirmation"), []);
}

#[test]
fn no_duplicate_flags() {
    let opt = |name: &str, flags: Value| json!({"name": name, "flags": flags, "type": "boolean", "description": "A flag for tests"});
    let text = doc(
        json!({"globalOptions": [opt("verbose", json!(["-v", "--verbose"]))]}),
        json!({"options": [
            opt("version", json!(["-v"])),
            opt("all", json!(["-a", "--all"])),
            opt("also", json!(["--all"])),
            opt("twice", json!(["-t", "-t"]))
        ]}),
    );
    let found = only(&text, "no-duplicate-flags");
    // A flag that is also a global option's is a warning: the global one goes before the
    // command path, the command's own after it, so the argv is never ambiguous.
    assert_eq!(
        found,
        [
            (Severity::Warn, "$.commands.cmd.options[0].flags".to_owned()),
            (
                Severity::Error,
                "$.commands.cmd.options[2].flags".to_owned()
            ),
            (
                Severity::Error,
                "$.commands.cmd.options[3].flags".to_owned()
            ),
        ]
    );
    assert!(has_errors(&lint(&text)));
}

#[test]
fn consistent_naming() {
    let mut v: Value = serde_json::from_str(&doc(json!({}), json!({}))).unwrap();
    let cmd = v["commands"]["cmd"].clone();
    v["commands"]["listItems"] = cmd.clone();
    v["commands"]["create_item"] = cmd;
    v["commands"]["cmd"]["options"] = json!([{"name": "dryRun", "flags": ["--dry-run"], "type": "boolean", "description": "Only report"}]);
    let found = only(&v.to_string(), "consistent-naming");
    assert_eq!(
        found,
        [
            (Severity::Warn, "$.commands.cmd.options[0].name".to_owned()),
            (Severity::Warn, "$.commands.listItems".to_owned()),
            (Severity::Warn, "$.commands.create_item".to_owned()),
        ]
    );
}

#[test]
fn valid_effects_values_even_where_the_schema_rejects_the_document() {
    let text = doc(
        json!({}),
        json!({"effects": {"destructive": "yes", "cost": {"estimate": "pricey"},
                           "duration": {"typical": "5 seconds"}}}),
    );
    let paths: Vec<String> = only(&text, "valid-effects-values")
        .into_iter()
        .map(|(s, p)| {
            assert_eq!(s, Severity::Error);
            p
        })
        .collect();
    assert_eq!(
        paths,
        [
            "$.commands.cmd.effects.destructive",
            "$.commands.cmd.effects.cost.estimate",
            "$.commands.cmd.effects.duration.typical"
        ]
    );
    assert!(!only(&text, "schema").is_empty());
}

#[test]
fn no_empty_effects() {
    let none = doc(json!({}), json!({"effects": null}));
    assert_eq!(
        only(&none, "no-empty-effects"),
        [(Severity::Warn, "$.commands.cmd".to_owned())]
    );
    let empty = doc(json!({}), json!({"effects": {}}));
    assert_eq!(
        only(&empty, "no-empty-effects"),
        [(Severity::Warn, "$.commands.cmd.effects".to_owned())]
    );
    // A group needs none of its own.
    let group = doc(
        json!({}),
        json!({"effects": null, "commands": {"sub": {"description": "The sub command", "effects": {"network": false}}}}),
    );
    assert_eq!(only(&group, "no-empty-effects"), []);
}

#[test]
fn trust_source_requirements() {
    let native = doc(
        json!({"trust": {"source": "native"}}),
        json!({"effects": null, "commands": {"sub": {"description": "The sub command", "effects": {"network": false}}}}),
    );
    assert_eq!(
        only(&native, "trust-source-requirements"),
        [(Severity::Warn, "$.commands.cmd.effects".to_owned())]
    );
    let vendor = doc(json!({"trust": {"source": "vendor"}}), json!({}));
    assert_eq!(
        only(&vendor, "trust-source-requirements"),
        [(Severity::Warn, "$.homepage".to_owned())]
    );
    let inferred = doc(
        json!({"trust": {"source": "inferred", "verified": true}}),
        json!({}),
    );
    assert_eq!(
        only(&inferred, "trust-source-requirements"),
        [(Severity::Warn, "$.trust.verified".to_owned())]
    );
}

#[test]
fn description_quality_and_missing_fields() {
    let text = doc(
        json!({"description": "TODO"}),
        json!({"arguments": [{"name": "x", "type": "enum", "description": "lowercase start here"}]}),
    );
    let dq = only(&text, "description-quality");
    assert!(
        dq.contains(&(Severity::Warn, "$.description".to_owned())),
        "{dq:?}"
    );
    assert!(dq.contains(&(
        Severity::Warn,
        "$.commands.cmd.arguments[0].description".to_owned()
    )));
    assert_eq!(
        only(&text, "no-missing-required-fields"),
        [(
            Severity::Error,
            "$.commands.cmd.arguments[0].enum".to_owned()
        )]
    );
}

#[test]
fn injection_vector_options() {
    let opt = |name: &str, flags: Value, ty: &str| json!({"name": name, "flags": flags, "type": ty, "description": "An option for tests"});
    // Any tool: --exec runs programs; a warning, or an error against `subprocess: false`.
    let warn = doc(
        json!({}),
        json!({"options": [opt("exec", json!(["--exec"]), "string")]}),
    );
    assert_eq!(
        only(&warn, "injection-vector-option"),
        [(Severity::Warn, "$.commands.cmd.options[0]".to_owned())]
    );
    let error = doc(
        json!({}),
        json!({"effects": {"subprocess": false},
               "options": [opt("exec", json!(["--exec"]), "string")]}),
    );
    assert_eq!(
        only(&error, "injection-vector-option"),
        [(Severity::Error, "$.commands.cmd.options[0]".to_owned())]
    );
    // `-c` only for git-like tools.
    let c = json!({"globalOptions": [opt("config", json!(["-c"]), "string")]});
    assert_eq!(
        only(&doc(c.clone(), json!({})), "injection-vector-option"),
        []
    );
    let mut git = c;
    git["name"] = json!("git");
    assert_eq!(
        only(&doc(git.clone(), json!({})), "injection-vector-option"),
        [(Severity::Warn, "$.globalOptions[0]".to_owned())]
    );
    // …and only before the command path: a command's own `-c` (`git commit -c`, reuse a
    // message) means something else.
    let mut own = git;
    own.as_object_mut().unwrap().remove("globalOptions");
    assert_eq!(
        only(
            &doc(
                own,
                json!({"options": [opt("reedit", json!(["-c"]), "string")]})
            ),
            "injection-vector-option"
        ),
        []
    );
    // --output writes files: flagged on a command that does not declare writes, unless it
    // is a format enumeration.
    let output = |effects: Value, ty: &str| {
        let mut o = opt("output", json!(["-o", "--output"]), ty);
        if ty == "enum" {
            o["enum"] = json!(["json", "text"]);
        }
        doc(json!({}), json!({"effects": effects, "options": [o]}))
    };
    assert_eq!(
        only(
            &output(json!({"filesystem": {"write": false}}), "file"),
            "injection-vector-option"
        ),
        [(Severity::Error, "$.commands.cmd.options[0]".to_owned())]
    );
    assert_eq!(
        only(
            &output(json!({"network": false}), "file"),
            "injection-vector-option"
        ),
        [(Severity::Warn, "$.commands.cmd.options[0]".to_owned())]
    );
    assert_eq!(
        only(
            &output(json!({"filesystem": {"write": true}}), "file"),
            "injection-vector-option"
        ),
        []
    );
    assert_eq!(
        only(
            &output(json!({"network": false}), "enum"),
            "injection-vector-option"
        ),
        []
    );
    // A string option that names a format (kubectl's and helm's `-o, --output`) is no path,
    // even where the command declares no writes; one that says nothing of a format still is.
    let described = |description: &str| {
        let mut o = opt("output", json!(["-o", "--output"]), "string");
        o["description"] = json!(description);
        doc(
            json!({}),
            json!({"effects": {"filesystem": {"write": false}}, "options": [o]}),
        )
    };
    for format in [
        "Output format. One of: json|yaml|name|go-template-file|jsonpath-file.",
        "Prints the output in the specified format. Allowed values: table, json, yaml",
    ] {
        assert_eq!(
            only(&described(format), "injection-vector-option"),
            [],
            "{format}"
        );
    }
    assert_eq!(
        only(
            &described("Write to this file instead of stdout"),
            "injection-vector-option"
        ),
        [(Severity::Error, "$.commands.cmd.options[0]".to_owned())]
    );
    assert_eq!(
        only(
            &described("Reformatted output goes here"),
            "injection-vector-option"
        ),
        [(Severity::Error, "$.commands.cmd.options[0]".to_owned())],
        "a word that only contains `format` says nothing"
    );
}

#[test]
fn positional_order() {
    let arg = |name: &str, extra: Value| {
        let mut a = json!({"name": name, "type": "string", "description": "An argument for tests"});
        merge(&mut a, extra);
        a
    };
    let text = doc(
        json!({}),
        json!({"arguments": [arg("a", json!({"required": false})), arg("b", json!({}))]}),
    );
    // A warning, as `atip check` says it: a call that gives every positional works.
    assert_eq!(
        only(&text, "positional-order"),
        [(Severity::Warn, "$.commands.cmd.arguments[1]".to_owned())]
    );
    let variadic = doc(
        json!({}),
        json!({"arguments": [arg("a", json!({"variadic": true})), arg("b", json!({"required": false}))]}),
    );
    assert_eq!(
        only(&variadic, "positional-order"),
        [(Severity::Warn, "$.commands.cmd.arguments[1]".to_owned())]
    );
    let fine = doc(
        json!({}),
        json!({"arguments": [arg("a", json!({})), arg("b", json!({"required": false, "variadic": true}))]}),
    );
    assert_eq!(only(&fine, "positional-order"), []);
}

#[test]
fn effects_overridden() {
    let text = doc(
        json!({"effects": {"destructive": true, "reversible": false}}),
        json!({"effects": {"destructive": false, "reversible": true}}),
    );
    assert_eq!(
        only(&text, "effects-overridden"),
        [
            (
                Severity::Warn,
                "$.commands.cmd.effects.destructive".to_owned()
            ),
            (
                Severity::Warn,
                "$.commands.cmd.effects.reversible".to_owned()
            ),
        ]
    );
    // Under a group too.
    let nested = doc(
        json!({}),
        json!({"effects": {"network": true},
               "commands": {"sub": {"description": "The sub command", "effects": {"network": false}}}}),
    );
    assert_eq!(
        only(&nested, "effects-overridden"),
        [(
            Severity::Warn,
            "$.commands.cmd.commands.sub.effects.network".to_owned()
        )]
    );
}

#[test]
fn not_json_is_one_schema_error() {
    let found = findings("{");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, "schema");
    assert_eq!(found[0].1, Severity::Error);
}

// ----- diff ---------------------------------------------------------------------------------

fn kinds(old: &str, new: &str) -> (Vec<ChangeKind>, Bump) {
    let report = diff_texts(old, "old", new, "new").unwrap();
    (
        report.changes.iter().map(|c| c.kind).collect(),
        report.semver,
    )
}

#[test]
fn command_and_argument_changes() {
    let base = doc(json!({}), json!({}));
    let arg = |required: bool| json!({"arguments": [{"name": "file", "type": "file", "description": "The file", "required": required}]});
    let with_other = doc(
        json!({"commands": {"cmd": {"description": "Do the one thing", "effects": {"network": false}},
                            "other": {"description": "Another", "effects": {"network": false}}}}),
        json!({}),
    );
    assert_eq!(
        kinds(&base, &with_other),
        (vec![ChangeKind::CommandAdded], Bump::Minor)
    );
    assert_eq!(
        kinds(&with_other, &base),
        (vec![ChangeKind::CommandRemoved], Bump::Major)
    );
    assert_eq!(
        kinds(&base, &doc(json!({}), arg(true))),
        (vec![ChangeKind::RequiredArgumentAdded], Bump::Major)
    );
    assert_eq!(
        kinds(&base, &doc(json!({}), arg(false))),
        (vec![ChangeKind::OptionalArgumentAdded], Bump::Minor)
    );
    assert_eq!(
        kinds(&doc(json!({}), arg(false)), &doc(json!({}), arg(true))),
        (vec![ChangeKind::ArgumentMadeRequired], Bump::Major)
    );
    assert_eq!(
        kinds(&doc(json!({}), arg(true)), &base),
        (vec![ChangeKind::ArgumentRemoved], Bump::Major)
    );
}

#[test]
fn option_changes() {
    let opt = |flags: Value, ty: &str, required: bool| json!({"options": [{"name": "out", "flags": flags, "type": ty, "description": "Where", "required": required}]});
    let base = doc(json!({}), json!({}));
    let plain = doc(json!({}), opt(json!(["-o", "--out"]), "string", false));
    assert_eq!(
        kinds(&base, &plain),
        (vec![ChangeKind::OptionalOptionAdded], Bump::Minor)
    );
    assert_eq!(
        kinds(
            &base,
            &doc(json!({}), opt(json!(["--out"]), "string", true))
        ),
        (vec![ChangeKind::RequiredOptionAdded], Bump::Major)
    );
    assert_eq!(
        kinds(&plain, &base),
        (vec![ChangeKind::OptionRemoved], Bump::Major)
    );
    assert_eq!(
        kinds(
            &plain,
            &doc(json!({}), opt(json!(["--out"]), "string", false))
        ),
        (vec![ChangeKind::OptionFlagsChanged], Bump::Major)
    );
    assert_eq!(
        kinds(
            &plain,
            &doc(json!({}), opt(json!(["-o", "--out"]), "file", false))
        ),
        (vec![ChangeKind::TypeMadeStricter], Bump::Major)
    );
    assert_eq!(
        kinds(
            &doc(json!({}), opt(json!(["-o", "--out"]), "url", false)),
            &plain
        ),
        (vec![ChangeKind::TypeRelaxed], Bump::Minor)
    );
    assert_eq!(
        kinds(
            &plain,
            &doc(json!({}), opt(json!(["-o", "--out"]), "string", true))
        ),
        (vec![ChangeKind::OptionMadeRequired], Bump::Major)
    );
    assert_eq!(
        kinds(
            &doc(json!({}), opt(json!(["-o", "--out"]), "string", true)),
            &plain
        ),
        (vec![ChangeKind::OptionMadeOptional], Bump::Minor)
    );
}

#[test]
fn enum_default_description_and_version_changes() {
    let e = |values: Value, default: &str, description: &str| {
        json!({"options": [{"name": "mode", "flags": ["--mode"], "type": "enum", "enum": values,
                            "default": default, "description": description}]})
    };
    let a = doc(json!({}), e(json!(["a", "b"]), "a", "Mode"));
    let (k, bump) = kinds(&a, &doc(json!({}), e(json!(["b", "c"]), "b", "The mode")));
    assert_eq!(
        k,
        [
            ChangeKind::EnumValuesRemoved,
            ChangeKind::EnumValuesAdded,
            ChangeKind::DescriptionChanged,
            ChangeKind::DefaultValueChanged
        ]
    );
    assert_eq!(bump, Bump::Major);
    // A new version alone calls for no bump: it is the bump's outcome.
    let v2 = doc(
        json!({"version": "1.0.1"}),
        e(json!(["a", "b"]), "a", "Mode"),
    );
    assert_eq!(
        kinds(&a, &v2),
        (vec![ChangeKind::VersionChanged], Bump::None)
    );
    let home = doc(
        json!({"homepage": "https://example.com"}),
        e(json!(["a", "b"]), "a", "Mode"),
    );
    assert_eq!(
        kinds(&a, &home),
        (vec![ChangeKind::HomepageChanged], Bump::Minor)
    );
    let examples = doc(json!({}), {
        let mut c = e(json!(["a", "b"]), "a", "Mode");
        c["examples"] = json!(["tool cmd --mode=a"]);
        c
    });
    assert_eq!(
        kinds(&a, &examples),
        (vec![ChangeKind::ExamplesChanged], Bump::Minor)
    );
    let patterns = doc(
        json!({"patterns": [{"name": "p", "description": "A pattern", "steps": [{"command": "tool cmd"}]}]}),
        e(json!(["a", "b"]), "a", "Mode"),
    );
    assert_eq!(
        kinds(&a, &patterns),
        (vec![ChangeKind::PatternsChanged], Bump::Minor)
    );
}

#[test]
fn effects_changes_with_their_impact() {
    let eff = |e: Value| doc(json!({}), json!({"effects": e}));
    let base = eff(json!({"network": false, "destructive": false, "reversible": true}));
    let report = diff_texts(
        &base,
        "old",
        &eff(json!({"network": true, "destructive": true, "reversible": false, "subprocess": true,
                    "idempotent": false, "filesystem": {"write": true}, "cost": {"billable": true, "estimate": "high"},
                    "interactive": {"prompts": true}, "duration": {"timeout": "60s"}})),
        "new",
    )
    .unwrap();
    let got: Vec<(ChangeKind, Option<Impact>)> =
        report.changes.iter().map(|c| (c.kind, c.impact)).collect();
    assert_eq!(
        got,
        [
            (ChangeKind::DestructiveAdded, Some(Impact::High)),
            (ChangeKind::ReversibleChanged, Some(Impact::Medium)),
            (ChangeKind::IdempotentChanged, Some(Impact::Medium)),
            (ChangeKind::NetworkChanged, Some(Impact::Low)),
            (ChangeKind::SubprocessChanged, Some(Impact::Medium)),
            (ChangeKind::FilesystemChanged, Some(Impact::Medium)),
            (ChangeKind::InteractiveChanged, Some(Impact::Medium)),
            (ChangeKind::CostChanged, Some(Impact::High)),
            (ChangeKind::CostChanged, Some(Impact::Low)),
            (ChangeKind::DurationChanged, Some(Impact::Low)),
        ]
    );
    assert!(report
        .changes
        .iter()
        .all(|c| c.category == Category::Effects));
    assert_eq!(report.semver, Bump::Minor, "a high-impact effects change");
    assert!(!report.is_breaking());
    let (k, bump) = kinds(
        &base,
        &eff(json!({"network": true, "destructive": false, "reversible": true})),
    );
    assert_eq!((k, bump), (vec![ChangeKind::NetworkChanged], Bump::Patch));
    let (k, _) = kinds(
        &eff(json!({"destructive": true, "reversible": false})),
        &eff(json!({"reversible": false})),
    );
    assert_eq!(k, [ChangeKind::DestructiveRemoved]);
    assert_eq!(kinds(&base, &base), (vec![], Bump::None));
}

#[test]
fn every_change_kind_has_an_id_and_a_category() {
    for kind in ChangeKind::ALL {
        assert!(!kind.id().is_empty());
        let expected = match kind.id() {
            "command-removed"
            | "required-argument-added"
            | "required-option-added"
            | "type-made-stricter"
            | "enum-values-removed"
            | "argument-removed"
            | "option-removed"
            | "option-flags-changed"
            | "argument-made-required"
            | "option-made-required" => Category::Breaking,
            id if id.starts_with("destructive")
                || id.ends_with("-changed")
                    && [
                        "reversible",
                        "idempotent",
                        "network",
                        "subprocess",
                        "filesystem",
                        "cost",
                        "interactive",
                        "duration",
                    ]
                    .iter()
                    .any(|e| id.starts_with(e)) =>
            {
                Category::Effects
            }
            _ => Category::NonBreaking,
        };
        assert_eq!(kind.category(), expected, "{kind}");
    }
    assert_eq!(ChangeKind::ALL.len(), 33);
}
