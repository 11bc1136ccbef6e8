//! Naming, before any code is written: every Rust name of the generated module, assigned in
//! declaration order so the output is deterministic, with each collision a warning naming
//! both JSON paths.

use std::collections::HashMap;

use atip_core::flatten::{FlatCommand, FlatParam, OptionScope, ParamPlacement};
use atip_core::{Diagnostic, Document, JsonPath, ParamType, ToolSpec};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

pub use super::groups::GroupPlan;
use super::groups::Groups;
use crate::idents::{ident, snake, upper_camel, Scope, RESERVED_METHODS, RESERVED_TYPES};

/// Everything the generator emits, named.
pub struct Plan<'a> {
    pub commands: Vec<CommandPlan<'a>>,
    pub enums: Vec<EnumPlan>,
    /// The option groups: the tool's global options (first, when there are any and none is
    /// required) and the options of each group command that declares some for the commands
    /// below it (none required). A command that has all of a group's options holds them in
    /// one field (a command whose own option shadows one holds the rest as its own fields).
    pub groups: Vec<GroupPlan<'a>>,
    /// Renames forced by collisions between Rust names.
    pub warnings: Vec<Diagnostic>,
}

pub struct CommandPlan<'a> {
    pub cmd: &'a FlatCommand,
    pub ty: Ident,
    /// Every parameter, in the order of the command's `ToolSpec::params`.
    pub fields: Vec<FieldPlan<'a>>,
    /// The groups (indices into [`Plan::groups`]) whose options the command holds in one
    /// field each rather than in fields of their own, in the order of its parameters.
    pub groups: Vec<usize>,
    /// What a model sees of the command; emitted as its row of the spec table.
    pub spec: ToolSpec,
}

pub struct FieldPlan<'a> {
    pub param: &'a FlatParam,
    pub field: Ident,
    pub setter: Ident,
    /// The generated enum's name, when the parameter is an enumeration.
    pub enum_ty: Option<Ident>,
    /// The group (index into [`Plan::groups`]) whose struct holds the field, if any.
    pub group: Option<usize>,
}

