//! The stream machine of an Inkling message: what its opening says it is, then a call's JSON
//! (its name announced when read) up to the message's end token.

use super::super::cursor::{Markers, Seek};
use super::super::grammar::{Machine, Open, Verdict};
use super::super::machine::{starts, ws, JsonValue, Scanned};
use super::{implied_name_len, END, INVOKE, MESSAGE, NAME_MAX, RAW_BLOCKS, TEXT, THINKING};
use crate::scan::call_scan::{CallRecord, CallScanner};

/// What ends a broken call's markup: the end token (its own), or the next message or call
/// token (a new region: the model started over).
static BROKEN_ENDS: Markers = Markers::new(&[END, MESSAGE, INVOKE]);

enum State {
    /// At the start of the text, in the header of the message the generation prompt opened:
    /// a call when an echoed name and the call token follow, else text.
    Implied,
    /// After `<|message_model|>`: what the message is, from here.
    Opening(usize),
    /// After the thinking token, here: the message is reasoning.
    Thinking(usize),
    Json(JsonValue),
    /// After the call object, which ends at `.0`: the end token may follow.
    After(usize, usize),
    /// A call that is not JSON: its markup runs to the end token, or to the next message or
    /// call token, looked for from here.
    Broken(usize),
}

pub(crate) struct InklingMessage {
    state: State,
    open: Open,
    /// The end of a broken call's markup.
    end: Seek,
    records: Vec<CallRecord>,
    /// Where the call's JSON was read to, once it closed or broke ([`Machine::safe`]).
    read_to: usize,
}

impl InklingMessage {
    /// A region opened by the group's start `start` (`<|message_model|>`, the thinking token,
    /// the call token), whose marker ends at `at`.
    pub fn new(start: usize, at: usize, open: Open) -> Self {
        let state = match start {
            // The implied start has no marker text.
            0 if at == 0 => State::Implied,
            0 => State::Opening(at),
            1 => State::Thinking(at),
            _ => State::Json(JsonValue::new(at, open.json, open.track)),
        };
        Self {
            state,
            open,
            end: Seek::new(&BROKEN_ENDS),
            records: Vec::new(),
            read_to: 0,
        }
    }

    fn json(&mut self, at: usize) {
        self.state = State::Json(JsonValue::new(at, self.open.json, self.open.track));
    }
}

impl Machine for InklingMessage {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match &mut self.state {
                State::Thinking(end) => {
                    let end = *end;
                    return Verdict::Prose { end, reasoning: true };
                }
                State::Implied => {
                    let name = implied_name_len(b);
                    if name > NAME_MAX {
                        return Verdict::Prose { end: 0, reasoning: false };
                    }
                    if name == b.len() {
                        return Verdict::More;
                    }
                    match starts(b, name, INVOKE) {
                        Some(true) if name > 0 => self.json(name + INVOKE.len()),
                        None => return Verdict::More,
                        _ => return Verdict::Prose { end: 0, reasoning: false },
                    }
                }
                State::Opening(at) => {
                    let at = *at;
                    for (token, reasoning) in [(TEXT, false), (THINKING, true)] {
                        match starts(b, at, token) {
                            Some(true) => {
                                let end = at + token.len();
                                return Verdict::Prose { end, reasoning };
                            }
                            None => return Verdict::More,
                            Some(false) => {}
                        }
                    }
                    // A tool's name, then the call token; anything else is a reply.
                    let rest = &b[at..b.len().min(at + NAME_MAX + INVOKE.len())];
                    let Some(lt) = rest.iter().position(|&c| c == b'<' || c.is_ascii_whitespace())
                    else {
                        if rest.len() > NAME_MAX {
                            return Verdict::Prose { end: at, reasoning: false };
                        }
                        return Verdict::More;
                    };
                    if rest[lt] == b'<' {
                        // A raw-text invocation or a tool error: the name is markup, the
                        // block's text content.
                        for token in RAW_BLOCKS {
                            match starts(b, at + lt, token) {
                                Some(true) => {
                                    let end = at + lt + token.len();
                                    return Verdict::Prose { end, reasoning: false };
                                }
                                None => return Verdict::More,
                                Some(false) => {}
                            }
                        }
                    }
                    match starts(b, at + lt, INVOKE) {
                        Some(true) if rest[lt] == b'<' => self.json(at + lt + INVOKE.len()),
                        None => return Verdict::More,
                        _ => return Verdict::Prose { end: at, reasoning: false },
                    }
                }
                State::Json(value) => {
                    let scanned = value.scan(buf);
                    if !matches!(scanned, Scanned::More) {
                        // What was read and announced stays known once the JSON closes or
                        // breaks: the stream ends those calls, as one feed of the text would.
                        self.records = std::mem::take(&mut value.scanner.records);
                        self.read_to = value.scanner.pos;
                    }
                    match scanned {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => self.state = State::After(end, end),
                        Scanned::Broken(at) => self.state = State::Broken(at),
                    }
                }
                State::After(end, p) => {
                    let (end, q) = (*end, ws(b, *p));
                    return match starts(b, q, END) {
                        Some(true) => Verdict::End(q + END.len()),
                        Some(false) => Verdict::End(end),
                        None => {
                            self.state = State::After(end, q);
                            Verdict::More
                        }
                    };
                }
                State::Broken(at) => {
                    return match self.end.find(b, *at) {
                        Some(token) if token.pattern == 0 => Verdict::End(token.end),
                        Some(token) => Verdict::End(token.start),
                        None => Verdict::More,
                    };
                }
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        match &self.state {
            State::Json(value) => &value.scanner.records,
            _ => &self.records,
        }
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        match &mut self.state {
            State::Json(value) => Some(&mut value.scanner),
            _ => None,
        }
    }

    fn safe(&self) -> usize {
        match &self.state {
            State::Json(value) => value.scanner.pos,
            _ => self.read_to,
        }
    }
}
