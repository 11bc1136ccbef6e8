//! Redaction of output as it arrives, chunk by chunk.

use std::borrow::Cow;

use super::{replace_into, Found, ResultFilter};

/// How much of an unfinished line a [`StreamRedactor`] holds back at most before passing it
/// on, in bytes: more than the longest secret any bounded rule matches together with its label
/// (a JWT in an `Authorization` header, an Atlassian token). Finished lines go at once (no rule
/// but the PEM one spans lines); a secret split anywhere by chunk boundaries is still caught.
/// PEM private keys are longer; an open one is held until its END line (up to 64 KiB).
pub const STREAM_HOLD_BYTES: usize = 4096;

/// The most a redactor holds while a match is still open (a PEM block without its END line
/// yet, a value that runs on): beyond it, the open part is passed on redacted and whatever
/// follows up to the END line, or the end of the line, is replaced as well.
pub(crate) const MAX_HOLD_BYTES: usize = 64 * 1024;

/// How many new bytes without a line end a redactor collects before it reads what it holds
/// again (when it holds more than that).
const RELEASE_BYTES: usize = 256;

/// Above how many bytes held a redactor reads what it holds again only once a quarter as much
/// has come since: each byte is then read a bounded number of times however long it is held.
const REREAD_BYTES: usize = 64;

/// Applies a [`ResultFilter`]'s rules to a stream (a command's stdout or stderr) as it
/// arrives: [`StreamRedactor::push`] returns the redacted text that is safe to pass on now
/// (or part of it, to save reading held text again), [`StreamRedactor::flush`] all of it when
/// the output pauses, [`StreamRedactor::finish`] the rest. Text is held while the next lines
/// may still make a secret of it: an unfinished line (up to [`STREAM_HOLD_BYTES`]), a match
/// that may grow, a block whose closing line has not come (a PEM or base64-wrapped key, a
/// caller's rule's match that later lines complete), the beginning of a known value of several
/// lines; each for at most 64 KiB of the text as the rules read it. This is the result filter of
/// spec §11.3 applied to output as it arrives. The concatenated output equals
/// [`ResultFilter::redact_for`] of the whole stream, whatever the chunk boundaries (bytes that
/// are not UTF-8 become U+FFFD, as in `String::from_utf8_lossy`).
#[derive(Debug)]
pub struct StreamRedactor {
    filter: ResultFilter,
    tool: Option<String>,
    /// Bytes not yet decoded: the start of a UTF-8 sequence cut by a chunk boundary.
    undecoded: Vec<u8>,
    /// Decoded text held back, after `passed` bytes already passed on: the character before
    /// the cut, kept so that the next release reads what starts there in its context (a word
    /// boundary, a line start) as the whole text does.
    pending: String,
    passed: usize,
    /// Bytes added to `pending` since the last release: what a push kept back only to save
    /// work when not 0 ([`StreamRedactor::flush`]).
    fresh: usize,
    /// Inside a secret whose beginning was passed on redacted because it was held longer than
    /// the limit allows: the rest is replaced until its end.
    inside: Option<Inside>,
    redactions: usize,
    /// How many bytes the releases read in all (what the tests bound).
    #[cfg(test)]
    pub(super) scanned: usize,
}

impl StreamRedactor {
    /// A redactor with `filter`'s rules, for the output of the command `tool` (its extra
    /// rules included) or of any command.
    pub fn new(filter: &ResultFilter, tool: Option<&str>) -> Self {
        StreamRedactor {
            filter: filter.clone(),
            tool: tool.map(str::to_owned),
            undecoded: Vec::new(),
            pending: String::new(),
            passed: 0,
            fresh: 0,
            inside: None,
            redactions: 0,
            #[cfg(test)]
            scanned: 0,
        }
    }

    /// How many secrets were replaced so far.
    pub fn redactions(&self) -> usize {
        self.redactions
    }

