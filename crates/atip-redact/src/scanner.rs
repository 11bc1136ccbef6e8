//! The rules and the search for secrets in a text. A few SIMD literal searches over the text
//! find the rules' keywords (by four rare bytes of each, each hit checked whole); each line
//! holding one (a multi-line block from its first line to its end) is then searched by the
//! rules whose keywords it holds, each rule its own small automaton, in the text's own context,
//! and again right after each escape on that line that ends in a letter or digit. Every
//! accepted match of every rule is a secret; overlapping ones are redacted as one.

use std::collections::BTreeMap;
use std::ops::Range;

use aho_corasick::{AhoCorasick, MatchKind};
use regex_automata::util::captures::Captures;
use regex_automata::{meta, Anchored, Input, Match, PatternID};

use super::rules::{self, SecretCheck};
use super::{merge, Found, PatternError};

/// One rule as given.
#[derive(Clone)]
pub(super) struct Spec {
    pub(super) name: String,
    pub(super) pattern: String,
    pub(super) check: SecretCheck,
    /// Literals one of which every match holds; empty: unknown, the whole text is searched.
    pub(super) keywords: Vec<String>,
    /// Whether the keywords match in any ASCII case (else exactly as written).
    pub(super) ignore_case: bool,
    /// The least Shannon entropy of the secret, in bits per character.
    pub(super) entropy: Option<f64>,
    /// Whether a match may span lines; such a match starts with one of its keywords.
    pub(super) multiline: bool,
}

/// One rule compiled on its own.
struct Compiled {
    regex: meta::Regex,
    /// Whether every match starts at a line or text anchor (`^`): such a rule is not tried
    /// right after an escape, which is no line start.
    anchored: bool,
    /// Whether it has a group that names the secret ([`SECRET_GROUPS`], `loose`): without
    /// one the whole match is the secret, and a match needs no second search for its groups.
    grouped: bool,
}

/// The groups that name a rule's secret (another form of it in each), strictly judged.
const SECRET_GROUPS: [&str; 5] = ["secret", "secret2", "secret3", "secret4", "secret5"];

/// A secret one rule found, with the end of its whole match, before the rules' matches are
/// reconciled.
struct Candidate {
    found: Found,
    end: usize,
    rule: usize,
}

/// A part of a text and the rules to search it with.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Region {
    range: Range<usize>,
    rules: Vec<usize>,
}

