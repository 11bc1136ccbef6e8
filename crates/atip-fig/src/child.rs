//! Evaluating spec modules in a child process: a hard kill at the time limit and limits on the
//! whole process, because QuickJS's own limits do not hold for every spec.
//!
//! QuickJS checks its interrupt handler between bytecode instructions, not inside every
//! built-in: `Array.prototype.reverse.call({length: 2**53-1})`,
//! `Array.prototype.copyWithin.call({length: 2**53-1}, 0, 1)` or sorting a sparse array of
//! length 2³²−1 run for ever inside one call. Its memory limit covers the JavaScript heap only,
//! not what the embedding copies out. A spec is untrusted code, so [`Isolation::ChildProcess`]
//! evaluates modules in child processes:
//!
//! * the parent starts `program args…` (no shell, a session of its own: `atip-spawn`), writes
//!   a request (one line) on the child's standard input and reads the reply from its standard
//!   output: a header line of at most [`MAX_HEADER_BYTES`] and a spec of at most
//!   [`MAX_SPEC_JSON_BYTES`], never more buffered;
//! * the child ([`serve`]) reads requests (each at most [`MAX_REQUEST_BYTES`]; nothing else:
//!   no arguments, no environment) and, before evaluating one, limits itself — `RLIMIT_AS` to
//!   what it mapped when it started plus [`Limits::memory_bytes`] plus
//!   [`ADDRESS_SPACE_HEADROOM`] (Linux), `RLIMIT_CPU` to the CPU time it has used plus the
//!   time limit, rounded up to seconds, plus one second (`SIGXCPU` ends it), `RLIMIT_CORE` 0
//!   — then evaluates the module exactly as [`Engine::evaluate`] does and writes the reply;
//! * the parent kills the child (`SIGKILL`) when [`Limits::time`] has passed since it sent the
//!   request, and turns whatever happened into an [`EvalError`]: killed at the limit or out of
//!   CPU time is [`EvalError::Timeout`], an allocation that failed against the process limit is
//!   [`EvalError::OutOfMemory`], any other death, exit status or garbled reply is
//!   [`EvalError::Child`] with what the child wrote on stderr. Never a panic, never a hang.
//!
//! A child serves one module at a time, for one [`Importer`](crate::Importer) (its threads
//! share its idle children), and is replaced by a fresh one after any failure — an error of
//! any kind, its own or its module's — and after [`REQUESTS_PER_CHILD`] modules. Measured on
//! all of @withfig/autocomplete 2.692.3 (727 specs, 1,479 modules evaluated; release `atip`,
//! 2 threads): a process per module cost 35–45% more CPU time than evaluating in-process
//! (1,480 processes, each faulting in its program and a fresh heap), a child per 128 modules
//! 7–10% (13 processes). The modules that share a child come from the same package, whose
//! author writes every spec in it anyway. [`Isolation::evaluate`] starts a child for one
//! module.
//!
//! # Who the child is
//!
//! A library cannot assume that the program it is linked into can evaluate JavaScript when
//! started again, so the program is named: [`Isolation::ChildProcess`] holds the program and
//! the arguments that make it call [`serve`] (and nothing else). The `atip` binary does it
//! with a hidden subcommand, `atip __fig-eval`, and `atip import fig` always uses
//! `Isolation::current_exe(["__fig-eval"])`. A program of your own does the same:
//!
//! ```no_run
//! use atip_fig::{ImportOptions, Importer, Isolation, Package};
//!
//! fn main() -> std::process::ExitCode {
//!     // The child: started with this one argument, it serves requests until its input ends.
//!     let mut args = std::env::args_os();
//!     if args.len() == 2 && args.nth(1).is_some_and(|a| a == "__fig-eval") {
//!         return atip_fig::child::serve();
//!     }
//!     let options = ImportOptions {
//!         isolation: Isolation::current_exe(["__fig-eval"]).expect("the running program"),
//!         ..ImportOptions::default()
//!     };
//!     let package = Package::open("package".as_ref()).unwrap();
//!     let importer = Importer::new(package, options).unwrap();
//!     println!("{}", importer.import("gh").unwrap().to_json_pretty());
//!     std::process::ExitCode::SUCCESS
//! }
//! ```
//!
//! [`Isolation::InProcess`] (the default of [`ImportOptions`](crate::ImportOptions), since a
//! library knows no such program) evaluates in the calling process: no child, no kill, and
//! none of the protection above.
//!
//! # Platforms
//!
//! The process limits are set on Unix only, and the address-space limit only where the child
//! can read what it maps (`/proc/self/status`: Linux). Elsewhere the child is still started,
//! read within the same caps and killed at the time limit, but its memory (and off Unix its CPU
//! time) is not limited beyond what QuickJS itself checks: a runaway allocation there can take
//! the machine's memory until the kill at the time limit.
//!
//! # Protocol (version [`PROTOCOL`])
//!
//! A request is one line, a JSON object: `{"protocol": 1, "root": "/…/package/build",
//! "module": "az/2.53.0.js", "memory_bytes": 536870912, "time_ms": 20000, "stack_bytes":
//! 1048576}` — the canonical build directory (UTF-8) and the module as [`Engine`] resolves it.
//! A reply is a header line, a JSON object, then for a spec its JSON text of exactly `bytes`
//! bytes: `{"protocol": 1, "result": "spec", "bytes": 5230}`, `{"protocol": 1, "result":
//! "versioned", "path": "az/2.53.0"}` or `{"protocol": 1, "result": "error", "category":
//! "exception", "detail": "TypeError: …"}` (the category of the [`EvalError`]; the detail is
//! its reason, message or what was found, empty for limits, whose figures the parent knows).
//! The child ends when its standard input does, or after answering a request it could not read.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use serde_json::{json, Value};

