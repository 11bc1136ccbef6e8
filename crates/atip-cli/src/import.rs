//! `atip import fig`: ATIP metadata from Fig completion specs (`atip_fig`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use atip_fig::{ImportOptions, Importer, Isolation, Limits, Package, Summary};
use atip_runtime::shim::{platform, sha256_file, shim_path, user_shim_dir};
use clap::Subcommand;
use serde_json::json;

use crate::output::{emit, Failure, Outcome};

/// The hidden subcommand that serves one evaluation as the child process of `atip import fig`.
pub(crate) const FIG_EVAL: &str = "__fig-eval";

/// What to import from.
#[derive(Subcommand)]
pub(crate) enum ImportCmd {
    /// Convert Fig completion specs (the npm package @withfig/autocomplete, unpacked) to ATIP
    /// 0.6 with `trust.source: "inferred"` and effects inferred on the safe side.
    ///
    /// One spec: `atip import fig PACKAGE/build/gh.js` prints the document on stdout and
    /// warnings on stderr. All of them: `atip import fig --all PACKAGE --out DIR` writes
    /// `DIR/<spec>.json` and prints a summary (converted, failed with reasons, ignored
    /// generators).
    ///
    /// Specs are code: each module is evaluated in a child process of its own (this program
    /// again), killed at --timeout; its address space is limited to what the program maps at
    /// start plus --memory plus 128 MiB, its CPU time to --timeout plus a second, and it
    /// dumps no core.
    Fig(FigArgs),
}

/// Arguments of `atip import fig`.
#[derive(clap::Args)]
pub(crate) struct FigArgs {
    /// A spec module of the package (`…/package/build/gh.js`).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    spec: Option<PathBuf>,
    /// Convert every top-level spec of this package directory (or its build directory).
    #[arg(long, value_name = "DIR", requires = "out")]
    all: Option<PathBuf>,
    /// With --all: where to write `<spec>.json` files.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Also write the document as a shim for the installed binary (spec §4): to
    /// `$XDG_DATA_HOME/agent-tools/shims/sha256/<sha256 of the binary>.json`, with `binary`
    /// naming its hash, where `atip discover` finds it.
    #[arg(long, conflicts_with = "all")]
    shim: bool,
    /// With --shim: the binary (default: the tool's name looked up on PATH).
    #[arg(long, requires = "shim")]
    binary: Option<PathBuf>,
    /// With --shim: write into this directory instead of the user's shim directory.
    #[arg(long, requires = "shim", value_name = "DIR")]
    shim_dir: Option<PathBuf>,
    /// Time limit for evaluating one module, in seconds.
    #[arg(long, default_value_t = 20)]
    timeout: u64,
    /// Memory limit for evaluating one module, in MiB.
    #[arg(long, default_value_t = 512)]
    memory: usize,
    /// Threads for --all (default: the available cores).
    #[arg(long)]
    jobs: Option<usize>,
}

pub(crate) fn run(cmd: ImportCmd) -> Outcome {
    match cmd {
        ImportCmd::Fig(args) => fig(&args),
    }
}

/// The import's options: the limits asked for, and every module evaluated in a child process
/// that is this program again (`atip __fig-eval`).
fn options(args: &FigArgs) -> Result<ImportOptions, Failure> {
    let isolation = Isolation::current_exe([FIG_EVAL]).map_err(|e| {
        Failure::new(format!(
            "cannot find this program to evaluate specs in a child process: {e}"
        ))
    })?;
    Ok(ImportOptions {
        limits: Limits {
            time: Duration::from_secs(args.timeout.max(1)),
            memory_bytes: args.memory.max(16).saturating_mul(1024 * 1024),
            ..Limits::default()
        },
        isolation,
        ..ImportOptions::default()
    })
}

