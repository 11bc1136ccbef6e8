//! Compact JSON written straight into a `String`, byte-identical to what serde_json writes.

/// The index of the first byte at or after `from` that a JSON string must escape (`"`, `\\`
/// or a control character), or `bytes.len()`. Eight bytes at a time: a word has such a byte
/// exactly when one of three classic bit tests finds a byte below 0x20, a byte equal to `"`,
/// or a byte equal to `\\`; only then are its bytes looked at one by one.
fn next_escape(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // Bytes of `w` that are zero have their high bit set in the result (and no byte is
    // flagged when none is zero).
    let zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGH;
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let w = u64::from_ne_bytes(chunk.try_into().unwrap_or([0; 8]));
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        if control | zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\'))) != 0 {
            break;
        }
        i += 8;
    }
    bytes[i..]
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .map_or(bytes.len(), |p| i + p)
}

/// Compact JSON written straight into a `String`, escaped as serde_json escapes.
pub(super) struct JsonOut<'a>(pub(super) &'a mut String);

impl JsonOut<'_> {
    pub(super) fn raw(&mut self, s: &str) {
        self.0.push_str(s);
    }

    /// `,"key":` after an earlier member (keys are plain ASCII).
    pub(super) fn key(&mut self, key: &str) {
        self.0.push_str(",\"");
        self.0.push_str(key);
        self.0.push_str("\":");
    }

    /// A JSON string: `"` and `\\` escaped, control characters as `\b \t \n \f \r` or
    /// `\u00XX`, everything else (non-ASCII included) as it is.
    pub(super) fn string(&mut self, s: &str) {
        self.0.push('"');
        let bytes = s.as_bytes();
        let mut start = 0;
        loop {
            let i = next_escape(bytes, start);
            self.0.push_str(&s[start..i]);
            let Some(&b) = bytes.get(i) else { break };
            match b {
                b'"' => self.0.push_str("\\\""),
                b'\\' => self.0.push_str("\\\\"),
                b'\n' => self.0.push_str("\\n"),
                b'\r' => self.0.push_str("\\r"),
                b'\t' => self.0.push_str("\\t"),
                0x08 => self.0.push_str("\\b"),
                0x0c => self.0.push_str("\\f"),
                _ => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    self.0.push_str("\\u00");
                    self.0.push(HEX[(b >> 4) as usize] as char);
                    self.0.push(HEX[(b & 0xf) as usize] as char);
                }
            }
            start = i + 1;
        }
        self.0.push('"');
    }

    /// `"type"` as one type, or `[type, "null"]`.
    pub(super) fn type_value(&mut self, ty: &str, nullable: bool) {
        if nullable {
            self.raw("[");
            self.string(ty);
            self.raw(",\"null\"]");
        } else {
            self.string(ty);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let all_controls: String = (0u8..0x20).map(char::from).collect();
        for s in [
            "plain",
            "quote \" and \\ backslash",
            all_controls.as_str(),
            "\u{7f} é ☃ 😀 \u{2028}",
            "",
        ] {
            let mut out = String::new();
            JsonOut(&mut out).string(s);
            assert_eq!(out, serde_json::to_string(s).unwrap());
        }
        // The word-at-a-time scan: every character that needs escaping, at every offset of
        // texts longer than a word, next to multi-byte characters and bytes just above the
        // control range.
        let specials: Vec<char> = (0u8..0x20).map(char::from).chain(['"', '\\']).collect();
        for base in [
            "abcdefghijklmnopqrstuvwx",
            "é☃😀 !#~\u{7f}é☃😀 !#~",
            "        ",
        ] {
            let chars: Vec<char> = base.chars().collect();
            for special in &specials {
                for at in 0..=chars.len() {
                    let mut t: String = chars[..at].iter().collect();
                    t.push(*special);
                    t.extend(&chars[at..]);
                    t.push(*special);
                    let mut out = String::new();
                    JsonOut(&mut out).string(&t);
                    assert_eq!(out, serde_json::to_string(&t).unwrap(), "{t:?}");
                }
            }
            let mut out = String::new();
            JsonOut(&mut out).string(base);
            assert_eq!(out, serde_json::to_string(base).unwrap());
        }
    }
}
