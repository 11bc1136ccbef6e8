//! Flattening of the command tree into tools (spec §8.2 rule 3, strategy A).
//!
//! * Every leaf command (one without subcommands) becomes a tool named
//!   `{tool}_{path…}` ([`crate::names::tool_name`]).
//! * A child named `""` stands for its parent itself: `{"": …}` at the root is the tool
//!   (`hello`), under `stash` it is `git stash` (`git_stash`); it adds nothing to the argv.
//! * Options declared on a group command are inherited by every command below it; the tool's
//!   `globalOptions` apply to every command. A command's own parameter shadows an inherited or
//!   global option with the same parameter name (warning); an inner group's option shadows an
//!   outer one the same way. Arguments declared on a group are ignored (warning).
//! * Effects merge from the tool through each ancestor to the command
//!   ([`Effects::merge_path`](crate::Effects::merge_path)).
//! * An option declared twice on one command with the same name, flags, type, `required`,
//!   `default`, `enum`, `envVar` and `variadic` is merged: kept once (the first description
//!   kept), with a warning naming both JSON paths. Real documents do this (the aws CLI declares
//!   its pagination options again per operation with other texts). Two that differ only in a
//!   type among `integer`, `number` and `string` are merged too, as the wider type (which takes
//!   the other's values), with a warning naming both types: the aws CLI declares `--max-items`
//!   once `string` and once `integer` on some commands.
//! * Two commands with the same flattened name, or two different parameters of one command
//!   with the same parameter name (an argument and an option included), are errors naming both
//!   JSON paths. In lenient mode (metadata read at run time) such an error makes only the
//!   commands it touches unusable: they are left out and listed in [`CommandTable::skipped`] with
//!   the reasons, every other command works.
//!
//! What flattening produces ([`CommandTable`], [`FlatCommand`], [`FlatParam`]) is declared in
//! `table.rs`; the walk that produces it in `walk.rs`.

mod duplicates;
mod split;
mod table;
mod walk;

pub use table::{
    CommandTable, Flag, FlatCommand, FlatParam, FlattenOptions, OptionScope, ParamOrigin,
    ParamPlacement, SkippedCommand,
};
pub use walk::flatten;
pub(crate) use walk::flatten_owned;
