//! `include_atip!` makes cargo rebuild the crate when the metadata file changes; a build.rs
//! that discovers a tool reruns when the tool's binary changes, and falls back to the
//! checked-in file when the tool breaks.

use crate::support;

/// A one-command document whose command is `cmd`.
fn doc(cmd: &str) -> String {
    format!(
        r#"{{"atip": "0.6", "name": "tool", "version": "1", "description": "d",
            "commands": {{"{cmd}": {{"description": "a command"}}}}}}"#
    )
}

#[test]
#[ignore = "slow: builds a scratch crate twice (run by .ci/run)"]
fn editing_the_metadata_rebuilds_the_crate() {
    let mut krate = support::ScratchCrate::new("atip-rebuild");
    krate.raw_lib(
        "/// The tool.\npub mod tool {\n    atip_runtime::include_atip!(\"atip/tool.json\");\n}\n",
    );
    krate.main("fn main() { println!(\"{:?}\", scratch::tool::Call::NAMES); }\n");
    krate.write_file("atip/tool.json", &doc("first"));
    assert_eq!(krate.build_and_run().trim(), r#"["tool_first"]"#);
    krate.write_file("atip/tool.json", &doc("second"));
    assert_eq!(krate.build_and_run().trim(), r#"["tool_second"]"#);
}

/// Rebuilding after an unrelated edit takes the expansion from the macro's cache; changing
/// the metadata generates it again.
#[test]
#[ignore = "slow: builds a scratch crate three times (run by .ci/run)"]
fn an_unrelated_edit_reuses_the_cached_expansion_and_a_metadata_edit_does_not() {
    let mut krate = support::ScratchCrate::new("atip-macro-cache");
    let lib =
        "/// The tool.\npub mod tool {\n    atip_runtime::include_atip!(\"atip/tool.json\");\n}\n";
    krate.raw_lib(lib);
    krate.main("fn main() { println!(\"{:?}\", scratch::tool::Call::NAMES); }\n");
    let _ = std::fs::remove_dir_all(krate.macro_cache());
    krate.write_file("atip/tool.json", &doc("first"));
    assert_eq!(krate.build_and_run().trim(), r#"["tool_first"]"#);

    // One slot for the one call site, holding the key and the expansion.
    let slots: Vec<_> = std::fs::read_dir(krate.macro_cache())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(slots.len(), 1, "{slots:?}");
    let cached = std::fs::read_to_string(&slots[0]).unwrap();
    assert!(
        cached.starts_with("atip-macro-cache 1 "),
        "{}",
        &cached[..80]
    );
    assert!(cached.contains("\"tool_first\""));

    // Mark the cached expansion: if the next build shows the mark, the macro did not
    // generate the code again.
    std::fs::write(
        &slots[0],
        cached.replace("\"tool_first\"", "\"tool_from_cache\""),
    )
    .unwrap();
    krate.raw_lib("\n/// Unrelated to the tool.\npub fn unrelated() -> u32 {\n    1\n}\n");
    assert_eq!(krate.build_and_run().trim(), r#"["tool_from_cache"]"#);

    // A metadata edit changes the key: generated again, slot overwritten.
    krate.write_file("atip/tool.json", &doc("second"));
    assert_eq!(krate.build_and_run().trim(), r#"["tool_second"]"#);
    let slots = std::fs::read_dir(krate.macro_cache()).unwrap().count();
    assert_eq!(slots, 1);
}

/// A fake tool whose `--agent` prints a one-command document (or fails).
fn fake_tool(krate: &support::ScratchCrate, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = krate.dir.join("bin/faketool");
    krate.write_file("bin/faketool", &format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn agent_printing(cmd: &str) -> String {
    format!(
        "cat <<'JSON'\n{}\nJSON",
        doc(cmd).replace("\"tool\"", "\"faketool\"")
    )
}

#[test]
#[ignore = "slow: builds a scratch crate three times (run by .ci/run)"]
fn a_discovering_build_script_reruns_when_the_tool_changes_and_falls_back_when_it_breaks() {
    let mut krate = support::ScratchCrate::new("atip-discover-rebuild");
    let tool = krate.dir.join("bin/faketool");
    krate.build_script(&format!(
        "fn main() {{\n    atip_build::Builder::new()\n        .input(atip_build::Input::discover({:?}).fallback(\"atip/fallback.json\"))\n        .generate_or_exit();\n}}\n",
        tool.display().to_string()
    ));
    krate.raw_lib(
        "/// The tool.\npub mod tool {\n    include!(concat!(env!(\"OUT_DIR\"), \"/atip/faketool.rs\"));\n}\n",
    );
    krate.main("fn main() { println!(\"{:?}\", scratch::tool::Call::NAMES); }\n");
    krate.write_file(
        "atip/fallback.json",
        &doc("fallback").replace("\"tool\"", "\"faketool\""),
    );
    fake_tool(&krate, &agent_printing("first"));
    assert_eq!(krate.build_and_run().trim(), r#"["faketool_first"]"#);
    // The tool is upgraded: only its file changes, and the build script reruns.
    fake_tool(&krate, &agent_printing("second"));
    assert_eq!(krate.build_and_run().trim(), r#"["faketool_second"]"#);
    // The tool breaks: the checked-in file is used.
    fake_tool(&krate, "echo 'unknown flag' >&2; exit 2");
    assert_eq!(krate.build_and_run().trim(), r#"["faketool_fallback"]"#);
}
