//! Enumeration parameters' enums: which Rust type each parameter's values get ([`Enums`]),
//! and each type's items — a variant per allowed value, the values in one table
//! (`atip_runtime::command::fields::Enumeration::VALUES`), serde and `Display` through it.
//!
//! Parameters with the same values, in the same order, share one type: real metadata repeats
//! value sets per command (every aws command has `--generate-cli-skeleton {input, output}`),
//! and an enum per parameter was most of what checking the generated code of such a document
//! cost. A type is named
//!
//! * after its command and parameter (`PrListState`, `GlobalColor` for a global option) when
//!   one parameter has its values;
//! * after the parameter (`GenerateCliSkeleton`) when every parameter with its values has the
//!   same name, and no parameter of that name has other values;
//! * after the values otherwise (`SelfOrDelegatedAdmin` for `SELF`, `DELEGATED_ADMIN`; the
//!   first two and `Etc` past three values).
//!
//! Names are claimed as commands first use them, so the output is deterministic; its doc
//! comment names the parameters that use it.

use std::collections::{HashMap, HashSet};

use atip_core::flatten::{FlatCommand, FlatParam};
use atip_core::{Diagnostic, Document, JsonPath};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::naming::{invocation, is_shared, renamed};
use crate::docs::{code, own_doc};
use crate::idents::{ident, upper_camel, Scope};

/// How many parameters an enum's doc comment names before it counts the rest.
const NAMED_USERS: usize = 3;

/// An enum for enumeration parameters: one per distinct value list.
pub struct EnumPlan {
    pub ty: Ident,
    pub variants: Vec<(Ident, String)>,
    /// What the doc comment says the values are of (Markdown, metadata escaped).
    pub of: String,
    /// The first command using it: the enum is emitted just before that command.
    pub first_user: usize,
}

/// Who uses one value list, found before any name is given.
#[derive(Default)]
struct Users {
    /// Distinct parameters (a shared option, one value in memory, counts once).
    params: usize,
    /// The name every parameter gives it (UpperCamelCase): `Some(None)` once two disagree
    /// (or one has no letters or digits), `None` before the first.
    name: Option<Option<String>>,
    /// What the first [`NAMED_USERS`] parameters are (for the doc comment).
    named: Vec<String>,
}

/// The enums of enumeration parameters, named as they are first met.
pub(super) struct Enums<'d> {
    doc: &'d Document,
    pub(super) types: Scope,
    enums: Vec<EnumPlan>,
    /// Every value list's users, from a first pass over the commands.
    users: HashMap<&'d [String], Users>,
    /// The enum planned for each value list.
    planned: HashMap<&'d [String], usize>,
}

impl<'d> Enums<'d> {
    /// No enums yet; enum type names are claimed in `types`, the scope of the module's types.
    pub(super) fn new(doc: &'d Document, types: Scope) -> Self {
        let mut users: HashMap<&'d [String], Users> = HashMap::new();
        let mut seen: HashSet<*const FlatParam> = HashSet::new();
        for cmd in &doc.commands {
            for param in cmd.params() {
                let Some(values) = param.enum_values.as_deref() else {
                    continue;
                };
                if !seen.insert(param as *const FlatParam) {
                    continue;
                }
                let u = users.entry(values).or_default();
                u.params += 1;
                let name = upper_camel(&[param.declared_name.as_str()]);
                u.name = match u.name.take() {
                    None => Some(name),
                    Some(agreed) if agreed == name => Some(agreed),
                    Some(_) => Some(None),
                };
                if u.named.len() < NAMED_USERS {
                    u.named.push(enum_owner(doc, "", cmd, param).1);
                }
            }
        }
        // A name two value lists agree on names neither: `--acl` of one service is not the
        // `--acl` of another.
        let mut proposed: HashMap<&str, usize> = HashMap::new();
        for u in users.values().filter(|u| u.params > 1) {
            if let Some(Some(name)) = &u.name {
                *proposed.entry(name.as_str()).or_default() += 1;
            }
        }
        let contested: HashSet<String> = proposed
            .into_iter()
            .filter(|&(_, n)| n > 1)
            .map(|(name, _)| name.to_owned())
            .collect();
        for u in users.values_mut() {
            if matches!(&u.name, Some(Some(name)) if contested.contains(name)) {
                u.name = Some(None);
            }
        }
        Enums {
            doc,
            types,
            enums: Vec::new(),
            users,
            planned: HashMap::new(),
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
        let values = param.enum_values.as_deref()?;
        if let Some(&i) = self.planned.get(values) {
            return Some(self.enums[i].ty.clone());
        }
        let (prefix, own_of) = enum_owner(self.doc, &ty.to_string(), cmd, param);
        let own = || format!("{prefix}{}", value_name(param));
        // Every value list met while planning was seen by the first pass.
        let (key, users) = self.users.get_key_value(values)?;
        let (base, of) = if users.params <= 1 {
            (own(), own_of)
        } else {
            let shared_name = match &users.name {
                Some(Some(name)) => Some(name.clone()),
                _ => values_name(values),
            };
            // A shared name another type holds already (a command, another value list that
            // starts the same) gives way to the first parameter's own name, which is unique.
            let base = shared_name
                .filter(|name| !self.types.is_taken(name))
                .unwrap_or_else(own);
            let mut of = users.named.join(", ");
            match users.params - users.named.len() {
                0 => {}
                1 => of.push_str(" and 1 more parameter"),
                rest => of.push_str(&format!(" and {rest} more parameters")),
            }
            (base, of)
        };
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
        self.planned.insert(key, self.enums.len() - 1);
        Some(ty)
    }
}

/// The parameter's part of an enum name: `--output` → `Output`.
fn value_name(param: &FlatParam) -> String {
    upper_camel(&[param.declared_name.as_str()])
        .map(|s| s.trim_start_matches('_').to_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "Value".to_owned())
}

/// A name made of the values: `SelfOrDelegatedAdmin`; past three, the first two and `Etc`.
/// `None` when a value has no letters or digits to name it by, or the name would start with
/// a digit.
fn values_name(values: &[String]) -> Option<String> {
    let shown = if values.len() > 3 { 2 } else { values.len() };
    let words = values[..shown]
        .iter()
        .map(|v| {
            // `DO_NOTHING` reads as `DoNothing` in a type name (its variant keeps `DO_NOTHING`).
            let v = if v.bytes().any(|b| b.is_ascii_lowercase()) {
                v.clone()
            } else {
                v.to_ascii_lowercase()
            };
            upper_camel(&[v.as_str()]).map(|s| s.trim_start_matches('_').to_owned())
        })
        .collect::<Option<Vec<_>>>()?;
    if words.iter().any(String::is_empty) {
        return None;
    }
    let mut name = words.join("Or");
    if values.len() > shown {
        name.push_str("Etc");
    }
    // `_1kOr4kEtc` names nothing a reader recognises: the parameter's own name does better.
    (!name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
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
