//! The built-in secret rules: credential formats recognised by their shape, and keyword
//! assignments whose value looks like a credential.
//!
//! The rules are data: the files in `rules/` (schema in `rules/README.md`), one per family,
//! compiled into [`BUILTIN`] by `build.rs`. Each rule is a regular expression (regex crate
//! syntax) that stays on one line unless it says `multiline` (PEM blocks; the streaming
//! redactor relies on this); a group named `secret` marks the part that is replaced, so labels
//! (`password=`, `Authorization: Bearer `) stay readable. Its keywords are literals one of
//! which every match holds: the scanner looks for them first. A rule may carry a check on the
//! captured secret that turns down look-alike prose, and an entropy floor. Every rule names
//! where its format comes from: the issuer's documentation where it publishes the format,
//! otherwise the facts (prefix, length, alphabet) open-source scanners detect it by, restated.
//!
//! # When a keyword's value is a secret
//!
//! Keyword rules (`password`, `secret`, `token`, `api_key`, …) fire on the *value*, and only
//! when the form makes a value certain or the value looks like a credential:
//!
//! * a quoted value after a keyed form (`"password": "…"`, `PASSWORD="…"`, `token: '…'`) is a
//!   value: the whole quoted text is replaced, spaces and punctuation included;
//! * an unquoted value in an environment form (`DB_PASSWORD=…`, `--token=…`, no space around
//!   `=`) is a value: replaced up to the next whitespace, punctuation included (a password may
//!   end in `)` or `;`, and leaking its last character is worse than hiding a bracket);
//! * otherwise (`password: x`, `token x` in logs and prose; a rule's group named `loose`) the
//!   value must look like a credential ([`looks_like_credential`]): at least 6 characters and letters with digits, or a
//!   symbol no prose word carries (`_ + / = @ # $ % ^ & * ~ \ |`), or 12+ characters of mixed
//!   case that are not a capitalised word, or 24+ characters;
//! * placeholders are never secrets ([`is_placeholder`]): empty, `none`, `null`, `true`,
//!   `false`, `***`, `<…>`, `${…}`, `$VAR`, `[REDACTED]` and kin.
//!
//! So `Password: required for login`, `Error: invalid token: expired`, `token: none` and `The
//! secret: it's …` stay prose, while `password: hunter22`, `token: 9f8e7d6c5b4a` and
//! `DATABASE_PASSWORD="correct horse"` are redacted.

/// A check on the captured secret; a match it turns down is left alone.
pub(crate) type SecretCheck = Option<fn(&str) -> bool>;

/// One built-in rule, as its file in `rules/` gives it (`rules/README.md`).
pub(crate) struct Builtin {
    /// The kind name (`github-token`).
    pub name: &'static str,
    /// What the rule finds, in a few words.
    #[allow(dead_code)] // for readers of the catalog and RELIABILITY.md
    pub description: &'static str,
    /// Where the format is documented.
    #[allow(dead_code)] // for readers of the catalog and RELIABILITY.md
    pub source: &'static str,
    /// The pattern, fragments expanded (regex crate syntax).
    pub pattern: &'static str,
    /// Literals one of which every match holds.
    pub keywords: &'static [&'static str],
    /// Whether the keywords match in any ASCII case (else exactly as written).
    pub ignore_case: bool,
    /// A check on the captured secret.
    pub check: SecretCheck,
    /// The least Shannon entropy of the secret, in bits per character.
    pub entropy: Option<f64>,
    /// Whether a match may span lines.
    pub multiline: bool,
}

/// One of a rule's own examples: a text whose `«…»` parts are what redaction replaces
/// (`secret`), or a text that stays as it is.
#[cfg(test)]
pub(crate) struct Example {
    pub rule: &'static str,
    pub text: &'static str,
    pub secret: bool,
}

/// The checks a rule file may name (`check = "…"`).
mod checks {
    pub(super) use super::{
        base64_private_key, basic_credentials, looks_like_credential, not_placeholder,
        not_port_mapping,
    };
}

// `BUILTIN`, and under test `EXAMPLES`: the rule files compiled by `build.rs`.
include!(concat!(env!("OUT_DIR"), "/rules_table.rs"));

/// The longest value taken for a placeholder, in bytes. A longer one is judged as a value:
/// `${…}`, `<…>` and `{{…}}` that run on for kilobytes are not what a placeholder looks like,
/// and a match turned down as one sends the search back to its next character — over a long
/// value holding further keys (`token=${token=${…`) that made the scan quadratic.
pub(crate) const MAX_PLACEHOLDER_BYTES: usize = 256;

/// Values that stand for "no secret here" (at most [`MAX_PLACEHOLDER_BYTES`] long).
pub(crate) fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    if v.len() > MAX_PLACEHOLDER_BYTES {
        return false;
    }
    if v.is_empty()
        || v.chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '-' | '#'))
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with("${") && v.ends_with('}'))
        || (v.starts_with("{{") && v.ends_with("}}"))
        || (v.starts_with('$')
            && v[1..]
                .chars()
                .all(|c| c == '_' || c.is_ascii_alphanumeric()))
        || v.eq_ignore_ascii_case("[redacted]")
        // Command substitution (`$(gh auth token)`, `` `cat key` ``) and SOPS ciphertext.
        || v.starts_with("$(")
        || v.starts_with('`')
        || v.starts_with("ENC[")
        || filler_after_prefix(v)
    {
        return true;
    }
    const WORDS: &[&str] = &[
        "none",
        "null",
        "nil",
        "undefined",
        "true",
        "false",
        "yes",
        "no",
        "empty",
        "n/a",
        "na",
        "unset",
        "redacted",
        "hidden",
        "masked",
        "required",
        "optional",
        "bearer",
        "basic",
        "changeit?",
        "todo",
        "tbd",
        "example",
        "your-token",
        "your_token",
        "your-password",
        "your_password",
        "<none>",
        "not-set",
        "notset",
    ];
    WORDS.iter().any(|w| v.eq_ignore_ascii_case(w))
}

