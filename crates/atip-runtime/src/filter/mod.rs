//! The result filter (spec §11.3): secrets out, then size down, before anything reaches a model.
//!
//! Redaction comes first and truncation second, on a UTF-8 boundary, so a cut can never leave a
//! secret's prefix behind. The rules are compiled into one multi-pattern automaton
//! (`regex-automata`): one pass finds the leftmost match of any rule and says which rule it is,
//! judged in the text's own context (line starts, word boundaries); its `secret` group is
//! replaced with `[REDACTED]`, so labels (`password=`, `Authorization: Bearer `) stay, or the
//! match is turned down by the rule's check (look-alike prose). The rules are written so that
//! the automaton stays small: matches start at a keyword or a literal prefix, never at an
//! open-ended identifier, and no repetition is bounded above without need.
//!
//! The built-in rules ([`ResultFilter::kinds`], 48 kinds, each with the source of its format in
//! `filter/rules.rs`) cover cloud keys (AWS, GCP, Azure), VCS and registry tokens (GitHub
//! classic and fine-grained, GitLab, npm, PyPI, Docker Hub), SaaS keys (Stripe, Slack tokens and
//! webhooks, SendGrid, Twilio, Shopify, OpenAI, Anthropic, Hugging Face, DigitalOcean, Grafana,
//! Heroku, Atlassian, Databricks, Vault, Terraform Cloud, Postman, Linear, New Relic, Sentry,
//! Telegram), JWTs, PEM and OpenSSH private keys (raw and JSON-escaped, also cut off), age
//! keys, URL credentials, HTTP `Authorization`, `Cookie` and `Set-Cookie`, `.netrc`, kubeconfig
//! and docker config secrets, and keyword assignments in `=`, `:`, JSON and YAML forms, quoted
//! or not, when the value looks like a credential (see `rules.rs` for the exact test). Prose
//! such as "Basic usage", "Password: required for login" or "invalid token: expired" stays;
//! so do commit hashes, image digests, UUIDs and resource ids.
//!
//! [`StreamRedactor`] applies the same rules to output as it arrives, holding back at most
//! [`STREAM_HOLD_BYTES`] of an unfinished line, so that a secret split across chunks is still
//! caught.

mod rules;
mod stream;
pub mod structured;

use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

use regex_automata::{meta, Anchored, Input};

pub use stream::{StreamRedactor, STREAM_HOLD_BYTES};

use rules::{SecretCheck, BUILTIN};

/// The text that replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

/// Default cap on the text of one result sent to a model, stdout and stderr together, in bytes
/// (atip-execute's `maxLength`).
pub const DEFAULT_MAX_BYTES: usize = 100_000;

/// Why a custom pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// The rule's name.
    pub name: String,
    /// What is wrong with its pattern.
    pub message: String,
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "secret pattern `{}`: {}", self.name, self.message)
    }
}

impl std::error::Error for PatternError {}

/// One rule as given.
#[derive(Clone)]
struct Spec {
    name: String,
    pattern: String,
    check: SecretCheck,
}

/// Rules compiled into one multi-pattern automaton.
struct Scanner {
    specs: Vec<Spec>,
    regex: meta::Regex,
}

impl Scanner {
    fn new(specs: Vec<Spec>) -> Result<Self, PatternError> {
        // ASCII word boundaries: a Unicode `\b` stops the lazy DFA on any non-ASCII text and
        // sends the search to a slower engine. Every rule's boundaries sit next to ASCII
        // letters, digits or punctuation, where both kinds agree.
        let patterns: Vec<String> = specs
            .iter()
            .map(|s| s.pattern.replace(r"\b", r"(?-u:\b)"))
            .collect();
        let regex = meta::Builder::new()
            .configure(
                meta::Config::new()
                    .nfa_size_limit(Some(64 << 20))
                    .dfa_size_limit(Some(64 << 20))
                    .hybrid_cache_capacity(16 << 20),
            )
            .build_many(&patterns)
            .map_err(|e| {
                let name = e
                    .pattern()
                    .and_then(|p| specs.get(p.as_usize()))
                    .map_or("?", |s| s.name.as_str());
                PatternError {
                    name: name.to_owned(),
                    message: e.to_string(),
                }
            })?;
        Ok(Scanner { specs, regex })
    }