/// Rules, each compiled on its own, and the keyword pass that picks them.
pub(super) struct Scanner {
    /// The rules as given.
    pub(super) specs: Vec<Spec>,
    compiled: Vec<Compiled>,
    /// Where to search, and with which rules (`None` when a rule has no keywords: the whole
    /// text, every rule).
    prefilter: Option<Prefilter>,
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
        let compiled = specs
            .iter()
            .zip(&patterns)
            .map(|(spec, pattern)| {
                let regex = meta::Builder::new()
                    .configure(
                        meta::Config::new()
                            .nfa_size_limit(Some(16 << 20))
                            .hybrid_cache_capacity(4 << 20),
                    )
                    .build(pattern)
                    .map_err(|e| PatternError {
                        name: spec.name.clone(),
                        message: e.to_string(),
                    })?;
                // Only a rule every match of which starts at a line or text start: one with
                // such an anchor in one alternative (`(?:(?m:^)|[^A-Za-z0-9])AccountKey…`)
                // may still match after an escape, where its haystack starts anew.
                let anchored = regex_automata::util::syntax::parse(pattern).map_or(true, |hir| {
                    hir.properties().look_set_prefix().contains_anchor()
                });
                let groups = regex.group_info();
                let grouped = SECRET_GROUPS
                    .iter()
                    .chain(&["loose"])
                    .any(|g| groups.to_index(PatternID::ZERO, g).is_some());
                Ok(Compiled {
                    regex,
                    anchored,
                    grouped,
                })
            })
            .collect::<Result<Vec<_>, PatternError>>()?;
        let prefilter = Prefilter::new(&specs, &patterns).map_err(|message| PatternError {
            name: "keywords".to_owned(),
            message,
        })?;
        Ok(Scanner {
            specs,
            compiled,
            prefilter,
        })
    }

    /// Every secret in `text` whose match begins at `from` or after, in order and not
    /// overlapping, with where its match begins: each rule on the regions whose keywords call
    /// for it, then right after escapes there. What is before `from` is read as context (a
    /// word boundary, whether `from` starts a line) only.
    pub(super) fn spans(&self, text: &str, from: usize) -> Vec<Found> {
        let mut regions = match &self.prefilter {
            Some(prefilter) => prefilter.regions(text).0,
            None => vec![self.everywhere(text)],
        };
        // A match begins at `from` or after; what is before is context (look-behind) only.
        if from > 0 {
            regions.retain_mut(|r| {
                r.range.start = r.range.start.max(from);
                r.range.start < r.range.end
            });
        }
        self.search(text, &regions)
    }

    /// [`Scanner::spans`] without the keyword pass: every rule over the whole text (what the
    /// keyword pass must agree with).
    #[cfg(test)]
    pub(super) fn spans_everywhere(&self, text: &str) -> Vec<Found> {
        self.search(text, &[self.everywhere(text)])
    }

    /// How many bytes the keyword pass's searches for the ends of multi-line blocks cover in
    /// `text` (`None` without a keyword pass).
    #[cfg(test)]
    pub(super) fn block_work(&self, text: &str) -> Option<usize> {
        self.prefilter.as_ref().map(|p| p.regions(text).1)
    }

    /// The whole of `text`, every rule.
    fn everywhere(&self, text: &str) -> Region {
        Region {
            range: 0..text.len(),
            rules: (0..self.specs.len()).collect(),
        }
    }

    /// The secrets of `regions`: each rule's matches there, reconciled as one automaton of
    /// all the rules would find them — leftmost first, the earlier rule first where two start
    /// together, the search going on after each match taken, and the secrets inside a taken
    /// match's label (a token as the user of a credential URL) taken too — then the secrets
    /// right after escapes.
    fn search(&self, text: &str, regions: &[Region]) -> Vec<Found> {
        let mut candidates = Vec::new();
        let mut caps: Vec<Option<Captures>> = Vec::new();
        caps.resize_with(self.specs.len(), || None);
        // Rule by rule, each over all its regions, while its automaton is warm.
        let mut work: Vec<(usize, usize)> = regions
            .iter()
            .enumerate()
            .flat_map(|(i, region)| region.rules.iter().map(move |&rule| (rule, i)))
            .collect();
        work.sort_unstable();
        for (rule, i) in work {
            let caps =
                caps[rule].get_or_insert_with(|| self.compiled[rule].regex.create_captures());
            self.scan(text, rule, regions[i].range.clone(), caps, &mut candidates);
        }
        candidates.sort_unstable_by_key(|c| (c.found.label, c.rule));
        let mut out: Vec<Found> = Vec::with_capacity(candidates.len());
        // The end of the last match taken outside labels, and that match's label.
        let mut reached = 0;
        let mut label = 0..0;
        for c in candidates {
            if c.found.label >= reached {
                reached = c.end;
                label = c.found.label + 1..c.found.start;
                out.push(c.found);
            } else if c.found.label >= label.start && c.end <= label.end {
                out.push(c.found);
            }
        }
        self.spans_after_escapes(text, regions, &mut caps, &mut out);
        out.sort_unstable();
        merge(out)
    }

    /// The accepted matches of `rule` in `text[range]` (the text around it read for word
    /// boundaries), appended to `out`. The search goes on after each match, or from the next
    /// character after a match turned down by the rule's check, where a shorter one may start.
    fn scan(
        &self,
        text: &str,
        rule: usize,
        range: Range<usize>,
        caps: &mut Captures,
        out: &mut Vec<Candidate>,
    ) {
        let regex = &self.compiled[rule].regex;
        let mut at = range.start;
        while at < range.end {
            let Some(m) = regex.search(&Input::new(text).range(at..range.end)) else {
                break;
            };
            if let Some((start, end)) = self.secret_of(rule, text, m, caps) {
                out.push(Candidate {
                    found: Found {
                        start,
                        end,
                        label: m.start(),
                    },
                    end: m.end().max(end),
                    rule,
                });
                at = m.end().max(m.start() + 1);
            } else {
                at = m.start() + 1;
            }
            while at < range.end && !text.is_char_boundary(at) {
                at += 1;
            }
        }
    }

    /// The secret of the match `m` of `rule` in `haystack`, if the rule accepts it: a group
    /// named `secret` (or `secret2`…`secret5` for other forms) judged by the rule's check, or
    /// `loose`, which must look like a credential; without a group, the whole match, which
    /// must not be a stand-in ([`rules::is_placeholder_token`]). A trailing `)` that closes a
    /// parenthesis opened before the match is not part of the secret.
    fn secret_of(
        &self,
        rule: usize,
        haystack: &str,
        m: Match,
        caps: &mut Captures,
    ) -> Option<(usize, usize)> {
        let spec = &self.specs[rule];
        let compiled = &self.compiled[rule];
        let (strict, loose) = if compiled.grouped {
            // The rule again, anchored where it matched, for its groups.
            compiled.regex.search_captures(
                &Input::new(haystack)
                    .range(m.start()..m.end())
                    .anchored(Anchored::Yes),
                caps,
            );
            (
                SECRET_GROUPS
                    .into_iter()
                    .find_map(|g| caps.get_group_by_name(g)),
                caps.get_group_by_name("loose"),
            )
        } else {
            (None, None)
        };
        let (secret, check) = match (strict, loose) {
            (Some(s), _) => (s, spec.check),
            (None, Some(l)) => (l, Some(rules::looks_like_credential as fn(&str) -> bool)),
            (None, None) => (m.span(), spec.check),
        };
        let whole_match = strict.is_none() && loose.is_none();
        let end =
            secret.start + unclosed_tail(haystack, m.start(), &haystack[secret.start..secret.end]);
        let value = &haystack[secret.start..end];
        let accepted = !value.is_empty()
            && check.is_none_or(|accept| accept(value))
            && !(whole_match && rules::is_placeholder_token(value))
            && spec
                .entropy
                .is_none_or(|least| rules::entropy(value) >= least);
        accepted.then_some((secret.start, end))
    }

    /// The secrets that start right after an escape ending in a letter or digit
    /// ([`escape_len`]: `\n`, `\t`, `\u0009` as JSON writes them, a terminal's colour codes),
    /// appended to `out`. In `"FOO=1\nghp_…"`, as a command prints JSON, the token follows the
    /// letter `n`, so a rule's leading word boundary does not hold in the text's own context;
    /// here each such position is matched as the start of a text of its own (anchored: a cost
    /// per escape followed by a letter or digit, not per byte), by the rules of the region it
    /// is in that do not anchor at a line start (an escape is not one). The escape stays.
    fn spans_after_escapes(
        &self,
        text: &str,
        regions: &[Region],
        caps: &mut [Option<Captures>],
        out: &mut Vec<Found>,
    ) {
        let bytes = text.as_bytes();
        let mut covered = 0;
        // Backslashes, ESC and `%` in one pass, carets in a second (positions start over).
        let positions =
            memchr::memchr3_iter(b'\\', 0x1b, b'%', bytes).chain(memchr::memchr_iter(b'^', bytes));
        let mut last = 0;
        let mut region = 0;
        for at in positions {
            if at < last {
                covered = 0;
                region = 0;
            }
            last = at;
            while regions.get(region).is_some_and(|r| r.range.end <= at) {
                region += 1;
            }
            let Some(here) = regions.get(region).filter(|r| r.range.start <= at) else {
                continue;
            };
            let start = at + escape_len(&bytes[at..]);
            if start == at
                || start < covered
                || !bytes.get(start).is_some_and(u8::is_ascii_alphanumeric)
            {
                continue;
            }
            let rest = &text[start..];
            for &rule in &here.rules {
                let compiled = &self.compiled[rule];
                if compiled.anchored {
                    continue;
                }
                let Some(m) = compiled
                    .regex
                    .search(&Input::new(rest).anchored(Anchored::Yes))
                else {
                    continue;
                };
                let caps = caps[rule].get_or_insert_with(|| compiled.regex.create_captures());
                if let Some((s, e)) = self.secret_of(rule, rest, m, caps) {
                    // The escape is held with the secret in a stream, as its label.
                    out.push(Found {
                        start: start + s,
                        end: start + e,
                        label: at,
                    });
                    covered = covered.max(start + e);
                }
            }
        }
    }
}

