//! rig-core interop: generated commands as rig tools (definition and call), rig's definitions
//! and tool calls converted to and from ours.

use atip_runtime::interop::rig::{from_rig_call, rig_definition, RigTool};
use atip_runtime::{Command, Runner};
use rig_core::tool::PortableTool;
use serde_json::{json, Value};

mod git {
    atip_runtime::include_atip!("../../examples/atip/git.json");
}

#[test]
fn a_generated_command_is_a_rig_tool_with_its_schema() {
    let tool = RigTool::<git::Status>::new(Runner::new());
    assert_eq!(<RigTool<git::Status> as PortableTool>::NAME, "git_status");
    let ours: Value = atip_runtime::providers::tool_definition(
        git::Status::tool(),
        atip_runtime::Provider::Anthropic,
    );
    assert_eq!(tool.parameters(), ours["input_schema"]);
    assert_eq!(tool.description(), ours["description"]);

    // Both ways: rig's definition serialises to our name/description/schema and reads back.
    let def = rig_definition(<git::Status as Command>::tool());
    let json = serde_json::to_value(&def).unwrap();
    assert_eq!(
        json,
        json!({"name": "git_status", "description": ours["description"], "parameters": ours["input_schema"]})
    );
    let back: rig_core::completion::ToolDefinition = serde_json::from_value(json).unwrap();
    assert_eq!(back.name.as_str(), "git_status");
}

#[test]
fn rig_tool_calls_dispatch_and_rig_tools_run_under_the_policy() {
    let theirs: rig_core::completion::message::ToolCall = serde_json::from_value(json!({
        "id": {"provider": "call_7"},
        "function": {"name": "git_log", "arguments": {"oneline": true, "max_count": 3}}
    }))
    .unwrap();
    let ours = from_rig_call(&theirs);
    assert_eq!(ours.id.as_deref(), Some("call_7"));
    let command = git::Call::from_tool_call(&ours).unwrap();
    assert_eq!(command.argv(), ["git", "log", "--oneline", "--max-count=3"]);

    let dir = tempfile::tempdir().unwrap();
    let in_repo = Runner::new().current_dir(dir.path());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let init = RigTool::<git::Init>::new(in_repo.clone());
        let args = json!({}).as_object().unwrap().clone();
        let out = init.call(args).await.unwrap();
        assert!(out.contains("Initialized empty Git repository"), "{out}");
        assert!(dir.path().join(".git").is_dir());

        let clean = RigTool::<git::Clean>::new(in_repo.clone());
        let args = json!({"force": true}).as_object().unwrap().clone();
        let err = clean.call(args).await.unwrap_err();
        assert!(err.0.contains("needs a person's confirmation"), "{err}");

        let bad = json!({"short": "yes"}).as_object().unwrap().clone();
        let err = RigTool::<git::Status>::new(Runner::new())
            .call(bad)
            .await
            .unwrap_err();
        assert!(err.0.contains("parameter `short`"), "{err}");
    });
}
