//! `atip lint` and `atip diff`: reviewing metadata, thin over the `atip-lint` library.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{json, Value};

/// Arguments of `atip lint`.
#[derive(clap::Args)]
pub(crate) struct LintArgs {
    /// ATIP JSON files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print the findings as JSON: an array of `{"file", "findings": [{"rule", "severity",
    /// "path", "message", "location"}]}`.
    #[arg(long)]
    json: bool,
}

/// Arguments of `atip diff`.
#[derive(clap::Args)]
pub(crate) struct DiffArgs {
    /// The earlier version of the metadata.
    old: PathBuf,
    /// The later version.
    new: PathBuf,
    /// Print the report as JSON: `{"semver", "breaking", "summary", "changes": [{"kind",
    /// "category", "impact", "path", "message", "old", "new"}]}`.
    #[arg(long)]
    json: bool,
}

/// `atip lint`: every finding of every file on stdout; status 1 when any is an error (or a
/// file cannot be read), 0 otherwise.
pub(crate) fn lint(args: &LintArgs) -> ExitCode {
    let mut failed = false;
    let mut reports = Vec::new();
    let mut text_out = String::new();
    for file in &args.files {
        let name = file.display().to_string();
        let text = match read(file) {
            Ok(text) => text,
            Err(message) => {
                eprintln!("{message}");
                failed = true;
                continue;
            }
        };
        let findings = atip_lint::lint(&text);
        failed |= atip_lint::has_errors(&findings);
        let errors = findings
            .iter()
            .filter(|f| f.severity == atip_lint::Severity::Error)
            .count();
        if args.json {
            reports.push(json!({"file": name, "findings": findings}));
        } else {
            for f in &findings {
                text_out.push_str(&format!("{name}:{f}\n"));
            }
            text_out.push_str(&format!(
                "{name}: {errors} error{}, {} warning{}\n",
                plural(errors),
                findings.len() - errors,
                plural(findings.len() - errors)
            ));
        }
    }
    if args.json {
        text_out = pretty(&Value::Array(reports));
    }
    print!("{text_out}");
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `atip diff`: the changes from OLD to NEW and the semver bump they call for; status 1 when
/// a change is breaking, 2 when a file cannot be read or is not valid ATIP, 0 otherwise.
pub(crate) fn diff(args: &DiffArgs) -> ExitCode {
    let trouble = ExitCode::from(2);
    let (old, new) = match (read(&args.old), read(&args.new)) {
        (Ok(old), Ok(new)) => (old, new),
        (old, new) => {
            for e in [old.err(), new.err()].into_iter().flatten() {
                eprintln!("{e}");
            }
            return trouble;
        }
    };
    let report = match atip_lint::diff_texts(
        &old,
        &args.old.display().to_string(),
        &new,
        &args.new.display().to_string(),
    ) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("{e}");
            return trouble;
        }
    };
    let counts = json!({
        "breaking": report.count(atip_lint::Category::Breaking),
        "nonBreaking": report.count(atip_lint::Category::NonBreaking),
        "effects": report.count(atip_lint::Category::Effects),
    });
    if args.json {
        print!(
            "{}",
            pretty(&json!({
                "semver": report.semver,
                "breaking": report.is_breaking(),
                "summary": counts,
                "changes": report.changes,
            }))
        );
    } else {
        let mut out = String::new();
        for c in &report.changes {
            out.push_str(&format!("{c}\n"));
        }
        let destructive = report
            .of_kind(atip_lint::ChangeKind::DestructiveAdded)
            .count();
        if destructive > 0 {
            out.push_str(&format!(
                "note: {destructive} command{} newly declared destructive: agents will ask \
                 for confirmation before running {}\n",
                plural(destructive),
                if destructive == 1 { "it" } else { "them" }
            ));
        }
        out.push_str(&format!(
            "semver: {} ({} breaking, {} non-breaking, {} effects)\n",
            report.semver.as_str(),
            counts["breaking"],
            counts["nonBreaking"],
            counts["effects"]
        ));
        print!("{out}");
    }
    if report.is_breaking() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}
