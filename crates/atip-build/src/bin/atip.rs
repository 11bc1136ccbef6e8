//! `atip`: check ATIP metadata and generate typed Rust from it.

use std::path::PathBuf;
use std::process::ExitCode;

use atip_build::{expand, Options};
use atip_core::{Document, FlattenOptions, LoadOptions, Mode};
use clap::{Parser, Subcommand};

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
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Cmd::Check { files, lenient } => check(&files, lenient),
        Cmd::Gen {
            file,
            commands,
            program,
        } => gen(&file, commands, program),
    }
}

fn check(files: &[PathBuf], lenient: bool) -> ExitCode {
    let mode = if lenient { Mode::Lenient } else { Mode::Strict };
    let mut failed = false;
    for file in files {
        let name = file.display().to_string();
        match Document::from_path(file, mode, &FlattenOptions::default()) {
            Ok(doc) => {
                for w in &doc.warnings {
                    eprintln!("{}", w.render(Some(&name)));
                }
                println!(
                    "{name}: ok: {} commands, {} warnings",
                    doc.commands.len(),
                    doc.warnings.len()
                );
            }
            Err(e) => {
                failed = true;
                eprintln!("{e}");
                let errors = e.errors().count();
                println!(
                    "{name}: {errors} error{}",
                    if errors == 1 { "" } else { "s" }
                );
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn gen(file: &std::path::Path, commands: Vec<String>, program: Option<String>) -> ExitCode {
    let name = file.display().to_string();
    let options = LoadOptions::strict().with_file(name.clone());
    let text = match atip_core::load::read_text(file, &options) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let options = Options {
        file: Some(name.clone()),
        commands: (!commands.is_empty()).then_some(commands),
        program,
    };
    match expand(&text, &options) {
        Ok(exp) => {
            for w in &exp.warnings {
                eprintln!("{}", w.render(Some(&name)));
            }
            print!("{}", exp.to_source(&name));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
