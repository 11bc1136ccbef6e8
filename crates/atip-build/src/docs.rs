//! Rustdoc text of generated items.
//!
//! Two kinds of text meet there. The generator's own sentences are Markdown as written, with
//! links to the generated items (`[`TOOLS`]`) and code spans. What they quote from metadata —
//! descriptions, names, flags, defaults — comes from tools and shims and is treated as
//! untrusted text, escaped for where it goes: [`escape_block`] for a whole
//! description, [`text`] for running text, [`code`] for a code span. [`own_doc`] turns the
//! finished text into attributes.
//!
//! Escaping: each line becomes its own `#[doc = "…"]` string literal (nothing in it can end the
//! attribute or the comment), control characters and Unicode bidirectional overrides (which
//! rustc rejects in comments) are written as visible `\u{…}` escapes, and the Markdown that
//! rustdoc would misread is neutralised: `[`, `]`, `<`, `>` are escaped and bare `http(s)://`
//! URLs are wrapped in `<…>`. No description can open a code block, which `cargo test --doc`
//! of the user's crate would compile and run: lines lose their leading whitespace (no indented
//! blocks), a leading ```` ``` ```` or `~~~` fence is escaped, and a code span never uses a
//! fence of three backticks.

use atip_core::Effects;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// `#[doc = " line"]` attributes for the generator's own Markdown `text`, one per line, each
/// line trimmed. Whatever `text` quotes from metadata must already be escaped ([`code`],
/// [`text`], [`escape_block`]).
pub fn own_doc(text: &str) -> TokenStream {
    let mut out = TokenStream::new();
    for line in text.split('\n') {
        let line = line.trim();
        let lit = Literal::string(&if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        });
        out.extend(quote!(#[doc = #lit]));
    }
    out
}

/// Metadata text as Markdown lines that read as the text itself: line ends normalised, each
/// line trimmed, made visible, unfenced and escaped (see the module documentation).
pub fn escape_block(text: &str) -> String {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    normalized
        .split('\n')
        .map(|line| markdown_line(&no_fence(&visible(line.trim()))))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Metadata text for running text on one line: as [`escape_block`], its lines joined with
/// spaces.
pub fn text(text: &str) -> String {
    escape_block(text)
        .split('\n')
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Metadata text as a Markdown code span (a flag, a name, a value): fenced with one more
/// backtick than its longest run of backticks, padded with a space when it starts or ends with
/// one. Text with a run of two or more backticks would need a fence of three, which at the start
/// of a line opens a code block: it is written as escaped running text instead ([`text`], its
/// backticks escaped).
pub fn code(text: &str) -> String {
    let one_line = visible(&text.replace("\r\n", " ").replace(['\r', '\n'], " "));
    let mut longest = 0;
    let mut run = 0;
    for c in one_line.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if longest >= 2 {
        return markdown_line(&one_line).replace('`', "\\`");
    }
    if one_line.is_empty() {
        return "` `".to_owned();
    }
    let fence = "`".repeat(longest + 1);
    let pad = if one_line.starts_with('`') || one_line.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{one_line}{pad}{fence}")
}

/// `line` (already trimmed) with a leading code fence escaped, so it stays text.
fn no_fence(line: &str) -> String {
    if line.starts_with("```") || line.starts_with("~~~") {
        format!("\\{line}")
    } else {
        line.to_owned()
    }
}

/// Replaces characters that must not appear raw in a comment with `\u{…}` escapes.
fn visible(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        let bidi = matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}');
        if (c.is_control() && c != '\t') || bidi || c == '\u{FEFF}' {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

fn markdown_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let mut rest = line;
    while !rest.is_empty() {
        if rest.starts_with("https://") || rest.starts_with("http://") {
            let end = rest
                .find(|c: char| {
                    c.is_whitespace() || matches!(c, '<' | '>' | '"' | '\'' | '`' | ')' | ']')
                })
                .unwrap_or(rest.len());
            let url = rest[..end].trim_end_matches(['.', ',', ';', ':']);
            out.push('<');
            out.push_str(url);
            out.push('>');
            rest = &rest[url.len()..];
            continue;
        }
        let c = rest.chars().next().unwrap_or_default();
        if matches!(c, '[' | ']' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// A short English summary of known effects, e.g. `destructive, not reversible, network`;
/// `none declared` when nothing is known.
pub fn effects_summary(e: &Effects) -> String {
    let mut parts: Vec<String> = Vec::new();
    let flag = |parts: &mut Vec<String>, v: Option<bool>, yes: &str, no: &str| match v {
        Some(true) => parts.push(yes.to_owned()),
        Some(false) => parts.push(no.to_owned()),
        None => {}
    };
    flag(&mut parts, e.destructive, "destructive", "not destructive");
    flag(&mut parts, e.reversible, "reversible", "not reversible");
    flag(&mut parts, e.idempotent, "idempotent", "not idempotent");
    flag(&mut parts, e.network, "network", "no network");
    if let Some(fs) = &e.filesystem {
        flag(&mut parts, fs.read, "reads files", "reads no files");
        flag(&mut parts, fs.write, "writes files", "writes no files");
        flag(&mut parts, fs.delete, "deletes files", "deletes no files");
    }
    flag(
        &mut parts,
        e.subprocess,
        "starts subprocesses",
        "no subprocesses",
    );
    flag(&mut parts, e.billable(), "billable", "not billable");
    if let Some(est) = e.cost_estimate() {
        parts.push(format!("cost {}", est.as_str()));
    }
    let needs = e.interactive_requirements();
    if !needs.is_empty() {
        parts.push(format!("interactive ({})", needs.join(", ")));
    }
    if let Some(t) = e.timeout_hint() {
        parts.push(format!("timeout {t}"));
    }
    if parts.is_empty() {
        "none declared".to_owned()
    } else {
        parts.join(", ")
    }
}

/// A field's doc text, escaped (for [`own_doc`]): the parameter's description, then how it
/// goes on the command line, the tool's default, its environment variable and its listed
/// values.
pub fn param_doc(p: &atip_core::FlatParam) -> String {
    use atip_core::flatten::{OptionScope, ParamPlacement};
    let mut out = escape_block(&p.description);
    let mut notes: Vec<String> = Vec::new();
    match &p.kind {
        ParamPlacement::Argument => notes.push("Positional argument.".to_owned()),
        ParamPlacement::Option { flag, scope } => {
            let from = match scope {
                OptionScope::Global => " (global option)",
                OptionScope::Inherited => " (inherited)",
                OptionScope::Own => "",
            };
            notes.push(format!("Flag {}{from}.", code(&flag.text)));
        }
    }
    if let Some(default) = &p.default {
        let default = match &**default {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        notes.push(format!("Tool default: {}.", code(&default)));
    }
    if let Some(var) = &p.env_var {
        notes.push(format!("Environment variable: {}.", code(var)));
    }
    if let Some(effects) = &p.effects {
        notes.push(format!(
            "Effects when given (added to the command's; see `Command::effects`): {}.",
            text(&effects_summary(effects))
        ));
    }
    if !p.listed_values.is_empty() {
        notes.push(format!(
            "Allowed values: {}.",
            text(&p.listed_values.join(", "))
        ));
    }
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(&notes.join(" "));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markdown_and_hostile_characters() {
        assert_eq!(
            markdown_line("[HOST/]OWNER <dir>"),
            "\\[HOST/\\]OWNER \\<dir\\>"
        );
        assert_eq!(
            markdown_line("see https://cli.github.com."),
            "see <https://cli.github.com>."
        );
        assert_eq!(visible("a\u{202E}b\u{0}c\td"), "a\\u{202e}b\\u{0}c\td");
        let attrs = own_doc(&escape_block("one\r\ntwo */ #[x]")).to_string();
        assert!(attrs.contains("\" one\""), "{attrs}");
        assert!(attrs.contains("\" two */ #\\\\[x\\\\]\""), "{attrs}");
    }

    #[test]
    fn summarises_known_effects_only() {
        let e: Effects =
            serde_json::from_str(r#"{"destructive": true, "reversible": false, "network": true}"#)
                .unwrap();
        assert_eq!(effects_summary(&e), "destructive, not reversible, network");
        assert_eq!(effects_summary(&Effects::UNKNOWN), "none declared");
    }

    #[test]
    fn descriptions_cannot_open_code_blocks() {
        let docs = own_doc(&escape_block(
            "intro\n```rust\nevil();\n```\n    indented();\n~~~\nx\n~~~",
        ))
        .to_string();
        assert!(docs.contains(r#"" \\```rust""#), "{docs}");
        assert!(docs.contains(r#"" \\```""#), "{docs}");
        assert!(docs.contains(r#"" indented();""#), "{docs}");
        assert!(docs.contains(r#"" \\~~~""#), "{docs}");
    }

    #[test]
    fn code_spans_hold_any_text_and_never_open_a_block() {
        assert_eq!(code("--repo"), "`--repo`");
        assert_eq!(code("#[x] <a>"), "`#[x] <a>`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`a"), "`` `a ``");
        assert_eq!(code(""), "` `");
        assert_eq!(code("a\nb"), "`a b`");
        assert_eq!(code("x\u{202e}"), "`x\\u{202e}`");
        // A run of two backticks would need a fence of three: escaped running text instead.
        assert_eq!(code("``[x]``"), "\\`\\`\\[x\\]\\`\\`");
    }

    #[test]
    fn own_text_keeps_its_links_and_metadata_stays_escaped() {
        let docs = own_doc(&format!(
            "computed from [`TOOLS`] for {}",
            text("[HOST]/<x>")
        ))
        .to_string();
        assert!(
            docs.contains("computed from [`TOOLS`] for \\\\[HOST\\\\]/\\\\<x\\\\>"),
            "{docs}"
        );
        assert_eq!(text("one\n  two [x]"), "one two \\[x\\]");
    }
}
