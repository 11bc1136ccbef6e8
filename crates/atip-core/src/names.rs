//! Provider-valid tool and parameter names.
//!
//! Every provider must accept the same names, so both follow the strictest rule among them:
//!
//! * tool names: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$` (OpenAI, Anthropic, Gemini and MCP accept it);
//! * parameter names: `^[A-Za-z_][A-Za-z0-9_]{0,63}$` (Gemini allows no `-`, so `dry-run`
//!   becomes `dry_run`).
//!
//! Characters outside the allowed set become `_`, a name that does not start with a letter
//! or `_` gets a leading `_`, and a name longer than 64 characters is cut to 55 and ends with
//! `_` and 8 hex digits of a stable hash (64-bit FNV-1a) of the unsanitised name. The result
//! depends only on the input, never on the platform or the crate version.

/// Longest tool or parameter name, in characters.
pub const MAX_NAME_LEN: usize = 64;

/// The flattened tool name of a command: `{tool}_{path…}` joined with `_`, made valid.
///
/// `path` holds the declared command names from the root down; `""` segments (a command
/// standing for its parent) are skipped, so `("git", ["stash", ""])` gives `git_stash` and
/// `("hello", [""])` gives `hello`.
pub fn tool_name<S: AsRef<str>>(tool: &str, path: &[S]) -> String {
    let mut raw = tool.to_owned();
    for seg in path.iter().map(AsRef::as_ref).filter(|s| !s.is_empty()) {
        raw.push('_');
        raw.push_str(seg);
    }
    sanitize(&raw, true)
}

/// The order of a generated `Call`'s dispatch table, which a tool call's name is looked up
/// in by binary search: shorter names first, names of one length byte by byte. Most
/// comparisons are settled by the lengths, and the rest by comparing bytes in place, which is
/// faster than `memcmp` for names sharing a long prefix (`gh_pr_…`).
#[inline]
pub fn dispatch_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.bytes().cmp(b.bytes()))
}

/// A provider-valid parameter name for an argument or option name (`dry-run` → `dry_run`).
pub fn param_name(declared: &str) -> String {
    sanitize(declared, false)
}

fn sanitize(raw: &str, allow_dash: bool) -> String {
    let mut out = String::with_capacity(raw.len() + 1);
    for c in raw.chars() {
        let ok = c.is_ascii_alphanumeric() || c == '_' || (allow_dash && c == '-');
        out.push(if ok { c } else { '_' });
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    if out.len() > MAX_NAME_LEN {
        out.truncate(MAX_NAME_LEN - 9);
        while out.len() > 1 && out.ends_with(['_', '-']) {
            out.pop();
        }
        out.push_str(&format!("_{:08x}", fnv1a(raw.as_bytes()) as u32));
    }
    out
}

/// 64-bit FNV-1a: small, stable across platforms and releases.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Whether `name` is a valid tool name for every provider.
pub fn is_valid_tool_name(name: &str) -> bool {
    valid(name, true)
}

/// Whether `name` is a valid parameter name for every provider.
pub fn is_valid_param_name(name: &str) -> bool {
    valid(name, false)
}

fn valid(name: &str, allow_dash: bool) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && name.len() <= MAX_NAME_LEN
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (allow_dash && c == '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_paths_and_skips_empty_segments() {
        assert_eq!(tool_name("gh", &["pr", "create"]), "gh_pr_create");
        assert_eq!(tool_name("hello", &[""]), "hello");
        assert_eq!(tool_name("git", &["stash", ""]), "git_stash");
        assert_eq!(tool_name("gh", &["gpg-key", "list"]), "gh_gpg-key_list");
        assert_eq!(tool_name::<&str>("ls", &[]), "ls");
    }

    #[test]
    fn sanitises_characters_and_leading_digits() {
        assert_eq!(param_name("dry-run"), "dry_run");
        assert_eq!(param_name("no.color"), "no_color");
        assert_eq!(param_name("2fa"), "_2fa");
        assert_eq!(param_name("ñame"), "_ame");
        assert_eq!(param_name(""), "_");
        assert_eq!(tool_name("7z", &["a"]), "_7z_a");
        assert_eq!(tool_name("t", &["a b"]), "t_a_b");
    }

    #[test]
    fn long_names_get_a_stable_hash_suffix() {
        let long = "x".repeat(100);
        let a = tool_name("aws", &[long.as_str()]);
        assert_eq!(a.len(), MAX_NAME_LEN);
        assert!(is_valid_tool_name(&a));
        assert_eq!(a, tool_name("aws", &[long.as_str()]), "deterministic");
        let other = format!("{long}y");
        let b = tool_name("aws", &[other.as_str()]);
        assert_ne!(a, b, "different inputs keep different names");
        assert_eq!(&a[..55], &b[..55]);
        // FNV-1a reference value, so the suffix never changes between releases.
        assert_eq!(fnv1a(b"a"), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn every_output_is_valid() {
        for raw in [
            "",
            "-",
            "--x",
            "a-b",
            "é",
            "x".repeat(70).as_str(),
            "9",
            "_",
        ] {
            assert!(is_valid_tool_name(&tool_name(raw, &["y"])), "{raw:?}");
            assert!(is_valid_param_name(&param_name(raw)), "{raw:?}");
        }
    }
}
