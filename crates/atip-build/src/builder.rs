//! The `build.rs` front-end.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use atip_core::{Diagnostic, JsonPath, LoadError, LoadOptions};

use crate::options::option_setters;
use crate::{expand, Options};
use atip_core::discover::{discover, DiscoverError, DEFAULT_DISCOVER_TIMEOUT};

/// Where an input's metadata comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    File(PathBuf),
    Discover {
        tool: String,
        fallback: Option<PathBuf>,
        timeout: Duration,
    },
}

/// One metadata source to generate code for: a file, or a tool asked with `--agent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    source: Source,
    /// The generator's options for this input; [`Options::file`] is set when it is read.
    options: Options,
}

impl Input {
    /// A metadata file, relative to the package root (build scripts run there) or absolute.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Input {
            source: Source::File(path.into()),
            options: Options::new(),
        }
    }

    /// The metadata `tool --agent` prints at build time (spec §3.1), run under a 5 s limit
    /// without stdin and validated strictly; it is written to `$OUT_DIR/atip/<tool>.agent.json`.
    /// When the tool is not installed, the [`Input::fallback`] file is used instead; when it
    /// runs but fails, hangs or prints invalid metadata, the fallback is used with a warning
    /// saying why. The build script reruns when `PATH` or the file the tool resolves to
    /// changes (installed, upgraded, replaced).
    pub fn discover(tool: impl Into<String>) -> Self {
        Input {
            source: Source::Discover {
                tool: tool.into(),
                fallback: None,
                timeout: DEFAULT_DISCOVER_TIMEOUT,
            },
            options: Options::new(),
        }
    }

    /// For [`Input::discover`]: the checked-in metadata to use when the tool is absent or gives
    /// no usable metadata.
    pub fn fallback(mut self, path: impl Into<PathBuf>) -> Self {
        if let Source::Discover { fallback, .. } = &mut self.source {
            *fallback = Some(path.into());
        }
        self
    }

    /// For [`Input::discover`]: the time limit for `tool --agent`.
    pub fn discover_timeout(mut self, limit: Duration) -> Self {
        if let Source::Discover { timeout, .. } = &mut self.source {
            *timeout = limit;
        }
        self
    }

    /// Generates this input with `options` (all of them at once; the setters below set one
    /// each). Its [`Options::file`] is replaced by the input's name.
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }
}

