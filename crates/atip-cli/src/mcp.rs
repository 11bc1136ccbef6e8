//! `atip mcp wrap`: a stdio MCP server run confined, its tools gated by the policy and its
//! results redacted (`atip_mcp::wrap`); `atip mcp tools`: its tool list, saved for typed code
//! (`atip_mcp::McpTools`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use atip_mcp::wrap::{ServerSpec, Wrapper};
use atip_runtime::{Effects, FilesystemEffects, Invocation};
use clap::{ArgGroup, Args, Subcommand};

use crate::exec::{block_on, read_policy, runner_with, sandbox_of, ExecArgs};
use crate::output::{Failure, Outcome};

/// `atip mcp …`.
#[derive(Subcommand)]
pub(crate) enum McpCmd {
    /// Run a stdio MCP server in the sandbox for its whole life and serve its tools on
    /// stdin/stdout: each tools/call judged by the policy on the tool's annotations (an absent
    /// hint is unknown, and unknown asks: by elicitation when the client has it, else
    /// refused), every result redacted, one audit line per call. The server may write in the
    /// working directory and --writable directories, reaches no network unless --network
    /// (then only the policy's hosts when it lists any), never sees credential stores or
    /// daemon sockets, and gets the built environment (--env-allow adds variables).
    /// `atip mcp wrap [OPTIONS] -- COMMAND [ARGS]…`, or `atip mcp wrap [OPTIONS] SERVER.json`
    /// for a server described like a tool: its command line, the files it may read and
    /// write, the hosts it may reach, its variables and sockets, and its tools' effects
    /// (docs/mcp.md).
    Wrap(Wrap),
    /// Start a stdio MCP server confined, as `atip mcp wrap` does (the same options and
    /// forms), and print its tool list as JSON — `{"serverInfo": {…}, "tools": […]}` — for
    /// typed code: `include_atip!("server.tools.json")` makes one typed command per tool,
    /// called over MCP. What ATIP cannot type is said on stderr.
    Tools(Wrap),
}

/// The options of `atip mcp wrap`: a description or a command line, not both.
#[derive(Args)]
#[command(group(ArgGroup::new("what").required(true).args(["server", "command"])))]
pub(crate) struct Wrap {
    #[command(flatten)]
    exec: ExecArgs,
    /// Let the server use the network (to the policy's egress hosts when it lists any). With
    /// SERVER.json, its `network` and `hosts` say.
    #[arg(long, conflicts_with = "server")]
    network: bool,
    /// The server's name in audit lines and questions (default: SERVER.json's `name`, else
    /// the command's file name).
    #[arg(long)]
    name: Option<String>,
    /// The server's description (JSON: `command`, `filesystem.read`/`write`, `network`,
    /// `hosts`, `env`, `unixSockets`, `checksum`, `tools`).
    #[arg(value_name = "SERVER.json")]
    server: Option<PathBuf>,
    /// The server's command line (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

pub(crate) fn run(cmd: McpCmd) -> Outcome {
    match cmd {
        McpCmd::Wrap(wrap) => serve(wrap),
        McpCmd::Tools(wrap) => tools(wrap),
    }
}

/// The server the options describe, the runner that starts it, and its described tools'
/// effects; its name and whether it may reach the network.
struct Prepared {
    runner: atip_runtime::Runner,
    server: Invocation,
    described: Option<ServerSpec>,
    name: String,
    network: bool,
}

fn prepare(wrap: Wrap) -> Result<Prepared, Failure> {
    let mut policy = read_policy(wrap.exec.policy.as_deref())?;
    Ok(match &wrap.server {
        Some(path) => {
            let mut spec = ServerSpec::from_path(path)
                .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
            if let Some(name) = wrap.name {
                spec.name = Some(name);
            }
            spec.check()
                .map_err(|e| Failure::new(format!("--name: {e}")))?;
            spec.add_to(&mut policy);
            let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
            let sandbox = spec.sandbox(sandbox_of(&wrap.exec), &here);
            let runner = runner_with(&wrap.exec, policy, sandbox)?;
            Prepared {
                runner,
                server: spec.invocation(),
                name: spec.server_name(),
                network: spec.network || !spec.hosts.is_empty(),
                described: Some(spec),
            }
        }
        None => {
            let runner = runner_with(&wrap.exec, policy, sandbox_of(&wrap.exec))?;
            let name = wrap
                .name
                .unwrap_or_else(|| atip_mcp::wrap::name_of_program(&wrap.command[0]));
            let mut effects = Effects::UNKNOWN;
            effects.network = Some(wrap.network);
            effects.filesystem = Some(FilesystemEffects {
                read: Some(true),
                write: Some(true),
                ..FilesystemEffects::default()
            });
            Prepared {
                runner,
                server: Invocation::new(name.clone(), wrap.command, effects),
                described: None,
                name,
                network: wrap.network,
            }
        }
    })
}

fn serve(wrap: Wrap) -> Outcome {
    let no_sandbox = wrap.exec.no_sandbox;
    let Prepared {
        runner,
        server,
        described,
        name,
        network,
    } = prepare(wrap)?;
    let wrapper = match &described {
        Some(spec) => Wrapper::from_spec(runner, spec),
        None => Wrapper::new(runner, server),
    };
    eprintln!(
        "atip mcp wrap: {name} confined (sandbox {}, network {}), MCP on stdin/stdout",
        if no_sandbox { "off" } else { "on" },
        if network { "on" } else { "off" },
    );
    let status = block_on(wrapper.serve_stdio())?.map_err(Failure::new)?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}

fn tools(wrap: Wrap) -> Outcome {
    let Prepared {
        runner,
        server,
        described,
        name,
        ..
    } = prepare(wrap)?;
    let tools = block_on(async {
        match &described {
            Some(spec) => atip_mcp::McpTools::from_spec(&runner, spec).await,
            None => atip_mcp::McpTools::start(&runner, &server).await,
        }
    })?
    .map_err(|e| Failure::new(format!("{name}: {e}")))?;
    for warning in tools.warnings() {
        eprintln!("atip mcp tools: {name}: {warning}");
    }
    let text = serde_json::to_string_pretty(tools.tools_list()).map_err(Failure::new)?;
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
