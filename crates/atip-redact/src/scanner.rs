//! The rules compiled into one multi-pattern automaton, and the search for secrets in a text:
//! first for the rules' keywords (one Aho-Corasick pass), then with the automaton on the lines
//! that hold one, in the text's own context, and again right after each escape on those lines
//! that ends in a letter or digit.

use std::ops::Range;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};

use regex_automata::util::captures::Captures;
use regex_automata::{meta, Anchored, Input, Match};

use super::rules::{self, SecretCheck};
use super::{merge, Found, PatternError};

/// One rule as given.
#[derive(Clone)]
pub(super) struct Spec {
    pub(super) name: String,
    pub(super) pattern: String,
    pub(super) check: SecretCheck,
    /// Literals one of which every match holds (ASCII case-insensitive); empty: unknown, the
    /// whole text is searched.
    pub(super) keywords: Vec<String>,
    /// The least Shannon entropy of the secret, in bits per character.
    pub(super) entropy: Option<f64>,
    /// Whether a match may span lines; such a match starts with one of its keywords.
    pub(super) multiline: bool,
}

/// Some of the rules in one automaton: its pattern `i` is the rule `rules[i]`.
struct Automaton {
    regex: meta::Regex,
    rules: Vec<usize>,
}

impl Automaton {
    fn new(patterns: &[String], rules: Vec<usize>) -> Result<Self, (usize, String)> {
        let regex = meta::Builder::new()
            .configure(
                meta::Config::new()
                    .nfa_size_limit(Some(64 << 20))
                    .dfa_size_limit(Some(64 << 20))
                    .hybrid_cache_capacity(16 << 20),
            )
            .build_many(&rules.iter().map(|&r| &patterns[r]).collect::<Vec<_>>())
            .map_err(|e| {
                let rule = e.pattern().map_or(usize::MAX, |p| rules[p.as_usize()]);
                (rule, e.to_string())
            })?;
        Ok(Automaton { regex, rules })
    }
}

/// Rules compiled into one multi-pattern automaton.
pub(super) struct Scanner {
    /// The rules as given.
    pub(super) specs: Vec<Spec>,
    /// Each rule's pattern as compiled (ASCII word boundaries).
    patterns: Vec<String>,
    all: Automaton,
    /// Where to search: the lines holding a keyword (`None` when a rule has none).
    prefilter: Option<Prefilter>,
    /// The rules without a line or text anchor, for the searches after escapes; built the
    /// first time a text has such an escape (`None`: they did not compile on their own).
    after_escapes: OnceLock<Option<Automaton>>,
}

impl Scanner {
    pub(super) fn new(specs: Vec<Spec>) -> Result<Self, PatternError> {
        // ASCII word boundaries: a Unicode `\b` stops the lazy DFA on any non-ASCII text and
        // sends the search to a slower engine. Every rule's boundaries sit next to ASCII
        // letters, digits or punctuation, where both kinds agree.
        let patterns: Vec<String> = specs
            .iter()
            .map(|s| s.pattern.replace(r"\b", r"(?-u:\b)"))
            .collect();
        let all = Automaton::new(&patterns, (0..specs.len()).collect()).map_err(|(rule, e)| {
            PatternError {
                name: specs.get(rule).map_or("?", |s| s.name.as_str()).to_owned(),
                message: e,
            }
        })?;
        let prefilter = Prefilter::new(&specs, &patterns).map_err(|message| PatternError {
            name: "keywords".to_owned(),
            message,
        })?;
        Ok(Scanner {
            specs,
            patterns,
            all,
            prefilter,
            after_escapes: OnceLock::new(),
        })
    }

    /// [`Scanner::spans`] without the prefilter: the whole text searched (what the prefilter
    /// must agree with).
    #[cfg(test)]
    pub(super) fn spans_everywhere(&self, text: &str) -> Vec<Found> {
        let mut out = Vec::new();
        let mut caps = self.all.regex.create_captures();
        self.scan(text, 0..text.len(), &mut caps, &mut out, LABEL_DEPTH);
        out.sort_unstable();
        let found = out.len();
        self.spans_after_escapes(text, &[0..text.len()], &mut out);
        if out.len() > found {
            out.sort_unstable();
        }
        merge(out)
    }

