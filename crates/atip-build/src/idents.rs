//! Rust identifiers from metadata names.
//!
//! * Types and enum variants are UpperCamelCase of the words of a name (`setup-git` →
//!   `SetupGit`, `list_all` → `ListAll`, `blue-green` → `BlueGreen`); letters after the first
//!   of a word keep their case, so `ALL` and `all` stay distinct (`ALL`, `All`).
//! * Fields and methods are snake_case (`dry-run` → `dry_run`, `dryRun` → `dry_run`).
//! * Non-ASCII characters become `u` and their hex code point, so every identifier is ASCII.
//! * A name that would start with a digit gets a leading `_`.
//! * Keywords become raw identifiers (`r#type`); those that cannot be raw (`self`, `Self`,
//!   `super`, `crate`, `_`) get a trailing `_`.
//! * Collisions inside one scope are resolved deterministically, in declaration order, by
//!   appending `2`, `3`, … (types, variants) or `_2`, `_3`, … (fields).

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, Span};

/// Keywords of every edition (strict and reserved), which need `r#` as identifiers.
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Splits a name into ASCII words: runs of letters and digits, with non-ASCII characters
/// spelled as `u{hex}` words, and lower→upper case changes starting a new word when
/// `split_humps` is set.
fn words(name: &str, split_humps: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower_or_digit = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if split_humps && c.is_ascii_uppercase() && prev_lower_or_digit && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            cur.push(c);
            prev_lower_or_digit = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if !c.is_ascii() {
                out.push(format!("u{:x}", c as u32));
            }
            prev_lower_or_digit = false;
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// UpperCamelCase of the words of `parts`; `None` when there are no words.
pub fn upper_camel<S: AsRef<str>>(parts: &[S]) -> Option<String> {
    let mut out = String::new();
    for part in parts {
        for w in words(part.as_ref(), false) {
            let mut chars = w.chars();
            if let Some(first) = chars.next() {
                out.push(first.to_ascii_uppercase());
                out.push_str(chars.as_str());
            }
        }
    }
    if out.is_empty() {
        return None;
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    Some(out)
}

/// snake_case of `name`; `param` when it has no words. `_` stays `_` (and later becomes
/// `__`).
pub fn snake(name: &str) -> String {
    if name == "_" {
        return "_".to_owned();
    }
    let joined = words(name, true)
        .into_iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    if joined.is_empty() {
        return "param".to_owned();
    }
    if joined.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{joined}")
    } else {
        joined
    }
}

/// An identifier for `name` (already cased), escaping keywords.
pub fn ident(name: &str) -> Ident {
    if NOT_RAW.contains(&name) {
        Ident::new(&format!("{name}_"), Span::call_site())
    } else if KEYWORDS.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// The text an identifier is written with (`r#type`, `self_`).
pub fn ident_text(name: &str) -> String {
    ident(name).to_string()
}

/// The name an identifier was made from ([`ident`] of it gives it back): `type` for
/// `r#type`.
pub fn unraw(name: &Ident) -> String {
    name.to_string().trim_start_matches("r#").to_owned()
}

/// Hands out unique names within one scope, in the order they are asked for.
#[derive(Debug, Default)]
pub struct Scope {
    taken: HashSet<String>,
    /// Who claimed each name, for [`Scope::claim_for`].
    owners: HashMap<String, String>,
    /// The next suffix to try for each base already claimed, so that k names on one base
    /// cost O(k), not O(k²).
    next: HashMap<String, usize>,
}

impl Scope {
    /// A scope in which `reserved` are already taken.
    pub fn with_reserved(reserved: &[&str]) -> Self {
        Scope {
            taken: reserved.iter().map(|s| (*s).to_owned()).collect(),
            owners: HashMap::new(),
            next: HashMap::new(),
        }
    }

    /// `base`, or `base` + `sep` + 2, 3, … if taken (no doubled `_`). Names are compared
    /// in the form they are written, so `self` (written `self_`) and `self_` collide.
    pub fn claim(&mut self, base: &str, sep: &str) -> String {
        let sep = if base.ends_with('_') && sep == "_" {
            ""
        } else {
            sep
        };
        let mut name = base.to_owned();
        let counter = self.next.entry(format!("{base}\0{sep}")).or_insert(2);
        while self.taken.contains(&ident_text(&name)) {
            name = format!("{base}{sep}{counter}");
            *counter += 1;
        }
        self.taken.insert(ident_text(&name));
        name
    }

    /// Whether `name` (in the form it is written) is taken.
    pub fn is_taken(&self, name: &str) -> bool {
        self.taken.contains(&ident_text(name))
    }

    /// [`Scope::claim`] for `owner` (a JSON path, say). When `base` was taken, also returns
    /// who took it: the owner that claimed it earlier, or `None` inside `Some` when the name
    /// is reserved.
    pub fn claim_for(
        &mut self,
        base: &str,
        sep: &str,
        owner: &str,
    ) -> (String, Option<Option<String>>) {
        let wanted = ident_text(base);
        let clash = self
            .taken
            .contains(&wanted)
            .then(|| self.owners.get(&wanted).cloned());
        let name = self.claim(base, sep);
        self.owners.insert(ident_text(&name), owner.to_owned());
        (name, clash)
    }
}

/// Type names the generated module never gives a command or an enum: the items and imports
/// of the generated module itself and the standard prelude, so nothing shadows what the
/// generated code and its users refer to.
pub const RESERVED_TYPES: &[&str] = &[
    // The generated module's own items and imports.
    "Call",
    "Globals",
    "SetGlobals",
    "ToolTable",
    "Arguments",
    "Command",
    "DispatchError",
    "Effects",
    "Enumeration",
    "Field",
    "ParamSpec",
    "PathBuf",
    "Provider",
    "ToolCall",
    "ToolSpec",
    "TrustSource",
    "ValueKind",
    "Borrowed",
    // The prelude and what derives and impls name.
    "Self",
    "Option",
    "Result",
    "String",
    "Vec",
    "Box",
    "Some",
    "None",
    "Ok",
    "Err",
    "Default",
    "Clone",
    "Copy",
    "Debug",
    "Send",
    "Sync",
    "Sized",
    "Unpin",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Eq",
    "PartialEq",
    "Ord",
    "PartialOrd",
    "Hash",
    "AsRef",
    "AsMut",
    "From",
    "Into",
    "TryFrom",
    "TryInto",
    "Iterator",
    "IntoIterator",
    "Extend",
    "FromIterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "ToOwned",
    "ToString",
];

/// Method names a command's setters never take: its constructor, the methods of the traits it
/// implements, and the `globals` setter. A parameter with one of these names gets a
/// `with_` setter (`with_new`); `globals` is the setter of the global options.
pub const RESERVED_METHODS: &[&str] = &[
    "new",
    "default",
    "clone",
    "clone_from",
    "eq",
    "ne",
    "fmt",
    "hash",
    "serialize",
    "deserialize",
    "argv",
    "try_argv",
    "write_argv",
    "fields",
    "from_arguments",
    "to_invocation",
    "into",
    "from",
    "to_owned",
    "to_string",
    "type_id",
    "globals",
    "globals_mut",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_cases_paths_and_values() {
        assert_eq!(upper_camel(&["pr", "create"]).unwrap(), "PrCreate");
        assert_eq!(upper_camel(&["setup-git"]).unwrap(), "SetupGit");
        assert_eq!(upper_camel(&["list_all"]).unwrap(), "ListAll");
        assert_eq!(upper_camel(&["blue-green"]).unwrap(), "BlueGreen");
        assert_eq!(upper_camel(&["ALL"]).unwrap(), "ALL");
        assert_eq!(upper_camel(&["2fa", "enable"]).unwrap(), "_2faEnable");
        assert_eq!(upper_camel(&["café"]).unwrap(), "CafUe9");
        assert_eq!(upper_camel(&[">="]), None);
        assert_eq!(upper_camel(&[""]), None);
    }

    #[test]
    fn snake_cases_parameters() {
        assert_eq!(snake("dry-run"), "dry_run");
        assert_eq!(snake("dryRun"), "dry_run");
        assert_eq!(snake("HTTPProxy"), "httpproxy");
        assert_eq!(snake("no.color"), "no_color");
        assert_eq!(snake("1st"), "_1st");
        assert_eq!(snake(""), "param");
        assert_eq!(snake("--"), "param");
        assert_eq!(snake("_"), "_");
        assert_eq!(snake("ñ"), "uf1");
    }

    #[test]
    fn keywords_are_escaped() {
        assert_eq!(ident_text("type"), "r#type");
        assert_eq!(ident_text("in"), "r#in");
        assert_eq!(ident_text("gen"), "r#gen");
        assert_eq!(ident_text("self"), "self_");
        assert_eq!(ident_text("Self"), "Self_");
        assert_eq!(ident_text("crate"), "crate_");
        assert_eq!(ident_text("super"), "super_");
        assert_eq!(ident_text("_"), "__");
        assert_eq!(ident_text("name"), "name");
    }

    #[test]
    fn scopes_resolve_collisions_in_order() {
        let mut s = Scope::with_reserved(&["Call"]);
        assert_eq!(s.claim("Call", ""), "Call2");
        assert_eq!(s.claim("A", ""), "A");
        assert_eq!(s.claim("A", ""), "A2");
        assert_eq!(s.claim("A", ""), "A3");
        let mut f = Scope::default();
        assert_eq!(f.claim("self", "_"), "self");
        // `self` is written `self_`, so a later `self_` must not reuse it.
        assert_eq!(f.claim("self_", "_"), "self_2");
    }
}
