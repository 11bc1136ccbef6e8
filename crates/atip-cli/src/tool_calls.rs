//! `atip parse`, `dispatch`, `run` and `serve`: a model's tool calls parsed from a provider
//! response, dispatched to commands, run under a policy, or served over MCP.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use atip_runtime::wire::parse_response;
use atip_runtime::Provider;
use serde_json::{json, Value};

use crate::exec::{block_on, runner, ExecArgs};
use crate::load::{load_tools, Warnings};
use crate::output::{emit, emit_json, read_input, Failure, Outcome};

/// The tool calls of a provider response and the metadata they are dispatched to.
#[derive(clap::Args)]
pub(crate) struct Calls {
    /// ATIP JSON files describing the tools the model was given.
    #[arg(long = "tools", required = true, num_args = 1..)]
    tools: Vec<PathBuf>,
    /// openai, openai-responses, anthropic or gemini.
    #[arg(long)]
    provider: Provider,
    /// The response body; `-` reads standard input.
    response: PathBuf,
}

pub(crate) fn parse(provider: Provider, response: &Path) -> Outcome {
    let parsed = read_response(provider, response)?;
    let calls: Vec<Value> = parsed
        .tool_calls
        .iter()
        .map(|c| match &c.arguments {
            Ok(args) => json!({"id": c.id, "name": c.name, "arguments": args, "error": null}),
            Err(e) => json!({"id": c.id, "name": c.name, "arguments": null, "error": e.message}),
        })
        .collect();
    emit(&format!("{}\n", Value::Array(calls)))
}

/// Reads and parses a response body; a cut-short response is a warning on stderr.
fn read_response(
    provider: Provider,
    response: &Path,
) -> Result<atip_runtime::wire::ParsedResponse, Failure> {
    let body = read_input(response)?;
    let parsed = parse_response(provider, &body)
        .map_err(|e| Failure::new(format!("{}: {e}", response.display())))?;
    if parsed.truncated {
        eprintln!(
            "warning: the response was cut short ({}); none of its {} calls runs, each is \
             answered asking the model to make it again",
            parsed.stop_reason.as_deref().unwrap_or("truncated"),
            parsed.tool_calls.len()
        );
    }
    Ok(parsed)
}

pub(crate) fn dispatch(calls: &Calls, lenient: bool) -> Outcome {
    let tools = load_tools(&calls.tools, lenient, None, Warnings::Each)?;
    let parsed = read_response(calls.provider, &calls.response)?;
    let out: Vec<Value> = parsed
        .tool_calls
        .iter()
        .map(|call| {
            match atip_runtime::command::dispatch::Dispatch::invocation(&tools, call) {
                Ok(inv) => json!({
                    "id": call.id,
                    "name": call.name,
                    "argv": inv.argv.iter().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>(),
                }),
                Err(e) => json!({
                    "id": call.id,
                    "name": call.name,
                    "errors": e.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                }),
            }
        })
        .collect();
    emit_json(&Value::Array(out))
}

/// `atip policy check`: what the runner `exec` describes decides for each call, run nothing.
pub(crate) fn policy_check(
    files: &[PathBuf],
    provider: Option<Provider>,
    exec: &ExecArgs,
    input: &Path,
) -> Outcome {
    let tools = load_tools(files, false, None, Warnings::Each)?;
    let runner = runner(exec, &tools)?;
    let calls = match provider {
        Some(provider) => read_response(provider, input)?.tool_calls,
        None => read_calls(input)?,
    };
    let out: Vec<Value> = calls
        .iter()
        .map(|call| {
            let arguments = match &call.arguments {
                Ok(args) => Value::Object(args.clone()),
                Err(_) => Value::Null,
            };
            match atip_runtime::command::dispatch::Dispatch::invocation(tools.as_slice(), call) {
                Err(e) => json!({
                    "name": call.name,
                    "arguments": arguments,
                    "decision": "invalid",
                    "errors": e.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                }),
                Ok(inv) => {
                    let gate = runner.decide(&inv);
                    let decision = gate.decision;
                    let rules: Vec<Value> = decision
                        .reasons()
                        .iter()
                        .map(|r| {
                            json!({
                                "code": r.code.as_str(),
                                "severity": match r.severity {
                                    atip_runtime::policy::ReasonSeverity::Confirm => "confirm",
                                    atip_runtime::policy::ReasonSeverity::Deny => "deny",
                                },
                                "message": r.message,
                            })
                        })
                        .collect();
                    json!({
                        "name": call.name,
                        "arguments": arguments,
                        // A call that would ask only for what its effects leave unsaid runs
                        // first, unasked, in the tightest sandbox: "tight-first".
                        "decision": if gate.tight_first {
                            "tight-first"
                        } else {
                            atip_runtime::policy::Expectation::of(&decision).as_str()
                        },
                        "rules": rules,
                        "effects": inv.effects,
                        // The options the call sets that brought effects of their own.
                        "effectsFrom": inv.effects_from.as_ref().map(|from| {
                            from.params
                                .iter()
                                .map(|p| json!({
                                    "parameter": p.param,
                                    "flag": p.label,
                                    "effects": p.effects,
                                }))
                                .collect::<Vec<_>>()
                        }),
                        // The hosts the call may reach when the policy narrows its network.
                        "egress": gate.confinement.egress,
                        "argv": inv.argv.iter().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>(),
                    })
                }
            }
        })
        .collect();
    emit_json(&Value::Array(out))
}

