//! Evaluation of Fig spec modules in an embedded JavaScript engine (QuickJS, through
//! `rquickjs`).
//!
//! Fig specs are code: each module of `@withfig/autocomplete/build` is a minified ES module whose
//! `export default` is a spec object (or, for versioned specs, a function that picks the module
//! of the newest version). They are evaluated here, never with Node and never with a shell:
//!
//! * **no I/O**: the context has the language's built-ins only (no `std`/`os` modules, no
//!   `fetch`, no timers); the only thing a module can reach outside itself is another module;
//! * **imports stay in the package**: `import` specifiers are resolved against the importing
//!   module; a specifier that is not relative (`"semver"`), that climbs out of the package
//!   directory, or whose file resolves (through symbolic links) outside it is refused;
//! * **limits**: every module is evaluated in a fresh runtime with a memory limit
//!   ([`Limits::memory_bytes`]), a stack limit and a time limit enforced by QuickJS's interrupt
//!   handler ([`Limits::time`]); a module larger than [`MAX_MODULE_BYTES`] is not read, and a
//!   spec whose JSON is larger than [`MAX_SPEC_JSON_BYTES`] is refused.
//!
//! The default export is turned into JSON inside the engine (`JSON.stringify` with a replacer
//! that turns functions into the marker [`FUNCTION_MARKER`]) and parsed with `serde_json`.
//!
//! [`Engine::evaluate`] runs in the calling process, and its limits hold only as far as
//! QuickJS checks them: some built-ins never call the interrupt handler
//! (`Array.prototype.reverse.call({length: 2**53-1})` runs for ever) and the memory limit
//! covers the JavaScript heap only. Untrusted specs belong in a child process with a hard
//! kill and limits on the whole process: [`Isolation::ChildProcess`](crate::Isolation), which
//! the [`Importer`](crate::Importer) uses when its options say so (`atip import fig` always
//! does).

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use rquickjs::loader::{ImportAttributes, Loader, Resolver};
use rquickjs::{Context, Ctx, Function, Module, Object, Runtime, Value};

/// What a JavaScript function in a spec becomes in the JSON handed to the converter.
pub const FUNCTION_MARKER: &str = "\u{0}fig:function";

/// Largest module file read: 64 MiB (the largest in @withfig/autocomplete 2.692.3 is 4 MiB).
/// The size is checked on the opened file before anything is read, and no more than this is
/// read even when the file grows meanwhile.
pub const MAX_MODULE_BYTES: u64 = 64 * 1024 * 1024;

/// Largest spec taken from a module, as the UTF-8 bytes of its JSON: 64 MiB (the largest in
/// @withfig/autocomplete 2.692.3, `gcloud/compute.js`'s, is 4 MiB). A larger one is
/// [`EvalError::SpecTooLarge`]; its text is never copied out of the engine.
pub const MAX_SPEC_JSON_BYTES: usize = 64 * 1024 * 1024;

/// Most characters of an exception's message kept in [`EvalError::Exception`]: 2,000.
pub const MAX_MESSAGE_CHARS: usize = 2_000;

/// Limits for evaluating one module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Memory the engine may allocate for one module, in bytes (default 512 MiB).
    pub memory_bytes: usize,
    /// Wall-clock time for evaluating one module and turning its export into JSON (default 20 s).
    pub time: Duration,
    /// JavaScript stack, in bytes (default 1 MiB).
    pub stack_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 512 * 1024 * 1024,
            time: Duration::from_secs(20),
            stack_bytes: 1024 * 1024,
        }
    }
}

