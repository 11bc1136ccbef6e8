//! The generator on any document that loads: tokens that parse as a Rust file, or an error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let options = atip_build::Options::new().max_commands(200);
    if let Ok(expansion) = atip_build::expand(text, &options) {
        if let Err(e) = syn::parse2::<syn::File>(expansion.tokens) {
            panic!("generated tokens do not parse as a Rust file: {e}");
        }
    }
});
