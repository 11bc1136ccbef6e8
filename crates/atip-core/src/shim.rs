//! Shims (spec §4): metadata for a binary that does not describe itself, stored under the
//! SHA-256 of the binary, so the lookup key is also the integrity check (§4.1).
//!
//! Locations (§4.2, XDG base directories), searched in this order by [`ShimDirs::from_env`]:
//!
//! 1. `$XDG_CONFIG_HOME/agent-tools/overrides/sha256/<hex>.json` (default `~/.config/…`): a
//!    person's own corrections for one binary;
//! 2. `$XDG_DATA_HOME/agent-tools/shims/sha256/<hex>.json` (default `~/.local/share/…`): shims
//!    cached from registries or generated locally (`atip import fig … --shim` writes here).
//!
//! `<hex>` is the binary's SHA-256 in 64 lower-case hex digits. A shim must load strictly and
//! declare `binary.hash` equal to `sha256:<hex>` of the file it is named after (§4.5: "The
//! `binary.hash` in the file MUST match the filename").

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::diagnostic::{Diagnostic, JsonPath, LoadError};
use crate::{Document, FlattenOptions, LoadOptions};

/// Largest shim file read: 64 MiB.
pub const MAX_SHIM_BYTES: u64 = 64 * 1024 * 1024;

/// Directories holding `sha256/<hex>.json` shims, searched in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShimDirs {
    /// Each directory holds files named `<hex>.json`.
    pub dirs: Vec<PathBuf>,
}

impl ShimDirs {
    /// The given directories, searched in order.
    pub fn new(dirs: impl IntoIterator<Item = PathBuf>) -> ShimDirs {
        ShimDirs {
            dirs: dirs.into_iter().collect(),
        }
    }

    /// The user's override directory, then the user's shim directory (see the module docs);
    /// those whose base directory cannot be determined (no `HOME`) are left out.
    pub fn from_env() -> ShimDirs {
        let mut dirs = Vec::new();
        if let Some(config) = base_dir("XDG_CONFIG_HOME", ".config") {
            dirs.push(config.join("agent-tools/overrides/sha256"));
        }
        if let Some(dir) = user_shim_dir() {
            dirs.push(dir);
        }
        ShimDirs { dirs }
    }

    /// The first `<hex>.json` that exists, if any.
    pub fn find(&self, hex: &str) -> Option<PathBuf> {
        self.dirs
            .iter()
            .map(|d| shim_path(d, hex))
            .find(|p| p.is_file())
    }
}

/// Where new shims go: `$XDG_DATA_HOME/agent-tools/shims/sha256` (default
/// `~/.local/share/agent-tools/shims/sha256`); `None` without `HOME` or `XDG_DATA_HOME`.
pub fn user_shim_dir() -> Option<PathBuf> {
    base_dir("XDG_DATA_HOME", ".local/share").map(|d| d.join("agent-tools/shims/sha256"))
}

/// An XDG base directory: the variable when it holds an absolute path (the XDG spec ignores
/// relative ones), else `$HOME/<fallback>`.
fn base_dir(var: &str, fallback: &str) -> Option<PathBuf> {
    match std::env::var_os(var).map(PathBuf::from) {
        Some(p) if p.is_absolute() => Some(p),
        _ => std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute())
            .map(|h| h.join(fallback)),
    }
}

/// The shim file for the binary with SHA-256 `hex` in `dir`: `dir/<hex>.json`.
pub fn shim_path(dir: &Path, hex: &str) -> PathBuf {
    dir.join(format!("{hex}.json"))
}