/// A token prefix and then a run of one filler character, at least 8 long: `ghp_xxxxxxxx`,
/// `sk-********`. `x`, `X` and `*` only: a password may well end in `0000` or `XXXX`.
fn filler_after_prefix(v: &str) -> bool {
    let Some(cut) = v
        .char_indices()
        .take(13)
        .find(|(_, c)| matches!(c, '_' | '-' | '.'))
        .map(|(i, _)| i)
    else {
        return false;
    };
    let rest = &v[cut + 1..];
    let mut chars = rest.chars();
    rest.len() >= 8
        && chars
            .next()
            .is_some_and(|first| matches!(first, 'x' | 'X' | '*') && chars.all(|c| c == first))
}

/// Whether a token matched by its shape alone is a stand-in for one: it holds `EXAMPLE`
/// (AWS's documented `AKIAIOSFODNN7EXAMPLE`) or one character makes up half of it or more
/// (`ghp_xxxxxxxxxxxxxxxxxxxx`, `sk_live_0000000000000000`). A real token is random.
pub(crate) fn is_placeholder_token(token: &str) -> bool {
    if token.len() < 8 {
        return false;
    }
    if token.to_ascii_lowercase().contains("example") {
        return true;
    }
    byte_counts(token)
        .iter()
        .max()
        .is_some_and(|&most| most as usize * 2 >= token.len())
}

/// How often each byte occurs in `value`.
fn byte_counts(value: &str) -> [u32; 256] {
    let mut counts = [0u32; 256];
    for b in value.bytes() {
        counts[usize::from(b)] += 1;
    }
    counts
}

/// The Shannon entropy of `value`'s bytes, in bits per byte (a rule's `entropy` floor); 0 for
/// an empty value.
pub(crate) fn entropy(value: &str) -> f64 {
    let n = value.len() as f64;
    byte_counts(value)
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// Whether a value from a free-form line (not a keyed or quoted form) looks like a credential
/// rather than a word: see the module documentation.
pub(crate) fn looks_like_credential(value: &str) -> bool {
    let v = value.trim_end_matches(['.', ',', ';', ')', '!', '?', ':']);
    if is_placeholder(v) || v.chars().count() < 6 {
        return false;
    }
    let letter = v.chars().any(|c| c.is_alphabetic());
    let digit = v.chars().any(|c| c.is_ascii_digit());
    let strong_symbol = v.chars().any(|c| {
        matches!(
            c,
            '_' | '+' | '/' | '=' | '@' | '#' | '$' | '%' | '^' | '&' | '*' | '~' | '\\' | '|'
        )
    });
    let upper = v.chars().any(|c| c.is_uppercase());
    let lower = v.chars().any(|c| c.is_lowercase());
    let capitalised_word = v.chars().next().is_some_and(char::is_uppercase)
        && v.chars()
            .skip(1)
            .all(|c| c.is_lowercase() || c == '-' || c == '\'');
    (letter && digit)
        || strong_symbol
        || (v.len() >= 12 && upper && lower && !capitalised_word)
        || v.len() >= 24
}

/// A value in a keyed form (quoted, or `KEY=value`): anything but a placeholder.
pub(crate) fn not_placeholder(value: &str) -> bool {
    !is_placeholder(value)
}

/// A value on a command line that is neither a placeholder nor a port mapping
/// (`docker run --name mysql -p3306:3306`: `-p` there publishes a port).
pub(crate) fn not_port_mapping(value: &str) -> bool {
    let port = |p: &str| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit());
    let mapping = value
        .trim_end_matches("/tcp")
        .trim_end_matches("/udp")
        .rsplitn(3, ':')
        .collect::<Vec<_>>();
    let is_mapping = mapping.len() >= 2 && port(mapping[0]) && port(mapping[1]);
    !is_placeholder(value) && !is_mapping
}

/// Whether `s`, base64 from `LS0tLS1CRUdJTi` (`-----BEGIN`) on, encodes a private key's BEGIN
/// line (a certificate's is no secret): its first 64 characters decoded hold `PRIVATE KEY`.
pub(crate) fn base64_private_key(s: &str) -> bool {
    use base64::Engine as _;
    let head: String = s.chars().filter(|c| !c.is_whitespace()).take(64).collect();
    let head = &head[..head.len() / 4 * 4];
    base64::engine::general_purpose::STANDARD
        .decode(head)
        .is_ok_and(|bytes| bytes.windows(11).any(|w| w == b"PRIVATE KEY"))
}

pub(crate) fn basic_credentials(s: &str) -> bool {
    s.len() >= 12
        && s.chars()
            .any(|c| c.is_ascii_digit() || matches!(c, '+' | '/' | '='))
}
