//! `const` expressions: a command's [`ToolSpec`](atip_core::ToolSpec) with its parameter
//! table, and merged [`Effects`]; and the constants several commands share.

use std::collections::HashMap;

use atip_core::effects::{Cost, DurationHint, FilesystemEffects, Interactive, TextList};
use atip_core::flatten::FlatParam;
use atip_core::tool::{ArgvForm, ParamSpec, ValueKind};
use atip_core::Effects;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::plan::{is_shared, CommandPlan, Plan};
use crate::docs::doc_attrs;
use crate::idents::upper_camel;

/// Constants that several commands share, emitted once: the specs of inherited and global
/// options, and each distinct set of merged effects.
#[derive(Default)]
pub struct Shared {
    params: Vec<TokenStream>,
    /// Index in `effects` of each distinct set, by its token text, and the commands using it.
    effects_index: HashMap<String, usize>,
    effects: Vec<(TokenStream, Vec<String>)>,
}

impl Shared {
    /// The specs of the shared options, in the order commands first use them.
    pub fn new(plan: &Plan<'_>) -> Self {
        let mut params = Vec::new();
        let mut done: Vec<*const FlatParam> = Vec::new();
        for c in &plan.commands {
            for (f, spec) in c.fields.iter().zip(c.spec.params.iter()) {
                let key = f.param as *const FlatParam;
                if is_shared(f.param) && !done.contains(&key) {
                    done.push(key);
                    let name = &plan.shared_params[&key];
                    let tokens = param_spec_tokens(spec);
                    let doc = doc_attrs(&format!(
                        "The option `{}`, shared by every command that has it.",
                        spec.argv.label()
                    ));
                    params.push(quote! {
                        #doc
                        const #name: ParamSpec = #tokens;
                    });
                }
            }
        }
        Shared {
            params,
            ..Shared::default()
        }
    }

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

    pub fn items(&self) -> TokenStream {
        let params = &self.params;
        let effects = self.effects.iter().enumerate().map(|(i, (tokens, users))| {
            let name = format_ident!("E{i}");
            let doc = doc_attrs(&format!("The merged effects of `{}`.", users.join("`, `")));
            quote! {
                #doc
                const #name: Effects = #tokens;
            }
        });
        quote! {
            #(#params)*
            #(#effects)*
        }
    }
}

/// `ToolSpec { … }` of one command, inside its `impl Command`.
pub fn tool_spec_tokens(plan: &CommandPlan<'_>, shared: &Plan<'_>) -> TokenStream {
    let spec = &plan.spec;
    let title = Literal::string(&spec.title);
    let path = spec.path.iter().map(|s| Literal::string(s));
    let description = Literal::string(&spec.description);
    let params = plan.fields.iter().zip(spec.params.iter()).map(|(f, p)| {
        match shared.shared_params.get(&(f.param as *const FlatParam)) {
            Some(name) => quote!(#name),
            None => param_spec_tokens(p),
        }
    });
    quote! {
        ToolSpec {
            name: Borrowed(Self::NAME),
            title: Borrowed(#title),
            path: Borrowed(&[#(Borrowed(#path)),*]),
            description: Borrowed(#description),
            effects: Self::EFFECTS,
            params: Borrowed(&[#(#params),*]),
        }
    }
}

/// A parameter's row: its named constructor, then what differs from the defaults.
fn param_spec_tokens(p: &ParamSpec) -> TokenStream {
    let name = Literal::string(&p.name);
    let description = Literal::string(&p.description);
    let kind = value_kind(p.kind);
    let mut t = match &p.argv {
        ArgvForm::Argument(_) => quote!(ParamSpec::argument(#name, #description, #kind)),
        ArgvForm::Flag(flag) => {
            let flag = Literal::string(flag);
            quote!(ParamSpec::flag(#name, #description, #flag))
        }
        ArgvForm::Joined(flag) => {
            let flag = Literal::string(flag);
            quote!(ParamSpec::option(#name, #description, #kind, #flag))
        }
        ArgvForm::Separate(flag) => {
            let flag = Literal::string(flag);
            quote!(ParamSpec::short_option(#name, #description, #kind, #flag))
        }
    };
    if let ArgvForm::Argument(declared) = &p.argv {
        if **declared != *p.name {
            let declared = Literal::string(declared);
            t.extend(quote!(.declared_as(#declared)));
        }
    }
    if p.required {
        t.extend(quote!(.required()));
    }
    if p.multiple {
        t.extend(quote!(.multiple()));
    }
    if p.global {
        t.extend(quote!(.global()));
    }
    if let Some(values) = &p.values {
        let items = values.iter().map(|s| Literal::string(s));
        t.extend(quote!(.values(&[#(Borrowed(#items)),*])));
    }
    if let Some(default) = &p.default {
        let default = Literal::string(default);
        t.extend(quote!(.default(#default)));
    }
    t
}

fn value_kind(kind: ValueKind) -> TokenStream {
    let variant = format_ident!(
        "{}",
        match kind {
            ValueKind::String => "String",
            ValueKind::Integer => "Integer",
            ValueKind::Number => "Number",
            ValueKind::Boolean => "Boolean",
            ValueKind::File => "File",
            ValueKind::Directory => "Directory",
            ValueKind::Url => "Url",
            ValueKind::Enum => "Enum",
        }
    );
    quote!(ValueKind::#variant)
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
        ::atip_runtime::FilesystemEffects { read: #read, write: #write, delete: #delete, paths: #paths }
    }
}

fn interactive_tokens(i: &Interactive) -> TokenStream {
    let stdin = opt(i.stdin, |m| {
        let v = format_ident!("{}", upper_camel(&[m.as_str()]).unwrap_or_default());
        quote!(::atip_runtime::StdinMode::#v)
    });
    let prompts = opt(i.prompts, |b| quote!(#b));
    let tty = opt(i.tty, |b| quote!(#b));
    quote!(::atip_runtime::Interactive { stdin: #stdin, prompts: #prompts, tty: #tty })
}

fn cost_tokens(c: &Cost) -> TokenStream {
    let estimate = opt(c.estimate, |e| {
        let v = format_ident!("{}", upper_camel(&[e.as_str()]).unwrap_or_default());
        quote!(::atip_runtime::CostEstimate::#v)
    });
    let billable = opt(c.billable, |b| quote!(#b));
    quote!(::atip_runtime::Cost { estimate: #estimate, billable: #billable })
}

fn duration_tokens(d: &DurationHint) -> TokenStream {
    let typical = opt(d.typical.as_deref(), text_tokens);
    let timeout = opt(d.timeout.as_deref(), text_tokens);
    quote!(::atip_runtime::DurationHint { typical: #typical, timeout: #timeout })
}
