//! Typed interop with Rust LLM crates, each behind its own cargo feature (off by default).
//!
//! * `async-openai` (0.43): [`async_openai`] — generated tool definitions as its chat and
//!   responses request types, and its response types accepted by dispatch.
//! * `rig` (rig-core 0.44): [`rig`] — each generated command as a rig tool
//!   (`PortableTool`), rig's tool definitions and tool calls converted to and from ours.
//!
//! The MCP side (`rmcp` 3.9) is the crate `atip-mcp`.

#[cfg(feature = "async-openai")]
pub mod async_openai;

#[cfg(feature = "rig")]
pub mod rig;
