//! The stream machine of token-delimited regions.

use super::super::cursor::Seek;
use super::super::grammar::{Machine, Open, Verdict};
use super::super::machine::{
    arguments_at, close_last, named, scan_arguments, starts, starts_any, ws, JsonValue, Scanned,
};
use super::super::pythonic::PythonicCall;
use super::{Header, Opens, Tokens};
use crate::scan::call_scan::{CallRecord, CallScanner};
use crate::scan::find::find_either;

const FENCE: &str = "```";

#[derive(Clone, Copy, Debug)]
enum State {
    /// Between calls of a section.
    Between(usize),
    /// Text in a section before its first call, from here (`decode::no_call`).
    NoCall(usize),
    /// After `CALL_BEGIN` at `.0`: the header runs to `SEP`, looked for from `.1`.
    Header(usize, usize),
    /// After `SEP`, waiting for the body's first byte (header text range kept).
    Body {
        body: usize,
        header: (usize, usize),
    },
    /// DeepSeek V3: the name line that starts at `.0`, read up to `.1`.
    V3Name(usize, usize),
    V3Fence(usize),
    V3Open(usize),
    Args {
        v3: bool,
    },
    V3Close(usize),
    AfterArgs(usize),
    /// A failed call: its markup runs to `CALL_END`, looked for from here.
    SeekEnd(usize),
    /// The section's list of call dicts ([`Tokens::list`]), read by `list`.
    List,
}

pub(crate) struct SectionCall {
    tokens: &'static Tokens,
    open: Open,
    in_section: bool,
    /// Whether the section has had a call (read or failed).
    calls: bool,
    state: State,
    header_end: Seek,
    section_mark: Seek,
    call_end: Seek,
    args: Option<JsonValue>,
    list: Option<PythonicCall>,
    records: Vec<CallRecord>,
}

impl SectionCall {
    /// A region opened by `tokens.starts[start]` (the section marker, a call marker, or a
    /// marker that opens both at once), ending at `at`.
    pub fn new(tokens: &'static Tokens, start: Option<usize>, at: usize, open: Open) -> Self {
        let opens = start.map_or(Opens::Call, |i| tokens.opens[i]);
        Self {
            tokens,
            open,
            in_section: opens != Opens::Call,
            calls: opens != Opens::Section,
            state: if opens == Opens::Section {
                State::Between(at)
            } else {
                State::Header(at, at)
            },
            header_end: Seek::new(&tokens.header_ends),
            section_mark: Seek::new(&tokens.in_section_marks),
            call_end: Seek::new(&tokens.call_end),
            args: None,
            list: None,
            records: Vec::new(),
        }
    }

    /// After a call: the next one in the section, or the end of the region.
    fn next(&mut self, at: usize) -> Option<Verdict> {
        close_last(&mut self.records);
        self.calls = true;
        if self.in_section {
            self.state = State::Between(at);
            None
        } else {
            Some(Verdict::End(at))
        }
    }

    fn start_args(&mut self, at: usize, v3: bool) {
        self.args = Some(arguments_at(&mut self.records, at, self.open.json));
        self.state = State::Args { v3 };
    }
}

