//! One command's items: its struct, constructor and setters, `impl Command` (constants, the
//! field list and reading checked arguments), the accessors of the option groups it holds
//! and, when asked for, serde; and each option group's struct and trait (`Globals` and
//! `SetGlobals`, `PrOptions` and `SetPrOptions`; which groups exist is `groups.rs`).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::field::{FieldPlan, Shape};
use super::groups::GroupPlan;
use super::naming::invocation;
use super::plan::{CommandPlan, Plan};
use super::Shared;
use crate::docs::{code, effects_summary, escape_block, own_doc, param_doc, text};
use crate::idents::unraw;

/// The struct of one command and its impls; `index` is its position in declaration order
/// (its row of `TOOLS`).
/// What a command's items carry beyond its plan.
#[derive(Debug, Clone, Copy)]
pub struct Extras<'a> {
    /// The tool declares a checksum: `Command::CHECKSUM` refers to the module's constant.
    pub checksum: bool,
    /// The environment variables the command declares (`Command::ENV`).
    pub env: &'a [&'a str],
    /// Generate `serde` impls.
    pub serde: bool,
    /// The metadata describes an MCP server's tools: `Command::SERVER` refers to the module's
    /// constant.
    pub server: bool,
}

pub fn command_items(
    index: usize,
    plan: &CommandPlan<'_>,
    whole: &Plan<'_>,
    program: &str,
    extras: Extras<'_>,
    shared: &mut Shared,
) -> TokenStream {
    let Extras {
        checksum,
        env,
        serde,
        server,
    } = extras;
    let cmd = plan.cmd;
    // Only commands that read declared variables carry the list.
    let env = (!env.is_empty()).then(|| {
        let list = shared.env.list(env);
        quote!(const ENV: &'static [::atip_runtime::__private::Shared<str>] = #list;)
    });
    let ty = &plan.ty;
    let with_params: Vec<String> = cmd
        .params()
        .filter(|p| p.effects.is_some())
        .map(|p| {
            code(
                p.flag()
                    .map_or(p.declared_name.as_str(), |f| f.text.as_str()),
            )
        })
        .collect();
    let param_effects = if with_params.is_empty() {
        String::new()
    } else {
        format!(
            " Giving {} adds effects of its own: `Command::effects` gives a call's.",
            with_params.join(" or ")
        )
    };
    let struct_doc = own_doc(&format!(
        "{}\n\nRuns {}; tool name {}.\n\nEffects: {}.{param_effects}",
        escape_block(&cmd.description),
        code(&invocation(program, &cmd.path)),
        code(&cmd.name),
        text(&effects_summary(&cmd.effects))
    ));

    // The struct holds the command's own fields and, in place of each option group it has
    // whole (the global options, those of a group command above it), one field.
    let mut struct_fields = Vec::new();
    let mut read_fields = Vec::new();
    let mut groups_done: Vec<usize> = Vec::new();
    for f in &plan.fields {
        if let Some(g) = f.group {
            if !groups_done.contains(&g) {
                groups_done.push(g);
                let group = &whole.groups[g];
                let (field, gty) = (&group.field, &group.ty);
                let setters = &group.setters_trait;
                let docs = own_doc(&match group.declared_by {
                    None => format!(
                        "The global options; their setters are those of [`{setters}`] (in \
                         scope with `use <module>::prelude::*;`)."
                    ),
                    Some(by) => format!(
                        "The options of {} (inherited); their setters are those of \
                         [`{setters}`] (in scope with `use <module>::prelude::*;`).",
                        code(&invocation(program, by))
                    ),
                });
                struct_fields.push(quote! {
                    #docs
                    pub #field: #gty,
                });
                read_fields.push(quote!(#field: #gty::from_arguments(args),));
            }
            continue;
        }
        struct_fields.push(field_decl(f));
        read_fields.push(read_field(f));
    }
    let field_refs = plan.fields.iter().map(|f| {
        let field = &f.field;
        match f.group {
            Some(g) => {
                let group = &whole.groups[g].field;
                quote!(&self.#group.#field)
            }
            None => quote!(&self.#field),
        }
    });
    let own: Vec<&FieldPlan<'_>> = plan.fields.iter().filter(|f| f.group.is_none()).collect();
    let held: Vec<&GroupPlan<'_>> = plan.groups.iter().map(|&g| &whole.groups[g]).collect();

    // Constructor: arguments in declaration order, then required options (params() order).
    let required: Vec<&FieldPlan<'_>> = own.iter().copied().filter(|f| f.is_required()).collect();
    let (derive_default, new) = constructor(&required, &own, &held);
    let setters: Vec<TokenStream> = own
        .iter()
        .filter(|f| !f.is_required())
        .map(|f| setter(f))
        .collect();
    // A group's setters, the whole group's included, are the trait's provided methods:
    // the command implements only the accessor (one function per command, not one per
    // option; BENCHMARKS.md).
    let mut set_groups = Vec::new();
    for group in &held {
        let GroupPlan {
            ty: gty,
            setters_trait,
            field,
            accessor,
            ..
        } = group;
        set_groups.push(quote! {
            impl #setters_trait for #ty {
                #[inline]
                fn #accessor(&mut self) -> &mut #gty {
                    &mut self.#field
                }
            }
        });
    }

    let name = Literal::string(&cmd.name);
    let ty_name = Literal::string(&unraw(ty));
    let path = cmd.path.iter().map(|s| Literal::string(s));
    let effects = shared.effects.effects(&cmd.effects, &cmd.name);
    let index = Literal::usize_unsuffixed(index);
    let checksum = checksum.then(|| {
        quote!(
            const CHECKSUM: Option<&'static str> = CHECKSUM;
        )
    });
    let server = server.then(|| {
        quote!(
            const SERVER: Option<&'static str> = SERVER;
        )
    });
    // Only when asked for (`Options::serde`): two generic impls per command are about a
    // seventh of what a build pays for a tool (BENCHMARKS.md); `Command::to_arguments` and
    // `Command::from_json_text` do the same without them.
    let serde_impls = serde.then(|| {
        quote! {
            impl serde::Serialize for #ty {
                fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    __private::serialize_command(self, serializer)
                }
            }

            impl<'de> serde::Deserialize<'de> for #ty {
                fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    __private::deserialize_command(deserializer)
                }
            }
        }
    });
    let args = if plan.fields.is_empty() {
        quote!(_args)
    } else {
        quote!(args)
    };

    quote! {
        #struct_doc
        #[derive(Clone #derive_default)]
        pub struct #ty {
            #(#struct_fields)*
        }

        // Over `Command::fields`, not derived: derived, these two were a fifth of what a
        // large tool costs `cargo check` (BENCHMARKS.md). `#[inline]` here and on the
        // setters: a library compiles such a function only where a program calls it.
        impl std::fmt::Debug for #ty {
            #[inline]
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                __private::debug_command(self, #ty_name, f)
            }
        }

        impl PartialEq for #ty {
            #[inline]
            fn eq(&self, other: &Self) -> bool {
                __private::same_command(self, other)
            }
        }

        impl #ty {
            #new
            #(#setters)*
        }

        impl Command for #ty {
            const NAME: &'static str = #name;
            const PROGRAM: &'static str = PROGRAM;
            const PATH: &'static [&'static str] = &[#(#path),*];
            const EFFECTS: Effects = #effects;
            const TRUST: Option<TrustSource> = TRUST;
            #checksum
            #server
            #env

            fn tool() -> &'static ToolSpec {
                &TOOLS.as_slice()[#index]
            }

            fn fields(&self, visit: &mut dyn FnMut(&[&dyn Field])) {
                visit(&[#(#field_refs),*]);
            }

            fn from_arguments(#args: &mut Arguments<'_>) -> Self {
                Self { #(#read_fields)* }
            }
        }

        #serde_impls

        #(#set_groups)*
    }
}

/// An option group's struct (`Globals`, `PrOptions`) with a setter per option and its
/// reader, and its trait (`SetGlobals`, `SetPrOptions`): the same setters on every command
/// that holds the group.
pub fn group_items(plan: &GroupPlan<'_>, tool: &str, program: &str) -> TokenStream {
    let GroupPlan {
        ty,
        setters_trait,
        field,
        accessor,
        ..
    } = plan;
    let (doc, whose, holders) = match plan.declared_by {
        None => (
            format!(
                "The global options of {}: every command has them, in its `{field}` field, \
                 and writes them right after the program, before the subcommand (spec §3.2, \
                 `globalOptions`).",
                code(tool)
            ),
            "global options".to_owned(),
            format!("every command of {} that has them all", code(tool)),
        ),
        Some(by) => {
            let at = code(&invocation(program, by));
            (
                format!(
                    "The options {at} declares for every command below it: each holds them \
                     in its `{field}` field, and writes them after the subcommand path, before \
                     its own options."
                ),
                format!("options of {at}"),
                format!("every command below {at} that has them all"),
            )
        }
    };
    let doc = own_doc(&doc);
    let example = plan
        .fields
        .first()
        .map_or_else(|| field.to_string(), |f| f.setter.to_string());
    let trait_doc = own_doc(&format!(
        "The setters of [`{ty}`] on {holders}. They chain like the command's own setters once \
         the trait is in scope: {} (with the name of the module the code was generated into) \
         brings every setter trait of the module, and `Command`, into scope. Without it a \
         call such as `.{example}(…)` fails with \"no method named `{example}` found\".",
        code(&format!("use {}::prelude::*;", tool))
    ));
    let accessor_doc = own_doc(&format!("The command's {whose}."));
    let whole_doc = own_doc(&format!("Sets all the {whose} at once."));
    let new_doc = own_doc(&match plan.declared_by {
        None => "Every global option unset.".to_owned(),
        Some(by) => format!("Every option of {} unset.", code(&invocation(program, by))),
    });
    let fields = plan.fields.iter().map(field_decl);
    let setters: Vec<TokenStream> = plan.fields.iter().map(setter).collect();
    let trait_setters = plan.fields.iter().map(|f| {
        let field = &f.field;
        let name = &f.setter;
        let value = format_ident!("value");
        let ity = f.input_ty();
        let conv = f.convert(&value);
        let conv = match f.shape() {
            Shape::Optional => quote!(Some(#conv)),
            _ => conv,
        };
        let docs = setter_doc(f);
        quote! {
            #docs
            #[must_use]
            fn #name(mut self, #value: #ity) -> Self {
                self.#accessor().#field = #conv;
                self
            }
        }
    });
    let reads = plan.fields.iter().map(read_field);
    let read_doc = own_doc(&format!(
        "Reads the {whose} from checked arguments (for `Command::from_arguments`)."
    ));
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct #ty {
            #(#fields)*
        }

        impl #ty {
            #new_doc
            #[inline]
            pub fn new() -> Self {
                Self::default()
            }

            #(#setters)*

            #read_doc
            pub fn from_arguments(args: &mut Arguments<'_>) -> Self {
                Self { #(#reads)* }
            }
        }

        #trait_doc
        pub trait #setters_trait: Sized {
            #accessor_doc
            fn #accessor(&mut self) -> &mut #ty;

            #whole_doc
            #[must_use]
            fn #field(mut self, value: #ty) -> Self {
                *self.#accessor() = value;
                self
            }

            #(#trait_setters)*
        }
    }
}

