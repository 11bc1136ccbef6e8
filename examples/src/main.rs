//! The main example: drive a real git repository with typed, compile-time-checked commands.
//!
//! Run from the repository root with `cargo run -p atip-examples`.
//!
//! It creates a temporary repository and runs every command in it (`Runner::current_dir`; the
//! metadata exposes no `-C` or `-c`, so a model can neither leave the directory nor set git
//! configuration that runs programs), then: `git init`, writes a file, `git add`, `git commit`
//! (with an identity passed in the environment, since a fresh machine has none), `git log`,
//! `wc -l` on the file, and a model's attempt to read outside the repository, refused; it shows the policy refusing `git clean` (declared
//! destructive) until a person confirms, and then running it. Finally it replays recorded
//! model responses in each provider's wire format (`examples/replay/*.json`) through the whole
//! loop: parse the tool calls, dispatch them to typed commands, run them through the policy,
//! and build the tool-result messages that would go back to the model. Last, safe execution on
//! coreutils: `rm` refused until a confirmation handler says yes, a slow command timed out, a
//! flood of output capped, and secrets in output redacted before a model could see them.
#![deny(missing_docs)]

use std::error::Error;
use std::ffi::OsString;
use std::time::Duration;

use atip_runtime::wire::{model_turn, parse_response, result_messages};
use atip_runtime::Provider;
use atip_runtime::{Command, Output, RunError, Runner, ToolResult};

mod git {
    //! Typed commands generated from `examples/atip/git.json`.
    atip_runtime::include_atip!("atip/git.json");
}

mod wc {
    //! Typed commands generated from `examples/atip/wc.json`.
    atip_runtime::include_atip!("atip/wc.json");
}

mod coreutils {
    //! `rm`, `cat`, `seq` and `sleep`, one metadata file each.
    pub mod rm {
        //! `rm`.
        atip_runtime::include_atip!("atip/rm.json");
    }
    pub mod cat {
        //! `cat`.
        atip_runtime::include_atip!("atip/cat.json");
    }
    pub mod seq {
        //! `seq`.
        atip_runtime::include_atip!("atip/seq.json");
    }
    pub mod sleep {
        //! `sleep`.
        atip_runtime::include_atip!("atip/sleep.json");
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::Builder::new().prefix("atip-example-").tempdir()?;
    let repo = dir.path();
    println!("# temporary repository: {}\n", repo.display());

    // No shell anywhere: each typed call becomes an argv that runs as is, in the repository.
    // Git needs an identity to commit; a fresh machine has none, so the runner passes one in
    // the environment. Each run is sandboxed as its effects say (read-only commands cannot
    // write, offline ones cannot connect).
    let runner = Runner::new()
        .timeout(Duration::from_secs(20))
        .current_dir(repo)
        .env("GIT_AUTHOR_NAME", "atip example")
        .env("GIT_AUTHOR_EMAIL", "atip-example@example.invalid")
        .env("GIT_COMMITTER_NAME", "atip example")
        .env("GIT_COMMITTER_EMAIL", "atip-example@example.invalid");

    show(&git::Init::new().initial_branch("main"), &runner).await?;
    std::fs::write(repo.join("hello.txt"), "hello from atip\nsecond line\n")?;
    show(&git::Add::new(["hello.txt"]), &runner).await?;
    show(&git::Commit::new("Add hello.txt"), &runner).await?;
    let log = show(&git::Log::new().oneline(true).max_count(5), &runner).await?;
    println!("  {}\n", log.sandbox);
    show(&wc::Wc::new(["hello.txt"]).lines(true), &runner).await?;

    // Paths a model sends are confined to the working directory (symlinks resolved).
    let outside = wc::Wc::new(["../../etc/passwd"]).lines(true);
    println!("$ {}", shown(&outside.argv()));
    match runner.run(&outside).await {
        Err(RunError::Denied { reasons, .. }) => {
            for reason in &reasons {
                println!("  refused [{}]: {}", reason.code.as_str(), reason.message);
            }
            println!();
        }
        other => {
            return Err(
                format!("a path outside the repository must be refused, got {other:?}").into(),
            )
        }
    }

    // An untracked file, and a destructive command to delete it.
    let scratch = repo.join("scratch.tmp");
    std::fs::write(&scratch, "temporary\n")?;
    show(&git::Status::new().short(true), &runner).await?;
    let clean = git::Clean::new().force(true);
    println!("$ {}", shown(&clean.argv()));
    match runner.run(&clean).await {
        Err(RunError::NeedsConfirmation(request)) => {
            println!("refused by policy: {request}");
            for reason in &request.reasons {
                println!("  reason [{}]: {}", reason.code.as_str(), reason.message);
            }
            println!(
                "  effects: {}",
                serde_json_effects(&request.invocation.effects)
            );
        }
        other => return Err(format!("git clean should need confirmation, got {other:?}").into()),
    }
    if !scratch.exists() {
        return Err("the refused git clean must not have deleted anything".into());
    }
    println!("  {} is still there\n", scratch.display());

    // A person said yes: the caller passes that on explicitly.
    println!("# after a person confirms:");
    let out = runner.run(&clean).confirmed(true).await?;
    print_output(&out);
    if scratch.exists() || !out.success() {
        return Err("confirmed git clean should have deleted scratch.tmp".into());
    }
    println!("  {} is gone\n", scratch.display());

