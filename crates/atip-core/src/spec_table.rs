//! The spec table: every command's [`ToolSpec`] of a generated module as one JSON text, which
//! the generator writes ([`encode`]) and the runtime reads on first use ([`decode`]).
//!
//! Why text and not a `const ToolSpec` per command: the compiler type-checks, borrow-checks
//! and const-checks every `const` body and stores its MIR in the crate's metadata, which for
//! gh.json's 167 commands was a sixth of what `cargo check` of the generated code cost
//! (BENCHMARKS.md); a string literal costs nothing to check, and reading it takes
//! microseconds per command once per program. Every text of the decoded specs borrows from the
//! literal unless JSON had to escape it.
//!
//! # Format (version 1)
//!
//! The table is one JSON array of two arrays, `[shared, commands]`:
//!
//! * `shared`: the parameter rows that two or more command rows hold alike, each written once
//!   (see *Sharing* below);
//! * `commands`: one command row per command, in declaration order. Row `i` describes the
//!   command at index `i` of the `commands` slice given to [`decode`] (a generated module's
//!   `EFFECTS`), which supplies the two fields the row leaves out: the flattened name and the
//!   merged effects.
//!
//! ## Command row
//!
//! An array of four parts, by position:
//!
//! | position | name | JSON | becomes |
//! |---|---|---|---|
//! | 0 | title | string | [`ToolSpec::title`] (`"gh pr create"`) |
//! | 1 | path | array of strings | [`ToolSpec::path`] (`["pr", "create"]`) |
//! | 2 | description | string | [`ToolSpec::description`] |
//! | 3 | parameters | array of parameters | [`ToolSpec::params`], in this order |
//!
//! A parameter is either a whole parameter row or a non-negative integer: the index of a row
//! of `shared` (0-based).
//!
//! ## Parameter row
//!
//! An array of six to nine parts, by position:
//!
//! | position | name | JSON | becomes |
//! |---|---|---|---|
//! | 0 | name | string | [`ParamSpec::name`]: the provider parameter name (`dry_run`) |
//! | 1 | description | string | [`ParamSpec::description`] |
//! | 2 | kind | string | [`ParamSpec::kind`]: [`ValueKind`] as it serialises — `"string"`, `"integer"`, `"number"`, `"boolean"`, `"file"`, `"directory"`, `"url"`, `"enum"` |
//! | 3 | form | string | the [`ArgvForm`] variant of [`ParamSpec::argv`]: `"argument"` (positional), `"flag"` (bare flag when `true`), `"joined"` (`--flag=value`), `"separate"` (`-f`, `value`) |
//! | 4 | text | string | the variant's text: the flag (`"--repo"`, `"-f"`), or an argument's declared name |
//! | 5 | flags | integer | the sum of the flag bits below |
//! | 6 | values | array of strings, or `null` | [`ParamSpec::values`]: the allowed values, `null` when any value goes |
//! | 7 | default | string, or `null` | [`ParamSpec::default`]: the tool's default, as text |
//! | 8 | effects | object | [`ParamSpec::effects`]: what giving the parameter adds to the command's effects, as ATIP writes `effects` (spec §3.6) |
//!
//! Trailing absent parts are left out: a row without effects or a default has at most seven
//! parts, and a row with neither allowed values, a default nor effects has six. An absent part
//! before a present one is `null`. (Part 8 came before the format's first release; a reader
//! that knew only eight parts refuses a ninth rather than misreading it.)
//!
//! ## Flag bits
//!
//! | bit | value | set when |
//! |---|---|---|
//! | 0 | 1 | [`ParamSpec::required`]: the command needs the parameter |
//! | 1 | 2 | [`ParamSpec::multiple`]: the parameter takes a list (repeated flag, variadic argument) |
//! | 2 | 4 | [`ParamSpec::global`]: a global option, written right after the program |
//!
//! So `0` is an optional single value, `3` a required list, `4` an optional global option.
//! Any other bit is an error.
//!
//! ## Sharing
//!
//! [`encode`] writes each parameter's row, compares rows by their text, and moves every row
//! that occurs in two or more commands (global options, options a group command declares for
//! the commands below it, or two commands that declare a parameter alike) into `shared`, in
//! the order of first occurrence; each occurrence is then written as its index. A row of
//! `shared` is always a whole row, never an index. [`decode`] gives every command that refers
//! to a shared row its own copy of that [`ParamSpec`]. In this repository's gh.json, `--repo`
//! (declared alike on `gh pr` and `gh issue`, inherited by the commands below them) is
//! `shared[0]`, and the row of `gh pr list` lists its parameters as
//! `[0, [state…], [limit…], 1, [author…], 2]`.
//!
//! ## Version
//!
//! The text carries no version number: the version is in the name of the constructor that
//! generated code calls with the text (`ToolTable::from_spec_table_v1` in `atip_runtime`), so
//! code generated for one version does not compile against a runtime without it. Any change
//! that a reader of an earlier version would misread — a new part, flag bit, kind or form,
//! or a changed meaning — is a new version, with its own constructor and decoder; a version
//! once released is never changed. A decoder refuses what it does not know (unknown flag
//! bits, forms and kinds, rows longer than nine parts, a command count other than the
//! `EFFECTS` rows) with a [`SpecTableError`], rather than guessing.
//!
//! The encoder writes each shared parameter and each command on a line of its own, so that a
//! generated module's table reads (and diffs) a command at a time.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::effects::{Effects, Text};
use crate::shared::Shared;
use crate::tool::{ArgvForm, ParamSpec, ToolSpec, ValueKind};

