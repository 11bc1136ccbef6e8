//! The text of a document's provider definitions is reserved from what its commands hold:
//! the heap's peak while writing them stays within a few times what is written, whatever the
//! commands hold and wherever it is. Reserving from the first commands extrapolated once
//! asked for hundreds of times the output (and, with megabyte descriptions, more than memory
//! holds: an abort); counting texts the provider never receives (hidden global options,
//! descriptions past its limit, enums a strict format sends as text) asked for gigabytes.
//!

use atip_runtime::{
    tool::GlobalOptions, Document, FlattenOptions, LoadOptions, LoadedCommands, Provider,
};
use atip_tests::alloc::peak_of;
use serde_json::{json, Map, Value};

fn tool(commands: Map<String, Value>, globals: Value) -> LoadedCommands {
    let text = json!({"atip": {"version": "0.6"}, "name": "big", "version": "1",
                      "description": "d", "commands": commands, "globalOptions": globals})
    .to_string();
    LoadedCommands::new(
        Document::parse(&text, &LoadOptions::lenient(), &FlattenOptions::default()).unwrap(),
        None,
    )
}

fn option(name: &str, description: &str) -> Value {
    json!({"name": name, "flags": [format!("--{name}")], "type": "string", "description": description})
}

pub fn definitions_reserve_about_what_they_write() {
    let long = "word ".repeat(20_000);
    let cases: Vec<(&str, LoadedCommands, &[Provider])> = vec![
        (
            "64 commands with 100 kB descriptions ahead of 6,000 small ones",
            tool(
                (0..6000)
                    .map(|i| {
                        let d = if i < 64 {
                            long.clone()
                        } else {
                            format!("command {i}")
                        };
                        (format!("c{i}"), json!({"description": d}))
                    })
                    .collect(),
                json!([]),
            ),
            &Provider::ALL,
        ),
        (
            "2,000 commands with 8 kB descriptions, cut to 1,024 characters",
            tool(
                (0..2000)
                    .map(|i| {
                        (
                            format!("c{i}"),
                            json!({"description": "abcdefg ".repeat(1000)}),
                        )
                    })
                    .collect(),
                json!([]),
            ),
            &[Provider::OpenAi, Provider::OpenAiStrict],
        ),
        (
            "a hidden global option with a 200 kB description, 5,000 commands",
            tool(
                (0..5000)
                    .map(|i| (format!("c{i}"), json!({"description": "d"})))
                    .collect(),
                json!([
                    option("huge", &"word ".repeat(40_000)),
                    option("region", "where")
                ]),
            )
            .global_options(GlobalOptions::Only(vec!["region".to_owned()])),
            &[Provider::Anthropic],
        ),
        (
            "an inherited enum of 20,000 values a strict format sends as text, 5,000 commands",
            {
                let values: Vec<String> = (0..20_000).map(|v| format!("value{v:05}")).collect();
                let mut kind = option("kind", "which");
                kind["enum"] = json!(values);
                let children: Map<String, Value> = (0..5000)
                    .map(|i| (format!("c{i}"), json!({"description": "d"})))
                    .collect();
                let mut group = Map::new();
                group.insert(
                    "g".to_owned(),
                    json!({"description": "g", "options": [kind], "commands": children}),
                );
                tool(group, json!([]))
            },
            &[Provider::OpenAiStrict],
        ),
    ];
    for (what, tool, providers) in &cases {
        for p in *providers {
            let (peak, json) = peak_of(|| tool.definitions_json(*p));
            assert!(
                peak <= 3 * json.len() + (8 << 20),
                "{what}, {p:?}: the heap grew by {peak} bytes to write {}",
                json.len()
            );
        }
    }
}
