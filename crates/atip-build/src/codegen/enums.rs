//! One enumeration parameter's enum: its name and variants, planned as commands first use it
//! ([`Enums`]), and its items — a variant per allowed value, the values in one table
//! (`atip_runtime::Enumeration::VALUES`), serde and `Display` through it.

use std::collections::HashMap;

use atip_core::flatten::{FlatCommand, FlatParam};
use atip_core::{Diagnostic, Document, JsonPath};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::naming::{invocation, is_shared, renamed};
use crate::docs::{code, own_doc};
use crate::idents::{ident, upper_camel, Scope};

/// An enum for an enumeration parameter: one per command for the command's own parameters,
/// one per declaring command (or the tool, for global options) for inherited and global ones,
/// shared by every command that has the option.
pub struct EnumPlan {
    pub ty: Ident,
    pub variants: Vec<(Ident, String)>,
    /// What the doc comment says the values are of (Markdown, metadata escaped).
    pub of: String,
    /// The first command using it: the enum is emitted just before that command.
    pub first_user: usize,
}

/// The enums of enumeration parameters, named as they are first met.
pub(super) struct Enums<'d> {
    doc: &'d Document,
    pub(super) types: Scope,
    enums: Vec<EnumPlan>,
    /// Shared (inherited or global) options are one value in memory: their address names
    /// them, and their enum is made once.
    shared: HashMap<*const FlatParam, usize>,
}

impl<'d> Enums<'d> {
    /// No enums yet; enum type names are claimed in `types`, the scope of the module's types.
    pub(super) fn new(doc: &'d Document, types: Scope) -> Self {
        Enums {
            doc,
            types,
            enums: Vec::new(),
            shared: HashMap::new(),
        }
    }

    /// Every enum named, in the order they were first met.
    pub(super) fn into_plans(self) -> Vec<EnumPlan> {
        self.enums
    }

    /// The enum of `param` (of command `cmd`, type `ty`, number `index`), if it is an
    /// enumeration.
    pub(super) fn enum_for(
        &mut self,
        index: usize,
        ty: &Ident,
        cmd: &FlatCommand,
        param: &FlatParam,
        warnings: &mut Vec<Diagnostic>,
    ) -> Option<Ident> {
        let values = param.enum_values.as_ref()?;
        let key = param as *const FlatParam;
        if let Some(i) = self.shared.get(&key) {
            return Some(self.enums[*i].ty.clone());
        }
        let value_name = upper_camel(&[param.declared_name.as_str()])
            .map(|s| s.trim_start_matches('_').to_owned())
            .unwrap_or_else(|| "Value".to_owned());
        let (prefix, of) = enum_owner(self.doc, &ty.to_string(), cmd, param);
        let base = format!("{prefix}{value_name}");
        let at = param.origin.json_path();
        let (name, clash) = self.types.claim_for(&base, "", &at.to_string());
        warnings.extend(renamed("type", &base, &name, at.clone(), clash));
        let ty = ident(&name);
        self.enums.push(EnumPlan {
            ty: ty.clone(),
            variants: variants(values, &at, warnings),
            of,
            first_user: index,
        });
        if is_shared(param) {
            self.shared.insert(key, self.enums.len() - 1);
        }
        Some(ty)
    }
}

/// Names one enumeration's variants, in value order.
fn variants(
    values: &[String],
    at: &JsonPath,
    warnings: &mut Vec<Diagnostic>,
) -> Vec<(Ident, String)> {
    let mut scope = Scope::with_reserved(&["Self"]);
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let base = if v.is_empty() {
                "Empty".to_owned()
            } else {
                match upper_camel(&[v.as_str()]) {
                    Some(s) if s == "Self" => "SelfValue".to_owned(),
                    Some(s) => s,
                    None => "Value".to_owned(),
                }
            };
            let owner = format!("value {v:?} ({})", at.key("enum").index(i));
            let (name, clash) = scope.claim_for(&base, "", &owner);
            warnings.extend(renamed(
                "variant",
                &base,
                &name,
                at.key("enum").index(i),
                clash,
            ));
            (ident(&name), v.clone())
        })
        .collect()
}

/// What an enum's doc comment calls the parameter, and the prefix of its type name.
fn enum_owner(doc: &Document, ty: &str, cmd: &FlatCommand, param: &FlatParam) -> (String, String) {
    let flag = match param.flag() {
        Some(flag) => code(&flag.text),
        None => format!("argument {}", code(&param.declared_name)),
    };
    if !is_shared(param) {
        return (
            ty.to_owned(),
            format!("{flag} of {}", code(&invocation(&doc.tool.name, &cmd.path))),
        );
    }
    let declared_by = &param.origin.command;
    if param.is_global() {
        (
            "Global".to_owned(),
            format!("{flag} (a global option of {})", code(&doc.tool.name)),
        )
    } else {
        (
            upper_camel(declared_by).unwrap_or_default(),
            format!(
                "{flag} of {} and every command below it",
                code(&invocation(&doc.tool.name, declared_by))
            ),
        )
    }
}

pub fn enum_items(e: &EnumPlan) -> TokenStream {
    let ty = &e.ty;
    let enum_doc = own_doc(&format!("Values of {}.", e.of));
    let variants = e.variants.iter().map(|(v, text)| {
        let docs = own_doc(&code(text));
        quote! {
            #docs
            #v,
        }
    });
    let table = e.variants.iter().map(|(v, text)| {
        let lit = Literal::string(text);
        quote!((Self::#v, #lit))
    });
    quote! {
        #enum_doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum #ty {
            #(#variants)*
        }

        impl Enumeration for #ty {
            const VALUES: &'static [(Self, &'static str)] = &[#(#table),*];
        }

        impl serde::Serialize for #ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                __private::serialize_enum(*self, serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for #ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                __private::deserialize_enum(deserializer)
            }
        }

        impl std::fmt::Display for #ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}
