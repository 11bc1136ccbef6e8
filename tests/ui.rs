//! trybuild UI tests: generated code that must compile (and run), and misuse that must not
//! compile, with the compiler's messages checked in as `.stderr` files.
//!
//! trybuild builds each file in its own package under `target/tests/trybuild/atip-tests/`,
//! which is `CARGO_MANIFEST_DIR` for `include_atip!` there; the metadata paths in these files
//! are relative to it (`../../../../` is the workspace root). Regenerate the `.stderr` files
//! with `TRYBUILD=overwrite cargo test -p atip-tests --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