/// Flag bit of a parameter row: [`ParamSpec::required`].
const REQUIRED: u64 = 1;
/// Flag bit of a parameter row: [`ParamSpec::multiple`].
const MULTIPLE: u64 = 2;
/// Flag bit of a parameter row: [`ParamSpec::global`].
const GLOBAL: u64 = 4;

/// A spec table that does not read as the format above: written by a generator of another
/// format version, or edited by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecTableError(String);

impl fmt::Display for SpecTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed spec table: {}", self.0)
    }
}

impl std::error::Error for SpecTableError {}

/// The table of `specs` (format version 1, see the module documentation). A parameter that
/// two or more specs hold alike (a global option, an inherited one) is written once and
/// referred to by index. Deterministic: the same specs give the same text. The text goes in a
/// raw string literal as it is: it holds no carriage return (JSON escapes it) and no character
/// that changes the direction of text (escaped here).
pub fn encode<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> String {
    let specs: Vec<&ToolSpec> = specs.into_iter().collect();
    // Parameters by their row's text, with how many specs hold each.
    let mut seen: indexmap::IndexMap<String, usize> = indexmap::IndexMap::new();
    let rows: Vec<Vec<String>> = specs
        .iter()
        .map(|spec| {
            spec.params
                .iter()
                .map(|p| {
                    let row = param_row(p).to_string();
                    *seen.entry(row.clone()).or_default() += 1;
                    row
                })
                .collect()
        })
        .collect();
    let shared: indexmap::IndexMap<&str, usize> = seen
        .iter()
        .filter(|(_, &count)| count > 1)
        .enumerate()
        .map(|(i, (row, _))| (row.as_str(), i))
        .collect();

    let mut out = String::from("[[");
    for (i, row) in shared.keys().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        out.push_str(row);
    }
    out.push_str("],\n[");
    for (i, (spec, params)) in specs.iter().zip(&rows).enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        let head = json!([spec.title, spec.path, spec.description]).to_string();
        out.push_str(&head[..head.len() - 1]);
        out.push_str(",[");
        for (j, row) in params.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            match shared.get(row.as_str()) {
                Some(index) => out.push_str(&index.to_string()),
                None => out.push_str(row),
            }
        }
        out.push_str("]]");
    }
    out.push_str("]]");
    escape_direction_controls(out)
}

