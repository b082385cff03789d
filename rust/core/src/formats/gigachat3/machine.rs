//! The stream machine of a GigaChat 3 region: the role of a `<|message_sep|>` message, then one
//! JSON call and an optional `</s>`.

use super::super::cursor::Seek;
use super::super::grammar::{Machine, Open, Verdict};
use super::super::machine::{starts, ws, JsonValue, Scanned};
use super::{EOS, ROLE, ROLE_SEP, WRAP};
use crate::scan::call_scan::{CallRecord, CallScanner};

#[derive(Clone, Copy, Debug)]
enum State {
    /// After the opening marker (which ends at `.0`): the role, from `.1`.
    Role(usize, usize),
    RoleSep(usize, usize),
    Body(usize),
    Json,
    AfterJson(usize, usize),
    /// A failed call: its markup runs to `</s>` (or the end of the text), looked for from here.
    SeekEos(usize),
}

/// The marker that opened the region.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Opened {
    /// `<|message_sep|>`: the role follows.
    MessageSep,
    /// The role `function call` at the start of a message: `<|role_sep|>` follows.
    Role,
    /// `<|function_call|>`: the call follows.
    FunctionCall,
}

pub(crate) struct GigaCall {
    open: Open,
    state: State,
    eos: Seek,
    json: Option<JsonValue>,
}

impl GigaCall {
    /// A region opened by the marker `opened`, ending at `at`.
    pub fn new(opened: Opened, at: usize, open: Open) -> Self {
        let state = match opened {
            Opened::MessageSep => State::Role(at, at),
            Opened::Role => State::RoleSep(at, at),
            Opened::FunctionCall => State::Body(at),
        };
        Self {
            open,
            state,
            eos: Seek::new(&WRAP.ends),
            json: None,
        }
    }
}

impl Machine for GigaCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                State::Role(marker_end, p) | State::RoleSep(marker_end, p) => {
                    let q = ws(b, p);
                    let role = matches!(self.state, State::Role(..));
                    let expected = if role { ROLE } else { ROLE_SEP };
                    match starts(b, q, expected) {
                        None => {
                            self.state = if role {
                                State::Role(marker_end, q)
                            } else {
                                State::RoleSep(marker_end, q)
                            };
                            return Verdict::More;
                        }
                        // Another role: the separator was prose.
                        Some(false) => return Verdict::End(marker_end),
                        Some(true) if role => {
                            self.state = State::RoleSep(marker_end, q + ROLE.len());
                        }
                        Some(true) => self.state = State::Body(q + ROLE_SEP.len()),
                    }
                }
                State::Body(p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = State::Body(q);
                        return Verdict::More;
                    }
                    self.json = Some(JsonValue::new(q, self.open.json, self.open.track));
                    self.state = State::Json;
                }
                State::Json => {
                    let json = self.json.as_mut().expect("set with the state");
                    match json.scan(buf) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => self.state = State::AfterJson(end, end),
                        Scanned::Broken(at) => self.state = State::SeekEos(at),
                    }
                }
                State::AfterJson(json_end, p) => {
                    let q = ws(b, p);
                    match starts(b, q, EOS) {
                        None => {
                            self.state = State::AfterJson(json_end, q);
                            return Verdict::More;
                        }
                        Some(true) => return Verdict::End(q + EOS.len()),
                        Some(false) => return Verdict::End(json_end),
                    }
                }
                State::SeekEos(from) => {
                    return match self.eos.find(b, from) {
                        Some(found) => Verdict::End(found.end),
                        None => Verdict::More,
                    };
                }
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        self.json.as_ref().map_or(&[], |json| &json.scanner.records)
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        match self.state {
            State::Json => self.json.as_mut().map(|json| &mut json.scanner),
            _ => None,
        }
    }

    fn safe(&self) -> usize {
        self.json.as_ref().map_or(0, |j| j.scanner.pos)
    }
}
