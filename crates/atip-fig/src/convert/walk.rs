//! The state of one conversion's walk down the command tree: the tool, the warnings and
//! counts so far, and the flattened names already taken.

use std::collections::HashMap;

use super::outcome::{Stats, Warning};

/// One conversion in progress; [`commands`](super::commands) and
/// [`parameters`](super::parameters) add its steps.
pub(super) struct Walk {
    pub(super) tool: String,
    pub(super) warnings: Vec<Warning>,
    pub(super) stats: Stats,
    /// Flattened tool name → the Fig command line that has it.
    pub(super) flat: HashMap<String, String>,
    pub(super) max_commands: usize,
    pub(super) over_limit: bool,
    /// Options dropped because an enclosing command declares the same one.
    pub(super) inherited_repeats: usize,
}

impl Walk {
    pub(super) fn warn(&mut self, at: &str, message: impl Into<String>) {
        self.warnings.push(Warning {
            at: at.into(),
            message: message.into(),
        });
    }
}