/// Why a module gave no spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvalError {
    /// The module file is missing, unreadable, too large or outside the package.
    Load {
        /// The module, relative to the package's build directory (`az/2.53.0/account.js`).
        module: String,
        /// Why.
        reason: String,
    },
    /// The code threw, or a promise it returned was rejected.
    Exception {
        /// The module.
        module: String,
        /// The exception's message.
        message: String,
    },
    /// Evaluation ran past [`Limits::time`] and was interrupted (in a child process: the
    /// child was killed at the limit, or used up its CPU-time limit).
    Timeout {
        /// The module.
        module: String,
        /// The limit.
        limit: Duration,
    },
    /// Evaluation needed more than [`Limits::memory_bytes`] (in a child process: or the
    /// whole process ran out of its address-space limit).
    OutOfMemory {
        /// The module.
        module: String,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The module has no usable default export (none, or not an object).
    NoSpec {
        /// The module.
        module: String,
        /// What was found instead.
        found: String,
    },
    /// The spec's JSON is larger than [`MAX_SPEC_JSON_BYTES`].
    SpecTooLarge {
        /// The module.
        module: String,
        /// The cap, in bytes.
        limit: usize,
    },
    /// The child process evaluating the module failed without saying why in its reply: it
    /// could not be started, crashed, was killed by a signal other than the limits', exited
    /// with an error, or replied with something that is not a reply (or more than the cap).
    Child {
        /// The module.
        module: String,
        /// What happened, with the start of what the child wrote on stderr, if anything.
        reason: String,
    },
}

impl EvalError {
    /// A short category for summaries (`load`, `exception`, `timeout`, `memory`, `no-spec`,
    /// `too-large`, `child`).
    pub fn category(&self) -> &'static str {
        match self {
            EvalError::Load { .. } => "load",
            EvalError::Exception { .. } => "exception",
            EvalError::Timeout { .. } => "timeout",
            EvalError::OutOfMemory { .. } => "memory",
            EvalError::NoSpec { .. } => "no-spec",
            EvalError::SpecTooLarge { .. } => "too-large",
            EvalError::Child { .. } => "child",
        }
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Load { module, reason } => {
                write!(f, "cannot load module {module}: {reason}")
            }
            EvalError::Exception { module, message } => {
                write!(f, "module {module} threw: {message}")
            }
            EvalError::Timeout { module, limit } => write!(
                f,
                "module {module} ran longer than {} ms and was interrupted",
                limit.as_millis()
            ),
            EvalError::OutOfMemory { module, limit } => write!(
                f,
                "module {module} needed more than {} MiB of memory",
                limit / (1024 * 1024)
            ),
            EvalError::NoSpec { module, found } => {
                write!(
                    f,
                    "module {module} exports no spec object (default export: {found})"
                )
            }
            EvalError::SpecTooLarge { module, limit } => write!(
                f,
                "module {module} exports a spec of more than {} MiB of JSON (the cap)",
                limit / (1024 * 1024)
            ),
            EvalError::Child { module, reason } => {
                write!(
                    f,
                    "module {module}: the child process evaluating it {reason}"
                )
            }
        }
    }
}

impl std::error::Error for EvalError {}

/// What a module's default export turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Export {
    /// A spec object, as JSON; functions are [`FUNCTION_MARKER`] strings.
    Spec(serde_json::Value),
    /// A versioned spec: the default export was a function that named the module of the
    /// newest version (`az/2.53.0`), relative to the build directory, without `.js`.
    Versioned(String),
}

/// The evaluator for one package directory (the `build` directory of
/// `@withfig/autocomplete`, holding `gh.js`, `aws/s3.js`, …).
#[derive(Debug, Clone)]
pub struct Engine {
    root: PathBuf,
    limits: Limits,
}

impl Engine {
    /// An evaluator for the modules under `root`.
    ///
    /// # Errors
    ///
    /// [`EvalError::Load`] when `root` is not a readable directory.
    pub fn new(root: &Path, limits: Limits) -> Result<Engine, EvalError> {
        let root = root.canonicalize().map_err(|e| EvalError::Load {
            module: root.display().to_string(),
            reason: e.to_string(),
        })?;
        if !root.is_dir() {
            return Err(EvalError::Load {
                module: root.display().to_string(),
                reason: "not a directory".into(),
            });
        }
        Ok(Engine { root, limits })
    }

