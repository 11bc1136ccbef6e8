//! Describing a built clap [`Command`] as an ATIP document: the document's own fields here,
//! the walk over commands in `commands`, one argument at a time in `parameters`.
//!
//! Where each clap construct goes, and why, is in the crate documentation (the mapping table);
//! these modules follow it rule by rule.

mod commands;
mod parameters;
mod walker;

use std::collections::BTreeSet;

use atip_core::model::{DocumentTree, ProtocolInfo, ProtocolVersion, Trust};
use clap::Command;

use crate::annotations::Annotations;
use crate::described::{Described, DocumentError};

use commands::about;
use walker::Walker;

pub use parameters::AGENT_ARG_ID;

/// The spec's limit on the tool's own description (§3.2; longer is an error in strict mode).
const ROOT_DESCRIPTION_MAX: usize = 200;

/// Describes the program `cmd` parses as an ATIP 0.6 document, with the effects and trust of
/// `annotations` (see the crate documentation for the mapping).
///
/// `cmd` is cloned and built (`Command::build`) first, so that clap's defaults (actions,
/// value counts, global arguments) are settled as when it parses.
///
/// # Errors
///
/// [`DocumentError`] when the command has no version (and the annotations give none), its
/// name is not a valid ATIP tool name, or an annotation names no visible command.
///
/// # Panics
///
/// Only where clap's own `Command::build` does: on a command definition clap itself rejects
/// (its debug assertions), which the program would hit on its first parse anyway.
pub fn document(cmd: &Command, annotations: &Annotations) -> Result<Described, DocumentError> {
    let mut root = without_help_subcommands(cmd.clone());
    root.build();
    let mut problems = Vec::new();
    let name = root.get_name().to_owned();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        problems.push(format!(
            "the program name {name:?} is not a valid ATIP tool name (letters, digits, `_` and `-`)"
        ));
    }
    let version = annotations
        .version
        .clone()
        .or_else(|| root.get_version().map(str::to_owned));
    if version.is_none() {
        problems.push(
            "the command has no version: set one with `#[command(version)]` / \
             `Command::version`, or with `Annotations::version`"
                .to_owned(),
        );
    }
    let mut walker = Walker {
        last_positional: None,
        annotations,
        used: BTreeSet::new(),
        warnings: Vec::new(),
    };
    let mut description = about(&root);
    if description.chars().count() > ROOT_DESCRIPTION_MAX {
        description = shorten(&description);
        walker.warn(
            &[],
            None,
            "the program's about text is longer than the 200 characters ATIP allows for a \
             tool's description: cut at a word boundary",
        );
    }
    let (commands, global_options) = walker.root(&root);
    let unknown: Vec<&String> = annotations
        .effects
        .keys()
        .filter(|path| !walker.used.contains(path.as_str()))
        .collect();
    for path in unknown {
        problems.push(format!(
            "effects are annotated for `{path}`, which is no visible command of `{name}`"
        ));
    }
    if !problems.is_empty() {
        return Err(DocumentError { problems });
    }
    let tool = DocumentTree {
        atip: ProtocolVersion::Object(ProtocolInfo {
            version: "0.6".to_owned(),
            features: vec!["trust-v1".to_owned()],
            min_agent_version: None,
        }),
        name,
        version: version.unwrap_or_default(),
        description,
        homepage: annotations.homepage.clone(),
        binary: None,
        partial: None,
        filter: None,
        total_commands: None,
        included_commands: None,
        omitted: None,
        trust: Some(Trust {
            source: Some(annotations.trust),
            verified: Some(false),
            ..Trust::default()
        }),
        commands,
        global_options,
        authentication: None,
        effects: annotations.effects.get("").cloned(),
        patterns: Vec::new(),
        extension: None,
    };
    Ok(Described {
        tool,
        warnings: walker.warnings,
    })
}

/// `cmd` and every subcommand without clap's generated `help` subcommand, which is no command
/// of the program.
fn without_help_subcommands(cmd: Command) -> Command {
    cmd.disable_help_subcommand(true)
        .mut_subcommands(without_help_subcommands)
}

/// `text` cut to at most 200 characters at a word boundary.
fn shorten(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        let len = out.chars().count() + usize::from(!out.is_empty()) + word.chars().count();
        if len > ROOT_DESCRIPTION_MAX - 1 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        out = text.chars().take(ROOT_DESCRIPTION_MAX - 1).collect();
    }
    out.push('…');
    out
}
