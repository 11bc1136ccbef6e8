//! The importer: evaluates a spec module of a package (a versioned spec at its newest
//! version), converts it and checks the document with the strict loader, one spec or many on
//! threads.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use atip_core::{Document, FlattenOptions, LoadOptions};
use serde_json::Value;

use crate::child::{Isolation, Pool};
use crate::convert::{self, Generator, Stats, Warning};
use crate::engine::{Engine, EvalError, Export, Limits};
use crate::error::ImportError;
use crate::package::Package;

/// Default limit of runnable commands in one imported document: 50,000.
pub const DEFAULT_MAX_COMMANDS: usize = 50_000;

/// Modules evaluated during one import, by the name they were asked for: the module file
/// read and its spec, or why it failed.
pub(crate) type ModuleCache = HashMap<String, Result<(String, Value), EvalError>>;

/// Settings of an [`Importer`].
///
/// The default evaluates in the calling process ([`Isolation::InProcess`]), which does not
/// hold the limits against every spec; for specs you do not trust, set
/// [`isolation`](ImportOptions::isolation) to a child process (see [`crate::child`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// Limits for evaluating each module.
    pub limits: Limits,
    /// Most runnable commands in one document ([`DEFAULT_MAX_COMMANDS`]).
    pub max_commands: usize,
    /// Where each module is evaluated: in this process (the default) or in a child process
    /// per module, killed at the time limit and limited as a whole.
    pub isolation: Isolation,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            limits: Limits::default(),
            max_commands: DEFAULT_MAX_COMMANDS,
            isolation: Isolation::InProcess,
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
    pub(crate) options: ImportOptions,
    /// Idle child processes, for [`Isolation::ChildProcess`] (a clone starts with none).
    children: Pool,
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
            children: Pool::default(),
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
        let spec = self.follow_load_specs(spec, &module, &mut cache, &mut warnings, &mut stats);
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
    pub(crate) fn load(
        &self,
        name: &str,
        cache: &mut ModuleCache,
    ) -> Result<(String, Option<Value>), ImportError> {
        if let Some(hit) = cache.get(name) {
            return hit
                .clone()
                .map(|(m, v)| (m, Some(v)))
                .map_err(ImportError::Eval);
        }
        let evaluate = |name: &str| {
            self.children
                .evaluate(&self.options.isolation, &self.engine, name)
        };
        let result = match evaluate(name) {
            Ok(Export::Spec(v)) => Ok((module_file(&self.engine, name), v)),
            Ok(Export::Versioned(path)) => match evaluate(&path) {
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
