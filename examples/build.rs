//! Generates typed modules for the coreutils metadata with the build.rs front-end; the
//! `coreutils` example includes them from `$OUT_DIR/atip/`.

fn main() {
    atip_build::Builder::new()
        .input("atip/ls.json")
        .input("atip/cat.json")
        .input("atip/mkdir.json")
        .input("atip/rm.json")
        .generate_or_exit();
}
