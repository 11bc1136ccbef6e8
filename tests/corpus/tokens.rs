//! What a model is sent: bytes per tool definition per provider on an aws-like document (6
//! global options, 8 inherited, 5 own per command), with every global option and with none
//! (`GlobalOptions`); hidden globals are unknown to dispatch. A token is about 4 bytes of JSON.

use atip_runtime::providers::Provider;
use atip_runtime::{
    tool::GlobalOptions, Document, FlattenOptions, LoadOptions, LoadedCommands, ToolCall,
};
use atip_tests::large::{document, Shape};
use serde_json::json;

#[test]
fn bytes_per_definition_with_and_without_global_options() {
    let text = document(&Shape::commands(1_000));
    let load = |globals: GlobalOptions| {
        let doc =
            Document::parse(&text, &LoadOptions::strict(), &FlattenOptions::default()).unwrap();
        LoadedCommands::new(doc, None).global_options(globals)
    };
    let all = load(GlobalOptions::All);
    let none = load(GlobalOptions::None);
    let some = load(GlobalOptions::Only(vec!["region".into()]));
    println!("| provider | all 6 globals | `region` only | none | none / all |");
    println!("|---|---|---|---|---|");
    for p in Provider::ALL {
        let per = |t: &LoadedCommands| t.definitions_json(p).len() as f64 / 1_000.0;
        let (a, s, n) = (per(&all), per(&some), per(&none));
        println!(
            "| {} | {a:.0} B | {s:.0} B | {n:.0} B | {:.2}× |",
            p.as_str(),
            n / a
        );
        assert!(n < s && s < a, "{p:?}: {n} {s} {a}");
    }
    // What the model does not see, dispatch does not take.
    let name = none.specs()[0].name.to_string();
    let call = |args: serde_json::Value| {
        ToolCall::new(None, name.clone(), args.as_object().unwrap().clone())
    };
    let err = none
        .invocation(&call(json!({"region": "eu-west-1"})))
        .unwrap_err();
    assert!(
        err.to_string().contains("unknown parameter `region`"),
        "{err}"
    );
    assert!(some.specs()[0].param("region").is_some());
    assert!(some.specs()[0].param("profile").is_none());
    // With every global the same call lacks only the command's own required parameters.
    if let Err(e) = all.invocation(&call(json!({"region": "eu-west-1"}))) {
        assert!(!e.to_string().contains("`region`"), "{e}");
    }
}
