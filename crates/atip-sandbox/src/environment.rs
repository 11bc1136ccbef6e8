//! The child's environment, built rather than inherited: a base set every program needs, the
//! variables the command declares it reads (its tool's `authentication.methods[].envVar`, its
//! options' `envVar`; spec §3.8), and what the caller passes or allows. Everything else in
//! the agent's environment — tokens and keys of other tools, the agent's own API keys — is
//! removed, and the removed *names* (never values) are reported.

use std::ffi::{OsStr, OsString};

/// Variables every program gets, as they are in the agent's environment: where to find
/// programs and the home directory, who the user is, the locale (`LANG`, `LANGUAGE`, every
/// `LC_*`), the terminal type, the time zone, the temporary directory (the sandbox points it
/// at the run's scratch directory) and the XDG base directories.
pub const BASE_VARIABLES: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TERM",
    "TZ",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_DIRS",
];

/// How the child's environment starts, before the runner's own settings (`Runner::env`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvBase {
    /// The base set, the command's declared variables and `allow` (the default).
    Built {
        /// Names the caller allows besides (`Runner::env_allow`).
        allow: Vec<OsString>,
    },
    /// The runner's whole environment (`Runner::inherit_env(true)`).
    Inherit,
    /// Nothing (`Runner::env_clear`).
    Clear,
}

impl Default for EnvBase {
    fn default() -> Self {
        EnvBase::Built { allow: Vec::new() }
    }
}

/// The environment of one child: `None` to inherit the runner's, else exactly these
/// variables; and the names removed from the runner's environment, sorted.
pub struct ChildEnv {
    /// The child's whole environment, or `None` to inherit the runner's.
    pub vars: Option<Vec<(OsString, OsString)>>,
    /// The names (never values) of the runner's variables the child does not get, sorted.
    pub removed: Vec<String>,
}

fn is_base(key: &OsStr) -> bool {
    BASE_VARIABLES.iter().any(|b| key == *b) || key.as_encoded_bytes().starts_with(b"LC_")
}

/// Builds a child's environment from `base`, the caller's `settings` (a value sets, `None`
/// removes; later ones win) and the command's `declared` variables.
pub fn build(
    base: &EnvBase,
    settings: &[(OsString, Option<OsString>)],
    declared: &[atip_core::Shared<str>],
) -> ChildEnv {
    let keep = |key: &OsStr| -> bool {
        match base {
            EnvBase::Inherit => true,
            EnvBase::Clear => false,
            EnvBase::Built { allow } => {
                is_base(key)
                    || declared.iter().any(|d| key == d.as_str())
                    || allow.iter().any(|a| a == key)
            }
        }
    };
    if *base == EnvBase::Inherit {
        return ChildEnv {
            vars: None,
            removed: Vec::new(),
        };
    }
    let mut vars: Vec<(OsString, OsString)> = Vec::new();
    let mut removed: Vec<String> = Vec::new();
    for (k, v) in std::env::vars_os() {
        if keep(&k) {
            vars.push((k, v));
        } else {
            removed.push(k.to_string_lossy().into_owned());
        }
    }
    for (k, v) in settings {
        vars.retain(|(have, _)| have != k);
        if let Some(v) = v {
            vars.push((k.clone(), v.clone()));
            removed.retain(|r| OsStr::new(r) != k);
        }
    }
    removed.sort();
    ChildEnv {
        vars: Some(vars),
        removed,
    }
}

/// git settings every sandboxed run gets, through git's `GIT_CONFIG_COUNT` variables (after
/// any the environment already holds): no automatic maintenance inside a run. git starts it
/// detached after `commit`, `fetch` or `merge` (`git maintenance run --auto --detach`, or
/// `gc --auto` in the background), which needs a session of its own — the sandbox refuses
/// `setsid`, and a detached process would outlive the run's time limit and the kill of its
/// process group. The person's own git does the maintenance later.
pub const GIT_SETTINGS: &[(&str, &str)] =
    &[("maintenance.auto", "false"), ("gc.autoDetach", "false")];

/// Adds [`GIT_SETTINGS`] to `vars` (a child's whole environment) as `GIT_CONFIG_KEY_<n>` /
/// `GIT_CONFIG_VALUE_<n>` after the `GIT_CONFIG_COUNT` settings it already holds.
pub fn add_git_settings(vars: &mut Vec<(OsString, OsString)>) {
    let count = vars
        .iter()
        .find(|(k, _)| k == "GIT_CONFIG_COUNT")
        .and_then(|(_, v)| v.to_str()?.parse::<usize>().ok())
        .unwrap_or(0);
    vars.retain(|(k, _)| k != "GIT_CONFIG_COUNT");
    for (i, (key, value)) in GIT_SETTINGS.iter().enumerate() {
        vars.push((
            format!("GIT_CONFIG_KEY_{}", count + i).into(),
            (*key).into(),
        ));
        vars.push((
            format!("GIT_CONFIG_VALUE_{}", count + i).into(),
            (*value).into(),
        ));
    }
    vars.push((
        "GIT_CONFIG_COUNT".into(),
        (count + GIT_SETTINGS.len()).to_string().into(),
    ));
}

/// Where a run's tools keep things, from the child's environment (the caller's `settings`) and
/// the runner's: the home directory and every variable the sandbox's tables read.
pub fn places(settings: &[(OsString, Option<OsString>)]) -> crate::protect::Places {
    use std::path::PathBuf;
    let mut vars = Vec::new();
    for name in crate::protect::stores::variables() {
        let child = runner_var(settings, name);
        let own = std::env::var_os(name);
        for value in [child, own].into_iter().flatten() {
            let value = PathBuf::from(value);
            if !value.as_os_str().is_empty() && !vars.iter().any(|(n, v)| n == name && *v == value)
            {
                vars.push((name.to_owned(), value));
            }
        }
    }
    crate::protect::Places {
        home: runner_var(settings, "HOME").map(PathBuf::from),
        vars,
    }
}

