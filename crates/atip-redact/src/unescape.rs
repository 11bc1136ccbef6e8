//! The text the rules read: command output with JSON's `\/` and `\uXXXX` escapes decoded, and
//! the way back from its offsets to the output's. A parser (and a model) reads
//! `gh\u0070_…`, `https:\/\/hooks.slack.com\/…` or Go's `\u0026sig=…` as the secret it
//! spells, so the rules must too. `\"` and `\\` stay as written: the rules for quoted values
//! read them as escapes already. The short escapes (`\n`, `\t`) stay too; a secret right after
//! one is found by the search after escapes (`scanner.rs`).

use std::borrow::Cow;

use super::Found;

/// One decoded escape: `raw_len` bytes at `raw` in the output became `view_len` bytes at
/// `view` in the decoded text.
#[derive(Debug, Clone, Copy)]
struct Escape {
    raw: usize,
    raw_len: usize,
    view: usize,
    view_len: usize,
}

/// `text` with its `\/` and `\uXXXX` escapes decoded.
pub(super) struct Decoded<'t> {
    /// The decoded text (the output itself when it has no such escape).
    pub(super) text: Cow<'t, str>,
    escapes: Vec<Escape>,
}

/// Decodes `text`'s `\/` and `\uXXXX` escapes (a surrogate pair as one character; a lone
/// surrogate, `\u0022` and `\u005c` stay as written), left to right, an escaped backslash
/// (`\\`) starting none. Linear in the text.
pub(super) fn decode(text: &str) -> Decoded<'_> {
    let bytes = text.as_bytes();
    let mut escapes = Vec::new();
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    // memchr's vectorised search: `str::find` reads a word at a time, a few per cent of the
    // whole filter's time on text without escapes.
    while let Some(found) = memchr::memchr(b'\\', &bytes[at..]) {
        let p = at + found;
        let (len, decoded) = match bytes.get(p + 1) {
            Some(b'/') => (2, Some('/')),
            Some(b'u') => match unit(bytes, p) {
                Some(hi @ 0xD800..=0xDBFF) => match unit(bytes, p + 6) {
                    Some(lo @ 0xDC00..=0xDFFF) => {
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        (12, char::from_u32(c))
                    }
                    _ => (6, None),
                },
                Some(u) => (6, char::from_u32(u).filter(|c| !matches!(c, '"' | '\\'))),
                None => (2, None),
            },
            // An escaped backslash starts no escape; anything else is passed over.
            Some(b'\\') => (2, None),
            _ => (1, None),
        };
        if let Some(c) = decoded {
            out.push_str(&text[copied..p]);
            let view = out.len();
            out.push(c);
            escapes.push(Escape {
                raw: p,
                raw_len: len,
                view,
                view_len: c.len_utf8(),
            });
            copied = p + len;
        }
        at = (p + len).min(bytes.len());
    }
    if escapes.is_empty() {
        return Decoded {
            text: Cow::Borrowed(text),
            escapes,
        };
    }
    out.push_str(&text[copied..]);
    Decoded {
        text: Cow::Owned(out),
        escapes,
    }
}

/// The code unit of a `\uXXXX` escape at `at`, if there is one.
fn unit(bytes: &[u8], at: usize) -> Option<u32> {
    let hex = bytes.get(at..at + 6)?;
    if hex[0] != b'\\' || hex[1] != b'u' || !hex[2..].iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
}

impl Decoded<'_> {
    /// Secrets found in the decoded text as secrets of the output, in order and not
    /// overlapping: a span that starts or ends inside a decoded escape takes the whole escape.
    pub(super) fn to_output(&self, found: Vec<Found>) -> Vec<Found> {
        if self.escapes.is_empty() {
            return found;
        }
        let mapped = found
            .into_iter()
            .map(|f| Found {
                start: self.start(f.start),
                end: self.end(f.end),
                label: self.start(f.label),
            })
            .collect();
        super::merge(mapped)
    }

    /// An output offset for a span starting at `p` in the decoded text.
    pub(super) fn start(&self, p: usize) -> usize {
        let i = self.escapes.partition_point(|e| e.view <= p);
        self.outside(i, p, |e| e.raw)
    }

    /// An output offset for a span ending at `p` in the decoded text.
    fn end(&self, p: usize) -> usize {
        let i = self.escapes.partition_point(|e| e.view < p);
        self.outside(i, p, |e| e.raw + e.raw_len)
    }

    /// `p` mapped past the escapes before index `i`; `inside` if it falls in the last one.
    fn outside(&self, i: usize, p: usize, inside: impl Fn(&Escape) -> usize) -> usize {
        let Some(e) = i.checked_sub(1).map(|i| &self.escapes[i]) else {
            return p;
        };
        if p < e.view + e.view_len {
            inside(e)
        } else {
            p - (e.view + e.view_len) + e.raw + e.raw_len
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{decode, Found};

    /// The secret `start..end` of the decoded text (its label at `start`), in the output.
    fn out(d: &super::Decoded, start: usize, end: usize) -> (usize, usize) {
        let f = d.to_output(vec![Found {
            start,
            end,
            label: start,
        }])[0];
        assert_eq!(f.label, f.start);
        (f.start, f.end)
    }

    #[test]
    fn decodes_slashes_and_unicode_escapes_and_maps_spans_back() {
        let raw = r#"a\/b gh\u0070_x \ud83d\ude00 \u0022 \\u0070 \u12"#;
        let d = decode(raw);
        assert_eq!(d.text, r#"a/b ghp_x 😀 \u0022 \\u0070 \u12"#);
        // `ghp_x` in the decoded text is `gh\u0070_x` in the output.
        let at = d.text.find("ghp_x").unwrap();
        let (s, e) = out(&d, at, at + 5);
        assert_eq!(&raw[s..e], r"gh\u0070_x");
        // A span ending inside an escape takes all of it; one starting inside one too.
        let smile = d.text.find('😀').unwrap();
        let (s, e) = out(&d, smile + 1, smile + 2);
        assert_eq!(&raw[s..e], r"\ud83d\ude00");
        assert!(matches!(
            decode("plain").text,
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
