//! The result filter (spec §11.3): secrets out, then size down, before anything reaches a model.
//!
//! Redaction comes first and truncation second, on a UTF-8 boundary, so a cut can never leave a
//! secret's prefix behind.
//!
//! # Rules as data
//!
//! The built-in rules ([`ResultFilter::kinds`], 140 kinds) are the files in `rules/` of this
//! crate, one per family (private keys; keyed forms; tokens of a documented shape; free-form
//! prose), compiled into the library by its build script. Each rule gives its pattern (regex
//! crate syntax), the keywords one of which every match holds, an optional check and entropy
//! floor, where its format is documented, and its own examples and counter-examples, which the
//! crate's tests run (whole and streamed). `rules/README.md` describes the schema.
//!
//! # How a text is searched
//!
//! A SIMD literal search (Teddy, in the aho-corasick crate) finds the rules' keywords: a window
//! of four rare bytes of each, a few dozen per pass, each hit then checked whole, with the
//! keywords of rules that ignore case searched in an ASCII-lowercased copy. Each line holding
//! one (a multi-line block from its first line to its end) is then searched by the rules whose
//! keywords it holds, rule after rule, each its own automaton (`regex-automata`), judged in the
//! text's own context (line starts, word boundaries). Where matches of different rules overlap
//! they are reconciled as one automaton of all the rules would find them: leftmost first, the
//! earlier rule first where two start together, and a secret inside another match's label (a
//! token as the user of a credential URL) is taken too. A rule costs time only on the lines
//! that hold its keywords. A match's `secret` group is replaced with `[REDACTED]`, so labels
//! (`password=`, `Authorization: Bearer `) stay, or the match is turned down by its rule's check
//! (look-alike prose, placeholders such as `xxxx`, `EXAMPLE`, `${VAR}`, `$(cmd)`, `ENC[…]`).
//!
//! The kinds cover private keys (PEM, OpenSSH, PGP, PuTTY, OpenVPN static keys, base64-wrapped
//! PEM, age), keyed forms (JSON, YAML, `.env`, shell, Go `:=`, PHP and Ruby `=>`, XML
//! attributes and elements, ODBC connection strings, `.netrc`, `.pgpass`, Oracle connect
//! strings, cookie files, Bundler credentials, passwords on `mysql`, `sshpass`, `redis-cli` and
//! `curl` command lines, HTTP `Authorization`, `Cookie` and `Set-Cookie`, URL userinfo and
//! query secrets), about a hundred vendor token formats with a documented prefix (cloud,
//! source hosting, registries, AI providers, SaaS APIs, webhooks), JWTs, and credentials in
//! prose (`using token …`) when the value looks like one. Commit hashes, image digests, UUIDs
//! and resource ids stay.
//!
//! [`StreamRedactor`] applies the same rules to output as it arrives, holding back at most
//! [`STREAM_HOLD_BYTES`] of an unfinished line, so that a secret split across chunks is still
//! caught.
//!
//! Users normally reach this crate through `atip-runtime`, whose runner filters every result
//! with it: `atip_runtime::ResultFilter`, `atip_runtime::filter`.
#![deny(missing_docs)]

mod known;
mod rules;
mod scanner;
mod stream;
pub mod structured;
mod unescape;

use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

pub use known::{is_secret_name, KnownSecrets, MIN_KNOWN_SECRET_BYTES};
pub use stream::{StreamRedactor, STREAM_HOLD_BYTES};

use rules::BUILTIN;
use scanner::{Scanner, Spec};

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

/// Redacts secrets and caps the size of command output. Cheap to clone.
#[derive(Clone)]
pub struct ResultFilter {
    builtin: Arc<Scanner>,
    /// The caller's rules for every command's output, scanned in full.
    custom: Option<Arc<Scanner>>,
    /// Extra rules for the output of some commands: (glob over flattened names, rules).
    tool_rules: Arc<Vec<(String, Scanner)>>,
    /// Values redacted wherever they occur (a run's secret variables).
    known: KnownSecrets,
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
            keywords: b.keywords.iter().map(|k| (*k).to_owned()).collect(),
            ignore_case: b.ignore_case,
            entropy: b.entropy,
            multiline: b.multiline,
        })
        .collect();
    Arc::new(Scanner::new(specs).expect("built-in patterns compile"))
});

static DEFAULT_FILTER: LazyLock<ResultFilter> = LazyLock::new(|| ResultFilter {
    builtin: Arc::clone(&BUILTIN_SCANNER),
    custom: None,
    tool_rules: Arc::new(Vec::new()),
    known: KnownSecrets::default(),
    redact: true,
    max_bytes: DEFAULT_MAX_BYTES,
});

