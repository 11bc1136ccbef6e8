// git.json declares no `frobnicate` command.
fn main() {
    let _ = atip_tests::git::Frobnicate::new();
}