impl Machine for SectionCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        let t = self.tokens;
        loop {
            match self.state {
                State::Between(p) => {
                    let q = ws(b, p);
                    match starts_any(b, q, t.in_section) {
                        Err(()) => {
                            self.state = State::Between(q);
                            return Verdict::More;
                        }
                        Ok(Some(0)) => {
                            let header = q + t.call_begin.len();
                            self.state = State::Header(header, header);
                        }
                        Ok(Some(i)) => return Verdict::End(q + t.in_section[i].len()),
                        Ok(None) if self.calls => return Verdict::End(q),
                        Ok(None) if t.holds_list(b[q], self.open.formats) => {
                            self.list = Some(PythonicCall::dicts(q));
                            self.state = State::List;
                        }
                        Ok(None) => self.state = State::NoCall(q),
                    }
                }
                State::NoCall(p) => {
                    let mark = self.section_mark.find(b, p);
                    // The call's separator before any call end, next call or section end: a
                    // call whose `CALL_BEGIN` was left out (`decode::begin_left_out`).
                    let sep = self.header_end.find(b, p).filter(|m| m.pattern == 0);
                    if sep.is_some_and(|s| mark.is_none_or(|m| s.start < m.start)) {
                        self.state = State::Header(p, p);
                        continue;
                    }
                    return match mark {
                        None => Verdict::More,
                        Some(found) if found.pattern == 0 => Verdict::End(p),
                        Some(found) => Verdict::End(found.end),
                    };
                }
                State::Header(h, from) => match self.header_end.find(b, from) {
                    None => return Verdict::More,
                    Some(found) if found.pattern == 0 => {
                        self.state = State::Body {
                            body: found.end,
                            header: (h, found.start),
                        };
                    }
                    // `CALL_END` (its markup ends after it), or the next call's `CALL_BEGIN`
                    // (before it): no separator, a failed call.
                    Some(found) => {
                        let at = if found.pattern == 1 {
                            found.end
                        } else {
                            found.start
                        };
                        if let Some(verdict) = self.next(at) {
                            return verdict;
                        }
                    }
                },
                State::Body { body, header } => {
                    let q = ws(b, body);
                    if q == b.len() {
                        return Verdict::More;
                    }
                    let header = buf[header.0..header.1].trim();
                    let item = self.records.len();
                    match (t.header)(header, b[q], self.open.formats) {
                        Header::Call { name, id } => {
                            self.records.push(named(&name, id, false, item));
                        }
                        Header::NameOnNextLine => {
                            self.state = State::V3Name(body, body);
                            continue;
                        }
                        Header::Fail => {
                            self.state = State::SeekEnd(body);
                            continue;
                        }
                    }
                    if matches!(b[q], b'{' | b'[') {
                        self.start_args(q, false);
                    } else {
                        if let Some(record) = self.records.last_mut() {
                            record.derived = true;
                        }
                        self.state = State::SeekEnd(q);
                    }
                }
                State::V3Name(body, scanned) => {
                    // The name line ends at `\n` or `\r` (a `\n` after a `\r` is space before
                    // the fence), so a `\r` at a chunk's end decides it as the whole text would.
                    let Some(at) = find_either(b'\n', b'\r', &b[scanned..]).map(|i| scanned + i)
                    else {
                        self.state = State::V3Name(body, b.len());
                        return Verdict::More;
                    };
                    let name = buf[body..at].trim();
                    if name.is_empty() {
                        self.state = State::SeekEnd(body);
                        continue;
                    }
                    let item = self.records.len();
                    self.records.push(named(name, None, false, item));
                    self.state = State::V3Fence(at);
                }
                State::V3Fence(p) => {
                    let q = ws(b, p);
                    match starts(b, q, FENCE) {
                        None => {
                            self.state = State::V3Fence(q);
                            return Verdict::More;
                        }
                        Some(true) => self.state = State::V3Open(q + FENCE.len()),
                        Some(false) => self.state = State::SeekEnd(q),
                    }
                }
                State::V3Open(p) => {
                    let q = match starts(b, p, "json") {
                        None => return Verdict::More,
                        Some(true) => p + "json".len(),
                        Some(false) => p,
                    };
                    let r = ws(b, q);
                    if r == b.len() {
                        return Verdict::More;
                    }
                    if matches!(b[r], b'{' | b'[') {
                        self.start_args(r, true);
                    } else {
                        self.state = State::SeekEnd(r);
                    }
                }
                State::Args { v3 } => {
                    let args = self.args.as_mut().expect("set with the state");
                    match scan_arguments(args, buf, &mut self.records) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => {
                            self.state = if v3 {
                                State::V3Close(end)
                            } else {
                                State::AfterArgs(end)
                            };
                        }
                        Scanned::Broken(at) => self.state = State::SeekEnd(at),
                    }
                }
                State::V3Close(p) => {
                    let q = ws(b, p);
                    match starts(b, q, FENCE) {
                        None => {
                            self.state = State::V3Close(q);
                            return Verdict::More;
                        }
                        Some(true) => self.state = State::AfterArgs(q + FENCE.len()),
                        Some(false) => self.state = State::SeekEnd(q),
                    }
                }
                State::AfterArgs(p) => {
                    let q = ws(b, p);
                    // The call's end token or, left out, the next call's or the section's end.
                    let after = match starts(b, q, t.call_end.text) {
                        Some(true) => Ok(Some(q + t.call_end.text.len())),
                        Some(false) => starts_any(b, q, t.in_section).map(|next| next.map(|_| q)),
                        None => Err(()),
                    };
                    match after {
                        Err(()) => {
                            self.state = State::AfterArgs(q);
                            return Verdict::More;
                        }
                        Ok(Some(at)) => {
                            if let Some(verdict) = self.next(at) {
                                return verdict;
                            }
                        }
                        Ok(None) => self.state = State::SeekEnd(p),
                    }
                }
                State::List => {
                    let list = self.list.as_mut().expect("set with the state");
                    let Verdict::End(end) = list.advance(buf) else {
                        return Verdict::More;
                    };
                    self.list = None;
                    if let Some(verdict) = self.next(end) {
                        return verdict;
                    }
                }
                State::SeekEnd(from) => match self.call_end.find(b, from) {
                    None => return Verdict::More,
                    Some(found) => {
                        if let Some(verdict) = self.next(found.end) {
                            return verdict;
                        }
                    }
                },
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        &self.records
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        match self.state {
            State::Args { .. } => self.args.as_mut().map(|json| &mut json.scanner),
            _ => None,
        }
    }

    fn safe(&self) -> usize {
        self.args.as_ref().map_or(0, |j| j.scanner.pos)
    }
}