    /// Takes the next chunk; returns the redacted text that can be passed on (possibly empty:
    /// the end of the text is held back until it can no longer be part of a secret).
    pub fn push(&mut self, chunk: &[u8]) -> String {
        let before = self.pending.len();
        self.decode(chunk);
        if !self.filter.redacts() {
            return std::mem::take(&mut self.pending);
        }
        // Each release reads all that is held again: output that arrives a few bytes at a time
        // is read again once a line ends or [`RELEASE_BYTES`] have come, not per write (a long
        // held label, then a byte per write, took seconds).
        self.fresh += self.pending.len() - before;
        let line_ended = memchr::memchr(b'\n', &self.pending.as_bytes()[before..]).is_some();
        if !line_ended && self.fresh < RELEASE_BYTES && self.pending.len() > RELEASE_BYTES {
            return String::new();
        }
        // What was held at the last release (an unfinished line, an open block, a match that
        // may still grow) is read again only once a quarter as much has come since, not per
        // line: 781 KiB of an unclosed PEM key a line at a time took 3.6 s, each line reading
        // up to 64 KiB again. [`StreamRedactor::flush`] passes on what this keeps back.
        let held = self.pending.len() - self.fresh;
        if held > REREAD_BYTES && self.fresh < held / 4 {
            return String::new();
        }
        self.release(false)
    }

    /// Passes on what can be passed on now, with what [`StreamRedactor::push`] kept back only
    /// to save work (lines that came after a long held block, a few bytes that show a held
    /// block is no secret), never more than `push` may pass on. Call it when the output
    /// pauses, not after every push: a program that prints a line and waits for input would
    /// otherwise show that line only with its next output, and each call that finds text
    /// kept back reads all that is held again (up to 64 KiB). An unfinished line stays held as
    /// by `push` (it may still become a secret). Empty, without reading anything, when the
    /// last push kept nothing back.
    pub fn flush(&mut self) -> String {
        if self.fresh == 0 {
            return String::new();
        }
        self.release(false)
    }

    /// Ends the stream; returns the rest, redacted.
    pub fn finish(mut self) -> String {
        if !self.undecoded.is_empty() {
            let rest = std::mem::take(&mut self.undecoded);
            self.pending.push_str(&String::from_utf8_lossy(&rest));
        }
        if !self.filter.redacts() {
            return std::mem::take(&mut self.pending);
        }
        self.release(true)
    }

