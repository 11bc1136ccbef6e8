//! rmcp interop: generated MCP definitions as rmcp `Tool`s and back unchanged; rmcp
//! `CallToolRequestParams` dispatched through a generated module's `Call` and through loaded
//! metadata, run for real.

use crate::{tools_of, McpServer};
use atip_runtime::Runner;
use serde_json::{json, Value};

mod git {
    atip_runtime::include_atip!("../../examples/atip/git.json");
}

fn generated(runner: Runner) -> McpServer {
    McpServer::for_module::<git::Call>(runner).unwrap()
}

fn request(v: Value) -> rmcp::model::CallToolRequestParams {
    serde_json::from_value(v).unwrap()
}

#[test]
fn generated_definitions_convert_both_ways_unchanged() {
    let server = generated(Runner::new());
    assert_eq!(server.definitions().len(), git::Call::NAMES.len());
    let back = serde_json::to_value(server.definitions()).unwrap();
    assert_eq!(
        back,
        serde_json::from_str::<Value>(git::definitions(atip_runtime::Provider::Mcp)).unwrap()
    );
    let definitions = server.definitions();
    let clean = definitions.iter().find(|t| t.name == "git_clean").unwrap();
    assert_eq!(
        clean.annotations.as_ref().unwrap().destructive_hint,
        Some(true)
    );
}

#[test]
fn call_tool_requests_run_through_generated_and_loaded_dispatch() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let in_repo = Runner::new().current_dir(dir.path());
    let doc = atip_runtime::Document::from_path(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/atip/git.json").as_ref(),
        atip_runtime::Mode::Strict,
        &Default::default(),
    )
    .unwrap();
    // A policy naming what no loaded command has is refused when the server is built.
    let typo = in_repo.clone().policy(atip_runtime::Policy {
        deny_commands: vec!["git stauts".into()],
        ..Default::default()
    });
    let err = McpServer::new(
        vec![atip_runtime::LoadedCommands::new(doc.clone(), None)],
        typo,
    )
    .expect_err("refused");
    assert!(
        err.to_string().contains("`git stauts` matches no command"),
        "{err}"
    );
    let loaded = McpServer::new(
        vec![atip_runtime::LoadedCommands::new(doc.clone(), None)],
        in_repo.clone(),
    )
    .unwrap();
    assert_eq!(
        serde_json::to_value(loaded.definitions()).unwrap(),
        serde_json::to_value(tools_of(&atip_runtime::LoadedCommands::new(doc, None)).unwrap())
            .unwrap()
    );
    rt.block_on(async {
        for server in [generated(in_repo.clone()), loaded] {
            let init = request(json!({"name": "git_init", "arguments": {"directory": "."}}));
            let r = server.call(&init.name, init.arguments).await;
            assert_eq!(r.is_error, Some(false), "{r:?}");
            assert!(dir.path().join(".git").is_dir());
            let meta = r.meta.as_ref().expect("_meta with the run's facts");
            assert_eq!(meta.0["exitCode"], 0);
            assert!(meta.0["sandbox"]["enforced"].is_array(), "{meta:?}");

            let clean = request(json!({"name": "git_clean", "arguments": {"force": true}}));
            let r = server.call(&clean.name, clean.arguments).await;
            assert_eq!(r.is_error, Some(true));
            let text = serde_json::to_string(&r.content).unwrap();
            assert!(
                text.contains("was not run") && text.contains("destructive"),
                "{text}"
            );

            let bad = request(json!({"name": "git_status", "arguments": {"short": 3}}));
            let r = server.call(&bad.name, bad.arguments).await;
            assert_eq!(r.is_error, Some(true));

            let unknown = request(json!({"name": "git_push", "arguments": {}}));
            let r = server.call(&unknown.name, unknown.arguments).await;
            assert_eq!(r.is_error, Some(true));

            let escape = request(
                json!({"name": "git_init", "arguments": {"directory": "/tmp/atip-escape"}}),
            );
            let r = server.call(&escape.name, escape.arguments).await;
            assert_eq!(r.is_error, Some(true));
            let text = serde_json::to_string(&r.content).unwrap();
            assert!(text.contains("path-outside-roots"), "{text}");
            // Re-initialising an existing repository rewrites `.git/config`, which the
            // sandbox keeps read-only for a command that does not declare it: each server
            // starts from a directory without a repository.
            std::fs::remove_dir_all(dir.path().join(".git")).unwrap();
        }
    });
}

