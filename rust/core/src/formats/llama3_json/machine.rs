//! The stream machine of Llama 3 regions: `;`-joined JSON objects, or a built-in tool call.

use super::super::grammar::{Machine, Open, Verdict};
use super::super::machine::ws;
use super::super::pythonic::PythonicCall;
use super::{is_builtin_start, CALL_SUFFIX};
use crate::scan::call_scan::{CallRecord, CallScanner, Stop};

#[derive(Clone, Copy, Debug)]
enum State {
    Object(usize),
    InObject,
    /// After an object ending at `.0`: `;` and another object may follow.
    After(usize, usize),
    /// A failure the decoder extends to the end of the text.
    ToEnd,
}

pub(crate) struct LlamaCall {
    /// A message-start object (no `<|python_tag|>`).
    bare: bool,
    state: State,
    scanner: CallScanner,
    /// Where the first object ends.
    first_end: Option<usize>,
    /// A built-in tool call after the tag (`brave_search.call(query="x")`), read as pythonic.
    builtin: Option<Box<PythonicCall>>,
}

impl LlamaCall {
    pub fn new(bare: bool, at: usize, open: Open) -> Self {
        Self {
            bare,
            state: State::Object(at),
            scanner: CallScanner::tracking(open.json, true, open.track),
            first_end: None,
            builtin: None,
        }
    }
}

impl Machine for LlamaCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        if let Some(call) = &mut self.builtin {
            return call.advance(buf);
        }
        let b = buf.as_bytes();
        loop {
            match self.state {
                State::Object(p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = State::Object(q);
                        return Verdict::More;
                    }
                    if !self.bare && self.first_end.is_none() && is_builtin_start(b[q]) {
                        let call = PythonicCall::lines(q, None, CALL_SUFFIX);
                        return self.builtin.insert(Box::new(call)).advance(buf);
                    }
                    if b[q] != b'{' {
                        self.state = State::ToEnd;
                        continue;
                    }
                    self.scanner.restart(q);
                    self.state = State::InObject;
                }
                State::InObject => loop {
                    match self.scanner.scan(buf) {
                        Stop::End => return Verdict::More,
                        Stop::Newline => {}
                        Stop::TopClosed => {
                            let end = self.scanner.pos;
                            self.first_end.get_or_insert(end);
                            self.state = State::After(end, end);
                            break;
                        }
                        Stop::NotJson if self.bare && self.first_end.is_none() => {
                            return Verdict::NotMine
                        }
                        Stop::NotJson => {
                            self.state = State::ToEnd;
                            break;
                        }
                    }
                },
                State::After(end, p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = State::After(end, q);
                        return Verdict::More;
                    }
                    if b[q] != b';' {
                        return Verdict::End(end);
                    }
                    let r = ws(b, q + 1);
                    if r == b.len() {
                        self.state = State::After(end, q);
                        return Verdict::More;
                    }
                    if b[r] != b'{' {
                        return Verdict::End(end);
                    }
                    self.state = State::Object(r);
                }
                State::ToEnd => return Verdict::More,
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        match &self.builtin {
            Some(call) => call.records(),
            None => &self.scanner.records,
        }
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        match self.state {
            State::InObject => Some(&mut self.scanner),
            _ => None,
        }
    }

    fn safe(&self) -> usize {
        self.scanner.pos
    }

    fn raw_value_end(&self, len: usize) -> Option<usize> {
        Some(self.first_end.unwrap_or(len))
    }
}
