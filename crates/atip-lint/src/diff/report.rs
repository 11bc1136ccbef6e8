//! The outcome of a diff: every change with the semantic-version bump the changes call for,
//! and why two texts could not be compared.

use std::fmt;

use atip_core::LoadError;
use serde::Serialize;

use super::change::{Category, Change, ChangeKind, Impact};

/// The semantic-version bump a change set calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    /// Nothing changed.
    None,
    /// Only low- or medium-impact effects changed.
    Patch,
    /// Additions, relaxations, descriptions, or a high-impact effects change.
    Minor,
    /// Something breaking.
    Major,
}

impl Bump {
    /// `major`, `minor`, `patch` or `none`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

/// Every change between two documents and the bump they call for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffReport {
    /// The changes: the tool's own fields, then commands (removed, added, then changed, at
    /// each level), then global options, then the tool's effects.
    pub changes: Vec<Change>,
    /// The recommended bump: `major` for any breaking change; else `minor` for a high-impact
    /// effects change or any non-breaking change other than `version-changed` (the version
    /// is the outcome of the bump, not a reason for one); else `patch` for effects changes;
    /// else `none`.
    pub semver: Bump,
}

impl DiffReport {
    /// Whether any change is breaking (`atip diff` then exits with status 1).
    pub fn is_breaking(&self) -> bool {
        self.semver == Bump::Major
    }

    /// How many changes are in `category`.
    pub fn count(&self, category: Category) -> usize {
        self.changes
            .iter()
            .filter(|c| c.category == category)
            .count()
    }

    /// The changes of one kind.
    pub fn of_kind(&self, kind: ChangeKind) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.kind == kind)
    }
}

/// Why two texts could not be compared.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffError {
    /// `"old"` or `"new"`.
    pub side: &'static str,
    /// Every problem of that document (strict load).
    pub error: LoadError,
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the {} document is not valid ATIP: {}",
            self.side, self.error
        )
    }
}

impl std::error::Error for DiffError {}

/// The bump `changes` call for (see [`DiffReport::semver`]).
pub(super) fn recommend(changes: &[Change]) -> Bump {
    if changes.iter().any(|c| c.category == Category::Breaking) {
        Bump::Major
    } else if changes.iter().any(|c| {
        c.impact == Some(Impact::High)
            || (c.category == Category::NonBreaking && c.kind != ChangeKind::VersionChanged)
    }) {
        Bump::Minor
    } else if changes.iter().any(|c| c.category == Category::Effects) {
        Bump::Patch
    } else {
        Bump::None
    }
}
