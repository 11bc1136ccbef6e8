//! `atip parse`, `dispatch`, `run` and `serve`: a model's tool calls parsed from a provider
//! response, dispatched to commands, run under a policy, or served over MCP.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use atip_runtime::lifecycle::parse_response;
use atip_runtime::Provider;
use serde_json::{json, Value};

use crate::exec::{runner, runtime, ExecArgs};
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
) -> Result<atip_runtime::lifecycle::ParsedResponse, Failure> {
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
            match atip_runtime::dispatch::Dispatch::invocation(&tools, call) {
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

pub(crate) fn run(calls: &Calls, exec: &ExecArgs, yes: bool) -> Outcome {
    let tools = load_tools(&calls.tools, false, None, Warnings::Each)?;
    let runner = runner(exec, &tools)?;
    let parsed = read_response(calls.provider, &calls.response)?;
    let results: Vec<atip_runtime::ToolResult> = runtime()?.block_on(async {
        let mut results = Vec::new();
        for call in &parsed.tool_calls {
            let result = match atip_runtime::dispatch::Dispatch::invocation(&tools, call) {
                Err(e) => atip_runtime::ToolResult::error(e.to_string()),
                Ok(inv) if yes => runner.answer_confirmed(&inv).await,
                Ok(inv) => runner.answer(&inv).await,
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
    });
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
        atip_runtime::mcp::McpServer::from_loaded_files_with_meta_tools(
            files.to_vec(),
            tools,
            runner,
        )
    } else {
        atip_runtime::mcp::McpServer::from_loaded_files(files.to_vec(), tools, runner)
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
    runtime()?
        .block_on(server.serve_stdio())
        .map_err(Failure::new)?;
    Ok(ExitCode::SUCCESS)
}
