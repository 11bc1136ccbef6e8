// `git commit` requires `--message`: the constructor takes it.
fn main() {
    let _ = atip_ui_tests::git::Commit::new();
}