impl Default for ResultFilter {
    fn default() -> Self {
        DEFAULT_FILTER.clone()
    }
}

impl ResultFilter {
    /// The default filter ([`ResultFilter::new`]), shared by the whole process. Cloning a
    /// filter gives the clone fresh regex caches, which its first scan then has to build again;
    /// code that filters with the defaults many times should borrow this one instead.
    pub fn shared_default() -> &'static ResultFilter {
        &DEFAULT_FILTER
    }

    /// The built-in rules, capped at [`DEFAULT_MAX_BYTES`] per result.
    pub fn new() -> Self {
        ResultFilter::default()
    }

    /// This filter, also redacting `known` values wherever they occur, whatever their shape
    /// (the runner gives each run's output a filter with the values of the secret variables it
    /// handed the command: [`KnownSecrets::from_env`]). Nothing changes when redaction is off.
    pub fn with_known_secrets(&self, known: &KnownSecrets) -> ResultFilter {
        ResultFilter {
            known: known.clone(),
            ..self.clone()
        }
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
    /// command (`None`). Empty when redaction is off. The rules read `text` with JSON's `\/`
    /// and `\uXXXX` escapes decoded, as a parser or a model reads it (`gh\u0070_…` is a
    /// token); a span that covers part of an escape covers all of it.
    pub fn secret_spans(&self, text: &str, tool: Option<&str>) -> Vec<(usize, usize)> {
        self.secrets(text, tool, 0, false)
            .0
            .into_iter()
            .map(|f| (f.start, f.end))
            .collect()
    }

    /// [`ResultFilter::secret_spans`] with where each secret's match begins (its label), of
    /// the matches that begin at `from` or after: what is before it is context only (a stream's
    /// character before its cut, already passed on), read for word boundaries and line starts
    /// but not taken for where a line or the text begins.
    ///
    /// And, with `hold` (a stream's redactor), where the text should be held from: the
    /// earliest multi-line block, at `from` or after, that the next line may still make a
    /// secret or lengthen, by any of the rules (built-in, the caller's, the command's:
    /// `Scanner::spans`), or known value of several lines that the text's end begins
    /// (`KnownSecrets::open_at_end`). Each is looked for in the last `MAX_HOLD_BYTES` only:
    /// one that began before can no longer be held whole, and must not hide those after it.
    fn secrets(
        &self,
        text: &str,
        tool: Option<&str>,
        from: usize,
        hold: bool,
    ) -> (Vec<Found>, Option<usize>) {
        if !self.redact {
            return (Vec::new(), None);
        }
        // The rules read the text with its `\/` and `\uXXXX` escapes decoded.
        let raw = text;
        let decoded = unescape::decode(raw);
        let text = decoded.text.as_ref();
        // No escape is decoded before `from` (a stream keeps no backslash as context), so it
        // is the same offset in the decoded text.
        // Where a hold may begin, in either text.
        let hold_from = |text: &str| {
            hold.then(|| {
                from.max(text.ceil_char_boundary(text.len().saturating_sub(stream::MAX_HOLD_BYTES)))
            })
        };
        let decoded_hold = hold_from(text);
        let (mut found, open_block) = self.builtin.spans(text, from, decoded_hold);
        let mut open_block = open_block.map(|at| decoded.start(at));
        let mut extra = false;
        let mut add = |(spans, open): (Vec<Found>, Option<usize>)| {
            found.extend(spans);
            open_block = open_block
                .into_iter()
                .chain(open.map(|at| decoded.start(at)))
                .min();
        };
        if let Some(custom) = &self.custom {
            add(custom.spans(text, from, decoded_hold));
            extra = true;
        }
        if let Some(tool) = tool {
            for (glob, scanner) in self.tool_rules.iter() {
                if glob_matches(glob, tool) {
                    add(scanner.spans(text, from, decoded_hold));
                    extra = true;
                }
            }
        }
        extra |= self.known.find_in(text, &mut found);
        // A known value of several lines the text's end begins (as decoded, and as written).
        let decoded_open = decoded_hold
            .and_then(|at| self.known.open_at_end(text, at))
            .map(|at| decoded.start(at));
        let raw_open = hold_from(raw)
            .filter(|_| raw != text)
            .and_then(|at| self.known.open_at_end(raw, at));
        open_block = open_block
            .into_iter()
            .chain(decoded_open)
            .chain(raw_open)
            .min();
        // Known values are found anywhere; the rules' spans begin at `from` already.
        found.retain(|f| f.label >= from);
        if extra {
            found.sort_unstable();
            found = merge(found);
        }
        let mut found = decoded.to_output(found);
        // Known values as written too: one that holds `\/` itself reads differently decoded.
        if raw != text && self.known.find_in(raw, &mut found) {
            found.retain(|f| f.label >= from);
            found.sort_unstable();
            found = merge(found);
        }
        (found, open_block)
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
        let text = if omitted_bytes == 0 {
            redacted.into_owned()
        } else {
            kept.to_owned()
        };
        Filtered {
            text,
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
        keywords: Vec::new(),
        ignore_case: false,
        entropy: None,
        multiline: true,
    }
}

/// A secret found in a text: its span (`start..end`, byte offsets) and where the match that
/// found it begins (`label`: `password=`, `Authorization: Bearer `, `https://user:`), which a
/// stream holds back with it. Ordered by span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    start: usize,
    end: usize,
    label: usize,
}

