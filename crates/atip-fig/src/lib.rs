//! Import [Fig](https://github.com/withfig/autocomplete) completion specs as ATIP metadata.
//!
//! The npm package `@withfig/autocomplete` describes hundreds of command-line tools: each
//! module of its `build/` directory is a minified ES module whose default export is a spec
//! (subcommands, options, arguments, `isDangerous`, …). This crate evaluates those modules in
//! an embedded JavaScript engine without I/O and under limits ([`engine`]), follows `loadSpec`
//! references within the package, converts the result to an ATIP 0.6 document ([`convert`])
//! with effects inferred on the safe side ([`effects`]), and checks it with the workspace's
//! strict loader — what `atip check` and the generator accept.
//!
//! Every document carries `trust: {"source": "inferred", "verified": false}` (spec §3.2.2,
//! §4.10.4: generated metadata needs human review before it is promoted) and its provenance in
//! `x-atip-rust.generator` (`{"source": "fig", "package", "version", "spec"}`, plus the
//! package's `license` and `copyright` line as attribution when it has them).
//!
//! ```no_run
//! use atip_fig::{Importer, ImportOptions, Package};
//!
//! let package = Package::open("node_modules/@withfig/autocomplete".as_ref())?;
//! let importer = Importer::new(package, ImportOptions::default())?;
//! let gh = importer.import("gh")?;
//! for w in &gh.warnings {
//!     eprintln!("warning: {w}");
//! }
//! println!("{}", gh.to_json_pretty());
//! # Ok::<(), atip_fig::ImportError>(())
//! ```
//!
//! The JavaScript engine is QuickJS (through `rquickjs`): it builds from C with the compiler
//! every Rust toolchain's `cc` already needs, in under a minute, and embeds small; its module
//! loader and interrupt handler are exactly the two hooks needed to keep imports inside the
//! package and to stop runaway code. A pure-Rust engine (Boa) was the alternative; it compiles
//! several times longer for the same job.
#![deny(missing_docs)]

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

pub mod convert;
pub mod effects;
pub mod engine;

pub use convert::{ConvertError, Converted, Generator, Stats, Warning};
pub use engine::{Engine, EvalError, Export, Limits};

use atip_core::{Document, FlattenOptions, LoadError, LoadOptions};

/// Default limit of runnable commands in one imported document: 50,000.
pub const DEFAULT_MAX_COMMANDS: usize = 50_000;

/// Most `loadSpec` references followed for one spec: 5,000.
pub const MAX_LOAD_SPECS: usize = 5_000;

/// Deepest chain of `loadSpec` references followed (a spec loading a spec loading …): 8.
pub const MAX_LOAD_SPEC_DEPTH: usize = 8;

/// Most subcommands that followed `loadSpec`s may add to one spec, as a multiple of
/// [`ImportOptions::max_commands`]: 4 (beyond it the references are not followed).
pub const LOADED_COMMANDS_FACTOR: usize = 4;

/// Why an import failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ImportError {
    /// The package directory is unusable (no `build/`, unreadable `package.json` or index).
    Package(String),
    /// The spec module could not be evaluated.
    Eval(EvalError),
    /// The spec could not be converted.
    Convert(ConvertError),
    /// The converted document does not load strictly (a bug of the conversion).
    Invalid(LoadError),
}

impl ImportError {
    /// A short category for summaries: `package`, the evaluation's or conversion's category,
    /// or `invalid`.
    pub fn category(&self) -> &'static str {
        match self {
            ImportError::Package(_) => "package",
            ImportError::Eval(e) => e.category(),
            ImportError::Convert(e) => e.category(),
            ImportError::Invalid(_) => "invalid",
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Package(m) => write!(f, "{m}"),
            ImportError::Eval(e) => write!(f, "{e}"),
            ImportError::Convert(e) => write!(f, "{e}"),
            ImportError::Invalid(e) => write!(f, "the converted document does not load: {e}"),
        }
    }
}

impl std::error::Error for ImportError {}

impl From<EvalError> for ImportError {
    fn from(e: EvalError) -> Self {
        ImportError::Eval(e)
    }
}

impl From<ConvertError> for ImportError {
    fn from(e: ConvertError) -> Self {
        ImportError::Convert(e)
    }
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
        let meta: Option<Value> = std::fs::read_to_string(top.join("package.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let field = |k: &str| {
            meta.as_ref()
                .and_then(|m| m[k].as_str())
                .unwrap_or("unknown")
                .to_owned()
        };
        let copyright = std::fs::read_to_string(top.join("LICENSE"))
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
            let text = std::fs::read_to_string(&index)
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

/// Settings of an [`Importer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// Limits for evaluating each module.
    pub limits: Limits,
    /// Most runnable commands in one document ([`DEFAULT_MAX_COMMANDS`]).
    pub max_commands: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            limits: Limits::default(),
            max_commands: DEFAULT_MAX_COMMANDS,
        }
    }
}

