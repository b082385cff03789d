//! The stream machine of harmony and Muse Glimmer messages: a header up to `<|message|>`, then
//! a call's JSON body up to its end marker or its ATEM block, or a prose message (content or
//! reasoning) left to text mode.

use super::super::cursor::Seek;
use super::super::grammar::{Machine, Open, Verdict};
use super::super::invoke::machine::InvokeBlock;
use super::super::machine::{named, starts_any, ws};
use super::{
    block_at, block_open_len, classify, recipient_header, Message, ATEM, ENDS, MESSAGE_NEEDLE,
    TERMINATORS,
};
use crate::scan::call_scan::{CallRecord, CallScanner};

#[derive(Clone, Copy, Debug)]
enum State {
    Header,
    /// A call's body, from here: an ATEM block or JSON arguments.
    Body(usize),
    /// JSON arguments, from here.
    Json(usize),
    /// An ATEM block, read by [`HarmonyMessage::block`].
    Block,
    /// The arguments, looked at from here to the end marker.
    Args(usize),
}

pub(crate) struct HarmonyMessage {
    open: Open,
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
    /// The recipient of a call message whose body is not known yet to be JSON arguments.
    recipient: Option<String>,
    /// The ATEM block of a Muse Glimmer call (or one with no framing), read as the invoke
    /// shape reads it.
    block: Option<InvokeBlock>,
}

impl HarmonyMessage {
    /// A message opened by `<|start|>` (`after_start`) or `<|channel|>`, whose header starts at
    /// `at`.
    pub fn new(after_start: bool, at: usize, open: Open) -> Self {
        Self {
            open,
            after_start,
            at_recipient: false,
            header_start: at,
            state: State::Header,
            message: Seek::new(&MESSAGE_NEEDLE),
            end: Seek::new(&TERMINATORS),
            safe: 0,
            records: Vec::new(),
            recipient: None,
            block: None,
        }
    }

    /// A message opened at `to=` (the completion starts inside the role header, after the
    /// role): its header is read from the `to=`, as after `<|start|>`.
    pub fn at_recipient(open: Open) -> Self {
        Self {
            at_recipient: true,
            ..Self::new(true, 0, open)
        }
    }

    /// An ATEM block whose opening tag ends at `at`.
    pub fn block(at: usize, open: Open) -> Self {
        Self {
            state: State::Block,
            block: Some(InvokeBlock::new(&ATEM, 0, at, open)),
            ..Self::new(false, at, open)
        }
    }
}

impl Machine for HarmonyMessage {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                State::Header if self.at_recipient => match recipient_header(buf, self.open.formats) {
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
                            self.recipient = Some(name);
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
                    match block_at(b, q, self.open.formats) {
                        None => {
                            self.state = State::Body(q);
                            return Verdict::More;
                        }
                        // The block's invokes are the calls.
                        Some(Some(block)) => {
                            let at = q + block_open_len(block);
                            self.block = Some(InvokeBlock::new(&ATEM, block, at, self.open));
                            self.state = State::Block;
                        }
                        Some(None) => {
                            let name = self.recipient.take().unwrap_or_default();
                            self.records.push(named(&name, None, false, 0));
                            self.state = State::Json(q);
                        }
                    }
                }
                State::Block => {
                    let block = self.block.as_mut().expect("set with the state");
                    return block.advance(buf);
                }
                State::Json(p) => {
                    let q = ws(b, p);
                    match starts_any(b, q, &ENDS) {
                        Err(()) => {
                            self.state = State::Json(q);
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
        match &self.block {
            Some(block) => block.records(),
            None => &self.records,
        }
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        self.block.as_mut()?.reading_json()
    }

    fn safe(&self) -> usize {
        match &self.block {
            Some(block) => block.safe(),
            None => self.safe,
        }
    }

    fn undecided(&self) -> bool {
        self.at_recipient
    }
}