    fn decode(&mut self, chunk: &[u8]) {
        // The chunk as it came, unless a sequence cut by the last one waits to be completed.
        let bytes: Cow<[u8]> = if self.undecoded.is_empty() {
            Cow::Borrowed(chunk)
        } else {
            let mut joined = std::mem::take(&mut self.undecoded);
            joined.extend_from_slice(chunk);
            Cow::Owned(joined)
        };
        let mut rest: &[u8] = &bytes;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    self.pending.push_str(s);
                    return;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // SAFETY-free: `valid_up_to` bytes are valid UTF-8.
                    self.pending
                        .push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match e.error_len() {
                        // An incomplete sequence at the end: wait for the next chunk.
                        None => {
                            self.undecoded = after.to_vec();
                            return;
                        }
                        Some(n) => {
                            self.pending.push('\u{FFFD}');
                            rest = &after[n..];
                        }
                    }
                }
            }
        }
    }

    /// Passes on what can no longer change: everything when the stream is over, else
    /// everything before the hold window and before any match that reaches into it.
    fn release(&mut self, end: bool) -> String {
        let mut out = String::new();
        self.fresh = 0;
        if let Some(inside) = self.inside {
            // What is held of the secret was never passed on; the context goes with it.
            self.passed = 0;
            let close = match inside {
                Inside::PrivateKey => find_end_line(&self.pending),
                // The line's end is passed on as it is.
                Inside::Line => self.pending.find('\n'),
            };
            match close {
                Some(at) => {
                    if at > 0 {
                        out.push_str(super::REDACTED);
                    }
                    self.pending.drain(..at);
                    self.inside = None;
                }
                None => {
                    // Still inside: nothing of it may pass.
                    let keep = self.pending.len().saturating_sub(64);
                    let keep = self.pending.floor_char_boundary(keep);
                    self.pending.drain(..keep);
                    if end {
                        self.pending.clear();
                        out.push_str(super::REDACTED);
                    }
                    return out;
                }
            }
        }
        #[cfg(test)]
        {
            self.scanned += self.pending.len();
        }
        let text = &self.pending;
        let passed = self.passed;
        let (found, open_block) = self
            .filter
            .secrets(text, self.tool.as_deref(), passed, true);
        // Every rule but the PEM one stays on one line, so whole lines can go at once; a line
        // still growing is held up to the window.
        let lines = memchr::memrchr(b'\n', text.as_bytes()).map_or(0, |i| i + 1);
        let mut safe = if end {
            text.len()
        } else {
            lines.max(text.floor_char_boundary(text.len().saturating_sub(STREAM_HOLD_BYTES)))
        };
        // A match that reaches into the window may still grow: hold it back from where the
        // match begins (its label: passed on alone, the rest would no longer read as a
        // secret), unless it is held longer than the limit allows.
        let mut inside = None;
        if !end {
            // A match reaching the end of what has arrived may grow too (a token, a PEM block),
            // and so may one that ends where the unfinished last line begins (a PEM block cut
            // inside a header line or between the `\r` and `\n` of a line).
            let len = text.len();
            let open = |f: &&Found| f.end > safe || f.end == len || (f.end == lines && lines < len);
            if let Some(first) = found.iter().find(open) {
                let label = found.iter().filter(open).map(|f| f.label).min();
                let label = label.unwrap_or(first.label);
                if len - label <= MAX_HOLD_BYTES {
                    safe = safe.min(label);
                } else if first.end == len {
                    // An enormous secret still growing (a PEM block, a value without a space
                    // on a line of megabytes): pass it on redacted, replace the rest of the
                    // block or line.
                    safe = len;
                    inside = Some(if opens_private_key(&text[..first.start]) {
                        Inside::PrivateKey
                    } else {
                        Inside::Line
                    });
                }
            }
            // So may a multi-line block that reaches the last whole line, matched or not yet (a
            // key's base64 wrapped at 76 columns; at 40 it says `PRIVATE KEY` only on its
            // second line), a caller's match the next lines may complete, or a known value of
            // several lines: it is held from where it begins. Each began within the last
            // [`MAX_HOLD_BYTES`] of the text as the rules read it (`ResultFilter::secrets`).
            if let Some(at) = open_block.filter(|_| inside.is_none()) {
                safe = safe.min(at);
            }
        }
        if !end && inside.is_none() {
            // Moved back, the cut may fall inside a secret, or its label, that ended before
            // it: hold that one back from its label too.
            let mut cut = outside_escapes(text, safe);
            while let Some(f) = found.iter().find(|f| f.label < cut && cut < f.end) {
                let next = outside_escapes(text, f.label);
                if next >= cut {
                    break;
                }
                cut = next;
            }
            safe = cut;
        }
        // Nothing before what was passed on can be held back any more: a cut before it passes
        // nothing new.
        let safe = safe.max(passed);
        let done: Vec<(usize, usize)> = found
            .into_iter()
            .filter(|f| f.end <= safe && f.end > passed)
            .map(|f| (f.start.max(passed) - passed, f.end - passed))
            .collect();
        self.redactions += done.len();
        replace_into(&mut out, &text[passed..safe], &done);
        // Keep the character before the cut as the next release's context — but a backslash,
        // which would pair with what follows (`outside_escapes` keeps the runs even). The next
        // release reads it for word boundaries and line starts only: no match begins there, and
        // it is not taken for the start of a line or text.
        let keep = if end || safe == 0 || text.as_bytes()[safe - 1] == b'\\' {
            safe
        } else {
            text.floor_char_boundary(safe - 1)
        };
        self.pending.drain(..keep);
        self.passed = safe - keep;
        self.inside = inside;
        out
    }
}

/// A secret a redactor passed on redacted before its end arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inside {
    /// A PEM private key: replaced until its END line.
    PrivateKey,
    /// Any other: replaced until the end of its line.
    Line,
}

/// `at` moved back so that the text after it reads its escapes as the whole text does (the
/// rules read JSON's `\uXXXX` decoded, `filter/unescape.rs`): not inside an escape or
/// between the two of a surrogate pair (12 bytes), and after an even number of a run of
/// backslashes — with an odd one, the next release would pair them differently and read
/// `\\u0067hp_…` where the whole text has `\` and `\u0067hp_…`. Every earlier cut kept that
/// parity, so the part of a run already passed on is even. At most 13 bytes back.
fn outside_escapes(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let window = at.saturating_sub(11);
    let mut at = bytes[window..at]
        .iter()
        .position(|&b| b == b'\\')
        .map_or(at, |i| window + i);
    let run = bytes[..at]
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count();
    if run % 2 == 1 {
        at -= 1;
    }
    at
}

fn opens_private_key(before: &str) -> bool {
    before
        .rfind("-----BEGIN ")
        .is_some_and(|i| before[i..].contains("PRIVATE KEY"))
}

/// The end of a PEM END line in `text`, if there is one.
fn find_end_line(text: &str) -> Option<usize> {
    let i = text.find("-----END ")?;
    let rest = &text[i + 9..];
    let close = rest.find("-----")?;
    Some(i + 9 + close + 5)
}