/// One imported spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The spec's name in the package (`gh`, `az`).
    pub spec: String,
    /// The module the document was made from (`gh.js`, `az/2.53.0.js`).
    pub module: String,
    /// The ATIP 0.6 document; it loads with `LoadOptions::strict()`.
    pub document: Value,
    /// What the conversion changed or dropped, then what the strict loader warned about.
    pub warnings: Vec<Warning>,
    /// Counts.
    pub stats: Stats,
    /// Time taken (evaluation, conversion and the strict check).
    pub elapsed: Duration,
}

impl Imported {
    /// The document as pretty-printed JSON, ending in a newline.
    pub fn to_json_pretty(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.document).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// Imports specs of one [`Package`].
#[derive(Debug, Clone)]
pub struct Importer {
    package: Package,
    engine: Engine,
    options: ImportOptions,
}

impl Importer {
    /// An importer for `package`.
    ///
    /// # Errors
    ///
    /// [`ImportError::Eval`] when the build directory cannot be opened.
    pub fn new(package: Package, options: ImportOptions) -> Result<Importer, ImportError> {
        let engine = Engine::new(&package.build, options.limits)?;
        Ok(Importer {
            package,
            engine,
            options,
        })
    }

    /// The package.
    pub fn package(&self) -> &Package {
        &self.package
    }

    /// Imports the spec `name` (`gh`, `@capgo/cli`, `az`): evaluates it (a versioned spec's
    /// newest version), follows its `loadSpec`s, converts it and checks the document with the
    /// strict loader.
    ///
    /// # Errors
    ///
    /// [`ImportError`]: evaluation, conversion, or (a bug) the strict check failed.
    pub fn import(&self, name: &str) -> Result<Imported, ImportError> {
        let start = Instant::now();
        let mut cache = HashMap::new();
        let mut warnings = Vec::new();
        let mut stats = Stats::default();
        let (module, spec) = self.load(name, &mut cache)?;
        let spec = match spec {
            Some(s) => s,
            None => {
                return Err(ImportError::Eval(EvalError::NoSpec {
                    module,
                    found: "a versioned spec whose version is versioned again".into(),
                }))
            }
        };
        let mut chain = vec![module.clone()];
        let mut followed = Budget::default();
        let spec = self.resolve(
            spec,
            &mut chain,
            &mut cache,
            &mut warnings,
            &mut stats,
            &mut followed,
        );
        let generator = Generator {
            package: self.package.name.clone(),
            version: self.package.version.clone(),
            spec: module.clone(),
            license: self.package.license.clone(),
            copyright: self.package.copyright.clone(),
        };
        // Fig names a top-level module after the command it completes (`cl.js` completes `cl`,
        // whose spec says `@commercelayer/cli`).
        let command = Some(name).filter(|n| convert::is_tool_name(n));
        let converted = convert::convert(&spec, &generator, command, self.options.max_commands)?;
        let mut all = converted.stats;
        all.load_specs_followed += stats.load_specs_followed;
        all.load_specs_ignored += stats.load_specs_ignored;
        warnings.extend(converted.warnings);
        let text = converted.document.to_string();
        let options = LoadOptions::strict().with_file(format!("{name} (imported from {module})"));
        let doc = Document::parse(&text, &options, &FlattenOptions::default())
            .map_err(ImportError::Invalid)?;
        for d in &doc.warnings {
            warnings.push(Warning {
                at: d.path.to_string(),
                message: format!("loader: {}", d.message),
            });
        }
        Ok(Imported {
            spec: name.to_owned(),
            module,
            document: converted.document,
            warnings,
            stats: all,
            elapsed: start.elapsed(),
        })
    }

