//! `atip`: check ATIP metadata and generate typed Rust from it.
#![deny(missing_docs)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use atip_build::{expand, Options};
use atip_runtime::canonical::Format;
use atip_runtime::lifecycle::parse_response;
use atip_runtime::Provider;
use atip_runtime::{safety_prompt, Document, FlattenOptions, LoadOptions, Mode, RuntimeTool};
use clap::{CommandFactory, Parser, Subcommand};
use serde_json::{json, Value};

mod agent;
mod import;
mod review;

/// Check ATIP metadata and generate typed Rust from it.
#[derive(Parser)]
#[command(name = "atip", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Validate metadata files against the ATIP schema of the version they declare, flatten
    /// them and report every problem as `file:line:col: $.path: message`.
    ///
    /// Exit status 0 when every file is usable (warnings go to stderr), 1 otherwise.
    Check {
        /// ATIP JSON files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Check as metadata read at run time: problems in optional descriptive fields are
        /// warnings.
        #[arg(long)]
        lenient: bool,
        /// One line per file saying what loading did (commands, merged duplicates, skipped
        /// commands with their reasons) instead of every warning.
        #[arg(long)]
        summary: bool,
    },
    /// Print the Rust module generated for a metadata file, formatted, exactly as build.rs
    /// writes it.
    Gen {
        /// ATIP JSON file.
        file: PathBuf,
        /// Keep only these command subtrees: comma-separated, or repeated (`--commands pr
        /// --commands "repo delete"`).
        #[arg(long, value_delimiter = ',')]
        commands: Vec<String>,
        /// Executable to run instead of the tool's name.
        #[arg(long)]
        program: Option<String>,
        /// Refuse more commands than this (after --commands); default
        /// `atip_build::DEFAULT_MAX_COMMANDS` (2000).
        #[arg(long)]
        max_commands: Option<usize>,
        /// Also generate these providers' definitions as `const` JSON in `mod schemas`
        /// (comma-separated provider names, as for `compile --provider`).
        #[arg(long, value_delimiter = ',')]
        schemas: Vec<Provider>,
        /// Also implement `serde::Serialize` and `serde::Deserialize` for every command.
        #[arg(long)]
        serde: bool,
    },
    /// Print the tool definitions of every command of the files as one JSON array, in a
    /// provider's format (for gemini: the function declarations) — the same JSON as the
    /// generated `definitions(provider)` for a single file.
    Compile {
        /// openai, openai-strict, openai-responses, openai-responses-strict, anthropic,
        /// gemini or mcp.
        #[arg(long)]
        provider: Provider,
        /// ATIP JSON files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Keep only these command subtrees (single file only), as for `gen`.
        #[arg(long, value_delimiter = ',')]
        commands: Vec<String>,
        /// Read the files as metadata from tools at run time.
        #[arg(long)]
        lenient: bool,
        /// Which global options the model sees: `all` (default), `none`, or a comma-separated
        /// list of parameter names (`region,output`).
        #[arg(long, default_value = "all", value_parser = parse_globals)]
        globals: atip_runtime::GlobalOptions,
    },
    /// Print the Markdown safety section of a system prompt for the commands of the files.
    Prompt {
        /// ATIP JSON files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Read the files as metadata from tools at run time.
        #[arg(long)]
        lenient: bool,
    },
    /// Print the tool calls of a provider response as a JSON array of
    /// `{"id", "name", "arguments", "error"}` (arguments null and error set when unusable).
    Parse {
        /// openai, openai-responses, anthropic (JSON body or SSE stream) or gemini.
        #[arg(long)]
        provider: Provider,
        /// The response body; `-` reads standard input.
        response: PathBuf,
    },
    /// Dispatch the tool calls of a provider response to the commands of the files and print,
    /// per call, the argv it would run or every problem found. Nothing is executed.
    Dispatch {
        #[command(flatten)]
        calls: Calls,
        /// Read the tool files as metadata from tools at run time.
        #[arg(long)]
        lenient: bool,
    },
    /// Run the tool calls of a provider response: parse, dispatch, check each against the
    /// policy, execute in the current directory without a shell, and print the provider's
    /// tool-result message(s) as JSON, secrets redacted. A call that needs confirmation is not
    /// run unless --yes is given; its result says why.
    Run {
        #[command(flatten)]
        calls: Calls,
        #[command(flatten)]
        exec: ExecArgs,
        /// A person confirms every call that needs confirmation (refused calls stay refused).
        #[arg(long)]
        yes: bool,
    },
    /// Serve the commands of the files as MCP tools on stdin/stdout (rmcp): tools/list gives
    /// their MCP definitions, tools/call dispatches, checks the policy, runs without a shell
    /// and returns the filtered output (isError on failure). Calls that need confirmation are
    /// answered with an error result saying so; they do not run.
    Serve {
        /// ATIP JSON files.
        #[arg(long = "tools", required = true, num_args = 1..)]
        tools: Vec<PathBuf>,
        /// List three meta-tools (search_commands, describe_command, run_command) instead of
        /// every command: for tools too large to list.
        #[arg(long)]
        meta_tools: bool,
        #[command(flatten)]
        exec: ExecArgs,
    },
    /// Convert tool definitions between formats and print them as JSON, in the input's shape
    /// (one definition, or an array). What the target cannot express goes to stderr, one line
    /// per feature, JSON pointer first. Exit status 1 when the input is not a valid definition
    /// of the --from format.
    Convert {
        /// mcp, openai, openai-responses, anthropic, gemini or atip.
        #[arg(long)]
        from: Format,
        /// mcp, openai, openai-strict, openai-responses, openai-responses-strict, anthropic or
        /// gemini.
        #[arg(long)]
        to: Provider,
        /// One definition or a JSON array of them (an ATIP document for atip); `-` reads
        /// standard input.
        file: PathBuf,
    },
    /// Run `TOOL --agent` (no stdin, short time limit), validate what it prints, and write it
    /// to stdout or a file. When the tool gives no metadata, use the shim filed under the
    /// binary's SHA-256 in $XDG_CONFIG_HOME/agent-tools/overrides/sha256/ or
    /// $XDG_DATA_HOME/agent-tools/shims/sha256/ (spec §4), if there is one.
    Discover {
        /// The program, looked up on PATH, or a path.
        tool: String,
        /// Write the metadata here instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Time limit in seconds.
        #[arg(long, default_value_t = 5)]
        timeout: u64,
        /// Partial discovery (spec §3.1.1): only these command subtrees, passed to the tool as
        /// `--commands=a,b`.
        #[arg(long, value_delimiter = ',')]
        commands: Vec<String>,
        /// Partial discovery: subcommand nesting depth, passed as `--depth=N` (1 = top level).
        #[arg(long)]
        depth: Option<u32>,
    },
    /// Make ATIP metadata from other descriptions of tools (`atip import fig SPEC.js`).
    #[command(subcommand)]
    Import(import::ImportCmd),
    /// Find the commands that best match what you want to do (BM25 over paths, names,
    /// descriptions and parameters) and print their flattened names, one per line, best first.
    Search {
        /// ATIP JSON files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// What the command should do.
        #[arg(long)]
        query: String,
        /// How many commands.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Read the files as metadata from tools at run time.
        #[arg(long)]
        lenient: bool,
    },
    /// Review metadata files: the reference linter's rules, the schema, and checks for
    /// options that run programs or write any file, positional order and overridden effects.
    /// Prints `file:line:col: severity[rule]: $.path: message`; exit status 1 when any finding
    /// is an error.
    Lint(review::LintArgs),
    /// Compare two versions of a tool's metadata: every change named (command-removed,
    /// required-argument-added, destructive-added, …), breaking or not, and the semver bump
    /// they call for. Exit status 1 when a change is breaking, 2 when a file is unusable.
    Diff(review::DiffArgs),
}

