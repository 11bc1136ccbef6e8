//! trybuild UI tests: generated code that must compile (and run), and misuse that must not
//! compile, with the compiler's messages checked in as `.stderr` files.
//!
//! trybuild builds each file in its own package under the target directory, wherever that is
//! (`CARGO_TARGET_DIR`), so the metadata paths in these files start at `${ATIP_WORKSPACE}`,
//! which `include_atip!` expands from the environment this test sets. Regenerate the
//! `.stderr` files with `TRYBUILD=overwrite cargo test -p atip-tests --test ui`.

#[test]
fn ui() {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent");
    // One test in this binary: nothing else reads the environment meanwhile.
    std::env::set_var("ATIP_WORKSPACE", workspace);
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
