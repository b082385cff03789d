//! The stream machine of pythonic regions: the list is followed through its strings and
//! brackets, and each call announced at its `name(`.

use super::super::grammar::{Machine, Open, Verdict};
use super::super::llama3_json::LlamaCall;
use super::super::machine::{close_last, named, starts, ws};
use super::starts_call_list;
use crate::scan::call_scan::{CallRecord, CallScanner};

#[derive(Clone, Copy, Debug)]
enum State {
    /// After `<|python_start|>`: the list must open.
    Open(usize),
    List,
    AfterList(usize, usize),
    /// After a bare list that ended at `.0`, from `.1`: another list may follow it.
    NextList(usize, usize),
    ToEnd,
}

pub(crate) struct PythonicCall {
    bare: bool,
    /// The token that may close the list (`None`: the region ends with the list).
    end: Option<&'static str>,
    /// Calls one after another without brackets, up to the next `<` between calls (Olmo 3).
    lines: bool,
    /// Taken off the end of each call's name (`.call` of Llama 3's built-in tools).
    suffix: &'static str,
    /// Before the first `(` of a bare list: only `[`, a dotted name and spaces may come (or, for
    /// a list of dicts, `{` and a quote).
    prelude: bool,
    /// A bare list may be calls (`[f(`: pythonic is read).
    calls: bool,
    /// A bare list may be Python dicts (`[{'`: sarashina is read); `{` was read in the prelude.
    dicts: bool,
    dict_open: bool,
    /// The list holds calls whose names are announced (not dicts).
    names: bool,
    state: State,
    pos: usize,
    list_start: usize,
    depth: usize,
    quote: Option<u8>,
    escaped: bool,
    name_start: Option<usize>,
    records: Vec<CallRecord>,
    /// After `<|python_start|>`: Llama 3 call objects may stand there instead of a list, as
    /// Llama 4 writes them (`Open` for their machine, [`Self::start_objects`]).
    start_objects: Option<Open>,
    /// The machine of those objects, once one opened; `objects_done` when they ended.
    objects: Option<Box<LlamaCall>>,
    objects_done: bool,
}

/// `name` without `suffix` (when it is more than that).
pub(crate) fn strip<'n>(name: &'n str, suffix: &str) -> &'n str {
    name.strip_suffix(suffix).filter(|n| !n.is_empty()).unwrap_or(name)
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-' || b >= 0x80
}

impl PythonicCall {
    /// A list at `at`: at the start of a message (`bare`), or after a start token, closed by
    /// `end` when it follows.
    pub fn new(bare: bool, at: usize, end: Option<&'static str>) -> Self {
        Self {
            bare,
            end,
            lines: false,
            suffix: "",
            prelude: bare,
            calls: true,
            dicts: false,
            dict_open: false,
            names: true,
            state: if bare { State::List } else { State::Open(at) },
            pos: at,
            list_start: at,
            depth: 0,
            quote: None,
            escaped: false,
            name_start: None,
            records: Vec::new(),
            start_objects: None,
            objects: None,
            objects_done: false,
        }
    }
}

impl PythonicCall {
    /// A bare candidate that is a list of calls only when `calls`, or of Python dicts
    /// (`sarashina`) when `dicts`.
    pub fn bare_kinds(self, calls: bool, dicts: bool) -> Self {
        Self {
            calls,
            dicts,
            ..self
        }
    }

    /// After `<|python_start|>` (this is no bare list): a `{` opens Llama 3 call objects, read
    /// by `open`'s formats; a list is read only when `calls` ([`Self::bare_kinds`]), and
    /// anything else ends the region at the start token (given back as text).
    pub fn start_objects(self, open: Open) -> Self {
        Self {
            start_objects: (!self.bare).then_some(open),
            ..self
        }
    }

    /// A list of Python dicts (or one dict) at `at`, after a start token (`sarashina`'s, which
    /// `solar_open`'s group reads); the region ends with it.
    pub fn dicts(at: usize) -> Self {
        Self {
            dicts: true,
            names: false,
            ..Self::new(false, at, None)
        }
    }

    /// Calls without brackets at `at`, one a line, that end at a `<` between calls; `suffix` is
    /// taken off their names.
    pub fn lines(at: usize, end: Option<&'static str>, suffix: &'static str) -> Self {
        Self {
            lines: true,
            suffix,
            state: State::List,
            depth: 1,
            ..Self::new(false, at, end)
        }
    }
}

/// Whether `rest` starts with another call list (`Some(true)`), cannot (`Some(false)`), or
/// may once more text comes (`None`).
fn list_follows(rest: &str) -> Option<bool> {
    let b = rest.as_bytes();
    if starts_call_list(rest) {
        Some(true)
    } else if b.is_empty()
        || (b[0] == b'[' && b[1..].iter().all(|&c| is_name_byte(c) || c.is_ascii_whitespace()))
    {
        None
    } else {
        Some(false)
    }
}