    // A model's turn, replayed: the working tree has a change and an untracked file again.
    std::fs::write(
        repo.join("hello.txt"),
        "hello from atip\nsecond line\nthird line\n",
    )?;
    std::fs::write(repo.join("notes.tmp"), "scratch\n")?;
    for (format, body) in [
        (Provider::OpenAi, include_str!("../replay/openai-chat.json")),
        (
            Provider::OpenAiResponses,
            include_str!("../replay/openai-responses.json"),
        ),
        (
            Provider::Anthropic,
            include_str!("../replay/anthropic.json"),
        ),
        (Provider::Gemini, include_str!("../replay/gemini.json")),
    ] {
        replay(format, body, &runner).await?;
    }
    if !repo.join("notes.tmp").exists() {
        return Err("the replayed git clean must have been refused".into());
    }

    safe_execution(repo).await
}

/// The limits and the filter, on real coreutils.
async fn safe_execution(dir: &std::path::Path) -> Result<(), Box<dyn Error>> {
    use coreutils::{cat::Cat, rm::Rm, seq::Seq, sleep::Sleep};
    println!("# safe execution");
    let runner = Runner::new().current_dir(dir);

    // rm is destructive: refused without a confirmation handler, run once one says yes.
    let remove = Rm::new(["notes.tmp"]);
    match runner.run(&remove).await {
        Err(RunError::NeedsConfirmation(request)) => {
            println!("$ {}\n  refused: {request}", shown(&remove.argv()))
        }
        other => return Err(format!("rm must need confirmation, got {other:?}").into()),
    }
    let asking =
        runner
            .clone()
            .confirm_with(|request: atip_runtime::ConfirmationRequest| async move {
                println!(
                    "  confirmation handler asked about {}: yes",
                    shown(&request.invocation.argv)
                );
                true
            });
    let out = asking.run(&remove).await?;
    println!("  {}", asking.tool_result(&out).content);
    if dir.join("notes.tmp").exists() {
        return Err("the confirmed rm should have removed notes.tmp".into());
    }

    // A slow command is stopped at its time limit, its whole process group killed.
    let slow = Sleep::new(["5"]);
    let quick = runner.clone().timeout(Duration::from_secs(1));
    let out = quick.run(&slow).await?;
    println!(
        "$ {}\n  {} (after {} ms)",
        shown(&slow.argv()),
        quick.tool_result(&out).content,
        out.duration.as_millis()
    );
    if !out.timed_out {
        return Err("sleep 5 should have timed out".into());
    }

    // A flood of output: read to the end, kept up to the cap, the rest counted.
    let flood = Seq::new([1.0, 500_000.0]);
    let capped = runner.clone().max_output_bytes(4096);
    let out = capped.run(&flood).await?;
    let text = capped.tool_result(&out).content;
    println!(
        "$ {}\n  kept {} bytes, dropped {}; the result ends with: {}",
        shown(&flood.argv()),
        out.stdout.len(),
        out.dropped_bytes(),
        text.lines().last().unwrap_or_default()
    );

    // Secrets in output never reach the model.
    std::fs::write(
        dir.join("deploy.env"),
        "REGION=eu-west-1\nGITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJabcdef12\nDB_PASSWORD: s3cr3t-pa55\n",
    )?;
    let show = Cat::new(["deploy.env"]);
    let out = runner.run(&show).await?;
    let result = runner.tool_result(&out);
    println!("$ {}", shown(&show.argv()));
    for line in result.content.lines() {
        println!("  {line}");
    }
    if result.content.contains("ghp_") || result.content.contains("s3cr3t") {
        return Err("secrets must be redacted".into());
    }
    Ok(())
}

/// Parses a recorded response, dispatches each call to a typed git command, runs it through
/// the policy, and prints the messages that answer the model.
async fn replay(format: Provider, body: &str, runner: &Runner) -> Result<(), Box<dyn Error>> {
    println!("# replaying a recorded {} response", format.as_str());
    let parsed = parse_response(format, body)?;
    let mut results = Vec::new();
    for call in &parsed.tool_calls {
        let result = match git::Call::from_tool_call(call) {
            Err(e) => {
                println!("  {} -> not dispatched: {e}", call.name);
                ToolResult::error(e.to_string())
            }
            Ok(command) => {
                println!("  {} -> $ {}", call.name, shown(&command.argv()));
                match runner.run(&command).await {
                    Ok(out) => out.to_tool_result(),
                    Err(e) => {
                        println!("    refused: {e}");
                        e.to_tool_result()
                    }
                }
            }
        };
        results.push(result);
    }
    let mut conversation = model_turn(format, &serde_json::from_str(body)?)?;
    conversation.extend(result_messages(format, &parsed.tool_calls, &results)?);
    println!("  messages back to the model:");
    for message in conversation {
        println!("    {message}");
    }
    println!();
    Ok(())
}

/// Prints the argv, runs the command through the policy gate and prints the result; a
/// non-zero exit is an error.
async fn show<C: Command>(command: &C, runner: &Runner) -> Result<Output, Box<dyn Error>> {
    println!("$ {}", shown(&command.argv()));
    let out = runner.run(command).await?;
    print_output(&out);
    if !out.success() {
        return Err(format!("{} failed: {}", C::NAME, out.status).into());
    }
    Ok(out)
}

fn print_output(out: &Output) {
    for line in out.stdout_lossy().lines() {
        println!("  {line}");
    }
    for line in out.stderr_lossy().lines() {
        println!("  (stderr) {line}");
    }
    println!("  [{} in {} ms]\n", out.status, out.duration.as_millis());
}

fn shown(argv: &[OsString]) -> String {
    argv.iter()
        .map(|a| {
            let a = a.to_string_lossy();
            if a.contains(' ') {
                format!("'{a}'")
            } else {
                a.into_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn serde_json_effects(effects: &atip_runtime::Effects) -> String {
    serde_json::to_string(effects).unwrap_or_default()
}
