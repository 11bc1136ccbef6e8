//! A generated module's `TOOLS`: every command's [`ToolSpec`], in declaration order.

use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

#[cfg(doc)]
use crate::contract::Command;
use atip_core::effects::Effects;
use atip_core::tool::ToolSpec;

/// Every command's [`ToolSpec`] of a generated module, in declaration order: its
/// `pub static TOOLS`, and what each command's [`Command::tool`] returns a row of.
///
/// It dereferences to `[ToolSpec]`, so it is used like a slice: `git::TOOLS.iter()`,
/// `git::TOOLS.len()`, `&git::TOOLS` where a `&[ToolSpec]` is expected (or
/// [`ToolTable::as_slice`] where coercion does not reach, as in a tuple). The slice is built
/// on first use and kept for the life of the program (one `Box<[ToolSpec]>`, whose texts
/// borrow from the binary).
///
/// Generated code holds the specs as one JSON text ([`atip_core::spec_table`]), read on first
/// use: a `const ToolSpec` per command was a sixth of what checking gh.json's generated code
/// cost, and a `static` slice of them is evaluated and validated byte by byte during
/// `cargo check` (BENCHMARKS.md). A hand-written table lists one function per command
/// ([`ToolTable::new`]).
pub struct ToolTable {
    source: Source,
    built: OnceLock<Box<[ToolSpec]>>,
}

enum Source {
    Functions(&'static [fn() -> ToolSpec]),
    Encoded {
        table: &'static str,
        commands: &'static [(&'static str, Effects)],
    },
}

impl ToolTable {
    /// A table of the specs `specs` return, in their order; nothing is built until first
    /// use.
    pub const fn new(specs: &'static [fn() -> ToolSpec]) -> Self {
        ToolTable {
            source: Source::Functions(specs),
            built: OnceLock::new(),
        }
    }

    /// The table generated code holds: `table` in version 1 of the spec table format
    /// ([`atip_core::spec_table`]), one row per entry of `commands` (the module's `EFFECTS`:
    /// each command's name and merged effects). Read on first use. The version is in the
    /// name, so that code generated for another format does not compile against this
    /// runtime.
    #[doc(hidden)]
    pub const fn from_spec_table_v1(
        table: &'static str,
        commands: &'static [(&'static str, Effects)],
    ) -> Self {
        ToolTable {
            source: Source::Encoded { table, commands },
            built: OnceLock::new(),
        }
    }

    /// The specs, built on the first call.
    ///
    /// # Panics
    ///
    /// On the first call, if a generated table does not read as its format: only when the
    /// generated code was edited by hand (the format version is checked when compiling).
    pub fn as_slice(&self) -> &[ToolSpec] {
        self.built.get_or_init(|| match self.source {
            Source::Functions(specs) => specs.iter().map(|spec| spec()).collect(),
            Source::Encoded { table, commands } => {
                match atip_core::spec_table::decode(table, commands) {
                    Ok(specs) => specs.into_boxed_slice(),
                    Err(e) => panic!(
                        "the generated `TOOLS` table cannot be read ({e}): regenerate the module"
                    ),
                }
            }
        })
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
    use crate::contract::tests::ECHO_TOOL;

    static TABLE: ToolTable = ToolTable::new(&[
        || ECHO_TOOL.clone(),
        || {
            let mut spec = ECHO_TOOL.clone();
            spec.name = std::borrow::Cow::Borrowed("echo_again");
            spec
        },
    ]);

    #[test]
    fn a_table_is_its_commands_specs_in_order_built_once() {
        assert_eq!(TABLE.len(), 2);
        assert_eq!(TABLE[0], ECHO_TOOL);
        assert_eq!(TABLE[1].name, "echo_again");
        let names: Vec<&str> = (&TABLE).into_iter().map(|s| &*s.name).collect();
        assert_eq!(names, ["echo", "echo_again"]);
        // The same slice every time: built on first use, then kept.
        assert!(std::ptr::eq(TABLE.as_slice(), &*TABLE));
        let as_ref: &[ToolSpec] = TABLE.as_ref();
        assert_eq!(as_ref.len(), 2);
        assert!(format!("{TABLE:?}").contains("echo_again"));
    }

    static COMMANDS: [(&str, Effects); 1] = [("echo", Effects::UNKNOWN)];

    #[test]
    fn a_generated_table_reads_its_spec_table_once() {
        static GENERATED: ToolTable = ToolTable::from_spec_table_v1(
            r#"[[],
[["echo",[],"Print words",[["loud","Shout","boolean","flag","--loud",0],["words","What to print","string","argument","words",1]]]]]"#,
            &COMMANDS,
        );
        assert_eq!(GENERATED.as_slice(), std::slice::from_ref(&ECHO_TOOL));
        assert!(std::ptr::eq(GENERATED.as_slice(), &*GENERATED));
    }

    #[test]
    #[should_panic(expected = "the generated `TOOLS` table cannot be read (malformed spec table")]
    fn a_generated_table_edited_into_nonsense_says_so() {
        static BROKEN: ToolTable = ToolTable::from_spec_table_v1("[[],[]", &COMMANDS);
        let _ = BROKEN.as_slice();
    }
}