/// How commands are run: policy, limits, sandbox and trust.
#[derive(clap::Args)]
struct ExecArgs {
    /// A policy: a JSON file, or the JSON itself (`{"destructive": "deny", "denyCommands":
    /// ["git clean"]}`). Command patterns and argument rules that match no loaded command are
    /// an error.
    #[arg(long)]
    policy: Option<String>,
    /// Time limit per call, in seconds, for commands that declare none.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
    /// Cap on captured stdout and stderr together, in bytes.
    #[arg(long, default_value_t = 1024 * 1024)]
    max_output: usize,
    /// Run without the sandbox (commands get only the policy gate).
    #[arg(long)]
    no_sandbox: bool,
    /// Also let sandboxed commands write under this directory (repeatable).
    #[arg(long = "writable")]
    writable: Vec<PathBuf>,
    /// Assign trust to programs whose resolved path matches a glob, whatever their metadata
    /// claims: `GLOB=LEVEL` (`/usr/bin/*=vendor`; repeatable).
    #[arg(long = "trust-program", value_parser = parse_trust_rule)]
    trust_program: Vec<(String, atip_runtime::TrustSource)>,
    /// Assign trust to the metadata files of --tools matching a glob: `GLOB=LEVEL`
    /// (`/etc/atip/*.json=org`; repeatable).
    #[arg(long = "trust-metadata", value_parser = parse_trust_rule)]
    trust_metadata: Vec<(String, atip_runtime::TrustSource)>,
    /// Append one JSON line per call to this file: tool, argv, decision and reasons, who
    /// confirmed, sandbox, duration, exit, redactions, truncation.
    #[arg(long, value_name = "FILE")]
    audit_log: Option<PathBuf>,
}