/// `text` with each character that changes the direction of text written as a JSON `\u`
/// escape: Rust refuses them unescaped in a literal (`text_direction_codepoint_in_literal`),
/// and a raw string cannot escape them. They only occur inside JSON strings, where the escape
/// means the same character.
fn escape_direction_controls(text: String) -> String {
    // The characters of rustc's `text_direction_codepoint_in_literal`.
    let is_control = |c: char| {
        matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
    };
    if !text.contains(is_control) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_control(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// One parameter's row.
fn param_row(p: &ParamSpec) -> Value {
    let (form, text) = match &p.argv {
        ArgvForm::Argument(t) => ("argument", t),
        ArgvForm::Flag(t) => ("flag", t),
        ArgvForm::Joined(t) => ("joined", t),
        ArgvForm::Separate(t) => ("separate", t),
    };
    let flags = [
        (p.required, REQUIRED),
        (p.multiple, MULTIPLE),
        (p.global, GLOBAL),
    ]
    .iter()
    .filter(|(set, _)| *set)
    .fold(0, |flags, (_, bit)| flags | bit);
    let mut row = vec![
        json!(p.name),
        json!(p.description),
        json!(p.kind),
        json!(form),
        json!(text),
        json!(flags),
    ];
    if p.values.is_some() || p.default.is_some() || p.effects.is_some() {
        row.push(json!(p.values));
    }
    if p.default.is_some() || p.effects.is_some() {
        row.push(json!(p.default));
    }
    if let Some(effects) = &p.effects {
        row.push(json!(effects));
    }
    Value::Array(row)
}

/// The specs of `table` (written by [`encode`]), one per row of `commands` — each command's
/// flattened name and merged effects, in declaration order (a generated module's `EFFECTS`).
/// Texts borrow from `table` unless JSON escaped them.
///
/// # Errors
///
/// [`SpecTableError`] when `table` is not version 1 of the format, refers to a shared
/// parameter it does not have, or has a row count other than `commands.len()`.
pub fn decode(
    table: &'static str,
    commands: &'static [(&'static str, Effects)],
) -> Result<Vec<ToolSpec>, SpecTableError> {
    let (shared, rows): (Vec<ParamRow>, Vec<CommandRow>) =
        serde_json::from_str(table).map_err(|e| SpecTableError(e.to_string()))?;
    let shared = shared
        .into_iter()
        .map(|row| match row {
            ParamRow::Inline(p) => Ok(p),
            ParamRow::Shared(i) => Err(SpecTableError(format!(
                "shared parameter refers to shared parameter {i}"
            ))),
        })
        .collect::<Result<Vec<ParamSpec>, _>>()?;
    if rows.len() != commands.len() {
        return Err(SpecTableError(format!(
            "{} command rows for {} commands",
            rows.len(),
            commands.len()
        )));
    }
    rows.into_iter()
        .zip(commands)
        .map(|(row, (name, effects))| {
            let params = row
                .params
                .into_iter()
                .map(|p| match p {
                    ParamRow::Inline(p) => Ok(p),
                    ParamRow::Shared(i) => shared.get(i).cloned().ok_or_else(|| {
                        SpecTableError(format!(
                            "`{name}` refers to shared parameter {i} of {}",
                            shared.len()
                        ))
                    }),
                })
                .collect::<Result<Vec<ParamSpec>, _>>()?;
            Ok(ToolSpec {
                name: Cow::Borrowed(name),
                title: row.title.0,
                path: Cow::Owned(row.path.into_iter().map(|t| t.0).collect()),
                description: row.description.0,
                effects: effects.clone(),
                params: Cow::Owned(params),
            })
        })
        .collect()
}

/// A text of the table: borrowed from it unless JSON escaped it.
struct TableText(Cow<'static, str>);

impl<'de: 'static> Deserialize<'de> for TableText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(TextVisitor)
    }
}

struct TextVisitor;

