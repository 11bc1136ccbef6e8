//! Where a match may be under way at the end of a text: for the rules searched over the whole
//! text (a caller's and a command's rules, which have no keywords), an automaton per rule of
//! every beginning of its matches, anchored at the text's end. A stream holds the text from the
//! earliest such beginning, so that lines that begin a match which only later lines complete
//! (a block between two marker lines, a value on the line after its name) are not passed on
//! before the match can be made.

use regex_automata::{meta, Input};
use regex_syntax::hir::{Hir, HirKind, Look, Repetition};

/// For each rule, the beginnings of its matches anchored at the end of the text
/// ([`automaton`]); `None` for a rule whose automaton could not be made (its pattern could not
/// be read again, or its beginnings exceed the size limit): for it, all that may be held is.
pub(super) struct Beginnings(Vec<Option<meta::Regex>>);

impl Beginnings {
    /// The automata of `hirs`, each rule's syntax tree (`None` where it could not be read).
    pub(super) fn new(hirs: Vec<Option<Hir>>) -> Self {
        Beginnings(
            hirs.into_iter()
                .map(|hir| hir.and_then(|hir| automaton(&hir)))
                .collect(),
        )
    }

    /// Where in `text`, at `start` or after, the earliest match of any rule begins that the
    /// text's end may still be part of (a match the next lines may complete), if one may. An
    /// escape cut off at the end (`\u00`, a lone `\`, a surrogate pair's first half) may
    /// decode to anything once it is whole: the text is also read up to the first backslash of
    /// its last [`ESCAPE_BYTES`].
    pub(super) fn earliest(&self, text: &str, start: usize) -> Option<usize> {
        let bytes = text.as_bytes();
        let window = bytes.len().saturating_sub(ESCAPE_BYTES);
        let escape = memchr::memchr(b'\\', &bytes[window..]).map(|i| window + i);
        [Some(bytes.len()), escape]
            .into_iter()
            .flatten()
            .filter(|&end| start < end)
            .filter_map(|end| self.earliest_before(&text[..end], start))
            .min()
    }

    /// [`Beginnings::earliest`] with `haystack` taken as the whole text.
    fn earliest_before(&self, haystack: &str, start: usize) -> Option<usize> {
        let end = haystack.len();
        self.0
            .iter()
            .filter_map(|automaton| match automaton {
                Some(re) => re
                    .search(&Input::new(haystack).range(start..))
                    .map(|m| m.start())
                    .filter(|&at| at < end),
                None => Some(start),
            })
            .min()
    }
}

/// The longest escape the rules read decoded (`\uXXXX\uXXXX`, a surrogate pair), in bytes.
const ESCAPE_BYTES: usize = 12;

/// The beginnings of the matches of `hir`, anchored at the end of the text: its leftmost match
/// in a text starts where the earliest match that the text's end may still be part of begins
/// (the empty beginning matches at the end itself, so there is always one). `None` when the
/// automaton exceeds the size limit (four times a rule's).
fn automaton(hir: &Hir) -> Option<meta::Regex> {
    let hir = Hir::concat(vec![beginnings(&without_groups(hir)), Hir::look(Look::End)]);
    meta::Builder::new()
        .configure(
            meta::Config::new()
                .nfa_size_limit(Some(64 << 20))
                .hybrid_cache_capacity(4 << 20),
        )
        .build_from_hir(&hir)
        .ok()
}

