// `--max-count` is an integer.
fn main() {
    let _ = atip_ui_tests::git::Log::new().max_count("ten");
}
