//! The typed-command contract: a struct per command ([`Command`], in [`contract`]), the
//! command ready to run ([`Invocation`]), its fields ([`fields`]) and argv ([`argv`]), the
//! table of a generated module's commands ([`tool_table`]), and dispatch of a model's tool
//! call into a command ([`dispatch`]). Generated code reaches its private support through
//! `atip_runtime::__private`.

pub mod argv;
pub mod contract;
pub mod dispatch;
pub mod fields;
pub mod invocation;
mod result;
pub mod tool_table;

pub use contract::Command;
pub use invocation::{CallEffects, Invocation, ParamEffects, ToInvocation};
pub use result::ToolResult;
