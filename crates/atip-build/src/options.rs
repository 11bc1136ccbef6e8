//! The generator's options, declared once: [`Options`]. `include_atip!` fills it from the
//! macro's arguments, [`Builder`](crate::Builder) from each [`Input`](crate::Input) (which
//! has the same setters), `atip gen` from its flags; [`expand`](crate::expand) and
//! [`generate`](crate::generate) read it.

use atip_core::Provider;

/// The most commands [`expand`](crate::expand) generates code for unless
/// [`Options::max_commands`] says otherwise.
///
/// Generated code costs the compiler about 7 ms and 0.8 MB of memory per command of an
/// aws-sized CLI (19 parameters each, 14 of them global or inherited options held in option
/// groups) in `cargo check`, more in a build: 2,000 commands are a check of about 14 s and
/// about 1.6 GB; a CLI whose commands have many options of their own costs more per command.
/// The limit is not raised with the cheaper commands because rustc's cost per command grows
/// with the crate (1.5× at 10,000 commands). Larger documents are refused before any code is
/// generated, with an error that says how to filter them.
pub const DEFAULT_MAX_COMMANDS: usize = 2_000;

/// What to generate from a document, apart from the document itself: the one declaration of
/// every generator option, with its default.
///
/// Non-exhaustive, so that options can be added without breaking callers: start from
/// [`Options::new`] (or `default()`) and chain the setters, or assign the public fields of an
/// existing value.
///
/// ```
/// use atip_build::{Options, Provider};
///
/// let options = Options::new()
///     .file("atip/gh.json")
///     .commands(["pr", "repo delete"])
///     .schemas([Provider::OpenAiStrict])
///     .serde(true);
/// assert_eq!(options.commands.as_deref(), Some(&["pr".to_owned(), "repo delete".to_owned()][..]));
/// assert_eq!(options.max_commands, atip_build::DEFAULT_MAX_COMMANDS);
/// ```
///
/// | option | `include_atip!` | `Input` (build.rs) | `atip gen` |
/// |---|---|---|---|
/// | [`commands`](Options::commands) | `commands = ["pr", "repo delete"]` | `.commands(["pr"])` | `--commands pr,"repo delete"` |
/// | [`program`](Options::program) | `program = "/usr/local/bin/gh"` | `.program("…")` | `--program …` |
/// | [`max_commands`](Options::max_commands) | `max_commands = 5000` | `.max_commands(5000)` | `--max-commands 5000` |
/// | [`schemas`](Options::schemas) | `schemas = ["openai-strict"]` | `.schemas([Provider::OpenAiStrict])` | `--schemas openai-strict` |
/// | [`serde`](Options::serde) | `serde = true` | `.serde(true)` | `--serde` |
/// | [`file`](Options::file) | the path as written | the path | the path |
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// The metadata file's name as diagnostics show it. Default: none.
    pub file: Option<String>,
    /// Keep only these command subtrees (`["pr", "repo delete"]`: segments separated by
    /// spaces, as typed on the command line; a command keeps everything below it). Default:
    /// `None`, every command.
    pub commands: Option<Vec<String>>,
    /// The executable to run instead of the tool's `name` (e.g. `/usr/local/bin/gh`).
    /// Default: none.
    pub program: Option<String>,
    /// The most commands to generate code for (after the `commands` filter); more is an
    /// error that says how to filter. Default: [`DEFAULT_MAX_COMMANDS`].
    pub max_commands: usize,
    /// Providers whose tool definitions are generated as `const` JSON text in
    /// `pub mod schemas` (`schemas::OPENAI_STRICT`, …). Default: none — the generated
    /// `definitions(provider)` computes any provider's array from `TOOLS` on first use
    /// (microseconds per command), so a build does not pay for JSON it may never send.
    pub schemas: Vec<Provider>,
    /// Whether each command also implements `serde::Serialize` and `serde::Deserialize` (its
    /// arguments object, by provider parameter name, checked as dispatch checks it). Default:
    /// `false` — the two generic impls per command are about a seventh of the `cargo check`
    /// time a tool adds, and `Command::to_arguments` / `Command::from_json_text` do the same
    /// work without them.
    pub serde: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            file: None,
            commands: None,
            program: None,
            max_commands: DEFAULT_MAX_COMMANDS,
            schemas: Vec::new(),
            serde: false,
        }
    }
}

