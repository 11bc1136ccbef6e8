//! The keyword pass: where in a text a rule can match, found by SIMD literal searches for
//! the rules' keywords, and which rules each part calls for.

use std::collections::BTreeMap;
use std::ops::Range;

use aho_corasick::{AhoCorasick, MatchKind};
use regex_automata::{meta, Anchored, Input};

use super::{Region, Regions, Spec};

/// The most needles in one automaton: a search with up to this many literals runs SIMD
/// (Teddy) in the aho-corasick crate, where one automaton of all of them would walk every byte.
const NEEDLES_PER_AUTOMATON: usize = 64;

/// How many bytes the searches for where multi-line blocks end may cover per byte of text,
/// before the rest of the text is taken as one region.
pub(crate) const BLOCK_WORK_PER_BYTE: usize = 4;

/// The longest needle: the SIMD search fingerprints a literal by at most its first 4 bytes.
pub(crate) const NEEDLE_BYTES: usize = 4;

/// How much of a text is lowercased at a time for the keywords of rules that ignore case, in
/// bytes (a copy that stays in the CPU's caches).
pub(crate) const FOLD_BLOCK_BYTES: usize = 64 * 1024;

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
pub(super) struct Prefilter {
    searchers: Vec<KeywordSearcher>,
    /// The multi-line rules, searched anchored at their keyword for where a block ends.
    blocks: Option<meta::Regex>,
    /// How many rules there are.
    count: usize,
    /// For each rule, whether every match starts with a keyword ([`super::Compiled::leads`]):
    /// then it searches a line from its first keyword there.
    leads: Vec<bool>,
}