    /// The package's build directory, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Evaluates the module `name` (relative to the build directory, with or without `.js`,
    /// `/`-separated: `gh`, `az/2.53.0/account`; a directory stands for its `index.js`) in a
    /// fresh runtime, in this process, and returns its default export.
    ///
    /// Not protected against built-ins that never check the time limit nor against memory
    /// used outside the JavaScript heap (see the [module](self) documentation); the
    /// [`Importer`](crate::Importer) can evaluate in a child process instead.
    ///
    /// # Errors
    ///
    /// [`EvalError`]: the module is missing or outside the package, threw, ran out of time or
    /// memory, exports no spec, or a spec larger than [`MAX_SPEC_JSON_BYTES`].
    pub fn evaluate(&self, name: &str) -> Result<Export, EvalError> {
        let module = self.module_path(name)?;
        match self.evaluate_module(&module)? {
            Evaluated::Json(text) => spec_from_json(&module, &text),
            Evaluated::Versioned(path) => Ok(Export::Versioned(path)),
        }
    }

    /// Evaluates `module` (as [`Engine::module_path`] gives it) in a fresh runtime: the default
    /// export's JSON text, or the module a versioned spec names.
    pub(crate) fn evaluate_module(&self, module: &str) -> Result<Evaluated, EvalError> {
        let deadline = Instant::now() + self.limits.time;
        let rt = Runtime::new().map_err(|e| self.error(module, Raw::from(e), deadline, false))?;
        rt.set_memory_limit(self.limits.memory_bytes);
        rt.set_max_stack_size(self.limits.stack_bytes);
        rt.set_interrupt_handler(Some(Box::new(move || Instant::now() >= deadline)));
        rt.set_loader(
            PackageResolver,
            PackageLoader {
                root: self.root.clone(),
            },
        );
        let context =
            Context::full(&rt).map_err(|e| self.error(module, Raw::from(e), deadline, false))?;
        let result = context.with(|ctx| default_export(&ctx, module));
        result.map_err(|raw| {
            // An allocation that fails while a module evaluates can leave its promise pending
            // instead of rejected: judge by what the runtime holds.
            let usage = rt.memory_usage();
            let near_limit =
                usize::try_from(usage.malloc_size).unwrap_or(0) >= self.limits.memory_bytes / 2;
            self.error(module, raw, deadline, near_limit)
        })
    }

    /// `name` as a module path relative to the root, with `.js` (`gh.js`, `az/index.js`),
    /// checked to be inside it.
    pub(crate) fn module_path(&self, name: &str) -> Result<String, EvalError> {
        let rel =
            normalize("", name.trim_start_matches('/')).map_err(|reason| EvalError::Load {
                module: name.into(),
                reason,
            })?;
        let with_js = if rel.ends_with(".js") {
            rel.clone()
        } else {
            format!("{rel}.js")
        };
        if self.root.join(&with_js).is_file() {
            return Ok(with_js);
        }
        let index = format!("{rel}/index.js");
        if self.root.join(&index).is_file() {
            return Ok(index);
        }
        Err(EvalError::Load {
            module: with_js,
            reason: "no such module in the package".into(),
        })
    }

    fn error(
        &self,
        module: &str,
        raw: Raw,
        deadline: Instant,
        near_memory_limit: bool,
    ) -> EvalError {
        let (allocation, unclear, message) = match raw {
            Raw::NoSpec(found) => {
                return EvalError::NoSpec {
                    module: module.into(),
                    found,
                }
            }
            Raw::TooLarge => {
                return EvalError::SpecTooLarge {
                    module: module.into(),
                    limit: MAX_SPEC_JSON_BYTES,
                }
            }
            Raw::Engine(e, m) => (
                matches!(e, rquickjs::Error::Allocation),
                // A pending promise, or a string the engine could not copy out.
                matches!(e, rquickjs::Error::WouldBlock | rquickjs::Error::Unknown),
                m,
            ),
        };
        if Instant::now() >= deadline || message.contains("interrupted") {
            return EvalError::Timeout {
                module: module.into(),
                limit: self.limits.time,
            };
        }
        if allocation || message.contains("out of memory") || (near_memory_limit && unclear) {
            return EvalError::OutOfMemory {
                module: module.into(),
                limit: self.limits.memory_bytes,
            };
        }
        if let Some(reason) = message.strip_prefix(LOAD_PREFIX) {
            return EvalError::Load {
                module: module.into(),
                reason: reason.into(),
            };
        }
        EvalError::Exception {
            module: module.into(),
            message,
        }
    }
}