    /// Every secret span in `text`, in order and not overlapping, as `(start, end)` byte
    /// offsets: the matches in the text's own context, then those right after an escape
    /// ([`Scanner::spans_after_escapes`]).
    fn spans(&self, text: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut caps = self.regex.create_captures();
        let mut at = 0;
        while at < text.len() {
            let Some(m) = self.regex.search(&Input::new(text).range(at..)) else {
                break;
            };
            if let Some(secret) = self.secret_of(text, m, &mut caps) {
                out.push(secret);
                at = m.end().max(m.start() + 1);
            } else {
                // Turned down: another rule may still match from the next character on.
                at = m.start() + 1;
            }
            while at < text.len() && !text.is_char_boundary(at) {
                at += 1;
            }
        }
        let found = out.len();
        self.spans_after_escapes(text, &mut out);
        if out.len() > found {
            out.sort_unstable();
            out = merge(out);
        }
        out
    }

    /// The secret of the match `m` in `haystack`, if its rule accepts it: a group named
    /// `secret` (or `secret2`…`secret4` for other forms) judged by the rule's check, or
    /// `loose`, which must look like a credential; without a group, the whole match.
    fn secret_of(
        &self,
        haystack: &str,
        m: regex_automata::Match,
        caps: &mut regex_automata::util::captures::Captures,
    ) -> Option<(usize, usize)> {
        let spec = &self.specs[m.pattern().as_usize()];
        // The same rule again, anchored where it matched, for its groups.
        self.regex.search_captures(
            &Input::new(haystack)
                .range(m.start()..m.end())
                .anchored(Anchored::Pattern(m.pattern())),
            caps,
        );
        let strict = ["secret", "secret2", "secret3", "secret4"]
            .into_iter()
            .find_map(|g| caps.get_group_by_name(g));
        let (secret, check) = match (strict, caps.get_group_by_name("loose")) {
            (Some(s), _) => (s, spec.check),
            (None, Some(l)) => (l, Some(rules::looks_like_credential as fn(&str) -> bool)),
            (None, None) => (m.span(), spec.check),
        };
        let accepted = !secret.is_empty()
            && check.is_none_or(|accept| accept(&haystack[secret.start..secret.end]));
        accepted.then_some((secret.start, secret.end))
    }

    /// The secrets that start right after an escape of JSON or C text ending in a letter or
    /// digit (`\n`, `\t`, `\r`, `\b`, `\f`, `\u0009`), appended to `out`. In
    /// `"FOO=1\nghp_…"`, as a command prints JSON, the token follows the letter `n`, so a
    /// rule's leading word boundary does not hold in the text's own context; here each such
    /// position is matched as the start of a text of its own (anchored: a cost per escape
    /// followed by a letter or digit, not per byte). The escape stays.
    fn spans_after_escapes(&self, text: &str, out: &mut Vec<(usize, usize)>) {
        let bytes = text.as_bytes();
        let mut caps = self.regex.create_captures();
        let mut covered = 0;
        for (at, _) in text.match_indices('\\') {
            let start = at + escape_len(&bytes[at..]);
            if start == at
                || start < covered
                || !bytes.get(start).is_some_and(u8::is_ascii_alphanumeric)
            {
                continue;
            }
            let rest = &text[start..];
            let Some(m) = self.regex.search(&Input::new(rest).anchored(Anchored::Yes)) else {
                continue;
            };
            if let Some((s, e)) = self.secret_of(rest, m, &mut caps) {
                out.push((start + s, start + e));
                covered = start + e;
            }
        }
    }
}

