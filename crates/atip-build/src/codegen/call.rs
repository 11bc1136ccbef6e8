//! The module-wide items: `enum Call` (one variant per command, for typed dispatch), the
//! `TOOLS` and `EFFECTS` tables, and `definitions`, every command in a provider's format.

use atip_core::providers::Provider;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::plan::CommandPlan;
use crate::docs::{code, own_doc};

/// A compile-time warning for each provider whose per-request tool limit the module exceeds
/// (OpenAI 128, Gemini 512): a deprecated constant, used once, whose note says what to do.
/// The generated module's `allow` does not cover `deprecated`, so the user sees it; a user who
/// sends a subset anyway can put `#[allow(deprecated)]` on the module.
///
/// Also one for OpenAI strict mode when a definition must be degraded to fit its schema limits
/// (`atip_core::limits::fit`: a huge enum sent as a plain value, or strict mode dropped), naming
/// the commands and parameters.
fn tool_limit_warnings(tool: &str, plans: &[CommandPlan<'_>]) -> TokenStream {
    let commands = plans.len();
    let mut out = TokenStream::new();
    let degraded: Vec<String> = plans
        .iter()
        .flat_map(|p| {
            let spec = atip_core::tool::ToolSpec::from_flat(tool, p.cmd);
            atip_core::limits::fit(&spec, Provider::OpenAiStrict).notes
        })
        .collect();
    if let Some(first) = degraded.first() {
        let more = match degraded.len() {
            1 => String::new(),
            n => format!(
                " (and {} more: `atip_runtime::limits::notes(&TOOLS, …)` lists them)",
                n - 1
            ),
        };
        let note = format!(
            "OpenAI strict mode cannot hold every definition of `{tool}` as it is, so they are \
             degraded when sent: {first}{more}"
        );
        out.extend(quote! {
            #[deprecated(note = #note)]
            const DEFINITIONS_DEGRADED_FOR_OPENAI_STRICT: () = ();
            const _: () = DEFINITIONS_DEGRADED_FOR_OPENAI_STRICT;
        });
    }
    for (who, provider) in [("OpenAI", Provider::OpenAi), ("Gemini", Provider::Gemini)] {
        let Some(max) = provider.max_tools() else {
            continue;
        };
        if commands <= max {
            continue;
        }
        let note = format!(
            "`{tool}` has {commands} commands; {who} accepts at most {max} tools per request: \
             send a subset (`atip_runtime::providers::select`, or a `commands = [...]` filter) or \
             group commands (`atip_runtime::ToolGroup`)"
        );
        let name = format_ident!("MORE_TOOLS_THAN_{}_ACCEPTS", who.to_ascii_uppercase());
        out.extend(quote! {
            #[deprecated(note = #note)]
            const #name: () = ();
            const _: () = #name;
        });
    }
    out
}

pub fn call_items(tool: &str, plans: &[CommandPlan<'_>]) -> TokenStream {
    let tool_code = code(tool);
    let call_doc = own_doc(&format!(
        "A call of any command of {tool_code}: one variant per command, for typed dispatch."
    ));
    let variants = plans.iter().map(|p| {
        let ty = &p.ty;
        let docs = own_doc(&code(&p.cmd.name));
        quote! {
            #docs
            #ty(#ty),
        }
    });
    let tys: Vec<&Ident> = plans.iter().map(|p| &p.ty).collect();
    let indices = (0..plans.len()).map(Literal::usize_unsuffixed);
    // The dispatch table, sorted for binary search in the order the runtime searches it.
    let mut by_name: Vec<&CommandPlan<'_>> = plans.iter().collect();
    by_name.sort_by(|a, b| atip_core::names::dispatch_order(&a.cmd.name, &b.cmd.name));
    let dispatch_rows = by_name.iter().map(|p| {
        let ty = &p.ty;
        quote!((#ty::NAME, __private::dispatch_to::<#ty, Call>),)
    });
    let tools_doc = own_doc(&format!(
        "What a model sees of every command of {tool_code}, in declaration order: for provider \
         definitions ([`definitions`], or [`atip_runtime::providers`] for a subset), grouping \
         ([`atip_runtime::ToolGroup`]) and the safety prompt. Used like a `&[ToolSpec]` \
         (`TOOLS.iter()`, `&TOOLS`); read from the spec table below on first use \
         ([`ToolTable`], [`atip_runtime::spec_table`] describes the format). Row `i` is \
         command `i` of [`EFFECTS`] and [`Call::NAMES`]; each command's `fields()` hands \
         over its fields in the order of its row's parameters."
    ));
    let effects_doc = own_doc(&format!(
        "Merged effects of every command of {tool_code}, by flattened name, in declaration \
         order."
    ));
    let definitions_doc = own_doc(&format!(
        "Every command of {tool_code} as `provider` tool definitions: a JSON array, computed \
         from [`TOOLS`] on first use and kept for the life of the program."
    ));
    let limits = tool_limit_warnings(tool, plans);
    let table = spec_table_literal(plans);
    quote! {
        #limits

        #call_doc
        #[derive(Debug, Clone, PartialEq)]
        pub enum Call {
            #(#variants)*
        }

        impl Call {
            /// Flattened names of every command, in declaration order.
            pub const NAMES: &'static [&'static str] = &[#(#tys::NAME),*];

            /// The position of the called command in declaration order: its index in
            /// [`Call::NAMES`], [`TOOLS`] and [`EFFECTS`].
            pub const fn index(&self) -> usize {
                match *self {
                    #(Call::#tys(_) => #indices,)*
                }
            }

            /// The called command, for what every command can do. One `match` serves every
            /// method below, so thousands of commands do not mean thousands of arms each.
            pub fn command(&self) -> &dyn __private::DynCommand {
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
            /// `atip_runtime::command::dispatch::check_arguments`).
            pub fn from_tool_call(call: &ToolCall) -> Result<Self, DispatchError> {
                __private::dispatch_by_name(__private::CallInput::Call(call), Self::DISPATCH, Self::NAMES)
            }

            /// Dispatches a call given as its tool name and its arguments as JSON text (such
            /// as OpenAI's `function.arguments`), reading the arguments straight from the text
            /// into the command; the same result as `from_tool_call` on
            /// `ToolCall::from_json_text(None, name, arguments)`, errors included.
            pub fn from_json_text(name: &str, arguments: &str) -> Result<Self, DispatchError> {
                __private::dispatch_by_name(
                    __private::CallInput::Text { name, arguments },
                    Self::DISPATCH,
                    Self::NAMES,
                )
            }

            /// Each command's tool name and dispatch function, in `dispatch_order`.
            const DISPATCH: &'static [__private::DispatchEntry<Call>] = &[#(#dispatch_rows)*];

            /// The effects of this call: the called command's merged effects and those of the
            /// options it sets that declare effects of their own (`Command::effects`).
            pub fn effects(&self) -> Effects {
                self.command().call_effects().into_owned()
            }

            /// The argv, program first, unchecked (see `Command::argv`).
            pub fn argv(&self) -> Vec<std::ffi::OsString> {
                self.command().argv()
            }

            /// The argv, program first, with every value checked (see `Command::try_argv`).
            pub fn try_argv(&self) -> Result<Vec<std::ffi::OsString>, ::atip_runtime::ArgvError> {
                self.command().try_argv()
            }
        }

        impl ::atip_runtime::__private::CommandSet for Call {
            fn specs() -> &'static [ToolSpec] {
                &TOOLS
            }

            fn dispatch(call: &ToolCall) -> Result<Self, DispatchError> {
                // The inherent `Call::from_tool_call`, which paths resolve to first.
                Call::from_tool_call(call)
            }

            fn dispatch_json_text(name: &str, arguments: &str) -> Result<Self, DispatchError> {
                Call::from_json_text(name, arguments)
            }
        }

        impl ::atip_runtime::ToInvocation for Call {
            fn to_invocation(&self) -> Result<::atip_runtime::Invocation, ::atip_runtime::ArgvError> {
                self.command().to_invocation()
            }
        }

        #(
            impl From<#tys> for Call {
                fn from(command: #tys) -> Self {
                    Call::#tys(command)
                }
            }
        )*

        #tools_doc
        pub static TOOLS: ToolTable = ToolTable::from_spec_table_v1(#table, EFFECTS);

        #effects_doc
        pub const EFFECTS: &[(&str, Effects)] = &[#((#tys::NAME, #tys::EFFECTS)),*];

        #definitions_doc
        pub fn definitions(provider: ::atip_runtime::Provider) -> &'static str {
            static CACHE: __private::DefinitionsCache = __private::DefinitionsCache::new();
            __private::definitions(&TOOLS, provider, &CACHE)
        }
    }
}

/// The spec table of `plans` ([`atip_core::spec_table`]) as a raw string literal, one command
/// per line.
fn spec_table_literal(plans: &[CommandPlan<'_>]) -> Literal {
    let table = atip_core::spec_table::encode(plans.iter().map(|p| &p.spec));
    // Enough `#`s that no `"` in the text closes the literal early.
    let mut hashes = String::from("#");
    while table.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("r{hashes}\"{table}\"{hashes}")
        .parse()
        .unwrap_or_else(|_| Literal::string(&table))
}
