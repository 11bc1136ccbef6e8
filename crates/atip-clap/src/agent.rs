//! Answering `PROGRAM --agent` (spec §3.1) in a clap program.
//!
//! The request is recognised before clap parses anything, so it works whatever else the
//! program requires (a subcommand, a positional): the first argument must be `--agent`,
//! optionally followed by the partial-discovery filter `--commands=a,b` (§3.1.1).
//!
//! ```no_run
//! # use clap::{CommandFactory, Parser};
//! # #[derive(Parser)] #[command(version, about = "Demo")] struct Cli { #[arg(long)] x: bool }
//! fn main() -> std::process::ExitCode {
//!     let annotations = atip_clap::Annotations::new();
//!     if let Some(code) = atip_clap::handle_agent(&Cli::command(), &annotations, std::env::args_os()) {
//!         return code; // the metadata went to stdout (or why not to stderr)
//!     }
//!     let cli = Cli::parse();
//!     // …
//! #   let _ = cli.x;
//!     std::process::ExitCode::SUCCESS
//! }
//! ```

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use atip_core::model::{CommandSpec, DiscoveryFilter, Omitted, OmittedReason, SafetyAssumption};
use clap::{Arg, ArgAction, Command};
use indexmap::IndexMap;

use crate::annotations::Annotations;
use crate::describe::{document, AGENT_ARG_ID};

/// A `--agent` request: what `PROGRAM --agent …` asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentRequest {
    /// `--commands=a,b`: only these command subtrees (paths as typed, `"remote add"`), for
    /// partial discovery (§3.1.1). `None`: the whole document.
    pub commands: Option<Vec<String>>,
    /// Arguments after `--agent` this crate does not support (`--depth=N` among them: a
    /// depth-limited document would describe cut-off groups as commands of their own).
    pub unsupported: Vec<String>,
}

/// Adds a `--agent` flag to `cmd` (id [`AGENT_ARG_ID`]), so that `--help` lists it and clap
/// accepts it. [`handle_agent`] answers the request before clap parses, so the flag itself is
/// never read; [`crate::document`] leaves it out of the metadata.
pub fn agent_flag(cmd: Command) -> Command {
    cmd.arg(
        Arg::new(AGENT_ARG_ID)
            .long("agent")
            .action(ArgAction::SetTrue)
            .exclusive(true)
            .help("Print this program's ATIP metadata (JSON) for AI agents, and exit"),
    )
}

/// Whether `args` (the program's whole argv, program name first) ask for metadata: the first
/// argument after the program is `--agent`. Returns what was asked for, or `None` for an
/// ordinary call.
pub fn agent_request<I, T>(args: I) -> Option<AgentRequest>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let mut args = args.into_iter().map(Into::into).skip(1);
    if args.next()? != "--agent" {
        return None;
    }
    let mut request = AgentRequest::default();
    let mut rest = args.map(|a| a.to_string_lossy().into_owned());
    while let Some(arg) = rest.next() {
        let list = if let Some(v) = arg.strip_prefix("--commands=") {
            Some(v.to_owned())
        } else if arg == "--commands" {
            Some(rest.next().unwrap_or_default())
        } else {
            None
        };
        match list {
            Some(list) => request.commands.get_or_insert_with(Vec::new).extend(
                list.split(',')
                    .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
                    .filter(|p| !p.is_empty()),
            ),
            None => request.unsupported.push(arg),
        }
    }
    Some(request)
}

/// What `--agent` answers: the document and what it could not say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentAnswer {
    /// The JSON text, as `--agent` prints it on stdout (with a trailing newline).
    pub text: String,
    /// What the document could not express of the program's arguments
    /// ([`crate::Described::warnings`]); [`handle_agent`] prints them on stderr.
    pub warnings: Vec<crate::Warning>,
}

