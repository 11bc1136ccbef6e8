//! Every rule's own examples (`rules/*.toml`): positives redacted exactly where their `«…»`
//! marks say, counter-examples untouched, in whole texts and in streams; and the keyword
//! prefilter changes no result.

use super::rules::{BUILTIN, EXAMPLES};
use super::*;

/// The input (marks taken out) and the output expected (each marked part redacted).
fn split_marks(text: &str) -> (String, String) {
    let input = text.replace(['«', '»'], "");
    let mut want = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('«') {
        want.push_str(&rest[..open]);
        let close = rest[open..].find('»').expect("marks pair up") + open;
        want.push_str(REDACTED);
        rest = &rest[close + '»'.len_utf8()..];
    }
    want.push_str(rest);
    (input, want)
}

#[test]
fn every_rule_has_examples_and_a_source() {
    for rule in BUILTIN {
        assert!(!rule.source.is_empty() && !rule.description.is_empty(), "{}", rule.name);
        assert!(
            EXAMPLES.iter().any(|e| e.rule == rule.name && e.secret),
            "{} has no example",
            rule.name
        );
    }
}

#[test]
fn every_example_is_redacted_where_its_marks_say() {
    let filter = ResultFilter::new();
    let mut failures = Vec::new();
    for example in EXAMPLES.iter().filter(|e| e.secret) {
        let (input, want) = split_marks(example.text);
        let got = filter.redact(&input).0.into_owned();
        if got != want {
            failures.push(format!("{}: {input:?}\n   want {want:?}\n    got {got:?}", example.rule));
        }
        for size in [1, 7, 64] {
            let streamed = super::tests::in_chunks(&filter, &input, size);
            if streamed != want {
                failures.push(format!("{} in {size}-byte chunks: {input:?}\n   got {streamed:?}", example.rule));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_counter_example_stays() {
    let filter = ResultFilter::new();
    let mut failures = Vec::new();
    for example in EXAMPLES.iter().filter(|e| !e.secret) {
        let got = filter.redact(example.text).0.into_owned();
        if got != example.text {
            failures.push(format!("{}: {:?}\n    got {got:?}", example.rule, example.text));
        }
        if super::tests::in_chunks(&filter, example.text, 5) != example.text {
            failures.push(format!("{} streamed: {:?}", example.rule, example.text));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Each example's rule matches it with one of the rule's own keywords inside the match: the
/// prefilter would not skip it.
#[test]
fn every_example_match_holds_a_keyword_of_its_rule() {
    let mut failures = Vec::new();
    for example in EXAMPLES.iter().filter(|e| e.secret) {
        let rule = BUILTIN.iter().find(|r| r.name == example.rule).expect("a rule");
        let (input, _) = split_marks(example.text);
        let regex = regex_automata::meta::Regex::new(rule.pattern).expect("compiles");
        let held = regex.find_iter(&input).any(|m| {
            let found = input[m.range()].to_ascii_lowercase();
            rule.keywords.iter().any(|k| found.contains(&k.to_ascii_lowercase()))
        });
        if !held {
            failures.push(format!("{}: {input:?}", example.rule));
        }
    }
    assert!(failures.is_empty(), "no match with a keyword:\n{}", failures.join("\n"));
}

/// Whether something in `hir` can match a line break.
fn can_match_line_break(hir: &regex_syntax::hir::Hir) -> bool {
    use regex_syntax::hir::{Class, HirKind};
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(l) => l.0.contains(&b'\n'),
        HirKind::Class(Class::Unicode(c)) => c.ranges().iter().any(|r| r.start() <= '\n' && '\n' <= r.end()),
        HirKind::Class(Class::Bytes(c)) => c.ranges().iter().any(|r| r.start() <= b'\n' && b'\n' <= r.end()),
        HirKind::Repetition(r) => can_match_line_break(&r.sub),
        HirKind::Capture(c) => can_match_line_break(&c.sub),
        HirKind::Concat(all) | HirKind::Alternation(all) => all.iter().any(can_match_line_break),
    }
}

/// The prefilter searches a single-line rule only on the line holding its keyword.
#[test]
fn only_multiline_rules_match_across_lines() {
    for rule in BUILTIN {
        let hir = regex_syntax::parse(rule.pattern).expect("parses");
        assert_eq!(can_match_line_break(&hir), rule.multiline, "{}", rule.name);
    }
}

#[test]
fn the_prefilter_changes_no_result() {
    let scanner = &*BUILTIN_SCANNER;
    let mut texts: Vec<String> = EXAMPLES.iter().map(|e| split_marks(e.text).0).collect();
    // Examples run together, so that matches meet across lines and escapes.
    texts.push(texts.join("\n"));
    texts.push(texts.join("\\n"));
    texts.push(texts.join(" "));
    for text in &texts {
        assert_eq!(scanner.spans(text), scanner.spans_everywhere(text), "{text:?}");
    }
}
