//! `pub mod schemas`, only when asked for: one `const &str` JSON array per chosen provider,
//! computed at build time (the same text the generated `definitions` function computes at
//! run time).

use atip_core::providers::{tool_definitions_json, Provider};
use atip_core::ToolSpec;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::docs::{code, own_doc};

pub fn schemas_module(tool: &str, specs: &[&ToolSpec], providers: &[Provider]) -> TokenStream {
    if providers.is_empty() {
        return TokenStream::new();
    }
    let consts = providers.iter().map(|p| {
        let name = format_ident!("{}", p.const_name());
        let text = tool_definitions_json(specs.iter().copied(), *p);
        let lit = Literal::string(&text);
        let docs = own_doc(&format!(
            "Every command of {} as `{}` tool definitions: a JSON array.",
            code(tool),
            p.as_str()
        ));
        quote! {
            #docs
            pub const #name: &str = #lit;
        }
    });
    let docs = own_doc(&format!(
        "Provider tool definitions of every command of {}, computed when this code was \
         generated (the `schemas` option); [`definitions`](super::definitions) computes any \
         provider's at run time.",
        code(tool)
    ));
    quote! {
        #docs
        pub mod schemas {
            #(#consts)*
        }
    }
}