fn parse_trust_rule(text: &str) -> Result<(String, atip_runtime::TrustSource), String> {
    let (glob, level) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("expected GLOB=LEVEL, found {text:?}"))?;
    let trust = serde_json::from_value(Value::String(level.to_owned())).map_err(|_| {
        format!("unknown trust level {level:?}: native, vendor, org, community, user or inferred")
    })?;
    Ok((glob.to_owned(), trust))
}

/// The tool calls of a provider response and the metadata they are dispatched to.
#[derive(clap::Args)]
struct Calls {
    /// ATIP JSON files describing the tools the model was given.
    #[arg(long = "tools", required = true, num_args = 1..)]
    tools: Vec<PathBuf>,
    /// openai, openai-responses, anthropic or gemini.
    #[arg(long)]
    provider: Provider,
    /// The response body; `-` reads standard input.
    response: PathBuf,
}

/// Why a command failed: printed on stderr before the process exits with status 1. Empty
/// when the details (every diagnostic of every file) were printed already.
#[derive(Debug)]
struct Failure(String);

impl Failure {
    fn new(message: impl std::fmt::Display) -> Self {
        Failure(message.to_string())
    }

    /// The problems were printed as they were found.
    fn reported() -> Self {
        Failure(String::new())
    }
}

/// The exit status of a command that ran, or why it could not.
type Outcome = Result<ExitCode, Failure>;

fn main() -> ExitCode {
    if let Some(code) =
        atip_clap::handle_agent(&Cli::command(), &agent::annotations(), std::env::args_os())
    {
        return code;
    }
    match try_main(Cli::parse()) {
        Ok(code) => code,
        Err(Failure(message)) => {
            if !message.is_empty() {
                eprintln!("{message}");
            }
            ExitCode::FAILURE
        }
    }
}