use crate::engine::{Engine, EvalError, Evaluated, Export, Limits, MAX_SPEC_JSON_BYTES};

mod parent;
mod serve;
#[cfg(test)]
mod tests;

pub use serve::serve;

/// The version of the requests and replies spoken between the importer and its child: 1.
pub const PROTOCOL: u64 = 1;

/// Largest request the child reads, its newline included: 64 KiB (a request holds a path and
/// a module name).
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// Largest header line of a reply the parent reads, its newline included: 64 KiB. The spec
/// that follows it is at most [`MAX_SPEC_JSON_BYTES`]; a child that announces or writes more is
/// an [`EvalError::Child`] naming the cap, and is killed without being read further.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

/// Most modules one child evaluates before a fresh one takes its place: 128.
pub const REQUESTS_PER_CHILD: usize = 128;

/// Address space the child may use beyond [`Limits::memory_bytes`] and beyond what it maps
/// when it starts, in bytes: 128 MiB.
///
/// `RLIMIT_AS` is set to the address space the child maps when it starts (on Linux: the
/// program's code and libraries, and what its allocator reserved up front — `atip`, with
/// mimalloc, maps about 1,055 MiB, 1 GiB of it a reserved arena that is mostly never touched)
/// plus [`Limits::memory_bytes`] plus this headroom, which covers the spec's JSON copied out
/// of the engine (at most [`MAX_SPEC_JSON_BYTES`]) and the C heap's own overhead around the
/// engine's allocations. Measured with `atip`: evaluating the largest module of
/// @withfig/autocomplete 2.692.3 (`gcloud/compute.js`, 4 MiB) grows the address space by
/// 12 MiB and peaks at 30 MiB resident; a spec building a 150 MiB string grows it by 450 MiB.
pub const ADDRESS_SPACE_HEADROOM: usize = 128 * 1024 * 1024;

