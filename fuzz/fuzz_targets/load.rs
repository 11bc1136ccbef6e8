//! Loading any bytes as an ATIP document, strictly and leniently: a document or an error with
//! at least one error diagnostic, never a panic.
#![no_main]

use atip_runtime::{Document, FlattenOptions, LoadOptions, Mode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for mode in [Mode::Strict, Mode::Lenient] {
        let options = LoadOptions { mode, file: None };
        if let Err(e) = Document::parse(text, &options, &FlattenOptions::default()) {
            assert!(
                e.errors().next().is_some(),
                "an error without an error diagnostic: {e:?}"
            );
        }
    }
});
