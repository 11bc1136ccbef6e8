//! `atip mcp wrap`: a stdio MCP server run confined, its tools gated by the policy and its
//! results redacted (`atip_mcp::wrap`).

use std::ffi::OsString;
use std::process::ExitCode;

use atip_runtime::{Effects, FilesystemEffects, Invocation};
use clap::{Args, Subcommand};

use crate::exec::{block_on, read_policy, runner_with, ExecArgs};
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
    /// `atip mcp wrap [OPTIONS] -- COMMAND [ARGS]…`
    Wrap(Wrap),
}

/// The options of `atip mcp wrap`.
#[derive(Args)]
pub(crate) struct Wrap {
    #[command(flatten)]
    exec: ExecArgs,
    /// Let the server use the network (to the policy's egress hosts when it lists any).
    #[arg(long)]
    network: bool,
    /// The server's name in audit lines and questions (default: the command's file name).
    #[arg(long)]
    name: Option<String>,
    /// The server's command line (after `--`).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

pub(crate) fn run(cmd: McpCmd) -> Outcome {
    match cmd {
        McpCmd::Wrap(wrap) => serve(wrap),
    }
}

fn serve(wrap: Wrap) -> Outcome {
    let policy = read_policy(wrap.exec.policy.as_deref())?;
    let runner = runner_with(&wrap.exec, policy)?;
    let name = wrap.name.unwrap_or_else(|| {
        std::path::Path::new(&wrap.command[0])
            .file_name()
            .map_or_else(|| "server".to_owned(), |n| n.to_string_lossy().into_owned())
    });
    let mut effects = Effects::UNKNOWN;
    effects.network = Some(wrap.network);
    effects.filesystem = Some(FilesystemEffects {
        read: Some(true),
        write: Some(true),
        ..FilesystemEffects::default()
    });
    let server = Invocation::new(name.clone(), wrap.command, effects);
    eprintln!(
        "atip mcp wrap: {name} confined (sandbox {}, network {}), MCP on stdin/stdout",
        if wrap.exec.no_sandbox { "off" } else { "on" },
        if wrap.network { "on" } else { "off" },
    );
    let status = block_on(atip_mcp::wrap::Wrapper::new(runner, server).serve_stdio())?
        .map_err(Failure::new)?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}