/// The length in bytes of an escape ending in a letter or digit at the start of `text`
/// (`\n`, `\r`, `\t`, `\b`, `\f`: 2; `\u` and four hex digits: 6), or 0.
fn escape_len(text: &[u8]) -> usize {
    match text {
        [b'\\', b'u', hex @ ..] if hex.len() >= 4 && hex[..4].iter().all(u8::is_ascii_hexdigit) => {
            6
        }
        [b'\\', b'n' | b'r' | b't' | b'b' | b'f', ..] => 2,
        _ => 0,
    }
}

/// Redacts secrets and caps the size of command output. Cheap to clone.
#[derive(Clone)]
pub struct ResultFilter {
    builtin: Arc<Scanner>,
    /// The caller's rules for every command's output, scanned in full.
    custom: Option<Arc<Scanner>>,
    /// Extra rules for the output of some commands: (glob over flattened names, rules).
    tool_rules: Arc<Vec<(String, Scanner)>>,
    redact: bool,
    max_bytes: usize,
}

impl std::fmt::Debug for ResultFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultFilter")
            .field("kinds", &self.kinds())
            .field(
                "tool_rules",
                &self
                    .tool_rules
                    .iter()
                    .map(|(g, s)| (g.as_str(), s.specs.len()))
                    .collect::<Vec<_>>(),
            )
            .field("redact", &self.redact)
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

/// The built-in rules, compiled once per process.
static BUILTIN_SCANNER: LazyLock<Arc<Scanner>> = LazyLock::new(|| {
    let specs = BUILTIN
        .iter()
        .map(|b| Spec {
            name: b.name.to_owned(),
            pattern: b.pattern.to_owned(),
            check: b.check,
        })
        .collect();
    Arc::new(Scanner::new(specs).expect("built-in patterns compile"))
});

