//! What clap cannot know about a program, given by its author: effects per command path,
//! the metadata's trust, homepage and version.

use atip_core::{Effects, TrustSource};
use indexmap::IndexMap;

/// What clap cannot know about a program: side effects per command, and the trust of the
/// metadata.
///
/// Effects are keyed by command path as typed, subcommand names separated by single spaces
/// (`"remote add"`); `""` is the tool itself (the document's root `effects`, which merge into
/// every command). Effects of a command with subcommands apply to every command below it,
/// conservatively (a risk declared above cannot be taken back below: spec §3.6 and the merge
/// in `atip_core::Effects::merged_with`).
#[derive(Debug, Clone, PartialEq)]
pub struct Annotations {
    pub(crate) trust: TrustSource,
    pub(crate) effects: IndexMap<String, Effects>,
    pub(crate) homepage: Option<String>,
    pub(crate) version: Option<String>,
}

impl Default for Annotations {
    fn default() -> Self {
        Annotations {
            trust: TrustSource::Native,
            effects: IndexMap::new(),
            homepage: None,
            version: None,
        }
    }
}

impl Annotations {
    /// No effects, trust `native` (a program describing itself, spec §3.2.2).
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares the effects of the command at `path` (`"remote add"`; `""` for the tool).
    /// A second call for the same path replaces the first. A path that names no visible
    /// command makes [`document`](crate::document()) fail.
    #[must_use]
    pub fn effects(mut self, path: &str, effects: Effects) -> Self {
        let key = path.split_whitespace().collect::<Vec<_>>().join(" ");
        self.effects.insert(key, effects);
        self
    }

    /// The metadata's `trust.source` (default [`TrustSource::Native`]). `verified` is always
    /// written `false`: the effects are the author's claims, not checked against behaviour.
    #[must_use]
    pub fn trust(mut self, source: TrustSource) -> Self {
        self.trust = source;
        self
    }

    /// The tool's `homepage`.
    #[must_use]
    pub fn homepage(mut self, url: impl Into<String>) -> Self {
        self.homepage = Some(url.into());
        self
    }

    /// The tool's `version`, when the [`clap::Command`] has none (or to override it).
    #[must_use]
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }
}
