//! The git commands of `examples/atip/git.json` as async-openai request types, and the tool
//! calls of a recorded chat completion (read into async-openai's response type) dispatched to
//! typed git commands.
//!
//! `cargo run -p atip-runtime --features async-openai --example openai_tools`

use async_openai::types::chat::{ChatCompletionTools, CreateChatCompletionResponse};
use atip_runtime::interop::async_openai::{chat_tools, tool_calls_from_chat};

mod git {
    atip_runtime::include_atip!("../../examples/atip/git.json");
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools = chat_tools(&git::TOOLS, true)?;
    for tool in &tools {
        if let ChatCompletionTools::Function(f) = tool {
            println!("tool {}", f.function.name);
        }
    }
    let body = include_str!("../../../examples/replay/openai-chat.json");
    let response: CreateChatCompletionResponse = serde_json::from_str(body)?;
    for call in tool_calls_from_chat(&response)? {
        let command = git::Call::from_tool_call(&call)?;
        println!("{} → {:?}", call.name, command.argv());
    }
    Ok(())
}