/// What evaluating a module gave, before the spec's JSON is parsed.
#[derive(Debug)]
pub(crate) enum Evaluated {
    /// The default export's JSON text (at most [`MAX_SPEC_JSON_BYTES`]).
    Json(String),
    /// A versioned spec's newest module.
    Versioned(String),
}

/// The spec in `text`, the JSON of `module`'s default export.
pub(crate) fn spec_from_json(module: &str, text: &str) -> Result<Export, EvalError> {
    serde_json::from_str(text)
        .map(Export::Spec)
        .map_err(|e| EvalError::Exception {
            module: module.into(),
            message: format!("its spec is not JSON: {e}"),
        })
}

/// Imports `/module` and reads its default export.
fn default_export(ctx: &Ctx<'_>, module: &str) -> Result<Evaluated, Raw> {
    let wrap = |e: rquickjs::Error| Raw::caught(ctx, e);
    let promise = Module::import(ctx, format!("/{module}")).map_err(wrap)?;
    let namespace: Object = promise.finish().map_err(wrap)?;
    let default: Value = namespace.get("default").map_err(wrap)?;
    if let Some(function) = default.as_function() {
        // A versioned spec (`createVersionedSpec`): called without a version, it resolves to
        // `{versionedSpecPath: "az/2.53.0"}`, the newest version's module.
        let result: Value = function.call(()).map_err(wrap)?;
        let resolved: Value = match result.as_promise() {
            Some(p) => p.finish().map_err(wrap)?,
            None => result,
        };
        let path = resolved.as_object().and_then(|o| {
            o.get::<_, Option<String>>("versionedSpecPath")
                .ok()
                .flatten()
        });
        return path.map(Evaluated::Versioned).ok_or(Raw::NoSpec(
            "a function that names no versioned spec".into(),
        ));
    }
    if !default.is_object() || default.is_array() {
        return Err(Raw::NoSpec(type_name(&default).into()));
    }
    let replacer: Function = ctx
        .eval(format!(
            "(k, v) => typeof v === 'function' ? {} : v",
            serde_json::Value::from(FUNCTION_MARKER)
        ))
        .map_err(wrap)?;
    let text = ctx
        .json_stringify_replacer(default, replacer)
        .map_err(wrap)?
        .ok_or(Raw::NoSpec("a value JSON cannot hold".into()))?;
    // Measured in the engine before it is converted to UTF-8 or copied out: first in
    // characters (each at least one byte), then in bytes. A string's `length` is its own.
    let length: Function = ctx.eval("(s) => s.length").map_err(wrap)?;
    let chars: f64 = length.call((text.clone(),)).map_err(wrap)?;
    if chars > MAX_SPEC_JSON_BYTES as f64 {
        return Err(Raw::TooLarge);
    }
    let text = text.to_cstring().map_err(wrap)?;
    if text.len() > MAX_SPEC_JSON_BYTES {
        return Err(Raw::TooLarge);
    }
    Ok(Evaluated::Json(text.as_str().to_owned()))
}

/// An engine error with its message, taken while the context was at hand.
enum Raw {
    Engine(rquickjs::Error, String),
    NoSpec(String),
    TooLarge,
}

impl From<rquickjs::Error> for Raw {
    fn from(e: rquickjs::Error) -> Raw {
        let m = e.to_string();
        Raw::Engine(e, m)
    }
}

impl Raw {
    fn caught(ctx: &Ctx<'_>, e: rquickjs::Error) -> Raw {
        let message = match &e {
            rquickjs::Error::Exception => exception_message(&ctx.catch()),
            rquickjs::Error::WouldBlock => {
                "it awaits something that never settles (no event loop here)".into()
            }
            _ => e.to_string(),
        };
        Raw::Engine(e, message)
    }
}

const LOAD_PREFIX: &str = "module refused: ";

