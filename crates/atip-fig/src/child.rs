//! Evaluating spec modules in a child process: a hard kill at the time limit and limits on the
//! whole process, because QuickJS's own limits do not hold for every spec.
//!
//! QuickJS checks its interrupt handler between bytecode instructions, not inside every
//! built-in: `Array.prototype.reverse.call({length: 2**53-1})`,
//! `Array.prototype.copyWithin.call({length: 2**53-1}, 0, 1)` or sorting a sparse array of
//! length 2³²−1 run for ever inside one call. Its memory limit covers the JavaScript heap only,
//! not what the embedding copies out. A spec is untrusted code, so [`Isolation::ChildProcess`]
//! evaluates each module in a child process of its own:
//!
//! * the parent starts `program args…` (no shell), writes one request on the child's standard
//!   input and closes it, and reads the reply from its standard output — at most
//!   [`MAX_REPLY_BYTES`], never more buffered;
//! * the child ([`serve`]) reads the request (at most [`MAX_REQUEST_BYTES`]; nothing else: no
//!   arguments, no environment), sets its own limits — `RLIMIT_AS` to what it already maps
//!   plus [`Limits::memory_bytes`] plus [`ADDRESS_SPACE_HEADROOM`] (Linux), `RLIMIT_CPU` to
//!   the time limit rounded up to seconds plus one (`SIGXCPU`, then `SIGKILL` a second
//!   later), `RLIMIT_CORE` 0 — then evaluates the module exactly as [`Engine::evaluate`] does
//!   and writes the reply;
//! * the parent kills the child (`SIGKILL`) when [`Limits::time`] has passed since it was
//!   started, and turns whatever happened into an [`EvalError`]: killed at the limit or out of
//!   CPU time is [`EvalError::Timeout`], an allocation that failed against the process limit is
//!   [`EvalError::OutOfMemory`], any other death, exit status or garbled reply is
//!   [`EvalError::Child`] with what the child wrote on stderr. Never a panic, never a hang.
//!
//! One child per module evaluated: a fresh process, fresh limits (`RLIMIT_CPU` counts for the
//! whole life of a process), nothing left over from a spec that misbehaved.
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
//!     // The child: started with this one argument, it serves one request and exits.
//!     if std::env::args_os().nth(1).is_some_and(|a| a == "__fig-eval") {
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
//! can read what it already maps (`/proc/self/status`: Linux). Elsewhere the child is still
//! started, read with the same cap and killed at the time limit, but its memory (and off Unix
//! its CPU time) is not limited beyond what QuickJS itself checks; a runaway allocation there
//! can take the machine's memory until the kill at the time limit.
//!
//! # Protocol (version [`PROTOCOL`])
//!
//! The request is one JSON object: `{"protocol": 1, "root": "/…/package/build", "module":
//! "az/2.53.0.js", "memory_bytes": 536870912, "time_ms": 20000, "stack_bytes": 1048576}` —
//! the canonical build directory (UTF-8) and the module as [`Engine`] resolves it. The reply is
//! a header line, one JSON object, then for a spec the spec's JSON text up to the end:
//! `{"protocol": 1, "result": "spec"}`, `{"protocol": 1, "result": "versioned", "path":
//! "az/2.53.0"}` or `{"protocol": 1, "result": "error", "category": "exception", "detail":
//! "TypeError: …"}` (the category of the [`EvalError`]; the detail is its reason, message or
//! what was found, empty for limits, whose figures the parent knows).

use std::ffi::OsString;
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::engine::{Engine, EvalError, Export, Limits, MAX_SPEC_JSON_BYTES};

mod parent;
mod serve;
#[cfg(test)]
mod tests;

pub use serve::serve;

/// The version of the request and reply spoken between the importer and its child: 1.
pub const PROTOCOL: u64 = 1;

/// Largest request the child reads from its standard input: 64 KiB (a request holds a path
/// and a module name).
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// Largest reply the parent reads from the child: [`MAX_SPEC_JSON_BYTES`] plus 64 KiB for the
/// header line. A longer reply is an [`EvalError::Child`] naming the cap, and the child is
/// killed as soon as the cap is passed.
pub const MAX_REPLY_BYTES: usize = MAX_SPEC_JSON_BYTES + 64 * 1024;

/// Address space the child may use beyond [`Limits::memory_bytes`] and beyond what it maps
/// before evaluating anything, in bytes: 128 MiB.
///
/// `RLIMIT_AS` is set to the address space the child maps when it has read its request (on
/// Linux; the program's code and libraries, and what its allocator reserved up front:
/// `atip` with mimalloc maps about 1,055 MiB, 1 GiB of it a reserved arena that is mostly never
/// touched) plus [`Limits::memory_bytes`] plus this headroom, which covers the spec's JSON
/// copied out of the engine (at most [`MAX_SPEC_JSON_BYTES`]) and the C heap's own overhead
/// around the engine's allocations. Measured with `atip`: evaluating the largest module of
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
    /// In a child process per module, started as `program args…` without a shell, which must
    /// call [`serve`] and nothing else (see the [module](self) documentation): killed at the
    /// time limit, its memory, CPU time and core dumps limited on Unix.
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
    /// here or in a child, under `engine`'s limits.
    ///
    /// # Errors
    ///
    /// The [`EvalError`]s of [`Engine::evaluate`]; in a child also [`EvalError::Timeout`]
    /// when it was killed at the time limit or ran out of CPU time,
    /// [`EvalError::OutOfMemory`] when an allocation failed against its address-space limit,
    /// and [`EvalError::Child`] when it could not be started, died otherwise or gave no usable
    /// reply.
    pub fn evaluate(&self, engine: &Engine, name: &str) -> Result<Export, EvalError> {
        match self {
            Isolation::InProcess => engine.evaluate(name),
            Isolation::ChildProcess { program, args } => {
                let module = engine.module_path(name)?;
                let request = Request {
                    root: engine.root().to_path_buf(),
                    module,
                    limits: engine.limits(),
                };
                parent::evaluate(program, args, &request)
            }
        }
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
    /// The request as JSON bytes; an error when the root is not UTF-8.
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
        Ok(v.to_string().into_bytes())
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

/// The header line of a reply for `result`, ending in a newline.
fn reply_header(result: &Result<crate::engine::Evaluated, EvalError>) -> Vec<u8> {
    use crate::engine::Evaluated;
    let v = match result {
        Ok(Evaluated::Json(_)) => json!({"protocol": PROTOCOL, "result": "spec"}),
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

/// The export or error a reply (header line and body) stands for, about `module` evaluated
/// under `limits`; `Err(reason)` when it is no reply.
fn decode_reply(
    reply: &[u8],
    module: &str,
    limits: Limits,
) -> Result<Result<Export, EvalError>, String> {
    let newline = reply
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| "no header line".to_owned())?;
    let (header, body) = (&reply[..newline], &reply[newline + 1..]);
    let v: Value =
        serde_json::from_slice(header).map_err(|e| format!("a header that is not JSON: {e}"))?;
    if v["protocol"].as_u64() != Some(PROTOCOL) {
        return Err(format!(
            "protocol {} spoken, {PROTOCOL} expected",
            v["protocol"]
        ));
    }
    let text = |k: &str| {
        v[k].as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("no `{k}` in the header"))
    };
    let module = module.to_owned();
    Ok(match v["result"].as_str() {
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
        _ => return Err(format!("an unknown result {}", v["result"])),
    })
}
