//! A clap program's ATIP metadata (spec v0.6), from its own [`clap::Command`], and `--agent`.
//!
//! clap knows a program's arity — subcommands, flags, how many values each takes, their
//! types — but not what the program does to the world. [`document`] reads the first from the
//! [`clap::Command`] and takes the second from [`Annotations`]: side effects per command path, and
//! the trust of the metadata (`native` by default, since the program describes itself). A
//! command nobody annotated keeps its effects undeclared, which policies treat as unknown
//! (it needs confirmation), never as safe.
//!
//! ```
//! use atip_clap::{Annotations, document};
//! use atip_core::Effects;
//! use clap::{Arg, ArgAction, Command};
//!
//! let cmd = Command::new("notes")
//!     .version("1.2.0")
//!     .about("Keep notes")
//!     .subcommand(Command::new("list").about("List notes")
//!         .arg(Arg::new("tag").long("tag").action(ArgAction::Append).help("Only with this tag")))
//!     .subcommand(Command::new("purge").about("Delete every note"));
//! let annotations = Annotations::new()
//!     .effects("list", Effects::UNKNOWN.with_destructive(false).with_network(false))
//!     .effects("purge", Effects::UNKNOWN.with_destructive(true).with_reversible(false));
//! let described = document(&cmd, &annotations)?;
//! let json = described.to_json();
//! // It loads with the strict checks of build time.
//! atip_core::load(&json, &atip_core::LoadOptions::strict()).expect("valid ATIP");
//! assert_eq!(described.tool.commands["list"].options[0].flags, ["--tag"]);
//! # Ok::<(), atip_clap::DocumentError>(())
//! ```
//!
//! # The mapping
//!
//! | clap | ATIP |
//! | --- | --- |
//! | subcommands, at any depth (hidden ones left out) | `commands`, nested |
//! | a command with subcommands that also runs without one (`subcommand_required` unset) | its `""` child, holding its own positionals (and, below the root, its non-global options) |
//! | options of the root, global or not | `globalOptions`: written right after the program, where clap reads them |
//! | `global(true)` options of a deeper command | its `options`, inherited by every command below it (clap reads a global after the subcommands too) |
//! | a non-global option of a deeper command with subcommands | only on its `""` child, with a warning: clap reads it before the subcommand, the argv writer puts options after the whole path |
//! | `short`, `long`, visible aliases | `flags` (`-o`, `--output`, aliases after them) |
//! | `ArgAction::SetTrue` | `boolean` option |
//! | `ArgAction::SetFalse` | `boolean` option (given: clap's value becomes `false`) |
//! | `ArgAction::Count` | `boolean` option, with a warning (one occurrence) |
//! | `ArgAction::Set` | option taking one value |
//! | `ArgAction::Append` | option with `variadic: true` (the flag repeats, one value each) |
//! | possible values (`ValueEnum`, `value_parser([...])`) | `enum` with the visible values |
//! | value parser `i64` / other integers / `f64`, `f32` | `integer` / `integer` with a range warning / `number` |
//! | `PathBuf` (`ValueHint::DirPath`: `directory`), `String` with a path or URL hint | `file`, `directory`, `url` |
//! | other `String`-like or custom parsers | `string` (custom ones with a warning) |
//! | positionals, `num_args(1..)` | `arguments`, `variadic: true` |
//! | `required(true)` | `required: true` (positionals say `required: false` when optional) |
//! | `default_value(s)` | `default`, typed |
//! | `env` | `envVar` |
//! | `hide(true)`, help, version, `--agent` | left out |
//!
//! # What the argv writer cannot express
//!
//! Metadata drives the runtime's argv writer (long flags as `--flag=value`, short-only flags as
//! two elements, positionals last with `--` before them only when a value starts with `-`).
//! Where that cannot reproduce a clap argument exactly, [`Described::warnings`] says so, and
//! the argument is described only as far as it is right, or left out:
//!
//! * `last(true)` positionals (clap takes them only after `--`): left out; a command that
//!   requires one is left out.
//! * options needing two or more values per occurrence (`num_args(2..)`): left out (written
//!   `--flag=a`, clap would take the next argument as the second value).
//! * `Set` options taking several values in one occurrence: described as one value.
//! * `Append` options taking several values per occurrence (`num_args(1..)`, fd's `--exec`):
//!   described as one value per occurrence (each list item gets a flag of its own, and clap
//!   reads it as an occurrence of its own), with a note in the description; a group of values
//!   in one occurrence (`--exec wc -l`) cannot be written.
//! * `Count`: a boolean (counted once). Optional values (`num_args(0..=1)`): always written
//!   with a value.
//! * short-only options without `allow_hyphen_values`: their value goes in its own element,
//!   so it cannot start with `-` (clap would read a flag). With `require_equals`: left out.
//! * `value_delimiter`: a value containing the delimiter becomes several.
//! * `PathBuf` values: clap refuses an empty one (so does every OS); ATIP's `file` cannot say
//!   "not empty".
//! * with a `last(true)` positional, the other positionals cannot take values starting with
//!   `-`: the argv writer puts `--` before them, and clap gives everything after `--` to the
//!   `last(true)` one.
//! * integer types narrower than `i64` (ranges), `f32` precision, custom value parsers,
//!   `ignore_case`, conflicts, required or one-of argument groups, `exclusive`, at most N
//!   values: ATIP has no way to say so.
//! * a command run without its subcommand cannot take a subcommand's name as its first
//!   positional value (clap reads the subcommand).
//!
//! # `--agent`
//!
//! [`handle_agent`] answers `PROGRAM --agent` (spec §3.1) before the program parses its
//! arguments, so that it works whatever the program requires (a subcommand, say); see
//! [`agent_flag`] to list the flag in `--help`.
#![deny(missing_docs)]

mod agent;
mod annotations;
mod describe;
mod described;

pub use agent::{agent_flag, agent_request, answer_agent, handle_agent, AgentAnswer, AgentRequest};
pub use annotations::Annotations;
pub use describe::{document, AGENT_ARG_ID};
pub use described::{Described, DocumentError, Warning};