fn exception_message(v: &Value<'_>) -> String {
    if let Some(o) = v.as_object() {
        let text = |key: &str| o.get::<_, Value>(key).ok().as_ref().and_then(short_string);
        match (text("name"), text("message")) {
            (Some(n), Some(m)) if !m.is_empty() => {
                if m.starts_with(LOAD_PREFIX) {
                    return m;
                }
                return format!("{n}: {m}");
            }
            (_, Some(m)) => return m,
            _ => {}
        }
    }
    if let Some(s) = short_string(v) {
        return s;
    }
    format!("a thrown {}", type_name(v))
}

/// `v`, when it is a string, cut to [`MAX_MESSAGE_CHARS`] characters (and `…`); only what is
/// kept is copied out of the engine.
fn short_string(v: &Value<'_>) -> Option<String> {
    let s = v.as_string()?.clone().to_cstring().ok()?;
    let s = s.as_str();
    Some(match s.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((end, _)) => format!("{}…", &s[..end]),
        None => s.to_owned(),
    })
}

fn type_name(v: &Value<'_>) -> &'static str {
    v.type_of().as_str()
}

/// Joins `spec` to the directory of `base` (both `/`-separated, relative to the root) and
/// removes `.` and `..`; an error when the result would leave the root.
fn normalize(base_dir: &str, spec: &str) -> Result<String, String> {
    if spec.contains('\\') || spec.contains('\0') {
        return Err(format!("{spec:?} is not a module path"));
    }
    let mut parts: Vec<&str> = base_dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in spec.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(format!("{spec:?} leaves the package directory"));
                }
            }
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        return Err(format!("{spec:?} names no module"));
    }
    Ok(parts.join("/"))
}

/// Resolves `import` specifiers: `./x.js` and `../x.js` against the importing module,
/// `/x.js` from the package root (what [`Engine::evaluate`] asks for); anything else is refused.
struct PackageResolver;

impl Resolver for PackageResolver {
    fn resolve<'js>(
        &mut self,
        _ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<String> {
        let refused = |reason: String| rquickjs::Error::new_resolving_message(base, name, reason);
        let base_dir = base
            .trim_start_matches('/')
            .rsplit_once('/')
            .map_or("", |(dir, _)| dir);
        let rel = if let Some(abs) = name.strip_prefix('/') {
            normalize("", abs)
        } else if name.starts_with("./") || name.starts_with("../") {
            normalize(base_dir, name)
        } else {
            Err(format!(
                "{LOAD_PREFIX}bare specifier {name:?} names no module of the package"
            ))
        }
        .map_err(refused)?;
        Ok(format!("/{rel}"))
    }
}

/// Reads modules from the package directory only.
struct PackageLoader {
    root: PathBuf,
}

impl Loader for PackageLoader {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<Module<'js, rquickjs::module::Declared>> {
        let refused = |reason: String| {
            rquickjs::Error::new_loading_message(name, format!("{LOAD_PREFIX}{reason}"))
        };
        let rel = Path::new(name.trim_start_matches('/'));
        if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            return Err(refused("not a path inside the package".into()));
        }
        let path = self
            .root
            .join(rel)
            .canonicalize()
            .map_err(|e| refused(e.to_string()))?;
        if !path.starts_with(&self.root) {
            return Err(refused("resolves outside the package directory".into()));
        }
        let source = read_module(&path).map_err(refused)?;
        Module::declare(ctx.clone(), name, source)
    }
}

/// The text of a module file: a regular file of at most [`MAX_MODULE_BYTES`], judged on the
/// opened file before it is read, and no more than that read even if it grows meanwhile.
fn read_module(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let too_large = |len: u64| format!("{len} bytes, more than the {MAX_MODULE_BYTES} read");
    // Opening a FIFO would wait for a writer: only what is a regular file now is opened, and
    // without waiting.
    if !std::fs::metadata(path)
        .map_err(|e| e.to_string())?
        .is_file()
    {
        return Err("not a file".into());
    }
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut open, libc::O_NONBLOCK);
    let file = open.open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a file".into());
    }
    if meta.len() > MAX_MODULE_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut source = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(MAX_MODULE_BYTES + 1)
        .read_to_end(&mut source)
        .map_err(|e| e.to_string())?;
    if source.len() as u64 > MAX_MODULE_BYTES {
        return Err(too_large(source.len() as u64));
    }
    Ok(source)
}

#[cfg(test)]
mod tests;