    /// Every secret in `text`, in order and not overlapping, with where its match begins: the
    /// matches in the text's own context, then those right after an escape
    /// ([`Scanner::spans_after_escapes`]).
    pub(super) fn spans(&self, text: &str) -> Vec<Found> {
        let mut out = Vec::new();
        let mut caps = self.all.regex.create_captures();
        let ranges = match &self.prefilter {
            Some(prefilter) => prefilter.candidates(text),
            None => vec![0..text.len()],
        };
        for range in &ranges {
            self.scan(text, range.clone(), &mut caps, &mut out, LABEL_DEPTH);
        }
        out.sort_unstable();
        let found = out.len();
        self.spans_after_escapes(text, &ranges, &mut out);
        if out.len() > found {
            out.sort_unstable();
        }
        merge(out)
    }

    /// The accepted matches of every rule in `text[range]` (the text around it read for word
    /// boundaries), appended to `out`. The search goes on from the end of each match, so each
    /// match's label (what it matched before its secret: the user of
    /// `https://user:password@`, the `login` of a netrc line) is searched on its own after it,
    /// and the labels found in that one, `depth` levels down (a credential URL as a netrc
    /// login): each level reads a part of the text at most once, so the work stays linear.
    fn scan(
        &self,
        text: &str,
        range: std::ops::Range<usize>,
        caps: &mut Captures,
        out: &mut Vec<Found>,
        depth: u8,
    ) {
        let mut at = range.start;
        while at < range.end {
            let Some(m) = self
                .all
                .regex
                .search(&Input::new(text).range(at..range.end))
            else {
                break;
            };
            if let Some((start, end)) = self.secret_of(&self.all, text, m, caps) {
                out.push(Found {
                    start,
                    end,
                    label: m.start(),
                });
                at = m.end().max(m.start() + 1);
                if depth > 0 && start > m.start() + 1 {
                    self.scan(text, m.start() + 1..start, caps, out, depth - 1);
                }
            } else {
                // Turned down: another rule may still match from the next character on.
                at = m.start() + 1;
            }
            while at < range.end && !text.is_char_boundary(at) {
                at += 1;
            }
        }
    }

    /// The secret of the match `m` of `automaton` in `haystack`, if its rule accepts it: a
    /// group named `secret` (or `secret2`…`secret5` for other forms) judged by the rule's
    /// check, or `loose`, which must look like a credential; without a group, the whole match.
    fn secret_of(
        &self,
        automaton: &Automaton,
        haystack: &str,
        m: Match,
        caps: &mut Captures,
    ) -> Option<(usize, usize)> {
        let spec = &self.specs[automaton.rules[m.pattern().as_usize()]];
        // The same rule again, anchored where it matched, for its groups.
        automaton.regex.search_captures(
            &Input::new(haystack)
                .range(m.start()..m.end())
                .anchored(Anchored::Pattern(m.pattern())),
            caps,
        );
        let strict = ["secret", "secret2", "secret3", "secret4", "secret5"]
            .into_iter()
            .find_map(|g| caps.get_group_by_name(g));
        let (secret, check) = match (strict, caps.get_group_by_name("loose")) {
            (Some(s), _) => (s, spec.check),
            (None, Some(l)) => (l, Some(rules::looks_like_credential as fn(&str) -> bool)),
            (None, None) => (m.span(), spec.check),
        };
        let whole_match = strict.is_none() && caps.get_group_by_name("loose").is_none();
        let end = secret.start + unclosed_tail(haystack, m.start(), &haystack[secret.start..secret.end]);
        let value = &haystack[secret.start..end];
        let accepted = !value.is_empty()
            && check.is_none_or(|accept| accept(value))
            && !(whole_match && rules::is_placeholder_token(value))
            && spec.entropy.is_none_or(|least| entropy(value) >= least);
        accepted.then_some((secret.start, end))
    }