impl Prefilter {
    /// `None` when a rule has no keywords (a caller's rule): the whole text is searched.
    pub(super) fn new(
        specs: &[Spec],
        patterns: &[String],
        leads: Vec<bool>,
    ) -> Result<Option<Self>, String> {
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
            leads,
        }))
    }

    /// Every keyword in `text`, in order of where it starts. The keywords of rules that ignore
    /// case are searched in an ASCII-lowercased copy of the text made a block at a time
    /// ([`FOLD_BLOCK_BYTES`]), not whole: a copy of a whole MiB of output was one more large
    /// allocation per text, its pages faulted in anew each time.
    fn hits(&self, text: &str) -> Vec<Hit<'_>> {
        let bytes = text.as_bytes();
        let mut hits = Vec::new();
        for s in self.searchers.iter().filter(|s| !s.folded) {
            s.find(bytes, 0, bytes.len(), &mut hits, |at, word| {
                bytes[at..].starts_with(word)
            });
        }
        if self.searchers.iter().any(|s| s.folded) {
            let mut lowered = Vec::with_capacity(FOLD_BLOCK_BYTES.min(bytes.len()) + NEEDLE_BYTES);
            let mut block = 0;
            while block < bytes.len() {
                let end = (block + FOLD_BLOCK_BYTES).min(bytes.len());
                // A needle that starts in the block may end up to `NEEDLE_BYTES - 1` after it.
                let past = (end + NEEDLE_BYTES - 1).min(bytes.len());
                lowered.clear();
                lowered.extend(bytes[block..past].iter().map(u8::to_ascii_lowercase));
                for s in self.searchers.iter().filter(|s| s.folded) {
                    // A folded keyword is written in lower case: it matches any ASCII case.
                    s.find(&lowered, block, end - block, &mut hits, |at, word| {
                        bytes
                            .get(at..at + word.len())
                            .is_some_and(|b| b.eq_ignore_ascii_case(word))
                    });
                }
                block = end;
            }
        }
        hits.sort_unstable_by_key(|h| h.start);
        hits
    }

    /// The regions of `text` a match can be in, in order and not overlapping, each with the
    /// rules whose keywords it holds and where each rule's search there starts: each line
    /// holding a keyword (its line break included), and from a multi-line rule's keyword to the
    /// end of its block's line; and how many bytes the block searches covered (at most
    /// [`BLOCK_WORK_PER_BYTE`] times the text's length, plus the last search).
    ///
    /// Also where the first block begins that the next line may still make a secret, or a
    /// longer one ([`Regions::open_block`]): a keyword whose block (its rules' patterns,
    /// anchored there, their checks not applied) reaches the last whole line, or that stands
    /// there itself, or any past the block searches' budget.
    ///
    /// Only a block that begins at `hold_from` or after counts as open: one that began earlier
    /// can no longer be held whole, and would hide those after it.
    pub(super) fn regions(&self, text: &str, hold_from: usize) -> (Regions, usize) {
        let bytes = text.as_bytes();
        let last_line = last_whole_line(bytes);
        let budget = BLOCK_WORK_PER_BYTE * bytes.len();
        let mut work = 0;
        let mut out = Regions::default();
        // The rules of the region being found: those searched from its start, and those
        // searched from their first keyword in it (with where it starts).
        let mut wanted = vec![0u64; self.count.div_ceil(64)];
        let mut firsts: Vec<(usize, usize)> = Vec::new();
        let mut current: Option<Range<usize>> = None;
        let flush = |range: Range<usize>,
                     wanted: &mut [u64],
                     firsts: &mut Vec<(usize, usize)>,
                     out: &mut Regions| {
            let run = out.rules.len();
            for (i, word) in wanted.iter_mut().enumerate() {
                while *word != 0 {
                    // From 0: from wherever the region starts.
                    out.rules.push((i * 64 + word.trailing_zeros() as usize, 0));
                    *word &= *word - 1;
                }
            }
            out.rules.append(firsts);
            match out.list.last_mut() {
                // Only a block overlaps the next line; lines that merely touch stay apart,
                // each with its own rules. The last region's rules end the list, so the new
                // ones join them there, each rule once, from its earliest start.
                Some(last) if range.start < last.range.end => {
                    last.range.end = last.range.end.max(range.end);
                    earliest_per_rule(&mut out.rules, last.rules.start);
                    last.rules.end = out.rules.len();
                }
                _ => {
                    out.rules[run..].sort_unstable();
                    out.list.push(Region {
                        range,
                        rules: run..out.rules.len(),
                    });
                }
            }
        };
        for hit in self.hits(text) {
            let range = match current.take() {
                Some(range) if hit.start < range.end => range,
                other => {
                    if let Some(done) = other {
                        flush(done, &mut wanted, &mut firsts, &mut out);
                    }
                    let start = memchr::memrchr(b'\n', &bytes[..hit.start]).map_or(0, |i| i + 1);
                    start..line_end(bytes, hit.start + hit.keyword.word.len())
                }
            };
            let keyword = hit.keyword;
            for &rule in &keyword.rules {
                if !self.leads[rule] {
                    wanted[rule / 64] |= 1 << (rule % 64);
                } else if !firsts.iter().any(|&(r, _)| r == rule) {
                    firsts.push((rule, hit.start));
                }
            }
            let mut end = range.end;
            if keyword.starts_block {
                let open = if work > budget {
                    // Blocks inside blocks (a key's header line naming another key, again and
                    // again) would cost each search the rest of the block: past the budget the
                    // region runs to the end of the text instead, searched once.
                    end = bytes.len();
                    true
                } else if let Some(block) = self.blocks.as_ref().and_then(|b| {
                    b.search(&Input::new(text).range(hit.start..).anchored(Anchored::Yes))
                }) {
                    work += block.end() - hit.start;
                    end = end.max(line_end(bytes, block.end()));
                    block.end() >= last_line
                } else {
                    hit.start >= last_line
                };
                if open && hit.start >= hold_from && out.open_block.is_none() {
                    out.open_block = Some(hit.start);
                }
            }
            current = Some(range.start..end);
        }
        if let Some(done) = current {
            flush(done, &mut wanted, &mut firsts, &mut out);
        }
        (out, work)
    }
}

/// Where the last whole line of `bytes` starts (0 when no line has ended): a multi-line match
/// that reaches it may still grow with the next line.
pub(super) fn last_whole_line(bytes: &[u8]) -> usize {
    let unfinished = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
    memchr::memrchr(b'\n', &bytes[..unfinished.saturating_sub(1)]).map_or(0, |i| i + 1)
}

/// `rules[from..]` ((rule, where its search starts)) sorted, each rule once, with its
/// earliest start.
fn earliest_per_rule(rules: &mut Vec<(usize, usize)>, from: usize) {
    rules[from..].sort_unstable();
    let mut kept = from;
    for i in from..rules.len() {
        if kept == from || rules[kept - 1].0 != rules[i].0 {
            rules.swap(kept, i);
            kept += 1;
        }
    }
    rules.truncate(kept);
}

