//! Secrets known by value: what the runner itself hands a command in its environment
//! (`GH_PAT`, `OPENAI_KEY`, a tool's declared `authentication` variable). A command that prints
//! `$GH_PAT` or runs `env` gives the value back bare, in no shape a rule recognises; these are
//! found as they are, wherever they occur.

use std::ffi::OsStr;
use std::fmt;
use std::sync::Arc;

use super::Found;

/// Values shorter than this (bytes) are not redacted by value: a short value redacted wherever
/// it occurs would take words and numbers out of ordinary output with it.
pub const MIN_KNOWN_SECRET_BYTES: usize = 8;

/// Values of secret variables a run was given, redacted by value in what a model is sent
/// ([`crate::ResultFilter::with_known_secrets`]; the result filter of spec §11.3). Its `Debug`
/// shows how many, never the values. Cheap to clone.
#[derive(Clone, Default)]
pub struct KnownSecrets(Arc<[Known]>);

/// One known value, with what finds it made once: its substring searcher and, for a value of
/// several lines, its borders ([`longest_beginning_at_end`]).
struct Known {
    value: String,
    finder: memchr::memmem::Finder<'static>,
    borders: Option<Box<[usize]>>,
}

impl Known {
    fn new(value: String) -> Self {
        let finder = memchr::memmem::Finder::new(value.as_bytes()).into_owned();
        let borders = value
            .contains('\n')
            .then(|| borders(value.as_bytes()).into_boxed_slice());
        Known {
            value,
            finder,
            borders,
        }
    }
}

impl PartialEq for KnownSecrets {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(other.0.iter())
                .all(|(a, b)| a.value == b.value)
    }
}

impl Eq for KnownSecrets {}

impl fmt::Debug for KnownSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KnownSecrets({} values)", self.0.len())
    }
}

impl KnownSecrets {
    /// The values of the variables in `vars` whose names say they hold a secret
    /// ([`is_secret_name`]) and that look like one: at least [`MIN_KNOWN_SECRET_BYTES`] long,
    /// UTF-8, random-looking by the same test as a free keyed value (letters and digits, a
    /// symbol, mixed case or length: `postgres` and `password` are not, so they do not take
    /// every such word out of the output), and neither a path nor a URL without a password
    /// (the rules find a URL's password). Each line of a value of several lines (a PEM key)
    /// counts on its own too, each 1 KiB piece of a longer value too (so that a stream, which
    /// holds 4 KiB, finds them before it passes them on), and the JSON spelling of a value
    /// with `"`, `\\` or control characters.
    pub fn from_env<'a>(vars: impl IntoIterator<Item = (&'a OsStr, &'a OsStr)>) -> Self {
        let mut values: Vec<String> = Vec::new();
        let mut add = |v: &str| {
            if v.len() >= MIN_KNOWN_SECRET_BYTES && !values.iter().any(|have| have == v) {
                values.push(v.to_owned());
            }
        };
        for (name, value) in vars {
            let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
                continue;
            };
            if !is_secret_name(name) {
                continue;
            }
            let lines = value.lines().map(str::trim).filter(|l| *l != value);
            for v in std::iter::once(value).chain(lines) {
                if !looks_secret(v) {
                    continue;
                }
                add(v);
                // JSON's spelling: `serde_json` escapes `"`, `\` and control characters.
                let json = serde_json::to_string(v).unwrap_or_default();
                add(json
                    .get(1..json.len().saturating_sub(1))
                    .unwrap_or_default());
                for piece in pieces(v) {
                    add(piece);
                }
            }
        }
        // Longest first: a value that contains another is found whole.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        KnownSecrets(values.into_iter().map(Known::new).collect())
    }

    /// No values.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many values.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Where the values occur in `text`, appended to `out` as secrets without a label
    /// (possibly overlapping, in no order); whether any was found.
    pub(super) fn find_in(&self, text: &str, out: &mut Vec<Found>) -> bool {
        let before = out.len();
        for known in self.0.iter() {
            let len = known.value.len();
            out.extend(known.finder.find_iter(text.as_bytes()).map(|start| Found {
                start,
                end: start + len,
                label: start,
            }));
        }
        out.len() > before
    }

    /// Where the end of `text[from..]` begins a known value of several lines without holding
    /// it whole: the start of the longest end of it that is a proper beginning of such a value
    /// and holds a line end of it (the earliest over all values), or `None`. A stream holds
    /// the text from there until the next line says: a line of the value may be no known value
    /// alone (`s3cr3t`), and once the lines before it are passed on, the value is no longer
    /// there to be found whole. A beginning within the last line is held by the stream anyway.
    pub(super) fn open_at_end(&self, text: &str, from: usize) -> Option<usize> {
        let tail = &text.as_bytes()[from..];
        self.0
            .iter()
            .filter_map(|known| {
                let value = known.value.as_bytes();
                let len = longest_beginning_at_end(tail, value, known.borders.as_deref()?);
                memchr::memchr(b'\n', &value[..len]).map(|_| text.len() - len)
            })
            .min()
    }
}

/// For each `i`, the length of the longest proper beginning of `needle[..=i]` that is also an
/// end of it (Knuth–Morris–Pratt's failure table).
fn borders(needle: &[u8]) -> Vec<usize> {
    let mut border = vec![0usize; needle.len()];
    let mut k = 0;
    for i in 1..needle.len() {
        while k > 0 && needle[i] != needle[k] {
            k = border[k - 1];
        }
        if needle[i] == needle[k] {
            k += 1;
        }
        border[i] = k;
    }
    border
}

