//! A terminal agent over the example metadata: it sends the commands of `examples/atip/*.json`
//! to a model, runs the calls the model makes in the current directory — every one through the
//! policy, with a y/N/a question for those that need confirmation (a: yes for the rest of the session) — and prints the model's final
//! answer on stdout, with a transcript on stderr.
//!
//! ```text
//! cargo run -p atip-agent-example -- --provider openai|anthropic [--model M] [--tools FILE…] PROMPT
//! ```
//!
//! OpenAI-compatible Chat Completions go through async-openai (`OPENAI_API_KEY`,
//! `OPENAI_BASE_URL`, as its own client reads them); Anthropic Messages through reqwest
//! (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, default `https://api.anthropic.com`). Both
//! stream: text is printed as it arrives.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use atip_runtime::agent::{CallStatus, TurnDriver};
use atip_runtime::wire::stream::{StreamBuilder, StreamEvent};
use atip_runtime::{
    exec::GrantScope, safety_prompt, Answer, AuditLog, ConfirmationRequest, FlattenOptions,
    LoadedCommands, Mode, Provider, Runner,
};
use clap::Parser;
use futures_util::StreamExt;
use serde_json::{json, Value};

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(about = "A terminal agent that runs ATIP-described commands for a model")]
struct Args {
    /// `openai` (Chat Completions, or any compatible server) or `anthropic` (Messages).
    #[arg(long)]
    provider: Provider,
    /// The model; default `gpt-4.1-mini` for openai, `claude-sonnet-4-5` for anthropic.
    #[arg(long)]
    model: Option<String>,
    /// ATIP metadata files, repeated or comma-separated (default: every `examples/atip/*.json`
    /// but the `fig-*.json` imports).
    #[arg(long, value_name = "FILE", value_delimiter = ',')]
    tools: Vec<PathBuf>,
    /// Append one JSON line per call to this file (see `atip_runtime::exec::audit`).
    #[arg(long, value_name = "FILE")]
    audit_log: Option<PathBuf>,
    /// Model turns before giving up.
    #[arg(long, default_value_t = 10)]
    max_turns: usize,
    /// What to ask.
    prompt: String,
}

/// Why the agent stopped without an answer.
type Failure = Box<dyn std::error::Error>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("agent: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<ExitCode, Failure> {
    // TLS for real endpoints: rustls with ring, installed once.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let provider = match args.provider.wire() {
        Provider::OpenAi | Provider::Anthropic => args.provider,
        _ => {
            return Err(format!(
                "--provider {}: this agent speaks openai (or openai-strict) and anthropic",
                args.provider.as_str()
            )
            .into())
        }
    };
    let tools = load(&args.tools)?;
    let mut runner = Runner::new().confirm_with(ask);
    if let Some(path) = &args.audit_log {
        runner = runner.audit_log(AuditLog::open(path)?);
    }
    let mut driver = TurnDriver::new(provider, tools, runner);
    let definitions = driver.definitions();
    eprintln!(
        "→ {} tools sent as {} definitions ({} bytes of JSON):",
        definitions.len(),
        provider.as_str(),
        Value::Array(definitions.clone()).to_string().len(),
    );
    for definition in &definitions {
        eprintln!("  {}", signature(provider, definition));
    }
    let system = safety_prompt(driver.tools().iter().flat_map(LoadedCommands::specs));
    let mut messages: Vec<Value> = match provider {
        Provider::Anthropic => vec![json!({"role": "user", "content": args.prompt})],
        _ => vec![
            json!({"role": "system", "content": system}),
            json!({"role": "user", "content": args.prompt}),
        ],
    };
    let model = args.model.unwrap_or_else(|| {
        match provider {
            Provider::Anthropic => "claude-sonnet-4-5",
            _ => "gpt-4.1-mini",
        }
        .to_owned()
    });
    let client = Client::new(provider)?;
    for turn in 1..=args.max_turns {
        let request = match provider {
            Provider::Anthropic => json!({
                "model": model, "max_tokens": 4096, "stream": true, "system": system,
                "tools": definitions, "messages": messages,
            }),
            _ => json!({
                "model": model, "stream": true, "tools": definitions, "messages": messages,
            }),
        };
        let body = client.stream(provider, &request).await?;
        let outcome = driver.turn(&body).await?;
        if outcome.truncated {
            eprintln!("← turn {turn}: the response was cut short; its calls are not run");
        }
        for report in &outcome.calls {
            let args = match &report.call.arguments {
                Ok(a) => Value::Object(a.clone()).to_string(),
                Err(e) => e.raw.clone().unwrap_or_default(),
            };
            let argv = report
                .argv
                .as_ref()
                .map(|a| {
                    a.iter()
                        .map(|s| s.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_else(|| "-".to_owned());
            eprintln!(
                "← call {} {args}\n  argv: {argv}\n  decision: {} ({} ms)\n  result: {}",
                report.call.name,
                status(&report.status),
                report.duration.as_millis(),
                first_lines(&report.result.content, 6)
            );
        }
        messages.extend(outcome.messages.iter().cloned());
        if outcome.finished {
            return Ok(ExitCode::SUCCESS);
        }
        if outcome.budget_spent {
            eprintln!("agent: too many invalid calls; stopping");
            return Ok(ExitCode::FAILURE);
        }
    }
    eprintln!("agent: no answer after {} turns", args.max_turns);
    Ok(ExitCode::FAILURE)
}

/// Every metadata file given, or every file of `examples/atip/` but the `fig-*.json` imports.
fn load(files: &[PathBuf]) -> Result<Vec<LoadedCommands>, Failure> {
    let files: Vec<PathBuf> = if files.is_empty() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../atip");
        let mut all: Vec<PathBuf> = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            // Imported from Fig (the `fig` example): the same tools as ls.json and wc.json.
            .filter(|p| {
                !p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("fig-"))
            })
            .collect();
        all.sort();
        all
    } else {
        files.to_vec()
    };
    files
        .iter()
        .map(|f| {
            Ok(LoadedCommands::from_path(
                f,
                Mode::Strict,
                &FlattenOptions::default(),
            )?)
        })
        .collect()
}

