//! Argument rules (spec §11.2 "sanitize paths", "check injection"): per parameter, deny it,
//! allow a set of values or a pattern, or confine path values to roots.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use regex::Regex;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Policy, Reason, ReasonCode, ReasonSeverity};
use crate::Invocation;

/// A rule for the values of one parameter. In JSON:
///
/// ```json
/// {"parameter": "format", "commands": ["gh_*"], "allow": ["json", "text"]}
/// {"parameter": "branch", "pattern": "[a-z0-9/_-]+"}
/// {"parameter": "chdir", "deny": true}
/// {"parameter": "output", "roots": ["./out"]}
/// ```
///
/// A rule applies to the calls of commands matching `commands` (globs like the policy's
/// command lists; empty: every command) that give `parameter` (the provider parameter name,
/// e.g. `dry_run`). Each value of a list is judged on its own; a `true` boolean counts as the
/// value `"true"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArgumentRule {
    /// Provider parameter name.
    pub parameter: String,
    /// Command patterns the rule applies to; empty means every command.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    /// Refuse any call that gives the parameter.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deny: bool,
    /// The only values allowed, compared as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<Vec<String>>,
    /// A regular expression (Rust `regex` syntax) each whole value must match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<ValuePattern>,
    /// Roots each value, as a path, must resolve under (overrides the policy's `pathRoots`
    /// for this parameter; relative roots are relative to the working directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<String>>,
}

impl ArgumentRule {
    /// A rule for `parameter` with nothing set yet (it checks nothing until one of
    /// [`ArgumentRule::deny`], `allow`, `pattern` or `roots` is set).
    pub fn new(parameter: impl Into<String>) -> Self {
        ArgumentRule {
            parameter: parameter.into(),
            commands: Vec::new(),
            deny: false,
            allow: None,
            pattern: None,
            roots: None,
        }
    }

    /// Whether the rule applies to the command `name` / `title`.
    pub fn applies_to(&self, name: &str, title: &str) -> bool {
        super::rule_applies(&self.commands, name, title)
    }
}

/// A regular expression that must match a whole value (it is anchored: `[a-z]+` means
/// `^(?:[a-z]+)$`). Serialises as the pattern text.
#[derive(Clone)]
pub struct ValuePattern {
    source: String,
    regex: Regex,
}

impl ValuePattern {
    /// Compiles `pattern`, anchored at both ends.
    ///
    /// # Errors
    ///
    /// The regex crate's error for invalid syntax.
    pub fn new(pattern: &str) -> Result<Self, regex::Error> {
        Ok(ValuePattern {
            regex: Regex::new(&format!("^(?:{pattern})$"))?,
            source: pattern.to_owned(),
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the whole `value` matches.
    pub fn is_match(&self, value: &str) -> bool {
        self.regex.is_match(value)
    }
}

impl fmt::Debug for ValuePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ValuePattern({:?})", self.source)
    }
}

impl PartialEq for ValuePattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for ValuePattern {}

impl Serialize for ValuePattern {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.source)
    }
}

impl<'de> Deserialize<'de> for ValuePattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ValuePattern::new(&text).map_err(serde::de::Error::custom)
    }
}

/// How many symbolic links one path may go through, as Linux allows in one lookup
/// (`MAXSYMLINKS`); a longer chain fails there with `ELOOP`.
const MAX_LINKS: u32 = 40;

/// Where `value` points when a program started in `working_dir` opens or creates it:
/// `working_dir` joined with a relative value (an absolute value stands alone), `.` and `..`
/// applied, and every symbolic link on the way resolved, dangling ones too, so that a link
/// inside a root that points out of it is seen for what it is. `..` after a link goes to the
/// parent of the link's target, as the kernel does.
///
/// A component that does not exist is taken as written, and so is what follows it, as if it
/// were created as a plain directory (what `mkdir -p` does); a `..` that leaves it brings the
/// walk back to a directory that exists, where links are resolved again, so
/// `missing/../lnk/x` goes through `lnk`.
///
/// `None` when the walk would go through more than 40 links (a loop, or a chain the kernel
/// refuses with `ELOOP`) or a link cannot be read: such a value points nowhere that can be
/// judged, and the policy refuses it. The result of `Some` is absolute when `working_dir` is.
pub fn resolve_path(working_dir: &Path, value: &Path) -> Option<PathBuf> {
    let joined = if value.is_absolute() {
        value.to_path_buf()
    } else {
        working_dir.join(value)
    };
    let mut budget = MAX_LINKS;
    resolve(&joined, &mut budget).map(|(path, _)| path)
}

