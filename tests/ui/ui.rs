//! trybuild UI tests: misuse of generated code and of `include_atip!` that must not compile,
//! with the compiler's messages checked in as `.stderr` files. (Generated code that must compile
//! is this package's library and the `atip-tests` library: ordinary builds, no trybuild project.)
//!
//! trybuild builds each file in its own package under the target directory, wherever that is
//! (`CARGO_TARGET_DIR`), so the metadata paths in these files start at `${ATIP_WORKSPACE}`,
//! which `include_atip!` expands from the environment this test sets. Regenerate the
//! `.stderr` files with `TRYBUILD=overwrite cargo test -p atip-ui-tests`.
//!
//! This package's only dependency is the runtime, and every case is a compile-fail case, so
//! trybuild's own build under `target/tests/trybuild` checks (no code generation) what
//! generated code needs and nothing more.

#[test]
fn ui() {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("tests/ui/ has a grandparent");
    // One test in this binary: nothing else reads the environment meanwhile.
    std::env::set_var("ATIP_WORKSPACE", workspace);
    let t = trybuild::TestCases::new();
    t.compile_fail("fail/*.rs");
}