fn field_decl(f: &FieldPlan<'_>) -> TokenStream {
    let field = &f.field;
    let fty = f.field_ty();
    let docs = own_doc(&param_doc(f.param));
    quote! {
        #docs
        pub #field: #fty,
    }
}

fn read_field(f: &FieldPlan<'_>) -> TokenStream {
    let field = &f.field;
    let name = Literal::string(&f.param.name);
    quote!(#field: args.field(#name),)
}

/// `new`: the required parameters as arguments; `Default` derived when there are none.
fn constructor(
    required: &[&FieldPlan<'_>],
    own: &[&FieldPlan<'_>],
    groups: &[&GroupPlan<'_>],
) -> (TokenStream, TokenStream) {
    if required.is_empty() {
        let new = quote! {
            /// Creates the command with every optional parameter unset.
            #[inline]
            pub fn new() -> Self {
                Self::default()
            }
        };
        return (quote!(, Default), new);
    }
    let doc = own_doc(&format!(
        "Creates the command from its required parameters ({}); optional ones start unset.",
        required
            .iter()
            .map(|f| code(&f.param.declared_name))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let params = required.iter().map(|f| {
        let name = &f.field;
        let ity = f.input_ty();
        quote!(#name: #ity)
    });
    let inline = inline_unless_generic(required.iter().any(|f| f.input_is_generic()));
    let inits = own.iter().map(|f| {
        let field = &f.field;
        if f.is_required() {
            let conv = f.convert(field);
            if *field == conv.to_string() {
                // Taken as it is (an enum value, a number): shorthand, as clippy wants.
                quote!(#field,)
            } else {
                quote!(#field: #conv,)
            }
        } else {
            quote!(#field: Default::default(),)
        }
    });
    let groups = groups.iter().map(|g| {
        let field = &g.field;
        quote!(#field: Default::default(),)
    });
    let new = quote! {
        #doc
        #inline
        pub fn new(#(#params),*) -> Self {
            Self { #(#inits)* #(#groups)* }
        }
    };
    (TokenStream::new(), new)
}

/// A chainable setter for an optional parameter.
fn setter(f: &FieldPlan<'_>) -> TokenStream {
    let field = &f.field;
    let setter = &f.setter;
    let value = format_ident!("value");
    let ity = f.input_ty();
    let conv = f.convert(&value);
    let assign = match f.shape() {
        Shape::Optional => quote!(self.#field = Some(#conv);),
        _ => quote!(self.#field = #conv;),
    };
    let docs = setter_doc(f);
    let inline = inline_unless_generic(f.input_is_generic());
    quote! {
        #docs
        #[must_use]
        #inline
        pub fn #setter(mut self, #value: #ity) -> Self {
            #assign
            self
        }
    }
}

/// `#[inline]` for a function that is not `generic` (no `impl Trait` parameter): a library
/// compiles an inline function only where a program calls it, and a large tool's thousands
/// of setters are otherwise all compiled (BENCHMARKS.md). A generic function is compiled only
/// where called anyway, so it goes without.
fn inline_unless_generic(generic: bool) -> TokenStream {
    if generic {
        TokenStream::new()
    } else {
        quote!(#[inline])
    }
}

fn setter_doc(f: &FieldPlan<'_>) -> TokenStream {
    own_doc(&match f.param.flag() {
        Some(flag) => format!(
            "Sets {} ({}).",
            code(&f.param.declared_name),
            code(&flag.text)
        ),
        None => format!("Sets {}.", code(&f.param.declared_name)),
    })
}
