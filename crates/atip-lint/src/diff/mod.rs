//! What changed between two versions of a tool's ATIP metadata, and what that means for the
//! agents that call it.
//!
//! Commands are matched by name at each level, arguments and options by `name`. Each change
//! has a [`ChangeKind`] (the reference differ's change ids), a [`Category`] and, for effects,
//! an [`Impact`]. Effects are compared as each command declares them (not merged), like the
//! reference; an undeclared field differs from a declared one (unknown is not `false`).

mod change;
mod differ;
mod effects;
mod parameters;
mod report;

use atip_core::diagnostic::JsonPath;
use atip_core::model::DocumentTree;
use atip_core::LoadOptions;
use serde_json::Value;

use differ::Differ;
use report::recommend;

pub use change::{Category, Change, ChangeKind, Impact};
pub use report::{Bump, DiffError, DiffReport};

/// Loads both texts (strictly, as `atip check`; `old_name`/`new_name` name them in
/// diagnostics) and compares them.
///
/// # Errors
///
/// [`DiffError`] for the first document that does not load.
pub fn diff_texts(
    old: &str,
    old_name: &str,
    new: &str,
    new_name: &str,
) -> Result<DiffReport, DiffError> {
    let load = |text: &str, name: &str, side| {
        atip_core::load(text, &LoadOptions::strict().with_file(name))
            .map(|l| l.tool)
            .map_err(|error| DiffError { side, error })
    };
    let old = load(old, old_name, "old")?;
    let new = load(new, new_name, "new")?;
    Ok(diff(&old, &new))
}

/// Compares two documents.
pub fn diff(old: &DocumentTree, new: &DocumentTree) -> DiffReport {
    let mut d = Differ::default();
    let root = JsonPath::root();
    if old.version != new.version {
        d.push(
            ChangeKind::VersionChanged,
            root.key("version"),
            format!(
                "version changed from `{}` to `{}`",
                old.version, new.version
            ),
            Some(Value::from(old.version.as_str())),
            Some(Value::from(new.version.as_str())),
        );
    }
    if old.description != new.description {
        d.changed_text(
            root.key("description"),
            "the tool's description changed",
            &old.description,
            &new.description,
        );
    }
    if old.homepage != new.homepage {
        d.push(
            ChangeKind::HomepageChanged,
            root.key("homepage"),
            "homepage changed".to_owned(),
            old.homepage.as_deref().map(Value::from),
            new.homepage.as_deref().map(Value::from),
        );
    }
    if old.patterns != new.patterns {
        d.push(
            ChangeKind::PatternsChanged,
            root.key("patterns"),
            "patterns changed".to_owned(),
            None,
            None,
        );
    }
    d.commands(&old.commands, &new.commands, &root, &[]);
    d.options(
        &old.global_options,
        &new.global_options,
        &root.key("globalOptions"),
        "global option",
    );
    if old.effects.is_some() || new.effects.is_some() {
        d.effects(
            old.effects.as_ref(),
            new.effects.as_ref(),
            &root.key("effects"),
            "the tool",
        );
    }
    let changes = d.changes;
    let semver = recommend(&changes);
    DiffReport { changes, semver }
}