/// The most needles in one automaton: a search with up to this many literals runs SIMD
/// (Teddy) in the aho-corasick crate, where one automaton of all of them would walk every byte.
const NEEDLES_PER_AUTOMATON: usize = 48;

/// How many bytes the searches for where multi-line blocks end may cover per byte of text,
/// before the rest of the text is taken as one region.
pub(super) const BLOCK_WORK_PER_BYTE: usize = 4;

/// The longest needle: the SIMD search fingerprints a literal by at most its first 4 bytes.
pub(super) const NEEDLE_BYTES: usize = 4;

/// A keyword, what it calls for, and whether it starts a multi-line rule's block.
struct Keyword {
    word: Vec<u8>,
    rules: Vec<usize>,
    starts_block: bool,
    /// Where its needle starts in it.
    offset: usize,
}

/// Needles of one length searched as one: a window of at most [`NEEDLE_BYTES`] of each
/// keyword ([`needle_of`]), each with the keywords that hold it.
struct KeywordSearcher {
    automaton: AhoCorasick,
    /// Whether it reads the text ASCII-lowercased (the keywords of rules that ignore case,
    /// lowercased), else the text as it is (keywords spelled exactly).
    folded: bool,
    /// For each needle, its keywords.
    keywords: Vec<Vec<Keyword>>,
}

