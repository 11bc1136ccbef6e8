//! The lists of environment variables commands declare (`Command::ENV`), each distinct list
//! once (`ENV0`, `ENV1`, …): a real tool's variables are mostly its authentication's, the
//! same for every command, and a list per command was repeated hundreds of times.

use std::collections::HashMap;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::docs::{code, own_doc};

/// The distinct lists of declared environment variables, each emitted once.
#[derive(Default)]
pub struct EnvLists {
    /// Index in `lists` of each distinct list.
    index: HashMap<Vec<String>, usize>,
    /// Each list and how many commands declare it.
    lists: Vec<(Vec<String>, usize)>,
}

impl EnvLists {
    /// The constant holding `names` (in their order), for one more command.
    pub fn list(&mut self, names: &[&str]) -> Ident {
        let key: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        let next = self.lists.len();
        let index = *self.index.entry(key.clone()).or_insert(next);
        if index == next {
            self.lists.push((key, 0));
        }
        self.lists[index].1 += 1;
        format_ident!("ENV{index}")
    }

    /// The constants, each documented with its variables and how many commands read them.
    pub fn items(&self) -> TokenStream {
        let lists = self.lists.iter().enumerate().map(|(i, (names, users))| {
            let name = format_ident!("ENV{i}");
            let listed: Vec<String> = names.iter().map(|n| code(n)).collect();
            let commands = if *users == 1 { "command" } else { "commands" };
            let doc = own_doc(&format!(
                "The environment variables {users} {commands} declare: {}.",
                listed.join(", ")
            ));
            let names = names.iter().map(|n| Literal::string(n));
            quote! {
                #doc
                const #name: &[::atip_runtime::__private::Shared<str>] =
                    &[#(::atip_runtime::__private::Shared::Static(#names)),*];
            }
        });
        quote!(#(#lists)*)
    }
}