impl Options {
    /// Every option at its default.
    pub fn new() -> Self {
        Options::default()
    }

    /// Names the metadata file in diagnostics (the `file` field). `Builder` and the macro set
    /// it to the input's path.
    #[must_use]
    pub fn file(mut self, name: impl Into<String>) -> Self {
        self.file = Some(name.into());
        self
    }
}

/// The builder-style setters of [`Options`] (all but [`Options::file`], which a front-end
/// sets), written once: `option_setters!(define)` expands `define!` with their list.
/// [`Options`] gets them as written (`options_impl!` below); `Input` (builder.rs) gets each
/// as a setter of its own options. A new option is a field above, its default, and a setter
/// here.
macro_rules! option_setters {
    ($define:ident) => {
        $define! {
            /// Keeps only these command subtrees, e.g. `["pr", "repo delete"]`
            /// ([`Options::commands`]).
            fn commands(self, commands: impl IntoIterator<Item = impl Into<String>>) {
                self.commands = Some(commands.into_iter().map(Into::into).collect());
            }
            /// Runs this executable instead of the tool's `name` ([`Options::program`]).
            fn program(self, program: impl Into<String>) {
                self.program = Some(program.into());
            }
            /// Generates code for up to `limit` commands (after the filter) instead of
            /// [`DEFAULT_MAX_COMMANDS`](crate::DEFAULT_MAX_COMMANDS); more is an error
            /// ([`Options::max_commands`]).
            fn max_commands(self, limit: usize) {
                self.max_commands = limit;
            }
            /// Also generates these providers' tool definitions as `const` JSON text, in
            /// `pub mod schemas` ([`Options::schemas`]).
            fn schemas(self, providers: impl IntoIterator<Item = atip_core::Provider>) {
                self.schemas = providers.into_iter().collect();
            }
            /// Also implements `serde::Serialize` and `serde::Deserialize` for every command
            /// ([`Options::serde`]).
            fn serde(self, on: bool) {
                self.serde = on;
            }
        }
    };
}
#[cfg(feature = "builder")]
pub(crate) use option_setters;

/// Defines the setters of [`option_setters`] on [`Options`].
macro_rules! options_impl {
    ($($(#[$doc:meta])* fn $name:ident($self:ident $(, $arg:ident: $ty:ty)*) $body:block)*) => {
        impl Options {
            $(
                $(#[$doc])*
                #[must_use]
                pub fn $name(mut $self $(, $arg: $ty)*) -> Self {
                    $body
                    $self
                }
            )*
        }
    };
}

option_setters!(options_impl);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setters_set_their_field_and_only_it() {
        let base = Options::new();
        assert_eq!(base, Options::default());
        assert_eq!(base.max_commands, DEFAULT_MAX_COMMANDS);
        let mut expected = base.clone();
        expected.commands = Some(vec!["pr".to_owned(), "repo delete".to_owned()]);
        assert_eq!(base.clone().commands(["pr", "repo delete"]), expected);
        let mut expected = base.clone();
        expected.program = Some("/bin/gh".to_owned());
        assert_eq!(base.clone().program("/bin/gh"), expected);
        let mut expected = base.clone();
        expected.max_commands = 7;
        assert_eq!(base.clone().max_commands(7), expected);
        let mut expected = base.clone();
        expected.schemas = vec![Provider::Gemini];
        assert_eq!(base.clone().schemas([Provider::Gemini]), expected);
        let mut expected = base.clone();
        expected.serde = true;
        assert_eq!(base.clone().serde(true), expected);
        let mut expected = base.clone();
        expected.file = Some("gh.json".to_owned());
        assert_eq!(base.file("gh.json"), expected);
    }
}