/// Resolves `path` spending at most `links` links; returns the path and how many of its
/// last components do not exist (0: all of it exists, links resolved). Every component
/// before those is an existing directory with no link in it, so `..` over it is its real
/// parent.
fn resolve(path: &Path, links: &mut u32) -> Option<(PathBuf, usize)> {
    let mut out = PathBuf::new();
    let mut missing = 0usize;
    for comp in path.components() {
        match comp {
            Component::Prefix(_) | Component::RootDir => out.push(comp.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                // Leaving a component that does not exist (yet) lands on one that does:
                // links below it are looked at again.
                out.pop();
                missing = missing.saturating_sub(1);
            }
            Component::Normal(name) => {
                out.push(name);
                if missing > 0 {
                    missing += 1;
                    continue;
                }
                match std::fs::symlink_metadata(&out) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        *links = links.checked_sub(1)?;
                        let target = std::fs::read_link(&out).ok()?;
                        out.pop();
                        let next = out.join(target);
                        (out, missing) = resolve(&next, links)?;
                    }
                    Ok(_) => {}
                    Err(_) => missing = 1,
                }
            }
        }
    }
    Some((out, missing))
}

/// The roots `list` names (a rule's or the policy's), resolved against `working_dir`; a root
/// that cannot be resolved ([`resolve_path`] is `None`) holds nothing.
/// The working directory with its links resolved; as given when it cannot be resolved (then
/// the child cannot start in it either).
fn resolved_working_dir(working_dir: &Path) -> PathBuf {
    resolve_path(Path::new("/"), working_dir).unwrap_or_else(|| working_dir.to_path_buf())
}

fn roots(list: &[String], working_dir: &Path) -> Vec<PathBuf> {
    list.iter()
        .filter_map(|r| resolve_path(working_dir, Path::new(r)))
        .collect()
}

