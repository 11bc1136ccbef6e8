// `--untracked-files` takes no, normal or all.
fn main() {
    let _ = atip_tests::git::Status::new().untracked_files(atip_tests::git::StatusUntrackedFiles::Some);
}