impl KeywordSearcher {
    /// Adds to `hits` each keyword whose needle starts in `haystack[..before]`, where
    /// `haystack` is the text from byte `offset` on; `holds(at, word)` says whether the text
    /// holds `word` at `at`.
    fn find<'p>(
        &'p self,
        haystack: &[u8],
        offset: usize,
        before: usize,
        hits: &mut Vec<Hit<'p>>,
        holds: impl Fn(usize, &[u8]) -> bool,
    ) {
        let mut at = 0;
        while let Some(m) = self
            .automaton
            .find(aho_corasick::Input::new(haystack).span(at..haystack.len()))
        {
            if m.start() >= before {
                break;
            }
            for keyword in &self.keywords[m.pattern().as_usize()] {
                let Some(start) = (offset + m.start()).checked_sub(keyword.offset) else {
                    continue;
                };
                if holds(start, &keyword.word) {
                    hits.push(Hit { start, keyword });
                }
            }
            at = m.start() + 1;
        }
    }

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

/// Words that command output prints often (HTTP headers, git logs, cloud CLIs' field names)
/// and that begin or hold a keyword: a needle inside one of them would stop the search at
/// every `Author:`, `Accept:`, `PrivateIpAddress`, `AccountId` or `keep-alive` (5,000 false
/// stops per MiB of the benchmark's output), so [`needle_of`] takes a window across the
/// keyword's joint (`uth=`, `ekey`, `_key`) instead.
const COMMON_WORDS: [&[u8]; 15] = [
    b"access",
    b"accept",
    b"account",
    b"author",
    b"connection",
    b"credential",
    b"encryption",
    b"license",
    b"live",
    b"master",
    b"password",
    b"private",
    b"secret",
    b"session",
    b"signing",
];

/// Where the needle of `keyword` starts in it: the window of [`NEEDLE_BYTES`] (or the whole
/// keyword, when shorter) least likely in command output, so that a SIMD search for it stops
/// seldom where the keyword is not: not inside a common word ([`COMMON_WORDS`], any case),
/// then of the rarest bytes (`-----BEGIN ` by `BEGI`, not on every run of dashes in a
/// table). The first such window on a tie.
pub(crate) fn needle_of(keyword: &[u8]) -> usize {
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
    let in_word = |w: &[u8]| {
        let w = w.to_ascii_lowercase();
        COMMON_WORDS
            .iter()
            .any(|word| word.windows(w.len()).any(|part| part == w.as_slice()))
    };
    let score = |w: &[u8]| -> u32 {
        // A window of one byte repeated (`----`) is as common as that byte's runs.
        let repeated = w.iter().all(|&b| b == w[0]);
        w.iter().map(|&b| common(b)).sum::<u32>()
            + if repeated { 20 } else { 0 }
            + if in_word(w) { 40 } else { 0 }
    };
    (0..=keyword.len() - NEEDLE_BYTES)
        .min_by_key(|&i| (score(&keyword[i..i + NEEDLE_BYTES]), i))
        .unwrap_or(0)
}

/// Whether every match of `hir` starts with one of `keywords` (in any ASCII case when
/// `ignore_case`), as far as its prefixes can be listed: each listed prefix of a match must
/// begin with a keyword. `false` when they cannot be listed (too many, unbounded) or one is
/// shorter than every keyword it could begin.
pub(crate) fn starts_with_keyword(
    hir: &regex_syntax::hir::Hir,
    keywords: &[String],
    ignore_case: bool,
) -> bool {
    let mut extractor = regex_syntax::hir::literal::Extractor::new();
    extractor.kind(regex_syntax::hir::literal::ExtractKind::Prefix);
    let prefixes = extractor.extract(hir);
    let Some(prefixes) = prefixes.literals() else {
        return false;
    };
    !prefixes.is_empty()
        && prefixes.iter().all(|prefix| {
            let prefix = prefix.as_bytes();
            keywords.iter().any(|k| {
                let k = k.as_bytes();
                prefix.len() >= k.len()
                    && if ignore_case {
                        prefix[..k.len()].eq_ignore_ascii_case(k)
                    } else {
                        prefix.starts_with(k)
                    }
            })
        })
}

/// The end of the line `at` is on, its line break included (or the end of `bytes`).
fn line_end(bytes: &[u8], at: usize) -> usize {
    memchr::memchr(b'\n', &bytes[at.min(bytes.len())..]).map_or(bytes.len(), |i| at + i + 1)
}
