//! The stream machine of a Functionary region: from a `>>>`, calls back to back until the
//! markup stops; a first `all` header makes the region a prose message.

use super::super::cursor::Seek;
use super::super::grammar::{Machine, Open, Verdict};
use super::super::machine::{arguments_at, close_last, named, scan_arguments, starts, JsonValue, Scanned};
use super::{header, Header, MARKER, MARKER_NEEDLE, PYTHON};
use crate::scan::call_scan::{CallRecord, CallScanner};

#[derive(Clone, Copy, Debug)]
enum State {
    /// The header of the `>>>` at `marker`, which ends at `at`.
    Header { marker: usize, at: usize },
    Args,
    /// After a call's arguments, which end here: a `>>>` right after them goes on.
    After(usize),
    /// Content after calls, to the next `>>>`, looked for from here.
    Content(usize),
    /// Raw code: the rest of the text.
    Code,
    /// A failed call: its markup runs to the next `>>>`, looked for from here.
    SeekNext(usize),
}

pub(crate) struct FunctionaryCall {
    open: Open,
    state: State,
    next: Seek,
    args: Option<JsonValue>,
    records: Vec<CallRecord>,
}

impl FunctionaryCall {
    pub fn new(at: usize, open: Open) -> Self {
        Self {
            open,
            state: State::Header {
                marker: at.saturating_sub(MARKER.len()),
                at,
            },
            next: Seek::new(&MARKER_NEEDLE),
            args: None,
            records: Vec::new(),
        }
    }
}

impl Machine for FunctionaryCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                State::Header { marker, at } => {
                    let first = marker == 0;
                    match header(b, at, false) {
                        Header::Undecided => return Verdict::More,
                        // The region's own `>>>` alone is prose; a later one is left to text.
                        Header::Prose if first => return Verdict::End(at),
                        Header::Prose => return Verdict::End(marker),
                        Header::Content(body) if first => {
                            return Verdict::Prose {
                                end: body,
                                reasoning: false,
                            }
                        }
                        Header::Content(body) => self.state = State::Content(body),
                        Header::Code(_) => {
                            let item = self.records.len();
                            self.records.push(named(PYTHON, None, true, item));
                            self.state = State::Code;
                        }
                        Header::Call { name, args } => {
                            let item = self.records.len();
                            self.records.push(named(&buf[name], None, false, item));
                            self.args = Some(arguments_at(&mut self.records, args, self.open.json));
                            self.state = State::Args;
                        }
                    }
                }
                State::Args => {
                    let args = self.args.as_mut().expect("set with the state");
                    match scan_arguments(args, buf, &mut self.records) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => {
                            close_last(&mut self.records);
                            self.state = State::After(end);
                        }
                        Scanned::Broken(at) => self.state = State::SeekNext(at),
                    }
                }
                State::After(end) => match starts(b, end, MARKER) {
                    None => return Verdict::More,
                    Some(true) => {
                        self.state = State::Header {
                            marker: end,
                            at: end + MARKER.len(),
                        }
                    }
                    Some(false) => return Verdict::End(end),
                },
                State::Content(from) | State::SeekNext(from) => match self.next.find(b, from) {
                    Some(found) => {
                        self.state = State::Header {
                            marker: found.start,
                            at: found.end,
                        }
                    }
                    None => return Verdict::More,
                },
                State::Code => return Verdict::More,
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        &self.records
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        match self.state {
            State::Args => self.args.as_mut().map(|json| &mut json.scanner),
            _ => None,
        }
    }

    fn safe(&self) -> usize {
        self.args.as_ref().map_or(0, |j| j.scanner.pos)
    }
}
