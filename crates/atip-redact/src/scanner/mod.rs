//! The rules and the search for secrets in a text. A few SIMD literal searches over the text
//! find the rules' keywords (by four rare bytes of each, each hit checked whole:
//! `keywords.rs`); each line holding one (a multi-line block from its first line to its end)
//! is then searched by the rules whose keywords it holds, each rule its own small automaton, in
//! the text's own context — a rule every match of which starts with a keyword (a token's
//! prefix: 99 of the 140) from its first keyword on the line, not from the line's start — and
//! again right after each escape on that line that ends in a letter or digit (`escapes.rs`).
//! Every accepted match of every rule is a secret; overlapping ones are redacted as one. Rules
//! without keywords (a caller's) search the whole text, and say where a match may be under way
//! at its end (`unfinished.rs`), for a stream to hold.

use std::ops::Range;

use regex_automata::util::captures::Captures;
use regex_automata::util::pool::Pool;
use regex_automata::{meta, Anchored, Input, Match, PatternID};

use super::rules::{self, SecretCheck};
use super::{merge, Found, PatternError};

mod escapes;
mod keywords;
mod unfinished;

use escapes::escape_len;
pub(crate) use keywords::starts_with_keyword;
use keywords::{last_whole_line, Prefilter};
#[cfg(test)]
pub(crate) use keywords::{needle_of, BLOCK_WORK_PER_BYTE, FOLD_BLOCK_BYTES, NEEDLE_BYTES};

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
    /// Whether every match starts with one of its keywords ([`starts_with_keyword`]): with
    /// the keyword pass, such a rule searches a line from its first keyword there.
    leads: bool,
}

/// How many beginnings inside matches taken [`Scanner::under_way`] looks past before it holds
/// all that follows the last (more held, never less).
const UNDER_WAY_TRIES: usize = 16;

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
    /// Its rules: a run of [`Regions::rules`].
    rules: Range<usize>,
}

/// The parts of a text worth searching, in order and not overlapping, and their rules, kept
/// in two lists (not a list per part: a text may have a part per line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Regions {
    list: Vec<Region>,
    /// Each region's rules, a run per region in order, each rule once in a run, ascending:
    /// (rule, where its search starts). A rule every match of which starts with a keyword
    /// ([`Compiled::leads`]) is searched from its first keyword in the region; any other from
    /// the region's start (0: wherever the region starts).
    rules: Vec<(usize, usize)>,
    /// Where the first multi-line block begins that the next line of the text may still make
    /// a secret, by its keyword ([`Prefilter::regions`]): `base64 -w 40` prints a key's first
    /// line before the line that shows it is a key, and a line once passed on cannot be taken
    /// back.
    open_block: Option<usize>,
}

/// Rules, each compiled on its own, and the keyword pass that picks them.
pub(super) struct Scanner {
    /// The rules as given.
    pub(super) specs: Vec<Spec>,
    compiled: Vec<Compiled>,
    /// Where to search, and with which rules (`None` when a rule has no keywords: the whole
    /// text, every rule).
    prefilter: Option<Prefilter>,
    /// Without a keyword pass, the beginnings of each rule's matches, anchored at the text's
    /// end (`unfinished.rs`): where a match the next lines may complete can begin.
    unfinished: Option<unfinished::Beginnings>,
    /// Each rule's search state (its automata's caches and capture slots), made when the rule
    /// is first searched and kept for the next text: a stream searches its text a chunk at a
    /// time, and making capture slots anew per chunk cost a tenth of its time. Taken from the
    /// pool once per text, not per search as the regex's own pool would be, which locks a
    /// mutex on every thread but the first to search (a runtime's other workers, a stream's
    /// blocking thread). One set per thread searching.
    scratch: Pool<Vec<Option<Scratch>>>,
}

/// One rule's search state ([`Scanner::scratch`]).
struct Scratch {
    cache: meta::Cache,
    caps: Captures,
}

