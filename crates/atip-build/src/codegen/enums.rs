//! One enumeration parameter's enum: a variant per allowed value, the values in one table
//! (`atip_runtime::Enumeration::VALUES`), serde and `Display` through it.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::plan::EnumPlan;
use crate::docs::doc_attrs;

pub fn enum_items(e: &EnumPlan) -> TokenStream {
    let ty = &e.ty;
    let enum_doc = doc_attrs(&format!("Values of {}.", e.of));
    let variants = e.variants.iter().map(|(v, text)| {
        let docs = doc_attrs(&format!("`{text}`"));
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
