//! `include_atip!` through atip-runtime, with a command filter and a program override; the
//! expansion compiles under `deny(warnings, missing_docs)`.
#![deny(warnings, missing_docs)]

/// git, `log` and `stash` only, run as `/usr/bin/git`.
pub mod git {
    atip_runtime::include_atip!(
        "${ATIP_WORKSPACE}/examples/atip/git.json",
        commands = ["log", "stash"],
        program = "/usr/bin/git",
    );
}

use atip_runtime::Command;

fn main() {
    assert_eq!(git::Call::NAMES, &["git_log", "git_stash", "git_stash_list", "git_stash_pop"]);
    assert_eq!(git::Log::PROGRAM, "/usr/bin/git");
    assert_eq!(
        git::Log::new().oneline(true).max_count(3).argv(),
        ["/usr/bin/git", "log", "--oneline", "--max-count=3"]
    );
    assert_eq!(git::Stash::new().message("wip").argv(), ["/usr/bin/git", "stash", "--message=wip"]);
}
