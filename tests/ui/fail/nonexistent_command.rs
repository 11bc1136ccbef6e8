// git.json declares no `frobnicate` command.
fn main() {
    let _ = atip_ui_tests::git::Frobnicate::new();
}
