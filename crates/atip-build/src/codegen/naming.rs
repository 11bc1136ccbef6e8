//! Naming rules every kind of generated item shares: the warning for a renamed item, a
//! command's invocation as typed, setter names, and which parameters several commands share.

use atip_core::flatten::{FlatParam, OptionScope, ParamPlacement};
use atip_core::{Diagnostic, JsonPath};
use proc_macro2::Ident;

use crate::idents::{ident, Scope, RESERVED_METHODS};

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
pub(super) fn renamed(
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

/// `gh pr create`: the program (or tool name) and a subcommand path, as typed.
pub(super) fn invocation(tool: &str, path: &[String]) -> String {
    std::iter::once(tool)
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
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
