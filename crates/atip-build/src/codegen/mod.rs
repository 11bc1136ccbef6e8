//! The generator: a flattened [`Document`] → Rust items, as a `TokenStream`.
//!
//! Pure: no I/O, no environment, no hash-map iteration in the output. The macro, `build.rs`
//! and `atip gen` all call [`generate`], so they emit the same code for the same input.
//!
//! Everything goes into one private inner module, whose items the caller's module re-exports
//! (`pub use …::*`), so one `#[allow]` covers the whole expansion and the generated code
//! names prelude and runtime items without paths. Inside, in declaration order:
//!
//! * `PROGRAM`, `TRUST` (and `CHECKSUM` when declared): what every command runs and trusts;
//! * `pub struct Globals` and `trait SetGlobals` when the tool has global options (none of
//!   them required): every command holds them in one `globals` field instead of a field each;
//!   likewise `pub struct PrOptions` and `trait SetPrOptions` for the options a group command
//!   (`gh pr`) declares for the commands below it, held in a `pr_options` field, each just
//!   before the first command holding it (the option groups, `groups.rs`);
//! * for each flattened command (e.g. `gh pr create`) `pub struct PrCreate` with a pub field
//!   per parameter (or option group), `new(…)` taking the required parameters and a
//!   chainable setter per optional one (`command.rs`), preceded by the enums of its
//!   enumeration parameters that no earlier command uses (`enums.rs`: one enum per distinct
//!   value list);
//! * each distinct set of merged effects, once (`E0`, `E1`, …; `effects.rs`), and each
//!   distinct list of declared environment variables (`ENV0`, …; `env.rs`);
//! * `pub enum Call`, `TOOLS`, `EFFECTS` and `definitions(provider)` (`call.rs`);
//! * `pub mod prelude`: the setter traits of the option groups and `Command`, so that
//!   `use gh::prelude::*;` is the one import a caller needs to chain every setter;
//! * `pub mod schemas` with build-time provider JSON, only for the providers asked for
//!   ([`Options::schemas`]).
//!
//! Each command's parameters live in one table, its row of `TOOLS` (`Command::tool`): the
//! model's view of each parameter and how it goes on the command line, in the order the
//! command hands its fields over (`Command::fields`). The runtime writes argv and JSON from
//! that table. `TOOLS` is one JSON text in the generated source, read on first use
//! (`atip_core::spec_table`): the compiler does next to nothing for a string literal, while a
//! `const ToolSpec` per command was a sixth of what checking the generated code cost.

mod call;
mod command;
mod effects;
mod enums;
mod env;
mod field;
mod groups;
mod naming;
mod plan;
mod schemas;

use atip_core::{Diagnostic, Document};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::docs::{code, own_doc};
use crate::idents::upper_camel;
use crate::options::Options;

/// The constants commands share, each distinct value once: merged effects (`E0`, …) and
/// lists of declared environment variables (`ENV0`, …).
#[derive(Default)]
struct Shared {
    effects: effects::EffectConsts,
    env: env::EnvLists,
}

/// What [`generate`] produces.
#[derive(Debug, Clone)]
pub struct Generation {
    /// The items, to be placed in the caller's module.
    pub tokens: TokenStream,
    /// Rust names that had to change because two metadata names map to one identifier
    /// (`list-all` and `list_all` both want `ListAll`), each naming both JSON paths.
    pub warnings: Vec<Diagnostic>,
}