    /// The rules without a line or text anchor (`^`), compiled on first use.
    fn after_escapes(&self) -> Option<&Automaton> {
        self.after_escapes
            .get_or_init(|| {
                let unanchored = (0..self.patterns.len())
                    .filter(|&r| {
                        regex_automata::util::syntax::parse(&self.patterns[r])
                            .is_ok_and(|hir| !hir.properties().look_set().contains_anchor())
                    })
                    .collect();
                Automaton::new(&self.patterns, unanchored).ok()
            })
            .as_ref()
    }

    /// The secrets that start right after an escape ending in a letter or digit
    /// ([`escape_len`]: `\n`, `\t`, `\u0009` as JSON writes them, a terminal's colour codes),
    /// appended to `out`. In `"FOO=1\nghp_…"`, as a command prints JSON, the token follows the
    /// letter `n`, so a rule's leading word boundary does not hold in the text's own context;
    /// here each such position is matched as the start of a text of its own (anchored: a cost
    /// per escape followed by a letter or digit, not per byte), by the rules that do not
    /// anchor at a line start (an escape is not one). Only escapes in `ranges` (the lines
    /// holding a keyword, in order) are read: a match holds a keyword on the line it starts
    /// on. The escape stays.
    fn spans_after_escapes(&self, text: &str, ranges: &[Range<usize>], out: &mut Vec<Found>) {
        let bytes = text.as_bytes();
        let mut automaton = None;
        let mut caps = None;
        let mut covered = 0;
        // Backslashes, ESC and `%` in one pass, carets in a second (positions start over).
        let positions =
            memchr::memchr3_iter(b'\\', 0x1b, b'%', bytes).chain(memchr::memchr_iter(b'^', bytes));
        let mut last = 0;
        let mut range = 0;
        for at in positions {
            if at < last {
                covered = 0;
                range = 0;
            }
            last = at;
            while ranges.get(range).is_some_and(|r| r.end <= at) {
                range += 1;
            }
            if !ranges.get(range).is_some_and(|r| r.start <= at) {
                continue;
            }
            let start = at + escape_len(&bytes[at..]);
            if start == at
                || start < covered
                || !bytes.get(start).is_some_and(u8::is_ascii_alphanumeric)
            {
                continue;
            }
            let Some(automaton) = *automaton.get_or_insert_with(|| self.after_escapes()) else {
                return;
            };
            let caps = caps.get_or_insert_with(|| automaton.regex.create_captures());
            let rest = &text[start..];
            let Some(m) = automaton
                .regex
                .search(&Input::new(rest).anchored(Anchored::Yes))
            else {
                continue;
            };
            if let Some((s, e)) = self.secret_of(automaton, rest, m, caps) {
                // The escape is held with the secret in a stream, as its label.
                out.push(Found {
                    start: start + s,
                    end: start + e,
                    label: at,
                });
                covered = start + e;
            }
        }
    }
}

/// The keywords of every rule in one Aho-Corasick automaton, and the multi-line rules on their
/// own: what finds the parts of a text worth the whole automaton's time.
struct Prefilter {
    keywords: AhoCorasick,
    /// For each keyword, whether a multi-line rule has it.
    starts_block: Vec<bool>,
    /// The multi-line rules, searched anchored at their keyword for where a block ends.
    blocks: Option<meta::Regex>,
}

