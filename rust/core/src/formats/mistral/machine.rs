//! The stream machine of `[TOOL_CALLS]` regions: one call (v11) or one JSON list (before v11).

use super::super::cursor::Seek;
use super::super::grammar::{Machine, Open, Verdict};
use super::super::machine::{
    arguments_at, close_last, named, scan_arguments, starts_any, ws, JsonValue, Scanned,
};
use super::{next_call_name, ARGS, CALL_ID, TOOL_CALLS_NEEDLE};
use crate::scan::call_scan::{CallRecord, CallScanner};
use crate::scan::find::{find_byte, find_either};

#[derive(Clone, Copy, Debug)]
enum State {
    Start(usize),
    /// Pre-v11: a JSON call or array of calls.
    Pre,
    /// A name that starts here, read up to `scanned`.
    Name { start: usize, scanned: usize },
    /// A `[CALL_ID]` id that starts here, read up to `scanned`.
    Id { start: usize, scanned: usize },
    ArgsOpen(usize),
    Args,
    /// A failed call: its markup runs to the next `[TOOL_CALLS]`, looked for from here.
    SeekNext(usize),
    /// After a v11 call's arguments, which end here: another call may follow without its
    /// `[TOOL_CALLS]` (`next_call_name`).
    AfterCall(usize),
}

pub(crate) struct MistralCall {
    open: Open,
    state: State,
    next: Seek,
    pre: Option<JsonValue>,
    args: Option<JsonValue>,
    records: Vec<CallRecord>,
    name: (usize, usize),
}

impl MistralCall {
    pub fn new(at: usize, open: Open) -> Self {
        Self {
            open,
            state: State::Start(at),
            next: Seek::new(&TOOL_CALLS_NEEDLE),
            pre: None,
            args: None,
            records: Vec::new(),
            name: (0, 0),
        }
    }

    /// After `NAME[` (and `ID[`): `[CALL_ID]` or `[ARGS]` must follow.
    fn after_name(&mut self, buf: &str, at: usize, id: Option<String>) -> Option<Verdict> {
        let b = buf.as_bytes();
        let tags: &[&str] = if id.is_none() {
            &[ARGS, CALL_ID]
        } else {
            &[ARGS]
        };
        match starts_any(b, at, tags) {
            Err(()) => Some(Verdict::More),
            Ok(Some(0)) => {
                let name = &buf[self.name.0..self.name.1];
                let item = self.records.len();
                self.records.push(named(name, id, false, item));
                self.state = State::ArgsOpen(at + ARGS.len());
                None
            }
            Ok(Some(_)) => {
                let start = at + CALL_ID.len();
                self.state = State::Id {
                    start,
                    scanned: start,
                };
                None
            }
            Ok(None) => {
                self.state = State::SeekNext(at);
                None
            }
        }
    }
}

/// The first `[` at or after `scanned`: `Err` with the new resume point while none has come.
fn bracket(b: &[u8], scanned: usize) -> Result<usize, usize> {
    find_byte(b'[', &b[scanned..])
        .map(|i| scanned + i)
        .ok_or(b.len())
}

/// The end of a name: the first `[` (of `[ARGS]`/`[CALL_ID]`) or `{` (arguments whose `[ARGS]`
/// was dropped) at or after `scanned`, as [`bracket`].
fn name_end(b: &[u8], scanned: usize) -> Result<usize, usize> {
    find_either(b'[', b'{', &b[scanned..])
        .map(|i| scanned + i)
        .ok_or(b.len())
}

impl Machine for MistralCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                State::Start(p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = State::Start(q);
                        return Verdict::More;
                    }
                    if matches!(b[q], b'[' | b'{') {
                        self.pre = Some(JsonValue::new(q, self.open.json, self.open.track));
                        self.state = State::Pre;
                    } else {
                        self.state = State::Name {
                            start: q,
                            scanned: q,
                        };
                    }
                }
                State::Pre => {
                    let pre = self.pre.as_mut().expect("set with the state");
                    match pre.scan(buf) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => return Verdict::End(end),
                        Scanned::Broken(at) => self.state = State::SeekNext(at),
                    }
                }
                State::Name { start, scanned } => {
                    let at = match name_end(b, scanned) {
                        Ok(at) => at,
                        Err(scanned) => {
                            self.state = State::Name { start, scanned };
                            return Verdict::More;
                        }
                    };
                    let name = buf[start..at].trim();
                    if name.is_empty() {
                        self.state = State::SeekNext(start);
                        continue;
                    }
                    let offset = buf[start..].find(name).unwrap_or(0) + start;
                    self.name = (offset, offset + name.len());
                    if b[at] == b'{' {
                        let item = self.records.len();
                        self.records.push(named(name, None, false, item));
                        self.state = State::ArgsOpen(at);
                        continue;
                    }
                    // Wait here until `[ARGS]` or `[CALL_ID]` can be told apart.
                    self.state = State::Name { start, scanned: at };
                    if let Some(verdict) = self.after_name(buf, at, None) {
                        return verdict;
                    }
                }
                State::Id { start, scanned } => {
                    let at = match bracket(b, scanned) {
                        Ok(at) => at,
                        Err(scanned) => {
                            self.state = State::Id { start, scanned };
                            return Verdict::More;
                        }
                    };
                    let id = buf[start..at].trim().to_owned();
                    self.state = State::Id { start, scanned: at };
                    if let Some(verdict) = self.after_name(buf, at, Some(id)) {
                        return verdict;
                    }
                }
                State::ArgsOpen(p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = State::ArgsOpen(q);
                        return Verdict::More;
                    }
                    if matches!(b[q], b'{' | b'[') {
                        self.args = Some(arguments_at(&mut self.records, q, self.open.json));
                        self.state = State::Args;
                    } else {
                        if let Some(record) = self.records.last_mut() {
                            record.derived = true;
                        }
                        self.state = State::SeekNext(q);
                    }
                }
                State::Args => {
                    let args = self.args.as_mut().expect("set with the state");
                    match scan_arguments(args, buf, &mut self.records) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => {
                            close_last(&mut self.records);
                            self.state = State::AfterCall(end);
                        }
                        Scanned::Broken(at) => self.state = State::SeekNext(at),
                    }
                }
                State::AfterCall(end) => match next_call_name(b, end) {
                    Err(()) => return Verdict::More,
                    Ok(None) => return Verdict::End(end),
                    Ok(Some(_)) => {
                        self.state = State::Name {
                            start: end,
                            scanned: end,
                        }
                    }
                },
                State::SeekNext(from) => {
                    return match self.next.find(b, from) {
                        Some(found) => Verdict::End(found.start),
                        None => Verdict::More,
                    }
                }
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        match &self.pre {
            Some(json) => &json.scanner.records,
            None => &self.records,
        }
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        match self.state {
            State::Args if self.pre.is_none() => self.args.as_mut().map(|json| &mut json.scanner),
            _ => None,
        }
    }

    fn safe(&self) -> usize {
        self.pre
            .as_ref()
            .or(self.args.as_ref())
            .map_or(0, |j| j.scanner.pos)
    }
}