/// The length of the longest end of `haystack` that is a proper beginning of `needle` (not
/// all of it; 0 when none), given `needle`'s [`borders`]: Knuth–Morris–Pratt over the last
/// `needle.len() - 1` bytes, in time linear in the shorter of the two.
fn longest_beginning_at_end(haystack: &[u8], needle: &[u8], border: &[usize]) -> usize {
    if needle.len() < 2 {
        return 0;
    }
    // Only the last `needle.len() - 1` bytes can hold a proper beginning, so the match never
    // reaches the whole needle.
    let window = &haystack[haystack.len().saturating_sub(needle.len() - 1)..];
    let mut matched = 0;
    for &b in window {
        while matched > 0 && needle[matched] != b {
            matched = border[matched - 1];
        }
        if needle[matched] == b {
            matched += 1;
        }
    }
    matched
}

/// The most bytes of a known value found as one piece; longer ones are also found by pieces.
const PIECE_BYTES: usize = 1024;

/// `value` in pieces of [`PIECE_BYTES`] (on character boundaries), when it is longer.
fn pieces(value: &str) -> Vec<&str> {
    let mut out = Vec::new();
    if value.len() <= PIECE_BYTES {
        return out;
    }
    let mut at = 0;
    while at < value.len() {
        let end = value.floor_char_boundary(at + PIECE_BYTES);
        out.push(&value[at..end]);
        at = end;
    }
    out
}

/// Whether a value is worth redacting wherever it occurs: random-looking
/// ([`super::rules::looks_like_credential`]), not a path, not a URL without a password.
fn looks_secret(value: &str) -> bool {
    let path = value.starts_with(['/', '~', '.']) || value.get(1..3) == Some(":\\");
    let url = value.split_once("://").is_some_and(|(scheme, rest)| {
        scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !rest.split('/').next().unwrap_or("").contains(':')
    });
    !path && !url && super::rules::looks_like_credential(value)
}

/// Whether a variable named `name` holds a secret, by the words of its name (split at `_`,
/// `-` and `.`, any case): a word that is `PAT`, `AUTH`, `JWT`, `SESSION`, `DSN` or `COOKIE`,
/// or that ends in `KEY`, `TOKEN`, `SECRET`, `PASS`, `PASSWORD`, `PASSWD`, `PASSPHRASE` or
/// `CREDENTIAL(S)` (`GITHUB_TOKEN`, `OPENAI_API_KEY`, `MINIO_ACCESSKEY`, `PGPASSWORD`,
/// `SSHPASS`, `GH_PAT`, `BW_SESSION`, `CI_JOB_JWT`), or `PWD` or `PW` after the first word
/// (`MYSQL_PWD`, `LDAP_BIND_PW`). Names of places and kinds are not: `PWD` itself, and names
/// ending in `_FILE`, `_PATH`, `_DIR`, `_SOCK`, `_URL`, `_URI`, `_LOCATION`, `_TYPE`,
/// `_METHOD`, `_NAME` or `_ID` (`SSH_AUTH_SOCK`, `OS_AUTH_URL`, `GPG_KEY_ID`).
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let places = [
        "_FILE",
        "_PATH",
        "_DIR",
        "_SOCK",
        "_URL",
        "_URI",
        "_LOCATION",
        "_TYPE",
        "_METHOD",
        "_NAME",
        "_ID",
    ];
    if places.iter().any(|s| upper.ends_with(s)) {
        return false;
    }
    let endings = [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASS",
        "PASSWORD",
        "PASSWD",
        "PASSPHRASE",
        "CREDENTIAL",
        "CREDENTIALS",
    ];
    upper.split(['_', '-', '.']).enumerate().any(|(i, word)| {
        matches!(word, "PAT" | "AUTH" | "JWT" | "SESSION" | "DSN" | "COOKIE")
            || (i > 0 && matches!(word, "PWD" | "PW"))
            || endings.iter().any(|end| word.ends_with(end))
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
            "SSHPASS",
            "RABBITMQ_DEFAULT_PASS",
            "BW_SESSION",
            "OP_SESSION_my",
            "CI_JOB_JWT_V2",
            "MINIO_ACCESSKEY",
            "LDAP_BIND_PW",
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
            "OS_AUTH_URL",
            "GPG_KEY_ID",
            "TOKENIZERS_PARALLELISM",
            "HOME",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn the_longest_beginning_of_a_value_at_a_texts_end_is_found() {
        let cases: [(&str, &str, usize); 7] = [
            ("xx abc\nde", "abc\ndef", 6),
            ("abc\ndef", "abc\ndef", 0),
            ("ab ab", "abab\nz", 2),
            ("ababa", "abab\nz", 3),
            ("aaaa", "aaaab", 4),
            ("", "ab", 0),
            ("zzz", "ab", 0),
        ];
        for (haystack, needle, want) in cases {
            assert_eq!(
                longest_beginning_at_end(
                    haystack.as_bytes(),
                    needle.as_bytes(),
                    &borders(needle.as_bytes())
                ),
                want,
                "{haystack:?} / {needle:?}"
            );
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
                "-----BEGIN X-----\nAAAABBBBCCCCDDD1\n-----END X-----",
            ),
        ];
        let known = KnownSecrets::from_env(env.iter().map(|(k, v)| (OsStr::new(k), OsStr::new(v))));
        let text = "x ghp_short AAAABBBBCCCCDDD1 abc eu-central-1";
        let mut spans = Vec::new();
        known.find_in(text, &mut spans);
        spans.sort_unstable();
        let found: Vec<&str> = spans.iter().map(|f| &text[f.start..f.end]).collect();
        assert_eq!(found, ["ghp_short", "AAAABBBBCCCCDDD1"]);
        // The whole key, its JSON spelling and its middle line (BEGIN and END are no
        // secrets), and the token.
        assert_eq!(format!("{known:?}"), "KnownSecrets(4 values)");
    }
}