/// The answer to `request` for the program `cmd`: the JSON text `--agent` prints and the
/// warnings it prints on stderr. With `--commands`, the document is partial (§3.1.1): `partial`,
/// `filter`, `totalCommands`, `includedCommands` and `omitted` (reason `filtered`, safety
/// assumption `unknown`) are set.
///
/// # Errors
///
/// A message when the document cannot be written ([`crate::DocumentError`]), the request has
/// arguments this crate does not support, or a `--commands` entry names no command.
pub fn answer_agent(
    cmd: &Command,
    annotations: &Annotations,
    request: &AgentRequest,
) -> Result<AgentAnswer, String> {
    if !request.unsupported.is_empty() {
        return Err(format!(
            "--agent: unsupported argument(s) {}; only --commands=a,b is supported",
            request.unsupported.join(" ")
        ));
    }
    let mut described = document(cmd, annotations).map_err(|e| e.to_string())?;
    if let Some(wanted) = &request.commands {
        let tool = &mut described.tool;
        let total = leaves(&tool.commands);
        let mut unknown = Vec::new();
        let mut kept = IndexMap::new();
        for entry in wanted {
            let path: Vec<&str> = entry.split(' ').collect();
            match subtree(&tool.commands, &path) {
                Some(spec) => insert_path(&mut kept, &tool.commands, &path, spec.clone()),
                None => unknown.push(entry.as_str()),
            }
        }
        if !unknown.is_empty() {
            return Err(format!(
                "--agent --commands: no command {}",
                unknown
                    .iter()
                    .map(|u| format!("`{u}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        tool.commands = kept;
        tool.partial = Some(true);
        tool.filter = Some(DiscoveryFilter {
            commands: wanted.clone(),
            depth: None,
        });
        tool.total_commands = Some(total);
        tool.included_commands = Some(leaves(&tool.commands));
        tool.omitted = Some(Omitted {
            reason: Some(OmittedReason::Filtered),
            safety_assumption: Some(SafetyAssumption::Unknown),
        });
    }
    let mut text = described.to_json();
    text.push('\n');
    Ok(AgentAnswer {
        text,
        warnings: described.warnings,
    })
}

/// Answers `PROGRAM --agent` when `args` ask for it: prints the metadata on stdout and what it
/// could not express of the program's arguments on stderr (one `warning: …` line each), and
/// returns the exit code to end with (`SUCCESS`; `FAILURE` with the reason on stderr when no
/// document could be written). Returns `None` for an ordinary call, which the program then
/// parses as usual. Nothing else is done: `--agent` has no side effects (spec §3.1).
pub fn handle_agent<I, T>(cmd: &Command, annotations: &Annotations, args: I) -> Option<ExitCode>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let request = agent_request(args)?;
    Some(match answer_agent(cmd, annotations, &request) {
        Ok(answer) => {
            for w in &answer.warnings {
                eprintln!("warning: {w}");
            }
            let mut out = std::io::stdout().lock();
            match out
                .write_all(answer.text.as_bytes())
                .and_then(|()| out.flush())
            {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("cannot write the metadata: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    })
}

/// How many commands `commands` flattens to (one per command without subcommands).
fn leaves(commands: &IndexMap<String, CommandSpec>) -> u64 {
    commands
        .values()
        .map(|c| {
            if c.commands.is_empty() {
                1
            } else {
                leaves(&c.commands)
            }
        })
        .sum()
}

/// The command at `path` below `commands`.
fn subtree<'a>(
    commands: &'a IndexMap<String, CommandSpec>,
    path: &[&str],
) -> Option<&'a CommandSpec> {
    let (first, rest) = path.split_first()?;
    let spec = commands.get(*first)?;
    if rest.is_empty() {
        Some(spec)
    } else {
        subtree(&spec.commands, rest)
    }
}

/// Puts `spec` at `path` into `kept`, with its ancestors (from `all`) holding only what leads
/// to it: their description and options, which the commands below inherit.
fn insert_path(
    kept: &mut IndexMap<String, CommandSpec>,
    all: &IndexMap<String, CommandSpec>,
    path: &[&str],
    spec: CommandSpec,
) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        kept.insert((*first).to_owned(), spec);
        return;
    }
    let Some(original) = all.get(*first) else {
        return;
    };
    let entry = kept
        .entry((*first).to_owned())
        .or_insert_with(|| CommandSpec {
            commands: IndexMap::new(),
            ..original.clone()
        });
    insert_path(&mut entry.commands, &original.commands, rest, spec);
}