/// `atip policy check --stats`: per tools file, what the runner `exec` describes would decide
/// for each of its commands judged by its effects and trust alone (no arguments, so no
/// argument rule fires), counted: `allow`, `tightFirst`, `confirm`, `deny`, and `asksFirst`,
/// the share (in percent, one decimal) of commands a person is asked about before they run.
pub(crate) fn policy_stats(files: &[PathBuf], exec: &ExecArgs) -> Outcome {
    let tools = load_tools(files, false, None, Warnings::Count)?;
    let runner = runner(exec, &tools)?;
    let out: Vec<Value> = files
        .iter()
        .zip(&tools)
        .map(|(file, tool)| {
            let program = tool.document().tool.name.clone();
            let (mut allow, mut tight, mut confirm, mut deny) = (0usize, 0usize, 0usize, 0usize);
            for (name, effects) in tool.effects() {
                let mut inv = atip_runtime::Invocation::new(
                    name.to_owned(),
                    vec![program.clone().into()],
                    effects.clone(),
                );
                inv.trust = tool.trust();
                if let Some((_, spec)) = tool.command(name) {
                    inv.title = Some(atip_runtime::Shared::from(spec.title.to_string()));
                }
                let gate = runner.decide(&inv);
                match gate.decision {
                    _ if gate.tight_first => tight += 1,
                    atip_runtime::policy::Decision::Allow => allow += 1,
                    atip_runtime::policy::Decision::NeedsConfirmation(_) => confirm += 1,
                    atip_runtime::policy::Decision::Deny(_) => deny += 1,
                }
            }
            let total = allow + tight + confirm + deny;
            let share = if total == 0 {
                0.0
            } else {
                (confirm as f64 * 1000.0 / total as f64).round() / 10.0
            };
            json!({
                "tools": file.display().to_string(),
                "commands": total,
                "allow": allow,
                "tightFirst": tight,
                "confirm": confirm,
                "deny": deny,
                "asksFirst": share,
            })
        })
        .collect();
    emit_json(&Value::Array(out))
}

/// Tool calls given as JSON: `{"name": …, "arguments": {…}}` (arguments may also be the JSON
/// text of an object, as OpenAI sends them) or an array of such objects.
fn read_calls(input: &Path) -> Result<Vec<atip_runtime::ToolCall>, Failure> {
    let text = read_input(input)?;
    let shown = input.display();
    let value: Value =
        serde_json::from_str(&text).map_err(|e| Failure::new(format!("{shown}: {e}")))?;
    let items = match value {
        Value::Array(items) => items,
        one => vec![one],
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let bad = |what: &str| Failure::new(format!("{shown}: call {i}: {what}"));
            let Some(name) = item.get("name").and_then(Value::as_str) else {
                return Err(bad("`name` (a string) is required"));
            };
            match item.get("arguments") {
                None | Some(Value::Null) => Ok(atip_runtime::ToolCall::new(
                    None,
                    name,
                    serde_json::Map::new(),
                )),
                Some(Value::Object(args)) => {
                    Ok(atip_runtime::ToolCall::new(None, name, args.clone()))
                }
                Some(Value::String(text)) => {
                    Ok(atip_runtime::ToolCall::from_json_text(None, name, text))
                }
                Some(_) => Err(bad("`arguments` must be an object or its JSON text")),
            }
        })
        .collect()
}

pub(crate) fn run(calls: &Calls, exec: &ExecArgs, yes: bool) -> Outcome {
    let tools = load_tools(&calls.tools, false, None, Warnings::Each)?;
    let runner = runner(exec, &tools)?;
    let parsed = read_response(calls.provider, &calls.response)?;
    let results: Vec<atip_runtime::ToolResult> = block_on(async {
        let mut results = Vec::new();
        for call in &parsed.tool_calls {
            let result = match atip_runtime::command::dispatch::Dispatch::invocation(&tools, call) {
                Err(e) => atip_runtime::ToolResult::error(e.to_string()),
                Ok(inv) if yes => runner.run(&inv).confirmed(true).tool_result().await,
                Ok(inv) => runner.run(&inv).tool_result().await,
            };
            eprintln!(
                "{} {}: {}",
                call.name,
                if result.is_error { "failed" } else { "ok" },
                result.content.lines().last().unwrap_or_default()
            );
            results.push(result);
        }
        results
    })?;
    let messages = atip_runtime::result_messages(calls.provider, &parsed.tool_calls, &results)
        .map_err(Failure::new)?;
    emit_json(&Value::Array(messages))
}

/// `atip serve`: an MCP server on stdio until the client disconnects.
pub(crate) fn serve(files: &[PathBuf], meta_tools: bool, exec: &ExecArgs) -> Outcome {
    // Loaded once, here, for every diagnostic of every file; the server serves what was
    // loaded and reloads the files when they change.
    let tools = load_tools(files, false, None, Warnings::Each)?;
    let runner = runner(exec, &tools)?;
    let server = if meta_tools {
        atip_mcp::McpServer::from_loaded_files_with_meta_tools(files.to_vec(), tools, runner)
    } else {
        atip_mcp::McpServer::from_loaded_files(files.to_vec(), tools, runner)
    }
    .map_err(Failure::new)?;
    let shown: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    eprintln!(
        "atip serve: MCP on stdin/stdout, {} tools from {} (reloaded when changed); policy {}, \
         sandbox {}; working directory {}",
        server.definitions().len(),
        shown.join(", "),
        exec.policy
            .as_deref()
            .map_or("default", |_| "from --policy"),
        if exec.no_sandbox { "off" } else { "on" },
        std::env::current_dir().map_or_else(|_| "?".to_owned(), |d| d.display().to_string()),
    );
    block_on(server.serve_stdio())?.map_err(Failure::new)?;
    Ok(ExitCode::SUCCESS)
}