/// One line per tool definition: `git_log(oneline?: boolean, max_count?: integer, …)`, a
/// parameter without `?` being required.
fn signature(provider: Provider, definition: &Value) -> String {
    let function = definition.get("function").unwrap_or(definition);
    let name = function["name"].as_str().unwrap_or("?");
    let schema = &function[provider.input_schema_key()];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let params: Vec<String> = schema["properties"]
        .as_object()
        .map(|p| {
            p.iter()
                .map(|(key, s)| {
                    let kind = match &s["type"] {
                        Value::String(t) => t.clone(),
                        Value::Array(ts) => ts
                            .iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join("|"),
                        _ if s.get("enum").is_some() => "enum".to_owned(),
                        _ => "any".to_owned(),
                    };
                    let optional = if required.contains(&key.as_str()) {
                        ""
                    } else {
                        "?"
                    };
                    format!("{key}{optional}: {kind}")
                })
                .collect()
        })
        .unwrap_or_default();
    format!("{name}({})", params.join(", "))
}

/// The y/N question for a call that needs confirmation: anything but `y` refuses.
/// Asks on the terminal: `y` runs this call, `a` runs it and every later call of the same
/// command with the same reasons this session, anything else refuses.
async fn ask(request: ConfirmationRequest) -> Answer {
    eprint!("? {request}\n? run it? [y/N/a] (a = yes for the rest of this session) ");
    tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).ok();
        match line.trim() {
            "y" | "Y" => Answer::Once,
            "a" | "A" => Answer::ForSession(GrantScope::SameReasons),
            _ => Answer::No,
        }
    })
    .await
    .unwrap_or(Answer::No)
}

fn status(s: &CallStatus) -> &'static str {
    match s {
        CallStatus::Invalid => "invalid, the model was told why",
        CallStatus::Refused => "refused",
        CallStatus::Unconfirmed => "needs confirmation, not given",
        CallStatus::NotStarted => "did not start",
        CallStatus::Skipped => "skipped",
        CallStatus::Answered => "answered without running a command",
        CallStatus::Ran { success: true } => "ran",
        CallStatus::Ran { success: false } => "ran, failed",
    }
}

fn first_lines(text: &str, n: usize) -> String {
    let mut lines = text.lines();
    let mut out: Vec<&str> = lines.by_ref().take(n).collect();
    if lines.next().is_some() {
        out.push("…");
    }
    out.join("\n          ")
}

/// The HTTP side: async-openai for Chat Completions, reqwest for Anthropic.
enum Client {
    OpenAi(async_openai::Client<async_openai::config::OpenAIConfig>),
    Anthropic {
        http: reqwest::Client,
        url: String,
        key: String,
    },
}

impl Client {
    fn new(provider: Provider) -> Result<Self, Failure> {
        Ok(match provider {
            Provider::Anthropic => Client::Anthropic {
                http: reqwest::Client::new(),
                url: format!(
                    "{}/v1/messages",
                    std::env::var("ANTHROPIC_BASE_URL")
                        .unwrap_or_else(|_| "https://api.anthropic.com".to_owned())
                        .trim_end_matches('/')
                ),
                key: std::env::var("ANTHROPIC_API_KEY")
                    .map_err(|_| "ANTHROPIC_API_KEY is not set")?,
            },
            // Reads OPENAI_API_KEY and OPENAI_BASE_URL.
            _ => Client::OpenAi(async_openai::Client::new()),
        })
    }

    /// Sends `request`, prints the streamed text as it arrives, and returns the whole response
    /// in its non-streaming shape.
    async fn stream(&self, provider: Provider, request: &Value) -> Result<String, Failure> {
        let mut builder = StreamBuilder::new(provider);
        let mut stdout = std::io::stdout();
        let mut wrote = false;
        let mut show = |events: Vec<StreamEvent>| {
            for e in events {
                if let StreamEvent::Text(t) = e {
                    print!("{t}");
                    let _ = stdout.flush();
                    wrote = true;
                }
            }
        };
        match self {
            Client::OpenAi(client) => {
                let mut chunks = client
                    .chat()
                    .create_stream_byot::<_, Value>(request.clone())
                    .await?;
                while let Some(chunk) = chunks.next().await {
                    show(builder.push_event(&chunk?));
                }
            }
            Client::Anthropic { http, url, key } => {
                let response = http
                    .post(url)
                    .header("x-api-key", key)
                    .header("anthropic-version", "2023-06-01")
                    .header("content-type", "application/json")
                    .body(request.to_string())
                    .send()
                    .await?;
                if !response.status().is_success() {
                    let status = response.status();
                    let text = response.text().await.unwrap_or_default();
                    return Err(format!("Anthropic answered {status}: {text}").into());
                }
                let mut bytes = response.bytes_stream();
                while let Some(chunk) = bytes.next().await {
                    show(builder.push(&chunk?));
                }
            }
        }
        if wrote {
            // Each turn's text on lines of its own.
            println!();
        }
        Ok(builder.finish()?.to_string())
    }
}