/// `hir` matching its own strings and every beginning of them (the prefix closure of its
/// language): what a text's end holds when a match of `hir` is cut there. A look-around that
/// the cut falls before may still hold; one inside the beginning is checked as in `hir`.
fn beginnings(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Empty => Hir::empty(),
        // Character by character, nested: `(?:s(?:e(?:c)?)?)?`.
        HirKind::Literal(literal) => match std::str::from_utf8(&literal.0) {
            Ok(text) => text.chars().rev().fold(Hir::empty(), |rest, c| {
                let mut buf = [0; 4];
                optional(Hir::concat(vec![
                    Hir::literal(c.encode_utf8(&mut buf).as_bytes()),
                    rest,
                ]))
            }),
            Err(_) => optional(hir.clone()),
        },
        HirKind::Class(_) | HirKind::Look(_) => optional(hir.clone()),
        // A beginning of `r{n,m}` is up to `m - 1` whole `r` and a beginning of one more.
        HirKind::Repetition(rep) => match rep.max {
            Some(0) => Hir::empty(),
            max => Hir::concat(vec![
                Hir::repetition(Repetition {
                    min: 0,
                    max: max.map(|m| m - 1),
                    greedy: true,
                    sub: rep.sub.clone(),
                }),
                beginnings(&rep.sub),
            ]),
        },
        HirKind::Capture(capture) => beginnings(&capture.sub),
        // A beginning of `a b c` is one of `a`, or `a` and one of `b c`, nested from the end.
        HirKind::Concat(parts) => {
            let mut parts = parts.iter().rev();
            let last = parts.next().map_or_else(Hir::empty, beginnings);
            parts.fold(last, |rest, part| {
                Hir::alternation(vec![
                    beginnings(part),
                    Hir::concat(vec![part.clone(), rest]),
                ])
            })
        }
        HirKind::Alternation(alternatives) => {
            Hir::alternation(alternatives.iter().map(beginnings).collect())
        }
    }
}

/// `hir` with its groups taken out, keeping what they match: a part copied into several
/// alternatives would name a group twice.
fn without_groups(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Capture(capture) => without_groups(&capture.sub),
        HirKind::Repetition(rep) => Hir::repetition(Repetition {
            sub: Box::new(without_groups(&rep.sub)),
            ..rep.clone()
        }),
        HirKind::Concat(parts) => Hir::concat(parts.iter().map(without_groups).collect()),
        HirKind::Alternation(alternatives) => {
            Hir::alternation(alternatives.iter().map(without_groups).collect())
        }
        _ => hir.clone(),
    }
}

/// `hir` or nothing.
fn optional(hir: Hir) -> Hir {
    Hir::repetition(Repetition {
        min: 0,
        max: Some(1),
        greedy: true,
        sub: Box::new(hir),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the leftmost match of the beginnings of `pattern` ends `text` starts.
    fn open_at(pattern: &str, text: &str) -> usize {
        let hir = regex_automata::util::syntax::parse(pattern).expect("parses");
        let re = automaton(&hir).expect("builds");
        re.search(&Input::new(text))
            .expect("always matches")
            .start()
    }

    #[test]
    fn the_earliest_beginning_of_a_match_at_the_end_is_found() {
        let vault = r"BEGIN VAULT\n(?P<secret>(?:[A-Z=]+\n)+)END VAULT";
        // Cut after its first line, inside a body line, after a body line, inside the END.
        assert_eq!(open_at(vault, "x\nBEGIN VAULT\n"), 2);
        assert_eq!(open_at(vault, "x\nBEGIN VAULT\nAB"), 2);
        assert_eq!(open_at(vault, "x\nBEGIN VAULT\nAB=\n"), 2);
        assert_eq!(open_at(vault, "x\nBEGIN VAULT\nAB=\nEND VA"), 2);
        // A body line that no match may hold ends it: nothing is under way.
        assert_eq!(open_at(vault, "x\nBEGIN VAULT\nab\n"), 17);
        // Inside the marker itself.
        assert_eq!(open_at(vault, "x\nBEGIN VA"), 2);
        let keyed = r"secret_value:\s*(?P<secret>[a-z]{4,})";
        assert_eq!(open_at(keyed, "a\nsecret_value:\n\n  "), 2);
        assert_eq!(open_at(keyed, "a\nsecret_value: x\n"), 18);
        // Counted repetitions: at most `m - 1` whole and a beginning of one more.
        assert_eq!(open_at(r"(?:ab){2}\n", "xabab"), 1);
        assert_eq!(open_at(r"(?:ab){2}\n", "xababab"), 3);
        assert_eq!(open_at(r"(?:ab){0}z", "xab"), 3);
    }
}