/// The SHA-256 of a file, as 64 lower-case hex digits.
///
/// # Errors
///
/// The I/O error when the file cannot be read.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// The file `tool` names, as `execvp` would find it: a path when it contains `/`, else the
/// first executable regular file called `tool` in a `PATH` directory.
pub fn resolve_program(tool: &str) -> Option<PathBuf> {
    if tool.is_empty() {
        return None;
    }
    if tool.contains('/') {
        let p = PathBuf::from(tool);
        return is_executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(tool))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// This machine's platform in the spec's form (`linux-amd64`, `darwin-arm64`), when the
/// schema's pattern has a name for it.
pub fn platform() -> Option<String> {
    let os = match std::env::consts::OS {
        "linux" => "linux",
        "macos" => "darwin",
        "windows" => "windows",
        _ => return None,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "arm" => "arm",
        "x86" => "386",
        _ => return None,
    };
    Some(format!("{os}-{arch}"))
}

/// Reads the shim at `path` for the binary with SHA-256 `hex`: it must load strictly and
/// declare `binary.hash` `sha256:<hex>`. Returns its text.
///
/// # Errors
///
/// [`LoadError`] naming the file: unreadable, larger than [`MAX_SHIM_BYTES`], invalid, or for
/// another binary.
pub fn load_shim(path: &Path, hex: &str) -> Result<String, LoadError> {
    let file = path.display().to_string();
    let fail = |message: String, at: JsonPath| LoadError {
        file: Some(file.clone()),
        diagnostics: vec![Diagnostic::error(at, message)],
    };
    let size = std::fs::metadata(path)
        .map_err(|e| fail(format!("cannot read the shim: {e}"), JsonPath::root()))?
        .len();
    if size > MAX_SHIM_BYTES {
        return Err(fail(
            format!("the shim is {size} bytes, more than the {MAX_SHIM_BYTES} read"),
            JsonPath::root(),
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| fail(format!("cannot read the shim: {e}"), JsonPath::root()))?;
    let options = LoadOptions::strict().with_file(file.clone());
    let doc = Document::parse(&text, &options, &FlattenOptions::default())?;
    let expected = format!("sha256:{hex}");
    let declared = doc
        .tool
        .binary
        .as_ref()
        .map(|b| b.hash.to_ascii_lowercase());
    if declared.as_deref() != Some(expected.as_str()) {
        return Err(fail(
            format!(
                "the shim is named after the binary {expected} but declares {}: not used",
                declared.map_or("no binary.hash".to_owned(), |d| d.to_string())
            ),
            JsonPath::root().key("binary").key("hash"),
        ));
    }
    Ok(text)
}

/// Looks for a shim of the binary `tool` resolves to (see [`resolve_program`]) in `dirs`.
/// `Ok(None)` when the binary cannot be found or hashed, or no shim exists for it.
///
/// # Errors
///
/// [`LoadError`] when a shim exists but is unusable (see [`load_shim`]).
pub fn find_shim(tool: &str, dirs: &ShimDirs) -> Result<Option<(PathBuf, String)>, LoadError> {
    let Some(program) = resolve_program(tool) else {
        return Ok(None);
    };
    let Ok(hex) = sha256_file(&program) else {
        return Ok(None);
    };
    match dirs.find(&hex) {
        Some(path) => load_shim(&path, &hex).map(|text| Some((path, text))),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shim(hex: &str) -> String {
        format!(
            r#"{{"atip": {{"version": "0.6"}}, "name": "tool", "version": "1", "description": "d",
               "binary": {{"hash": "sha256:{hex}"}}, "trust": {{"source": "inferred", "verified": false}},
               "commands": {{"": {{"description": "run"}}}}}}"#
        )
    }

    #[test]
    fn hashes_files_as_lower_case_hex() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x");
        std::fs::write(&f, b"abc").unwrap();
        assert_eq!(
            sha256_file(&f).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn finds_the_first_directory_holding_the_shim() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        std::fs::write(b.path().join("ab.json"), "{}").unwrap();
        let dirs = ShimDirs::new([a.path().to_path_buf(), b.path().to_path_buf()]);
        assert_eq!(dirs.find("ab"), Some(b.path().join("ab.json")));
        assert_eq!(dirs.find("cd"), None);
    }

    #[test]
    fn a_shim_must_name_the_binary_it_is_filed_under() {
        let dir = tempfile::tempdir().unwrap();
        let good = "a".repeat(64);
        let other = "b".repeat(64);
        let p = dir.path().join(format!("{good}.json"));
        std::fs::write(&p, shim(&good)).unwrap();
        assert!(load_shim(&p, &good).is_ok());
        std::fs::write(&p, shim(&other)).unwrap();
        let err = load_shim(&p, &good).unwrap_err().to_string();
        assert!(err.contains("declares sha256:bbbb"), "{err}");
        std::fs::write(&p, "{").unwrap();
        assert!(load_shim(&p, &good).is_err());
    }

    #[test]
    fn platform_names_follow_the_schema() {
        if let Some(p) = platform() {
            assert!(
                p.starts_with("linux-") || p.starts_with("darwin-") || p.starts_with("windows-")
            );
        }
    }
}
