//! Merged [`Effects`] as `const` expressions: each distinct set once (`E0`, `E1`, …), which
//! every command's `Command::EFFECTS` and the module's `EFFECTS` table name.

use std::collections::HashMap;

use atip_core::effects::{Cost, DurationHint, FilesystemEffects, Interactive, TextList};
use atip_core::Effects;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::docs::{code, own_doc};
use crate::idents::upper_camel;

/// The distinct sets of merged effects, each emitted once.
#[derive(Default)]
pub struct EffectConsts {
    /// Index in `effects` of each distinct set, by its token text, and the commands using it.
    effects_index: HashMap<String, usize>,
    effects: Vec<(TokenStream, Vec<String>)>,
}

impl EffectConsts {
    /// The constant holding `effects`, for the command `name`.
    pub fn effects(&mut self, effects: &Effects, name: &str) -> Ident {
        let tokens = effects_tokens(effects);
        let next = self.effects.len();
        let index = *self.effects_index.entry(tokens.to_string()).or_insert(next);
        if index == next {
            self.effects.push((tokens, Vec::new()));
        }
        self.effects[index].1.push(name.to_owned());
        format_ident!("E{index}")
    }

    /// The constants, each documented with the commands using it.
    pub fn items(&self) -> TokenStream {
        let effects = self.effects.iter().enumerate().map(|(i, (tokens, users))| {
            let name = format_ident!("E{i}");
            let users: Vec<String> = users.iter().map(|u| code(u)).collect();
            let doc = own_doc(&format!("The merged effects of {}.", users.join(", ")));
            quote! {
                #doc
                const #name: Effects = #tokens;
            }
        });
        quote! {
            #(#effects)*
        }
    }
}

/// `Effects::UNKNOWN` and a `with_` call per declared field.
fn effects_tokens(e: &Effects) -> TokenStream {
    let mut t = quote!(Effects::UNKNOWN);
    if let Some(fs) = &e.filesystem {
        let fs = filesystem_tokens(fs);
        t.extend(quote!(.with_filesystem(#fs)));
    }
    for (method, value) in [
        ("with_network", e.network),
        ("with_subprocess", e.subprocess),
        ("with_idempotent", e.idempotent),
        ("with_reversible", e.reversible),
        ("with_destructive", e.destructive),
    ] {
        if let Some(v) = value {
            let m = format_ident!("{method}");
            t.extend(quote!(.#m(#v)));
        }
    }
    for (method, value) in [
        ("with_creates", &e.creates),
        ("with_modifies", &e.modifies),
        ("with_deletes", &e.deletes),
    ] {
        if let Some(list) = value {
            let m = format_ident!("{method}");
            let l = list_tokens(list);
            t.extend(quote!(.#m(#l)));
        }
    }
    if let Some(i) = &e.interactive {
        let i = interactive_tokens(i);
        t.extend(quote!(.with_interactive(#i)));
    }
    if let Some(c) = &e.cost {
        let c = cost_tokens(c);
        t.extend(quote!(.with_cost(#c)));
    }
    if let Some(d) = &e.duration {
        let d = duration_tokens(d);
        t.extend(quote!(.with_duration(#d)));
    }
    t
}

fn opt<T>(v: Option<T>, f: impl FnOnce(T) -> TokenStream) -> TokenStream {
    match v {
        Some(v) => {
            let inner = f(v);
            quote!(Some(#inner))
        }
        None => quote!(None),
    }
}

fn list_tokens(list: &TextList) -> TokenStream {
    let items = list.iter().map(|s| Literal::string(s));
    quote!(Borrowed(&[#(Borrowed(#items)),*]))
}

fn text_tokens(s: &str) -> TokenStream {
    let lit = Literal::string(s);
    quote!(Borrowed(#lit))
}

fn filesystem_tokens(fs: &FilesystemEffects) -> TokenStream {
    let read = opt(fs.read, |b| quote!(#b));
    let write = opt(fs.write, |b| quote!(#b));
    let delete = opt(fs.delete, |b| quote!(#b));
    let paths = opt(fs.paths.as_ref(), list_tokens);
    quote! {
        ::atip_runtime::__private::FilesystemEffects { read: #read, write: #write, delete: #delete, paths: #paths }
    }
}

fn interactive_tokens(i: &Interactive) -> TokenStream {
    let stdin = opt(i.stdin, |m| {
        let v = format_ident!("{}", upper_camel(&[m.as_str()]).unwrap_or_default());
        quote!(::atip_runtime::__private::StdinMode::#v)
    });
    let prompts = opt(i.prompts, |b| quote!(#b));
    let tty = opt(i.tty, |b| quote!(#b));
    quote!(::atip_runtime::__private::Interactive { stdin: #stdin, prompts: #prompts, tty: #tty })
}

fn cost_tokens(c: &Cost) -> TokenStream {
    let estimate = opt(c.estimate, |e| {
        let v = format_ident!("{}", upper_camel(&[e.as_str()]).unwrap_or_default());
        quote!(::atip_runtime::__private::CostEstimate::#v)
    });
    let billable = opt(c.billable, |b| quote!(#b));
    quote!(::atip_runtime::__private::Cost { estimate: #estimate, billable: #billable })
}

fn duration_tokens(d: &DurationHint) -> TokenStream {
    let typical = opt(d.typical.as_deref(), text_tokens);
    let timeout = opt(d.timeout.as_deref(), text_tokens);
    quote!(::atip_runtime::__private::DurationHint { typical: #typical, timeout: #timeout })
}
