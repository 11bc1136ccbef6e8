//! The result filter: a secret planted (between spaces) in any text never survives, and the
//! output is never longer than the cap.
//!
//! The surrounding text may itself contain a secret glued to other word characters
//! (`AtAKIA2OGYBAH4Q7ZRX5NM`); shape rules are anchored at word boundaries, as dedicated scanners
//! anchor them, so such an occurrence is not a planted secret. The property is therefore
//! counted: the output holds no more copies than the surrounding text brought in. Documented
//! stand-ins (AWS's `…EXAMPLE` key) are no secrets, so the planted ones are random-looking.
#![no_main]

use atip_runtime::ResultFilter;
use libfuzzer_sys::fuzz_target;

const SECRETS: &[&str] = &[
    "ghp_0123456789abcdefghijABCDEFGHIJabcdef12",
    "AKIA2OGYBAH4Q7ZRX5NM",
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
    "AIzaSyA-0123456789abcdefghijklmnopqrstu",
    "xoxb-123456789012-abcdefghijABCDEFGHIJ",
    "sk_live_0123456789abcdefghijKLMN",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "whsec_0123456789abcdefghijKLMN",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
];

fuzz_target!(|input: (u8, u16, String, String)| {
    let (kind, cap, before, after) = input;
    let secret = SECRETS[kind as usize % SECRETS.len()];
    let text = format!("{before} {secret} {after}");
    let cap = cap as usize;
    let filter = ResultFilter::new().max_bytes(cap);
    let out = filter.filter(&text);
    let brought = before.matches(secret).count() + after.matches(secret).count();
    assert!(
        out.text.matches(secret).count() <= brought,
        "secret survived in {:?}",
        out.text
    );
    assert!(
        out.text.len() <= cap,
        "{} bytes over the cap of {cap}",
        out.text.len()
    );
    let unlimited = ResultFilter::new().max_bytes(usize::MAX).filter(&text);
    assert!(
        unlimited.text.matches(secret).count() <= brought,
        "secret survived in {:?}",
        unlimited.text
    );
});
