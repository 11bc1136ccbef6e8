//! The git commands of `examples/atip/git.json`, generated at compile time, served over MCP on
//! stdio with the default policy: destructive commands are put to the client's user through
//! MCP elicitation, and refused when the client cannot ask.
//!
//! `cargo run -p atip-mcp --example mcp_server` — then speak MCP on stdin,
//! or point an MCP client at that command.

use atip_mcp::McpServer;
use atip_runtime::Runner;

mod git {
    atip_runtime::include_atip!("../../examples/atip/git.json");
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = McpServer::for_module::<git::Call>(Runner::new())?;
    eprintln!("serving {} git tools on stdio", server.definitions().len());
    server.serve_stdio().await?;
    Ok(())
}
