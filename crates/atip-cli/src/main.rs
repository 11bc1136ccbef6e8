//! `atip`: check ATIP metadata and generate typed Rust from it.
//!
//! This file holds the command line (every command, its arguments and help) and hands each
//! command to the module of its group.
#![deny(missing_docs)]

use std::path::PathBuf;
use std::process::ExitCode;

use atip_build::Options;
use atip_runtime::canonical::Format;
use atip_runtime::Provider;
use clap::{CommandFactory, Parser, Subcommand};

use exec::ExecArgs;
use output::{Failure, Outcome};
use tool_calls::Calls;

mod agent;
mod discovery;
mod exec;
mod import;
mod load;
mod mark;
mod mcp;
mod metadata;
mod output;
mod review;
mod tool_calls;

/// The allocator of the `atip` process: mimalloc, without transparent huge pages. Loading a
/// large document makes millions of small allocations and frees (a `Value` per command, read
/// into the model and dropped); with the system allocator they were half of `atip compile`'s
/// time on 20,000 aws commands. Huge pages made the kernel compact memory on page faults:
/// up to a second of system time, varying from run to run (BENCHMARKS.md). The libraries leave
/// the choice to the program that uses them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Check ATIP metadata and generate typed Rust from it.
#[derive(Parser)]
#[command(name = "atip", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

/// `atip policy …`.
#[derive(Subcommand)]
enum PolicyCmd {
    /// For each tool call — of a provider response (with --provider), or given as JSON
    /// (`{"name": …, "arguments": {…}}` or an array of them) — print as JSON what the runner
    /// would decide (allow, confirm or deny; its trust rules and policy, as `atip run` applies
    /// them), every rule that fired with its code and severity, the call's merged effects and
    /// its argv. A call that does not dispatch is `invalid`, with its problems. Runs nothing.
    ///
    /// A call the runner would ask about only for what its effects leave unsaid is
    /// `tight-first`: it runs unasked in the tightest sandbox, and a person is asked only if
    /// it fails there. With `--stats` instead of calls: per tools file, how many of its
    /// commands would run, run tight first, be asked about first, or be refused.
    ///
    /// Exit status 0 whatever the decisions; 1 when the tools, the policy (or its examples)
    /// or the calls do not load.
    Check {
        /// ATIP JSON files describing the tools.
        #[arg(long = "tools", required = true, num_args = 1..)]
        tools: Vec<PathBuf>,
        /// The calls are a response body of this provider (openai, openai-responses,
        /// anthropic or gemini) rather than calls as JSON.
        #[arg(long, conflicts_with = "stats")]
        provider: Option<Provider>,
        /// Judge every command of the tools by its effects alone (no arguments) and print,
        /// per file, the count of each decision and the share asked about before running.
        #[arg(long, conflicts_with = "calls")]
        stats: bool,
        #[command(flatten)]
        exec: ExecArgs,
        /// The calls, or the response; `-` reads standard input.
        #[arg(required_unless_present = "stats")]
        calls: Option<PathBuf>,
    },
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
        #[arg(long, required_unless_present = "stats", conflicts_with = "stats")]
        provider: Option<Provider>,
        /// Instead of the definitions, print what they cost for every provider as a JSON
        /// array: `{"provider", "commands", "bytes", "estimatedTokens"}` (a token is about 4
        /// bytes of JSON; the provider's own tokenizer decides).
        #[arg(long)]
        stats: bool,
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
        #[arg(long, default_value = "all", value_parser = metadata::parse_globals)]
        globals: atip_runtime::tool::GlobalOptions,
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
    /// tool-result message(s) as JSON, secrets redacted. A call asked about only for what its
    /// effects leave unsaid runs first, unasked, read-only and offline (tight first); one that
    /// needs confirmation — or whose tight run failed — is not run (again) unless --yes is
    /// given; its result says why.
    Run {
        #[command(flatten)]
        calls: Calls,
        #[command(flatten)]
        exec: ExecArgs,
        /// A person confirms every call that needs confirmation (refused calls stay refused).
        #[arg(long)]
        yes: bool,
    },
    /// What a policy does, explained without running anything.
    Policy {
        #[command(subcommand)]
        action: PolicyCmd,
    },
    /// Serve the commands of the files as MCP tools on stdin/stdout (rmcp): tools/list gives
    /// their MCP definitions, tools/call dispatches, checks the policy, runs without a shell
    /// and returns the filtered output (isError on failure). A call that needs confirmation is
    /// put to the client's user by elicitation; a client without it gets an error result
    /// saying why, and the call does not run.
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
    /// MCP servers confined like ATIP tools (`atip mcp wrap -- COMMAND ARGS…`).
    #[command(subcommand)]
    Mcp(mcp::McpCmd),
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
    /// The child process of `atip import fig`: evaluate one Fig spec module, as the request on
    /// standard input says, under limits on this whole process, and write the reply on standard
    /// output (`atip_fig::child::serve`). Started by `atip import fig` only; hidden.
    #[command(name = import::FIG_EVAL, hide = true)]
    FigEval,
    /// Show what the sandbox can do on this machine, one line per layer (Landlock, user
    /// namespaces, seccomp, capabilities, cgroups), with the fix for what is missing. Exit
    /// status 0 when a default run gets the whole sandbox here, 1 otherwise.
    Doctor,
    /// Find the commands that best match what you want to do (BM25 over paths, names,
    /// descriptions, parameters and the services' descriptions, the query widened with
    /// synonyms: "virtual machine" finds instances) and print their flattened names, one per
    /// line, best first.
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
        /// Refuse a file with any schema error. By default the files are read leniently, as
        /// metadata from tools at run time: a command that breaks the schema is left out with
        /// a warning.
        #[arg(long, conflicts_with = "lenient")]
        strict: bool,
        /// Read the files leniently: the default, accepted for scripts that pass it.
        #[arg(long, hide = true)]
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
    /// Settle an import in one pass: declare the commands a person names by pattern read-only
    /// (`--read-only 'get *'`: not destructive, no file writes or deletes) or destructive
    /// (`--destructive 'delete *'`), and print the document. Every mark is checked by loading
    /// the result. Exit status 1 when a pattern matches no command or a mark cannot take effect.
    Mark(mark::MarkArgs),
}

