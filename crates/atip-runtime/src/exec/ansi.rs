//! Terminal escape sequences out of a command's output before a model reads it
//! ([`ResultOptions::keep_ansi`](super::ResultOptions::keep_ansi) keeps them).
//!
//! The bytes go through `vte`'s parser (the state machine of a DEC VT500-compatible terminal):
//! what it prints is kept, every CSI, OSC, DCS and other escape sequence is dropped, and of the
//! C0 controls only the ones text is made of stay: line feed, carriage return and tab.

use std::borrow::Cow;

/// What the parser prints, with the controls text keeps.
struct Plain(Vec<u8>);

impl vte::Perform for Plain {
    fn print(&mut self, c: char) {
        let mut buf = [0; 4];
        self.0.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }

    fn execute(&mut self, byte: u8) {
        if matches!(byte, b'\n' | b'\r' | b'\t') {
            self.0.push(byte);
        }
    }
}

/// `bytes` without escape sequences; borrowed unchanged when it holds no ESC. Invalid UTF-8
/// in text that holds one becomes U+FFFD, as the lossy conversion after would make it.
pub(super) fn strip(bytes: &[u8]) -> Cow<'_, [u8]> {
    if !bytes.contains(&0x1b) {
        return Cow::Borrowed(bytes);
    }
    let mut parser = vte::Parser::new();
    let mut plain = Plain(Vec::with_capacity(bytes.len()));
    parser.advance(&mut plain, bytes);
    Cow::Owned(plain.0)
}
