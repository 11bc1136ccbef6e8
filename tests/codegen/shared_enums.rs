//! Parameters with the same value list share one Rust type (`tests/fixtures/shared-enums.json`,
//! generated into `atip_tests::fleet`): named after the parameter when every user agrees on
//! its name, after the values otherwise, after the first command and parameter when the shared
//! name is taken; and each command still dispatches, validates and writes argv as its own.

use atip_runtime::command::fields::Enumeration;
use atip_tests::fleet;
use serde_json::json;

/// Compiles only when both fields have one type.
fn same_type<T>(_: &Option<T>, _: &Option<T>) {}

#[test]
fn each_distinct_value_list_is_one_type_named_as_its_users_agree() {
    // Every user calls it `format`: the type is `Format`.
    let deploy = fleet::Deploy::new().format(fleet::Format::Yaml);
    let show = fleet::Show::new().format(fleet::Format::Yaml);
    same_type(&deploy.format, &show.format);
    // `output` and `encoding` disagree: named after the values.
    same_type(&fleet::Get::new().output, &fleet::Put::new().encoding);
    let _: Option<fleet::JsonOrYaml> = fleet::Put::new().encoding;
    // Two value lists both called `mode`: neither takes the name. An upper-case value reads as
    // a word in the type name, while the variant keeps its spelling.
    same_type(&fleet::Scan::new().mode, &fleet::SyncCommand::new().mode);
    same_type(&fleet::CopyCommand::new().mode, &fleet::Move::new().mode);
    assert_eq!(fleet::FastOrThorough::FAST.as_str(), "FAST");
    assert_eq!(fleet::CopyAllOrReplace::COPYALL.as_str(), "COPY_ALL");
    // `Level` is the command `fleet level`: the shared type takes its first user's own name.
    let level = fleet::Level::new(fleet::LevelLevel::High);
    let alert = fleet::Alert::new().level(fleet::LevelLevel::High);
    assert_eq!(Some(level.level), alert.level);
    // Values that would make a name start with a digit: the first user's own name as well.
    same_type(&fleet::Resize::new().size, &fleet::Mkfs::new().block);
    let _: Option<fleet::ResizeSize> = fleet::Mkfs::new().block;
    // One user: named after its command and parameter, as before.
    let _: Option<fleet::DeployStrategy> = deploy.strategy;
    // The type keeps the value list's order.
    assert_eq!(
        fleet::ResizeSize::VALUES
            .iter()
            .map(|(_, v)| *v)
            .collect::<Vec<_>>(),
        ["1k", "4k", "64k", "1m"]
    );
}

#[test]
fn the_fixture_generates_without_a_rename() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/shared-enums.json");
    let text = std::fs::read_to_string(path).unwrap();
    let expansion = atip_build::expand(&text, &atip_build::Options::new().file(path)).unwrap();
    assert!(expansion.warnings.is_empty(), "{:?}", expansion.warnings);
}

#[test]
fn shared_enums_round_trip_through_dispatch_for_every_user() {
    let cases = [
        ("fleet_deploy", "format", "text", "--format=text"),
        ("fleet_show", "format", "json", "--format=json"),
        ("fleet_get", "output", "yaml", "--output=yaml"),
        ("fleet_put", "encoding", "json", "--encoding=json"),
        ("fleet_scan", "mode", "THOROUGH", "--mode=THOROUGH"),
        ("fleet_sync", "mode", "FAST", "--mode=FAST"),
        ("fleet_copy", "mode", "REPLACE", "--mode=REPLACE"),
        ("fleet_move", "mode", "COPY_ALL", "--mode=COPY_ALL"),
        ("fleet_alert", "level", "low", "--level=low"),
        ("fleet_resize", "size", "64k", "--size=64k"),
        ("fleet_mkfs", "block", "1m", "--block=1m"),
    ];
    for (tool, param, value, flag) in cases {
        let text = json!({ param: value }).to_string();
        let call = fleet::Call::from_json_text(tool, &text)
            .unwrap_or_else(|e| panic!("{tool} {text}: {e}"));
        let argv: Vec<String> = call
            .argv()
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        let path = tool.trim_start_matches("fleet_");
        assert_eq!(argv, ["fleet", path, flag], "{tool}");
        // The command's own tool schema still lists the values, and a value of another
        // list is refused with them.
        let spec = call_spec(&call);
        let listed: Vec<&str> = spec
            .params
            .iter()
            .find(|p| &*p.name == param)
            .and_then(|p| p.values.as_ref())
            .unwrap()
            .iter()
            .map(|v| &**v)
            .collect();
        assert!(listed.contains(&value), "{tool}");
        let wrong = json!({ param: "neither" }).to_string();
        let err = fleet::Call::from_json_text(tool, &wrong)
            .unwrap_err()
            .to_string();
        for v in &listed {
            assert!(err.contains(v), "{tool}: {err}");
        }
    }
    // The positional argument of `fleet level` shares the type of `fleet alert --level`.
    let call = fleet::Call::from_json_text("fleet_level", r#"{"level":"high"}"#).unwrap();
    assert_eq!(
        call,
        fleet::Call::Level(fleet::Level::new(fleet::LevelLevel::High))
    );
    assert_eq!(call.argv(), ["fleet", "level", "high"]);
}

fn call_spec(call: &fleet::Call) -> &'static atip_runtime::ToolSpec {
    fleet::TOOLS.iter().find(|t| t.name == call.name()).unwrap()
}
