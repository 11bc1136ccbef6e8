//! Effects of the options a call uses (`x-atip-rust.effects`): `git push` of the example
//! git.json is routine and runs unasked; `git push --force` destroys the remote's history and
//! needs a person, who is told it is `--force` that does. Run against real git, with a bare
//! repository standing in for the remote.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use atip_runtime::policy::{Decision, ReasonCode};
use atip_runtime::{
    Document, FlattenOptions, LoadOptions, LoadedCommands, Provider, RunError, Runner, ToolCall,
};
use common::rt;
use serde_json::{json, Value};

fn git_json() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/atip/git.json")
}

fn tool() -> LoadedCommands {
    let doc = Document::from_path(
        &git_json(),
        atip_runtime::Mode::Strict,
        &FlattenOptions::default(),
    )
    .unwrap();
    LoadedCommands::new(doc, None)
}

fn spec<'a>(tool: &'a LoadedCommands, name: &str) -> &'a atip_runtime::ToolSpec {
    tool.specs().iter().find(|s| s.name == name).unwrap()
}

fn push(args: Value) -> ToolCall {
    let Value::Object(m) = args else { panic!() };
    ToolCall::new(Some("call_push".into()), "git_push", m)
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A clone with one pushed commit, its remote a bare repository inside it (so that pushing
/// writes only below the working directory); `(dir, remote head)`.
fn repository() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    git(work, &["init", "-q", "-b", "main"]);
    git(work, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
    std::fs::write(work.join(".gitignore"), "remote.git/\n").unwrap();
    git(work, &["add", ".gitignore"]);
    git(work, &["commit", "-q", "-m", "first"]);
    git(work, &["remote", "add", "origin", "remote.git"]);
    git(work, &["push", "-q", "-u", "origin", "main"]);
    let head = git(work, &["rev-parse", "HEAD"]);
    (dir, head)
}

fn remote_head(work: &Path) -> String {
    git(&work.join("remote.git"), &["rev-parse", "main"])
}

#[test]
fn a_call_is_judged_by_the_options_it_sets() {
    let tool = tool();
    let runner = Runner::new();
    let plain = tool
        .invocation(&push(json!({"repository": "origin", "tags": true})))
        .unwrap();
    assert_eq!(plain.effects.destructive, Some(false));
    assert!(plain.effects_from.is_none());
    assert_eq!(runner.decide(&plain).decision, Decision::Allow);

    let forced = tool
        .invocation(&push(json!({"repository": "origin", "force": true})))
        .unwrap();
    assert_eq!(forced.effects.destructive, Some(true));
    assert_eq!(forced.effects.reversible, Some(false));
    // Everything else stays the command's.
    assert_eq!(forced.effects.network, Some(true));
    let from = forced.effects_from.as_ref().unwrap();
    assert_eq!(from.command.destructive, Some(false));
    assert_eq!(from.params.len(), 1);
    assert_eq!(from.params[0].label, "--force");
    let Decision::NeedsConfirmation(reasons) = runner.decide(&forced).decision else {
        panic!("{:?}", runner.decide(&forced).decision)
    };
    assert_eq!(reasons[0].code, ReasonCode::Destructive);
    assert_eq!(
        reasons[0].message,
        "`--force` declares destructive (the command alone does not)"
    );
    // A refspec can force on its own (`+main`): naming one is judged as forcing.
    let plus = tool
        .invocation(&push(json!({"repository": "origin", "refspec": ["+main"]})))
        .unwrap();
    let reasons = runner.decide(&plus).decision.reasons().to_vec();
    assert_eq!(
        reasons[0].message,
        "`refspec` declares destructive (the command alone does not)"
    );
    // `force: false` sets nothing.
    let unforced = tool.invocation(&push(json!({"force": false}))).unwrap();
    assert_eq!(runner.decide(&unforced).decision, Decision::Allow);
    // Both forcing options: both named.
    let both = tool
        .invocation(&push(json!({"force": true, "force_with_lease": true})))
        .unwrap();
    let reasons = runner.decide(&both).decision.reasons().to_vec();
    assert_eq!(
        reasons[0].message,
        "`--force`, `--force-with-lease` declare destructive (the command alone does not)"
    );
}

#[test]
fn git_push_runs_unasked_and_git_push_force_waits_for_a_person() {
    if common::skip() {
        return;
    }
    let (dir, first) = repository();
    let work = dir.path();
    let tool = tool();
    let runner = Runner::new().current_dir(work);
    rt().block_on(async {
        // A new commit, pushed without --force: allowed, and it runs.
        std::fs::write(work.join("a.txt"), "a\n").unwrap();
        git(work, &["add", "a.txt"]);
        git(work, &["commit", "-q", "-m", "second"]);
        let second = git(work, &["rev-parse", "HEAD"]);
        let call = push(json!({"repository": "origin"}));
        let out = runner.run(&tool.invocation(&call).unwrap()).await.unwrap();
        assert!(out.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(remote_head(work), second);

        // History rewritten locally: a plain push runs and git refuses it.
        git(work, &["reset", "-q", "--hard", &first]);
        std::fs::write(work.join("b.txt"), "b\n").unwrap();
        git(work, &["add", "b.txt"]);
        git(work, &["commit", "-q", "-m", "rewritten"]);
        let rewritten = git(work, &["rev-parse", "HEAD"]);
        let out = runner.run(&tool.invocation(&call).unwrap()).await.unwrap();
        assert!(!out.success());
        assert_eq!(remote_head(work), second);

        // --force: not run without a person, the remote keeps its commit.
        let forced = push(json!({"repository": "origin", "force": true}));
        let invocation = tool.invocation(&forced).unwrap();
        match runner.run(&invocation).await {
            Err(RunError::NeedsConfirmation(request)) => {
                assert!(
                    request
                        .to_string()
                        .contains("`--force` declares destructive"),
                    "{request}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(remote_head(work), second);
        // Confirmed: the remote's commit is gone.
        let out = runner.run(&invocation).confirmed(true).await.unwrap();
        assert!(out.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(remote_head(work), rewritten);
    });
}

#[test]
fn definitions_stay_conservative_and_say_which_option_carries_the_risk() {
    let tool = tool();
    let push_spec = spec(&tool, "git_push");
    let definition = atip_runtime::providers::tool_definition(push_spec, Provider::Mcp);
    let description = definition["description"].as_str().unwrap();
    assert!(
        description.ends_with(
            "[⚠️ DESTRUCTIVE (with refspec or --force or --force-with-lease) | ⚠️ NOT \
             REVERSIBLE (with refspec or --force or --force-with-lease)]"
        ),
        "{description}"
    );
    assert_eq!(definition["annotations"]["destructiveHint"], true);
    let force = definition["inputSchema"]["properties"]["force"]["description"]
        .as_str()
        .unwrap();
    assert!(
        force.ends_with("(giving it: ⚠️ DESTRUCTIVE, ⚠️ NOT REVERSIBLE)"),
        "{force}"
    );
    let tags = definition["inputSchema"]["properties"]["tags"]["description"]
        .as_str()
        .unwrap();
    assert_eq!(tags, "Also push every tag");
    // A command whose options declare nothing is described as before.
    let status = atip_runtime::providers::tool_definition(spec(&tool, "git_status"), Provider::Mcp);
    assert!(status["description"]
        .as_str()
        .unwrap()
        .ends_with("[🔒 READ-ONLY]"));
}

#[test]
fn option_effects_are_checked_as_effects() {
    let text = std::fs::read_to_string(git_json()).unwrap().replace(
        r#""x-atip-rust": {"effects": {"destructive": true, "reversible": false}}},
        {"name": "force-with-lease""#,
        r#""x-atip-rust": {"effects": {"destructive": "yes"}}},
        {"name": "force-with-lease""#,
    );
    let err = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "$.commands.push.options[0]['x-atip-rust'].effects.destructive: expected a boolean"
        ),
        "{err}"
    );
}

/// A runner whose policy comes from JSON.
fn with_policy(json: &str) -> Runner {
    Runner::new().policy(serde_json::from_str(json).unwrap())
}

#[test]
fn the_model_is_told_what_happened_and_what_it_can_do_next() {
    let tool = tool();
    let forced = tool
        .invocation(&push(json!({"repository": "origin", "force": true})))
        .unwrap();
    rt().block_on(async {
        // Nobody to ask: ask the person, or drop --force, or look first with dry_run.
        let text = Runner::new().run(&forced).tool_result().await.content;
        assert!(
            text.starts_with(
                "`git_push` was not run: it needs a person's confirmation (destructive: \
                 `--force` declares destructive (the command alone does not))."
            ),
            "{text}"
        );
        assert!(text.contains("ask the person whether it may run"), "{text}");
        assert!(
            text.contains("make the call without `force` (`--force`)"),
            "{text}"
        );
        assert!(
            text.contains("make it with `dry_run: true` first"),
            "{text}"
        );
        // Declined: not again unless the person asks.
        let no = Runner::new().confirm_with(|_: atip_runtime::ConfirmationRequest| async { false });
        let text = no.run(&forced).tool_result().await.content;
        assert!(text.contains("the person declined it"), "{text}");
        assert!(text.contains("do not make the same call again"), "{text}");
        // A call already dry: no dry-run hint.
        let dry = tool
            .invocation(&push(json!({"force": true, "dry_run": true})))
            .unwrap();
        let text = Runner::new().run(&dry).tool_result().await.content;
        assert!(!text.contains("dry_run: true"), "{text}");
        // Reasons the command brings itself: no "without" hint.
        let clean = tool
            .invocation(&ToolCall::new(None, "git_clean", serde_json::Map::new()))
            .unwrap();
        let text = Runner::new().run(&clean).tool_result().await.content;
        assert!(!text.contains("make the call without"), "{text}");
        assert!(
            text.contains("make it with `dry_run: true` first"),
            "{text}"
        );
    });
}

#[test]
fn refusals_name_the_rule_and_keep_the_policy_to_themselves() {
    let tool = tool();
    let plain = tool
        .invocation(&push(json!({"repository": "upstream-secret"})))
        .unwrap();
    rt().block_on(async {
        // A denied pattern: the rule's name, never the pattern.
        let runner = with_policy(r#"{"denyCommands": ["git_pu*"]}"#);
        let text = runner.run(&plain).tool_result().await.content;
        assert!(
            text.starts_with(
                "`git_push` was not run: the policy refuses it (deny-listed: the policy does \
                 not allow this command). A person cannot confirm it here."
            ),
            "{text}"
        );
        assert!(!text.contains("git_pu*"), "{text}");
        assert!(text.contains("Do not make the same call again"), "{text}");
        // The person's own view (Display) keeps the pattern.
        let err = runner.run(&plain).await.unwrap_err().to_string();
        assert!(err.contains("git_pu*"), "{err}");

        // An allowed-values rule: the parameter, not the values.
        let runner = with_policy(
            r#"{"arguments": [{"parameter": "repository", "commands": ["git_push"],
                "allow": ["origin", "mirror-7f3a"]}]}"#,
        );
        let text = runner.run(&plain).tool_result().await.content;
        assert!(
            text.contains(
                "argument-not-allowed: parameter `repository`: this value is not allowed by \
                 the policy"
            ),
            "{text}"
        );
        assert!(!text.contains("mirror-7f3a"), "{text}");
        assert!(
            text.contains("make the call with other values for the parameters named"),
            "{text}"
        );
        // A forced push under a policy that refuses destruction: dropping --force helps.
        let runner = with_policy(r#"{"destructive": "deny"}"#);
        let forced = tool.invocation(&push(json!({"force": true}))).unwrap();
        let text = runner.run(&forced).tool_result().await.content;
        assert!(
            text.contains("make the call without `force` (`--force`)"),
            "{text}"
        );
    });
}

#[test]
fn a_grant_covers_the_values_the_person_saw() {
    let tool = tool();
    let runner = Runner::new();
    let main = tool
        .invocation(&push(json!({"repository": "origin", "refspec": ["main"]})))
        .unwrap();
    let forced = tool
        .invocation(&push(json!({"repository": "origin", "refspec": ["+main"]})))
        .unwrap();
    let delete = tool
        .invocation(&push(
            json!({"repository": "origin", "refspec": [":topic"]}),
        ))
        .unwrap();
    let reasons = runner.decide(&main).decision.reasons().to_vec();
    // The same reason text for all three: only the values tell them apart.
    assert_eq!(
        runner.decide(&forced).decision.reasons(),
        reasons.as_slice()
    );
    let request = atip_runtime::ConfirmationRequest {
        invocation: main.clone(),
        reasons: reasons.clone(),
    };
    runner
        .grants()
        .grant(request.grant(atip_runtime::exec::GrantScope::SameReasons, "test"));
    assert!(runner.grants().covering(&main, &reasons).is_some());
    assert!(runner.grants().covering(&forced, &reasons).is_none());
    assert!(runner.grants().covering(&delete, &reasons).is_none());
}

#[test]
fn an_option_can_add_risk_but_never_make_a_call_safer() {
    let text = r#"{"atip": {"version": "0.6"}, "name": "tool", "version": "1",
        "description": "A tool", "commands": {"sync": {"description": "Sync",
        "options": [{"name": "verbose", "flags": ["--verbose"], "type": "boolean",
          "description": "Talk more",
          "x-atip-rust": {"effects": {"destructive": false, "network": false,
            "filesystem": {"write": false}, "cost": {"estimate": "free"}}}}]}}}"#;
    let doc = Document::parse(text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    let tool = LoadedCommands::new(doc, None);
    let call = |args: Value| {
        let Value::Object(m) = args else { panic!() };
        tool.invocation(&ToolCall::new(None, "tool_sync", m))
            .unwrap()
    };
    let plain = call(json!({}));
    let verbose = call(json!({"verbose": true}));
    assert_eq!(verbose.effects.destructive, None);
    assert_eq!(verbose.effects.network, None);
    assert_eq!(verbose.effects.filesystem_write(), None);
    assert_eq!(verbose.effects.cost_estimate(), None);
    let runner = Runner::new();
    assert_eq!(
        runner.decide(&verbose).decision,
        runner.decide(&plain).decision
    );
    assert!(matches!(
        runner.decide(&verbose).decision,
        Decision::NeedsConfirmation(_)
    ));
    // Nor in what the model is told: no read-only flag from the option.
    let spec = spec(&tool, "tool_sync");
    assert_eq!(spec.widest_effects().destructive, None);
}

#[test]
fn a_listed_command_cannot_be_run_as_an_unlisted_one() {
    let text = std::fs::read_to_string(git_json()).unwrap().replacen(
        r#""trust": {"source": "user", "verified": true},"#,
        r#""trust": {"source": "user", "verified": true}, "partial": true,
               "omitted": {"reason": "filtered", "safetyAssumption": "known-safe"},"#,
        1,
    );
    let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
    let tool = LoadedCommands::new(doc, None);
    let err = tool
        .unlisted_invocation(&["push", "--force"], &[])
        .unwrap_err();
    assert!(err.contains("not a subcommand name"), "{err}");
    let err = tool
        .unlisted_invocation(&["push", "origin"], &["--force"])
        .unwrap_err();
    assert!(err.contains("`git_push` is listed"), "{err}");
    // A subcommand of a group that is listed only in part is still reachable.
    assert!(tool.unlisted_invocation(&["stash", "show"], &[]).is_ok());
}

#[test]
fn a_misspelt_effects_member_is_a_warning() {
    let text = std::fs::read_to_string(git_json()).unwrap().replace(
        r#""x-atip-rust": {"effects": {"destructive": true, "reversible": false}}},
        {"name": "force-with-lease""#,
        r#""x-atip-rust": {"effect": {"destructive": true}}},
        {"name": "force-with-lease""#,
    );
    let loaded = atip_runtime::load(&text, &LoadOptions::strict()).unwrap();
    let warnings: Vec<String> = loaded.warnings.iter().map(|d| d.to_string()).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("x-atip-rust") && w.contains("did you mean `effects`?")),
        "{warnings:?}"
    );
}

#[test]
fn a_sandbox_refusal_does_not_show_the_model_the_policy_roots() {
    let err = RunError::Sandbox(atip_runtime::sandbox::SandboxError {
        message: "declared writable path /srv/SECRET_ROOT does not exist".to_owned(),
    });
    let text = err.for_model();
    assert!(!text.contains("SECRET_ROOT"), "{text}");
    assert!(text.contains("sandbox"), "{text}");
    assert!(err.to_string().contains("SECRET_ROOT"));
}