fn fig(args: &FigArgs) -> Outcome {
    if let (Some(dir), Some(out)) = (&args.all, &args.out) {
        return all(args, dir, out);
    }
    let Some(spec) = &args.spec else {
        return Err(Failure::new("give a spec file, or --all DIR --out DIR"));
    };
    let (package, name) = Package::for_spec_file(spec).map_err(Failure::new)?;
    let importer = Importer::new(package, options(args)?).map_err(Failure::new)?;
    let mut imported = importer.import(&name).map_err(Failure::new)?;
    for w in &imported.warnings {
        eprintln!("warning: {w}");
    }
    if args.shim {
        let path = write_shim(args, &mut imported.document)?;
        eprintln!("wrote the shim {}", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    emit(&imported.to_json_pretty())
}

/// Adds `binary` to the document and writes it under the binary's hash.
fn write_shim(args: &FigArgs, document: &mut serde_json::Value) -> Result<PathBuf, Failure> {
    let tool = document["name"].as_str().unwrap_or_default().to_owned();
    let binary = match &args.binary {
        Some(b) => b.clone(),
        None => atip_runtime::shim::resolve_program(&tool).ok_or_else(|| {
            Failure::new(format!(
                "cannot write a shim: `{tool}` is not on PATH (name the binary with --binary)"
            ))
        })?,
    };
    let hex = sha256_file(&binary)
        .map_err(|e| Failure::new(format!("cannot hash {}: {e}", binary.display())))?;
    let mut info = json!({"hash": format!("sha256:{hex}"), "name": tool});
    if let Some(p) = platform() {
        info["platform"] = json!(p);
    }
    if let Some(map) = document.as_object_mut() {
        // `binary` right after the header fields, where the spec's examples have it.
        let mut out = serde_json::Map::new();
        for (k, v) in std::mem::take(map) {
            let after = k == "description";
            out.insert(k, v);
            if after {
                out.insert("binary".into(), info.clone());
            }
        }
        *map = out;
    }
    let dir = match &args.shim_dir {
        Some(d) => d.clone(),
        None => user_shim_dir().ok_or_else(|| {
            Failure::new("cannot write a shim: neither XDG_DATA_HOME nor HOME is set")
        })?,
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure::new(format!("cannot create {}: {e}", dir.display())))?;
    let path = shim_path(&dir, &hex);
    let mut text = serde_json::to_string_pretty(document).map_err(Failure::new)?;
    text.push('\n');
    std::fs::write(&path, text)
        .map_err(|e| Failure::new(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

fn all(args: &FigArgs, dir: &Path, out: &Path) -> Outcome {
    let start = Instant::now();
    let package = Package::open(dir).map_err(Failure::new)?;
    let names = package.spec_names().map_err(Failure::new)?;
    let importer = Importer::new(package, options(args)?).map_err(Failure::new)?;
    let threads = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
    });
    let mut summary = Summary::default();
    let mut write_error = None;
    // Progress on stderr: one line rewritten in place on a terminal, a line per 50 specs
    // (and the last) otherwise.
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let total = names.len();
    let mut done = 0;
    importer.import_many(&names, threads, |name, result| {
        done += 1;
        if terminal {
            eprint!("\r\x1b[2Kimport: {done}/{total} {name}");
            if done == total {
                eprintln!();
            }
        } else if done % 50 == 0 || done == total {
            eprintln!("import: {done}/{total}");
        }
        if let Ok(imported) = &result {
            let path = out.join(format!("{name}.json"));
            let written = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&path, imported.to_json_pretty()));
            if let Err(e) = written {
                write_error.get_or_insert(format!("cannot write {}: {e}", path.display()));
            }
        }
        summary.add(name, &result);
    });
    if let Some(e) = write_error {
        return Err(Failure::new(e));
    }
    let mut report = summary.report();
    report.push_str(&format!(
        "time: {:.1} s on {threads} thread(s)\n",
        start.elapsed().as_secs_f64()
    ));
    emit(&report)?;
    Ok(if summary.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
