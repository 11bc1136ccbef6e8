//! Building the argument vector of a command, without a shell.
//!
//! The order is fixed (see DESIGN "argv"): program, global options, subcommand path, options
//! (inherited first, outermost level first, each level in declaration order), then positional
//! arguments. Long flags carry their value attached (`--flag=value`, so a value starting with
//! `-` can never be read as another flag); short and single-dash flags take the value as the
//! next element (`-C dir`); a `true` boolean is the bare flag; a list repeats the flag once per
//! value. When any positional value starts with `-`, `--` goes before the positionals so the
//! tool cannot read it as an option.
//!
//! Problems with values (NUL bytes, which no OS argv can carry; non-finite numbers; URLs
//! without a scheme; empty required lists; a positional given after an omitted one, which would
//! shift into the omitted one's slot) are collected, all of them, and returned by
//! [`ArgvBuilder::finish`].
//!
//! Writers announce each parameter with [`ArgvBuilder::parameter`] before writing its values;
//! the builder then records every value under the parameter's name
//! ([`ArgvBuilder::finish_recorded`]), so that the policy can judge arguments by parameter
//! (spec §11.2) without parsing the argv back.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};

use atip_core::shared::Shared;

/// Accumulates an argv. Generated `write_argv` methods and the run-time path both drive it.
#[derive(Debug, Clone)]
pub struct ArgvBuilder {
    argv: Vec<OsString>,
    positionals: Vec<OsString>,
    problems: Vec<ArgvProblem>,
    /// The parameter whose values are being written, if a writer announced one.
    current: Option<(Shared<str>, bool)>,
    /// How many of the last marks belong to `current` and wait for its name.
    unnamed: usize,
    /// Where each value written for an announced parameter went; the values are copied out
    /// only when they are asked for ([`ArgvBuilder::finish_recorded`]), so an argv built for
    /// display or a plain `finish` allocates nothing for them.
    marks: Vec<Mark>,
    /// Whether values are recorded at all ([`ArgvBuilder::recorded`]).
    recording: bool,
    /// The first positional left out, if any: a later positional would take its slot.
    omitted: Option<String>,
}

/// One value a parameter put on the command line: what argument rules (spec §11.2) judge.
///
/// A list parameter gives one `ArgumentValue` per item; a `true` boolean flag gives the value
/// `"true"`. `param` is the provider parameter name (`dry_run`, the name a model sends).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentValue {
    /// Provider parameter name.
    pub param: Shared<str>,
    /// The value as it went into the argv (without the flag); borrowed for a flag's `true`,
    /// which costs no allocation.
    pub value: Cow<'static, OsStr>,
    /// The parameter is a `file` or `directory` (ATIP type): its values are paths.
    pub path: bool,
}

/// A value that can be placed on a command line.
pub trait ToArgument {
    /// The value as one argv element.
    ///
    /// # Errors
    ///
    /// [`ValueProblem`] when the value cannot be written as an argument (e.g. `NaN`).
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem>;
}

/// Why a single value cannot be an argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueProblem {
    /// A number that is `NaN` or infinite.
    NotFinite,
    /// A URL without a scheme, or with whitespace or control characters (the value given).
    InvalidUrl(String),
}

/// One problem found while building an argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgvProblem {
    /// The value of `param` contains a NUL byte, which no process argument can hold.
    Nul {
        /// The flag or argument name.
        param: String,
    },
    /// The value of `param` is `NaN` or infinite.
    NotFinite {
        /// The flag or argument name.
        param: String,
    },
    /// The value of `param` is not an absolute URL.
    InvalidUrl {
        /// The flag or argument name.
        param: String,
        /// The value, lossily converted to UTF-8.
        value: String,
    },
    /// The required list `param` is empty.
    MissingValues {
        /// The argument or flag name.
        param: String,
    },
    /// The positional `param` has a value but the positional `omitted` before it has none: on
    /// the command line the value would land in `omitted`'s slot.
    PositionalAfterOmitted {
        /// The positional that was given.
        param: String,
        /// The earlier positional that was left out.
        omitted: String,
    },
}

