//! Secrets known by value: what the runner itself hands a command in its environment
//! (`GH_PAT`, `OPENAI_KEY`, a tool's declared `authentication` variable). A command that prints
//! `$GH_PAT` or runs `env` gives the value back bare, in no shape a rule recognises; these are
//! found as they are, wherever they occur.

use std::ffi::OsStr;
use std::fmt;
use std::sync::Arc;

/// Values shorter than this (bytes) are not redacted by value: a short value redacted wherever
/// it occurs would take words and numbers out of ordinary output with it.
pub const MIN_KNOWN_SECRET_BYTES: usize = 8;

/// Values of secret variables a run was given, redacted by value in what a model is sent
/// ([`crate::ResultFilter::with_known_secrets`]). Its `Debug` shows how many, never the values.
/// Cheap to clone.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct KnownSecrets(Arc<[String]>);

impl fmt::Debug for KnownSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KnownSecrets({} values)", self.0.len())
    }
}

impl KnownSecrets {
    /// The values of the variables in `vars` whose names say they hold a secret
    /// ([`is_secret_name`]), at least [`MIN_KNOWN_SECRET_BYTES`] long and UTF-8; each line of a
    /// value of several lines (a PEM key) counts on its own too.
    pub fn from_env<'a>(vars: impl IntoIterator<Item = (&'a OsStr, &'a OsStr)>) -> Self {
        let mut values: Vec<String> = Vec::new();
        for (name, value) in vars {
            let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
                continue;
            };
            if !is_secret_name(name) {
                continue;
            }
            let lines = value.lines().map(str::trim).filter(|l| *l != value);
            for v in std::iter::once(value).chain(lines) {
                if v.len() >= MIN_KNOWN_SECRET_BYTES && !values.iter().any(|have| have == v) {
                    values.push(v.to_owned());
                }
            }
        }
        // Longest first: a value that contains another is found whole.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        KnownSecrets(values.into())
    }

    /// No values.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many values.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Where the values occur in `text`, as `(start, end)` byte offsets (possibly
    /// overlapping, in no order).
    pub(super) fn spans(&self, text: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for value in self.0.iter() {
            let finder = memchr::memmem::Finder::new(value.as_bytes());
            out.extend(
                finder
                    .find_iter(text.as_bytes())
                    .map(|at| (at, at + value.len())),
            );
        }
        out
    }
}

/// Whether a variable named `name` holds a secret, by the words of its name (split at `_`,
/// `-` and `.`, any case): a word that is `KEY`, `PAT` or `AUTH`, or that ends in `TOKEN`,
/// `SECRET`, `PASSWORD`, `PASSWD`, `PASSPHRASE`, `APIKEY` or `CREDENTIAL(S)` (`GITHUB_TOKEN`,
/// `OPENAI_API_KEY`, `PGPASSWORD`, `GH_PAT`), or `PWD` after the first word (`MYSQL_PWD`).
/// Names of places are not secrets: `PWD` itself, and names ending in `_FILE`, `_PATH`,
/// `_DIR` or `_SOCK` (`GOOGLE_APPLICATION_CREDENTIALS_FILE`, `SSH_AUTH_SOCK`).
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if ["_FILE", "_PATH", "_DIR", "_SOCK"]
        .iter()
        .any(|s| upper.ends_with(s))
    {
        return false;
    }
    upper.split(['_', '-', '.']).enumerate().any(|(i, word)| {
        matches!(word, "KEY" | "PAT" | "AUTH")
            || (i > 0 && word == "PWD")
            || [
                "TOKEN",
                "SECRET",
                "PASSWORD",
                "PASSWD",
                "PASSPHRASE",
                "APIKEY",
                "CREDENTIAL",
                "CREDENTIALS",
            ]
            .iter()
            .any(|end| word.ends_with(end))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_are_told_by_their_words() {
        for name in [
            "GITHUB_TOKEN",
            "GH_PAT",
            "OPENAI_API_KEY",
            "OPENAI_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "PGPASSWORD",
            "MYSQL_PWD",
            "npm_config__authToken",
            "VAULT_TOKEN",
            "DOCKER_AUTH",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "PATH",
            "PWD",
            "OLDPWD",
            "AWS_REGION",
            "SSH_AUTH_SOCK",
            "GOOGLE_APPLICATION_CREDENTIALS_FILE",
            "KEYBOARD_LAYOUT",
            "TOKENIZERS_PARALLELISM",
            "HOME",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn values_are_kept_long_enough_and_by_line() {
        let env = [
            ("GH_TOKEN", "ghp_short"),
            ("SHORT_KEY", "abc"),
            ("AWS_REGION", "eu-central-1"),
            (
                "SSH_KEY",
                "-----BEGIN X-----\nAAAABBBBCCCCDDDD\n-----END X-----",
            ),
        ];
        let known = KnownSecrets::from_env(env.iter().map(|(k, v)| (OsStr::new(k), OsStr::new(v))));
        let text = "x ghp_short AAAABBBBCCCCDDDD abc eu-central-1";
        let mut spans = known.spans(text);
        spans.sort_unstable();
        let found: Vec<&str> = spans.iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(found, ["ghp_short", "AAAABBBBCCCCDDDD"]);
        assert_eq!(format!("{known:?}"), "KnownSecrets(5 values)");
    }
}
