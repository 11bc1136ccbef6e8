// `--untracked-files` takes no, normal or all.
fn main() {
    let _ = atip_ui_tests::git::Status::new().untracked_files(atip_ui_tests::git::StatusUntrackedFiles::Some);
}