impl Prefilter {
    /// `None` when a rule has no keywords (a caller's rule): the whole text is searched.
    fn new(specs: &[Spec], patterns: &[String]) -> Result<Option<Self>, String> {
        if specs.is_empty() || specs.iter().any(|s| s.keywords.is_empty()) {
            return Ok(None);
        }
        let mut words: Vec<String> = Vec::new();
        let mut starts_block: Vec<bool> = Vec::new();
        for spec in specs {
            for k in &spec.keywords {
                let k = k.to_ascii_lowercase();
                match words.iter().position(|w| *w == k) {
                    Some(i) => starts_block[i] |= spec.multiline,
                    None => {
                        words.push(k);
                        starts_block.push(spec.multiline);
                    }
                }
            }
        }
        let keywords = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&words)
            .map_err(|e| e.to_string())?;
        let block_patterns: Vec<&String> = specs
            .iter()
            .zip(patterns)
            .filter(|(s, _)| s.multiline)
            .map(|(_, p)| p)
            .collect();
        let blocks = if block_patterns.is_empty() {
            None
        } else {
            Some(
                meta::Regex::new_many(&block_patterns).map_err(|e| e.to_string())?,
            )
        };
        Ok(Some(Prefilter {
            keywords,
            starts_block,
            blocks,
        }))
    }

    /// The parts of `text` a match can be in, in order and not overlapping: each line holding
    /// a keyword (its line break included), and from a multi-line rule's keyword to the end of
    /// its block's line.
    fn candidates(&self, text: &str) -> Vec<Range<usize>> {
        let bytes = text.as_bytes();
        let mut out: Vec<Range<usize>> = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let Some(m) = self
                .keywords
                .find(aho_corasick::Input::new(bytes).span(at..bytes.len()))
            else {
                break;
            };
            let start = memchr::memrchr(b'\n', &bytes[..m.start()]).map_or(0, |i| i + 1);
            let mut end = line_end(bytes, m.end());
            if self.starts_block[m.pattern().as_usize()] {
                if let Some(block) = self.blocks.as_ref().and_then(|b| {
                    b.search(&Input::new(text).range(m.start()..).anchored(Anchored::Yes))
                }) {
                    end = end.max(line_end(bytes, block.end()));
                }
            }
            match out.last_mut() {
                Some(last) if start <= last.end => last.end = last.end.max(end),
                _ => out.push(start..end),
            }
            at = end;
        }
        out
    }
}

/// The end of the line `at` is on, its line break included (or the end of `bytes`).
fn line_end(bytes: &[u8], at: usize) -> usize {
    memchr::memchr(b'\n', &bytes[at.min(bytes.len())..]).map_or(bytes.len(), |i| at + i + 1)
}

/// The length of `value` without the `)` that end it and close a parenthesis opened before
/// the match (at `label`) on its line: `(token: ghp_…)` keeps its `)`. A `)` with no `(` before
/// it on the line stays part of the value (a password may end in one).
fn unclosed_tail(haystack: &str, label: usize, value: &str) -> usize {
    let mut len = value.len();
    if !value.ends_with(')') {
        return len;
    }
    let line = &haystack[haystack[..label].rfind('\n').map_or(0, |i| i + 1)..label];
    let mut open = line.bytes().filter(|&b| b == b'(').count() as isize
        - line.bytes().filter(|&b| b == b')').count() as isize;
    let inner_open = value.bytes().filter(|&b| b == b'(').count() as isize;
    let mut inner_close = value.bytes().filter(|&b| b == b')').count() as isize;
    while open > 0 && value[..len].ends_with(')') && inner_close > inner_open {
        len -= 1;
        open -= 1;
        inner_close -= 1;
    }
    len
}