/// A keyword found, and where it starts.
struct Hit<'p> {
    start: usize,
    keyword: &'p Keyword,
}

/// The rules' keywords in small automata, the exactly spelled ones apart from those of rules
/// that ignore case, and the multi-line rules on their own: what finds the parts of a text
/// worth a rule's time, and which rules.
struct Prefilter {
    searchers: Vec<KeywordSearcher>,
    /// The multi-line rules, searched anchored at their keyword for where a block ends.
    blocks: Option<meta::Regex>,
    /// How many rules there are.
    count: usize,
}

impl Prefilter {
    /// `None` when a rule has no keywords (a caller's rule): the whole text is searched.
    fn new(specs: &[Spec], patterns: &[String]) -> Result<Option<Self>, String> {
        if specs.is_empty() || specs.iter().any(|s| s.keywords.is_empty()) {
            return Ok(None);
        }
        let mut searchers = Vec::new();
        for folded in [false, true] {
            // Each keyword of this kind once, with its rules and whether it starts a block.
            let mut words: BTreeMap<Vec<u8>, Keyword> = BTreeMap::new();
            for (rule, spec) in specs.iter().enumerate() {
                if spec.ignore_case != folded {
                    continue;
                }
                for k in &spec.keywords {
                    let word = if folded {
                        k.to_ascii_lowercase()
                    } else {
                        k.clone()
                    }
                    .into_bytes();
                    let keyword = words.entry(word.clone()).or_insert_with(|| Keyword {
                        offset: needle_of(&word),
                        word,
                        rules: Vec::new(),
                        starts_block: false,
                    });
                    keyword.rules.push(rule);
                    keyword.starts_block |= spec.multiline;
                }
            }
            // The keywords under their needles, by needle length then bytes: needles of one
            // length together, so that the SIMD search fingerprints each by all its bytes.
            let mut needles: BTreeMap<(usize, Vec<u8>), Vec<Keyword>> = BTreeMap::new();
            for w in words.into_values() {
                let needle = w.word[w.offset..(w.offset + NEEDLE_BYTES).min(w.word.len())].to_vec();
                needles.entry((needle.len(), needle)).or_default().push(w);
            }
            let mut needles = needles.into_iter().peekable();
            while let Some(((len, needle), keywords)) = needles.next() {
                let mut group = vec![(needle, keywords)];
                while group.len() < NEEDLES_PER_AUTOMATON {
                    match needles.next_if(|((l, _), _)| *l == len) {
                        Some(((_, n), k)) => group.push((n, k)),
                        None => break,
                    }
                }
                searchers.push(KeywordSearcher::new(group, folded)?);
            }
        }
        let block_patterns: Vec<&String> = specs
            .iter()
            .zip(patterns)
            .filter(|(s, _)| s.multiline)
            .map(|(_, p)| p)
            .collect();
        let blocks = if block_patterns.is_empty() {
            None
        } else {
            Some(meta::Regex::new_many(&block_patterns).map_err(|e| e.to_string())?)
        };
        Ok(Some(Prefilter {
            searchers,
            blocks,
            count: specs.len(),
        }))
    }

