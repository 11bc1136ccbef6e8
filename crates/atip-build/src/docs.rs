//! Rustdoc text from metadata descriptions.
//!
//! Descriptions come from tools and shims, so they are treated as untrusted text: each line
//! becomes its own `#[doc = "…"]` string literal (nothing in it can end the attribute or the
//! comment), control characters and Unicode bidirectional overrides (which rustc rejects in
//! comments) are written as visible `\u{…}` escapes, and the Markdown that rustdoc would
//! misread is neutralised: `[`, `]`, `<`, `>` are escaped and bare `http(s)://` URLs are
//! wrapped in `<…>`. No description can open a code block, which `cargo test --doc` of the
//! user's crate would compile and run: lines lose their leading whitespace (no indented
//! blocks) and a leading ```` ``` ```` or `~~~` fence is escaped.

use atip_core::Effects;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// `#[doc = " line"]` attributes for `text`, one per line.
pub fn doc_attrs(text: &str) -> TokenStream {
    let mut out = TokenStream::new();
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    for line in normalized.split('\n') {
        let line = markdown_line(&no_fence(&visible(line.trim())));
        let lit = Literal::string(&if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        });
        out.extend(quote!(#[doc = #lit]));
    }
    out
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

/// A field's doc text: the parameter's description, then how it goes on the command line,
/// the tool's default, its environment variable and its listed values.
pub fn param_doc(p: &atip_core::FlatParam) -> String {
    use atip_core::flatten::{OptionScope, ParamPlacement};
    let mut text = p.description.clone();
    let mut notes: Vec<String> = Vec::new();
    match &p.kind {
        ParamPlacement::Argument => notes.push("Positional argument.".to_owned()),
        ParamPlacement::Option { flag, scope } => {
            let from = match scope {
                OptionScope::Global => " (global option)",
                OptionScope::Inherited => " (inherited)",
                OptionScope::Own => "",
            };
            notes.push(format!("Flag `{}`{from}.", flag.text));
        }
    }
    if let Some(default) = &p.default {
        let default = match &**default {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        notes.push(format!("Tool default: `{default}`."));
    }
    if let Some(var) = &p.env_var {
        notes.push(format!("Environment variable: `{var}`."));
    }
    if !p.listed_values.is_empty() {
        notes.push(format!("Allowed values: {}.", p.listed_values.join(", ")));
    }
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(&notes.join(" "));
    text
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
        let attrs = doc_attrs("one\r\ntwo */ #[x]").to_string();
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
        let docs =
            doc_attrs("intro\n```rust\nevil();\n```\n    indented();\n~~~\nx\n~~~").to_string();
        assert!(docs.contains(r#"" \\```rust""#), "{docs}");
        assert!(docs.contains(r#"" \\```""#), "{docs}");
        assert!(docs.contains(r#"" indented();""#), "{docs}");
        assert!(docs.contains(r#"" \\~~~""#), "{docs}");
    }
}
