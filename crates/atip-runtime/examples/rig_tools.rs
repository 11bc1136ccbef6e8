//! Generated git commands as rig-core tools: their definitions as rig sees them, and one call
//! run through the policy gate.
//!
//! `cargo run -p atip-runtime --features rig --example rig_tools` (run inside a git repository)

use atip_runtime::interop::rig::RigTool;
use atip_runtime::Runner;
use rig_core::tool::PortableTool;

mod git {
    atip_runtime::include_atip!("../../examples/atip/git.json");
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let status = RigTool::<git::Status>::new(Runner::new());
    let log = RigTool::<git::Log>::new(Runner::new());
    println!(
        "{}: {}",
        <RigTool<git::Status> as PortableTool>::NAME,
        status.description()
    );
    println!(
        "{}: {}",
        <RigTool<git::Log> as PortableTool>::NAME,
        log.parameters()
    );
    let args = serde_json::json!({"short": true})
        .as_object()
        .cloned()
        .unwrap_or_default();
    match status.call(args).await {
        Ok(out) => println!("git_status →\n{out}"),
        Err(e) => println!("git_status failed: {e}"),
    }
}
