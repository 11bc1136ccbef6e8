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
//!   handler ([`Limits::time`]); a module larger than [`MAX_MODULE_BYTES`] is not read.
//!
//! The default export is turned into JSON inside the engine (`JSON.stringify` with a replacer
//! that turns functions into the marker [`FUNCTION_MARKER`]) and parsed with `serde_json`.

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use rquickjs::loader::{ImportAttributes, Loader, Resolver};
use rquickjs::{Context, Ctx, Function, Module, Object, Runtime, Value};

/// What a JavaScript function in a spec becomes in the JSON handed to the converter.
pub const FUNCTION_MARKER: &str = "\u{0}fig:function";

/// Largest module file read: 64 MiB (the largest in @withfig/autocomplete 2.692.3 is 4 MiB).
pub const MAX_MODULE_BYTES: u64 = 64 * 1024 * 1024;

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
    /// Evaluation ran past [`Limits::time`] and was interrupted.
    Timeout {
        /// The module.
        module: String,
        /// The limit.
        limit: Duration,
    },
    /// Evaluation needed more than [`Limits::memory_bytes`].
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
}

impl EvalError {
    /// A short category for summaries (`load`, `exception`, `timeout`, `memory`, `no-spec`).
    pub fn category(&self) -> &'static str {
        match self {
            EvalError::Load { .. } => "load",
            EvalError::Exception { .. } => "exception",
            EvalError::Timeout { .. } => "timeout",
            EvalError::OutOfMemory { .. } => "memory",
            EvalError::NoSpec { .. } => "no-spec",
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
    /// fresh runtime and returns its default export.
    ///
    /// # Errors
    ///
    /// [`EvalError`]: the module is missing or outside the package, threw, ran out of time or
    /// memory, or exports no spec.
    pub fn evaluate(&self, name: &str) -> Result<Export, EvalError> {
        let module = self.module_path(name)?;
        let deadline = Instant::now() + self.limits.time;
        let rt = Runtime::new().map_err(|e| self.error(&module, Raw::from(e), deadline, false))?;
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
            Context::full(&rt).map_err(|e| self.error(&module, Raw::from(e), deadline, false))?;
        let result = context.with(|ctx| default_export(&ctx, &module));
        result.map_err(|raw| {
            // An allocation that fails while a module evaluates can leave its promise pending
            // instead of rejected: judge by what the runtime holds.
            let usage = rt.memory_usage();
            let near_limit =
                usize::try_from(usage.malloc_size).unwrap_or(0) >= self.limits.memory_bytes / 2;
            self.error(&module, raw, deadline, near_limit)
        })
    }

    /// `name` as a module path relative to the root, with `.js`, checked to be inside it.
    fn module_path(&self, name: &str) -> Result<String, EvalError> {
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
        let (allocation, would_block, message) = match raw {
            Raw::NoSpec(found) => {
                return EvalError::NoSpec {
                    module: module.into(),
                    found,
                }
            }
            Raw::Message(m) => (false, false, m),
            Raw::Engine(e, m) => (
                matches!(e, rquickjs::Error::Allocation),
                matches!(e, rquickjs::Error::WouldBlock),
                m,
            ),
        };
        if Instant::now() >= deadline || message.contains("interrupted") {
            return EvalError::Timeout {
                module: module.into(),
                limit: self.limits.time,
            };
        }
        if allocation || message.contains("out of memory") || (near_memory_limit && would_block) {
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

/// Imports `/module` and reads its default export.
fn default_export(ctx: &Ctx<'_>, module: &str) -> Result<Export, Raw> {
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
        return path.map(Export::Versioned).ok_or(Raw::NoSpec(
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
        .ok_or(Raw::NoSpec("a value JSON cannot hold".into()))?
        .to_string()
        .map_err(wrap)?;
    serde_json::from_str(&text)
        .map(Export::Spec)
        .map_err(|e| Raw::Message(format!("its spec is not JSON: {e}")))
}

/// An engine error with its message, taken while the context was at hand.
enum Raw {
    Engine(rquickjs::Error, String),
    Message(String),
    NoSpec(String),
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
        let name: Option<String> = o.get("name").ok();
        let message: Option<String> = o.get("message").ok();
        match (name, message) {
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
    if let Some(s) = v.as_string().and_then(|s| s.to_string().ok()) {
        return s;
    }
    format!("a thrown {}", type_name(v))
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
        let meta = std::fs::metadata(&path).map_err(|e| refused(e.to_string()))?;
        if !meta.is_file() {
            return Err(refused("not a file".into()));
        }
        if meta.len() > MAX_MODULE_BYTES {
            return Err(refused(format!(
                "{} bytes, more than the {MAX_MODULE_BYTES} read",
                meta.len()
            )));
        }
        let source = std::fs::read(&path).map_err(|e| refused(e.to_string()))?;
        Module::declare(ctx.clone(), name, source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn engine(dir: &tempfile::TempDir) -> Engine {
        Engine::new(dir.path(), Limits::default()).unwrap()
    }

    #[test]
    fn evaluates_a_default_export_with_functions_marked() {
        let dir = package(&[(
            "t.js",
            "var g={script:['t','ls'],postProcess:o=>[]};var s={name:'t',args:{generators:g}};export{s as default};",
        )]);
        let Export::Spec(v) = engine(&dir).evaluate("t").unwrap() else {
            panic!("expected a spec")
        };
        assert_eq!(v["name"], "t");
        assert_eq!(v["args"]["generators"]["postProcess"], FUNCTION_MARKER);
    }

    #[test]
    fn resolves_relative_imports_inside_the_package() {
        let dir = package(&[
            ("sub/shared.js", "export const opts=[{name:'--x'}];"),
            (
                "t.js",
                "import {opts} from './sub/shared.js'; export default {name:'t',options:opts};",
            ),
        ]);
        let Export::Spec(v) = engine(&dir).evaluate("t.js").unwrap() else {
            panic!("expected a spec")
        };
        assert_eq!(v["options"][0]["name"], "--x");
    }

    #[test]
    fn refuses_imports_that_leave_the_package() {
        let outer = package(&[("secret.js", "export default {name:'secret'};")]);
        let inner = outer.path().join("pkg");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(
            inner.join("t.js"),
            "import s from '../secret.js'; export default s;",
        )
        .unwrap();
        std::fs::write(inner.join("b.js"), "import s from 'fs'; export default s;").unwrap();
        let e = Engine::new(&inner, Limits::default()).unwrap();
        let err = e.evaluate("t").unwrap_err();
        assert!(err.to_string().contains("leaves the package"), "{err}");
        let err = e.evaluate("b").unwrap_err();
        assert!(err.to_string().contains("bare specifier"), "{err}");
        let err = e.evaluate("../secret").unwrap_err();
        assert_eq!(err.category(), "load", "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn refuses_symlinks_out_of_the_package() {
        let outer = package(&[("secret.js", "export default {name:'secret'};")]);
        let inner = outer.path().join("pkg");
        std::fs::create_dir_all(&inner).unwrap();
        std::os::unix::fs::symlink(outer.path().join("secret.js"), inner.join("link.js")).unwrap();
        std::fs::write(
            inner.join("t.js"),
            "import s from './link.js'; export default s;",
        )
        .unwrap();
        let err = Engine::new(&inner, Limits::default())
            .unwrap()
            .evaluate("t")
            .unwrap_err();
        assert!(err.to_string().contains("outside the package"), "{err}");
    }

    #[test]
    fn an_endless_loop_is_interrupted_at_the_time_limit() {
        let dir = package(&[("t.js", "for(;;){} export default {};")]);
        let limits = Limits {
            time: Duration::from_millis(200),
            ..Limits::default()
        };
        let start = Instant::now();
        let err = Engine::new(dir.path(), limits)
            .unwrap()
            .evaluate("t")
            .unwrap_err();
        assert_eq!(err.category(), "timeout", "{err}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_memory_hog_stops_at_the_memory_limit() {
        let dir = package(&[(
            "t.js",
            "let a=[]; for(let i=0;;i++){a.push('x'.repeat(1024)+i)} export default {};",
        )]);
        let limits = Limits {
            memory_bytes: 16 * 1024 * 1024,
            ..Limits::default()
        };
        let err = Engine::new(dir.path(), limits)
            .unwrap()
            .evaluate("t")
            .unwrap_err();
        assert_eq!(err.category(), "memory", "{err}");
    }

    #[test]
    fn has_no_io() {
        let dir = package(&[(
            "t.js",
            "export default {name: typeof require + ',' + typeof fetch + ',' + typeof std + ',' + typeof os + ',' + typeof setTimeout};",
        )]);
        let Export::Spec(v) = engine(&dir).evaluate("t").unwrap() else {
            panic!("expected a spec")
        };
        assert_eq!(
            v["name"],
            "undefined,undefined,undefined,undefined,undefined"
        );
    }

    #[test]
    fn exceptions_and_missing_exports_are_errors() {
        let dir = package(&[
            (
                "throws.js",
                "throw new TypeError('boom'); export default {};",
            ),
            ("none.js", "export const x = 1;"),
            ("num.js", "export default 3;"),
        ]);
        let e = engine(&dir);
        let err = e.evaluate("throws").unwrap_err();
        assert!(err.to_string().contains("TypeError: boom"), "{err}");
        assert_eq!(e.evaluate("none").unwrap_err().category(), "no-spec");
        assert_eq!(e.evaluate("num").unwrap_err().category(), "no-spec");
        assert_eq!(e.evaluate("missing").unwrap_err().category(), "load");
    }

    #[test]
    fn cycles_are_errors_not_hangs() {
        let dir = package(&[("t.js", "let s={name:'t'}; s.self=s; export default s;")]);
        let err = engine(&dir).evaluate("t").unwrap_err();
        assert_eq!(err.category(), "exception", "{err}");
    }

    #[test]
    fn versioned_specs_name_their_newest_module() {
        let dir = package(&[(
            "v/index.js",
            "const vs=['1.0.0','2.0.0']; export default async (v) => ({versionedSpecPath: 'v/' + vs[vs.length-1], version: v});",
        )]);
        assert_eq!(
            engine(&dir).evaluate("v").unwrap(),
            Export::Versioned("v/2.0.0".into())
        );
    }
}
