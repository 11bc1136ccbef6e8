//! `include_atip!`: typed Rust commands from ATIP metadata, generated at compile time.
//!
//! Use it through `atip-runtime`, which re-exports it and provides every item the generated
//! code refers to:
//!
//! ```
//! mod git {
//!     // Relative to the package root; here, this repository's example metadata.
//!     atip_runtime::include_atip!("../../examples/atip/git.json", commands = ["log", "status"]);
//! }
//! use atip_runtime::Command;
//! let log = git::Log::new().max_count(3);
//! assert_eq!(log.argv(), ["git", "log", "--max-count=3"]);
//! assert_eq!(git::Call::NAMES, ["git_status", "git_log"]);
//! ```
//!
//! Setters of global options and of the options a group command declares for the commands
//! below it (`gh pr --repo`) are methods of one trait per option group (`SetGlobals`,
//! `SetPrOptions`): `use git::prelude::*;` brings them, and `Command`, into scope.
//!
//! The path is relative to the package root (`CARGO_MANIFEST_DIR`), or absolute; `${NAME}` in
//! it is replaced by the environment variable `NAME` when the macro runs (cargo does not rerun
//! the macro when only the variable changes). Options, after the path:
//!
//! * `commands = ["pr", "repo delete"]` keeps only those command subtrees (segments
//!   separated by spaces, as typed on the command line);
//! * `program = "/usr/local/bin/gh"` runs that executable instead of the tool's `name`;
//! * `schemas = ["openai-strict", "anthropic"]` also generates those providers' tool
//!   definitions as `const` JSON text (`schemas::OPENAI_STRICT`); by default none are, and the
//!   generated `definitions(provider)` computes any provider's array at run time, once;
//! * `serde = true` also implements `serde::Serialize` and `serde::Deserialize` for every
//!   command (its arguments object by provider parameter name, checked as dispatch checks
//!   it); by default they are not, since they are about a seventh of what a build pays for a
//!   tool — `Command::to_arguments` and `Command::from_json_text` do the same without them;
//! * `max_commands = 5000` raises the limit on the number of commands generated (default
//!   `atip_build::DEFAULT_MAX_COMMANDS`, 2,000): a larger document is a compile error that says
//!   how to filter it, instead of a build that takes many minutes and gigabytes.
//!
//! Expansions are cached on disk (in the user's cache directory, `~/.cache/atip/macros`; set
//! `ATIP_MACRO_CACHE=off` to disable or to a directory to move it), keyed on the metadata,
//! the options and the generator, so editing unrelated code does not load and generate a large
//! document again.
//!
//! The expansion is the same code `atip gen` prints and `atip_build::Builder` writes. Cargo
//! rebuilds the crate when the metadata file changes. Every error in the metadata becomes a
//! compile error on the path literal, as `file:line:col: $.json.path: message`. Warnings are
//! not shown by the macro (stable Rust has no API for it): run `atip check FILE` to see them.
#![deny(missing_docs)]

mod cache;

use std::path::{Path, PathBuf};

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{bracketed, Ident, LitStr, Token};

/// The macro's arguments: the path literal, then the generator's options, filled into
/// [`atip_build::Options`] as they are parsed (`file` is set to the path as written).
struct Args {
    path: LitStr,
    options: atip_build::Options,
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(input
                .error("expected the path of an ATIP JSON file: include_atip!(\"atip/gh.json\")"));
        }
        let path: LitStr = input.parse()?;
        let mut options = atip_build::Options::new().file(path.value());
        let mut given: Vec<String> = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let name = key.to_string();
            if given.contains(&name) {
                return Err(syn::Error::new(
                    key.span(),
                    format!("`{key}` is given twice"),
                ));
            }
            options = match name.as_str() {
                "commands" => {
                    let content;
                    bracketed!(content in input);
                    let list = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
                    options.commands(list.iter().map(LitStr::value))
                }
                "program" => options.program(input.parse::<LitStr>()?.value()),
                "max_commands" => {
                    options.max_commands(input.parse::<syn::LitInt>()?.base10_parse::<usize>()?)
                }
                "schemas" => {
                    let content;
                    bracketed!(content in input);
                    let list = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
                    let mut providers = Vec::new();
                    for lit in &list {
                        match lit.value().parse::<atip_build::Provider>() {
                            Ok(p) => providers.push(p),
                            Err(_) => {
                                let known: Vec<String> = atip_build::Provider::ALL
                                    .iter()
                                    .map(|p| format!("\"{}\"", p.as_str()))
                                    .collect();
                                return Err(syn::Error::new(
                                    lit.span(),
                                    format!(
                                        "unknown provider {:?}: expected one of {}",
                                        lit.value(),
                                        known.join(", ")
                                    ),
                                ));
                            }
                        }
                    }
                    options.schemas(providers)
                }
                "serde" => options.serde(input.parse::<syn::LitBool>()?.value),
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown option `{other}`: expected `commands = [\"pr\", \"repo delete\"]`, \
                             `program = \"/path/to/tool\"`, `max_commands = 5000`, \
                             `schemas = [\"openai-strict\", \"anthropic\"]` or `serde = true`"
                        ),
                    ))
                }
            };
            given.push(name);
        }
        Ok(Args { path, options })
    }
}