fn try_main(cli: Cli) -> Outcome {
    match cli.command {
        Cmd::Check {
            files,
            lenient,
            summary,
        } => check(&files, lenient, summary),
        Cmd::Gen {
            file,
            commands,
            program,
            max_commands,
            schemas,
            serde,
        } => {
            let mut options = Options::new()
                .file(file.display().to_string())
                .schemas(schemas)
                .serde(serde);
            if !commands.is_empty() {
                options = options.commands(commands);
            }
            if let Some(program) = program {
                options = options.program(program);
            }
            if let Some(limit) = max_commands {
                options = options.max_commands(limit);
            }
            gen(&file, options)
        }
        Cmd::Compile {
            provider,
            files,
            commands,
            lenient,
            globals,
        } => compile(provider, &files, commands, lenient, &globals),
        Cmd::Prompt { files, lenient } => prompt(&files, lenient),
        Cmd::Parse { provider, response } => parse(provider, &response),
        Cmd::Dispatch { calls, lenient } => dispatch(&calls, lenient),
        Cmd::Run { calls, exec, yes } => run(&calls, &exec, yes),
        Cmd::Convert { from, to, file } => convert(from, to, &file),
        Cmd::Serve {
            tools,
            meta_tools,
            exec,
        } => serve(&tools, meta_tools, &exec),
        Cmd::Discover {
            tool,
            out,
            timeout,
            commands,
            depth,
        } => discover(
            &tool,
            out.as_deref(),
            timeout,
            &atip_runtime::Partial { commands, depth },
        ),
        Cmd::Import(cmd) => import::run(cmd),
        Cmd::Search {
            files,
            query,
            top,
            lenient,
        } => search(&files, &query, top, lenient),
        Cmd::Lint(args) => Ok(review::lint(&args)),
        Cmd::Diff(args) => Ok(review::diff(&args)),
    }
}

fn run(calls: &Calls, exec: &ExecArgs, yes: bool) -> Outcome {
    let tools = load_tools(&calls.tools, false, None)?;
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

fn convert(from: Format, to: Provider, file: &Path) -> Outcome {
    let text = read_input(file)?;
    let converted = if from == Format::Atip {
        let doc = Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default())
            .map_err(|e| Failure::new(format!("{}: {e}", file.display())))?;
        let tools = atip_runtime::canonical::from_atip(&RuntimeTool::new(doc, None));
        atip_runtime::canonical::write(&tools, to, true)
    } else {
        let value = serde_json::from_str::<Value>(&text)
            .map_err(|e| Failure::new(format!("{}: invalid JSON: {e}", file.display())))?;
        atip_runtime::canonical::convert(&value, from, to)
    };
    let out = converted.map_err(|e| Failure::new(format!("{}: {e}", file.display())))?;
    for w in &out.warnings {
        eprintln!("{w}");
    }
    emit_json(&out.value)
}

fn discover(
    tool: &str,
    out: Option<&Path>,
    timeout: u64,
    partial: &atip_runtime::Partial,
) -> Outcome {
    let text =
        atip_runtime::discover_partial(tool, partial, std::time::Duration::from_secs(timeout))
            .map_err(Failure::new)?;
    match out {
        Some(path) => std::fs::write(path, &text)
            .map(|()| ExitCode::SUCCESS)
            .map_err(|e| Failure::new(format!("cannot write {}: {e}", path.display()))),
        None => emit(&text),
    }
}

/// `atip search`: the best commands for a query, one flattened name per line.
fn search(files: &[PathBuf], query: &str, top: usize, lenient: bool) -> Outcome {
    let tools = load_tools(files, lenient, None)?;
    let specs: Vec<&atip_runtime::ToolSpec> = tools.iter().flat_map(RuntimeTool::specs).collect();
    let index = atip_runtime::search::ToolIndex::for_tools(&tools);
    let mut out = String::new();
    for hit in index.search(query, top) {
        out.push_str(&specs[hit.index].name);
        out.push('\n');
    }
    if out.is_empty() {
        eprintln!("no command matches {query:?}");
    }
    emit(&out)
}

/// A single-threaded tokio runtime for the commands that run processes or serve.
fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(format!("cannot start the async runtime: {e}")))
}

/// The policy `text` names: a file, or inline JSON (anything starting with `{`); the default
/// policy when absent.
fn read_policy(text: Option<&str>) -> Result<atip_runtime::Policy, Failure> {
    let Some(text) = text else {
        return Ok(atip_runtime::Policy::default());
    };
    let (json, shown) = if text.trim_start().starts_with('{') {
        (Ok(text.to_owned()), "--policy".to_owned())
    } else {
        (
            std::fs::read_to_string(text).map_err(|e| e.to_string()),
            text.to_owned(),
        )
    };
    json.and_then(|t| atip_runtime::Policy::from_json(&t).map_err(|e| e.to_string()))
        .map_err(|e| Failure::new(format!("{shown}: {e}")))
}

