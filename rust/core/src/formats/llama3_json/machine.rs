//! The stream machine of Llama 3 regions: joined JSON objects, a built-in tool call, or raw
//! code.

use super::super::cursor::{Markers, Seek};
use super::super::cx::CODE_TOOL;
use super::super::grammar::{Machine, Open, Verdict};
use super::super::machine::{named, ws};
use super::super::pythonic::PythonicCall;
use super::{tagged_body, Tagged, CALL_SUFFIX, END_TOKENS};
use crate::scan::call_scan::{CallRecord, CallScanner, Stop};

static CODE_ENDS: Markers = Markers::new(END_TOKENS);

#[derive(Clone, Copy, Debug)]
enum State {
    Object(usize),
    InObject,
    /// After an object ending at `.0`: another object may follow, after `;`, `,`, blank space
    /// or nothing.
    After(usize, usize),
    /// A failure the decoder extends to the end of the text.
    ToEnd,
    /// Raw code after the tag: it runs to an end token, looked for from here.
    Code(usize),
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
    /// The call of raw code after the tag, and the search for its end.
    code: Vec<CallRecord>,
    code_end: Seek,
}

impl LlamaCall {
    pub fn new(bare: bool, at: usize, open: Open) -> Self {
        Self {
            bare,
            state: State::Object(at),
            scanner: CallScanner::tracking(open.json, true, open.track),
            first_end: None,
            builtin: None,
            code: Vec::new(),
            code_end: Seek::new(&CODE_ENDS),
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
                    if !self.bare && self.first_end.is_none() {
                        match tagged_body(b, q) {
                            None => {
                                self.state = State::Object(q);
                                return Verdict::More;
                            }
                            Some(Tagged::Builtin) => {
                                let call = PythonicCall::lines(q, None, CALL_SUFFIX);
                                return self.builtin.insert(Box::new(call)).advance(buf);
                            }
                            Some(Tagged::Code) => {
                                self.code.push(named(CODE_TOOL, None, true, 0));
                                self.state = State::Code(q);
                                continue;
                            }
                            Some(Tagged::Json) => {}
                        }
                    }
                    // A list only right after the tag ([`tagged_body`] said it holds calls).
                    let list = b[q] == b'[' && !self.bare && self.first_end.is_none();
                    if b[q] != b'{' && !list {
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
                    if b[q] == b'{' {
                        // An object right after, after blank space or on the next line: the
                        // decoder reads it if it is a call.
                        self.state = State::Object(q);
                        continue;
                    }
                    if b[q] != b';' && b[q] != b',' {
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
                State::Code(from) => {
                    return match self.code_end.find(b, from) {
                        Some(token) => Verdict::End(token.start),
                        None => Verdict::More,
                    }
                }
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        match &self.builtin {
            Some(call) => call.records(),
            None if matches!(self.state, State::Code(_)) => &self.code,
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