/// Where spec modules are evaluated.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Isolation {
    /// In the calling process, as [`Engine::evaluate`] does: the time limit holds only where
    /// QuickJS checks it (not inside some built-ins, which can then run for ever) and the
    /// memory limit covers the JavaScript heap only. For specs you trust; the default of
    /// [`ImportOptions`](crate::ImportOptions) only because a library knows no program to
    /// start as its child.
    #[default]
    InProcess,
    /// In child processes started as `program args…` without a shell, which must call
    /// [`serve`] and nothing else (see the [module](self) documentation): killed at the time
    /// limit, their memory, CPU time and core dumps limited on Unix.
    ChildProcess {
        /// The program to start (a path; looked up on `PATH` when it is a bare name).
        program: PathBuf,
        /// Its arguments, e.g. `["__fig-eval"]`.
        args: Vec<OsString>,
    },
}

impl Isolation {
    /// A child process that is the running program again, started with `args`
    /// ([`std::env::current_exe`]); the program must answer those arguments with [`serve`].
    ///
    /// # Errors
    ///
    /// The error of [`std::env::current_exe`] when the running program's path is unknown.
    pub fn current_exe<I, S>(args: I) -> std::io::Result<Isolation>
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Ok(Isolation::ChildProcess {
            program: std::env::current_exe()?,
            args: args.into_iter().map(Into::into).collect(),
        })
    }

    /// Evaluates the module `name` of `engine`'s package (as [`Engine::evaluate`] names it)
    /// here, or in a child started for it alone, under `engine`'s limits. (An
    /// [`Importer`](crate::Importer) keeps its children for many modules.)
    ///
    /// # Errors
    ///
    /// The [`EvalError`]s of [`Engine::evaluate`]; in a child also [`EvalError::Timeout`]
    /// when it was killed at the time limit or ran out of CPU time,
    /// [`EvalError::OutOfMemory`] when an allocation failed against its address-space limit,
    /// and [`EvalError::Child`] when it could not be started, died otherwise or gave no usable
    /// reply.
    pub fn evaluate(&self, engine: &Engine, name: &str) -> Result<Export, EvalError> {
        Pool::default().evaluate(self, engine, name)
    }
}

/// The idle children of one importer, each alive and ready for its next request.
#[derive(Default)]
pub(crate) struct Pool {
    idle: Mutex<Vec<parent::Worker>>,
}

impl Pool {
    /// Evaluates `name` as `isolation` says: in a child of the pool, or a new one; the child
    /// goes back to the pool unless anything failed or it has served its share.
    pub(crate) fn evaluate(
        &self,
        isolation: &Isolation,
        engine: &Engine,
        name: &str,
    ) -> Result<Export, EvalError> {
        let Isolation::ChildProcess { program, args } = isolation else {
            return engine.evaluate(name);
        };
        let request = Request {
            root: engine.root().to_path_buf(),
            module: engine.module_path(name)?,
            limits: engine.limits(),
        };
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut worker = match idle {
            Some(w) => w,
            None => parent::Worker::start(program, args).map_err(|reason| EvalError::Child {
                module: request.module.clone(),
                reason,
            })?,
        };
        let result = worker.evaluate(&request);
        if result.is_ok() && worker.served() < REQUESTS_PER_CHILD {
            self.idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(worker);
        }
        // Otherwise the worker is dropped here: its child ended (or killed) and reaped.
        result
    }
}

impl Clone for Pool {
    /// An empty pool: children are not shared between importers.
    fn clone(&self) -> Pool {
        Pool::default()
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let idle = self.idle.lock().map_or(0, |v| v.len());
        write!(f, "Pool {{ idle: {idle} }}")
    }
}

/// What the child is asked to evaluate.
#[derive(Debug, Clone, PartialEq)]
struct Request {
    /// The package's build directory, canonical.
    root: PathBuf,
    /// The module, resolved (`gh.js`).
    module: String,
    limits: Limits,
}

impl Request {
    /// The request as one line of JSON; an error when the root is not UTF-8.
    fn encode(&self) -> Result<Vec<u8>, EvalError> {
        let root = self.root.to_str().ok_or_else(|| EvalError::Load {
            module: self.module.clone(),
            reason: format!(
                "the package path {} is not UTF-8, which a child process is not sent",
                self.root.display()
            ),
        })?;
        let v = json!({
            "protocol": PROTOCOL,
            "root": root,
            "module": self.module,
            "memory_bytes": self.limits.memory_bytes,
            "time_ms": u64::try_from(self.limits.time.as_millis()).unwrap_or(u64::MAX),
            "stack_bytes": self.limits.stack_bytes,
        });
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        Ok(line)
    }