fn main() -> ExitCode {
    // The child process of `atip import fig`, started once per spec module: served before
    // anything else is set up (building the command line costs more than a small module).
    let mut args = std::env::args_os();
    if args.len() == 2 && args.nth(1).is_some_and(|a| a == import::FIG_EVAL) {
        return atip_fig::child::serve();
    }
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
        } => metadata::check(&files, lenient, summary),
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
            metadata::gen(&file, options)
        }
        Cmd::Compile {
            provider,
            stats,
            files,
            commands,
            lenient,
            globals,
        } => match provider {
            Some(provider) if !stats => {
                metadata::compile(provider, &files, commands, lenient, &globals)
            }
            _ => metadata::compile_stats(&files, commands, lenient, &globals),
        },
        Cmd::Prompt { files, lenient } => metadata::prompt(&files, lenient),
        Cmd::Parse { provider, response } => tool_calls::parse(provider, &response),
        Cmd::Dispatch { calls, lenient } => tool_calls::dispatch(&calls, lenient),
        Cmd::Run { calls, exec, yes } => tool_calls::run(&calls, &exec, yes),
        Cmd::Policy {
            action:
                PolicyCmd::Check {
                    tools,
                    provider,
                    stats,
                    exec,
                    calls,
                },
        } => match calls {
            Some(calls) if !stats => tool_calls::policy_check(&tools, provider, &exec, &calls),
            _ => tool_calls::policy_stats(&tools, &exec),
        },
        Cmd::Convert { from, to, file } => discovery::convert(from, to, &file),
        Cmd::Serve {
            tools,
            meta_tools,
            exec,
        } => tool_calls::serve(&tools, meta_tools, &exec),
        Cmd::Discover {
            tool,
            out,
            timeout,
            commands,
            depth,
        } => discovery::discover(
            &tool,
            out.as_deref(),
            timeout,
            &atip_runtime::discover::Partial { commands, depth },
        ),
        Cmd::Import(cmd) => import::run(cmd),
        Cmd::FigEval => Ok(atip_fig::child::serve()),
        Cmd::Mcp(cmd) => mcp::run(cmd),
        Cmd::Doctor => {
            let checks = atip_runtime::sandbox::doctor::checks();
            for c in &checks {
                println!("{c}");
            }
            Ok(if checks.iter().all(|c| c.ok) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Cmd::Search {
            files,
            query,
            top,
            strict,
            lenient: _,
        } => discovery::search(&files, &query, top, !strict),
        Cmd::Lint(args) => Ok(review::lint(&args)),
        Cmd::Diff(args) => Ok(review::diff(&args)),
        Cmd::Mark(args) => mark::mark(&args),
    }
}
