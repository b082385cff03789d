//! The stream machine of harmony messages: a header up to `<|message|>`, then a call's JSON
//! body up to its end marker, or a prose message (content or reasoning) left to text mode.

use super::super::cursor::Seek;
use super::super::grammar::{Machine, Verdict};
use super::super::machine::{named, starts_any, ws};
use super::{classify, recipient_header, Message, ENDS, MESSAGE_NEEDLE, TERMINATORS};
use crate::scan::call_scan::CallRecord;

#[derive(Clone, Copy, Debug)]
enum State {
    Header,
    Body(usize),
    /// The arguments, looked at from here to the end marker.
    Args(usize),
}

pub(crate) struct HarmonyMessage {
    after_start: bool,
    /// Opened at `to=` at the start of a message, not yet known to be a header.
    at_recipient: bool,
    header_start: usize,
    state: State,
    message: Seek,
    end: Seek,
    /// Argument bytes before this are final (no end marker starts before it).
    safe: usize,
    records: Vec<CallRecord>,
}

impl HarmonyMessage {
    /// A message opened by `<|start|>` (`after_start`) or `<|channel|>`, whose header starts at
    /// `at`.
    pub fn new(after_start: bool, at: usize) -> Self {
        Self {
            after_start,
            at_recipient: false,
            header_start: at,
            state: State::Header,
            message: Seek::new(&MESSAGE_NEEDLE),
            end: Seek::new(&TERMINATORS),
            safe: 0,
            records: Vec::new(),
        }
    }

    /// A message opened at `to=` (the completion starts inside the role header, after the
    /// role): its header is read from the `to=`, as after `<|start|>`.
    pub fn at_recipient() -> Self {
        Self {
            at_recipient: true,
            ..Self::new(true, 0)
        }
    }
}

impl Machine for HarmonyMessage {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                State::Header if self.at_recipient => match recipient_header(buf) {
                    None => return Verdict::More,
                    Some(false) => return Verdict::NotMine,
                    Some(true) => self.at_recipient = false,
                },
                State::Header => {
                    let Some(found) = self.message.find(b, self.header_start) else {
                        return Verdict::More;
                    };
                    let body = found.end;
                    match classify(&buf[self.header_start..found.start], self.after_start) {
                        Message::Call(name) => {
                            self.records.push(named(&name, None, false, 0));
                            self.state = State::Body(body);
                        }
                        Message::Analysis => {
                            return Verdict::Prose {
                                end: body,
                                reasoning: true,
                            }
                        }
                        Message::Other => {
                            return Verdict::Prose {
                                end: body,
                                reasoning: false,
                            }
                        }
                    }
                }
                State::Body(p) => {
                    let q = ws(b, p);
                    match starts_any(b, q, &ENDS) {
                        Err(()) => {
                            self.state = State::Body(q);
                            return Verdict::More;
                        }
                        Ok(Some(_)) => {
                            // No arguments: `{}`, sent as compact JSON.
                            if let Some(record) = self.records.last_mut() {
                                record.derived = true;
                            }
                        }
                        Ok(None) => {
                            if let Some(record) = self.records.last_mut() {
                                record.args_start = Some(q);
                            }
                        }
                    }
                    self.safe = q;
                    self.state = State::Args(q);
                }
                State::Args(from) => {
                    let Some(found) = self.end.find(b, from) else {
                        // Bytes before a possible end marker cut by the end of the text are
                        // final.
                        self.safe = self.end.clear_to();
                        return Verdict::More;
                    };
                    if let Some(record) = self.records.last_mut() {
                        if record.args_start.is_some() {
                            record.args_end = Some(found.start);
                        }
                        record.closed = true;
                    }
                    // A new message's `<|start|>` is not part of this one.
                    let end = if found.pattern == ENDS.len() - 1 {
                        found.start
                    } else {
                        found.end
                    };
                    return Verdict::End(end);
                }
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        &self.records
    }

    fn safe(&self) -> usize {
        self.safe
    }

    fn undecided(&self) -> bool {
        self.at_recipient
    }
}