impl Machine for PythonicCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        if let Some(objects) = self.objects.as_mut().filter(|_| !self.objects_done) {
            match objects.advance(buf) {
                Verdict::End(end) => {
                    self.objects_done = true;
                    self.state = State::AfterList(end, end);
                }
                verdict => return verdict,
            }
        }
        let b = buf.as_bytes();
        loop {
            match self.state {
                State::Open(p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = State::Open(q);
                        return Verdict::More;
                    }
                    if let Some(open) = self.start_objects {
                        if b[q] == b'{' {
                            let objects = LlamaCall::new(false, q, open);
                            self.objects = Some(Box::new(objects));
                            return self.advance(buf);
                        }
                        if b[q] != b'[' || !self.calls {
                            return Verdict::End(self.list_start);
                        }
                    }
                    if b[q] != b'[' && !(self.dicts && b[q] == b'{') {
                        self.state = State::ToEnd;
                        continue;
                    }
                    self.pos = q;
                    self.list_start = q;
                    self.state = State::List;
                }
                State::List => {
                    if let Some(verdict) = self.list(buf) {
                        return verdict;
                    }
                }
                State::AfterList(end, p) => {
                    let Some(token) = self.end else {
                        return Verdict::End(end);
                    };
                    let q = ws(b, p);
                    return match starts(b, q, token) {
                        None => {
                            self.state = State::AfterList(end, q);
                            Verdict::More
                        }
                        Some(true) => Verdict::End(q + token.len()),
                        Some(false) => Verdict::End(end),
                    };
                }
                State::NextList(end, p) => {
                    let q = ws(b, p);
                    match list_follows(&buf[q..]) {
                        None => {
                            self.state = State::NextList(end, q);
                            return Verdict::More;
                        }
                        Some(false) => return Verdict::End(end),
                        Some(true) => {
                            self.pos = q;
                            self.list_start = q;
                            self.state = State::List;
                        }
                    }
                }
                State::ToEnd => return Verdict::More,
            }
        }
    }

    fn records(&self) -> &[CallRecord] {
        match &self.objects {
            Some(objects) => objects.records(),
            None => &self.records,
        }
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        match &mut self.objects {
            Some(objects) if !self.objects_done => objects.reading_json(),
            _ => None,
        }
    }

    fn safe(&self) -> usize {
        self.objects.as_ref().map_or(0, |objects| objects.safe())
    }

    fn undecided(&self) -> bool {
        self.prelude
    }
}

impl PythonicCall {
    /// Scans the list: strings, nesting, and the `name(` of each call at depth 1.
    fn list(&mut self, buf: &str) -> Option<Verdict> {
        let b = buf.as_bytes();
        while self.pos < b.len() {
            let i = self.pos;
            if let Some(quote) = self.quote {
                if self.escaped {
                    self.escaped = false;
                    self.pos += 1;
                    continue;
                }
                let Some(found) = memchr::memchr2(quote, b'\\', &b[i..]) else {
                    self.pos = b.len();
                    break;
                };
                self.pos = i + found + 1;
                match b[i + found] {
                    b'\\' => self.escaped = true,
                    _ => self.quote = None,
                }
                continue;
            }
            self.pos = i + 1;
            let c = b[i];
            match c {
                b'\'' | b'"' => {
                    if self.prelude {
                        // A dict's first key: a list of Python dicts, whose items are not
                        // announced (the decoder reads them whole).
                        if !(self.dict_open && c == b'\'') {
                            return Some(Verdict::NotMine);
                        }
                        self.prelude = false;
                        self.names = false;
                    }
                    self.quote = Some(c);
                    self.name_start = None;
                }
                b'{' if self.prelude && self.dicts && self.depth == 1 && !self.dict_open => {
                    if self.name_start.is_some() {
                        return Some(Verdict::NotMine);
                    }
                    self.dict_open = true;
                    self.depth += 1;
                }
                b'(' | b'[' | b'{' => {
                    if c == b'(' && self.depth == 1 && self.names {
                        if let Some(start) = self.name_start.take() {
                            if self.prelude {
                                if !self.calls || !starts_call_list(&buf[self.list_start..=i]) {
                                    return Some(Verdict::NotMine);
                                }
                                self.prelude = false;
                            }
                            let item = self.records.len();
                            self.records
                                .push(named(strip(buf[start..i].trim(), self.suffix), None, true, item));
                        }
                    }
                    if self.prelude && (c != b'[' || self.depth > 0) {
                        return Some(Verdict::NotMine);
                    }
                    self.depth += 1;
                }
                b')' | b']' | b'}' => {
                    if self.prelude {
                        return Some(Verdict::NotMine);
                    }
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 1 && c == b')' {
                        close_last(&mut self.records);
                    }
                    if self.depth == 0 && !self.lines {
                        let end = i + 1;
                        // Pythonic lists may follow one another; a list of dicts stands alone.
                        self.state = match self.bare && self.names {
                            true => State::NextList(end, end),
                            false => State::AfterList(end, end),
                        };
                        return None;
                    }
                }
                b'<' if self.lines && self.depth <= 1 => {
                    self.state = State::AfterList(i, i);
                    return None;
                }
                b' ' | b'\t' | b'\r' | b'\n' => {}
                _ if self.depth == 1 && is_name_byte(c) => {
                    self.name_start.get_or_insert(i);
                }
                _ => {
                    if self.prelude {
                        return Some(Verdict::NotMine);
                    }
                    if self.depth == 1 {
                        self.name_start = None;
                    }
                }
            }
        }
        Some(Verdict::More)
    }
}
