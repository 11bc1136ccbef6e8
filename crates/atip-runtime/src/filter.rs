//! The result filter (spec §11.3): secrets out, then size down, before anything reaches a model.
//!
//! Redaction comes first and truncation second, on a UTF-8 boundary, so a cut can never leave a
//! secret's prefix behind. Every pattern is part of one compiled regular expression scanned in a
//! single pass; only the (rare) matched spans are looked at again, to keep a label such as
//! `password=` or `Authorization: Bearer ` and replace only the secret with `[REDACTED]`.
//!
//! Built-in patterns: `Authorization` headers (Bearer, Basic, Token, …), standalone `Bearer`
//! tokens and `Basic` credentials, GitHub tokens (`ghp_`, `gho_`, `ghs_`, `ghu_`, `ghr_`,
//! `github_pat_`), AWS access key ids and secret keys, OpenAI and Anthropic API keys, Google API
//! keys, Slack tokens, Stripe secret keys and webhook secrets, JWTs, PEM private key blocks
//! (also when cut off before their END line), URL credentials (`scheme://user:pass@host`), and
//! `password`/`secret`/`token`/`api_key` (and kin) followed by `=`, `:` or whitespace. Prose such
//! as "Basic usage", "Bearer of bad news" or "token expired" is left alone: tokens after a
//! keyword and whitespace must look like secrets (letters and digits, 8+ characters).

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// The text that replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

/// Default cap on the text of one stream sent to a model, in bytes.
pub const DEFAULT_MAX_BYTES: usize = 100_000;

struct Rule {
    name: String,
    /// The pattern anchored to a whole matched span (`^(?:…)$`), with its named groups.
    anchored: Regex,
    /// Extra check on the secret text; a match failing it is left alone.
    accept: SecretCheck,
}

/// Redacts secrets and caps the size of command output. Cheap to clone.
#[derive(Clone)]
pub struct ResultFilter {
    rules: std::sync::Arc<Vec<Rule>>,
    combined: Regex,
    max_bytes: usize,
}

impl std::fmt::Debug for ResultFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultFilter")
            .field(
                "rules",
                &self
                    .rules
                    .iter()
                    .map(|r| r.name.as_str())
                    .collect::<Vec<_>>(),
            )
            .field("max_bytes", &self.max_bytes)
            .finish()
    }
}

/// What [`ResultFilter::filter`] did to a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filtered {
    /// The text to send.
    pub text: String,
    /// How many secrets were replaced.
    pub redactions: usize,
    /// Bytes cut off by the size cap (after redaction).
    pub omitted_bytes: usize,
}

fn looks_like_secret(s: &str) -> bool {
    s.len() >= 8
        && s.chars().any(|c| c.is_ascii_digit())
        && s.chars().any(|c| c.is_ascii_alphabetic())
}

fn looks_like_basic_credentials(s: &str) -> bool {
    s.len() >= 12
        && s.chars()
            .any(|c| c.is_ascii_digit() || matches!(c, '+' | '/' | '='))
}

/// A check on the captured secret that rejects look-alike prose (for example "Basic usage").
type SecretCheck = Option<fn(&str) -> bool>;

