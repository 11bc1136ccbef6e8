//! Every rule's own examples (`rules/*.toml`): positives redacted exactly where their `«…»`
//! marks say, counter-examples untouched, in whole texts and in streams; and the keyword
//! prefilter changes no result.

use super::rules::{BUILTIN, EXAMPLES};
use super::*;

/// A rule example read: the input (marks taken out), the output expected (each marked part
/// redacted), and the marked parts.
pub(super) struct Marked {
    pub(super) input: String,
    pub(super) want: String,
    pub(super) secrets: Vec<String>,
}

pub(super) fn split_marks(text: &str) -> Marked {
    let mut want = String::new();
    let mut secrets = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('«') {
        want.push_str(&rest[..open]);
        let close = rest[open..].find('»').expect("marks pair up") + open;
        want.push_str(REDACTED);
        secrets.push(rest[open + '«'.len_utf8()..close].to_owned());
        rest = &rest[close + '»'.len_utf8()..];
    }
    want.push_str(rest);
    Marked {
        input: text.replace(['«', '»'], ""),
        want,
        secrets,
    }
}

#[test]
fn every_rule_has_examples_and_a_source() {
    for rule in BUILTIN {
        assert!(
            !rule.source.is_empty() && !rule.description.is_empty(),
            "{}",
            rule.name
        );
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
        let Marked { input, want, .. } = split_marks(example.text);
        let got = filter.redact(&input).0.into_owned();
        if got != want {
            failures.push(format!(
                "{}: {input:?}\n   want {want:?}\n    got {got:?}",
                example.rule
            ));
        }
        for size in [1, 7, 64] {
            let streamed = super::tests::in_chunks(&filter, &input, size);
            if streamed != want {
                failures.push(format!(
                    "{} in {size}-byte chunks: {input:?}\n   got {streamed:?}",
                    example.rule
                ));
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
            failures.push(format!(
                "{}: {:?}\n    got {got:?}",
                example.rule, example.text
            ));
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
        let rule = BUILTIN
            .iter()
            .find(|r| r.name == example.rule)
            .expect("a rule");
        let input = split_marks(example.text).input;
        let regex = regex_automata::meta::Regex::new(rule.pattern).expect("compiles");
        let held = regex.find_iter(&input).any(|m| {
            let found = input[m.range()].to_ascii_lowercase();
            rule.keywords
                .iter()
                .any(|k| found.contains(&k.to_ascii_lowercase()))
        });
        if !held {
            failures.push(format!("{}: {input:?}", example.rule));
        }
    }
    assert!(
        failures.is_empty(),
        "no match with a keyword:\n{}",
        failures.join("\n")
    );
}

/// Whether something in `hir` can match a line break.
fn can_match_line_break(hir: &regex_syntax::hir::Hir) -> bool {
    use regex_syntax::hir::{Class, HirKind};
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(l) => l.0.contains(&b'\n'),
        HirKind::Class(Class::Unicode(c)) => c
            .ranges()
            .iter()
            .any(|r| r.start() <= '\n' && '\n' <= r.end()),
        HirKind::Class(Class::Bytes(c)) => c
            .ranges()
            .iter()
            .any(|r| r.start() <= b'\n' && b'\n' <= r.end()),
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

/// `s` as the inside of a JSON string.
pub(super) fn json_escape(s: &str) -> String {
    let j = serde_json::to_string(s).expect("a string");
    j[1..j.len() - 1].to_owned()
}

/// `s` with the case of every ASCII letter swapped.
pub(super) fn swapcase(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_lowercase() {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// The keyword pass skips nothing a search of the whole text by every rule finds: on the
/// examples alone, run together (matches meeting across lines and escapes), in other cases,
/// inside a JSON string after an escape, inside JSON inside a JSON string, and coloured.
#[test]
fn the_prefilter_changes_no_result() {
    let scanner = &*BUILTIN_SCANNER;
    let inputs: Vec<String> = EXAMPLES.iter().map(|e| split_marks(e.text).input).collect();
    let mut texts = vec![
        inputs.join("\n"),
        inputs.join("\\n"),
        inputs.join(" "),
        inputs.join(""),
    ];
    for input in &inputs {
        texts.extend([
            input.clone(),
            // A match right after another of the same rule, or a keyword inside it.
            format!("{input}{input}"),
            input.to_ascii_uppercase(),
            input.to_ascii_lowercase(),
            swapcase(input),
            format!("{{\"a\":\"x\\n{}\"}}", json_escape(input)),
            format!(
                "{{\"a\":\"{}\"}}",
                json_escape(&format!("{{\"b\":\"{}\"}}", json_escape(input)))
            ),
            format!("\u{1b}[32m{input}\u{1b}[0m"),
        ]);
    }
    let failures: Vec<&String> = texts
        .iter()
        .filter(|text| scanner.spans(text, 0, None).0 != scanner.spans_everywhere(text))
        .collect();
    assert!(
        failures.is_empty(),
        "the keyword pass skips matches in:\n{failures:#?}"
    );
}

/// A private key's header line may name another key, and that one another: each begins a
/// block that runs to the end of the first, so finding where every block ends took the square
/// of the text's length (1 MB: 33 s). The searches now stop at a budget linear in the text,
/// and the key is still found whole (security review of issue 46, finding 1).
#[test]
fn blocks_inside_blocks_cost_linear_time() {
    let scanner = &*BUILTIN_SCANNER;
    let body = "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oAoGCCqGSM49AwEHoUQDQgAE";
    // Line breaks as they are, and as JSON writes them inside a string.
    for nl in ["\n", "\\n"] {
        let mut text = format!("-----BEGIN PRIVATE KEY-----{nl}");
        while text.len() < 64 * 1024 {
            text.push_str(&format!("Comment: -----BEGIN PRIVATE KEY-----{nl}"));
        }
        text.push_str(&format!("{body}{nl}-----END PRIVATE KEY-----{nl}"));
        let work = scanner
            .block_work(&text)
            .expect("the built-in rules have keywords");
        assert!(
            work <= super::scanner::BLOCK_WORK_PER_BYTE * text.len() + text.len(),
            "block searches covered {work} bytes of a {}-byte text",
            text.len()
        );
        let found = scanner.spans(&text, 0, None).0;
        assert_eq!(found, scanner.spans_everywhere(&text));
        assert!(
            found.iter().any(|f| text[f.start..f.end].contains(body)),
            "the key's body is a secret"
        );
    }
}

/// A rule every match of which starts with a keyword was searched from each of its keywords
/// on a line, anchored, to the line's end: where its pattern can run over its own keyword and
/// then fail (`-eyJ-eyJ…` has no `.` for the JWT rule; `BUNDLE_…=` runs to the line's end),
/// that read the line once per keyword (256 KB: 25 s). Each rule now searches a line once,
/// from its first keyword (security review of issue 46, 2026-11-30).
#[test]
fn many_keywords_on_one_line_cost_linear_time() {
    let scanner = &*BUILTIN_SCANNER;
    for piece in [
        "-eyJ",
        "-BUNDLE___X=-",
        "curl/",
        "mysql@",
        "ghp_%0A",
        "\"ok\\tMT\",",
    ] {
        let text = piece.repeat(64 * 1024 / piece.len());
        let work = scanner
            .search_work(&text)
            .expect("the built-in rules have keywords");
        assert!(
            work <= 8 * text.len(),
            "{piece:?}: the rules searched {work} bytes of a {}-byte line",
            text.len()
        );
        assert_eq!(
            scanner.spans(&text, 0, None).0,
            scanner.spans_everywhere(&text)
        );
    }
}

/// The SIMD keyword search looks for a window of each keyword, and stops at every place the
/// window is: with the first four bytes of `-----BEGIN `, every run of dashes in a table
/// stopped it at each byte (23 MiB/s on `kubectl`-style tables, against 529 MiB/s with `BEGI`).
/// No keyword's window is one byte repeated.
#[test]
fn no_keyword_is_searched_by_a_run_of_one_byte() {
    use super::scanner::{needle_of, NEEDLE_BYTES};
    assert_eq!(needle_of(b"-----BEGIN "), 5, "`BEGI`");
    for rule in BUILTIN {
        for keyword in rule.keywords {
            let word = keyword.as_bytes();
            let at = needle_of(word);
            let window = &word[at..(at + NEEDLE_BYTES).min(word.len())];
            assert!(
                window.len() < 2 || window.iter().any(|&b| b != window[0]),
                "{}: keyword {keyword:?} is searched by {:?}",
                rule.name,
                String::from_utf8_lossy(window)
            );
        }
    }
}

/// Lines command output prints all the time (a git log, `curl -v`, `aws ec2`, `kubectl`),
/// holding words that begin or hold keywords (`Author` and `auth:`, `Accept` and
/// `accesskey`, `PrivateIpAddress` and `private_key`) but no keyword.
const EVERYDAY_OUTPUT: &str = "Author: Ada Lovelace <ada@example.com>\n\
    > Accept: application/json\n> Connection: keep-alive\n\
    \"PrivateIpAddress\": \"10.0.0.1\", \"PrivateDnsName\": \"ip-10-0-0-1\",\n\
    \"AccountId\": \"123456789012\", \"Accounts\": [],\n\
    License: MIT\nOn branch master\nSessionDuration: 3600\nSigningAlgorithm: RS256\n\
    EncryptionType: aws:kms\nCredentialProcess: none\n";

/// The SIMD keyword search stops wherever a keyword's window is, and each stop costs a check
/// of the whole keyword: with windows of the keywords' rarest bytes, `auth`, `acce`, `priv`
/// and `ccou` stopped it 5,000 times per MiB of the benchmark's output (at `Author:`,
/// `Accept:`, `PrivateIpAddress`, `account`), a third of the keyword pass. A keyword that has
/// a window outside everyday output is searched by one.
#[test]
fn no_keyword_is_searched_by_a_part_of_an_everyday_word() {
    use super::scanner::{needle_of, NEEDLE_BYTES};
    let everyday = EVERYDAY_OUTPUT.to_ascii_lowercase();
    let in_everyday =
        |w: &[u8]| everyday.contains(&*String::from_utf8_lossy(w).to_ascii_lowercase());
    let mut checked = 0;
    for rule in BUILTIN {
        for keyword in rule.keywords {
            let word = keyword.as_bytes();
            if word.len() <= NEEDLE_BYTES || word.windows(NEEDLE_BYTES).all(in_everyday) {
                continue;
            }
            checked += 1;
            let at = needle_of(word);
            let window = &word[at..at + NEEDLE_BYTES];
            assert!(
                !in_everyday(window),
                "{}: keyword {keyword:?} is searched by {:?}, which everyday output holds",
                rule.name,
                String::from_utf8_lossy(window)
            );
        }
    }
    assert!(checked > 100, "{checked} keywords checked");
}

/// Whether a rule's every match starts with a keyword, which lets the scanner search it from
/// its keywords only, is read off the pattern: a token's prefix, alternatives of prefixes,
/// look-arounds before them; not a keyword in the middle, one that may be missing, or an
/// exactly spelled keyword of a pattern that ignores case.
#[test]
fn rules_searched_from_their_keywords_are_those_whose_matches_start_with_one() {
    use super::scanner::starts_with_keyword;
    // (pattern, keywords, whether they match in any ASCII case, expected, why).
    #[rustfmt::skip]
    let cases: [(&str, &[&str], bool, bool, &str); 9] = [
        (r"\bghp_[A-Za-z0-9]{36}\b", &["ghp_"], false, true, "a prefix"),
        (r"(?m:^)(?:gho|ghu)_[A-Za-z0-9]{36}", &["gho_", "ghu_"], false, true, "alternatives"),
        (r"\bglpat-[A-Za-z0-9_\-]{20}", &["glpat"], false, true, "a keyword shorter than the prefix"),
        (r"(?i-u:token)=(?P<secret>\S+)", &["token"], true, true, "ASCII case ignored both ways"),
        (r"(?i-u:token)=(?P<secret>\S+)", &["token"], false, false, "`TOKEN` is no `token`"),
        (r"(?i:token)=(?P<secret>\S+)", &["token"], true, false,
            "Unicode case folding: `to\u{212a}en` (with a Kelvin sign) is no ASCII `token`"),
        (r"[A-Za-z_]*token=(?P<secret>\S+)", &["token"], false, false, "the keyword in the middle"),
        (r"(?:ghp_)?[A-Za-z0-9]{36}", &["ghp_"], false, false, "a keyword that may be missing"),
        (r"gh[pousr]_[A-Za-z0-9]{36}", &["ghp_"], false, false, "`gho_` starts with no keyword"),
    ];
    for (pattern, keywords, ignore_case, expected, why) in cases {
        let hir = regex_syntax::parse(pattern).expect("parses");
        let keywords: Vec<String> = keywords.iter().map(|k| k.to_string()).collect();
        assert_eq!(
            starts_with_keyword(&hir, &keywords, ignore_case),
            expected,
            "{pattern}: {why}"
        );
    }
    // Most of the built-in rules are tokens with a prefix.
    let scanner = &*BUILTIN_SCANNER;
    assert!(scanner.leading_rules() >= 90, "{}", scanner.leading_rules());
}

/// `hir` without its look-around assertions (word boundaries, line anchors), which a
/// generator cannot honour; the shapes around a generated secret give it its boundaries.
fn without_looks(hir: &regex_syntax::hir::Hir) -> regex_syntax::hir::Hir {
    use regex_syntax::hir::{
        Capture, Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Repetition,
    };
    match hir.kind() {
        HirKind::Look(_) => Hir::empty(),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            min: r.min,
            // Long enough for every documented length, short enough to stay readable.
            max: Some(r.max.unwrap_or(r.min + 40).min(r.min.max(1) * 2 + 40)),
            greedy: r.greedy,
            sub: Box::new(without_looks(&r.sub)),
        }),
        HirKind::Capture(c) => Hir::capture(Capture {
            index: c.index,
            name: c.name.clone(),
            sub: Box::new(without_looks(&c.sub)),
        }),
        HirKind::Class(Class::Unicode(c)) => {
            // Printable ASCII and tabs, as a command's output holds them.
            let mut printable = ClassUnicode::new([
                ClassUnicodeRange::new('\t', '\t'),
                ClassUnicodeRange::new(' ', '~'),
            ]);
            printable.intersect(c);
            if printable.ranges().is_empty() {
                hir.clone()
            } else {
                Hir::class(Class::Unicode(printable))
            }
        }
        HirKind::Concat(all) => Hir::concat(all.iter().map(without_looks).collect()),
        HirKind::Alternation(all) => Hir::alternation(all.iter().map(without_looks).collect()),
        _ => hir.clone(),
    }
}

/// The shapes a command prints a value in, none with a credential word of its own: what
/// finds the value is its rule, not the keyed forms.
const SHAPES: &[&str] = &[
    "{}",
    "export DEPLOY_VALUE={}",
    "{{\"value\": \"{}\", \"id\": 7}}",
    "  value: {}",
    "run --header {} --verbose",
    "2026-11-29T06:00:00Z INFO sent {} upstream",
];

/// The shapes for a rule anchored at a line start (a cookie header, a `.pgpass` line).
const LINE_SHAPES: &[&str] = &["{}", "2026-11-29T06:00:00Z INFO read:\n{}\nEOF"];

/// The corpus of issue 46: secrets generated from every rule's own pattern (three per rule,
/// a fixed seed), each in the six shapes above; at least 97% must lose their secret part.
#[test]
fn secrets_generated_from_the_rules_are_caught_in_cli_shapes() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let filter = ResultFilter::new();
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[46; 32]),
    );
    let (mut total, mut caught) = (0usize, 0usize);
    let mut missed = Vec::new();
    let mut untaken = Vec::new();
    let mut secrets = 0usize;
    for rule in BUILTIN {
        let hir = without_looks(&regex_syntax::parse(rule.pattern).expect("parses"));
        let strategy = proptest::string::string_regex_parsed(&hir)
            .unwrap_or_else(|e| panic!("{}: {e}", rule.name));
        let own = regex_automata::meta::Regex::new(rule.pattern).expect("compiles");
        let mut made = 0;
        for _ in 0..40 {
            if made == 3 {
                break;
            }
            let sample = strategy.new_tree(&mut runner).expect("a value").current();
            // A sample must be one the rule itself takes as a secret in a line of its own
            // (a generated value may be a placeholder, or miss a check such as the base64
            // of a private key): else there is nothing to catch.
            let alone = filter.secret_spans(&sample, None);
            if alone.is_empty() || !own.is_match(&sample) || sample.contains('\n') != rule.multiline
            {
                continue;
            }
            let secret: String = alone
                .iter()
                .map(|&(s, e)| &sample[s..e])
                .max_by_key(|s| s.len())
                .unwrap_or_default()
                .to_owned();
            if secret.len() < 6 {
                continue;
            }
            made += 1;
            secrets += 1;
            let anchored = regex_syntax::parse(rule.pattern)
                .is_ok_and(|h| h.properties().look_set().contains_anchor());
            for shape in if anchored { LINE_SHAPES } else { SHAPES } {
                let text = shape
                    .replace("{}", &sample)
                    .replace("{{", "{")
                    .replace("}}", "}");
                total += 1;
                let out = filter.redact(&text).0;
                if out.contains(secret.as_str()) {
                    missed.push(format!("{}: {text:?}", rule.name));
                } else {
                    caught += 1;
                }
            }
        }
        if made == 0 {
            untaken.push(rule.name);
        }
    }
    // A random base64 text does not decode to a private key's BEGIN line.
    assert_eq!(
        untaken,
        ["base64-private-key"],
        "rules no generated sample of which they take"
    );
    let share = caught as f64 / total as f64;
    eprintln!(
        "generated corpus: {secrets} secrets, {caught}/{total} texts caught ({:.1}%)",
        share * 100.0
    );
    for m in &missed {
        eprintln!("missed {m}");
    }
    assert!(secrets >= 200, "{secrets} secrets");
    assert!(
        share >= 0.97,
        "{caught}/{total} caught; missed:\n{}",
        missed.join("\n")
    );
}