/// The Shannon entropy of `value`'s bytes, in bits per byte.
pub(super) fn entropy(value: &str) -> f64 {
    if value.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for b in value.bytes() {
        counts[usize::from(b)] += 1;
    }
    let n = value.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// How many levels of labels within labels are searched for secrets.
const LABEL_DEPTH: u8 = 3;

/// The most parameter and intermediate bytes of a control sequence [`escape_len`] reads.
const MAX_CSI_BYTES: usize = 64;

/// The length in bytes of an escape or encoded character at the start of `text` (one that
/// can end in a letter or digit, so that a token right after it has no word boundary), or 0:
///
/// * C's, JSON's and the shell's one-letter escapes `\n`, `\r`, `\t`, `\b`, `\f`, `\v`, `\a`,
///   `\e`, `\E` (2); octal `\0`, `\12`, `\012` (2–4); `\x0b` (4); JSON's `\u0009` (6); Rust's
///   `\u{1b}` (4–10); Go's `\U0001f600` (10);
/// * URL encoding `%0A` (3) and caret notation `^I` (`cat -v`; 2);
/// * ESC and one character (`ESC 7`, 2), a character set (`ESC ( B`, 3), and a terminal's
///   control sequence (`ESC [ 1 ; 32 m`, ECMA-48 CSI) after an ESC in any of the forms above.
///
/// At most 12 bytes but for a control sequence, as the stream's cuts rely on (`stream.rs`,
/// `outside_escapes`). The rules read `\u001b` already decoded to `ESC`
/// (`filter/unescape.rs`), so the sequence is found in that form too.
fn escape_len(text: &[u8]) -> usize {
    let hex = |from: usize, n: usize| {
        text.get(from..from + n)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    };
    let octal = |from: usize| {
        text[from.min(text.len())..]
            .iter()
            .take(3)
            .take_while(|b| (b'0'..=b'7').contains(*b))
            .count()
    };
    // The length of an escape, and whether it stands for ESC (a control sequence may follow).
    let (len, is_esc) = match text {
        [0x1b, b'(' | b')', 0x30..=0x7e, ..] => return 3,
        [0x1b, b'[', ..] => (1, true),
        [0x1b, 0x30..=0x7e, ..] => return 2,
        [0x1b, ..] => (1, true),
        [b'%', ..] if hex(1, 2) => return 3,
        [b'^', b'@'..=b'_' | b'?', ..] => return 2,
        [b'\\', b'u', b'{', ..] => {
            let digits = text[3..]
                .iter()
                .take(6)
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
            match text.get(3 + digits) {
                Some(b'}') if digits > 0 => {
                    let value = std::str::from_utf8(&text[3..3 + digits])
                        .ok()
                        .and_then(|d| u32::from_str_radix(d, 16).ok());
                    (4 + digits, value == Some(0x1b))
                }
                _ => return 0,
            }
        }
        [b'\\', b'u', ..] if hex(2, 4) => return 6,
        [b'\\', b'U', ..] if hex(2, 8) => (
            10,
            &text[2..10] == b"0000001b" || &text[2..10] == b"0000001B",
        ),
        [b'\\', b'x', ..] if hex(2, 2) => (4, text[2..4].eq_ignore_ascii_case(b"1b")),
        [b'\\', b'0'..=b'7', ..] => {
            let n = octal(1);
            (1 + n, &text[1..1 + n] == b"033")
        }
        [b'\\', b'e' | b'E', ..] => (2, true),
        [b'\\', b'n' | b'r' | b't' | b'b' | b'f' | b'v' | b'a', ..] => return 2,
        _ => return 0,
    };
    if !is_esc {
        return len;
    }
    let esc = len;
    // ECMA-48 CSI: `[`, parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, a final byte
    // 0x40–0x7E.
    let Some(b'[') = text.get(esc) else {
        return esc;
    };
    // At most `MAX_CSI_BYTES` of parameters: the streaming redactor holds back 4 KiB of an
    // unfinished line, and the whole sequence must still be there when the token after it
    // arrives (a longer one is taken for no sequence, as a terminal would give up on it).
    let mut end = esc + 1;
    let limit = end + MAX_CSI_BYTES;
    while end < limit && text.get(end).is_some_and(|b| (0x30..=0x3f).contains(b)) {
        end += 1;
    }
    while end < limit && text.get(end).is_some_and(|b| (0x20..=0x2f).contains(b)) {
        end += 1;
    }
    match text.get(end) {
        Some(0x40..=0x7e) => end + 1,
        _ => esc,
    }
}