/// Defines the setters of [`Options`] on [`Input`], each setting the input's options.
macro_rules! input_setters {
    ($($(#[$doc:meta])* fn $name:ident($self:ident $(, $arg:ident: $ty:ty)*) $body:block)*) => {
        impl Input {
            $(
                $(#[$doc])*
                #[must_use]
                pub fn $name(mut self $(, $arg: $ty)*) -> Self {
                    self.options = self.options.$name($($arg),*);
                    self
                }
            )*
        }
    };
}

option_setters!(input_setters);

impl<P: Into<PathBuf>> From<P> for Input {
    fn from(path: P) -> Self {
        Input::new(path)
    }
}

/// Generates typed modules from `build.rs`.
///
/// ```no_run
/// // in build.rs, inside `fn main()`:
/// atip_build::Builder::new()
///     .input("atip/git.json")
///     .input(atip_build::Input::new("atip/gh.json").commands(["pr", "repo delete"]))
///     .generate_or_exit();
/// ```
///
/// and in the crate:
///
/// ```text
/// mod git {
///     include!(concat!(env!("OUT_DIR"), "/atip/git.rs"));
/// }
/// ```
///
/// Each input becomes `$OUT_DIR/atip/<tool>.rs`, formatted with prettyplease behind an
/// `@generated` header, byte-identical to `atip gen`. Files are only rewritten when their
/// content changes, and cargo is told to rerun the script when an input changes.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    inputs: Vec<Input>,
    out_dir: Option<PathBuf>,
    cargo_directives: Option<bool>,
}

/// One written module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// The tool's `name`.
    pub tool: String,
    /// The file written, `<out_dir>/atip/<tool>.rs`.
    pub path: PathBuf,
    /// Whether the file content changed (and was written).
    pub changed: bool,
    /// Warnings about the input, rendered `file:line:col: warning: $.path: message`.
    pub warnings: Vec<String>,
}

/// Why generation failed: every error of every input.
#[derive(Debug)]
pub struct BuildError {
    /// One entry per failing input.
    pub errors: Vec<LoadError>,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl BuildError {
    /// Every error (and warning) of every input in rustc's layout
    /// ([`Diagnostic::render_rustc`]), errors first.
    pub fn render_rustc(&self) -> String {
        let mut out = String::new();
        for e in &self.errors {
            for d in e.errors().chain(e.warnings()) {
                out.push_str(&d.render_rustc(e.file.as_deref()));
            }
        }
        out
    }
}

impl std::error::Error for BuildError {
    /// The first input's error (all of them are in [`BuildError::errors`] and the message).
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.errors
            .first()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl Builder {
    /// An empty builder.
    pub fn new() -> Self {
        Builder::default()
    }

    /// Adds a metadata file (a path, or an [`Input`] with a command filter or program).
    pub fn input(mut self, input: impl Into<Input>) -> Self {
        self.inputs.push(input.into());
        self
    }

    /// Adds the metadata `tool --agent` prints (see [`Input::discover`]).
    pub fn discover(self, tool: impl Into<String>) -> Self {
        self.input(Input::discover(tool))
    }

    /// Writes under `dir` instead of `$OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Whether to print `cargo:rerun-if-changed` and `cargo:warning` lines. Default: when
    /// running in a build script (`OUT_DIR` is set).
    pub fn cargo_directives(mut self, emit: bool) -> Self {
        self.cargo_directives = Some(emit);
        self
    }

    /// Generates every input and writes the changed modules.
    ///
    /// # Errors
    ///
    /// [`BuildError`] with the diagnostics of every input that failed (nothing is written
    /// then), including two inputs for the same tool and an unset `OUT_DIR`.
    pub fn generate(self) -> Result<Vec<GeneratedFile>, BuildError> {
        let cargo = self
            .cargo_directives
            .unwrap_or_else(|| std::env::var_os("OUT_DIR").is_some());
        let out_dir = match self
            .out_dir
            .clone()
            .or_else(|| std::env::var_os("OUT_DIR").map(PathBuf::from))
        {
            Some(d) => d.join("atip"),
            None => return Err(single_error(
                None,
                "OUT_DIR is not set: call Builder::generate from build.rs or set Builder::out_dir"
                    .to_owned(),
            )),
        };

        let mut rendered: Vec<(String, String, Vec<String>)> = Vec::new();
        let mut errors = Vec::new();
        for input in &self.inputs {
            let (display, text, notes) = match self.read_source(&input.source, &out_dir, cargo) {
                Ok(v) => v,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            let gen_options = input.options.clone().file(display.clone());
            match expand(&text, &gen_options) {
                Ok(exp) => {
                    if rendered.iter().any(|(tool, _, _)| *tool == exp.tool) {
                        errors.push(file_error(
                            Some(display.clone()),
                            format!(
                                "another input also describes the tool `{}`; each tool is generated \
                                 once, as atip/{}.rs",
                                exp.tool, exp.tool
                            ),
                        ));
                        continue;
                    }
                    let warnings = notes
                        .into_iter()
                        .chain(exp.warnings.iter().map(|w| w.render(Some(&display))))
                        .collect();
                    let source = exp.to_source(&display);
                    rendered.push((exp.tool, source, warnings));
                }
                Err(e) => errors.push(e),
            }
        }
        if !errors.is_empty() {
            return Err(BuildError { errors });
        }

        let mut out = Vec::new();
        for (tool, source, warnings) in rendered {
            let path = out_dir.join(format!("{tool}.rs"));
            let changed = write_if_changed(&path, &source).map_err(|e| {
                single_error(
                    Some(path.display().to_string()),
                    format!("cannot write: {e}"),
                )
            })?;
            if cargo {
                for w in &warnings {
                    println!("cargo:warning={w}");
                }
            }
            out.push(GeneratedFile {
                tool,
                path,
                changed,
                warnings,
            });
        }
        Ok(out)
    }

    /// The metadata text of a source, the name to report it under, and warnings about how it
    /// was obtained (a discovery that fell back to the checked-in file).
    fn read_source(
        &self,
        source: &Source,
        out_dir: &Path,
        cargo: bool,
    ) -> Result<(String, String, Vec<String>), LoadError> {
        let read_file = |path: &Path| {
            let display = path.display().to_string();
            if cargo {
                println!("cargo:rerun-if-changed={display}");
            }
            let options = LoadOptions::strict().with_file(display.clone());
            atip_core::load::read_text(path, &options).map(|t| (display, t))
        };
        match source {
            Source::File(path) => read_file(path).map(|(d, t)| (d, t, Vec::new())),
            Source::Discover {
                tool,
                fallback,
                timeout,
            } => {
                if cargo {
                    println!("cargo:rerun-if-env-changed=PATH");
                    // Rerun when the tool is installed, upgraded or replaced: cargo watches the
                    // file it resolves to (and a missing one, so installing it reruns too).
                    let here = std::env::current_dir().unwrap_or_default();
                    let resolved = which::which_in(tool, std::env::var_os("PATH"), here)
                        .unwrap_or_else(|_| PathBuf::from(tool));
                    println!("cargo:rerun-if-changed={}", resolved.display());
                }
                match (discover(tool, *timeout), fallback) {
                    (Ok(text), _) => {
                        let path = out_dir.join(format!("{}.agent.json", file_stem(tool)));
                        write_if_changed(&path, &text).map_err(|e| {
                            file_error(
                                Some(path.display().to_string()),
                                format!("cannot write: {e}"),
                            )
                        })?;
                        Ok((format!("{tool} --agent"), text, Vec::new()))
                    }
                    (Err(DiscoverError::NotFound { .. }), Some(fallback)) => {
                        read_file(fallback).map(|(d, t)| (d, t, Vec::new()))
                    }
                    // The tool is there but gave nothing usable: the checked-in file still
                    // describes it, and the build says why it was used.
                    (Err(e), Some(fallback)) => {
                        let (display, text) = read_file(fallback)?;
                        let note = format!(
                            "{}: `{tool} --agent` gave no usable metadata, so the fallback file \
                             is used: {}",
                            display,
                            first_line(&e.to_string())
                        );
                        Ok((display, text, vec![note]))
                    }
                    (Err(DiscoverError::Invalid(e)), None) => Err(e),
                    (Err(e), None) => Err(file_error(
                        Some(format!("{tool} --agent")),
                        match &e {
                            DiscoverError::NotFound { .. } => {
                                format!("{e}, and no fallback file was given (Input::fallback)")
                            }
                            _ => e.to_string(),
                        },
                    )),
                }
            }
        }
    }

    /// [`Builder::generate`] for build scripts: on failure prints every diagnostic to stderr
    /// in rustc's layout (`error: …`, `--> file:line:col`, `= note: at $.json.path`) and exits
    /// with status 1, which fails the build with the diagnostics shown.
    pub fn generate_or_exit(self) -> Vec<GeneratedFile> {
        match self.generate() {
            Ok(g) => g,
            Err(e) => {
                eprint!("{}", e.render_rustc());
                std::process::exit(1);
            }
        }
    }
}

/// The first line of a message (a validation error lists every diagnostic on its own line).
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// The last path component of a tool given as a path (`/usr/bin/gh` → `gh`).
fn file_stem(tool: &str) -> String {
    Path::new(tool)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| tool.to_owned())
}

fn file_error(file: Option<String>, message: String) -> LoadError {
    LoadError {
        file,
        diagnostics: vec![Diagnostic::error(JsonPath::root(), message)],
    }
}

fn single_error(file: Option<String>, message: String) -> BuildError {
    BuildError {
        errors: vec![file_error(file, message)],
    }
}

fn write_if_changed(path: &Path, content: &str) -> std::io::Result<bool> {
    if std::fs::read(path).ok().as_deref() == Some(content.as_bytes()) {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, content)?;
    Ok(true)
}
