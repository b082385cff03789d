//! The stream machine of a call list between tokens: the JSON list is read structurally (its
//! calls announced as their names arrive), a pythonic list by the pythonic machine, then the
//! end token, if it follows, is taken into the region.

use super::super::cursor::Seek;
use super::super::grammar::{Machine, Open, Verdict};
use super::super::machine::{starts, ws, JsonValue, Scanned};
use super::super::pythonic::PythonicCall;
use super::super::tool_call::machine::TagCall;
use super::{body_kind, echo_end, tool_role, Body, Shape, Wrap, TAGGED};
use crate::protocol::{Format, FormatSet};
use crate::scan::call_scan::{CallRecord, CallScanner};

enum State {
    /// After HyperCLOVA X 14B's turn header, ending at `.0`: the tool role may follow.
    Turn(usize),
    /// After HyperCLOVA X 14B's reasoning turn header, ending at `.0`.
    Reasoning(usize),
    /// After the start token: the body is not known yet.
    Body(usize),
    /// A JSON list, or call objects one a line: between two objects, the last ends at `.0`
    /// and the next may start at `.1`.
    Json(JsonValue, Option<(usize, usize)>),
    Pythonic(PythonicCall),
    /// After the list, which ends at `.0`: the end token may follow.
    After(usize, usize),
    /// After the list ending at `.0` and its end token, ending at `.1`: an echo of the list may
    /// follow ([`echo_end`]).
    Echo(usize, usize),
    /// A body that is not a list: its markup runs to the end token.
    Broken(usize),
    /// A `<tool_call>` call of a [`Body::Tagged`] body, read by that group's machine.
    Tagged(Box<TagCall>),
    /// After one, ending at `.0`: another may start at `.1`.
    TaggedNext(usize, usize),
}

pub(crate) struct ListCall {
    wrap: &'static Wrap,
    state: State,
    open: Open,
    /// The body's start (where a broken body's search for the end token begins).
    body: usize,
    /// The body is call objects one a line ([`Body::Lines`]).
    lines: bool,
    seek: Option<Seek>,
    /// Argument bytes before this offset are final.
    safe: usize,
    /// The records of a JSON list (a pythonic list keeps its own), or of the `<tool_call>` calls
    /// read so far.
    records: Vec<CallRecord>,
    /// How many of `records` are of `<tool_call>` calls that have ended.
    tagged_done: usize,
}

impl ListCall {
    pub fn new(wrap: &'static Wrap, at: usize, open: Open) -> Self {
        Self {
            wrap,
            state: State::Body(at),
            open,
            body: at,
            lines: false,
            seek: wrap.end.map(|end| Seek::new(end)),
            safe: 0,
            records: Vec::new(),
            tagged_done: 0,
        }
    }

    /// After HyperCLOVA X 14B's turn header, ending at `at`: a list if the tool role follows,
    /// else a region of the header alone.
    pub fn turn(wrap: &'static Wrap, at: usize, open: Open) -> Self {
        Self {
            state: State::Turn(at),
            ..Self::new(wrap, at, open)
        }
    }

    /// After HyperCLOVA X 14B's reasoning turn header, ending at `at`: a reasoning message.
    pub fn reasoning(wrap: &'static Wrap, at: usize, open: Open) -> Self {
        Self {
            state: State::Reasoning(at),
            ..Self::new(wrap, at, open)
        }
    }

    /// The end of the region when its list ends at `end` and the end token may follow at `p`.
    fn after(&self, b: &[u8], end: usize, p: usize) -> Option<Verdict> {
        let Some(token) = self.wrap.end else {
            return Some(Verdict::End(end));
        };
        let q = ws(b, p);
        match starts(b, q, token.text) {
            None => None,
            Some(true) => Some(Verdict::End(q + token.text.len())),
            Some(false) => Some(Verdict::End(end)),
        }
    }
}