impl Scanner {
    pub(super) fn new(specs: Vec<Spec>) -> Result<Self, PatternError> {
        // ASCII word boundaries: a Unicode `\b` stops the lazy DFA on any non-ASCII text and
        // sends the search to a slower engine. Every rule's boundaries sit next to ASCII
        // letters, digits or punctuation, where both kinds agree.
        let patterns: Vec<String> = specs
            .iter()
            .map(|s| ascii_word_boundaries(&s.pattern))
            .collect();
        let mut hirs = Vec::with_capacity(specs.len());
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
                let hir = regex_automata::util::syntax::parse(pattern).ok();
                // Only a rule every match of which starts at a line or text start: one with
                // such an anchor in one alternative (`(?:(?m:^)|[^A-Za-z0-9])AccountKey…`)
                // may still match after an escape, where its haystack starts anew.
                let anchored = hir
                    .as_ref()
                    .is_none_or(|hir| hir.properties().look_set_prefix().contains_anchor());
                // A block's rule is searched from its line's start, as its region is found.
                let leads = !spec.multiline
                    && !spec.keywords.is_empty()
                    && hir.as_ref().is_some_and(|hir| {
                        starts_with_keyword(hir, &spec.keywords, spec.ignore_case)
                    });
                let groups = regex.group_info();
                let grouped = SECRET_GROUPS
                    .iter()
                    .chain(&["loose"])
                    .any(|g| groups.to_index(PatternID::ZERO, g).is_some());
                // Kept for the beginnings of the rules' matches (rules without keywords).
                hirs.push(hir);
                Ok(Compiled {
                    regex,
                    anchored,
                    grouped,
                    leads,
                })
            })
            .collect::<Result<Vec<_>, PatternError>>()?;
        let leads: Vec<bool> = compiled.iter().map(|c| c.leads).collect();
        let prefilter =
            Prefilter::new(&specs, &patterns, leads).map_err(|message| PatternError {
                name: "keywords".to_owned(),
                message,
            })?;
        let unfinished = prefilter
            .is_none()
            .then(|| unfinished::Beginnings::new(hirs));
        Ok(Scanner {
            specs,
            compiled,
            prefilter,
            unfinished,
            scratch: Pool::new(Vec::new),
        })
    }

    /// Every secret in `text` whose match begins at `from` or after, in order and not
    /// overlapping, with where its match begins: each rule on the regions whose keywords call
    /// for it, then right after escapes there. What is before `from` is read as context (a
    /// word boundary, whether `from` starts a line) only.
    ///
    /// And, when `hold_from` (at `from` or after) is given (a stream's redactor asking where
    /// to hold the text from: what begins before it can no longer be held whole, and is not
    /// counted), where a
    /// multi-line block begins, at `from` or after, that the next line may still
    /// make a secret or lengthen (a stream holds the text from there): the earliest of a block
    /// keyword's ([`Regions::open_block`]), the label of a match of a multi-line rule that
    /// reaches the last whole line, and, for rules without keywords (a caller's, a command's),
    /// the start of the earliest beginning of a match that the text's end may still be part of
    /// (`unfinished.rs`: a block whose closing line has not come yet).
    pub(super) fn spans(
        &self,
        text: &str,
        from: usize,
        hold_from: Option<usize>,
    ) -> (Vec<Found>, Option<usize>) {
        // Whole (no hold asked for): no block counts as open.
        let floor = hold_from.unwrap_or(usize::MAX);
        let mut regions = match &self.prefilter {
            Some(prefilter) => prefilter.regions(text, floor).0,
            None => self.everywhere(text),
        };
        // A match begins at `from` or after; what is before is context (look-behind) only.
        if from > 0 {
            regions.list.retain_mut(|r| {
                r.range.start = r.range.start.max(from);
                r.range.start < r.range.end
            });
        }
        let (found, grows, taken) = self.search(text, &regions, floor);
        let under_way = match (hold_from, &self.unfinished) {
            (Some(hold_from), Some(beginnings)) => {
                Self::under_way(text, beginnings, hold_from, &taken)
            }
            _ => None,
        };
        let open_block = regions
            .open_block
            .into_iter()
            .chain(grows)
            .chain(under_way)
            .min();
        (found, open_block.map(|at| at.max(from)))
    }

    /// Where, at `start` or after, the earliest match the next lines may still complete
    /// begins (`unfinished.rs`), outside the matches `taken` (`label..end`, in order): the
    /// text after a match's start is not searched again, as the whole text's search goes on
    /// after the match, but one that begins before or with a match taken is held (it may be
    /// found first). Past [`UNDER_WAY_TRIES`] beginnings inside matches taken, all from the
    /// last such match's end on is held.
    fn under_way(
        text: &str,
        beginnings: &unfinished::Beginnings,
        mut start: usize,
        taken: &[Range<usize>],
    ) -> Option<usize> {
        for _ in 0..UNDER_WAY_TRIES {
            let at = beginnings.earliest(text, start)?;
            // One that begins where a match taken begins may be an earlier rule's, which the
            // whole text's search would take instead: held.
            match taken.iter().find(|m| m.start < at && at < m.end) {
                Some(m) => start = m.end,
                None => return Some(at),
            }
        }
        Some(start).filter(|&at| at < text.len())
    }

    /// How many rules are searched from their keywords only ([`Compiled::leads`]).
    #[cfg(test)]
    pub(super) fn leading_rules(&self) -> usize {
        self.compiled.iter().filter(|c| c.leads).count()
    }

    /// The secrets of [`Scanner::spans`] without the keyword pass: every rule over the whole
    /// text (what the keyword pass must agree with).
    #[cfg(test)]
    pub(super) fn spans_everywhere(&self, text: &str) -> Vec<Found> {
        self.search(text, &self.everywhere(text), usize::MAX).0
    }

    /// How many bytes the keyword pass's searches for the ends of multi-line blocks cover in
    /// `text` (`None` without a keyword pass).
    #[cfg(test)]
    pub(super) fn block_work(&self, text: &str) -> Option<usize> {
        self.prefilter.as_ref().map(|p| p.regions(text, 0).1)
    }

    /// The whole of `text`, every rule.
    fn everywhere(&self, text: &str) -> Regions {
        Regions {
            list: vec![Region {
                range: 0..text.len(),
                rules: 0..self.specs.len(),
            }],
            rules: (0..self.specs.len()).map(|rule| (rule, 0)).collect(),
            open_block: None,
        }
    }

    /// The secrets of `regions`: each rule's matches there, reconciled as one automaton of
    /// all the rules would find them — leftmost first, the earlier rule first where two start
    /// together, the search going on after each match taken, and the secrets inside a taken
    /// match's label (a token as the user of a credential URL) taken too — then the secrets
    /// right after escapes. Also the earliest label of a match taken of a multi-line rule
    /// that reaches the last whole line: the next line may make it longer.
    ///
    /// And the matches taken outside labels, as `label..end` in order (what a search of the
    /// whole text does not search again). Labels before `floor` do not count as growing.
    fn search(
        &self,
        text: &str,
        regions: &Regions,
        floor: usize,
    ) -> (Vec<Found>, Option<usize>, Vec<Range<usize>>) {
        let last_line = last_whole_line(text.as_bytes());
        let mut grows: Option<usize> = None;
        let mut candidates = Vec::new();
        let mut scratch = self.scratch.get();
        scratch.resize_with(self.specs.len(), || None);
        for (rule, start, end) in Self::work(regions) {
            let state = self.scratch_of(&mut scratch, rule);
            self.scan(text, rule, start..end, state, &mut candidates);
        }
        candidates.sort_unstable_by_key(|c| (c.found.label, c.rule));
        let mut out: Vec<Found> = Vec::with_capacity(candidates.len());
        // The end of the last match taken outside labels, and that match's label.
        let mut reached = 0;
        let mut label = 0..0;
        let mut matches = Vec::new();
        for c in candidates {
            let taken = if c.found.label >= reached {
                reached = c.end;
                matches.push(c.found.label..c.end);
                label = c.found.label + 1..c.found.start;
                true
            } else {
                c.found.label >= label.start && c.end <= label.end
            };
            if taken {
                if self.specs[c.rule].multiline && c.end >= last_line && c.found.label >= floor {
                    grows = grows.into_iter().chain([c.found.label]).min();
                }
                out.push(c.found);
            }
        }
        // The secrets after escapes are found beside the search, which does not skip them.
        self.spans_after_escapes(text, regions, &mut scratch, &mut out);
        out.sort_unstable();
        (merge(out), grows, matches)
    }

    /// `rule`'s search state in a set taken from [`Scanner::scratch`], made on first use.
    fn scratch_of<'s>(&self, scratch: &'s mut [Option<Scratch>], rule: usize) -> &'s mut Scratch {
        scratch[rule].get_or_insert_with(|| {
            let regex = &self.compiled[rule].regex;
            Scratch {
                cache: regex.create_cache(),
                caps: regex.create_captures(),
            }
        })
    }

    /// The searches the rules make in `regions`, rule by rule, each over all its regions in
    /// order while its automaton is warm: (rule, where it starts, where its region ends).
    /// Each rule searches a region once, so the bytes searched are at most the rules times
    /// the text's length, however many keywords a line holds.
    fn work(regions: &Regions) -> Vec<(usize, usize, usize)> {
        let mut work: Vec<(usize, usize, usize)> = Vec::new();
        for region in &regions.list {
            let rules = regions.rules[region.rules.clone()].iter();
            work.extend(
                rules.map(|&(rule, from)| (rule, from.max(region.range.start), region.range.end)),
            );
        }
        work.sort_unstable();
        work
    }

    /// How many bytes the rules' searches cover in `text` (`None` without a keyword pass).
    #[cfg(test)]
    pub(super) fn search_work(&self, text: &str) -> Option<usize> {
        let regions = self.prefilter.as_ref()?.regions(text, 0).0;
        Some(
            Self::work(&regions)
                .iter()
                .map(|(_, start, end)| end - start)
                .sum(),
        )
    }

    /// The accepted matches of `rule` in `text[range]` (the text around it read for word
    /// boundaries), appended to `out`. The search goes on after each match, or from the next
    /// character after a match turned down by the rule's check, where a shorter one may start.
    fn scan(
        &self,
        text: &str,
        rule: usize,
        range: Range<usize>,
        state: &mut Scratch,
        out: &mut Vec<Candidate>,
    ) {
        let regex = &self.compiled[rule].regex;
        let mut at = range.start;
        while at < range.end {
            let input = Input::new(text).range(at..range.end);
            let Some(m) = regex.search_with(&mut state.cache, &input) else {
                break;
            };
            if let Some((start, end)) = self.secret_of(rule, text, m, state) {
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
        state: &mut Scratch,
    ) -> Option<(usize, usize)> {
        let spec = &self.specs[rule];
        let compiled = &self.compiled[rule];
        let caps = &mut state.caps;
        let (strict, loose) = if compiled.grouped {
            // The rule again, anchored where it matched, for its groups.
            compiled.regex.search_captures_with(
                &mut state.cache,
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
        regions: &Regions,
        scratch: &mut [Option<Scratch>],
        out: &mut Vec<Found>,
    ) {
        let bytes = text.as_bytes();
        let mut covered = 0;
        // Backslashes, ESC and `%` in one pass, carets in a second (positions start over).
        let positions =
            memchr::memchr3_iter(b'\\', 0x1b, b'%', bytes).chain(memchr::memchr_iter(b'^', bytes));
        let list = &regions.list;
        let mut last = 0;
        let mut region = 0;
        for at in positions {
            if at < last {
                covered = 0;
                region = 0;
            }
            last = at;
            while list.get(region).is_some_and(|r| r.range.end <= at) {
                region += 1;
            }
            let Some(here) = list.get(region).filter(|r| r.range.start <= at) else {
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
            for &(rule, _) in &regions.rules[here.rules.clone()] {
                let compiled = &self.compiled[rule];
                if compiled.anchored {
                    continue;
                }
                let state = self.scratch_of(scratch, rule);
                let input = Input::new(rest).anchored(Anchored::Yes);
                let Some(m) = compiled.regex.search_with(&mut state.cache, &input) else {
                    continue;
                };
                if let Some((s, e)) = self.secret_of(rule, rest, m, state) {
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

/// `pattern` with each `\b` an ASCII word boundary (`(?-u:\b)`); an escaped backslash before a
/// `b` (`C:\\bin`) is a backslash and a letter, and stays.
fn ascii_word_boundaries(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b') => out.push_str(r"(?-u:\b)"),
            Some(next) => {
                out.push(c);
                out.push(next);
            }
            None => out.push(c),
        }
    }
    out
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
