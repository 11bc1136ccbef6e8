//! `include_atip!` makes cargo rebuild the crate when the metadata file changes.

mod support;

#[test]
#[ignore = "slow: builds a scratch crate twice (run by .ci/run)"]
fn editing_the_metadata_rebuilds_the_crate() {
    let mut krate = support::ScratchCrate::new("atip-rebuild");
    let doc = |cmd: &str| {
        format!(
            r#"{{"atip": "0.6", "name": "tool", "version": "1", "description": "d",
                "commands": {{"{cmd}": {{"description": "a command"}}}}}}"#
        )
    };
    krate.raw_lib(
        "/// The tool.\npub mod tool {\n    atip_runtime::include_atip!(\"atip/tool.json\");\n}\n",
    );
    krate.main("fn main() { println!(\"{:?}\", scratch::tool::Call::NAMES); }\n");
    krate.write_file("atip/tool.json", &doc("first"));
    assert_eq!(krate.build_and_run().trim(), r#"["tool_first"]"#);
    krate.write_file("atip/tool.json", &doc("second"));
    assert_eq!(krate.build_and_run().trim(), r#"["tool_second"]"#);
}
