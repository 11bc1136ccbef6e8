//! A generated module's `TOOLS`: every command's [`ToolSpec`], in declaration order.

use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

use crate::command::Command;
use crate::tool::ToolSpec;

/// Every command's [`Command::TOOL`] of a generated module, in declaration order: its
/// `pub static TOOLS`.
///
/// It dereferences to `[ToolSpec]`, so it is used like a slice: `git::TOOLS.iter()`,
/// `git::TOOLS.len()`, `&git::TOOLS` where a `&[ToolSpec]` is expected (or
/// [`ToolTable::as_slice`] where coercion does not reach, as in a tuple). The slice is built
/// on first use, from one function per command that returns its `TOOL`, and kept for the
/// life of the program (one `Box<[ToolSpec]>`, whose texts all borrow from the binary).
///
/// Why not a `static` slice of the `TOOL` constants: the compiler evaluates and validates
/// every byte of a `static` during `cargo check`, which for a large tool was a twentieth of
/// what checking its generated code cost (BENCHMARKS.md); a table of functions costs nothing
/// to check.
pub struct ToolTable {
    specs: &'static [fn() -> ToolSpec],
    built: OnceLock<Box<[ToolSpec]>>,
}

impl ToolTable {
    /// A table of the specs `specs` return, in their order; nothing is built until first
    /// use. Generated code passes `&[ToolTable::spec_of::<Command1>, …]`.
    pub const fn new(specs: &'static [fn() -> ToolSpec]) -> Self {
        ToolTable {
            specs,
            built: OnceLock::new(),
        }
    }

    /// `C::TOOL`: the function a generated table holds for command `C`.
    pub fn spec_of<C: Command>() -> ToolSpec {
        C::TOOL
    }

    /// The specs, built on the first call.
    pub fn as_slice(&self) -> &[ToolSpec] {
        self.built
            .get_or_init(|| self.specs.iter().map(|spec| spec()).collect())
    }
}

impl Deref for ToolTable {
    type Target = [ToolSpec];

    fn deref(&self) -> &[ToolSpec] {
        self.as_slice()
    }
}

impl AsRef<[ToolSpec]> for ToolTable {
    fn as_ref(&self) -> &[ToolSpec] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a ToolTable {
    type Item = &'a ToolSpec;
    type IntoIter = std::slice::Iter<'a, ToolSpec>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl fmt::Debug for ToolTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::tests::Echo;

    static TABLE: ToolTable = ToolTable::new(&[ToolTable::spec_of::<Echo>, || {
        let mut spec = Echo::TOOL;
        spec.name = std::borrow::Cow::Borrowed("echo_again");
        spec
    }]);

    #[test]
    fn a_table_is_its_commands_specs_in_order_built_once() {
        assert_eq!(TABLE.len(), 2);
        assert_eq!(TABLE[0], Echo::TOOL);
        assert_eq!(TABLE[1].name, "echo_again");
        let names: Vec<&str> = (&TABLE).into_iter().map(|s| &*s.name).collect();
        assert_eq!(names, ["echo", "echo_again"]);
        // The same slice every time: built on first use, then kept.
        assert!(std::ptr::eq(TABLE.as_slice(), &*TABLE));
        let as_ref: &[ToolSpec] = TABLE.as_ref();
        assert_eq!(as_ref.len(), 2);
        assert!(format!("{TABLE:?}").contains("echo_again"));
    }
}