impl fmt::Display for ArgvProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgvProblem::Nul { param } => write!(f, "the value of {param} contains a NUL byte"),
            ArgvProblem::NotFinite { param } => {
                write!(f, "the value of {param} is not a finite number")
            }
            ArgvProblem::InvalidUrl { param, value } => {
                write!(f, "the value of {param} is not an absolute URL: {value:?}")
            }
            ArgvProblem::MissingValues { param } => {
                write!(f, "{param} is required and needs at least one value")
            }
            ArgvProblem::PositionalAfterOmitted { param, omitted } => write!(
                f,
                "{param} is given but {omitted}, the positional argument before it, is not: \
                 positionals are filled in order, so the value would be read as {omitted}; \
                 give {omitted} too"
            ),
        }
    }
}

/// Every problem that kept an argv from being built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgvError {
    /// The problems, in argv order; never empty.
    pub problems: Vec<ArgvProblem>,
}

impl fmt::Display for ArgvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cannot build the command line: ")?;
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ArgvError {}

impl ArgvBuilder {
    /// Starts an argv with the program (argv\[0\]).
    pub fn new(program: impl Into<OsString>) -> Self {
        let mut b = ArgvBuilder {
            argv: Vec::with_capacity(8),
            positionals: Vec::new(),
            problems: Vec::new(),
            current: None,
            unnamed: 0,
            marks: Vec::new(),
            recording: false,
            omitted: None,
        };
        b.push_fixed(program.into(), "the program name");
        b
    }

    /// Starts an argv that also records every value of an announced
    /// [parameter](ArgvBuilder::parameter), for [`ArgvBuilder::finish_recorded`].
    pub fn recorded(program: impl Into<OsString>) -> Self {
        let mut b = Self::new(program);
        b.recording = true;
        b
    }

    /// Whether this builder records the values of announced parameters (made with
    /// [`ArgvBuilder::recorded`]); a writer may skip announcing parameters to one that does not.
    #[inline]
    pub fn records_values(&self) -> bool {
        self.recording
    }

    /// Pushes an element that comes from metadata, not from a value (program, path, flag).
    #[inline]
    fn push_fixed(&mut self, el: OsString, what: &str) {
        if contains_nul(&el) {
            self.problems.push(ArgvProblem::Nul {
                param: what.to_owned(),
            });
        }
        self.argv.push(el);
    }

    /// Appends the subcommand path, e.g. `["pr", "create"]`.
    pub fn subcommand<S: AsRef<str>>(&mut self, path: &[S]) {
        for seg in path {
            self.push_fixed(seg.as_ref().into(), "the subcommand path");
        }
    }

    /// Appends one element as given, with no `--` protection: only for raw arguments of
    /// commands no metadata describes (see `LoadedCommands::unlisted_invocation`).
    pub fn raw(&mut self, arg: &str) {
        self.push_fixed(arg.into(), "a raw argument");
    }

    /// Announces the parameter whose values are written next: `name` is its provider
    /// parameter name, `path` whether it is a `file` or `directory`. Values written after this
    /// (until the next call) are recorded under it for argument rules.
    pub fn parameter(&mut self, name: impl Into<Shared<str>>, path: bool) {
        self.name_marks();
        self.current = Some((name.into(), path));
    }

    /// Gives the marks of the announced parameter its name: moved into the last one, shared
    /// with any before it (a list's values).
    fn name_marks(&mut self) {
        let pending = std::mem::take(&mut self.unnamed);
        let Some((param, _)) = self.current.take() else {
            return;
        };
        let first = self.marks.len().saturating_sub(pending);
        if let Some((last, earlier)) = self.marks[first..].split_last_mut() {
            for m in earlier {
                m.param = Some(param.clone());
            }
            last.param = Some(param);
        }
    }

    /// Notes that the value of the announced parameter, if any, is at `at`.
    #[inline]
    fn record(&mut self, at: Slot) {
        if !self.recording {
            return;
        }
        if let Some((_, path)) = &self.current {
            self.marks.push(Mark {
                param: None,
                path: *path,
                at,
            });
            self.unnamed += 1;
        }
    }

    /// Appends a bare flag (a `true` boolean).
    #[inline]
    pub fn flag(&mut self, flag: &str) {
        self.push_fixed(flag.into(), "a flag");
        self.record(Slot::True);
    }

