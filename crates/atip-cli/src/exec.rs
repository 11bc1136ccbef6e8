//! How `atip run` and `atip serve` execute commands: the flags for policy, limits, sandbox,
//! trust and audit, the runner they make, and the async runtime.

use std::path::PathBuf;

use atip_runtime::LoadedCommands;
use serde_json::Value;

use crate::output::Failure;

/// How commands are run: policy, limits, sandbox and trust.
#[derive(clap::Args)]
pub(crate) struct ExecArgs {
    /// A policy: a JSON file, or the JSON itself (`{"destructive": "deny", "denyCommands":
    /// ["git clean"]}`). Command patterns and argument rules that match no loaded command are
    /// an error.
    #[arg(long)]
    pub(crate) policy: Option<String>,
    /// Time limit per call, in seconds, for commands that declare none.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
    /// Cap on captured stdout and stderr together, in bytes.
    #[arg(long, default_value_t = 1024 * 1024)]
    max_output: usize,
    /// Run without the sandbox (commands get only the policy gate).
    #[arg(long)]
    pub(crate) no_sandbox: bool,
    /// Also let sandboxed commands write under this directory (repeatable). `--writable /`
    /// lifts the confinement of commands without declared paths to the working directory
    /// (every such run's report says so); declared paths and `write: false` still hold.
    #[arg(long = "writable")]
    writable: Vec<PathBuf>,
    /// Let programs matching a glob see a credential store or daemon socket the sandbox hides
    /// from every program but its owners: `PROGRAM=PATH` (`terraform=~/.aws`; repeatable).
    #[arg(long = "credentials", value_parser = parse_grant)]
    credentials: Vec<(String, PathBuf)>,
    /// Also pass this variable of atip's environment to commands (repeatable). By default a
    /// command gets the base set (PATH, HOME, USER, locale, TERM, TZ, XDG directories) and the
    /// variables its metadata declares; the names of the others removed are in the audit log.
    #[arg(long = "env-allow", value_name = "NAME")]
    env_allow: Vec<String>,
    /// Give commands atip's whole environment instead of the built one.
    #[arg(long)]
    inherit_env: bool,
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

fn parse_grant(text: &str) -> Result<(String, PathBuf), String> {
    let (program, path) = text
        .split_once('=')
        .ok_or_else(|| format!("expected PROGRAM=PATH, found {text:?}"))?;
    Ok((program.to_owned(), PathBuf::from(path)))
}

pub(crate) fn parse_trust_rule(text: &str) -> Result<(String, atip_runtime::TrustSource), String> {
    let (glob, level) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("expected GLOB=LEVEL, found {text:?}"))?;
    let trust = serde_json::from_value(Value::String(level.to_owned())).map_err(|_| {
        format!("unknown trust level {level:?}: native, vendor, org, community, user or inferred")
    })?;
    Ok((glob.to_owned(), trust))
}

/// Runs `work` to completion on a single-threaded tokio runtime (the commands that run
/// processes or serve), then stops the runtime without waiting more than a moment for its
/// blocking threads: a name lookup of the egress proxy can sit in the system resolver long
/// after its connection was refused (up to the resolver's own time limit), and the process
/// exits next.
pub(crate) fn block_on<F: std::future::Future>(work: F) -> Result<F::Output, Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(format!("cannot start the async runtime: {e}")))?;
    let output = runtime.block_on(work);
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(output)
}

/// The policy `text` names: a file, or inline JSON (anything starting with `{`); the default
/// policy when absent.
pub(crate) fn read_policy(text: Option<&str>) -> Result<atip_runtime::Policy, Failure> {
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
pub(crate) fn runner(
    exec: &ExecArgs,
    tools: &[LoadedCommands],
) -> Result<atip_runtime::Runner, Failure> {
    let policy = read_policy(exec.policy.as_deref())?;
    policy
        .check_against(tools.iter().flat_map(LoadedCommands::specs))
        .map_err(|e| Failure::new(format!("--policy: {e}")))?;
    let here = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    policy
        .check_examples(tools, &here)
        .map_err(|e| Failure::new(format!("--policy: {e}")))?;
    runner_with(exec, policy, sandbox_of(exec))
}

/// The sandbox `exec` describes: off with `--no-sandbox`, else with its `--writable`
/// directories and `--credentials` grants.
pub(crate) fn sandbox_of(exec: &ExecArgs) -> atip_runtime::Sandbox {
    let mut sandbox = if exec.no_sandbox {
        atip_runtime::Sandbox::off()
    } else {
        atip_runtime::Sandbox::new()
    };
    for dir in &exec.writable {
        sandbox = if dir == std::path::Path::new("/") {
            sandbox.unconfined_writes()
        } else {
            sandbox.writable(dir)
        };
    }
    for (program, path) in &exec.credentials {
        sandbox = sandbox.credentials(program, path);
    }
    sandbox
}

/// The runner `exec` describes, with `policy` (read from `exec.policy`, checked or not) and
/// `sandbox` (from [`sandbox_of`], perhaps with more).
pub(crate) fn runner_with(
    exec: &ExecArgs,
    policy: atip_runtime::Policy,
    sandbox: atip_runtime::Sandbox,
) -> Result<atip_runtime::Runner, Failure> {
    let mut runner = atip_runtime::Runner::new()
        .policy(policy)
        .sandbox(sandbox)
        .timeout(std::time::Duration::from_secs(exec.timeout))
        .max_output_bytes(exec.max_output)
        .env_allow(&exec.env_allow);
    if exec.inherit_env {
        runner = runner.inherit_env(true);
    }
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
