//! Argument rules (spec §11.2 "sanitize paths", "check injection"): per parameter, deny it,
//! allow a set of values or a pattern, or confine path values to roots.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use regex::Regex;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{command_matches, Policy, Reason, ReasonCode, ReasonSeverity};
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
        self.commands.is_empty()
            || self
                .commands
                .iter()
                .any(|p| command_matches(p, name, title))
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

/// Where `value` points when a program started in `working_dir` opens it: `working_dir`
/// joined with a relative value, `.` and `..` applied, and every symbolic link that exists
/// resolved (dangling ones too, up to 40 links), so that a link inside a root that points out of
/// it is seen for what it is. Components below the first one that does not exist are taken
/// as written.
pub fn resolve_path(working_dir: &Path, value: &Path) -> PathBuf {
    let joined = if value.is_absolute() {
        value.to_path_buf()
    } else {
        working_dir.join(value)
    };
    let mut budget = 40;
    resolve(&joined, &mut budget)
}

fn resolve(path: &Path, links: &mut u32) -> PathBuf {
    let mut out = PathBuf::new();
    let mut exists = true;
    for comp in path.components() {
        match comp {
            Component::Prefix(_) | Component::RootDir => out.push(comp.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                if !exists {
                    continue;
                }
                match std::fs::symlink_metadata(&out) {
                    Ok(meta) if meta.file_type().is_symlink() && *links > 0 => {
                        *links -= 1;
                        if let Ok(target) = std::fs::read_link(&out) {
                            out.pop();
                            let next = out.join(target);
                            out = resolve(&next, links);
                            exists = std::fs::symlink_metadata(&out).is_ok();
                        }
                    }
                    Ok(_) => {}
                    Err(_) => exists = false,
                }
            }
        }
    }
    out
}

/// The roots `rule_roots` (or the policy's) name, resolved against `working_dir`.
fn roots(list: &[String], working_dir: &Path) -> Vec<PathBuf> {
    list.iter()
        .map(|r| resolve_path(working_dir, Path::new(r)))
        .collect()
}

pub(super) fn argument_reasons(
    policy: &Policy,
    invocation: &Invocation,
    title: &str,
    working_dir: &Path,
    reasons: &mut Vec<Reason>,
) {
    let working_dir = resolve_path(Path::new("/"), working_dir);
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
            if !allowed.iter().any(|root| resolved.starts_with(root)) {
                reasons.push(deny(
                    ReasonCode::PathOutsideRoots,
                    format!(
                        "parameter `{}`: {shown:?} resolves to {} which is outside the allowed \
                         {} {}",
                        arg.param,
                        resolved.display(),
                        if allowed.len() == 1 { "root" } else { "roots" },
                        allowed
                            .iter()
                            .map(|r| r.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
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
    let working_dir = resolve_path(Path::new("/"), working_dir);
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
