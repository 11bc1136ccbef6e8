//! Descriptions as a model reads them: the safety flags of spec §8.2 rule 1, cutting to a
//! provider's limit without cutting the flags, parameter descriptions (spec §8.2 rule 4), and
//! MCP's tool annotations from the same effects.

use serde_json::{json, Map, Value};

use crate::effects::Effects;
use crate::tool::{ParamSpec, ToolSpec};

/// The safety flags of spec §8.2 rule 1 that `effects` calls for, in the spec's order.
pub fn safety_flags(effects: &Effects) -> Vec<&'static str> {
    let mut flags = Vec::new();
    if effects.destructive == Some(true) {
        flags.push("⚠️ DESTRUCTIVE");
    }
    if effects.reversible == Some(false) {
        flags.push("⚠️ NOT REVERSIBLE");
    }
    if effects.idempotent == Some(false) {
        flags.push("⚠️ NOT IDEMPOTENT");
    }
    if effects.billable() == Some(true) {
        flags.push("💰 BILLABLE");
    }
    if is_read_only(effects) {
        flags.push("🔒 READ-ONLY");
    }
    flags
}

/// Spec §8.2 rule 1's read-only: `filesystem.write` and `network` both declared `false` — and
/// nothing that contradicts it: a command declared `destructive: true` or
/// `filesystem.delete: true` is never read-only, whatever its write and network flags say (MCP
/// clients auto-approve tools marked `readOnlyHint`).
pub fn is_read_only(effects: &Effects) -> bool {
    effects.filesystem_write() == Some(false)
        && effects.network == Some(false)
        && effects.destructive != Some(true)
        && effects.filesystem_delete() != Some(true)
}

/// `"{text} [{flags}]"`, cut to `limit` characters by shortening the text (ending it with
/// `...`) so that the flags always survive whole.
pub fn describe(text: &str, effects: &Effects, limit: Option<usize>) -> String {
    let flags: Vec<String> = safety_flags(effects)
        .into_iter()
        .map(str::to_owned)
        .collect();
    describe_with_flags(text, &flags, limit)
}

/// The description of `spec` as a model reads it: [`describe`] with the flags of its widest
/// effects ([`ToolSpec::widest_effects`]: the union over every parameter that declares effects
/// of its own), a flag that only parameters bring naming them — `"Push commits [⚠️
/// DESTRUCTIVE (with --force)]"` — so a model knows the command is routine without them.
pub fn describe_tool(spec: &ToolSpec, limit: Option<usize>) -> String {
    describe_with_flags(&spec.description, &tool_safety_flags(spec), limit)
}

/// The safety flags of `spec`'s widest effects, in the spec's order, each one that only
/// parameters bring followed by them: `⚠️ DESTRUCTIVE (with --force)` ([`describe_tool`]).
pub fn tool_safety_flags(spec: &ToolSpec) -> Vec<String> {
    let widest = spec.widest_effects();
    let own = safety_flags(&spec.effects);
    safety_flags(&widest)
        .into_iter()
        .map(|flag| {
            if own.contains(&flag) {
                return flag.to_owned();
            }
            let labels: Vec<&str> = spec
                .params_with_effects()
                .filter(|(_, e)| safety_flags(&spec.effects.raised_by(e)).contains(&flag))
                .map(|(p, _)| p.argv.label())
                .collect();
            format!("{flag} (with {})", labels.join(" or "))
        })
        .collect()
}