    /// Evaluates `name`, following a versioned spec to its newest version. Returns the module
    /// read and its spec (`None` for a version that is itself versioned).
    fn load(
        &self,
        name: &str,
        cache: &mut HashMap<String, Result<(String, Value), EvalError>>,
    ) -> Result<(String, Option<Value>), ImportError> {
        if let Some(hit) = cache.get(name) {
            return hit
                .clone()
                .map(|(m, v)| (m, Some(v)))
                .map_err(ImportError::Eval);
        }
        let result = match self.engine.evaluate(name) {
            Ok(Export::Spec(v)) => Ok((module_file(&self.engine, name), v)),
            Ok(Export::Versioned(path)) => match self.engine.evaluate(&path) {
                Ok(Export::Spec(v)) => Ok((module_file(&self.engine, &path), v)),
                Ok(Export::Versioned(_)) => {
                    return Ok((path, None));
                }
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        cache.insert(name.to_owned(), result.clone());
        result.map(|(m, v)| (m, Some(v))).map_err(ImportError::Eval)
    }

    /// Follows the `loadSpec` strings of subcommands: the named module's spec takes the
    /// subcommand's place, keeping the subcommand's name (and description, when it has one).
    fn resolve(
        &self,
        mut spec: Value,
        chain: &mut Vec<String>,
        cache: &mut HashMap<String, Result<(String, Value), EvalError>>,
        warnings: &mut Vec<Warning>,
        stats: &mut Stats,
        followed: &mut Budget,
    ) -> Value {
        let Some(subs) = spec.get_mut("subcommands").and_then(Value::as_array_mut) else {
            return spec;
        };
        for sub in subs.iter_mut() {
            let Some(obj) = sub.as_object_mut() else {
                continue;
            };
            if obj.get("hidden") == Some(&Value::Bool(true)) {
                continue;
            }
            let target = match obj.get("loadSpec") {
                Some(Value::String(t)) if t != engine::FUNCTION_MARKER => Some(t.clone()),
                _ => None,
            };
            let here = obj
                .get("name")
                .map(|n| {
                    n.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| n.to_string())
                })
                .unwrap_or_default();
            let taken = std::mem::take(sub);
            *sub = match target {
                None => self.resolve(taken, chain, cache, warnings, stats, followed),
                Some(target) => {
                    let at = format!("{} → {target}", chain.last().cloned().unwrap_or_default());
                    let mut warn = |message: String| {
                        stats.load_specs_ignored += 1;
                        warnings.push(Warning {
                            at: at.clone(),
                            message,
                        });
                    };
                    let max_loaded = self
                        .options
                        .max_commands
                        .saturating_mul(LOADED_COMMANDS_FACTOR);
                    if followed.specs >= MAX_LOAD_SPECS
                        || chain.len() > MAX_LOAD_SPEC_DEPTH
                        || followed.commands > max_loaded
                    {
                        warn(format!(
                            "loadSpec of `{here}` not followed: the import's limits ({MAX_LOAD_SPECS} references, {MAX_LOAD_SPEC_DEPTH} deep, {max_loaded} loaded commands) are reached"
                        ));
                        without_load_spec(taken)
                    } else {
                        match self.load(&target, cache) {
                            Ok((module, Some(loaded))) if !chain.contains(&module) => {
                                followed.specs += 1;
                                followed.commands += count_commands(&loaded, 0);
                                stats.load_specs_followed += 1;
                                chain.push(module);
                                let loaded =
                                    self.resolve(loaded, chain, cache, warnings, stats, followed);
                                chain.pop();
                                merge_loaded(taken, loaded)
                            }
                            Ok((module, Some(_))) => {
                                warn(format!(
                                    "loadSpec of `{here}` refers back to {module}, which is being loaded: not followed"
                                ));
                                without_load_spec(taken)
                            }
                            Ok((module, None)) => {
                                warn(format!("loadSpec of `{here}`: {module} is versioned twice: not followed"));
                                without_load_spec(taken)
                            }
                            Err(e) => {
                                warn(format!("loadSpec of `{here}` not followed: {e}"));
                                without_load_spec(taken)
                            }
                        }
                    }
                }
            };
        }
        spec
    }

    /// Imports `names` on `threads` threads (at least one) and hands each result to
    /// `on_result` on the calling thread, in completion order.
    pub fn import_many(
        &self,
        names: &[String],
        threads: usize,
        mut on_result: impl FnMut(&str, Result<Imported, ImportError>),
    ) {
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|s| {
            for _ in 0..threads.max(1) {
                let tx = tx.clone();
                let next = &next;
                s.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(name) = names.get(i) else { break };
                    if tx.send((i, self.import(name))).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            for (i, result) in rx {
                on_result(&names[i], result);
            }
        });
    }
}

/// What the `loadSpec`s of one import have added so far.
#[derive(Default)]
struct Budget {
    specs: usize,
    commands: usize,
}

/// Subcommand objects in a spec (at most 64 levels down: the depth serde_json parsed).
fn count_commands(spec: &Value, depth: usize) -> usize {
    match spec.get("subcommands") {
        Some(Value::Array(subs)) if depth < 64 => {
            subs.iter().map(|s| 1 + count_commands(s, depth + 1)).sum()
        }
        _ => 0,
    }
}

/// The module file a name resolves to (`gh.js`, `az/index.js`), for provenance.
fn module_file(engine: &Engine, name: &str) -> String {
    let trimmed = name.trim_start_matches('/');
    let base = trimmed.strip_suffix(".js").unwrap_or(trimmed);
    if engine.root().join(format!("{base}.js")).is_file() {
        format!("{base}.js")
    } else {
        format!("{base}/index.js")
    }
}

fn without_load_spec(mut sub: Value) -> Value {
    if let Some(o) = sub.as_object_mut() {
        o.remove("loadSpec");
    }
    sub
}

/// The loaded spec in the subcommand's place: its content, with the subcommand's names, its
/// description when it has one, its own options first, and `isDangerous` when either has it.
fn merge_loaded(sub: Value, loaded: Value) -> Value {
    let Value::Object(mut sub) = sub else {
        return loaded;
    };
    let Value::Object(mut out) = loaded else {
        return Value::Object(sub);
    };
    sub.remove("loadSpec");
    if let Some(name) = sub.remove("name") {
        out.insert("name".into(), name);
    }
    if let Some(d) = sub.remove("description") {
        out.insert("description".into(), d);
    }
    let mut options: Vec<Value> = match sub.remove("options") {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    };
    if let Some(Value::Array(more)) = out.remove("options") {
        options.extend(more);
    }
    if !options.is_empty() {
        out.insert("options".into(), Value::Array(options));
    }
    for key in ["isDangerous", "requiresSubcommand"] {
        if sub.get(key) == Some(&Value::Bool(true)) {
            out.insert(key.into(), Value::Bool(true));
        }
    }
    for (k, v) in sub {
        out.entry(k).or_insert(v);
    }
    let _: &Map<String, Value> = &out;
    Value::Object(out)
}

/// The results of importing many specs, added up with [`Summary::add`] (e.g. from
/// [`Importer::import_many`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Specs converted.
    pub converted: usize,
    /// Specs that failed, with the error's category and message, sorted by name.
    pub failed: Vec<(String, String, String)>,
    /// Counts added over the converted specs.
    pub stats: Stats,
    /// Warnings over the converted specs.
    pub warnings: usize,
}

impl Summary {
    /// Records one result.
    pub fn add(&mut self, name: &str, result: &Result<Imported, ImportError>) {
        match result {
            Ok(i) => {
                self.converted += 1;
                self.stats.add(&i.stats);
                self.warnings += i.warnings.len();
            }
            Err(e) => {
                self.failed
                    .push((name.to_owned(), e.category().to_owned(), e.to_string()));
                self.failed.sort();
            }
        }
    }