/// A policy's `unixSockets` as paths: `~/` against the child's home directory,
/// `$XDG_RUNTIME_DIR/` against its runtime directory; others as written.
pub fn unix_sockets(
    settings: &[(OsString, Option<OsString>)],
    listed: &[String],
) -> Vec<std::path::PathBuf> {
    use std::path::PathBuf;
    let var = |key| runner_var(settings, key).map(PathBuf::from);
    listed
        .iter()
        .filter_map(|entry| {
            if let Some(rest) = entry.strip_prefix("~/") {
                var("HOME").map(|h| h.join(rest))
            } else if let Some(rest) = entry.strip_prefix("$XDG_RUNTIME_DIR/") {
                var("XDG_RUNTIME_DIR").map(|d| d.join(rest))
            } else {
                Some(PathBuf::from(entry))
            }
        })
        .collect()
}

/// The value of `key` in the environment a child started with these settings gets
/// (declared variables aside, which only add to it).
pub fn child_var(
    base: &EnvBase,
    settings: &[(OsString, Option<OsString>)],
    key: &str,
) -> Option<OsString> {
    if let Some((_, v)) = settings.iter().rev().find(|(k, _)| k == key) {
        return v.clone();
    }
    let passed = match base {
        EnvBase::Inherit => true,
        EnvBase::Clear => false,
        EnvBase::Built { allow } => is_base(OsStr::new(key)) || allow.iter().any(|a| a == key),
    };
    passed.then(|| std::env::var_os(key)).flatten()
}

/// The value of `key` as the runner knows it: its own setting, else this process's
/// environment (whether or not children get it): where the runner's tools keep things.
pub fn runner_var(settings: &[(OsString, Option<OsString>)], key: &str) -> Option<OsString> {
    match settings.iter().rev().find(|(k, _)| k == key) {
        Some((_, v)) => v.clone(),
        None => std::env::var_os(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_environment_keeps_the_base_declared_and_allowed_and_names_the_rest() {
        // The test process's own environment: PATH and HOME are there on every machine.
        let declared = [atip_core::Shared::Static("ATIP_DECLARED_TOKEN")];
        let settings = vec![
            (
                OsString::from("ATIP_SET_BY_CALLER"),
                Some(OsString::from("1")),
            ),
            (OsString::from("HOME"), Some(OsString::from("/tmp/home"))),
        ];
        let env = build(
            &EnvBase::Built {
                allow: vec!["CARGO".into()],
            },
            &settings,
            &declared,
        );
        let vars = env.vars.unwrap();
        let get = |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert!(get("PATH").is_some());
        assert_eq!(get("HOME"), Some("/tmp/home".into()));
        assert_eq!(get("ATIP_SET_BY_CALLER"), Some("1".into()));
        assert_eq!(get("CARGO"), std::env::var_os("CARGO"));
        // Cargo sets CARGO_PKG_NAME for tests: not base, not allowed, so removed by name.
        assert!(get("CARGO_PKG_NAME").is_none());
        assert!(
            env.removed.iter().any(|n| n == "CARGO_PKG_NAME"),
            "{:?}",
            env.removed
        );
        assert!(!env.removed.iter().any(|n| n == "PATH"));
        assert!(build(&EnvBase::Inherit, &settings, &declared)
            .vars
            .is_none());
        let cleared = build(&EnvBase::Clear, &settings, &declared).vars.unwrap();
        assert_eq!(cleared.len(), 2);
    }

    #[test]
    fn git_settings_come_after_the_ones_the_environment_holds() {
        let mut vars = vec![
            (OsString::from("GIT_CONFIG_COUNT"), OsString::from("1")),
            (
                OsString::from("GIT_CONFIG_KEY_0"),
                OsString::from("user.name"),
            ),
            (OsString::from("GIT_CONFIG_VALUE_0"), OsString::from("t")),
        ];
        add_git_settings(&mut vars);
        let get = |k: &str| {
            vars.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.to_string_lossy().into_owned())
        };
        assert_eq!(get("GIT_CONFIG_COUNT").as_deref(), Some("3"));
        assert_eq!(get("GIT_CONFIG_KEY_0").as_deref(), Some("user.name"));
        assert_eq!(get("GIT_CONFIG_KEY_1").as_deref(), Some("maintenance.auto"));
        assert_eq!(get("GIT_CONFIG_VALUE_1").as_deref(), Some("false"));
        assert_eq!(get("GIT_CONFIG_KEY_2").as_deref(), Some("gc.autoDetach"));
        assert_eq!(
            vars.iter().filter(|(n, _)| n == "GIT_CONFIG_COUNT").count(),
            1
        );
    }

    #[test]
    fn listed_sockets_resolve_against_the_childs_home_and_runtime_directory() {
        let settings = vec![
            (OsString::from("HOME"), Some(OsString::from("/h"))),
            (
                OsString::from("XDG_RUNTIME_DIR"),
                Some(OsString::from("/run/user/7")),
            ),
        ];
        let listed = ["~/s.sock", "$XDG_RUNTIME_DIR/bus", "/abs.sock"].map(String::from);
        assert_eq!(
            unix_sockets(&settings, &listed),
            ["/h/s.sock", "/run/user/7/bus", "/abs.sock"].map(std::path::PathBuf::from)
        );
        let places = places(&settings);
        assert_eq!(places.home.as_deref(), Some(std::path::Path::new("/h")));
        assert!(places
            .var("XDG_RUNTIME_DIR")
            .contains(&"/run/user/7".into()));
    }
}
