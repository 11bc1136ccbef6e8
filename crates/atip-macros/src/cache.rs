//! A cache of expansions on disk, so that rebuilding a crate after an unrelated edit does not
//! load and generate a large document again.
//!
//! rustc runs every proc macro of a crate on each build, incremental or not. The expensive
//! part of `include_atip!` is loading the document and generating code (≈ 0.7 ms per command
//! in release, several times that in a debug build of the macro); turning the cached text back
//! into tokens is rustc's lexer and costs little.
//!
//! * Where: `$ATIP_MACRO_CACHE` when set (`off` disables the cache), else
//!   `$XDG_CACHE_HOME/atip/macros`, `$HOME/.cache/atip/macros` or `%LOCALAPPDATA%\atip\macros`;
//!   with none of these there is no cache. The directory is the user's own, never a shared
//!   temporary directory: its files become code of the crate being built.
//! * One file per call site (package directory, path and options), overwritten when its key
//!   changes, so the cache holds at most one expansion per `include_atip!`.
//! * The key hashes the metadata text, the options, the generator's versions and, in a
//!   checkout, its sources (see `build.rs`). A file whose first line is not the key is a miss.
//! * Only successful expansions are stored; errors are computed again, with their spans.
//! * Writes go to a temporary file renamed into place, so concurrent builds (`cargo check`
//!   beside rust-analyzer) never read half a file. Every failure of the cache is a miss.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use proc_macro2::TokenStream;

const FORMAT: &str = "atip-macro-cache 1";

/// One call site's slot in the cache and the key its content must carry.
pub struct Entry {
    file: PathBuf,
    key: String,
}

impl Entry {
    /// The slot for `site` (what identifies the call site) holding the expansion of `text`
    /// under `options` (anything that changes the output, as text). `None` when caching is
    /// off or there is no cache directory.
    pub fn new(site: &str, text: &str, options: &str) -> Option<Entry> {
        let dir = directory()?;
        let slot = hash(&[site, options]);
        // Two independent 64-bit hashes: a stale hit needs both to collide.
        let versions = atip_build::GENERATOR_VERSION.join("+");
        let parts = [
            FORMAT,
            &versions,
            env!("ATIP_GENERATOR_FINGERPRINT"),
            options,
            text,
        ];
        let key = format!("{} {:016x}{:016x}", FORMAT, hash(&parts), hash(&parts[1..]));
        Some(Entry {
            file: dir.join(format!("{slot:016x}.rs")),
            key,
        })
    }

    /// The cached expansion, if the slot holds this key and its text lexes.
    ///
    /// The text goes straight to the compiler's lexer (`proc_macro::TokenStream::from_str`):
    /// `proc_macro2`'s `from_str` lexes it once more itself first, which in a debug build of
    /// this macro costs as much as generating the code again.
    pub fn load(&self) -> Option<TokenStream> {
        let content = std::fs::read_to_string(&self.file).ok()?;
        let (first, body) = content.split_once('\n')?;
        if first != self.key {
            return None;
        }
        let tokens: proc_macro::TokenStream = body.parse().ok()?;
        Some(tokens.into())
    }

    /// Stores `tokens` in the slot; failures are ignored (the next build misses again).
    pub fn store(&self, tokens: &TokenStream) {
        let Some(dir) = self.file.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let temp = self.file.with_extension(format!(
            "{}.{}.tmp",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or_default()
        ));
        let content = format!("{}\n{}", self.key, tokens);
        if std::fs::write(&temp, content).is_ok() && std::fs::rename(&temp, &self.file).is_err() {
            let _ = std::fs::remove_file(&temp);
        }
    }
}

/// The cache directory, or `None` when caching is off.
fn directory() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("ATIP_MACRO_CACHE") {
        if dir == "off" || dir == "0" {
            return None;
        }
        return Some(PathBuf::from(dir));
    }
    let base = var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .or_else(|| var("LOCALAPPDATA").map(PathBuf::from))?;
    Some(base.join("atip").join("macros"))
}

fn hash(parts: &[&str]) -> u64 {
    let mut h = DefaultHasher::new();
    parts.hash(&mut h);
    h.finish()
}