impl Machine for ListCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match &mut self.state {
                State::Turn(at) => match tool_role(b, *at) {
                    None => return Verdict::More,
                    Some(Some(body)) => self.state = State::Body(body),
                    Some(None) => return Verdict::End(*at),
                },
                &mut State::Reasoning(end) => {
                    return Verdict::Prose {
                        end,
                        reasoning: true,
                    }
                }
                State::Body(p) => {
                    let q = ws(b, *p);
                    *p = q;
                    self.body = q;
                    self.state = match body_kind(b, q, self.wrap) {
                        None => return Verdict::More,
                        Some(Body::Empty) => {
                            return self.after(b, q, q).unwrap_or(Verdict::More);
                        }
                        Some(kind @ (Body::Json | Body::Lines)) => {
                            // Call objects of another shape than `{"name": …}` are announced
                            // when the list has been read.
                            let track = self.open.track
                                && matches!(self.wrap.shape, Shape::Named | Shape::NamedOrPythonic);
                            self.lines = kind == Body::Lines;
                            State::Json(JsonValue::new(q, self.open.json, track), None)
                        }
                        Some(Body::PythonicLines) => {
                            State::Pythonic(PythonicCall::lines(q, None, ""))
                        }
                        Some(Body::Pythonic) => State::Pythonic(PythonicCall::new(false, q, None)),
                        Some(Body::Other) => State::Broken(q),
                        Some(Body::Tagged) => State::TaggedNext(q, q),
                    };
                }
                State::Json(value, between) => {
                    let Some((end, p)) = *between else {
                        match value.scan(buf) {
                            Scanned::More => return Verdict::More,
                            Scanned::Closed(end) if self.lines => {
                                self.safe = end;
                                *between = Some((end, end));
                            }
                            Scanned::Closed(end) => {
                                self.safe = end;
                                self.records = std::mem::take(&mut value.scanner.records);
                                self.state = State::After(end, end);
                            }
                            Scanned::Broken(_) => {
                                // The calls announced so far end as the broken list's failure.
                                self.records = std::mem::take(&mut value.scanner.records);
                                self.state = State::Broken(self.body);
                            }
                        }
                        continue;
                    };
                    let q = ws(b, p);
                    match b.get(q) {
                        None => {
                            *between = Some((end, q));
                            return Verdict::More;
                        }
                        Some(b'{') => {
                            value.restart(q);
                            *between = None;
                        }
                        Some(_) => {
                            self.records = std::mem::take(&mut value.scanner.records);
                            self.state = State::After(end, q);
                        }
                    }
                }
                State::Pythonic(list) => match list.advance(buf) {
                    Verdict::End(end) => {
                        self.records = list.records().to_vec();
                        self.state = State::After(end, end);
                    }
                    Verdict::More => return Verdict::More,
                    other => return other,
                },
                State::After(end, p) => {
                    let (end, p) = (*end, *p);
                    match self.after(b, end, p) {
                        Some(Verdict::End(closed)) if closed > end => {
                            self.state = State::Echo(end, closed);
                        }
                        Some(verdict) => return verdict,
                        None => {
                            self.state = State::After(end, ws(b, p));
                            return Verdict::More;
                        }
                    }
                }
                State::Echo(end, closed) => {
                    let (list, closed) = (self.body..*end, *closed);
                    let token = self.wrap.end.map_or("", |token| token.text);
                    return match echo_end(b, list, closed, token) {
                        None => Verdict::More,
                        Some(echo) => Verdict::End(echo.unwrap_or(closed)),
                    };
                }
                State::Tagged(call) => {
                    let verdict = call.advance(buf);
                    // The group's machine numbers its one call 0: items follow the calls before.
                    let done = self.tagged_done;
                    self.records.truncate(done);
                    self.records.extend(call.records().iter().cloned().map(|mut record| {
                        record.item += done;
                        record
                    }));
                    match verdict {
                        Verdict::End(end) => {
                            self.tagged_done = self.records.len();
                            self.state = State::TaggedNext(end, end);
                        }
                        other => return other,
                    }
                }
                State::TaggedNext(end, p) => {
                    let (end, q) = (*end, ws(b, *p));
                    self.state = match starts(b, q, TAGGED) {
                        None => {
                            self.state = State::TaggedNext(end, q);
                            return Verdict::More;
                        }
                        Some(true) => {
                            let open = Open {
                                formats: FormatSet::only(Format::Glm45),
                                ..self.open
                            };
                            State::Tagged(Box::new(TagCall::glm(q + TAGGED.len(), open)))
                        }
                        Some(false) => State::After(end, q),
                    };
                }
                State::Broken(from) => {
                    let from = *from;
                    return match self.seek.as_mut().and_then(|seek| seek.find(b, from)) {
                        Some(token) => Verdict::End(token.end),
                        None => Verdict::More,
                    };
                }
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        match &self.state {
            State::Json(value, _) => &value.scanner.records,
            State::Pythonic(list) => list.records(),
            _ => &self.records,
        }
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        match &mut self.state {
            State::Json(value, None) => Some(&mut value.scanner),
            _ => None,
        }
    }

    fn safe(&self) -> usize {
        match &self.state {
            State::Json(value, None) => value.scanner.pos,
            _ => self.safe,
        }
    }
}
