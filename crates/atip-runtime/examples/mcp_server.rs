//! The git commands of `examples/atip/git.json`, generated at compile time, served over MCP on
//! stdio with the default policy (destructive commands are refused: nobody can confirm them).
//!
//! `cargo run -p atip-runtime --features rmcp --example mcp_server` — then speak MCP on stdin,
//! or point an MCP client at that command.

use atip_runtime::mcp::McpServer;
use atip_runtime::{Runner, ToInvocation};

mod git {
    atip_runtime::include_atip!("../../examples/atip/git.json");
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = McpServer::generated(
        git::TOOLS,
        |call| {
            let command = git::Call::from_tool_call(call).map_err(|e| e.to_string())?;
            command.to_invocation().map_err(|e| e.to_string())
        },
        Runner::new(),
    )?;
    eprintln!("serving {} git tools on stdio", server.definitions().len());
    server.serve_stdio().await?;
    Ok(())
}
