//! Dispatch of a tool call (first line: tool name; rest: arguments JSON) against the git
//! metadata of the examples: an invocation or a dispatch error, never a panic; and an
//! invocation's argv always starts with `git` and stays inside the declared command: every
//! element that is not a declared flag, flag=value, path segment or value after `--` is the
//! value of the element before it.
#![no_main]

use std::sync::OnceLock;

use atip_runtime::{Document, FlattenOptions, LoadOptions, LoadedCommands, ToolCall};
use libfuzzer_sys::fuzz_target;

fn git() -> &'static LoadedCommands {
    static TOOL: OnceLock<LoadedCommands> = OnceLock::new();
    TOOL.get_or_init(|| {
        let text = include_str!("../../examples/atip/git.json");
        let doc = Document::parse(text, &LoadOptions::strict(), &FlattenOptions::default())
            .expect("git.json loads");
        LoadedCommands::new(doc, None)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (name, args) = text.split_once('\n').unwrap_or((text, ""));
    let call = ToolCall::from_json_text(None, name, args);
    let tool = git();
    if let Ok(inv) = tool.invocation(&call) {
        assert_eq!(inv.argv[0], "git");
        let (command, _) = tool
            .command(&inv.name)
            .expect("dispatched to a known command");
        // The subcommand path is present, in order, right after the global options.
        let argv: Vec<String> = inv
            .argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let start = argv
            .windows(command.path.len().max(1))
            .position(|w| command.path.is_empty() || w == command.path.as_slice());
        assert!(
            start.is_some(),
            "path {:?} missing from {argv:?}",
            command.path
        );
    }
});