    fn decode(bytes: &[u8]) -> Result<Request, String> {
        let v: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
        if v["protocol"].as_u64() != Some(PROTOCOL) {
            return Err(format!(
                "protocol {} asked, {PROTOCOL} spoken",
                v["protocol"]
            ));
        }
        let text = |k: &str| {
            v[k].as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("no `{k}`"))
        };
        let number = |k: &str| v[k].as_u64().ok_or_else(|| format!("no `{k}`"));
        let size = |k: &str| number(k).map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        Ok(Request {
            root: PathBuf::from(text("root")?),
            module: text("module")?,
            limits: Limits {
                memory_bytes: size("memory_bytes")?,
                time: std::time::Duration::from_millis(number("time_ms")?),
                stack_bytes: size("stack_bytes")?,
            },
        })
    }
}

/// The header line of the reply for `result`, its newline included.
fn reply_header(result: &Result<Evaluated, EvalError>) -> Vec<u8> {
    let v = match result {
        Ok(Evaluated::Json(text)) => {
            json!({"protocol": PROTOCOL, "result": "spec", "bytes": text.len()})
        }
        Ok(Evaluated::Versioned(path)) => {
            json!({"protocol": PROTOCOL, "result": "versioned", "path": path})
        }
        Err(e) => {
            let detail = match e {
                EvalError::Load { reason, .. } | EvalError::Child { reason, .. } => reason.clone(),
                EvalError::Exception { message, .. } => message.clone(),
                EvalError::NoSpec { found, .. } => found.clone(),
                EvalError::Timeout { .. }
                | EvalError::OutOfMemory { .. }
                | EvalError::SpecTooLarge { .. } => String::new(),
            };
            json!({"protocol": PROTOCOL, "result": "error", "category": e.category(), "detail": detail})
        }
    };
    let mut out = v.to_string().into_bytes();
    out.push(b'\n');
    out
}

/// The export or error that a reply's header and body stand for, about `module` evaluated
/// under `limits`; `Err(what was wrong)` when it is no reply.
fn decode_reply(
    header: &Value,
    body: &[u8],
    module: &str,
    limits: Limits,
) -> Result<Result<Export, EvalError>, String> {
    if header["protocol"].as_u64() != Some(PROTOCOL) {
        return Err(format!(
            "protocol {} spoken, {PROTOCOL} expected",
            header["protocol"]
        ));
    }
    let text = |k: &str| {
        header[k]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("no `{k}` in the header"))
    };
    let module = module.to_owned();
    Ok(match header["result"].as_str() {
        Some("spec") => {
            let body =
                std::str::from_utf8(body).map_err(|e| format!("a spec that is not UTF-8: {e}"))?;
            crate::engine::spec_from_json(&module, body)
        }
        Some("versioned") => Ok(Export::Versioned(text("path")?)),
        Some("error") => {
            let detail = text("detail")?;
            Err(match text("category")?.as_str() {
                "load" => EvalError::Load {
                    module,
                    reason: detail,
                },
                "exception" => EvalError::Exception {
                    module,
                    message: detail,
                },
                "no-spec" => EvalError::NoSpec {
                    module,
                    found: detail,
                },
                "timeout" => EvalError::Timeout {
                    module,
                    limit: limits.time,
                },
                "memory" => EvalError::OutOfMemory {
                    module,
                    limit: limits.memory_bytes,
                },
                "too-large" => EvalError::SpecTooLarge {
                    module,
                    limit: MAX_SPEC_JSON_BYTES,
                },
                "child" => EvalError::Child {
                    module,
                    reason: detail,
                },
                other => return Err(format!("an unknown category {other:?}")),
            })
        }
        _ => return Err(format!("an unknown result {}", header["result"])),
    })
}