    /// Specs converted and failed.
    pub fn total(&self) -> usize {
        self.converted + self.failed.len()
    }

    /// The report: converted and failed counts, each failure with its reason, failures by
    /// category, and what was ignored.
    pub fn report(&self) -> String {
        let mut out = String::new();
        let total = self.total();
        let rate = if total == 0 {
            0.0
        } else {
            100.0 * self.converted as f64 / total as f64
        };
        out.push_str(&format!(
            "converted {} of {total} specs ({rate:.1}%), failed {}\n",
            self.converted,
            self.failed.len()
        ));
        let mut by_category: Vec<(&str, usize)> = Vec::new();
        for (_, c, _) in &self.failed {
            match by_category.iter_mut().find(|(k, _)| k == c) {
                Some((_, n)) => *n += 1,
                None => by_category.push((c, 1)),
            }
        }
        for (c, n) in by_category {
            out.push_str(&format!("  failed ({c}): {n}\n"));
        }
        for (name, _, reason) in &self.failed {
            out.push_str(&format!("  FAILED {name}: {reason}\n"));
        }
        let s = &self.stats;
        out.push_str(&format!(
            "commands: {} ({} destructive, {} read-only, the rest undeclared)\n\
             ignored: {} generators, {} generateSpec, {} loadSpec not followed ({} followed), {} hidden\n\
             warnings: {}\n",
            s.commands,
            s.destructive,
            s.read_only,
            s.generators,
            s.generate_specs,
            s.load_specs_ignored,
            s.load_specs_followed,
            s.hidden,
            self.warnings
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"name": "@withfig/autocomplete", "version": "9.9.9", "license": "ISC"}"#,
        )
        .unwrap();
        std::fs::write(
            dir.path().join("LICENSE"),
            "MIT License\n\nCopyright (c) 2021 Someone\n",
        )
        .unwrap();
        for (name, text) in files {
            let path = dir.path().join("build").join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn importer(dir: &tempfile::TempDir) -> Importer {
        Importer::new(Package::open(dir.path()).unwrap(), ImportOptions::default()).unwrap()
    }

    #[test]
    fn follows_load_spec_within_the_package_and_stops_at_cycles() {
        let dir = package(&[
            (
                "t.js",
                "export default {name:'t',subcommands:[{name:'s3',description:'S3',loadSpec:'t/s3'},{name:'me',loadSpec:'t'}]};",
            ),
            (
                "t/s3.js",
                "export default {name:'s3',description:'other',subcommands:[{name:'ls',description:'List'}]};",
            ),
        ]);
        let i = importer(&dir).import("t").unwrap();
        assert_eq!(i.document["commands"]["s3"]["description"], "S3");
        assert_eq!(
            i.document["commands"]["s3"]["commands"]["ls"]["description"],
            "List"
        );
        assert_eq!(i.stats.load_specs_followed, 1);
        assert_eq!(i.stats.load_specs_ignored, 1);
        assert!(i
            .warnings
            .iter()
            .any(|w| w.message.contains("refers back to t.js")));
        assert_eq!(
            i.document["x-atip-rust"]["generator"],
            json!({"source": "fig", "package": "@withfig/autocomplete", "version": "9.9.9", "spec": "t.js",
                   "license": "ISC", "copyright": "Copyright (c) 2021 Someone"})
        );
    }

    #[test]
    fn a_long_chain_of_load_specs_stops_at_the_depth_limit() {
        let mut files: Vec<(String, String)> = Vec::new();
        for i in 0..20 {
            files.push((
                format!("m{i}.js"),
                format!(
                    "export default {{name:'m{i}',subcommands:[{{name:'leaf'}},{{name:'next',loadSpec:'m{}'}}]}};",
                    i + 1
                ),
            ));
        }
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let dir = package(&refs);
        let i = importer(&dir).import("m0").unwrap();
        assert_eq!(i.stats.load_specs_followed, MAX_LOAD_SPEC_DEPTH);
        assert!(i.warnings.iter().any(|w| w.message.contains("limits")));
    }

    #[test]
    fn imports_versioned_specs_at_their_newest_version() {
        let dir = package(&[
            (
                "v/index.js",
                "export default async () => ({versionedSpecPath: 'v/2.0.0'});",
            ),
            ("v/2.0.0.js", "export default {name:'v',description:'two'};"),
        ]);
        let i = importer(&dir).import("v").unwrap();
        assert_eq!(i.module, "v/2.0.0.js");
        assert_eq!(i.document["description"], "two");
    }

    #[test]
    fn lists_top_level_specs() {
        let dir = package(&[
            ("gh.js", ""),
            ("index.js", ""),
            ("@capgo/cli.js", ""),
            ("aws/s3.js", ""),
        ]);
        let p = Package::open(dir.path()).unwrap();
        assert_eq!(p.spec_names().unwrap(), ["@capgo/cli", "gh"]);
        std::fs::write(
            dir.path().join("build/index.json"),
            r#"{"completions": ["gh", "aws", "aws/s3", "@capgo/cli", "az"]}"#,
        )
        .unwrap();
        assert_eq!(p.spec_names().unwrap(), ["@capgo/cli", "aws", "az", "gh"]);
    }

    #[test]
    fn finds_the_package_of_a_spec_file() {
        let dir = package(&[("@capgo/cli.js", "")]);
        let (p, name) = Package::for_spec_file(&dir.path().join("build/@capgo/cli.js")).unwrap();
        assert_eq!(name, "@capgo/cli");
        assert_eq!(p.version, "9.9.9");
        assert!(Package::for_spec_file(&dir.path().join("build/none.js")).is_err());
    }

    #[test]
    fn import_many_reports_every_result_and_the_summary_lists_failures() {
        let dir = package(&[
            ("a.js", "export default {name:'a'};"),
            ("b.js", "throw new Error('broken');"),
            ("c++.js", "export default {name:'c++'};"),
        ]);
        let names: Vec<String> = ["a", "b", "c++"].map(String::from).to_vec();
        let mut summary = Summary::default();
        importer(&dir).import_many(&names, 2, |n, r| summary.add(n, &r));
        assert_eq!(summary.converted, 1);
        assert_eq!(summary.failed.len(), 2);
        let report = summary.report();
        assert!(report.contains("converted 1 of 3 specs"), "{report}");
        assert!(
            report.contains("FAILED b: module b.js threw: Error: broken"),
            "{report}"
        );
        assert!(report.contains("failed (tool-name): 1"), "{report}");
    }
}