/// The runner `exec` describes for `tools`: its policy (checked against the tools), limits,
/// sandbox and trust rules.
fn runner(exec: &ExecArgs, tools: &[RuntimeTool]) -> Result<atip_runtime::Runner, Failure> {
    let policy = read_policy(exec.policy.as_deref())?;
    policy
        .check_against(tools.iter().flat_map(RuntimeTool::specs))
        .map_err(|e| Failure::new(format!("--policy: {e}")))?;
    let mut sandbox = if exec.no_sandbox {
        atip_runtime::Sandbox::off()
    } else {
        atip_runtime::Sandbox::new()
    };
    for dir in &exec.writable {
        sandbox = sandbox.writable(dir);
    }
    let mut runner = atip_runtime::Runner::new()
        .policy(policy)
        .sandbox(sandbox)
        .timeout(std::time::Duration::from_secs(exec.timeout))
        .max_output_bytes(exec.max_output);
    for (glob, trust) in &exec.trust_program {
        runner = runner.trust_program(glob, *trust);
    }
    for (glob, trust) in &exec.trust_metadata {
        runner = runner.trust_metadata(glob, *trust);
    }
    if let Some(path) = &exec.audit_log {
        let log = atip_runtime::AuditLog::open(path).map_err(|e| {
            Failure::new(format!("--audit-log: cannot open {}: {e}", path.display()))
        })?;
        runner = runner.audit_log(log);
    }
    Ok(runner)
}