    /// Appends `flag=value` as one element (long flags).
    pub fn long<V: ToArgument + ?Sized>(&mut self, flag: &str, value: &V) {
        if let Some(v) = self.value(flag, value) {
            let mut el = OsString::with_capacity(flag.len() + 1 + v.len());
            el.push(flag);
            el.push("=");
            el.push(&v);
            self.record(Slot::Option {
                index: self.argv.len(),
                skip: flag.len() + 1,
            });
            self.argv.push(el);
        }
    }

    /// Appends `flag` and `value` as two elements (short or single-dash flags).
    pub fn short<V: ToArgument + ?Sized>(&mut self, flag: &str, value: &V) {
        if let Some(v) = self.value(flag, value) {
            let v = v.into_owned();
            self.argv.push(flag.into());
            self.record(Slot::Option {
                index: self.argv.len(),
                skip: 0,
            });
            self.argv.push(v);
        }
    }

    /// Appends an option value in the form its flag takes: attached for long flags.
    pub fn option<V: ToArgument + ?Sized>(&mut self, flag: &str, attached: bool, value: &V) {
        if attached {
            self.long(flag, value)
        } else {
            self.short(flag, value)
        }
    }

    /// Queues a positional argument; positionals go after every option. A positional after
    /// one that was [omitted](ArgvBuilder::omit_positional) is a problem.
    pub fn positional<V: ToArgument + ?Sized>(&mut self, name: &str, value: &V) {
        if let Some(omitted) = &self.omitted {
            if omitted != name {
                self.problems.push(ArgvProblem::PositionalAfterOmitted {
                    param: name.to_owned(),
                    omitted: omitted.clone(),
                });
                // One problem per positional, not one per value of a list.
                self.omitted = Some(name.to_owned());
                return;
            }
        }
        if let Some(v) = self.value(name, value) {
            let v = v.into_owned();
            self.record(Slot::Positional(self.positionals.len()));
            self.positionals.push(v);
        }
    }

    /// Records that the positional `name` has no value (an absent optional argument, an empty
    /// list): no later positional may be given, since it would take this one's slot.
    pub fn omit_positional(&mut self, name: &str) {
        if self.omitted.is_none() {
            self.omitted = Some(name.to_owned());
        }
    }

    /// Records that the required list `name` has `count` values; zero is a problem.
    pub fn require_values(&mut self, name: &str, count: usize) {
        if count == 0 {
            self.problems.push(ArgvProblem::MissingValues {
                param: name.to_owned(),
            });
        }
    }

    fn value<'v, V: ToArgument + ?Sized>(
        &mut self,
        param: &str,
        value: &'v V,
    ) -> Option<Cow<'v, OsStr>> {
        match value.to_argument() {
            Ok(v) => {
                if contains_nul(&v) {
                    self.problems.push(ArgvProblem::Nul {
                        param: param.to_owned(),
                    });
                }
                Some(v)
            }
            Err(ValueProblem::NotFinite) => {
                self.problems.push(ArgvProblem::NotFinite {
                    param: param.to_owned(),
                });
                None
            }
            Err(ValueProblem::InvalidUrl(shown)) => {
                self.problems.push(ArgvProblem::InvalidUrl {
                    param: param.to_owned(),
                    value: shown,
                });
                None
            }
        }
    }

    /// The finished argv.
    ///
    /// # Errors
    ///
    /// [`ArgvError`] listing every problem found, including NUL bytes in the program, the
    /// subcommand path or a flag.
    pub fn finish(self) -> Result<Vec<OsString>, ArgvError> {
        self.finish_recorded().map(|(argv, _)| argv)
    }

    /// The finished argv and the values recorded for each announced
    /// [parameter](ArgvBuilder::parameter), in the order they were written; a builder made
    /// with [`ArgvBuilder::new`] rather than [`ArgvBuilder::recorded`] records none.
    ///
    /// # Errors
    ///
    /// As [`ArgvBuilder::finish`].
    pub fn finish_recorded(mut self) -> Result<(Vec<OsString>, Vec<ArgumentValue>), ArgvError> {
        if self.problems.is_empty() {
            self.name_marks();
            let marks = std::mem::take(&mut self.marks);
            let arguments = marks
                .into_iter()
                .map(|m| ArgumentValue {
                    value: match m.at {
                        Slot::True => Cow::Borrowed(OsStr::new("true")),
                        Slot::Option { index, skip } => Cow::Owned(tail(&self.argv[index], skip)),
                        Slot::Positional(i) => Cow::Owned(self.positionals[i].clone()),
                    },
                    param: m.param.unwrap_or_default(),
                    path: m.path,
                })
                .collect();
            Ok((self.into_argv_unchecked(), arguments))
        } else {
            Err(ArgvError {
                problems: self.problems,
            })
        }
    }

    /// The argv as built so far, problems ignored (values that could not be written are
    /// left out). Use [`ArgvBuilder::finish`] before running anything.
    pub fn into_argv_unchecked(mut self) -> Vec<OsString> {
        if self
            .positionals
            .iter()
            .any(|p| p.as_encoded_bytes().first() == Some(&b'-'))
        {
            self.argv.push("--".into());
        }
        self.argv.append(&mut self.positionals);
        self.argv
    }
}