/// Overlapping or touching secrets as one (the earliest label kept); `found` is in order.
fn merge(found: Vec<Found>) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::with_capacity(found.len());
    for f in found {
        match out.last_mut() {
            Some(last) if f.start <= last.end => {
                last.end = last.end.max(f.end);
                last.label = last.label.min(f.label);
            }
            _ => out.push(f),
        }
    }
    out
}

/// `text` with each span replaced by [`REDACTED`].
pub(crate) fn replace<'t>(text: &'t str, spans: &[(usize, usize)]) -> Cow<'t, str> {
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    replace_into(&mut out, text, spans);
    Cow::Owned(out)
}

/// [`replace`], appended to `out`.
pub(crate) fn replace_into(out: &mut String, text: &str, spans: &[(usize, usize)]) {
    out.reserve(text.len());
    let mut last = 0;
    for &(s, e) in spans {
        out.push_str(&text[last..s]);
        out.push_str(REDACTED);
        last = e;
    }
    out.push_str(&text[last..]);
}

/// Whether the glob `pattern` (`*`, `?`, `[…]`) matches the command name `name`; an invalid
/// glob matches only itself, literally (as the policy's command patterns do).
fn glob_matches(pattern: &str, name: &str) -> bool {
    match glob::Pattern::new(pattern) {
        Ok(p) => p.matches(name),
        Err(_) => pattern == name,
    }
}

/// `text` cut to at most `max` bytes on a character boundary, and the number of bytes cut.
///
/// ```
/// # use atip_redact::cut;
/// assert_eq!(cut("héllo", 2), ("h", 5));
/// assert_eq!(cut("hello", 10), ("hello", 0));
/// ```
pub fn cut(text: &str, max: usize) -> (&str, usize) {
    if text.len() <= max {
        return (text, 0);
    }
    let end = text.floor_char_boundary(max);
    (&text[..end], text.len() - end)
}

/// `bytes` as text, each invalid UTF-8 sequence (a maximal subpart, as `Utf8Error::error_len`
/// delimits it; an incomplete one at the end too) replaced by one U+FFFD: what
/// `String::from_utf8_lossy` returns, borrowed when `bytes` are valid UTF-8. Infallible. Valid text, what
/// commands nearly always print, is checked by `str::from_utf8` (tens of GB/s);
/// `from_utf8_lossy` reads a byte at a time (3.5 GB/s on 2026-11-30's machine, a tenth of the
/// result filter's time on a MiB of output). Only what follows the first invalid sequence goes
/// the slow way.
///
/// ```
/// # use atip_redact::utf8_lossy;
/// assert!(matches!(utf8_lossy(b"plain"), std::borrow::Cow::Borrowed("plain")));
/// assert_eq!(utf8_lossy(b"ok \xff then \xe2\x82"), "ok \u{FFFD} then \u{FFFD}");
/// ```
pub fn utf8_lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(e) => {
            let (valid, rest) = bytes.split_at(e.valid_up_to());
            let mut text = String::with_capacity(bytes.len() + 2);
            text.push_str(std::str::from_utf8(valid).unwrap_or_default());
            text.push_str(&String::from_utf8_lossy(rest));
            Cow::Owned(text)
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
    let cut = text.floor_char_boundary(cut);
    (&text[..cut], text.len() - cut)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod escape_tests;

#[cfg(test)]
mod rules_tests;

#[cfg(test)]
mod review_tests;

#[cfg(test)]
mod hold_tests;
