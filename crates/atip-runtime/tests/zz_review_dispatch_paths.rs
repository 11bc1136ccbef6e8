//! Review PoCs: does every dispatch path count per-option effects?

#![cfg(all(unix, feature = "exec", feature = "search", feature = "macros"))]

mod git {
    atip_runtime::include_atip!("../../examples/atip/git.json");
}

use atip_runtime::search::MetaTools;
use atip_runtime::{
    Command, Dispatch, Document, FlattenOptions, GeneratedCommands, Policy, Runner, RuntimeTool,
    ToInvocation, ToolCall, ToolGroup,
};
use serde_json::{json, Value};

fn tool() -> RuntimeTool {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/atip/git.json");
    RuntimeTool::new(
        Document::from_path(
            &path,
            atip_runtime::Mode::Strict,
            &FlattenOptions::default(),
        )
        .unwrap(),
        None,
    )
}

fn call(name: &str, args: Value) -> ToolCall {
    let Value::Object(m) = args else { panic!() };
    ToolCall::new(Some("c".into()), name, m)
}

#[test]
fn every_dispatch_path() {
    let t = tool();
    let runner = Runner::new();
    let show = |what: &str, inv: atip_runtime::Invocation| {
        println!(
            "{what:40} argv={:?} destructive={:?} decision={}",
            inv.argv,
            inv.effects.destructive,
            match runner.decide(&inv) {
                atip_runtime::policy::Decision::Allow => "ALLOW".to_owned(),
                d => format!(
                    "{:?}",
                    d.reasons()
                        .iter()
                        .map(|r| r.message.clone())
                        .collect::<Vec<_>>()
                ),
            }
        );
    };
    // Loaded tool.
    show(
        "RuntimeTool force",
        t.invocation(&call("git_push", json!({"force": true})))
            .unwrap(),
    );
    show(
        "RuntimeTool json text force",
        t.invocation_from_json_text("git_push", r#"{"force":"true"}"#)
            .unwrap(),
    );
    show(
        "RuntimeTool refspec +main",
        t.invocation(&call(
            "git_push",
            json!({"repository":"origin","refspec":["+main"]}),
        ))
        .unwrap(),
    );
    // Group.
    let group = ToolGroup::from_path(t.specs(), &[], "git_all", "all").unwrap();
    println!("group renamed: {:?}", group.renamed());
    let resolved = group
        .resolve(&call("git_all", json!({"action": "push", "force": true})))
        .unwrap();
    show("ToolGroup push force", t.invocation(&resolved).unwrap());
    // Meta-tools.
    let meta = MetaTools::new(tool());
    let inv = meta
        .invocation(&call(
            "run_command",
            json!({"name": "git_push", "arguments": "{\"force\": true}"}),
        ))
        .unwrap();
    show("MetaTools run_command force", inv);
    // Generated.
    let gen = GeneratedCommands::<git::Call>::new();
    show(
        "GeneratedCommands force",
        gen.invocation(&call("git_push", json!({"force": true})))
            .unwrap(),
    );
    let typed = git::Push::new().force(true);
    show("typed Push::force(true)", typed.to_invocation().unwrap());
    let c: git::Call = typed.clone().into();
    show("typed Call::GitPush", c.to_invocation().unwrap());

    // ATTACK A2: the generated Call enum's own `effects()` ignores the option's effects, while
    // `Command::effects()` of the same value counts it.
    println!(
        "git::Call::effects().destructive = {:?}   Command::effects(&Push).destructive = {:?}",
        c.effects().destructive,
        Command::effects(&typed).destructive
    );
    let decision = Policy::default().evaluate_effects(c.name(), &c.effects());
    println!("Policy::evaluate_effects(call.name(), &call.effects()) = {decision:?}");
    assert_eq!(c.effects().destructive, Some(false));
    assert_eq!(Command::effects(&typed).destructive, Some(true));
}