/// `atip serve`: an MCP server on stdio until the client disconnects.
fn serve(files: &[PathBuf], meta_tools: bool, exec: &ExecArgs) -> Outcome {
    // Loaded once here for every diagnostic of every file; the server loads them again and
    // reloads them when they change.
    let tools = load_tools(files, false, None)?;
    let runner = runner(exec, &tools)?;
    let server = if meta_tools {
        atip_runtime::mcp::McpServer::from_files_with_meta_tools(files.to_vec(), runner)
    } else {
        atip_runtime::mcp::McpServer::from_files(files.to_vec(), runner)
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

/// Loads every file, printing every diagnostic of every file, and prepares each for dispatch.
fn load_tools(
    files: &[PathBuf],
    lenient: bool,
    commands: Option<Vec<String>>,
) -> Result<Vec<RuntimeTool>, Failure> {
    let mode = if lenient { Mode::Lenient } else { Mode::Strict };
    let mut tools = Vec::new();
    let mut failed = false;
    for file in files {
        let name = file.display().to_string();
        match RuntimeTool::from_path(
            file,
            mode,
            &FlattenOptions {
                commands: commands.clone(),
            },
        ) {
            Ok(tool) => {
                for w in &tool.document().warnings {
                    eprintln!("{}", w.render(Some(&name)));
                }
                tools.push(tool);
            }
            Err(e) => {
                eprintln!("{e}");
                failed = true;
            }
        }
    }
    let mut seen = std::collections::HashMap::new();
    for (i, t) in tools.iter().enumerate() {
        for name in t.names() {
            if let Some(first) = seen.insert(name.to_owned(), i) {
                eprintln!(
                    "{}: tool name `{}` is also defined by {}; every tool of one request needs a distinct name",
                    files[i].display(),
                    name,
                    files[first].display()
                );
                failed = true;
            }
        }
    }
    if failed {
        Err(Failure::reported())
    } else {
        Ok(tools)
    }
}

fn parse_globals(text: &str) -> Result<atip_runtime::GlobalOptions, String> {
    Ok(match text {
        "all" => atip_runtime::GlobalOptions::All,
        "none" => atip_runtime::GlobalOptions::None,
        list => atip_runtime::GlobalOptions::Only(
            list.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
        ),
    })
}

fn compile(
    provider: Provider,
    files: &[PathBuf],
    commands: Vec<String>,
    lenient: bool,
    globals: &atip_runtime::GlobalOptions,
) -> Outcome {
    if !commands.is_empty() && files.len() > 1 {
        return Err(Failure::new("--commands applies to a single file"));
    }
    let tools = load_tools(files, lenient, (!commands.is_empty()).then_some(commands))?;
    let unknown = globals.unknown_names(tools.iter().flat_map(RuntimeTool::specs));
    if !unknown.is_empty() {
        return Err(Failure::new(format!(
            "--globals: {} not a global option of these tools",
            unknown
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
                + if unknown.len() == 1 { " is" } else { " are" }
        )));
    }
    let tools: Vec<RuntimeTool> = tools
        .into_iter()
        .map(|t| t.global_options(globals.clone()))
        .collect();
    // Each file's array, joined: written without building a JSON value of the whole.
    let mut out = String::from("[");
    for t in &tools {
        let array = t.definitions_json(provider);
        let inner = &array[1..array.len() - 1];
        if !inner.is_empty() {
            if out.len() > 1 {
                out.push(',');
            }
            out.push_str(inner);
        }
    }
    out.push_str("]\n");
    let code = emit(&out)?;
    // What had to give to fit the provider's documented limits (atip_runtime::limits).
    for note in atip_runtime::limits::notes(tools.iter().flat_map(RuntimeTool::specs), provider) {
        eprintln!("warning: {note}");
    }
    Ok(code)
}

fn prompt(files: &[PathBuf], lenient: bool) -> Outcome {
    let tools = load_tools(files, lenient, None)?;
    emit(&safety_prompt(tools.iter().flat_map(RuntimeTool::specs)))
}

fn read_input(path: &Path) -> Result<String, Failure> {
    let mut text = String::new();
    let read = if path == Path::new("-") {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(path).map(|t| text = t)
    };
    read.map(|_| text)
        .map_err(|e| Failure::new(format!("cannot read {}: {e}", path.display())))
}

fn parse(provider: Provider, response: &Path) -> Outcome {
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

fn dispatch(calls: &Calls, lenient: bool) -> Outcome {
    let tools = load_tools(&calls.tools, lenient, None)?;
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

/// `atip check`: every file, every diagnostic; status 1 when any file has an error.
fn check(files: &[PathBuf], lenient: bool, summary: bool) -> Outcome {
    let mode = if lenient { Mode::Lenient } else { Mode::Strict };
    let mut failed = false;
    for file in files {
        let name = file.display().to_string();
        match Document::from_path(file, mode, &FlattenOptions::default()) {
            Ok(doc) => {
                if !summary {
                    for w in &doc.warnings {
                        eprintln!("{}", w.render(Some(&name)));
                    }
                }
                let mut out = format!(
                    "{name}: ok: {}, {} warning{}\n",
                    doc.summary(),
                    doc.warnings.len(),
                    if doc.warnings.len() == 1 { "" } else { "s" }
                );
                if summary {
                    for skipped in &doc.skipped {
                        out.push_str(&format!(
                            "  skipped `{}` ({}): {}\n",
                            skipped.path,
                            skipped.json_path,
                            skipped.reasons.join("; ")
                        ));
                    }
                }
                emit(&out)?;
            }
            Err(e) => {
                failed = true;
                eprintln!("{e}");
                let errors = e.errors().count();
                emit(&format!(
                    "{name}: {errors} error{}\n",
                    if errors == 1 { "" } else { "s" }
                ))?;
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn gen(file: &std::path::Path, options: Options) -> Outcome {
    let name = file.display().to_string();
    let load = LoadOptions::strict().with_file(name.clone());
    let text = atip_runtime::load::read_text(file, &load).map_err(Failure::new)?;
    let exp = expand(&text, &options).map_err(Failure::new)?;
    for w in &exp.warnings {
        eprintln!("{}", w.render(Some(&name)));
    }
    emit(&exp.to_source(&name))
}

/// Writes `value` as pretty JSON and a newline.
fn emit_json(value: &Value) -> Outcome {
    let text = serde_json::to_string_pretty(value).map_err(Failure::new)?;
    emit(&format!("{text}\n"))
}

/// Writes to stdout; a closed pipe (`atip gen … | head`) ends quietly instead of panicking.
fn emit(text: &str) -> Outcome {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Failure::new(format!("cannot write the output: {e}"))),
    }
}