    /// Every keyword in `text`, in order of where it starts.
    fn hits(&self, text: &str) -> Vec<Hit<'_>> {
        let bytes = text.as_bytes();
        let lowered = self
            .searchers
            .iter()
            .any(|s| s.folded)
            .then(|| bytes.to_ascii_lowercase());
        let mut hits = Vec::new();
        for s in &self.searchers {
            let haystack = match &lowered {
                Some(lowered) if s.folded => lowered.as_slice(),
                _ => bytes,
            };
            let mut at = 0;
            while let Some(m) = s
                .automaton
                .find(aho_corasick::Input::new(haystack).span(at..haystack.len()))
            {
                for keyword in &s.keywords[m.pattern().as_usize()] {
                    let Some(start) = m.start().checked_sub(keyword.offset) else {
                        continue;
                    };
                    if haystack[start..].starts_with(&keyword.word) {
                        hits.push(Hit { start, keyword });
                    }
                }
                at = m.start() + 1;
            }
        }
        hits.sort_unstable_by_key(|h| h.start);
        hits
    }

    /// The regions of `text` a match can be in, in order and not overlapping, each with the
    /// rules whose keywords it holds: each line holding a keyword (its line break included),
    /// and from a multi-line rule's keyword to the end of its block's line; and how many bytes
    /// the block searches covered (at most [`BLOCK_WORK_PER_BYTE`] times the text's length,
    /// plus the last search).
    fn regions(&self, text: &str) -> (Vec<Region>, usize) {
        let bytes = text.as_bytes();
        let budget = BLOCK_WORK_PER_BYTE * bytes.len();
        let mut work = 0;
        let mut out: Vec<Region> = Vec::new();
        let mut wanted = vec![0u64; self.count.div_ceil(64)];
        let mut current: Option<Range<usize>> = None;
        let flush = |range: Range<usize>, wanted: &mut [u64], out: &mut Vec<Region>| {
            let mut rules = Vec::new();
            for (i, word) in wanted.iter_mut().enumerate() {
                while *word != 0 {
                    rules.push(i * 64 + word.trailing_zeros() as usize);
                    *word &= *word - 1;
                }
            }
            match out.last_mut() {
                // Only a block overlaps the next line; lines that merely touch stay apart,
                // each with its own rules.
                Some(last) if range.start < last.range.end => {
                    last.range.end = last.range.end.max(range.end);
                    last.rules.extend(rules);
                    last.rules.sort_unstable();
                    last.rules.dedup();
                }
                _ => out.push(Region { range, rules }),
            }
        };
        for hit in self.hits(text) {
            let range = match current.take() {
                Some(range) if hit.start < range.end => range,
                other => {
                    if let Some(done) = other {
                        flush(done, &mut wanted, &mut out);
                    }
                    let start = memchr::memrchr(b'\n', &bytes[..hit.start]).map_or(0, |i| i + 1);
                    start..line_end(bytes, hit.start + hit.keyword.word.len())
                }
            };
            let keyword = hit.keyword;
            for &rule in &keyword.rules {
                wanted[rule / 64] |= 1 << (rule % 64);
            }
            let mut end = range.end;
            if keyword.starts_block {
                if work > budget {
                    // Blocks inside blocks (a key's header line naming another key, again and
                    // again) would cost each search the rest of the block: past the budget the
                    // region runs to the end of the text instead, searched once.
                    end = bytes.len();
                } else if let Some(block) = self.blocks.as_ref().and_then(|b| {
                    b.search(&Input::new(text).range(hit.start..).anchored(Anchored::Yes))
                }) {
                    work += block.end() - hit.start;
                    end = end.max(line_end(bytes, block.end()));
                }
            }
            current = Some(range.start..end);
        }
        if let Some(done) = current {
            flush(done, &mut wanted, &mut out);
        }
        (out, work)
    }
}

impl KeywordSearcher {
    fn new(group: Vec<(Vec<u8>, Vec<Keyword>)>, folded: bool) -> Result<Self, String> {
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(group.iter().map(|(needle, _)| needle))
            .map_err(|e| e.to_string())?;
        Ok(KeywordSearcher {
            automaton,
            folded,
            keywords: group.into_iter().map(|(_, keywords)| keywords).collect(),
        })
    }
}

/// Where the needle of `keyword` starts in it: the window of [`NEEDLE_BYTES`] (or the whole
/// keyword, when shorter) whose bytes are rarest in command output, so that a SIMD search for
/// it stops seldom where the keyword is not (`-----BEGIN ` by `BEGI`, not on every run of
/// dashes in a table). The first such window on a tie.
pub(super) fn needle_of(keyword: &[u8]) -> usize {
    if keyword.len() <= NEEDLE_BYTES {
        return 0;
    }
    // How common a byte is in command output, roughly: separators and lowercase letters most.
    let common = |b: u8| -> u32 {
        match b {
            b' ' | b'-' | b'_' | b'.' | b'/' | b':' | b'=' | b'"' | b'\t' => 6,
            b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' | b'h' | b'l' | b'c' | b'd' => 4,
            b'a'..=b'z' | b'0'..=b'9' => 3,
            b'A'..=b'Z' => 2,
            _ => 1,
        }
    };
    let score = |w: &[u8]| -> u32 {
        // A window of one byte repeated (`----`) is as common as that byte's runs.
        let repeated = w.iter().all(|&b| b == w[0]);
        w.iter().map(|&b| common(b)).sum::<u32>() + if repeated { 20 } else { 0 }
    };
    (0..=keyword.len() - NEEDLE_BYTES)
        .min_by_key(|&i| (score(&keyword[i..i + NEEDLE_BYTES]), i))
        .unwrap_or(0)
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
        // `^[` is ESC in caret notation (`cat -v`, `less`): a control sequence may follow.
        [b'^', b'[', ..] => (2, true),
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
