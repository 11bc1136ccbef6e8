//! The result filter against a labelled corpus (`atip_tests::secrets`): every kind of secret in
//! every surrounding it is met in, and lines that must survive. Recall must be 100% and no
//! innocent line may change — also when the output is cut by the capture cap at any byte in or
//! around a secret, and when it arrives in chunks split anywhere (the streaming redactor).

use atip_runtime::filter::{drop_partial_tail, StreamRedactor};
use atip_runtime::ResultFilter;
use atip_tests::output::{sample, PROSE};
use atip_tests::secrets::{corpus, pieces, KINDS};
use proptest::prelude::*;

fn leaks<'a>(out: &str, secret: &'a str) -> Vec<&'a str> {
    pieces(secret)
        .into_iter()
        .filter(|p| out.contains(p))
        .collect()
}

#[test]
fn recall_is_total_and_no_innocent_line_changes_on_the_labelled_corpus() {
    let filter = ResultFilter::new().max_bytes(usize::MAX);
    let entries = corpus(5);
    let mut table: Vec<(&str, usize, usize)> = Vec::new();
    let mut missed = Vec::new();
    let mut damaged = Vec::new();
    for e in &entries {
        let (out, _) = filter.redact(&e.text);
        match &e.secret {
            Some(secret) => {
                let leaked = leaks(&out, secret);
                match table.iter_mut().find(|(k, _, _)| *k == e.kind) {
                    Some(row) => {
                        row.1 += 1;
                        row.2 += usize::from(leaked.is_empty());
                    }
                    None => table.push((e.kind, 1, usize::from(leaked.is_empty()))),
                }
                if !leaked.is_empty() {
                    missed.push(format!("{}: {:?} → {:?}", e.kind, e.text, out));
                }
            }
            None => {
                if out != e.text {
                    damaged.push(format!("{:?} → {:?}", e.text, out));
                }
            }
        }
    }
    let planted: usize = table.iter().map(|r| r.1).sum();
    let caught: usize = table.iter().map(|r| r.2).sum();
    let innocent = entries.iter().filter(|e| e.secret.is_none()).count();
    println!("| kind | planted | caught |\n|---|---|---|");
    for (k, p, c) in &table {
        println!("| {k} | {p} | {c} |");
    }
    println!(
        "recall {caught}/{planted} ({:.1}%) over {} kinds; false positives {}/{innocent} innocent lines",
        100.0 * caught as f64 / planted as f64,
        table.len(),
        damaged.len()
    );
    assert!(
        KINDS.len() >= 40 && table.len() >= 40,
        "{} kinds",
        table.len()
    );
    assert!(missed.is_empty(), "missed:\n{}", missed.join("\n"));
    assert!(damaged.is_empty(), "damaged:\n{}", damaged.join("\n"));
}

#[test]
fn every_planted_secret_in_realistic_output_is_found_and_no_prose_is_touched() {
    let s = sample(4 << 20, 2_000);
    assert_eq!(s.secrets.len(), 2_000);
    let filter = ResultFilter::new().max_bytes(usize::MAX);
    let (out, _) = filter.redact(&s.text);
    // The whole secret, or its random second half, must be gone. (Its 8-byte pieces are too
    // short here: 4 MiB of commit hashes and request ids hold many 8-hex-digit strings.)
    // One pass over the output for every secret and every second half at once.
    let needles: Vec<&str> = s
        .secrets
        .iter()
        .flat_map(|secret| {
            let half = &secret[secret.len() / 2..];
            [secret.as_str(), if half.len() >= 8 { half } else { secret }]
        })
        .collect();
    let found = aho_corasick::AhoCorasick::new(&needles).unwrap();
    let mut seen = vec![false; s.secrets.len()];
    for m in found.find_overlapping_iter(out.as_ref()) {
        seen[m.pattern().as_usize() / 2] = true;
    }
    let missed: Vec<&String> = s
        .secrets
        .iter()
        .zip(&seen)
        .filter_map(|(secret, &seen)| seen.then_some(secret))
        .collect();
    assert!(missed.is_empty(), "recall below 100%: {missed:?}");
    for line in PROSE {
        assert_eq!(
            s.text.matches(line).count(),
            out.matches(line).count(),
            "prose redacted: {line}"
        );
    }
}

#[test]
fn a_cut_at_any_offset_around_a_secret_leaks_no_part_of_it() {
    let filter = ResultFilter::new().max_bytes(usize::MAX);
    let mut cuts = 0;
    for e in corpus(1) {
        let Some(secret) = &e.secret else { continue };
        let at = e.text.find(secret.as_str()).expect("planted");
        for cut in at..=(at + secret.len()) {
            if !e.text.is_char_boundary(cut) {
                continue;
            }
            let (kept, _) = drop_partial_tail(&e.text[..cut]);
            let (out, _) = filter.redact(kept);
            let leaked = leaks(&out, secret);
            assert!(
                leaked.is_empty(),
                "{}: cut at {} of {:?} leaks {leaked:?}: {out:?}",
                e.kind,
                cut - at,
                e.text
            );
            cuts += 1;
        }
    }
    assert!(cuts > 5_000, "{cuts} cuts tried");
}

fn streamed(filter: &ResultFilter, text: &str, cuts: &[usize]) -> String {
    let mut r = StreamRedactor::new(filter, None);
    let mut out = String::new();
    let mut last = 0;
    for &c in cuts {
        out.push_str(&r.push(&text.as_bytes()[last..c]));
        last = c;
    }
    out.push_str(&r.push(&text.as_bytes()[last..]));
    out.push_str(&r.finish());
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any entry of the corpus, with prose around it, split into chunks at any bytes (even inside
    /// a UTF-8 character): the stream redacts exactly as the whole text does, and nothing leaks.
    #[test]
    fn chunk_boundaries_anywhere_change_nothing(
        index in 0usize..10_000,
        cuts in proptest::collection::vec(0usize..10_000, 0..12),
    ) {
        let entries = corpus(1);
        let e = &entries[index % entries.len()];
        let text = format!("héllo wörld\n{}\nbye ✓\n", e.text);
        let filter = ResultFilter::new();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (text.len() + 1)).collect();
        cuts.sort_unstable();
        let out = streamed(&filter, &text, &cuts);
        let (whole, _) = filter.redact(&text);
        prop_assert_eq!(&out, whole.as_ref());
        if let Some(secret) = &e.secret {
            prop_assert!(leaks(&out, secret).is_empty(), "{} leaks", e.kind);
        }
    }
}

#[test]
fn every_byte_boundary_of_every_secret_in_a_stream() {
    // The exhaustive companion of the proptest: two chunks, split at every byte of the text.
    let filter = ResultFilter::new();
    let mut splits = 0;
    for e in corpus(1).iter().filter(|e| e.secret.is_some()).step_by(3) {
        let text = format!("before\n{}\nafter\n", e.text);
        let (whole, _) = filter.redact(&text);
        for cut in 0..=text.len() {
            let out = streamed(&filter, &text, &[cut]);
            assert_eq!(out, whole, "{} split at {cut}", e.kind);
            splits += 1;
        }
    }
    assert!(splits > 2_000, "{splits}");
}