pub(super) fn argument_reasons(
    policy: &Policy,
    invocation: &Invocation,
    title: &str,
    working_dir: &Path,
    reasons: &mut Vec<Reason>,
) {
    let working_dir = resolved_working_dir(working_dir);
    let default_roots = roots(&policy.path_roots, &working_dir);
    let rules: Vec<&super::ArgumentRule> = policy
        .arguments
        .iter()
        .filter(|r| r.applies_to(&invocation.name, title))
        .collect();
    let mut denied_seen: Vec<&str> = Vec::new();
    for arg in &invocation.arguments {
        let shown = arg.value.to_string_lossy();
        let mut custom_roots = None;
        for rule in rules.iter().filter(|r| r.parameter == arg.param) {
            if rule.deny {
                if !denied_seen.contains(&rule.parameter.as_str()) {
                    denied_seen.push(&rule.parameter);
                    reasons.push(deny(
                        ReasonCode::ArgumentDenied,
                        format!("parameter `{}` is not allowed by the policy", arg.param),
                    ));
                }
                continue;
            }
            if let Some(allowed) = &rule.allow {
                if !allowed.iter().any(|a| OsStr::new(a) == arg.value) {
                    reasons.push(deny(
                        ReasonCode::ArgumentNotAllowed,
                        format!(
                            "parameter `{}`: {shown:?} is not one of the allowed values {}",
                            arg.param,
                            allowed
                                .iter()
                                .map(|a| format!("{a:?}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
            }
            if let Some(pattern) = &rule.pattern {
                if !arg.value.to_str().is_some_and(|v| pattern.is_match(v)) {
                    reasons.push(deny(
                        ReasonCode::ArgumentNotAllowed,
                        format!(
                            "parameter `{}`: {shown:?} does not match the allowed pattern `{}`",
                            arg.param,
                            pattern.as_str()
                        ),
                    ));
                }
            }
            if let Some(r) = &rule.roots {
                custom_roots = Some(roots(r, &working_dir));
            }
        }
        let confine = match &custom_roots {
            Some(r) => Some(r),
            None if arg.path => Some(&default_roots),
            None => None,
        };
        if let Some(allowed) = confine {
            let resolved = resolve_path(&working_dir, Path::new(&arg.value));
            // The file system's root holds every path, even one that cannot be resolved.
            let inside = match &resolved {
                Some(p) => allowed.iter().any(|root| p.starts_with(root)),
                None => allowed.iter().any(|root| root.parent().is_none()),
            };
            if !inside {
                let roots = format!(
                    "{} {}",
                    if allowed.len() == 1 { "root" } else { "roots" },
                    allowed
                        .iter()
                        .map(|r| r.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let message = match &resolved {
                    Some(p) => format!(
                        "parameter `{}`: {shown:?} resolves to {} which is outside the \
                         allowed {roots}",
                        arg.param,
                        p.display()
                    ),
                    None => format!(
                        "parameter `{}`: {shown:?} goes through more than {MAX_LINKS} \
                         symbolic links or one that cannot be read, so it cannot be shown to \
                         stay under the allowed {roots}",
                        arg.param
                    ),
                };
                reasons.push(deny(ReasonCode::PathOutsideRoots, message));
            }
        }
    }
}

/// The roots `invocation`'s path arguments are held to (see [`Policy::path_roots_for`]).
pub(super) fn path_roots_for(
    policy: &Policy,
    invocation: &Invocation,
    title: &str,
    working_dir: &Path,
) -> Vec<PathBuf> {
    let working_dir = resolved_working_dir(working_dir);
    let rules: Vec<&super::ArgumentRule> = policy
        .arguments
        .iter()
        .filter(|r| r.applies_to(&invocation.name, title))
        .collect();
    let mut out: Vec<PathBuf> = Vec::new();
    for arg in &invocation.arguments {
        let custom = rules
            .iter()
            .filter(|r| r.parameter == arg.param && !r.deny)
            .filter_map(|r| r.roots.as_ref())
            .next_back();
        let list = match custom {
            Some(list) => list,
            None if arg.path => &policy.path_roots,
            None => continue,
        };
        for root in roots(list, &working_dir) {
            if !out.contains(&root) {
                out.push(root);
            }
        }
    }
    out
}

fn deny(code: ReasonCode, message: String) -> Reason {
    Reason {
        code,
        message,
        severity: ReasonSeverity::Deny,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// `base/work` (the working directory) with `lnk -> base/outside`, a directory `dir`
    /// holding `lnk2 -> base/outside2`, `inner -> dir` (relative), `up -> ../outside`, a file
    /// `file.txt` and `dangling -> base/gone/sub`. Paths are canonical (a temp directory can
    /// sit behind a link of its own).
    struct Tree {
        _dir: tempfile::TempDir,
        base: PathBuf,
        work: PathBuf,
    }

    fn tree() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let work = base.join("work");
        for d in ["work/dir", "outside", "outside2"] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        std::fs::write(work.join("file.txt"), "x").unwrap();
        symlink(base.join("outside"), work.join("lnk")).unwrap();
        symlink(base.join("outside2"), work.join("dir/lnk2")).unwrap();
        symlink("dir", work.join("inner")).unwrap();
        symlink("../outside", work.join("up")).unwrap();
        symlink(base.join("gone/sub"), work.join("dangling")).unwrap();
        Tree {
            _dir: dir,
            base,
            work,
        }
    }

    impl Tree {
        fn resolve(&self, value: &str) -> Option<PathBuf> {
            resolve_path(&self.work, Path::new(value))
        }
    }

    #[test]
    fn links_after_a_missing_component_and_dot_dot_are_resolved() {
        let t = tree();
        let outside = t.base.join("outside/x");
        for value in [
            "lnk/x",
            "missing/../lnk/x",
            "missing/a/b/../../../lnk/x",
            "missing/../missing2/../lnk/x",
            "file.txt/../lnk/x",
            "up/x",
        ] {
            assert_eq!(t.resolve(value), Some(outside.clone()), "{value}");
        }
        // A second link after a second missing component.
        let outside2 = t.base.join("outside2/y");
        for value in [
            "missing/../dir/missing2/../lnk2/y",
            "missing/../inner/missing2/../lnk2/y",
        ] {
            assert_eq!(t.resolve(value), Some(outside2.clone()), "{value}");
        }
    }

    #[test]
    fn dots_trailing_slashes_and_absolute_values_walk_the_same_way() {
        let t = tree();
        let outside = t.base.join("outside/x");
        assert_eq!(t.resolve("./missing/./../lnk/x/"), Some(outside.clone()));
        assert_eq!(t.resolve("missing//..//lnk//x//"), Some(outside.clone()));
        let absolute = t.work.join("missing/../lnk/x");
        assert_eq!(t.resolve(absolute.to_str().unwrap()), Some(outside));
        assert_eq!(
            resolve_path(Path::new("/elsewhere"), &absolute),
            t.resolve("lnk/x"),
            "an absolute value ignores the working directory"
        );
        assert_eq!(t.resolve("/../../"), Some(PathBuf::from("/")));
    }

    #[test]
    fn dot_dot_after_a_link_leaves_its_target_not_the_link() {
        let t = tree();
        assert_eq!(t.resolve("lnk/.."), Some(t.base.clone()));
        assert_eq!(t.resolve("inner/.."), Some(t.work.clone()));
        assert_eq!(t.resolve("dir/lnk2/../work"), Some(t.work.clone()));
    }

    #[test]
    fn what_does_not_exist_is_taken_as_written() {
        let t = tree();
        assert_eq!(t.resolve("missing/a/../b"), Some(t.work.join("missing/b")));
        assert_eq!(t.resolve("sub/missing/../../c"), Some(t.work.join("c")));
        assert_eq!(
            t.resolve("dangling/x"),
            Some(t.base.join("gone/sub/x")),
            "a dangling link is followed"
        );
        assert_eq!(t.resolve("dangling/../../x"), Some(t.base.join("x")));
    }

    #[test]
    fn more_than_forty_links_resolve_to_nothing() {
        let t = tree();
        symlink("loop-b", t.work.join("loop-a")).unwrap();
        symlink("loop-a", t.work.join("loop-b")).unwrap();
        assert_eq!(t.resolve("loop-a/x"), None);
        // c0 -> c1 -> … -> c39 -> dir: 40 links, as many as one lookup may follow.
        for i in 0..40 {
            let next = if i == 39 {
                "dir".to_owned()
            } else {
                format!("c{}", i + 1)
            };
            symlink(next, t.work.join(format!("c{i}"))).unwrap();
        }
        assert_eq!(t.resolve("c0/x"), Some(t.work.join("dir/x")));
        // One more link on the same walk is one too many: it is not taken for a directory.
        assert_eq!(t.resolve("c0/../lnk/x"), None);
        assert_eq!(t.resolve("c1/../lnk/x"), Some(t.base.join("outside/x")));
    }
}
