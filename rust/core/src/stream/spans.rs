//! Inline code spans of released prose: markers inside them are prose (the decoders' rule,
//! applied without look-ahead).

use crate::scan::find::{find_any3, find_byte};

/// Inline code spans of released prose (the one-shot rule of `formats`): a backtick run opens a
/// span that a run of the same length closes; a line end (`\n`, `\r\n`, a lone `\r`) closes it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CodeSpans {
    open: Option<usize>,
    /// A backtick run still being counted (it may continue in the next piece).
    run: usize,
}

impl CodeSpans {
    /// Takes in released prose (inlined: it runs on every piece of text, most a few bytes).
    #[inline]
    pub fn feed(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut pos = 0;
        loop {
            // Outside a span and a run, a line end changes nothing: only a backtick is looked
            // for (prose without one costs a single-byte search).
            let next = if self.open.is_none() && self.run == 0 {
                find_byte(b'`', &bytes[pos..])
            } else {
                find_any3(b'`', b'\n', b'\r', &bytes[pos..])
            };
            let Some(i) = next else { break };
            let at = pos + i;
            if at > pos {
                self.end_run();
            }
            if bytes[at] != b'`' {
                self.end_run();
                self.open = None;
            } else {
                self.run += 1;
            }
            pos = at + 1;
        }
        if pos < bytes.len() {
            self.end_run();
        }
    }

    fn end_run(&mut self) {
        if self.run == 0 {
            return;
        }
        self.open = match self.open {
            None => Some(self.run),
            Some(open) if open == self.run => None,
            other => other,
        };
        self.run = 0;
    }

    /// Whether the next byte (which is not a backtick) is inside a code span.
    pub fn inside(&mut self) -> bool {
        self.end_run();
        self.open.is_some()
    }

    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_across_pieces() {
        let mut spans = CodeSpans::default();
        spans.feed("say `");
        assert!(spans.inside());
        spans.feed("x` and ``");
        spans.feed("`");
        assert!(spans.inside());
        spans.feed("``` done ");
        assert!(!spans.inside());
        spans.feed("`open\n");
        assert!(!spans.inside());
        spans.feed("`open\r");
        assert!(!spans.inside());
        spans.feed("`open\r\n");
        assert!(!spans.inside());
    }
}
