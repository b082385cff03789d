//! The stream machine of a Gemma call: the name once its `{` has come, then the end token,
//! looked for outside strings.

use super::super::grammar::{Machine, Verdict};
use super::super::machine::{close_last, named, starts};
use super::decode::opener;
use crate::scan::find::find_byte;
use super::{is_bare_name_byte, name, Tokens, END_OF_TURN, TOKENS};
use crate::scan::call_scan::CallRecord;

pub(crate) struct GemmaCall {
    tokens: &'static Tokens,
    /// Where the name starts (after the start token).
    at: usize,
    /// Read up to here.
    pos: usize,
    named: bool,
    in_string: bool,
    records: Vec<CallRecord>,
}

impl GemmaCall {
    pub fn new(tokens: &'static Tokens, at: usize) -> Self {
        Self {
            tokens,
            at,
            pos: at,
            named: false,
            in_string: false,
            records: Vec::new(),
        }
    }
}

impl Machine for GemmaCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        if !self.named {
            // Its `{`, or the `(` of a call written the Python way (`decode::opener`).
            let Some(brace) = opener(buf, self.tokens, self.pos, b.len()) else {
                if self.opens_message() && !b[self.pos..].iter().all(|&c| is_bare_name_byte(c)) {
                    return Verdict::NotMine;
                }
                self.pos = b.len();
                return Verdict::More;
            };
            let named_here = b[self.pos..brace].iter().all(|&c| is_bare_name_byte(c));
            if self.opens_message() && (brace == self.at || !named_here) {
                return Verdict::NotMine;
            }
            if let Some(name) = name(buf, self.at, brace) {
                self.records.push(named(name, None, true, 0));
            }
            self.named = true;
            self.pos = brace;
        }
        while let Some(i) = find_byte(b'<', &b[self.pos..]) {
            let at = self.pos + i;
            match starts(b, at, self.tokens.quote) {
                None => {
                    self.pos = at;
                    return Verdict::More;
                }
                Some(true) => {
                    self.in_string = !self.in_string;
                    self.pos = at + self.tokens.quote.len();
                    continue;
                }
                Some(false) => {}
            }
            // A start token ends the call even inside a string: it is a special token, no
            // value's text, so a string the model left open does not swallow the next call.
            let ends = [self.tokens.end, END_OF_TURN, TOKENS[0].start, TOKENS[1].start];
            let from = if self.in_string { 2 } else { 0 };
            let mut undecided = false;
            for (k, token) in ends.into_iter().enumerate().skip(from) {
                match starts(b, at, token) {
                    Some(true) => {
                        close_last(&mut self.records);
                        // The end token is the call's; the end of turn, or a start token (the
                        // next call), follows it.
                        return Verdict::End(if k == 0 { at + token.len() } else { at });
                    }
                    None => undecided = true,
                    Some(false) => {}
                }
            }
            if undecided {
                self.pos = at;
                return Verdict::More;
            }
            self.pos = at + 1;
        }
        self.pos = b.len();
        Verdict::More
    }

    fn records(&self) -> &[CallRecord] {
        &self.records
    }

    /// A message that ends in `call:NAME`, before any `{`, is text.
    fn undecided(&self) -> bool {
        self.opens_message() && !self.named
    }
}

impl GemmaCall {
    /// Opened by `call:` at the start of a message: until its `{`, only a name may follow.
    fn opens_message(&self) -> bool {
        std::ptr::eq(self.tokens, &TOKENS[2])
    }
}
