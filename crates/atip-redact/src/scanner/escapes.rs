//! Escapes that end in a letter or digit, after which a token has no word boundary.

/// The most parameter and intermediate bytes of a control sequence [`escape_len`] reads.
const MAX_CSI_BYTES: usize = 64;

/// The length in bytes of an escape or encoded character at the start of `text` (one that
/// can end in a letter or digit, so that a token right after it has no word boundary), or 0:
///
/// * C's, JSON's and the shell's one-letter escapes `\n`, `\r`, `\t`, `\b`, `\f`, `\v`, `\a`,
///   `\e`, `\E` (2); octal `\0`, `\12`, `\012` (2–4); `\x0b` (4); JSON's `\u0009` (6); Rust's
///   `\u{1b}` (4–10); Go's `\U0001f600` (10);
/// * URL encoding `%0A` (3) and caret notation `^I` (`cat -v`; 2);
/// * ESC and one character (`ESC 7`, 2), a character set (`ESC ( B`, 3), and a terminal's
///   control sequence (`ESC [ 1 ; 32 m`, ECMA-48 CSI) after an ESC in any of the forms above.
///
/// At most 12 bytes but for a control sequence, as the stream's cuts rely on (`stream.rs`,
/// `outside_escapes`). The rules read `\u001b` already decoded to `ESC`
/// (`filter/unescape.rs`), so the sequence is found in that form too.
pub(super) fn escape_len(text: &[u8]) -> usize {
    let hex = |from: usize, n: usize| {
        text.get(from..from + n)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    };
    let octal = |from: usize| {
        text[from.min(text.len())..]
            .iter()
            .take(3)
            .take_while(|b| (b'0'..=b'7').contains(*b))
            .count()
    };
    // The length of an escape, and whether it stands for ESC (a control sequence may follow).
    let (len, is_esc) = match text {
        [0x1b, b'(' | b')', 0x30..=0x7e, ..] => return 3,
        [0x1b, b'[', ..] => (1, true),
        [0x1b, 0x30..=0x7e, ..] => return 2,
        [0x1b, ..] => (1, true),
        [b'%', ..] if hex(1, 2) => return 3,
        // `^[` is ESC in caret notation (`cat -v`, `less`): a control sequence may follow.
        [b'^', b'[', ..] => (2, true),
        [b'^', b'@'..=b'_' | b'?', ..] => return 2,
        [b'\\', b'u', b'{', ..] => {
            let digits = text[3..]
                .iter()
                .take(6)
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
            match text.get(3 + digits) {
                Some(b'}') if digits > 0 => {
                    let value = std::str::from_utf8(&text[3..3 + digits])
                        .ok()
                        .and_then(|d| u32::from_str_radix(d, 16).ok());
                    (4 + digits, value == Some(0x1b))
                }
                _ => return 0,
            }
        }
        [b'\\', b'u', ..] if hex(2, 4) => return 6,
        [b'\\', b'U', ..] if hex(2, 8) => (
            10,
            &text[2..10] == b"0000001b" || &text[2..10] == b"0000001B",
        ),
        [b'\\', b'x', ..] if hex(2, 2) => (4, text[2..4].eq_ignore_ascii_case(b"1b")),
        [b'\\', b'0'..=b'7', ..] => {
            let n = octal(1);
            (1 + n, &text[1..1 + n] == b"033")
        }
        [b'\\', b'e' | b'E', ..] => (2, true),
        [b'\\', b'n' | b'r' | b't' | b'b' | b'f' | b'v' | b'a', ..] => return 2,
        _ => return 0,
    };
    if !is_esc {
        return len;
    }
    let esc = len;
    // ECMA-48 CSI: `[`, parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, a final byte
    // 0x40–0x7E.
    let Some(b'[') = text.get(esc) else {
        return esc;
    };
    // At most `MAX_CSI_BYTES` of parameters: the streaming redactor holds back 4 KiB of an
    // unfinished line, and the whole sequence must still be there when the token after it
    // arrives (a longer one is taken for no sequence, as a terminal would give up on it).
    let mut end = esc + 1;
    let limit = end + MAX_CSI_BYTES;
    while end < limit && text.get(end).is_some_and(|b| (0x30..=0x3f).contains(b)) {
        end += 1;
    }
    while end < limit && text.get(end).is_some_and(|b| (0x20..=0x2f).contains(b)) {
        end += 1;
    }
    match text.get(end) {
        Some(0x40..=0x7e) => end + 1,
        _ => esc,
    }
}