/// Where a recorded value went.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// A bare flag: the value `true`.
    True,
    /// `argv[index]`, after its first `skip` bytes (`--flag=`).
    Option { index: usize, skip: usize },
    /// The positional at this index.
    Positional(usize),
}

/// One recorded value: its parameter and where it went.
#[derive(Debug, Clone)]
struct Mark {
    /// Set when the parameter's last value is written ([`ArgvBuilder::name_marks`]).
    param: Option<Shared<str>>,
    path: bool,
    at: Slot,
}

/// `element` without its first `skip` bytes, an ASCII `--flag=` prefix.
fn tail(element: &OsStr, skip: usize) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        OsStr::from_bytes(&element.as_bytes()[skip..]).to_owned()
    }
    #[cfg(not(unix))]
    {
        // Elsewhere values come from UTF-8 strings: the prefix is ASCII, the rest is text.
        OsString::from(element.to_string_lossy()[skip..].to_owned())
    }
}

#[inline]
fn contains_nul(s: &OsStr) -> bool {
    s.as_encoded_bytes().contains(&0)
}

/// A string that must be an absolute URL (ATIP type `url`). Checked when the argv is built:
/// a scheme (`https:`, `file:`, …) and no whitespace or control characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Url<'a>(pub &'a str);

impl ToArgument for Url<'_> {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        if atip_core::formats::is_uri(self.0) {
            Ok(Cow::Borrowed(OsStr::new(self.0)))
        } else {
            Err(ValueProblem::InvalidUrl(self.0.to_owned()))
        }
    }
}

impl ToArgument for str {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        Ok(Cow::Borrowed(OsStr::new(self)))
    }
}

impl ToArgument for String {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        Ok(Cow::Borrowed(OsStr::new(self.as_str())))
    }
}

impl ToArgument for OsStr {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        Ok(Cow::Borrowed(self))
    }
}

impl ToArgument for OsString {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        Ok(Cow::Borrowed(self.as_os_str()))
    }
}

impl ToArgument for Path {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        Ok(Cow::Borrowed(self.as_os_str()))
    }
}

impl ToArgument for PathBuf {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        Ok(Cow::Borrowed(self.as_os_str()))
    }
}

impl ToArgument for i64 {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        Ok(Cow::Owned(self.to_string().into()))
    }
}

/// Plain decimal, never exponent notation (`1e21` is written out in full); `NaN` and
/// infinities are refused.
impl ToArgument for f64 {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        if self.is_finite() {
            Ok(Cow::Owned(self.to_string().into()))
        } else {
            Err(ValueProblem::NotFinite)
        }
    }
}

impl<T: ToArgument + ?Sized> ToArgument for &T {
    fn to_argument(&self) -> Result<Cow<'_, OsStr>, ValueProblem> {
        (**self).to_argument()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(v: Vec<OsString>) -> Vec<String> {
        v.into_iter().map(|s| s.into_string().unwrap()).collect()
    }

