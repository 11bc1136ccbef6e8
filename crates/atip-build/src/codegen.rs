//! The generator: a flattened [`Document`] → Rust items, as a `TokenStream`.
//!
//! Pure: no I/O, no environment, no hash-map iteration in the output. The macro, `build.rs`
//! and `atip gen` all call [`generate`], so they emit the same code for the same input.
//!
//! For each flattened command (e.g. `gh pr create`) it emits:
//!
//! * `pub struct PrCreate` with one pub field per parameter (inherited and global options
//!   included), serde derives using the provider parameter names, `new(…)` taking the
//!   required parameters (arguments in declaration order, then required options) and a
//!   chainable setter per optional parameter;
//! * one `pub enum {Struct}{Param}` per enumeration parameter, its values kept verbatim;
//! * `impl ::atip_runtime::Command` with `NAME`, `PROGRAM`, `PATH`, `EFFECTS`, `TRUST` and
//!   `write_argv`.
//!
//! Then `pub enum Call` (one variant per command) and `pub const EFFECTS` (flattened name →
//! merged effects).

use std::collections::HashMap;

use atip_core::effects::{Cost, DurationHint, FilesystemEffects, Interactive, TextList};
use atip_core::flatten::{FlatCommand, FlatParam, OptionScope, ParamKind};
use atip_core::providers::{tool_definitions_json_with_offsets, Provider};
use atip_core::tool::{ParamSpec, ToolSpec, ValueKind};
use atip_core::{Document, Effects, ParamType};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::docs::{doc_attrs, effects_summary};
use crate::idents::{ident, snake, upper_camel, Scope};

/// Settings for [`generate`] that are not part of the metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// The executable to run instead of the tool's `name` (e.g. `/usr/local/bin/gh`).
    pub program: Option<String>,
}

/// Type names the generated module never uses for commands or enums: its own `Call`, the
/// trait it implements and the standard prelude, so nothing shadows what users expect.
const RESERVED_TYPES: &[&str] = &[
    "Call",
    "Self",
    "Command",
    "Effects",
    "Option",
    "Result",
    "String",
    "Vec",
    "Box",
    "Some",
    "None",
    "Ok",
    "Err",
    "Default",
    "Clone",
    "Copy",
    "Debug",
    "Send",
    "Sync",
    "Sized",
    "Unpin",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Eq",
    "PartialEq",
    "Ord",
    "PartialOrd",
    "Hash",
    "AsRef",
    "AsMut",
    "From",
    "Into",
    "TryFrom",
    "TryInto",
    "Iterator",
    "IntoIterator",
    "Extend",
    "FromIterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "ToString",
    "ToOwned",
];

/// Method names a setter must not take: the constructor and the methods of traits the
/// structs implement (a same-named inherent method would shadow them).
const RESERVED_METHODS: &[&str] = &[
    "new",
    "default",
    "clone",
    "clone_from",
    "eq",
    "ne",
    "fmt",
    "hash",
    "serialize",
    "deserialize",
    "argv",
    "try_argv",
    "write_argv",
    "to_invocation",
    "into",
    "from",
    "to_owned",
    "to_string",
    "type_id",
];

struct CommandPlan<'a> {
    cmd: &'a FlatCommand,
    ty: Ident,
    fields: Vec<FieldPlan<'a>>,
    /// What a model sees of the command; emitted as `TOOL` and compiled to the schemas.
    spec: ToolSpec,
}

struct FieldPlan<'a> {
    param: &'a FlatParam,
    field: Ident,
    setter: Ident,
    /// The generated enum's name, when the parameter is an enumeration.
    enum_ty: Option<Ident>,
}

/// An enum for an enumeration parameter: one per command for the command's own parameters,
/// one per declaring command (or the tool, for global options) for inherited and global ones,
/// shared by every command that has the option.
struct EnumPlan {
    ty: Ident,
    variants: Vec<(Ident, String)>,
    /// What the doc comment says the values are of.
    of: String,
    /// The first command using it: the enum is emitted just before that command.
    first_user: usize,
}

/// Everything the generator emits, named.
struct Plan<'a> {
    commands: Vec<CommandPlan<'a>>,
    enums: Vec<EnumPlan>,
}

