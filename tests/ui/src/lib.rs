//! The typed commands the compile-fail cases misuse, and the generated code that must compile in
//! a crate of its own under `deny(warnings, missing_docs)`: the `git` golden
//! (`tests/golden/git.rs`, generated from `examples/atip/git.json`) and an `include_atip!`
//! expansion with a command filter and a program override. (Every golden compiles the same way
//! in the `atip-tests` library, and its API is tested in `atip-tests`' `codegen` binary.)
#![deny(warnings, missing_docs)]

/// `git`, from `examples/atip/git.json`.
pub mod git {
    include!("../../golden/git.rs");
}

/// git through `include_atip!`: `log` and `stash` only, run as `/usr/bin/git`.
pub mod git_log_and_stash {
    atip_runtime::include_atip!(
        "../../examples/atip/git.json",
        commands = ["log", "stash"],
        program = "/usr/bin/git",
    );
}

#[cfg(test)]
mod tests {
    use super::git_log_and_stash as git;
    use atip_runtime::Command;

    #[test]
    fn the_filter_keeps_the_named_commands_and_their_subcommands_and_the_program_is_overridden() {
        assert_eq!(
            git::Call::NAMES,
            &["git_log", "git_stash", "git_stash_list", "git_stash_pop"]
        );
        assert_eq!(git::Log::PROGRAM, "/usr/bin/git");
        assert_eq!(
            git::Log::new().oneline(true).max_count(3).argv(),
            ["/usr/bin/git", "log", "--oneline", "--max-count=3"]
        );
        assert_eq!(
            git::Stash::new().message("wip").argv(),
            ["/usr/bin/git", "stash", "--message=wip"]
        );
    }
}