#[test]
fn json_output_comes_back_as_structured_content() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("data.json"),
        r#"{"items": [1, 2, 3], "token": "ghp_0123456789abcdefghijABCDEFGHIJabcdef12"}"#,
    )
    .unwrap();
    let doc = atip_runtime::Document::from_path(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/atip/cat.json").as_ref(),
        atip_runtime::Mode::Strict,
        &Default::default(),
    )
    .unwrap();
    let server = McpServer::new(
        vec![atip_runtime::LoadedCommands::new(doc, None)],
        Runner::new().current_dir(dir.path()),
    )
    .unwrap();
    let cat = request(json!({"name": "cat", "arguments": {"files": ["data.json"]}}));
    let r = rt.block_on(server.call(&cat.name, cat.arguments));
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert_eq!(
        r.structured_content,
        Some(json!({"items": [1, 2, 3], "token": "[REDACTED]"}))
    );
    assert_eq!(r.meta.as_ref().unwrap().0["redactions"], 1);
}

/// Meta-tools over MCP: three tools listed, search and describe answered without running,
/// run through the policy like any call, the policy checked against the real commands.
#[cfg(feature = "search")]
#[test]
fn meta_tools_stand_for_every_command() {
    use atip_runtime::search::MetaTools;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/atip/git.json");
    let doc = atip_runtime::Document::from_path(
        path.as_ref(),
        atip_runtime::Mode::Strict,
        &Default::default(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = McpServer::with_tools(
        MetaTools::new(atip_runtime::LoadedCommands::new(doc.clone(), None)),
        Runner::new().current_dir(dir.path()),
    )
    .unwrap();
    let names: Vec<String> = server
        .definitions()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(
        names,
        ["search_commands", "describe_command", "run_command"]
    );
    let run = server
        .definitions()
        .into_iter()
        .find(|t| t.name == "run_command")
        .unwrap();
    // No hints: MCP's defaults (destructive, not read-only) are the worst case.
    assert!(
        run.annotations
            .as_ref()
            .is_none_or(|a| a.destructive_hint != Some(false) && a.read_only_hint != Some(true)),
        "run may do anything: {:?}",
        run.annotations
    );
    rt.block_on(async {
        let found = server
            .call(
                "search_commands",
                json!({"query": "initialize a repository"})
                    .as_object()
                    .cloned(),
            )
            .await;
        assert_eq!(found.is_error, Some(false));
        let text = serde_json::to_string(&found.content).unwrap();
        assert!(text.contains("git_init"), "{text}");
        let refused = server
            .call(
                "run_command",
                json!({"name": "git_clean", "arguments": "{\"force\": true}"})
                    .as_object()
                    .cloned(),
            )
            .await;
        assert_eq!(refused.is_error, Some(true));
        let ran = server
            .call(
                "run_command",
                json!({"name": "git_init", "arguments": "{}"})
                    .as_object()
                    .cloned(),
            )
            .await;
        assert_eq!(ran.is_error, Some(false), "{ran:?}");
        assert!(dir.path().join(".git").is_dir());
    });
    // A policy naming a real command is fine; one naming nothing is refused.
    let typo = Runner::new().policy(atip_runtime::Policy {
        deny_commands: vec!["git stauts".into()],
        ..Default::default()
    });
    assert!(McpServer::with_tools(
        MetaTools::new(atip_runtime::LoadedCommands::new(doc.clone(), None)),
        typo
    )
    .is_err());
    let fine = Runner::new().policy(atip_runtime::Policy {
        deny_commands: vec!["git clean".into()],
        ..Default::default()
    });
    assert!(McpServer::with_tools(
        MetaTools::new(atip_runtime::LoadedCommands::new(doc, None)),
        fine
    )
    .is_ok());
}