/// `"{text} [{flags}]"` (flags joined with ` | `; just the text without flags), cut to `limit`
/// characters by shortening the text, flags whole: [`describe`] with flags already worked out
/// (e.g. by [`tool_safety_flags`]).
pub fn describe_with_flags(text: &str, flags: &[String], limit: Option<usize>) -> String {
    let suffix = if flags.is_empty() {
        String::new()
    } else {
        format!("[{}]", flags.join(" | "))
    };
    let text = text.trim();
    let joined_len = |t: usize| {
        if suffix.is_empty() {
            t
        } else if t == 0 {
            suffix.chars().count()
        } else {
            t + 1 + suffix.chars().count()
        }
    };
    let mut body: String = text.to_owned();
    if let Some(limit) = limit {
        if joined_len(text.chars().count()) > limit {
            let room = limit
                .saturating_sub(joined_len(0))
                .saturating_sub(if suffix.is_empty() { 0 } else { 1 });
            body = if room > 3 {
                format!("{}...", cut_graphemes(text, room - 3).trim_end())
            } else {
                String::new()
            };
        }
    }
    match (body.is_empty(), suffix.is_empty()) {
        (_, true) => body,
        (true, false) => suffix,
        (false, false) => format!("{body} {suffix}"),
    }
}

/// The longest prefix of `text` of at most `chars` characters that ends on an extended
/// grapheme cluster boundary (UAX #29), so a cut never splits an emoji, a flag or a letter from
/// its combining marks.
fn cut_graphemes(text: &str, chars: usize) -> &str {
    use unicode_segmentation::UnicodeSegmentation;
    let mut count = 0;
    let mut end = 0;
    for (at, g) in text.grapheme_indices(true) {
        count += g.chars().count();
        if count > chars {
            break;
        }
        end = at + g.len();
    }
    &text[..end]
}

/// The description of a parameter as sent to the model: its text, the format hint (spec §8.2
/// rule 4), the tool's default, and the safety flags of the effects giving it adds
/// ([`ParamSpec::effects`]: `(giving it: ⚠️ DESTRUCTIVE)`).
pub fn param_description(p: &ParamSpec) -> String {
    let mut out = p.description.trim().to_owned();
    if let Some(hint) = p.kind.format_hint() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&format!("({hint})"));
    }
    if let Some(default) = &p.default {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&format!("Default: {default}."));
    }
    if let Some(effects) = &p.effects {
        let flags = safety_flags(effects);
        let flags: Vec<&str> = flags
            .into_iter()
            .filter(|f| !f.contains("READ-ONLY"))
            .collect();
        if !flags.is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&format!("(giving it: {})", flags.join(", ")));
        }
    }
    out
}