    #[test]
    fn order_and_flag_forms() {
        let mut b = ArgvBuilder::new("git");
        b.short("-C", "/tmp/repo");
        b.subcommand(&["commit"]);
        b.flag("--all");
        b.long("--message", "-rf is a message");
        b.positional("pathspec", "a.txt");
        assert_eq!(
            strs(b.finish().unwrap()),
            [
                "git",
                "-C",
                "/tmp/repo",
                "commit",
                "--all",
                "--message=-rf is a message",
                "a.txt"
            ]
        );
    }

    #[test]
    fn double_dash_before_positionals_that_look_like_flags() {
        let mut b = ArgvBuilder::new("rm");
        b.flag("--force");
        b.positional("file", "ok");
        b.positional("file", "-rf");
        assert_eq!(
            strs(b.finish().unwrap()),
            ["rm", "--force", "--", "ok", "-rf"]
        );
        let mut b = ArgvBuilder::new("rm");
        b.positional("file", "x-y");
        assert_eq!(strs(b.finish().unwrap()), ["rm", "x-y"]);
    }

    #[test]
    fn numbers_are_plain_decimal() {
        let mut b = ArgvBuilder::new("t");
        b.long("--n", &42_i64);
        b.long("--x", &1e21_f64);
        b.long("--y", &0.5_f64);
        b.short("-z", &-3_i64);
        assert_eq!(
            strs(b.finish().unwrap()),
            [
                "t",
                "--n=42",
                "--x=1000000000000000000000",
                "--y=0.5",
                "-z",
                "-3"
            ]
        );
    }

    #[test]
    fn every_problem_is_reported() {
        let mut b = ArgvBuilder::new("t");
        b.long("--message", "a\0b");
        b.long("--ratio", &f64::NAN);
        b.long("--url", &Url("not a url"));
        b.require_values("pathspec", 0);
        b.positional("file", "x\0");
        let err = b.finish().unwrap_err();
        assert_eq!(
            err.problems,
            vec![
                ArgvProblem::Nul {
                    param: "--message".into()
                },
                ArgvProblem::NotFinite {
                    param: "--ratio".into()
                },
                ArgvProblem::InvalidUrl {
                    param: "--url".into(),
                    value: "not a url".into()
                },
                ArgvProblem::MissingValues {
                    param: "pathspec".into()
                },
                ArgvProblem::Nul {
                    param: "file".into()
                },
            ]
        );
        assert!(err
            .to_string()
            .contains("the value of --message contains a NUL byte"));
    }

    #[test]
    fn nul_in_subcommand_is_caught() {
        let mut b = ArgvBuilder::new("t");
        b.subcommand(&["a\0b"]);
        assert!(b.finish().is_err());
    }

    #[test]
    fn urls_need_a_scheme() {
        let mut b = ArgvBuilder::new("curl");
        b.positional("url", &Url("https://example.com/a?b=c"));
        assert_eq!(
            strs(b.finish().unwrap()),
            ["curl", "https://example.com/a?b=c"]
        );
    }

    #[test]
    fn recorded_values_carry_their_parameter_names() {
        let mut b = ArgvBuilder::recorded("tool");
        b.flag("--unannounced");
        // Owned names, as a loaded spec's are: each value still gets its own.
        b.parameter(String::from("tags"), false);
        b.long("--tag", "a");
        b.long("--tag", "b");
        b.parameter(String::from("force"), false);
        b.flag("--force");
        b.parameter(String::from("absent"), false);
        b.parameter(String::from("files"), true);
        b.positional("files", "x.txt");
        b.positional("files", "y.txt");
        let (argv, recorded) = b.finish_recorded().unwrap();
        assert_eq!(
            strs(argv),
            [
                "tool",
                "--unannounced",
                "--tag=a",
                "--tag=b",
                "--force",
                "x.txt",
                "y.txt"
            ]
        );
        let recorded: Vec<(&str, &str, bool)> = recorded
            .iter()
            .map(|a| (a.param.as_ref(), a.value.to_str().unwrap(), a.path))
            .collect();
        assert_eq!(
            recorded,
            [
                ("tags", "a", false),
                ("tags", "b", false),
                ("force", "true", false),
                ("files", "x.txt", true),
                ("files", "y.txt", true),
            ]
        );
    }
}