/// An enum for an enumeration parameter: one per command for the command's own parameters,
/// one per declaring command (or the tool, for global options) for inherited and global ones,
/// shared by every command that has the option.
pub struct EnumPlan {
    pub ty: Ident,
    pub variants: Vec<(Ident, String)>,
    /// What the doc comment says the values are of.
    pub of: String,
    /// The first command using it: the enum is emitted just before that command.
    pub first_user: usize,
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

/// Whether a parameter is shared by several commands (an inherited or global option).
pub fn is_shared(param: &FlatParam) -> bool {
    !matches!(
        param.kind,
        ParamPlacement::Argument
            | ParamPlacement::Option {
                scope: OptionScope::Own,
                ..
            }
    )
}

/// The warning for a Rust name that had to change because another item took it first.
fn renamed(
    what: &str,
    wanted: &str,
    got: &str,
    at: JsonPath,
    first: Option<Option<String>>,
) -> Option<Diagnostic> {
    let first = first?;
    let by = match first {
        Some(owner) => format!("the {what} generated for {owner}"),
        None => "a name the generated module reserves".to_owned(),
    };
    Some(Diagnostic::warning(
        at,
        format!("the Rust {what} `{wanted}` is taken by {by}, so this one is named `{got}`"),
    ))
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

/// `gh pr create`: the program (or tool name) and a subcommand path, as typed.
pub(super) fn invocation(tool: &str, path: &[String]) -> String {
    std::iter::once(tool)
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What an enum's doc comment calls the parameter, and the prefix of its type name.
fn enum_owner(doc: &Document, ty: &str, cmd: &FlatCommand, param: &FlatParam) -> (String, String) {
    let flag = match param.flag() {
        Some(flag) => format!("`{}`", flag.text),
        None => format!("argument `{}`", param.declared_name),
    };
    if !is_shared(param) {
        return (
            ty.to_owned(),
            format!("{flag} of `{}`", invocation(&doc.tool.name, &cmd.path)),
        );
    }
    let declared_by = &param.origin.command;
    if param.is_global() {
        (
            "Global".to_owned(),
            format!("{flag} (a global option of `{}`)", doc.tool.name),
        )
    } else {
        (
            upper_camel(declared_by).unwrap_or_default(),
            format!(
                "{flag} of `{}` and every command below it",
                invocation(&doc.tool.name, declared_by)
            ),
        )
    }
}

/// The setter of field `field`: its name, or `with_` and its name when that is one of the
/// methods every command has (`with_new`).
pub(super) fn setter_name(methods: &mut Scope, field: &str) -> Ident {
    let base = if RESERVED_METHODS.contains(&field) {
        format!("with_{field}")
    } else {
        field.to_owned()
    };
    ident(&methods.claim(&base, "_"))
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

impl Enums<'_> {
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

/// Assigns every Rust name, in declaration order.
pub fn plan(doc: &Document) -> Plan<'_> {
    let mut warnings = Vec::new();
    let mut types = Scope::with_reserved(RESERVED_TYPES);
    let struct_names: Vec<Ident> = doc
        .commands
        .iter()
        .map(|cmd| {
            let base = if cmd.path.is_empty() {
                upper_camel(&[doc.tool.name.as_str()])
            } else {
                upper_camel(&cmd.path)
            }
            .unwrap_or_else(|| "Unnamed".to_owned());
            let base = if RESERVED_TYPES.contains(&base.as_str()) {
                format!("{base}Command")
            } else {
                base
            };
            let (name, clash) = types.claim_for(&base, "", &cmd.json_path.to_string());
            warnings.extend(renamed(
                "type",
                &base,
                &name,
                (*cmd.json_path).clone(),
                clash,
            ));
            ident(&name)
        })
        .collect();

    let mut enums = Enums {
        doc,
        types,
        enums: Vec::new(),
        shared: HashMap::new(),
    };

    let mut groups = Groups::new(doc, &mut enums, &mut warnings);

    let commands = doc
        .commands
        .iter()
        .zip(struct_names)
        .enumerate()
        .map(|(index, (cmd, ty))| {
            let mut fields = Scope::default();
            let mut methods = Scope::with_reserved(RESERVED_METHODS);
            let held = groups.held_by(
                index,
                cmd,
                &ty,
                &mut enums,
                &mut warnings,
                &mut fields,
                &mut methods,
            );
            let plans = cmd
                .params()
                .map(|param| {
                    let in_group = held.iter().find_map(|&g| {
                        groups.list[g]
                            .fields
                            .iter()
                            .find(|f| std::ptr::eq(f.param, param))
                            .map(|f| (g, f))
                    });
                    if let Some((g, shared)) = in_group {
                        return FieldPlan {
                            param,
                            field: shared.field.clone(),
                            setter: shared.setter.clone(),
                            enum_ty: shared.enum_ty.clone(),
                            group: Some(g),
                        };
                    }
                    let base = snake(&param.declared_name);
                    let at = param.origin.json_path();
                    let (name, clash) = fields.claim_for(&base, "_", &at.to_string());
                    warnings.extend(renamed("field", &base, &name, at, clash));
                    let setter = setter_name(&mut methods, &name);
                    FieldPlan {
                        param,
                        field: ident(&name),
                        setter,
                        enum_ty: enums.enum_for(index, &ty, cmd, param, &mut warnings),
                        group: None,
                    }
                })
                .collect();
            CommandPlan {
                cmd,
                ty,
                fields: plans,
                groups: held,
                spec: ToolSpec::from_flat(&doc.tool.name, cmd),
            }
        })
        .collect();
    Plan {
        commands,
        enums: enums.enums,
        groups: groups.list,
        warnings,
    }
}
