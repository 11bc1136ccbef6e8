pub use serde;

use serde::de::Error as _;

use crate::contract::Command;

// The machinery generated code names, each also reachable at its one public path.
pub use crate::dispatch::{Arguments, CommandSet};
pub use crate::fields::{Enumeration, Field};
pub use crate::tool_table::ToolTable;
pub use atip_core::{
    Cost, CostEstimate, DurationHint, FilesystemEffects, Interactive, Shared, StdinMode, ValueKind,
};

/// `Deserialize` of a generated command: a JSON object checked against `C::tool()` with the
/// rules of dispatch (coercions, `null` as absent, unknown parameters refused), then built.
pub fn deserialize_command<'de, D, C>(deserializer: D) -> Result<C, D::Error>
where
    D: serde::Deserializer<'de>,
    C: Command,
{
    use serde::Deserialize;
    let map = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
    let tool = C::tool();
    let mut checked = Arguments::check(tool, &map).map_err(|problems| {
        D::Error::custom(
            problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
    })?;
    let command = C::from_arguments(&mut checked);
    checked.finish().map_err(D::Error::custom)?;
    Ok(command)
}

/// `Serialize` of a generated enumeration: its value as a string.
///
/// # Errors
///
/// The serializer's.
pub fn serialize_enum<S: serde::Serializer, E: Enumeration>(
    value: E,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(value.as_str())
}

/// `Deserialize` of a generated enumeration: one of its values, by text.
///
/// # Errors
///
/// When the text is not one of the values.
pub fn deserialize_enum<'de, D, E>(deserializer: D) -> Result<E, D::Error>
where
    D: serde::Deserializer<'de>,
    E: Enumeration,
{
    use serde::Deserialize;
    let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
    E::from_value(&text).ok_or_else(|| {
        let values: Vec<String> = E::VALUES.iter().map(|(_, v)| format!("{v:?}")).collect();
        D::Error::custom(format_args!(
            "unknown value {text:?}, expected one of {}",
            values.join(", ")
        ))
    })
}

/// The items of a list setter's argument, each converted: what the generated setters of list
/// parameters do with what they are given (`.tags(["a", "b"])`, `.paths(vec![path])`).
pub fn list<T, I>(items: I) -> Vec<T>
where
    I: IntoIterator,
    I::Item: Into<T>,
{
    items.into_iter().map(Into::into).collect()
}

/// A generated command's `Debug`: `Name { param: value, … }` (`name`, the type's name), every field under its
/// parameter's name, in the order of [`Command::tool`]'s parameters. One call per command
/// instead of a derived impl, whose per-field code was the largest single cost of checking a
/// large tool (BENCHMARKS.md); through [`DynCommand`], so that the compiler builds this code
/// once, not once per command.
///
/// # Errors
///
/// The formatter's.
pub fn debug_command(
    command: &dyn DynCommand,
    name: &str,
    f: &mut std::fmt::Formatter<'_>,
) -> std::fmt::Result {
    let params: &[atip_core::ParamSpec] = &(command.info().tool)().params;
    let mut out = f.debug_struct(name);
    command.visit_fields(&mut |fields| {
        for (p, field) in params.iter().zip(fields) {
            out.field(&p.name, field);
        }
    });
    out.finish()
}

/// A generated command's `PartialEq`: every field equal to the other command's, in order
/// ([`Field::same`](crate::fields::Field::same)). One call per command instead of a derived
/// impl, for the reasons given at [`debug_command`]. The generated impl passes two values of
/// the same command type.
pub fn same_command(a: &dyn DynCommand, b: &dyn DynCommand) -> bool {
    let mut same = false;
    a.visit_fields(&mut |ours| {
        b.visit_fields(&mut |theirs| {
            same = ours.len() == theirs.len() && ours.iter().zip(theirs).all(|(x, y)| x.same(*y));
        });
    });
    same
}

pub use crate::contract::{
    dispatch_to, serialize_command, write_command_argv, CallInput, CommandInfo, DynCommand,
};

/// One row of a generated `Call`'s dispatch table: tool name and its dispatch function.
pub type DispatchEntry<T> = (
    &'static str,
    fn(CallInput<'_>) -> Result<T, crate::dispatch::DispatchError>,
);

/// Dispatches `input` through `table` (sorted in
/// [`dispatch_order`](atip_core::names::dispatch_order)), or reports the unknown tool with a
/// suggestion from `names`.
///
/// A name the binary search misses is looked for once more, row by row, before it is called
/// unknown: a table written by an older generator (sorted by name alone) still dispatches
/// every name, only slower.
///
/// # Errors
///
/// [`DispatchError`](crate::dispatch::DispatchError): unknown tool, or as the command's dispatch.
pub fn dispatch_by_name<T>(
    input: CallInput<'_>,
    table: &[DispatchEntry<T>],
    names: &[&str],
) -> Result<T, crate::dispatch::DispatchError> {
    let name = input.name();
    let row = table
        .binary_search_by(|(row, _)| atip_core::names::dispatch_order(row, name))
        .ok()
        .or_else(|| table.iter().position(|(row, _)| *row == name));
    match row {
        Some(i) => (table[i].1)(input),
        None => Err(match input {
            CallInput::Call(call) => crate::dispatch::DispatchError::unknown_tool(call, names),
            CallInput::Text { name, .. } => {
                crate::dispatch::DispatchError::unknown_name(name, names)
            }
        }),
    }
}

/// `Cow::Borrowed`, shorter in generated code.
pub use std::borrow::Cow::Borrowed;

/// Every command of a generated module as one provider's tool definitions (a JSON array),
/// computed from its `TOOLS` on first use and kept for the life of the program: the generated
/// `definitions` function. `cache` holds one slot per [`Provider`](atip_core::Provider).
pub fn definitions(
    tools: &[atip_core::ToolSpec],
    provider: atip_core::Provider,
    cache: &'static DefinitionsCache,
) -> &'static str {
    let slot = atip_core::Provider::ALL
        .iter()
        .position(|p| *p == provider)
        .unwrap_or(0);
    cache.0[slot].get_or_init(|| atip_core::providers::tool_definitions_json(tools, provider))
}

/// The cache of [`definitions`]: one computed array per provider.
pub struct DefinitionsCache([std::sync::OnceLock<String>; atip_core::Provider::ALL.len()]);

impl DefinitionsCache {
    /// An empty cache, for a `static`.
    pub const fn new() -> Self {
        DefinitionsCache([const { std::sync::OnceLock::new() }; atip_core::Provider::ALL.len()])
    }
}

impl Default for DefinitionsCache {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo(input: CallInput<'_>) -> Result<String, crate::dispatch::DispatchError> {
        Ok(input.name().to_owned())
    }

    const NAMES: [&str; 6] = [
        "gh_pr",
        "gh_pr_create",
        "gh_issue",
        "gh_a",
        "gh_pr_list",
        "gh_b",
    ];

    fn dispatch_all(table: &[DispatchEntry<String>]) {
        for name in NAMES {
            let input = CallInput::Text {
                name,
                arguments: "{}",
            };
            assert_eq!(dispatch_by_name(input, table, &NAMES).unwrap(), name);
        }
        let unknown = CallInput::Text {
            name: "gh_pr_creat",
            arguments: "{}",
        };
        let err = dispatch_by_name(unknown, table, &NAMES).unwrap_err();
        assert_eq!(err.tool, "gh_pr_creat");
    }

    #[test]
    fn a_table_in_dispatch_order_dispatches_every_name() {
        let mut names = NAMES;
        names.sort_by(|a, b| atip_core::names::dispatch_order(a, b));
        assert_eq!(names[..2], ["gh_a", "gh_b"], "shorter names first");
        let table: Vec<DispatchEntry<String>> = names.iter().map(|n| (*n, echo as _)).collect();
        dispatch_all(&table);
    }

    #[test]
    fn a_table_sorted_by_name_alone_still_dispatches_every_name() {
        // What generators before `dispatch_order` wrote: the binary search misses some
        // names, the row-by-row look-up finds them.
        let mut names = NAMES;
        names.sort();
        let missed = NAMES
            .iter()
            .filter(|n| {
                names
                    .binary_search_by(|row| atip_core::names::dispatch_order(row, n))
                    .is_err()
            })
            .count();
        assert!(missed > 0, "the old order defeats the binary search");
        let table: Vec<DispatchEntry<String>> = names.iter().map(|n| (*n, echo as _)).collect();
        dispatch_all(&table);
    }
}
