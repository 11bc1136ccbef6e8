//! One parameter's field in a generated struct: its name, setter and enum, and the Rust types
//! it is held as and set with.

use atip_core::flatten::FlatParam;
use atip_core::ParamType;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// One parameter of a command or an option group, named.
pub struct FieldPlan<'a> {
    pub param: &'a FlatParam,
    pub field: Ident,
    pub setter: Ident,
    /// The generated enum's name, when the parameter is an enumeration.
    pub enum_ty: Option<Ident>,
    /// The group (index into [`Plan::groups`]) whose struct holds the field, if any.
    pub group: Option<usize>,
}

/// How a parameter is held in its struct.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `bool`, `false` by default.
    Flag,
    /// `Vec<T>`.
    List { required: bool },
    /// `T`.
    Required,
    /// `Option<T>`.
    Optional,
}

impl FieldPlan<'_> {
    pub fn shape(&self) -> Shape {
        let p = self.param;
        if p.ty == ParamType::Boolean && self.enum_ty.is_none() {
            Shape::Flag
        } else if p.multiple {
            Shape::List {
                required: p.required,
            }
        } else if p.required {
            Shape::Required
        } else {
            Shape::Optional
        }
    }

    /// Must be given to the constructor.
    pub fn is_required(&self) -> bool {
        matches!(
            self.shape(),
            Shape::Required | Shape::List { required: true }
        )
    }

    /// The type of one value.
    pub fn value_ty(&self) -> TokenStream {
        if let Some(ty) = &self.enum_ty {
            return quote!(#ty);
        }
        match self.param.ty {
            ParamType::Integer => quote!(i64),
            ParamType::Number => quote!(f64),
            ParamType::Boolean => quote!(bool),
            ParamType::File | ParamType::Directory => quote!(PathBuf),
            ParamType::String | ParamType::Url | ParamType::Enum | ParamType::Array => {
                quote!(String)
            }
        }
    }

    /// Whether values convert with `Into` (strings and paths).
    fn converts(&self) -> bool {
        self.enum_ty.is_none()
            && matches!(
                self.param.ty,
                ParamType::String
                    | ParamType::Url
                    | ParamType::Enum
                    | ParamType::Array
                    | ParamType::File
                    | ParamType::Directory
            )
    }

    pub fn field_ty(&self) -> TokenStream {
        let v = self.value_ty();
        match self.shape() {
            Shape::Flag => quote!(bool),
            Shape::List { .. } => quote!(Vec<#v>),
            Shape::Required => v,
            Shape::Optional => quote!(Option<#v>),
        }
    }

    /// The type a constructor or setter takes.
    pub fn input_ty(&self) -> TokenStream {
        let v = self.value_ty();
        match (self.shape(), self.converts()) {
            (Shape::Flag, _) => quote!(bool),
            (Shape::List { .. }, true) => quote!(impl IntoIterator<Item = impl Into<#v>>),
            (Shape::List { .. }, false) => quote!(impl IntoIterator<Item = #v>),
            (_, true) => quote!(impl Into<#v>),
            (_, false) => v,
        }
    }

    /// Whether [`FieldPlan::input_ty`] is generic (`impl …`), the same cases.
    pub fn input_is_generic(&self) -> bool {
        !matches!(
            (self.shape(), self.converts()),
            (Shape::Flag, _) | (Shape::Required | Shape::Optional, false)
        )
    }

    /// Converts the input `var` to the field's value (without `Some`).
    pub fn convert(&self, var: &Ident) -> TokenStream {
        match (self.shape(), self.converts()) {
            // One call rather than an iterator chain in every setter: the chain's inference
            // was a tenth of what a large tool costs `cargo check` (BENCHMARKS.md).
            (Shape::List { .. }, _) => quote!(__private::list(#var)),
            (Shape::Flag, _) | (_, false) => quote!(#var),
            (_, true) => quote!(#var.into()),
        }
    }
}