impl<'de: 'static> Visitor<'de> for TextVisitor {
    type Value = TableText;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<TableText, E> {
        Ok(TableText(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<TableText, E> {
        Ok(TableText(Cow::Owned(text.to_owned())))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<TableText, E> {
        Ok(TableText(Cow::Owned(text)))
    }
}

/// `[title, path, description, params]`.
#[derive(Deserialize)]
#[serde(bound = "'de: 'static")]
struct CommandRow {
    title: TableText,
    path: Vec<TableText>,
    description: TableText,
    params: Vec<ParamRow>,
}

/// A parameter: a shared one's index, or the whole row.
enum ParamRow {
    Shared(usize),
    Inline(ParamSpec),
}

impl<'de: 'static> Deserialize<'de> for ParamRow {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ParamVisitor)
    }
}

struct ParamVisitor;

impl<'de: 'static> Visitor<'de> for ParamVisitor {
    type Value = ParamRow;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a shared parameter's index or a parameter row")
    }

    fn visit_u64<E: de::Error>(self, index: u64) -> Result<ParamRow, E> {
        usize::try_from(index)
            .map(ParamRow::Shared)
            .map_err(|_| E::custom("shared parameter index out of range"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ParamRow, A::Error> {
        fn part<'de: 'static, A: SeqAccess<'de>, T: Deserialize<'de>>(
            seq: &mut A,
            what: &str,
        ) -> Result<T, A::Error> {
            seq.next_element()?
                .ok_or_else(|| de::Error::custom(format_args!("parameter row without {what}")))
        }
        let name: TableText = part(&mut seq, "a name")?;
        let description: TableText = part(&mut seq, "a description")?;
        let kind: ValueKind = part(&mut seq, "a kind")?;
        let form: TableText = part(&mut seq, "an argv form")?;
        let text: TableText = part(&mut seq, "a flag")?;
        let text: Text = text.0;
        let argv = match &*form.0 {
            "argument" => ArgvForm::Argument(text),
            "flag" => ArgvForm::Flag(text),
            "joined" => ArgvForm::Joined(text),
            "separate" => ArgvForm::Separate(text),
            other => {
                return Err(de::Error::custom(format_args!(
                    "unknown argv form `{other}`"
                )))
            }
        };
        let flags: u64 = part(&mut seq, "flags")?;
        if flags & !(REQUIRED | MULTIPLE | GLOBAL) != 0 {
            return Err(de::Error::custom(format_args!("unknown flags {flags}")));
        }
        let values: Option<Option<Vec<TableText>>> = seq.next_element()?;
        let default: Option<Option<TableText>> = seq.next_element()?;
        let effects: Option<Effects> = seq.next_element()?;
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom("parameter row longer than nine parts"));
        }
        Ok(ParamRow::Inline(ParamSpec {
            name: match name.0 {
                Cow::Borrowed(s) => Shared::Static(s),
                Cow::Owned(s) => Shared::from(s),
            },
            description: description.0,
            kind,
            required: flags & REQUIRED != 0,
            multiple: flags & MULTIPLE != 0,
            values: values
                .flatten()
                .map(|v| Cow::Owned(v.into_iter().map(|t| t.0).collect())),
            default: default.flatten().map(|t| t.0),
            argv,
            global: flags & GLOBAL != 0,
            effects: effects.map(Shared::new),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &'static str, params: Vec<ParamSpec>) -> ToolSpec {
        ToolSpec {
            name: Cow::Borrowed(name),
            title: Cow::Borrowed("gh pr create"),
            path: Cow::Borrowed(&[Cow::Borrowed("pr"), Cow::Borrowed("create")]),
            description: Cow::Borrowed("Create a pull request"),
            effects: Effects::UNKNOWN,
            params: Cow::Owned(params),
        }
    }

    fn leak<T>(v: T) -> &'static T {
        Box::leak(Box::new(v))
    }

    #[test]
    fn a_table_reads_back_as_the_specs_it_was_written_from() {
        let repo = ParamSpec::option(
            "repo",
            "Repository \"owner/name\" \u{202e}",
            ValueKind::String,
            "--repo",
        )
        .global();
        let specs = vec![
            spec(
                "gh_pr_create",
                vec![
                    ParamSpec::argument("file_name", "A file\nto attach", ValueKind::File)
                        .declared_as("file-name")
                        .required()
                        .multiple(),
                    ParamSpec::short_option("state", "State", ValueKind::Enum, "-s")
                        .values(&[Cow::Borrowed("open"), Cow::Borrowed("closed")])
                        .default("open"),
                    ParamSpec::option("limit", "Most to list", ValueKind::Integer, "--limit")
                        .default("30"),
                    ParamSpec::flag("web", "Open a browser", "--web"),
                    repo.clone(),
                ],
            ),
            spec("gh_pr_list", vec![repo.clone()]),
            spec("gh_pr_view", vec![]),
        ];
        let text: &'static str = leak(encode(&specs));
        // The shared option is written once, and every command has a line of its own.
        assert_eq!(text.matches("--repo").count(), 1, "{text}");
        assert_eq!(text.lines().count(), 6, "{text}");
        assert!(
            !text.contains('\u{202e}') && text.contains("\\u202e"),
            "{text}"
        );
        let effects: &'static [(&'static str, Effects)] = leak([
            ("gh_pr_create", Effects::UNKNOWN.with_network(true)),
            ("gh_pr_list", Effects::UNKNOWN),
            ("gh_pr_view", Effects::UNKNOWN),
        ]);
        let decoded = decode(text, effects).unwrap();
        let mut expected = specs;
        expected[0].effects = Effects::UNKNOWN.with_network(true);
        assert_eq!(decoded, expected);
        // Texts without escapes are borrowed from the table.
        assert!(matches!(decoded[0].title, Cow::Borrowed(_)));
        assert!(matches!(decoded[0].params[4].name, Shared::Static(_)));
        assert!(matches!(decoded[0].params[0].description, Cow::Owned(_)));
    }

    #[test]
    fn a_malformed_table_is_an_error_that_says_what_is_wrong() {
        let none: &'static [(&'static str, Effects)] = &[];
        let one: &'static [(&'static str, Effects)] = leak([("t", Effects::UNKNOWN)]);
        for (table, commands, expected) in [
            ("", none, "EOF"),
            ("[[],[]]", one, "0 command rows for 1 commands"),
            (
                "[[],[[\"t\",[],\"d\",[0]]]]",
                one,
                "refers to shared parameter 0 of 0",
            ),
            ("[[3],[]]", none, "refers to shared parameter 3"),
            (
                "[[],[[\"t\",[],\"d\",[[\"n\",\"d\",\"text\",\"flag\",\"-n\",0]]]]]",
                one,
                "unknown variant `text`",
            ),
            (
                "[[],[[\"t\",[],\"d\",[[\"n\",\"d\",\"string\",\"joined\",\"-n\",8]]]]]",
                one,
                "unknown flags 8",
            ),
            (
                "[[],[[\"t\",[],\"d\",[[\"n\",\"d\",\"string\",\"joined\"]]]]]",
                one,
                "without a flag",
            ),
        ] {
            let e = decode(table, commands).unwrap_err().to_string();
            assert!(e.contains(expected), "{table}: {e}");
        }
    }
}