/// (name, pattern, check). A group `secret` marks what is replaced; without one the whole
/// match is. The order matters only for which rule names a match; every match is redacted.
const BUILTIN: &[(&str, &str, SecretCheck)] = &[
    (
        "pem-private-key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?P<secret>[\s\S]*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
        None,
    ),
    (
        "authorization-header",
        r"(?i:\bauthorization)[\x22']?\s*[:=]\s*(?i:(?:bearer|basic|token|digest|negotiate|apikey)\s+)?(?P<secret>[A-Za-z0-9._~+/=\-]{6,})",
        None,
    ),
    (
        "anthropic-api-key",
        r"\bsk-ant-[a-z]+[0-9]{0,2}-[A-Za-z0-9_\-]{20,}",
        None,
    ),
    (
        "openai-api-key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        None,
    ),
    (
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})",
        None,
    ),
    (
        "aws-access-key-id",
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\b",
        None,
    ),
    (
        "aws-secret-access-key",
        r"(?i:\baws_?secret_?(?:access_?)?key)[\x22']?\s*[:=]\s*[\x22']?(?P<secret>[A-Za-z0-9/+=]{40})",
        None,
    ),
    ("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}", None),
    (
        "slack-token",
        r"\b(?:xox[abposr]-[A-Za-z0-9\-]{10,}|xapp-[0-9]-[A-Za-z0-9\-]{10,})",
        None,
    ),
    (
        "stripe-key",
        r"\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{16,})",
        None,
    ),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        None,
    ),
    (
        "bearer-token",
        r"\b[Bb]earer\s+(?P<secret>[A-Za-z0-9._~+/\-]{20,}=*)",
        None,
    ),
    (
        "basic-credentials",
        r"\bBasic\s+(?P<secret>[A-Za-z0-9+/]{12,}={0,2})",
        Some(looks_like_basic_credentials),
    ),
    (
        "url-credentials",
        r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]+:(?P<secret>[^/\s@]+)@",
        None,
    ),
    (
        "keyword-assignment",
        r"(?i:(?:\b|_)(?:password|passwd|pwd|passphrase|secret|client_secret|secret_key|token|access_token|refresh_token|auth_token|api_key|apikey|api-key|private_key))[\x22']?\s*[:=]\s*[\x22']?(?P<secret>[^\s\x22',;&]+)",
        None,
    ),
    (
        "keyword-value",
        r"(?i:\b(?:password|secret|token|api_key))[ \t]+(?P<secret>[^\s\x22',;&]{8,})",
        Some(looks_like_secret),
    ),
];

