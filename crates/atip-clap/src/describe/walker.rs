//! The state of one walk over a clap command (the annotations, which of them were used, the
//! warnings so far, the command's `last(true)` positional) and what one argument becomes.

use std::collections::BTreeSet;

use atip_core::model::{ArgumentSpec, OptionSpec};
use atip_core::Effects;
use clap::Arg;

use crate::annotations::Annotations;
use crate::described::Warning;

/// What one clap argument becomes.
pub(super) enum Param {
    Argument(ArgumentSpec),
    Option(OptionSpec),
    /// Left out (hidden, built in, or not expressible; a warning says which).
    None,
    /// Not expressible, and required: the command cannot be called through the argv writer.
    Blocks,
}

/// One walk over a clap command.
pub(super) struct Walker<'a> {
    /// The `last(true)` positional of the command being walked, if it has one.
    pub(super) last_positional: Option<String>,
    pub(super) annotations: &'a Annotations,
    pub(super) used: BTreeSet<String>,
    pub(super) warnings: Vec<Warning>,
}

impl Walker<'_> {
    pub(super) fn warn(&mut self, path: &[String], arg: Option<&Arg>, message: impl Into<String>) {
        self.warnings.push(Warning {
            command: path.join(" "),
            arg: arg.map(|a| a.get_id().to_string()),
            message: message.into(),
        });
    }

    /// The effects annotated for `path`, marking the annotation used.
    pub(super) fn effects(&mut self, path: &[String]) -> Option<Effects> {
        let key = path.join(" ");
        let found = self.annotations.effects.get(&key).cloned();
        if found.is_some() {
            self.used.insert(key);
        }
        found
    }
}
