//! Fingerprints the generator's sources for the expansion cache.
//!
//! Published crates are identified by their versions, which the cache key already holds. In a
//! checkout (path or git dependency) the generator can change without a version bump, so the
//! sources of this crate and, when they sit beside it, of `atip-build` and `atip-core` are
//! hashed into `ATIP_GENERATOR_FINGERPRINT`.

use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;
use std::path::{Path, PathBuf};

fn main() {
    let here = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut hasher = DefaultHasher::new();
    for dir in [
        here.join("src"),
        here.join("../atip-build/src"),
        here.join("../atip-core/src"),
    ] {
        if dir.is_dir() {
            println!("cargo:rerun-if-changed={}", dir.display());
            hash_dir(&dir, &mut hasher);
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!(
        "cargo:rustc-env=ATIP_GENERATOR_FINGERPRINT={:016x}",
        hasher.finish()
    );
}

/// Hashes every file below `dir`, in name order, path and content.
fn hash_dir(dir: &Path, hasher: &mut DefaultHasher) {
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => return,
    };
    entries.sort();
    for path in entries {
        if path.is_dir() {
            hash_dir(&path, hasher);
        } else if let Ok(bytes) = std::fs::read(&path) {
            hasher.write(path.file_name().unwrap_or_default().as_encoded_bytes());
            hasher.write(&bytes);
        }
    }
}