/// Generates the items for `doc`, as `settings` say (its `program`, `schemas` and `serde`;
/// the command filter and limit were applied when `doc` was flattened, see
/// [`expand`](crate::expand)). See the module documentation for what is emitted.
pub fn generate(doc: &Document, settings: &Options) -> Generation {
    let program = settings.program.as_deref().unwrap_or(&doc.tool.name);
    let plan = plan::plan(doc);
    let mut shared = Shared::default();

    let trust = match doc.tool.trust.as_ref().and_then(|t| t.source) {
        Some(source) => {
            let variant = format_ident!("{}", upper_camel(&[source.as_str()]).unwrap_or_default());
            quote!(Some(TrustSource::#variant))
        }
        None => quote!(None),
    };
    let checksum = doc.tool.trust.as_ref().and_then(|t| t.binary_checksum());
    let checksum_const = checksum.map(|c| {
        quote! {
            /// The checksum the binary must have (`trust.integrity.checksum`).
            const CHECKSUM: Option<&str> = Some(#c);
        }
    });
    let program_lit = Literal::string(program);
    let server = doc.tool.is_mcp_server();
    let server_const = server.then(|| {
        let name = Literal::string(&doc.tool.name);
        quote! {
            /// The MCP server whose tools these are (`x-atip-rust.mcp`): calls go to it, never
            /// to a process.
            const SERVER: Option<&str> = Some(#name);
        }
    });

    let mut items = TokenStream::new();
    let mut enums = plan.enums.iter().peekable();
    for (i, p) in plan.commands.iter().enumerate() {
        // Enums first, so each reads before the first struct that uses it.
        while let Some(e) = enums.next_if(|e| e.first_user == i) {
            items.extend(enums::enum_items(e));
        }
        for g in plan.groups.iter().filter(|g| g.first_user == Some(i)) {
            items.extend(command::group_items(g, &doc.tool.name, program));
        }
        items.extend(command::command_items(
            i,
            p,
            &plan,
            program,
            command::Extras {
                checksum: checksum.is_some(),
                env: &doc.declared_env(p.cmd),
                serde: settings.serde,
                server,
            },
            &mut shared,
        ));
    }
    let mut shared_items = shared.effects.items();
    shared_items.extend(shared.env.items());
    let call = call::call_items(&doc.tool.name, &plan.commands);
    let specs: Vec<&atip_core::ToolSpec> = plan.commands.iter().map(|c| &c.spec).collect();
    let schemas = schemas::schemas_module(&doc.tool.name, &specs, &settings.schemas);
    let prelude = prelude_module(&doc.tool.name, &plan);

    let tokens = quote! {
        /// The generated items, re-exported below. `prelude` holds the traits whose methods
        /// callers chain: `use <module>::prelude::*;` brings the setters of global and
        /// inherited options (`SetGlobals`, `SetPrOptions`, …) and `Command` into scope.
        ///
        /// One `allow` for the whole expansion: a program uses some commands, not all
        /// (`dead_code`); the imports serve every tool, a small one uses fewer; constructors
        /// take every required parameter; setters are named after options (`add`, `not`);
        /// `Call` holds every command by value, its variants named after them; enum variants
        /// keep the values' spelling (`ALL`).
        #[allow(
            dead_code,
            unused_imports,
            clippy::too_many_arguments,
            clippy::should_implement_trait,
            clippy::large_enum_variant,
            clippy::enum_variant_names,
            clippy::upper_case_acronyms
        )]
        mod atip_generated {
            use std::path::PathBuf;

            use ::atip_runtime::__private::{
                self, serde, Arguments, Borrowed, Enumeration, Field, ToolTable, ValueKind,
            };
            use ::atip_runtime::{
                Command, DispatchError, Effects, ParamSpec, ToolCall, ToolSpec, TrustSource,
            };

            /// The executable every command runs.
            const PROGRAM: &str = #program_lit;
            /// What the metadata says about its own origin (`trust.source`).
            const TRUST: Option<TrustSource> = #trust;
            #checksum_const
            #server_const

            #items
            #shared_items
            #call
            #prelude
            #schemas
        }
        pub use atip_generated::*;
    };
    Generation {
        tokens,
        warnings: plan.warnings,
    }
}

/// `pub mod prelude`: the traits a caller needs in scope to chain every setter — the setter
/// traits of the option groups that some command holds (`SetGlobals`, `SetPrOptions`) — and
/// `Command` (`argv`, `to_invocation`, …).
fn prelude_module(tool: &str, plan: &plan::Plan<'_>) -> TokenStream {
    let traits = plan
        .groups
        .iter()
        .filter(|g| g.first_user.is_some())
        .map(|g| &g.setters_trait);
    let doc = own_doc(&format!(
        "The traits whose methods callers of {} chain: `use <module>::prelude::*;` (with the \
         name of the module this code was generated into) brings into scope the setters of \
         global and inherited options, which commands implement through one trait per \
         option group, and `Command` (`argv`, `to_invocation`, …).",
        code(tool)
    ));
    quote! {
        #doc
        pub mod prelude {
            #(pub use super::#traits;)*
            pub use ::atip_runtime::Command;
        }
    }
}
