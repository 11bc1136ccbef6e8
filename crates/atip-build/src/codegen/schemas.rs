//! `pub mod schemas`, only when asked for: one `const &str` JSON array per chosen provider,
//! computed at build time (the same text the generated `definitions` function computes at
//! run time).

use atip_core::providers::{tool_definitions_json, Provider};
use atip_core::ToolSpec;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::docs::doc_attrs;

pub fn schemas_module(tool: &str, specs: &[&ToolSpec], providers: &[Provider]) -> TokenStream {
    if providers.is_empty() {
        return TokenStream::new();
    }
    let consts = providers.iter().map(|p| {
        let name = format_ident!("{}", p.const_name());
        let text = tool_definitions_json(specs.iter().copied(), *p);
        let lit = Literal::string(&text);
        let docs = doc_attrs(&format!(
            "Every command of `{tool}` as `{}` tool definitions: a JSON array.",
            p.as_str()
        ));
        quote! {
            #docs
            pub const #name: &str = #lit;
        }
    });
    let docs = doc_attrs(&format!(
        "Provider tool definitions of every command of `{tool}`, computed when this code was \
         generated (the `schemas` option); `definitions` computes any provider's at run time."
    ));
    quote! {
        #docs
        pub mod schemas {
            #(#consts)*
        }
    }
}
