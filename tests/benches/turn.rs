//! The turn driver's overhead per call: `TurnDriver::turn` on an Anthropic response with four
//! tool calls, as a ratio to the same steps done by hand in the same process (the sum of its
//! parts: `parse_response`, the model turn, dispatch of each call, `Runner::run_batch`, the
//! tool results, `result_messages`).
//!
//! Two cases: calls that run (`true`, read-only, sandboxed: the process dominates) and calls
//! the policy refuses (no process: what is left is the driver's own work).
//!
//! `cargo bench -p atip-tests --bench turn` prints the table at the end.

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use atip_runtime::agent::TurnDriver;
use atip_runtime::wire::{model_turn, parse_response, result_messages};
use atip_runtime::ToolResult;
use atip_runtime::{
    exec::BatchOptions, Document, FlattenOptions, LoadOptions, LoadedCommands, Policy, Provider,
    Runner,
};
use criterion::Criterion;
use serde_json::{json, Value};

mod report;
use report::Report;

const CALLS: usize = 4;

/// `true` as an ATIP tool: one command, read-only, offline.
const TRUE_JSON: &str = r#"{
  "atip": {"version": "0.6"},
  "name": "true",
  "version": "9.1",
  "description": "Do nothing, successfully",
  "commands": {
    "": {
      "description": "Exit with status 0",
      "options": [{"name": "verbose", "flags": ["--verbose"], "type": "boolean", "description": "Ignored"}],
      "effects": {"filesystem": {"read": false, "write": false, "delete": false}, "network": false,
                  "idempotent": true, "reversible": true, "destructive": false}
    }
  }
}"#;

fn tool() -> LoadedCommands {
    let doc = Document::parse(
        TRUE_JSON,
        &LoadOptions::strict(),
        &FlattenOptions::default(),
    )
    .expect("the probe loads");
    LoadedCommands::new(doc, None)
}

/// An Anthropic response with `CALLS` calls of `true`.
fn body() -> String {
    let content: Vec<Value> = (0..CALLS)
        .map(|i| {
            json!({"type": "tool_use", "id": format!("toolu_{i}"), "name": "true",
                   "input": {"verbose": i % 2 == 0}})
        })
        .collect();
    json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-t",
           "content": content, "stop_reason": "tool_use",
           "usage": {"input_tokens": 1, "output_tokens": 1}})
    .to_string()
}

/// The driver's steps by hand: what a caller would write without it.
async fn by_hand(tool: &LoadedCommands, runner: &Runner, body: &str) -> Vec<Value> {
    let provider = Provider::Anthropic;
    let parsed = parse_response(provider, body).unwrap();
    let mut messages = model_turn(provider, &serde_json::from_str(body).unwrap()).unwrap();
    let invocations = parsed
        .tool_calls
        .iter()
        .map(|c| tool.invocation(c).unwrap())
        .collect();
    let results: Vec<ToolResult> = runner
        .run_batch(invocations, BatchOptions::default())
        .await
        .iter()
        .map(|r| match r {
            Ok(out) => runner.tool_result(out),
            Err(e) => runner.error_result(e),
        })
        .collect();
    messages.extend(result_messages(provider, &parsed.tool_calls, &results).unwrap());
    messages
}

fn main() {
    let since = SystemTime::now();
    let mut c = Criterion::default()
        .output_directory(&report::dir())
        .configure_from_args();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let body = body();
    let tool = tool();
    let refusing = Policy {
        deny_commands: vec!["true".into()],
        ..Policy::default()
    };
    for (case, runner) in [
        ("run", Runner::new()),
        ("refused", Runner::new().policy(refusing)),
    ] {
        // Both give the same messages before anything is measured.
        let mut driver = TurnDriver::new(Provider::Anthropic, tool.clone(), runner.clone());
        let driven = rt.block_on(driver.turn(&body)).unwrap();
        assert_eq!(driven.calls.len(), CALLS);
        assert_eq!(driven.messages, rt.block_on(by_hand(&tool, &runner, &body)));
        let mut g = c.benchmark_group(format!("turn-{case}"));
        g.sample_size(50).measurement_time(Duration::from_secs(5));
        g.bench_function("parts", |b| {
            b.iter(|| rt.block_on(by_hand(&tool, &runner, black_box(&body))))
        });
        g.bench_function("driver", |b| {
            b.iter(|| rt.block_on(driver.turn(black_box(&body))).unwrap())
        });
        g.finish();
    }
    c.final_summary();

    let mut report = Report::default();
    report.ratio(
        &format!("turn driver, {CALLS} calls of `true` that run, vs its parts by hand"),
        ("turn-run", "driver"),
        ("turn-run", "parts"),
        1.1,
        since,
    );
    report.ratio(
        &format!("turn driver, {CALLS} calls the policy refuses, vs its parts by hand"),
        ("turn-refused", "driver"),
        ("turn-refused", "parts"),
        1.1,
        since,
    );
    report.print();
}
