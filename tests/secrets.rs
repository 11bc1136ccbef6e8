//! Secrets in realistic command output (`atip_tests::output`: git logs, environment dumps,
//! cloud CLI JSON, HTTP traces, config files) with a secret of every built-in kind planted and
//! look-alike prose: all secrets found, no prose touched — also when the output is cut by the
//! capture cap at any byte in or around a secret.

use atip_runtime::filter::drop_partial_tail;
use atip_runtime::ResultFilter;
use atip_tests::output::{sample, KINDS, PROSE};

/// Distinctive 8-byte pieces of a secret's random second half: none may reach a model.
fn pieces(secret: &str) -> Vec<&str> {
    let tail = &secret[secret.len() / 2..];
    (0..tail.len().saturating_sub(8))
        .step_by(4)
        .map(|i| &tail[i..i + 8])
        .filter(|p| !p.contains('\n'))
        .collect()
}

#[test]
fn every_planted_secret_is_found_and_no_prose_is_touched() {
    let s = sample(4 << 20, 2_000);
    assert_eq!(s.secrets.len(), 2_000);
    let filter = ResultFilter::new().max_bytes(usize::MAX);
    let (out, count) = filter.redact(&s.text);
    assert!(count >= s.secrets.len(), "{count} redactions");
    let missed: Vec<&String> = s
        .secrets
        .iter()
        .filter(|secret| out.contains(secret.as_str()))
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
    // Two secrets of every kind.
    let s = sample(64 << 10, 2 * KINDS);
    let filter = ResultFilter::new().max_bytes(usize::MAX);
    let mut cuts = 0;
    for secret in &s.secrets {
        let at = s.text.find(secret.as_str()).expect("planted");
        // The filter is local: 4 KiB of context before the secret is as good as all of it.
        let from = at.saturating_sub(4096);
        for cut in at.saturating_sub(2)..=(at + secret.len() + 2).min(s.text.len()) {
            let captured = &s.text[from..cut];
            let (kept, _) = drop_partial_tail(captured);
            let (out, _) = filter.redact(kept);
            for piece in pieces(secret) {
                assert!(
                    !out.contains(piece),
                    "cut at {} of {secret:?} leaks {piece:?}",
                    cut - at
                );
            }
            cuts += 1;
        }
    }
    assert!(cuts > 1_000, "{cuts} cuts tried");
}