/// Turns named groups into non-capturing ones, for the combined pattern.
fn unnamed(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(i) = rest.find("(?P<").or_else(|| rest.find("(?<")) {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        match after.find('>') {
            Some(j) => {
                out.push_str("(?:");
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(after);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

static DEFAULT_FILTER: LazyLock<ResultFilter> = LazyLock::new(|| {
    ResultFilter::build(
        BUILTIN
            .iter()
            .map(|(n, p, a)| ((*n).to_owned(), (*p).to_owned(), *a))
            .collect(),
        DEFAULT_MAX_BYTES,
    )
    .expect("built-in patterns compile")
});

impl Default for ResultFilter {
    fn default() -> Self {
        DEFAULT_FILTER.clone()
    }
}

impl ResultFilter {
    /// The shared default filter. Cloning a filter gives the clone fresh regex caches, which
    /// the first scan then has to build again; the default paths use this one instead.
    #[cfg(feature = "exec")]
    pub(crate) fn shared_default() -> &'static ResultFilter {
        &DEFAULT_FILTER
    }

    /// The built-in patterns, capped at [`DEFAULT_MAX_BYTES`] per stream.
    pub fn new() -> Self {
        ResultFilter::default()
    }

    fn build(
        rules: Vec<(String, String, SecretCheck)>,
        max_bytes: usize,
    ) -> Result<Self, regex::Error> {
        let combined = rules
            .iter()
            .map(|(_, p, _)| format!("(?:{})", unnamed(p)))
            .collect::<Vec<_>>()
            .join("|");
        let combined = Regex::new(&combined)?;
        let rules = rules
            .into_iter()
            .map(|(name, p, accept)| {
                Ok(Rule {
                    name,
                    anchored: Regex::new(&format!("^(?:{p})$"))?,
                    accept,
                })
            })
            .collect::<Result<Vec<_>, regex::Error>>()?;
        Ok(ResultFilter {
            rules: std::sync::Arc::new(rules),
            combined,
            max_bytes,
        })
    }

    /// Adds a pattern (regex crate syntax). A group named `secret` marks the part to replace;
    /// without it the whole match is replaced.
    ///
    /// # Errors
    ///
    /// When the pattern does not compile.
    pub fn with_pattern(self, name: &str, pattern: &str) -> Result<Self, regex::Error> {
        let mut rules: Vec<(String, String, SecretCheck)> = BUILTIN
            .iter()
            .filter(|(n, _, _)| self.rules.iter().any(|r| r.name == *n))
            .map(|(n, p, a)| ((*n).to_owned(), (*p).to_owned(), *a))
            .collect();
        for r in self.rules.iter() {
            if !BUILTIN.iter().any(|(n, _, _)| *n == r.name) {
                let p = r.anchored.as_str();
                let inner = &p["^(?:".len()..p.len() - ")$".len()];
                rules.push((r.name.clone(), inner.to_owned(), r.accept));
            }
        }
        rules.push((name.to_owned(), pattern.to_owned(), None));
        ResultFilter::build(rules, self.max_bytes)
    }

    /// Caps each stream at `bytes`.
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// The cap per stream, in bytes.
    pub fn current_max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// Replaces every secret in `text` with [`REDACTED`]; returns the text and the count.
    pub fn redact<'t>(&self, text: &'t str) -> (Cow<'t, str>, usize) {
        let mut out: Option<String> = None;
        let mut last = 0;
        let mut count = 0;
        for m in self.combined.find_iter(text) {
            let span = &text[m.start()..m.end()];
            let (secret_start, secret_end) = self.secret_span(span);
            let Some((s, e)) = secret_start.zip(secret_end) else {
                continue;
            };
            let buf = out.get_or_insert_with(|| String::with_capacity(text.len()));
            buf.push_str(&text[last..m.start() + s]);
            buf.push_str(REDACTED);
            last = m.start() + e;
            count += 1;
        }
        match out {
            None => (Cow::Borrowed(text), 0),
            Some(mut buf) => {
                buf.push_str(&text[last..]);
                (Cow::Owned(buf), count)
            }
        }
    }

    /// Where the secret lies inside a matched span, or `None` when the rule's check rejects it.
    fn secret_span(&self, span: &str) -> (Option<usize>, Option<usize>) {
        for rule in self.rules.iter() {
            let Some(caps) = rule.anchored.captures(span) else {
                continue;
            };
            let secret = caps
                .name("secret")
                .unwrap_or_else(|| caps.get(0).expect("group 0"));
            if let Some(accept) = rule.accept {
                if !accept(secret.as_str()) {
                    return (None, None);
                }
            }
            if secret.start() == secret.end() {
                return (None, None);
            }
            return (Some(secret.start()), Some(secret.end()));
        }
        // No rule recognises the span on its own: redact all of it rather than risk a leak.
        (Some(0), Some(span.len()))
    }

    /// Cuts `text` to at most `max_bytes` on a character boundary; returns the kept part and
    /// the number of bytes cut.
    pub fn truncate<'t>(&self, text: &'t str) -> (&'t str, usize) {
        if text.len() <= self.max_bytes {
            return (text, 0);
        }
        let mut end = self.max_bytes;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        (&text[..end], text.len() - end)
    }

    /// Redacts, then truncates.
    pub fn filter(&self, text: &str) -> Filtered {
        let (redacted, redactions) = self.redact(text);
        let (kept, omitted_bytes) = self.truncate(&redacted);
        Filtered {
            text: kept.to_owned(),
            redactions,
            omitted_bytes,
        }
    }
}

/// The end of output cut off at the capture cap: everything after the last whitespace (at
/// most 4 KiB back) is dropped, so no partial token — possibly a secret's prefix the patterns
/// cannot recognise any more — survives. Returns the kept text and the bytes dropped.
pub fn drop_partial_tail(text: &str) -> (&str, usize) {
    let floor = text.len().saturating_sub(4096);
    let cut = text[floor..]
        .rfind(char::is_whitespace)
        .map(|i| {
            let i = floor + i;
            i + text[i..].chars().next().map_or(0, char::len_utf8)
        })
        .unwrap_or(floor);
    let mut cut = cut.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    (&text[..cut], text.len() - cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str) -> String {
        ResultFilter::new().redact(text).0.into_owned()
    }

    #[test]
    fn each_secret_kind_is_redacted_with_its_label_kept() {
        let cases = [
            ("Authorization: Bearer abc.def-ghi_jkl", "Authorization: Bearer [REDACTED]"),
            ("authorization=Basic dXNlcjpwYXNz", "authorization=Basic [REDACTED]"),
            ("curl -H 'Authorization: token 0123456789abcdef'", "curl -H 'Authorization: token [REDACTED]'"),
            ("GITHUB ghp_0123456789abcdefghijABCDEFGHIJabcdef12 x", "GITHUB [REDACTED] x"),
            ("gho_0123456789abcdefghijABCDEFGHIJabcdef12", "[REDACTED]"),
            ("ghs_0123456789abcdefghijABCDEFGHIJabcdef12", "[REDACTED]"),
            ("ghu_0123456789abcdefghijABCDEFGHIJabcdef12", "[REDACTED]"),
            ("ghr_0123456789abcdefghijABCDEFGHIJabcdef12", "[REDACTED]"),
            ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED]"),
            ("key AKIAIOSFODNN7EXAMPLE used", "key [REDACTED] used"),
            ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED]"),
            ("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx1234", "OPENAI_API_KEY=[REDACTED]"),
            ("sk-abcdefghijklmnopqrstuvwxyz012345", "[REDACTED]"),
            ("x sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 y", "x [REDACTED] y"),
            ("AIzaSyA-0123456789abcdefghijklmnopqrstu", "[REDACTED]"),
            ("xoxb-123456789012-abcdefghij", "[REDACTED]"),
            ("sk_live_0123456789abcdefghij", "[REDACTED]"),
            ("whsec_0123456789abcdefghij", "[REDACTED]"),
            (
                "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "jwt [REDACTED]",
            ),
            ("Bearer abcdefghij0123456789XYZ", "Bearer [REDACTED]"),
            ("https://ada:hunter2@example.com/repo.git", "https://ada:[REDACTED]@example.com/repo.git"),
            ("password=hunter2", "password=[REDACTED]"),
            ("DB_PASSWORD: \"s3cr3t!\"", "DB_PASSWORD: \"[REDACTED]\""),
            ("{\"token\": \"abc\"}", "{\"token\": \"[REDACTED]\"}"),
            ("api_key:xyz", "api_key:[REDACTED]"),
            ("secret 9f8e7d6c5b4a", "secret [REDACTED]"),
        ];
        for (input, want) in cases {
            assert_eq!(r(input), want, "{input}");
        }
    }

    #[test]
    fn pem_blocks_are_redacted_even_when_cut_off() {
        let pem = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter";
        assert_eq!(
            r(pem),
            "before\n-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nafter"
        );
        let cut = "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA";
        assert_eq!(r(cut), "x\n-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]");
    }

    #[test]
    fn prose_survives() {
        for prose in [
            "Basic usage: atip gen FILE",
            "Bearer of bad news",
            "token expired, please log in",
            "The secret of good software is tests",
            "tokens are counted per request",
            "Password reset instructions were sent",
            "ask-ant-colony is a word",
            "Authorization required",
        ] {
            assert_eq!(r(prose), prose);
        }
    }

    #[test]
    fn truncation_happens_after_redaction_on_a_char_boundary() {
        let f = ResultFilter::new().max_bytes(20);
        let text = "ééé token=abcdefghijklmnop0123456789 tail";
        let out = f.filter(text);
        assert_eq!(out.redactions, 1);
        assert!(out.text.len() <= 20);
        assert!(!out.text.contains("abcdef"), "{}", out.text);
        assert_eq!(out.text, "ééé token=[REDACT");
        assert_eq!(
            out.omitted_bytes,
            "ééé token=[REDACTED] tail".len() - out.text.len()
        );
        let f = ResultFilter::new().max_bytes(2);
        assert_eq!(f.filter("é").text, "é");
        let f = ResultFilter::new().max_bytes(1);
        assert_eq!(f.filter("é").text, "");
    }

    #[test]
    fn custom_patterns_join_the_single_pass() {
        let f = ResultFilter::new()
            .with_pattern("internal-id", r"INT-(?P<secret>[0-9]{6})")
            .unwrap()
            .with_pattern("whole", r"\bhunter[0-9]\b")
            .unwrap();
        assert_eq!(
            f.redact("id INT-123456 and hunter2 and ghp_0123456789abcdefghijABCDEFGHIJabcdef12")
                .0,
            "id INT-[REDACTED] and [REDACTED] and [REDACTED]"
        );
        assert!(ResultFilter::new().with_pattern("bad", "(").is_err());
    }

    #[test]
    fn partial_tails_are_dropped() {
        assert_eq!(drop_partial_tail("line one\nghp_01234"), ("line one\n", 9));
        assert_eq!(drop_partial_tail("no space at all"), ("no space at ", 3));
        assert_eq!(
            drop_partial_tail("ends with space "),
            ("ends with space ", 0)
        );
        let long = "x".repeat(5000);
        assert_eq!(drop_partial_tail(&long).0.len(), 5000 - 4096);
    }
}
