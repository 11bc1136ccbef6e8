//! Heap while a stream is redacted: a chunk that arrives is read where it lies, not copied into
//! what the redactor holds, and the redacted text is written once, after the scanner's own
//! buffers (such as its lower-cased copy for keywords that ignore case) are freed. Pushing one
//! large chunk of output therefore peaks where filtering it whole does, not a copy of the chunk
//! higher.

use atip_runtime::filter::StreamRedactor;
use atip_runtime::ResultFilter;
use atip_tests::alloc::peak_of;

pub fn a_large_chunk_is_redacted_without_a_copy_of_it() {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 4 << 20 {
        text.push_str(&format!(
            "{i:>8} plain line of output, nothing to hide in it\n"
        ));
        i += 1;
    }
    let filter = ResultFilter::new();
    // Warm up: the rules compile on first use.
    let _ = filter.redact("password=warm-up-value");
    let (whole, _) = peak_of(|| filter.redact(&text).0.len());
    let (stream, passed) = peak_of(|| {
        let mut r = StreamRedactor::new(&filter, None);
        r.push(text.as_bytes()).len() + r.finish().len()
    });
    assert_eq!(passed, text.len(), "plain text passes unchanged");
    assert!(
        stream <= whole + (64 << 10),
        "a stream's peak heap for one chunk of {} B is {stream} B, the whole filter's {whole} B",
        text.len()
    );
}
