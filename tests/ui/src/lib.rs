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

/// The official MCP filesystem server (`@modelcontextprotocol/server-filesystem` 2026.8.31),
/// from its saved `tools/list`: one typed command per tool, called over MCP.
pub mod filesystem {
    atip_runtime::include_atip!("../../examples/mcp/filesystem.tools.json");
}

#[cfg(test)]
mod tests {
    use super::git_log_and_stash as git;
    use atip_runtime::Command;

    #[test]
    fn a_typed_call_of_an_mcp_tool_goes_to_its_server_with_its_effects() {
        use super::filesystem;
        use atip_runtime::{Command, ToInvocation};
        assert_eq!(
            filesystem::ReadTextFile::SERVER,
            Some("secure-filesystem-server")
        );
        assert_eq!(
            filesystem::ReadTextFile::NAME,
            "secure-filesystem-server_read_text_file"
        );
        let call = filesystem::ReadTextFile::new("/data/a.txt").head(3.0);
        let invocation = call.to_invocation().unwrap();
        assert_eq!(
            invocation.server.as_deref(),
            Some("secure-filesystem-server")
        );
        assert_eq!(
            invocation.argv,
            [
                "secure-filesystem-server",
                "read_text_file",
                "--path=/data/a.txt",
                "--head=3"
            ]
        );
        // readOnlyHint: nothing written or destroyed; write_file's destructiveHint kept.
        assert_eq!(filesystem::ReadTextFile::EFFECTS.destructive, Some(false));
        assert_eq!(
            filesystem::ReadTextFile::EFFECTS.filesystem_write(),
            Some(false)
        );
        assert_eq!(filesystem::WriteFile::EFFECTS.destructive, Some(true));
        // Every tool typed: edit_file's `edits` (a list of objects) has no ATIP type, and the
        // tool needs it.
        assert!(filesystem::Call::NAMES.contains(&"secure-filesystem-server_read_multiple_files"));
        assert!(!filesystem::Call::NAMES.contains(&"secure-filesystem-server_edit_file"));
    }

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