/// How a parameter is held in its struct.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
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
    fn shape(&self) -> Shape {
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

    /// The type of one value.
    fn value_ty(&self) -> TokenStream {
        if let Some(ty) = &self.enum_ty {
            return quote!(#ty);
        }
        match self.param.ty {
            ParamType::Integer => quote!(i64),
            ParamType::Number => quote!(f64),
            ParamType::Boolean => quote!(bool),
            ParamType::File | ParamType::Directory => quote!(::std::path::PathBuf),
            ParamType::String | ParamType::Url | ParamType::Enum | ParamType::Array => {
                quote!(::std::string::String)
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

    fn field_ty(&self) -> TokenStream {
        let v = self.value_ty();
        match self.shape() {
            Shape::Flag => quote!(bool),
            Shape::List { .. } => quote!(::std::vec::Vec<#v>),
            Shape::Required => v,
            Shape::Optional => quote!(::core::option::Option<#v>),
        }
    }

    /// The type a constructor or setter takes.
    fn input_ty(&self) -> TokenStream {
        let v = self.value_ty();
        match (self.shape(), self.converts()) {
            (Shape::Flag, _) => quote!(bool),
            (Shape::List { .. }, true) => quote! {
                impl ::core::iter::IntoIterator<Item = impl ::core::convert::Into<#v>>
            },
            (Shape::List { .. }, false) => quote!(impl ::core::iter::IntoIterator<Item = #v>),
            (_, true) => quote!(impl ::core::convert::Into<#v>),
            (_, false) => v,
        }
    }

    /// Converts the input `var` to the field's value (without `Some`).
    fn convert(&self, var: &Ident) -> TokenStream {
        match (self.shape(), self.converts()) {
            (Shape::List { .. }, true) => {
                quote!(#var.into_iter().map(::core::convert::Into::into).collect())
            }
            (Shape::List { .. }, false) => quote!(#var.into_iter().collect()),
            (Shape::Flag, _) | (_, false) => quote!(#var),
            (_, true) => quote!(#var.into()),
        }
    }
}

/// Generates the items for `doc`. See the module documentation for what is emitted.
pub fn generate(doc: &Document, settings: &Settings) -> TokenStream {
    let program = settings.program.as_deref().unwrap_or(&doc.tool.name);
    let source = match doc.tool.trust.as_ref().and_then(|t| t.source) {
        Some(source) => {
            let variant = format_ident!("{}", upper_camel(&[source.as_str()]).unwrap_or_default());
            quote!(::core::option::Option::Some(::atip_runtime::TrustSource::#variant))
        }
        None => quote!(::core::option::Option::None),
    };
    // `TRUST`, and `CHECKSUM` only when the metadata declares one (the trait's default is None).
    let checksum = doc
        .tool
        .trust
        .as_ref()
        .and_then(|t| t.binary_checksum())
        .map(|c| quote!(const CHECKSUM: ::core::option::Option<&'static str> = ::core::option::Option::Some(#c);));
    let trust = quote! {
        const TRUST: ::core::option::Option<::atip_runtime::TrustSource> = #source;
        #checksum
    };

    let plan = plan(doc);
    // Every provider's array, and where each command's definition sits in it.
    let schemas: Vec<ProviderSchemas> = Provider::ALL
        .into_iter()
        .map(|p| {
            let (text, ranges) =
                tool_definitions_json_with_offsets(plan.commands.iter().map(|c| &c.spec), p);
            (p, text, ranges)
        })
        .collect();
    let mut shared = Shared::default();
    let mut items = TokenStream::new();
    // Enums are planned in the order of their first user: walk them alongside the commands.
    let mut enums = plan.enums.iter().peekable();
    for (i, p) in plan.commands.iter().enumerate() {
        // Enums first, so each reads before the first struct that uses it.
        while let Some(e) = enums.next_if(|e| e.first_user == i) {
            items.extend(enum_items(e));
        }
        let ranges: Vec<(Provider, (usize, usize))> =
            schemas.iter().map(|(prov, _, r)| (*prov, r[i])).collect();
        items.extend(command_items(p, program, &trust, &ranges, &mut shared));
    }
    items.extend(shared.module());
    items.extend(call_enum(doc, &plan.commands));
    items.extend(schemas_module(doc, &schemas));
    items
}

/// Constants that many commands share, emitted once in a hidden module: the specs of
/// inherited and global parameters, and each distinct set of merged effects.
#[derive(Default)]
struct Shared {
    params: Vec<TokenStream>,
    /// Index in `params` of each shared parameter, by its address.
    param_index: HashMap<*const FlatParam, usize>,
    effects: Vec<TokenStream>,
    /// Index in `effects` of each distinct set, by its token text.
    effects_index: HashMap<String, usize>,
}

impl Shared {
    /// The spec of a parameter: a shared constant for inherited and global options, the
    /// expression itself for a command's own parameters.
    fn param(&mut self, flat: &FlatParam, spec: &ParamSpec) -> TokenStream {
        let own = matches!(
            flat.kind,
            ParamKind::Argument
                | ParamKind::Option {
                    scope: OptionScope::Own,
                    ..
                }
        );
        if own {
            return param_spec_tokens(spec);
        }
        let next = self.params.len();
        let index = *self
            .param_index
            .entry(flat as *const FlatParam)
            .or_insert(next);
        if index == next {
            self.params.push(param_spec_tokens(spec));
        }
        let name = format_ident!("P{index}");
        quote!(__atip::#name)
    }

    /// The constant holding `effects`.
    fn effects(&mut self, effects: &Effects) -> TokenStream {
        let tokens = effects_tokens(effects);
        let next = self.effects.len();
        let index = *self.effects_index.entry(tokens.to_string()).or_insert(next);
        if index == next {
            self.effects.push(tokens);
        }
        let name = format_ident!("E{index}");
        quote!(__atip::#name)
    }

    fn module(&self) -> TokenStream {
        let params = self.params.iter().enumerate().map(|(i, tokens)| {
            let name = format_ident!("P{i}");
            quote!(pub const #name: ::atip_runtime::ParamSpec = #tokens;)
        });
        let effects = self.effects.iter().enumerate().map(|(i, tokens)| {
            let name = format_ident!("E{i}");
            quote!(pub const #name: ::atip_runtime::Effects = #tokens;)
        });
        quote! {
            /// Parameter specs and effects shared by several commands.
            #[doc(hidden)]
            #[allow(dead_code)]
            mod __atip {
                #(#params)*
                #(#effects)*
            }
        }
    }
}

/// One provider's array of definitions and the byte range of each command in it.
type ProviderSchemas = (Provider, String, Vec<(usize, usize)>);

/// `pub mod schemas`: one `const &str` JSON array per provider.
fn schemas_module(doc: &Document, schemas: &[ProviderSchemas]) -> TokenStream {
    let consts = schemas.iter().map(|(p, text, _)| {
        let name = format_ident!("{}", p.const_name());
        let lit = Literal::string(text);
        let docs = doc_attrs(&format!(
            "Every command of `{}` as `{}` tool definitions: a JSON array.",
            doc.tool.name,
            p.as_str()
        ));
        quote! {
            #docs
            pub const #name: &str = #lit;
        }
    });
    let docs = doc_attrs(&format!(
        "Provider tool definitions of every command of `{}`, computed when this code was generated.",
        doc.tool.name
    ));
    quote! {
        #docs
        #[allow(dead_code)]
        pub mod schemas {
            #(#consts)*
        }
    }
}

/// Assigns every Rust name, in declaration order, so the result is deterministic.
fn plan(doc: &Document) -> Plan<'_> {
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
            ident(&types.claim(&base, ""))
        })
        .collect();

    let mut enums: Vec<EnumPlan> = Vec::new();
    // Shared (inherited or global) options are one value in memory: their address names them.
    let mut shared_enums: HashMap<*const FlatParam, usize> = HashMap::new();
    let commands = doc
        .commands
        .iter()
        .zip(struct_names)
        .enumerate()
        .map(|(index, (cmd, ty))| {
            let mut fields = Scope::default();
            let mut methods = Scope::with_reserved(RESERVED_METHODS);
            let plans = cmd
                .params()
                .map(|param| {
                    let name = fields.claim(&snake(&param.declared_name), "_");
                    let setter_base = if RESERVED_METHODS.contains(&name.as_str()) {
                        format!("with_{name}")
                    } else {
                        name.clone()
                    };
                    let setter = ident(&methods.claim(&setter_base, "_"));
                    let enum_ty = param.enum_values.as_ref().map(|values| {
                        let shared = !matches!(
                            param.kind,
                            ParamKind::Argument
                                | ParamKind::Option {
                                    scope: OptionScope::Own,
                                    ..
                                }
                        );
                        let key = param as *const FlatParam;
                        if let Some(i) = shared_enums.get(&key) {
                            return enums[*i].ty.clone();
                        }
                        let value_name = upper_camel(&[param.declared_name.as_str()])
                            .map(|s| s.trim_start_matches('_').to_owned())
                            .unwrap_or_else(|| "Value".to_owned());
                        let (base, of) = if shared {
                            let (prefix, of) = declaring_level(doc, param);
                            (format!("{prefix}{value_name}"), of)
                        } else {
                            let what = match param.flag() {
                                Some(flag) => format!("`{}`", flag.text),
                                None => format!("argument `{}`", param.declared_name),
                            };
                            let invocation = std::iter::once(doc.tool.name.as_str())
                                .chain(cmd.path.iter().map(String::as_str))
                                .collect::<Vec<_>>()
                                .join(" ");
                            (
                                format!("{ty}{value_name}"),
                                format!("{what} of `{invocation}`"),
                            )
                        };
                        let enum_name = ident(&types.claim(&base, ""));
                        let mut variants = Scope::with_reserved(&["Self"]);
                        let variants = values
                            .iter()
                            .map(|v| {
                                let base = if v.is_empty() {
                                    "Empty".to_owned()
                                } else {
                                    match upper_camel(&[v.as_str()]) {
                                        Some(s) if s == "Self" => "SelfValue".to_owned(),
                                        Some(s) => s,
                                        None => "Value".to_owned(),
                                    }
                                };
                                (ident(&variants.claim(&base, "")), v.clone())
                            })
                            .collect();
                        enums.push(EnumPlan {
                            ty: enum_name.clone(),
                            variants,
                            of,
                            first_user: index,
                        });
                        if shared {
                            shared_enums.insert(key, enums.len() - 1);
                        }
                        enum_name
                    });
                    FieldPlan {
                        param,
                        field: ident(&name),
                        setter,
                        enum_ty,
                    }
                })
                .collect();
            CommandPlan {
                cmd,
                ty,
                fields: plans,
                spec: ToolSpec::from_flat(&doc.tool.name, cmd),
            }
        })
        .collect();
    Plan { commands, enums }
}

/// For an inherited or global option: the type-name prefix of its shared enum (`Global`, or
/// the declaring command's path, `PrView`) and what its doc comment calls it.
fn declaring_level(doc: &Document, param: &FlatParam) -> (String, String) {
    let flag = param
        .flag()
        .map(|f| format!("`{}`", f.text))
        .unwrap_or_default();
    // `$.commands.a.commands.b` → `["a", "b"]`
    let path: Vec<String> = param
        .origin
        .node
        .0
        .iter()
        .skip(1)
        .step_by(2)
        .filter_map(|seg| match seg {
            atip_core::diagnostic::PathSegment::Key(k) => Some(k.clone()),
            atip_core::diagnostic::PathSegment::Index(_) => None,
        })
        .filter(|k| !k.is_empty())
        .collect();
    if path.is_empty() {
        (
            "Global".to_owned(),
            format!("{flag} (a global option of `{}`)", doc.tool.name),
        )
    } else {
        let invocation = std::iter::once(doc.tool.name.as_str())
            .chain(path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        (
            upper_camel(&path).unwrap_or_default(),
            format!("{flag} of `{invocation}` and every command below it"),
        )
    }
}

fn command_items(
    plan: &CommandPlan<'_>,
    program: &str,
    trust: &TokenStream,
    schema_ranges: &[(Provider, (usize, usize))],
    shared: &mut Shared,
) -> TokenStream {
    let cmd = plan.cmd;
    let ty = &plan.ty;
    let mut out = TokenStream::new();

    let invocation = std::iter::once(program.to_owned())
        .chain(cmd.path.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ");
    let mut doc_text = cmd.description.clone();
    doc_text.push_str(&format!(
        "\n\nRuns `{invocation}`; tool name `{}`.\n\nEffects: {}.",
        cmd.name,
        effects_summary(&cmd.effects)
    ));
    let struct_doc = doc_attrs(&doc_text);

    let fields = plan.fields.iter().map(|f| {
        let field = &f.field;
        let fty = f.field_ty();
        let docs = doc_attrs(&param_doc(f.param));
        quote! {
            #docs
            pub #field: #fty,
        }
    });
    // serde and argv through one table per command and a list of its fields: a statement per
    // field would cost compile time in every command of a large tool.
    let field_refs: Vec<TokenStream> = plan
        .fields
        .iter()
        .map(|f| {
            let field = &f.field;
            quote!(&self.#field)
        })
        .collect();
    let field_table = plan.fields.iter().map(|f| {
        let name = Literal::string(&f.param.name);
        let arg = match (&f.param.kind, f.shape()) {
            (ParamKind::Option { flag, .. }, Shape::Flag) => {
                let t = Literal::string(&flag.text);
                quote!(Flag(#t))
            }
            (ParamKind::Option { flag, .. }, _) => {
                let t = Literal::string(&flag.text);
                if flag.attached {
                    quote!(Long(#t))
                } else {
                    quote!(Short(#t))
                }
            }
            (ParamKind::Argument, _) => {
                let t = Literal::string(&f.param.declared_name);
                quote!(Positional(#t))
            }
        };
        let global = f.param.is_global();
        let required = f.param.required;
        let url = f.enum_ty.is_none() && f.param.ty == ParamType::Url;
        quote! {
            ::atip_runtime::__private::field(
                #name,
                ::atip_runtime::__private::Arg::#arg,
                #global,
                #required,
                #url
            ),
        }
    });
    // A command without parameters reads nothing.
    let args_binding = if plan.fields.is_empty() {
        quote!(args)
    } else {
        quote!(mut args)
    };
    let read_fields = plan.fields.iter().map(|f| {
        let field = &f.field;
        let name = Literal::string(&f.param.name);
        quote!(#field: args.field(#name),)
    });

    // Constructor: arguments in declaration order, then required options (params() order).
    let required: Vec<&FieldPlan<'_>> = plan
        .fields
        .iter()
        .filter(|f| matches!(f.shape(), Shape::Required | Shape::List { required: true }))
        .collect();
    let ctor_params = required.iter().map(|f| {
        let name = &f.field;
        let ity = f.input_ty();
        quote!(#name: #ity)
    });
    let inits = plan.fields.iter().map(|f| {
        let field = &f.field;
        match f.shape() {
            Shape::Required | Shape::List { required: true } => {
                let conv = f.convert(field);
                quote!(#field: #conv)
            }
            Shape::Flag => quote!(#field: false),
            Shape::List { required: false } => quote!(#field: ::std::vec::Vec::new()),
            Shape::Optional => quote!(#field: ::core::option::Option::None),
        }
    });
    let ctor_doc = if required.is_empty() {
        "Creates the command with every optional parameter unset.".to_owned()
    } else {
        format!(
            "Creates the command from its required parameters ({}); optional ones start unset.",
            required
                .iter()
                .map(|f| format!("`{}`", f.param.declared_name))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let ctor_doc = doc_attrs(&ctor_doc);

    let setters = plan
        .fields
        .iter()
        .filter(|f| {
            matches!(
                f.shape(),
                Shape::Flag | Shape::Optional | Shape::List { required: false }
            )
        })
        .map(|f| {
            let field = &f.field;
            let setter = &f.setter;
            let value = format_ident!("value");
            let ity = f.input_ty();
            let conv = f.convert(&value);
            let assign = match f.shape() {
                Shape::Optional => quote!(self.#field = ::core::option::Option::Some(#conv);),
                _ => quote!(self.#field = #conv;),
            };
            let docs = doc_attrs(&format!(
                "Sets `{}`{}: {}",
                f.param.declared_name,
                match f.param.flag() {
                    Some(flag) => format!(" (`{}`)", flag.text),
                    None => String::new(),
                },
                f.param.description
            ));
            quote! {
                #docs
                #[must_use]
                pub fn #setter(mut self, #value: #ity) -> Self {
                    #assign
                    self
                }
            }
        });

    let default_impl = if required.is_empty() {
        quote! {
            impl ::core::default::Default for #ty {
                fn default() -> Self {
                    Self::new()
                }
            }
        }
    } else {
        TokenStream::new()
    };

    let name = Literal::string(&cmd.name);
    let program = Literal::string(program);
    let path = cmd.path.iter().map(|s| Literal::string(s));
    let effects = shared.effects(&cmd.effects);
    let tool = tool_spec_tokens(plan, shared);

    let schema_consts = schema_ranges.iter().map(|(p, (start, end))| {
        let name = format_ident!("{}_TOOL", p.const_name());
        let array = format_ident!("{}", p.const_name());
        let (start, end) = (
            Literal::usize_unsuffixed(*start),
            Literal::usize_unsuffixed(*end),
        );
        let docs = doc_attrs(&format!(
            "This command as a `{}` tool definition (JSON), a slice of `schemas::{}`.",
            p.as_str(),
            p.const_name()
        ));
        quote! {
            #docs
            pub const #name: &'static str =
                ::atip_runtime::__private::slice(schemas::#array, #start, #end);
        }
    });

    out.extend(quote! {
        #struct_doc
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq)]
        #[allow(dead_code)]
        pub struct #ty {
            #(#fields)*
        }

        impl ::atip_runtime::__private::serde::Serialize for #ty {
            fn serialize<S: ::atip_runtime::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                ::atip_runtime::__private::serialize_fields(
                    serializer,
                    Self::__FIELDS,
                    &[#(#field_refs),*],
                )
            }
        }

        impl<'de> ::atip_runtime::__private::serde::Deserialize<'de> for #ty {
            fn deserialize<D: ::atip_runtime::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                ::atip_runtime::__private::deserialize_command(deserializer)
            }
        }

        impl ::atip_runtime::FromArguments for #ty {
            fn from_arguments(
                #args_binding: ::atip_runtime::Arguments<'_>,
            ) -> ::core::result::Result<Self, ::std::string::String> {
                let command = Self { #(#read_fields)* };
                args.finish(command)
            }
        }

        #[allow(dead_code, clippy::too_many_arguments, clippy::should_implement_trait)]
        impl #ty {
            #ctor_doc
            pub fn new(#(#ctor_params),*) -> Self {
                Self { #(#inits),* }
            }

            #(#setters)*

            #(#schema_consts)*

            /// How each field goes on the command line and into JSON.
            #[doc(hidden)]
            pub const __FIELDS: &'static [::atip_runtime::__private::FieldSpec] = &[
                #(#field_table)*
            ];
        }

        #default_impl

        impl ::atip_runtime::Command for #ty {
            const NAME: &'static str = #name;
            const PROGRAM: &'static str = #program;
            const PATH: &'static [&'static str] = &[#(#path),*];
            const EFFECTS: ::atip_runtime::Effects = #effects;
            #trust
            const TOOL: ::atip_runtime::ToolSpec = #tool;

            fn write_argv(&self, argv: &mut ::atip_runtime::ArgvBuilder) {
                ::atip_runtime::__private::write_fields(
                    argv,
                    <Self as ::atip_runtime::Command>::PATH,
                    Self::__FIELDS,
                    &[#(#field_refs),*],
                );
            }
        }
    });
    out
}

fn enum_items(e: &EnumPlan) -> TokenStream {
    let ty = &e.ty;
    let first = &e.variants[0].0;
    let enum_doc = doc_attrs(&format!("Values of {}.", e.of));
    let variants = e.variants.iter().map(|(v, text)| {
        let docs = doc_attrs(&format!("`{text}`"));
        quote! {
            #docs
            #v,
        }
    });
    let arms = e.variants.iter().map(|(v, text)| {
        let lit = Literal::string(text);
        quote!(Self::#v => #lit,)
    });
    let parse_arms = e.variants.iter().map(|(v, text)| {
        let lit = Literal::string(text);
        quote!(#lit => ::core::option::Option::Some(Self::#v),)
    });
    let values = e.variants.iter().map(|(_, text)| Literal::string(text));
    quote! {
        #enum_doc
        #[derive(
            ::core::fmt::Debug,
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::cmp::PartialEq,
            ::core::cmp::Eq,
            ::core::hash::Hash
        )]
        #[allow(dead_code, clippy::upper_case_acronyms)]
        pub enum #ty {
            #(#variants)*
        }

        #[allow(dead_code)]
        impl #ty {
            /// The value exactly as the tool expects it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    #(#arms)*
                }
            }

            /// The variant whose value is `value`, if any.
            pub fn from_value(value: &str) -> ::core::option::Option<Self> {
                match value {
                    #(#parse_arms)*
                    _ => ::core::option::Option::None,
                }
            }
        }

        impl ::atip_runtime::__private::serde::Serialize for #ty {
            fn serialize<S: ::atip_runtime::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::atip_runtime::__private::serde::Deserialize<'de> for #ty {
            fn deserialize<D: ::atip_runtime::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                ::atip_runtime::__private::deserialize_enum(deserializer, Self::from_value, &[#(#values),*])
            }
        }

        impl ::core::fmt::Display for #ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::atip_runtime::__private::Scalar for #ty {
            fn from_json(
                value: &::atip_runtime::__private::serde_json::Value,
            ) -> ::core::result::Result<Self, ::std::string::String> {
                ::atip_runtime::__private::enum_from_json(value, Self::from_value)
            }

            fn unread() -> Self {
                Self::#first
            }
        }

        impl ::atip_runtime::ArgValue for #ty {
            fn to_arg(
                &self,
            ) -> ::core::result::Result<
                ::std::borrow::Cow<'_, ::std::ffi::OsStr>,
                ::atip_runtime::argv::ValueProblem,
            > {
                ::core::result::Result::Ok(::std::borrow::Cow::Borrowed(::std::ffi::OsStr::new(
                    self.as_str(),
                )))
            }
        }
    }
}

fn call_enum(doc: &Document, plans: &[CommandPlan<'_>]) -> TokenStream {
    let tool = &doc.tool.name;
    let call_doc = doc_attrs(&format!(
        "A call of any command of `{tool}`: one variant per command, for typed dispatch."
    ));
    let variants = plans.iter().map(|p| {
        let ty = &p.ty;
        let docs = doc_attrs(&format!("`{}`", p.cmd.name));
        quote! {
            #docs
            #ty(#ty),
        }
    });
    let names = plans.iter().map(|p| Literal::string(&p.cmd.name));
    let tys: Vec<&Ident> = plans.iter().map(|p| &p.ty).collect();
    let table = tys.iter().map(|ty| {
        quote! {
            (<#ty as ::atip_runtime::Command>::NAME, <#ty as ::atip_runtime::Command>::EFFECTS),
        }
    });
    let froms = tys.iter().map(|ty| {
        quote! {
            impl ::core::convert::From<#ty> for Call {
                fn from(command: #ty) -> Self {
                    Call::#ty(command)
                }
            }
        }
    });
    // The dispatch table, sorted by tool name for binary search.
    let mut by_name: Vec<&CommandPlan<'_>> = plans.iter().collect();
    by_name.sort_by(|a, b| a.cmd.name.cmp(&b.cmd.name));
    let dispatch_rows = by_name.iter().map(|p| {
        let ty = &p.ty;
        let name = Literal::string(&p.cmd.name);
        quote! {
            (#name, ::atip_runtime::__private::dispatch_to::<#ty, Call>),
        }
    });
    let indices = (0..plans.len()).map(Literal::usize_unsuffixed);
    let tools = tys
        .iter()
        .map(|ty| quote!(<#ty as ::atip_runtime::Command>::TOOL,));
    let tools_doc = doc_attrs(&format!(
        "What a model sees of every command of `{tool}`, in declaration order: for provider \
         schemas of a subset (`atip_runtime::providers`), grouping (`atip_runtime::ToolGroup`) \
         and the safety prompt."
    ));
    let table_doc = doc_attrs(&format!(
        "Merged effects of every command of `{tool}`, by flattened name, in declaration order."
    ));
    quote! {
        #call_doc
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq)]
        #[allow(dead_code, clippy::large_enum_variant, clippy::enum_variant_names)]
        pub enum Call {
            #(#variants)*
        }

        #[allow(dead_code)]
        impl Call {
            /// Flattened names of every command, in declaration order.
            pub const NAMES: &'static [&'static str] = &[#(#names),*];

            /// The position of the called command in declaration order: its index in
            /// [`Call::NAMES`], `TOOLS` and `EFFECTS`.
            pub const fn index(&self) -> usize {
                match *self {
                    #(Call::#tys(_) => #indices,)*
                }
            }

            /// The called command, for what every command can do. One `match` serves every
            /// method below, so thousands of commands do not mean thousands of arms each.
            pub fn command(&self) -> &dyn ::atip_runtime::__private::DynCommand {
                match *self {
                    #(Call::#tys(ref command) => command,)*
                }
            }

            /// The flattened name of the called command.
            pub fn name(&self) -> &'static str {
                Self::NAMES[self.index()]
            }

            /// Dispatches a model's tool call to the typed command it names, checking the
            /// arguments first; every problem is reported at once (see
            /// `atip_runtime::dispatch::check_arguments`).
            pub fn from_tool_call(
                call: &::atip_runtime::ToolCall,
            ) -> ::core::result::Result<Self, ::atip_runtime::DispatchError> {
                const TABLE: &[::atip_runtime::__private::DispatchEntry<Call>] = &[
                    #(#dispatch_rows)*
                ];
                ::atip_runtime::__private::dispatch_by_name(call, TABLE, Self::NAMES)
            }

            /// The merged effects of the called command.
            pub fn effects(&self) -> ::atip_runtime::Effects {
                EFFECTS[self.index()].1.clone()
            }

            /// The argv, program first, unchecked (see `Command::argv`).
            pub fn argv(&self) -> ::std::vec::Vec<::std::ffi::OsString> {
                self.command().argv()
            }

            /// The argv, program first, with every value checked (see `Command::try_argv`).
            pub fn try_argv(
                &self,
            ) -> ::core::result::Result<::std::vec::Vec<::std::ffi::OsString>, ::atip_runtime::ArgvError> {
                self.command().try_argv()
            }
        }

        impl ::atip_runtime::ToInvocation for Call {
            fn to_invocation(
                &self,
            ) -> ::core::result::Result<::atip_runtime::Invocation, ::atip_runtime::ArgvError> {
                self.command().to_invocation()
            }
        }

        #(#froms)*

        #tools_doc
        #[allow(dead_code)]
        pub static TOOLS: &[::atip_runtime::ToolSpec] = &[#(#tools)*];

        #table_doc
        #[allow(dead_code)]
        pub const EFFECTS: &[(&str, ::atip_runtime::Effects)] = &[#(#table)*];
    }
}

fn param_doc(p: &FlatParam) -> String {
    let mut text = p.description.clone();
    let mut notes: Vec<String> = Vec::new();
    match &p.kind {
        ParamKind::Argument => notes.push("Positional argument.".to_owned()),
        ParamKind::Option { flag, scope } => {
            let from = match scope {
                OptionScope::Global => " (global option)",
                OptionScope::Inherited => " (inherited)",
                OptionScope::Own => "",
            };
            notes.push(format!("Flag `{}`{from}.", flag.text));
        }
    }
    if let Some(default) = &p.default {
        notes.push(format!("Tool default: `{}`.", compact(default)));
    }
    if let Some(var) = &p.env_var {
        notes.push(format!("Environment variable: `{var}`."));
    }
    if !p.listed_values.is_empty() {
        notes.push(format!("Allowed values: {}.", p.listed_values.join(", ")));
    }
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(&notes.join(" "));
    text
}

fn compact(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

// ----- tool spec as a const expression ----------------------------------------------------

fn tool_spec_tokens(plan: &CommandPlan<'_>, shared: &mut Shared) -> TokenStream {
    let spec = &plan.spec;
    let name = text_tokens(&spec.name);
    let title = text_tokens(&spec.title);
    let path = list_tokens(&spec.path);
    let description = text_tokens(&spec.description);
    let params: Vec<TokenStream> = plan
        .fields
        .iter()
        .zip(spec.params.iter())
        .map(|(f, p)| shared.param(f.param, p))
        .collect();
    quote! {
        ::atip_runtime::ToolSpec {
            name: #name,
            title: #title,
            path: #path,
            description: #description,
            effects: <Self as ::atip_runtime::Command>::EFFECTS,
            params: ::atip_runtime::__private::Borrowed(&[#(#params),*]),
        }
    }
}

/// A parameter spec through `__private::param` (fewer tokens than the struct literal).
fn param_spec_tokens(p: &ParamSpec) -> TokenStream {
    let name = Literal::string(&p.name);
    let description = Literal::string(&p.description);
    let kind = format_ident!(
        "{}",
        match p.kind {
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
    let required = p.required;
    let multiple = p.multiple;
    let values = opt(p.values.as_ref(), |list| {
        let items = list.iter().map(|s| Literal::string(s));
        quote!(&[#(::atip_runtime::__private::Borrowed(#items)),*])
    });
    let default = opt(p.default.as_deref(), |d| {
        let lit = Literal::string(d);
        quote!(#lit)
    });
    quote! {
        ::atip_runtime::__private::param(
            #name,
            #description,
            ::atip_runtime::ValueKind::#kind,
            #required,
            #multiple,
            #values,
            #default
        )
    }
}

// ----- effects as a const expression ------------------------------------------------------

fn effects_tokens(e: &Effects) -> TokenStream {
    let mut t = quote!(::atip_runtime::Effects::UNKNOWN);
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
            quote!(::core::option::Option::Some(#inner))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn list_tokens(list: &TextList) -> TokenStream {
    let items = list.iter().map(|s| Literal::string(s));
    quote!(::atip_runtime::__private::Borrowed(&[#(::atip_runtime::__private::Borrowed(#items)),*]))
}

fn text_tokens(s: &str) -> TokenStream {
    let lit = Literal::string(s);
    quote!(::atip_runtime::__private::Borrowed(#lit))
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