/// Expands to typed commands generated from an ATIP metadata file: for each command a struct
/// with a constructor and setters implementing `atip_runtime::Command`, an enum per
/// enumeration parameter, `Globals` for the tool's global options (and `PrOptions` for the
/// options a group command such as `gh pr` declares for the commands below it), `Call`,
/// `TOOLS`, `EFFECTS` and `definitions`. See the crate documentation for options.
#[proc_macro]
pub fn include_atip(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    expand(args).into()
}

fn expand(args: Args) -> proc_macro2::TokenStream {
    let span = args.path.span();
    let written = args.path.value();
    let expanded = match expand_env(&written) {
        Ok(p) => p,
        Err(message) => return error(span, &message, None),
    };
    let full = match std::env::var_os("CARGO_MANIFEST_DIR") {
        Some(dir) => PathBuf::from(dir).join(&expanded),
        None => PathBuf::from(&expanded),
    };
    let text = match std::fs::read(&full) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                return error(
                    span,
                    &format!(
                        "{written}: not UTF-8 text (invalid byte at offset {})",
                        e.utf8_error().valid_up_to()
                    ),
                    Some(&full),
                )
            }
        },
        Err(e) => {
            let hint = match atip_build::nearest_file(&full) {
                Some(near) => format!("; did you mean {:?}?", near.file_name().unwrap_or_default()),
                None => String::new(),
            };
            return error(
                span,
                &format!(
                    "cannot read {written} (looked for {}): {e}{hint}; the path is relative to \
                     the package root (CARGO_MANIFEST_DIR)",
                    full.display()
                ),
                None,
            );
        }
    };
    let options = args.options;
    let cache = cache::Entry::new(&full.to_string_lossy(), &text, &format!("{options:?}"));
    if let Some(items) = cache.as_ref().and_then(cache::Entry::load) {
        let track = track(&full);
        return quote! {
            #track
            #items
        };
    }
    match atip_build::expand(&text, &options) {
        Ok(expansion) => {
            let track = track(&full);
            let items = expansion.tokens;
            if let Some(cache) = &cache {
                cache.store(&items);
            }
            quote! {
                #track
                #items
            }
        }
        Err(e) => {
            let mut out = track(&full);
            for d in e.errors() {
                let msg = d.render(Some(&written));
                out.extend(quote::quote_spanned!(span=> ::core::compile_error!(#msg);));
            }
            out
        }
    }
}

/// `path` with each `${NAME}` replaced by the environment variable `NAME` at compile time.
///
/// # Errors
///
/// A message naming the variable when it is unset or not UTF-8, or when a `${` is not closed.
fn expand_env(path: &str) -> Result<String, String> {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("{path}: `${{` without a closing `}}`"));
        };
        let name = &after[..end];
        match std::env::var(name) {
            Ok(value) => out.push_str(&value),
            Err(_) => {
                return Err(format!(
                    "{path}: the environment variable `{name}` is not set (or not UTF-8)"
                ))
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Makes cargo rebuild when the metadata file changes.
fn track(full: &Path) -> proc_macro2::TokenStream {
    match full.to_str() {
        Some(p) => quote!(
            const _: &[u8] = ::core::include_bytes!(#p);
        ),
        None => proc_macro2::TokenStream::new(),
    }
}

fn error(span: Span, message: &str, track_path: Option<&Path>) -> proc_macro2::TokenStream {
    let mut out = track_path.map(track).unwrap_or_default();
    out.extend(syn::Error::new(span, message).to_compile_error());
    out
}