static DEFAULT_FILTER: LazyLock<ResultFilter> = LazyLock::new(|| ResultFilter {
    builtin: Arc::clone(&BUILTIN_SCANNER),
    custom: None,
    tool_rules: Arc::new(Vec::new()),
    redact: true,
    max_bytes: DEFAULT_MAX_BYTES,
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

    /// The built-in rules, capped at [`DEFAULT_MAX_BYTES`] per result.
    pub fn new() -> Self {
        ResultFilter::default()
    }

    /// The names of the kinds of secrets this filter redacts, built-in first
    /// (`pem-private-key`, `github-token`, …), then the caller's.
    pub fn kinds(&self) -> Vec<&str> {
        self.builtin
            .specs
            .iter()
            .chain(self.custom.iter().flat_map(|c| c.specs.iter()))
            .map(|r| r.name.as_str())
            .collect()
    }

    /// Adds a rule for every command's output (regex crate syntax). A group named `secret`
    /// marks the part to replace; without it the whole match is replaced.
    ///
    /// # Errors
    ///
    /// [`PatternError`] when the pattern does not compile.
    pub fn with_pattern(mut self, name: &str, pattern: &str) -> Result<Self, PatternError> {
        let mut specs = self
            .custom
            .as_ref()
            .map(|c| c.specs.clone())
            .unwrap_or_default();
        specs.push(custom(name, pattern));
        self.custom = Some(Arc::new(Scanner::new(specs)?));
        Ok(self)
    }

    /// Adds a rule for the output of the commands whose flattened name matches the glob
    /// `tools` (`gh_auth_token`, `vault_*`), applied besides the shared rules (atip-bridge's
    /// per-tool filtering). `(?s).+` redacts such a command's whole output.
    ///
    /// # Errors
    ///
    /// [`PatternError`] when the pattern does not compile.
    pub fn with_tool_pattern(
        mut self,
        tools: &str,
        name: &str,
        pattern: &str,
    ) -> Result<Self, PatternError> {
        let mut all: Vec<(String, Vec<Spec>)> = self
            .tool_rules
            .iter()
            .map(|(g, s)| (g.clone(), s.specs.clone()))
            .collect();
        match all.iter_mut().find(|(g, _)| g == tools) {
            Some((_, specs)) => specs.push(custom(name, pattern)),
            None => all.push((tools.to_owned(), vec![custom(name, pattern)])),
        }
        let compiled = all
            .into_iter()
            .map(|(g, specs)| Ok((g, Scanner::new(specs)?)))
            .collect::<Result<Vec<_>, PatternError>>()?;
        self.tool_rules = Arc::new(compiled);
        Ok(self)
    }

    /// Turns redaction off (`false`) or on. Redaction is on unless switched off here: there is
    /// no other way to let secrets through.
    pub fn redact_secrets(mut self, on: bool) -> Self {
        self.redact = on;
        self
    }

    /// Whether redaction is on.
    pub fn redacts(&self) -> bool {
        self.redact
    }

    /// Caps each result at `bytes` (stdout and stderr together).
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// The cap per result, in bytes.
    pub fn current_max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The secret spans of `text` as `(start, end)` byte offsets, in order and not
    /// overlapping, for the output of the command `tool` (its extra rules included) or of any
    /// command (`None`). Empty when redaction is off.
    pub fn secret_spans(&self, text: &str, tool: Option<&str>) -> Vec<(usize, usize)> {
        if !self.redact {
            return Vec::new();
        }
        let mut spans = self.builtin.spans(text);
        let mut extra = false;
        if let Some(custom) = &self.custom {
            spans.extend(custom.spans(text));
            extra = true;
        }
        if let Some(tool) = tool {
            for (glob, scanner) in self.tool_rules.iter() {
                if crate::policy::name_matches(glob, tool) {
                    spans.extend(scanner.spans(text));
                    extra = true;
                }
            }
        }
        if extra {
            spans.sort_unstable();
            spans = merge(spans);
        }
        spans
    }

    /// Replaces every secret in `text` with [`REDACTED`]; returns the text and the count.
    pub fn redact<'t>(&self, text: &'t str) -> (Cow<'t, str>, usize) {
        self.redact_for(None, text)
    }

    /// [`ResultFilter::redact`] for the output of the command `tool` (its extra rules
    /// included).
    pub fn redact_for<'t>(&self, tool: Option<&str>, text: &'t str) -> (Cow<'t, str>, usize) {
        let spans = self.secret_spans(text, tool);
        (replace(text, &spans), spans.len())
    }

    /// Cuts `text` to at most `max_bytes` on a character boundary; returns the kept part and
    /// the number of bytes cut.
    pub fn truncate<'t>(&self, text: &'t str) -> (&'t str, usize) {
        cut(text, self.max_bytes)
    }

    /// Redacts, then truncates.
    pub fn filter(&self, text: &str) -> Filtered {
        self.filter_for(None, text)
    }

    /// [`ResultFilter::filter`] for the output of the command `tool`.
    pub fn filter_for(&self, tool: Option<&str>, text: &str) -> Filtered {
        let (redacted, redactions) = self.redact_for(tool, text);
        let (kept, omitted_bytes) = self.truncate(&redacted);
        Filtered {
            text: kept.to_owned(),
            redactions,
            omitted_bytes,
        }
    }
}

fn custom(name: &str, pattern: &str) -> Spec {
    Spec {
        name: name.to_owned(),
        pattern: pattern.to_owned(),
        check: None,
    }
}

/// Overlapping or touching spans as one.
fn merge(spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// `text` with each span replaced by [`REDACTED`].
fn replace<'t>(text: &'t str, spans: &[(usize, usize)]) -> Cow<'t, str> {
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for &(s, e) in spans {
        out.push_str(&text[last..s]);
        out.push_str(REDACTED);
        last = e;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// `text` cut to at most `max` bytes on a character boundary, and the bytes cut.
pub(crate) fn cut(text: &str, max: usize) -> (&str, usize) {
    if text.len() <= max {
        return (text, 0);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], text.len() - end)
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
mod tests;