/// MCP tool annotations from effects (MCP spec `ToolAnnotations`): `readOnlyHint` from spec
/// §8.2 rule 1's read-only ([`is_read_only`]), `destructiveHint` from `destructive` (left out
/// when read-only, which a destructive command never is),
/// `idempotentHint` from `idempotent`, `openWorldHint` from `network`. Unknown effects leave
/// the hint out, so MCP's conservative defaults apply.
pub fn mcp_annotations(effects: &Effects) -> Map<String, Value> {
    let mut ann = Map::new();
    let read_only = is_read_only(effects);
    if read_only {
        ann.insert("readOnlyHint".into(), json!(true));
    } else if effects.filesystem_write() == Some(true)
        || effects.filesystem_delete() == Some(true)
        || effects.destructive == Some(true)
    {
        ann.insert("readOnlyHint".into(), json!(false));
    }
    if let (Some(d), false) = (effects.destructive, read_only) {
        ann.insert("destructiveHint".into(), json!(d));
    }
    if let Some(i) = effects.idempotent {
        ann.insert("idempotentHint".into(), json!(i));
    }
    if let Some(n) = effects.network {
        ann.insert("openWorldHint".into(), json!(n));
    }
    ann
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ValueKind;

    fn effects(json: &str) -> Effects {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn flags_follow_the_spec_order() {
        let e = effects(
            r#"{"destructive": true, "reversible": false, "idempotent": false, "cost": {"billable": true}}"#,
        );
        assert_eq!(
            describe("Delete a repository", &e, None),
            "Delete a repository [⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE | ⚠️ NOT IDEMPOTENT | 💰 BILLABLE]"
        );
        let ro = effects(r#"{"filesystem": {"write": false}, "network": false}"#);
        assert_eq!(describe("Show", &ro, None), "Show [🔒 READ-ONLY]");
        assert_eq!(describe("Plain", &Effects::UNKNOWN, None), "Plain");
        let half = effects(r#"{"filesystem": {"write": false}}"#);
        assert_eq!(
            describe("Show", &half, None),
            "Show",
            "network unknown: not read-only"
        );
    }

    #[test]
    fn destructive_or_deleting_commands_are_never_read_only() {
        // The lie of issue 12: no writes, no network, yet destructive.
        for e in [
            r#"{"destructive": true, "filesystem": {"write": false}, "network": false}"#,
            r#"{"filesystem": {"write": false, "delete": true}, "network": false}"#,
        ] {
            let e = effects(e);
            assert!(!is_read_only(&e), "{e:?}");
            assert!(!describe("Drop", &e, None).contains("READ-ONLY"));
            let ann = mcp_annotations(&e);
            assert_eq!(ann.get("readOnlyHint"), Some(&json!(false)), "{ann:?}");
        }
        let lying =
            effects(r#"{"destructive": true, "filesystem": {"write": false}, "network": false}"#);
        assert_eq!(
            mcp_annotations(&lying).get("destructiveHint"),
            Some(&json!(true))
        );
        let honest = effects(
            r#"{"destructive": false, "filesystem": {"write": false, "delete": false}, "network": false}"#,
        );
        assert!(is_read_only(&honest));
        assert_eq!(
            mcp_annotations(&honest).get("readOnlyHint"),
            Some(&json!(true))
        );
    }

    #[test]
    fn a_cut_never_splits_a_grapheme_cluster() {
        let e = effects(r#"{"destructive": true}"#);
        // A family emoji is 7 chars (4 people joined by 3 ZWJs); an "e" with a combining acute
        // accent is 2. Whatever the limit, the text before "..." ends on a cluster boundary.
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}";
        let text = format!("{}{}", "e\u{301}".repeat(300), family.repeat(200));
        for limit in 40..1024 {
            let d = describe(&text, &e, Some(limit));
            assert!(d.chars().count() <= limit, "{limit}");
            let body = d.strip_suffix("... [⚠️ DESTRUCTIVE]").expect("flags kept");
            assert!(text.starts_with(body));
            let rest = &text[body.len()..];
            assert!(
                rest.starts_with("e\u{301}") || rest.starts_with(family),
                "limit {limit} split a cluster: {:?}",
                rest.chars().take(3).collect::<String>()
            );
        }
    }

    #[test]
    fn truncation_cuts_the_text_and_keeps_the_flags() {
        let e = effects(r#"{"destructive": true, "reversible": false}"#);
        let long = "word ".repeat(400);
        let d = describe(&long, &e, Some(1024));
        assert!(
            d.chars().count() <= 1024 && d.chars().count() > 1000,
            "{}",
            d.chars().count()
        );
        assert!(
            d.ends_with("... [⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE]"),
            "{d}"
        );
        // Emoji and multi-byte text count as characters, not bytes.
        let wide = "é".repeat(2000);
        let d = describe(&wide, &e, Some(1024));
        assert!(d.chars().count() <= 1024);
        assert!(d.ends_with("[⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE]"));
        // Short text is untouched.
        assert_eq!(
            describe("x", &e, Some(1024)),
            "x [⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE]"
        );
    }

    #[test]
    fn parameter_descriptions_carry_format_and_default() {
        let mut p = param("out", ValueKind::File, false);
        p.default = Some("a.txt".into());
        assert_eq!(param_description(&p), "d (file path) Default: a.txt.");
        let mut u = param("u", ValueKind::Url, false);
        u.description = "".into();
        assert_eq!(param_description(&u), "(URL)");
    }

    fn param(name: &'static str, kind: ValueKind, required: bool) -> ParamSpec {
        let p = ParamSpec::option(name, "d", kind, "--x");
        if required {
            p.required()
        } else {
            p
        }
    }
}
