//! An unpacked `@withfig/autocomplete` package: where its spec modules are, its name, version
//! and licence, and which of its specs are top-level.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::ImportError;

/// Largest `package.json` or `LICENSE` read: 1 MiB (larger ones are taken as missing; an
/// `index.json` may be as large as a module, [`MAX_MODULE_BYTES`](crate::engine::MAX_MODULE_BYTES)).
const MAX_METADATA_BYTES: u64 = 1024 * 1024;

/// The text of `path`, refused when it is larger than `cap` bytes (no more than that is read).
fn read_capped(path: &Path, cap: u64) -> std::io::Result<String> {
    use std::io::Read;
    // Opening a FIFO would wait for a writer.
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::other("not a file"));
    }
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(cap + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > cap {
        return Err(std::io::Error::other(format!(
            "larger than {cap} bytes, the most read"
        )));
    }
    Ok(text)
}

/// An unpacked `@withfig/autocomplete` package: its build directory, name and version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// The directory holding the spec modules (`…/package/build`).
    pub build: PathBuf,
    /// The npm name from `package.json` (`@withfig/autocomplete`), or `unknown`.
    pub name: String,
    /// The npm version from `package.json` (`2.692.3`), or `unknown`.
    pub version: String,
    /// The licence from `package.json` (`ISC`), when it names one.
    pub license: Option<String>,
    /// The first `Copyright` line of the package's `LICENSE` file, when there is one.
    pub copyright: Option<String>,
}

impl Package {
    /// Opens a package given its directory (with `package.json` and `build/`) or its build
    /// directory.
    ///
    /// # Errors
    ///
    /// [`ImportError::Package`] when neither `dir/build` nor `dir` is a directory.
    pub fn open(dir: &Path) -> Result<Package, ImportError> {
        let (build, top) = if dir.join("build").is_dir() {
            (dir.join("build"), dir.to_path_buf())
        } else if dir.is_dir() {
            (
                dir.to_path_buf(),
                dir.parent().map(Path::to_path_buf).unwrap_or_default(),
            )
        } else {
            return Err(ImportError::Package(format!(
                "{} is not a directory",
                dir.display()
            )));
        };
        let meta: Option<Value> = read_capped(&top.join("package.json"), MAX_METADATA_BYTES)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let field = |k: &str| {
            meta.as_ref()
                .and_then(|m| m[k].as_str())
                .unwrap_or("unknown")
                .to_owned()
        };
        let copyright = read_capped(&top.join("LICENSE"), MAX_METADATA_BYTES)
            .ok()
            .and_then(|t| {
                t.lines()
                    .map(str::trim)
                    .find(|l| l.starts_with("Copyright"))
                    .map(str::to_owned)
            });
        Ok(Package {
            name: field("name"),
            version: field("version"),
            license: meta
                .as_ref()
                .and_then(|m| m["license"].as_str())
                .map(str::to_owned),
            copyright,
            build,
        })
    }

    /// The package holding the spec file `file` (`…/package/build/gh.js`) and the spec's name
    /// in it (`gh`): the build directory is the nearest ancestor named `build` whose parent
    /// has a `package.json`, else the file's own directory.
    ///
    /// # Errors
    ///
    /// [`ImportError::Package`] when `file` is not a file.
    pub fn for_spec_file(file: &Path) -> Result<(Package, String), ImportError> {
        if !file.is_file() {
            return Err(ImportError::Package(format!(
                "{} is not a file",
                file.display()
            )));
        }
        let file = file
            .canonicalize()
            .map_err(|e| ImportError::Package(format!("{}: {e}", file.display())))?;
        let build = file
            .ancestors()
            .skip(1)
            .find(|d| {
                d.file_name().is_some_and(|n| n == "build")
                    && d.parent().is_some_and(|p| p.join("package.json").is_file())
            })
            .or_else(|| file.parent())
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let rel = file.strip_prefix(&build).map_err(|_| {
            ImportError::Package(format!("{} is outside its package", file.display()))
        })?;
        let name: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let name = name.join("/");
        let name = name.strip_suffix(".js").unwrap_or(&name).to_owned();
        Ok((Package::open(&build)?, name))
    }

    /// The top-level specs: the names in `index.json`'s `completions` that are not inside
    /// another spec's directory (`gh`, `@capgo/cli`, `az`; not `aws/s3`, which `aws` loads).
    /// Without an `index.json`, every `*.js` of the build directory and of its `@scope/`
    /// directories, except `index.js`. Sorted.
    ///
    /// # Errors
    ///
    /// [`ImportError::Package`] when the index or the directory cannot be read.
    pub fn spec_names(&self) -> Result<Vec<String>, ImportError> {
        let index = self.build.join("index.json");
        let mut names: Vec<String> = if index.is_file() {
            let text = read_capped(&index, crate::engine::MAX_MODULE_BYTES)
                .map_err(|e| ImportError::Package(format!("{}: {e}", index.display())))?;
            let v: Value = serde_json::from_str(&text)
                .map_err(|e| ImportError::Package(format!("{}: {e}", index.display())))?;
            v["completions"]
                .as_array()
                .ok_or_else(|| {
                    ImportError::Package(format!("{} has no `completions` list", index.display()))
                })?
                .iter()
                .filter_map(Value::as_str)
                .filter(|n| {
                    let depth = n.matches('/').count();
                    depth == 0 || (n.starts_with('@') && depth == 1)
                })
                .map(str::to_owned)
                .collect()
        } else {
            let mut out = Vec::new();
            let read = |dir: &Path| {
                std::fs::read_dir(dir)
                    .map_err(|e| ImportError::Package(format!("{}: {e}", dir.display())))
            };
            for entry in read(&self.build)?.flatten() {
                let file = entry.file_name().to_string_lossy().into_owned();
                if let Some(stem) = file.strip_suffix(".js").filter(|s| *s != "index") {
                    out.push(stem.to_owned());
                } else if file.starts_with('@') && entry.path().is_dir() {
                    for inner in read(&entry.path())?.flatten() {
                        let f = inner.file_name().to_string_lossy().into_owned();
                        if let Some(stem) = f.strip_suffix(".js") {
                            out.push(format!("{file}/{stem}"));
                        }
                    }
                }
            }
            out
        };
        names.sort();
        names.dedup();
        Ok(names)
    }
}
