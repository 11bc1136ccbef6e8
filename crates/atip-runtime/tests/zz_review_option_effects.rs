//! Review PoCs: per-option effects (x-atip-rust.effects).

#![cfg(all(unix, feature = "exec"))]

use atip_runtime::policy::Decision;
use atip_runtime::{Document, FlattenOptions, LoadOptions, Policy, Runner, RuntimeTool, ToolCall};
use serde_json::{json, Value};

fn load(text: &str, options: &LoadOptions) -> Result<RuntimeTool, String> {
    Document::parse(text, options, &FlattenOptions::default())
        .map(|d| RuntimeTool::new(d, None))
        .map_err(|e| e.to_string())
}

fn call(name: &str, args: Value) -> ToolCall {
    let Value::Object(m) = args else { panic!() };
    ToolCall::new(Some("c".into()), name, m)
}

/// `wipe` leaves `destructive` undeclared (unknown is not safe: confirm). Its `--verbose`
/// option documents that verbosity has no effects of its own: `destructive: false`.
const WIPE: &str = r#"{
  "atip": {"version": "0.6"}, "name": "wipe", "version": "1", "description": "x",
  "commands": {
    "disk": {
      "description": "Wipe a disk",
      "arguments": [{"name": "device", "type": "string", "description": "d"}],
      "options": [
        {"name": "verbose", "flags": ["-v", "--verbose"], "type": "boolean",
         "description": "More output",
         "x-atip-rust": {"effects": {"destructive": false, "reversible": true,
           "network": false, "filesystem": {"write": false, "delete": false},
           "cost": {"estimate": "free", "billable": false},
           "interactive": {"stdin": "none", "prompts": false, "tty": false}}}}
      ]
    }
  }
}"#;

/// ATTACK A1: giving an option whose effects declare `false` fills what the command left
/// unknown: the plain call needs a person, the same call plus `verbose: true` runs unasked.
#[test]
fn a1_an_option_declaring_false_lowers_the_risk_of_the_call() {
    let tool = load(WIPE, &LoadOptions::strict()).unwrap();
    let runner = Runner::new();
    let plain = tool
        .invocation(&call("wipe_disk", json!({"device": "/dev/sda"})))
        .unwrap();
    let verbose = tool
        .invocation(&call(
            "wipe_disk",
            json!({"device": "/dev/sda", "verbose": true}),
        ))
        .unwrap();
    let d_plain = runner.decide(&plain);
    let d_verbose = runner.decide(&verbose);
    println!(
        "plain   effects.destructive = {:?} -> {:?}",
        plain.effects.destructive, d_plain
    );
    println!(
        "verbose effects.destructive = {:?} -> {:?}",
        verbose.effects.destructive, d_verbose
    );
    assert!(matches!(d_plain, Decision::NeedsConfirmation(_)));
    assert_eq!(
        d_verbose,
        Decision::Allow,
        "ESCAPE: adding --verbose removed the confirmation"
    );

    // Same with a strict policy that requires known effects and confirms writes/network.
    let strict: Policy = serde_json::from_str(
        r#"{"requireKnownEffects": true, "network": "confirm", "filesystemWrite": "confirm",
            "filesystemDelete": "confirm", "maxCostEstimate": "low"}"#,
    )
    .unwrap();
    let runner = Runner::new().policy(strict);
    let d_plain = runner.decide(&plain);
    let d_verbose = runner.decide(&verbose);
    println!(
        "strict policy: plain -> {} reasons ({:?})",
        d_plain.reasons().len(),
        d_plain
            .reasons()
            .iter()
            .map(|r| r.code.as_str())
            .collect::<Vec<_>>()
    );
    println!("strict policy: verbose -> {d_verbose:?}");
    assert_eq!(
        d_verbose,
        Decision::Allow,
        "ESCAPE under requireKnownEffects too"
    );
}

/// Check: options inherited from a parent command and global options carry their effects.
#[test]
fn a6_inherited_and_global_options_count() {
    let text = r#"{
      "atip": {"version": "0.6"}, "name": "t", "version": "1", "description": "x",
      "globalOptions": [
        {"name": "yolo", "flags": ["--yolo"], "type": "boolean", "description": "g",
         "x-atip-rust": {"effects": {"destructive": true}}}
      ],
      "commands": {
        "grp": {
          "description": "group",
          "options": [
            {"name": "nuke", "flags": ["--nuke"], "type": "boolean", "description": "p",
             "x-atip-rust": {"effects": {"destructive": true}}}
          ],
          "commands": {
            "leaf": {"description": "leaf", "effects": {"destructive": false}}
          }
        }
      }
    }"#;
    let tool = load(text, &LoadOptions::strict()).unwrap();
    let names: Vec<_> = tool.names().collect();
    println!("commands: {names:?}");
    let spec = tool
        .specs()
        .iter()
        .find(|s| s.name == "t_grp_leaf")
        .unwrap();
    for p in spec.params.iter() {
        println!(
            "param {} global={} effects={:?}",
            p.name,
            p.global,
            p.effects.is_some()
        );
    }
    let runner = Runner::new();
    for args in [
        json!({}),
        json!({"yolo": true}),
        json!({"nuke": true}),
        json!({"yolo": "true"}),
    ] {
        match tool.invocation(&call("t_grp_leaf", args.clone())) {
            Ok(inv) => println!("{args} -> argv {:?} -> {:?}", inv.argv, runner.decide(&inv)),
            Err(e) => println!("{args} -> dispatch error {e}"),
        }
    }
}

/// ATTACK A5: malformed / misspelt x-atip-rust in lenient (and strict) mode.
#[test]
fn a5_malformed_extension() {
    let with = |ext: &str| {
        format!(
            r#"{{
      "atip": {{"version": "0.6"}}, "name": "t", "version": "1", "description": "x",
      "commands": {{
        "push": {{
          "description": "push", "effects": {{"destructive": false}},
          "options": [
            {{"name": "force", "flags": ["--force"], "type": "boolean", "description": "f",
             "x-atip-rust": {ext}}}
          ]
        }}
      }}
    }}"#
        )
    };
    let cases = [
        r#"{"effects": {"destructive": "yes"}}"#,
        r#"{"effects": {"destructive": true, "bogus": 1}}"#,
        r#"{"effects": "destructive"}"#,
        r#"{"effects": null}"#,
        r#"{"Effects": {"destructive": true}}"#,
        r#"{"effect": {"destructive": true}}"#,
        r#""destructive""#,
        r#"null"#,
        r#"{"effects": {"destructive": true}, "effects": {}}"#,
    ];
    for ext in cases {
        for (mode, opts) in [
            ("strict", LoadOptions::strict()),
            ("lenient", LoadOptions::lenient()),
        ] {
            match Document::parse(&with(ext), &opts, &FlattenOptions::default()) {
                Ok(doc) => {
                    let warnings: Vec<String> =
                        doc.warnings.iter().map(|w| w.message.clone()).collect();
                    let skipped = doc.skipped.len();
                    let tool = RuntimeTool::new(doc, None);
                    let d = tool
                        .invocation(&call("t_push", json!({"force": true})))
                        .map(|inv| format!("{:?}", Runner::new().decide(&inv)))
                        .unwrap_or_else(|e| format!("dispatch error {e}"));
                    println!("{mode:8} {ext:55} LOADED skipped={skipped} warnings={warnings:?} force -> {d}");
                }
                Err(e) => println!(
                    "{mode:8} {ext:55} REFUSED: {}",
                    e.to_string().lines().next().unwrap_or("")
                ),
            }
        }
    }
}
