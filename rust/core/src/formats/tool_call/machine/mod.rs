//! The stream machine of the `<tool_call>` group: one call per region, from `<tool_call>` (or a
//! bare `<function=`, `<function name=`, or another wrapper) to the end of its markup. The
//! glm45 pair states are read in [`pairs`].

mod pairs;
mod params;

use super::super::cursor::Seek;
use super::super::grammar::{Machine, Open, Verdict};
use super::super::machine::{
    arguments_at, close_last, named, scan_arguments, starts, starts_any, ws, JsonValue, Scanned,
};
use super::super::schema::ParamTypes;
use super::value::{ValueEnd, ValueScan};
use super::tags::{
    body_format, body_start, name_end, function_ends, function_name, past_stop, is_call_object, parameter_name, quoted_name,
    reads_json, reopens, shape_of, stray_close, typed_name, Body, Pairs, Wrap, CLOSE, FENCE, FUNCTION,
    FUNCTION_CLOSE, FUNCTION_ENDS, FUNCTION_TAG, GLM_PAIRS, OPEN, PARAMETER, TOOL_CALL,
};
use super::super::cursor::{failed_end, Markers};
use crate::protocol::Format;
use crate::scan::call_scan::{CallRecord, CallScanner};
use crate::scan::find::find_any3;

use super::super::rwkv::legacy::{after_line, INVOKE};
use super::state::{ArgsClose, State};

pub(crate) struct TagCall {
    open: Open,
    /// The tag around the call (else a bare `<function=…>`, closed by `</function>`).
    wrap: Option<&'static Wrap>,
    /// Where the opening tag starts and ends.
    start: usize,
    at: usize,
    state: State,
    close: Seek,
    /// The wrapper's tags in a glm45 value (`State::GQuotedCall`), which may be dense with `<`.
    quoted_calls: Seek,
    key_close: Seek,
    value_close: Seek,
    json: Option<JsonValue>,
    args: Option<JsonValue>,
    records: Vec<CallRecord>,
}

impl TagCall {
    pub fn new(wrap: Option<&'static Wrap>, at: usize, open: Open) -> Self {
        let (start, scanned) = (at, at);
        let pairs = wrap.map_or(&GLM_PAIRS, |wrap| wrap.pairs);
        let state = match wrap.map(|wrap| wrap.body) {
            // After the `<function=` marker: its name starts at its `=`.
            None => {
                let start = at - (FUNCTION.len() - FUNCTION_TAG.len());
                State::QName {
                    start,
                    scanned: start,
                }
            }
            Some(Body::FunctionName) => State::FName { start, scanned },
            Some(_) => State::Shape(at),
        };
        Self {
            open,
            wrap,
            start: 0,
            at,
            state,
            close: Seek::new(wrap.map_or(&FUNCTION_ENDS, |wrap| &wrap.ends)),
            quoted_calls: {
                let wrap = wrap.unwrap_or(&TOOL_CALL);
                Seek::dense(&wrap.ends, &wrap.ends_searcher)
            },
            key_close: Seek::new(&pairs.key_close_needle),
            value_close: Seek::new(&pairs.value_close_needle),
            json: None,
            args: None,
            records: Vec::new(),
        }
    }

    /// A glm45-shaped call (a name, then `<arg_key>`/`<arg_value>` pairs) whose `<tool_call>`
    /// ends at `at` (HY v3's calls in a `<tool_calls>` list).
    pub fn glm(at: usize, open: Open) -> Self {
        let mut call = Self::new(Some(&TOOL_CALL), at, open);
        call.start = at - OPEN.len();
        call.state = State::GName {
            start: at,
            scanned: at,
        };
        call
    }

    /// After a `</function>` ending at `after`: the region ends, or the wrapper's closing tag
    /// follows.
    fn function_closed(&mut self, after: usize) -> Option<Verdict> {
        match self.wrap {
            Some(wrap) if wrap.body != Body::FunctionName => {
                self.state = State::QAfterFunction(after);
                None
            }
            _ => {
                self.state = State::StrayClose(after);
                None
            }
        }
    }

    fn end(&mut self, end: usize) -> Verdict {
        close_last(&mut self.records);
        Verdict::End(end)
    }

    /// What ends a call in the wrapper (`<tool_call>`'s for a bare function block, whose
    /// stray `</tool_call>` may follow).
    fn ends(&self) -> &'static Markers {
        self.wrap.map_or(&TOOL_CALL.ends, |wrap| &wrap.ends)
    }

    /// The tags of the wrapper's key and value pairs.
    fn pairs(&self) -> &'static Pairs {
        self.wrap.map_or(&GLM_PAIRS, |wrap| wrap.pairs)
    }

    /// At `q`, where the call's markup may end: the next call's opening tag ends it there (its
    /// closing tag left out, `tags::close_tag`) unless it starts the same call written again
    /// (read on in `then` after the repeat); anything else makes it a failed call.
    fn reopened(
        &mut self,
        b: &[u8],
        q: usize,
        ends: &Markers,
        then: fn(usize) -> State,
    ) -> Option<Verdict> {
        match reopens(b, q, ends) {
            None => Some(Verdict::More),
            Some(true) => {
                let len = b[self.start..q].trim_ascii_end().len();
                self.state = State::Repeat {
                    from: q,
                    len,
                    matched: 0,
                    then,
                };
                None
            }
            Some(false) => {
                self.state = State::SeekClose(q);
                None
            }
        }
    }

    /// At `q`, where a function block's `</function>` was expected: the next block's or
    /// wrapper's opening tag (`ends`) ends the block there, anything else makes the call a
    /// failed one; `waiting` is kept while too short to tell.
    fn left_open(&mut self, b: &[u8], q: usize, ends: &Markers, waiting: State) -> Option<Verdict> {
        match reopens(b, q, ends) {
            None => {
                self.state = waiting;
                Some(Verdict::More)
            }
            Some(true) => self.function_closed(q),
            Some(false) => {
                self.state = State::SeekClose(q);
                None
            }
        }
    }

    fn shape(&mut self, b: &[u8], p: usize, tools: Option<&dyn ParamTypes>) -> Option<Verdict> {
        let q = match body_start(b, p, self.ends()) {
            Ok(q) if q < b.len() => q,
            Ok(q) | Err(q) => {
                self.state = State::Shape(q);
                return Some(Verdict::More);
            }
        };
        if let Some(wrap) = self.wrap.filter(|wrap| wrap.body == Body::CallObject) {
            let Some(call) = is_call_object(b, q) else {
                self.state = State::Shape(q);
                return Some(Verdict::More);
            };
            if !call || !self.open.formats.contains(Format::Hermes) {
                // Not a call: the answer of a format the tag wraps answers in (its tags are
                // markup), or else the opening tag alone is the region, read as prose.
                return Some(if wrap.answer_of.intersects(self.open.formats) {
                    Verdict::Prose {
                        end: self.at,
                        reasoning: false,
                    }
                } else {
                    Verdict::End(self.at)
                });
            }
        }
        let is_function = if matches!(b[q], b'{' | b'[') {
            false
        } else {
            match (starts(b, q, FUNCTION_TAG), b.get(q + FUNCTION_TAG.len())) {
                (None, _) | (Some(true), None) => {
                    self.state = State::Shape(q);
                    return Some(Verdict::More);
                }
                // `<function=` (a space before the `=` too), or with `tools=` a garbled tag that
                // may name an offered tool (`State::QName` reads the body as another shape when
                // it names none).
                (Some(true), Some(&next)) => matches!(next, b'=' | b' ' | b'\t') || tools.is_some(),
                (Some(false), _) => false,
            }
        };
        self.body(b, q, is_function);
        None
    }

    /// Reads the body at `q` as its shape (by its first byte and `is_function`) says.
    fn body(&mut self, b: &[u8], q: usize, is_function: bool) {
        let shape = shape_of(b[q], is_function);
        let format = match self.wrap.map_or(Body::Shared, |wrap| wrap.body) {
            Body::Shared => body_format(shape, self.open.formats),
            Body::Json | Body::CallObject => Format::Hermes,
            Body::Function | Body::FunctionName => Format::Qwen3Coder,
            Body::ArgPairs => Format::Glm45,
        };
        self.state = match format {
            _ if reads_json(format, shape) => {
                self.json = Some(JsonValue::new(q, self.open.json, self.open.track));
                State::Json
            }
            Format::Qwen3Coder if shape == Format::Qwen3Coder => State::QName {
                start: q + FUNCTION_TAG.len(),
                scanned: q + FUNCTION_TAG.len(),
            },
            Format::Qwen3Coder => State::SeekClose(q),
            // RWKV's earlier spelling: a call object on a line, else the tag is prose.
            Format::Rwkv if b[q] == b'{' => State::RLine(q),
            Format::Rwkv => State::RInvoke(q),
            _ => State::GName {
                start: q,
                scanned: q,
            },
        };
    }

    /// A glm45 name that starts at `start` and stopped at `stop`, or Step-Audio 2's real name on
    /// the next line (`tags::typed_name`, looked for from `from`): announces the call, or waits.
    fn glm_name(&mut self, buf: &str, start: usize, stop: usize, from: usize) -> Option<Verdict> {
        let name = buf[start..stop].trim();
        let (name, stop) = match typed_name(buf, name, stop, from) {
            Err(scanned) => {
                self.state = State::GTyped {
                    start,
                    stop,
                    scanned,
                };
                return Some(Verdict::More);
            }
            Ok(Some(real)) => (&buf[real.clone()], real.end),
            Ok(None) => (name, stop),
        };
        let item = self.records.len();
        self.records.push(named(name, None, true, item));
        self.state = match buf.as_bytes()[stop] {
            b'>' => State::ArgsOpen(stop + 1, ArgsClose::Optional),
            _ => State::GFirst(stop),
        };
        None
    }

    /// [`Machine::advance`] knowing the offered tools, which Step-3.5's garbled tags may name
    /// (`tags::function_name`, `tags::parameter_name`).
    fn read(&mut self, buf: &str, tools: Option<&dyn ParamTypes>) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                State::Shape(p) => {
                    if let Some(verdict) = self.shape(b, p, tools) {
                        return verdict;
                    }
                }
                State::Json => {
                    let json = self.json.as_mut().expect("set with the state");
                    match json.scan(buf) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => self.state = State::AfterJson(end),
                        Scanned::Broken(at) => self.state = State::SeekClose(at),
                    }
                }
                State::AfterJson(p) => {
                    let q = ws(b, p);
                    let close = self.wrap.map_or(CLOSE, |wrap| wrap.close());
                    match starts_any(b, q, &[close, FENCE]) {
                        Err(()) => {
                            self.state = State::AfterJson(q);
                            return Verdict::More;
                        }
                        Ok(Some(0)) => return Verdict::End(q + close.len()),
                        // The fence around EXAONE MoE's JSON closes before the tag.
                        Ok(Some(_)) => self.state = State::AfterJson(q + FENCE.len()),
                        Ok(None) => {
                            if let Some(verdict) = self.reopened(b, q, self.ends(), State::AfterJson) {
                                return verdict;
                            }
                        }
                    }
                }
                State::Repeat {
                    from,
                    len,
                    matched,
                    then,
                } => {
                    let call = &b[self.start..self.start + len];
                    let upto = b.len().min(from + len);
                    if b[from + matched..upto] != call[matched..upto - from] {
                        return self.end(from);
                    }
                    if upto < from + len {
                        let matched = upto - from;
                        self.state = State::Repeat {
                            from,
                            len,
                            matched,
                            then,
                        };
                        return Verdict::More;
                    }
                    self.start = from;
                    self.state = then(from + len);
                }
                State::SeekClose(from) => {
                    return match self.close.find(b, from) {
                        found @ Some(_) => Verdict::End(failed_end(found, 0)),
                        None => Verdict::More,
                    };
                }
                State::QName { start, scanned } => {
                    let at = match name_end(b, scanned) {
                        Ok(at) => at,
                        Err(scanned) => {
                            self.state = State::QName { start, scanned };
                            return Verdict::More;
                        }
                    };
                    let Some(name) = function_name(&buf[start..at], b[at] == b'>', tools) else {
                        match b[start] {
                            b'=' => self.state = State::SeekClose(start),
                            // A garbled tag naming no offered tool: no function tag.
                            _ => self.body(b, start - FUNCTION_TAG.len(), false),
                        }
                        continue;
                    };
                    let item = self.records.len();
                    self.records.push(named(name, None, true, item));
                    self.state = State::QFirst(past_stop(b, at));
                }
                State::QFirst(p) => {
                    let q = ws(b, p);
                    self.state = match b.get(q) {
                        None => {
                            self.state = State::QFirst(q);
                            return Verdict::More;
                        }
                        Some(b'{') => State::ArgsOpen(q, ArgsClose::Function),
                        Some(_) => State::QBetween(q),
                    };
                }
                State::QBetween(p) => {
                    let q = ws(b, p);
                    let close = self.wrap.map_or(CLOSE, |wrap| wrap.close());
                    match starts_any(b, q, &[PARAMETER, FUNCTION_CLOSE, close, FUNCTION]) {
                        Err(()) => {
                            self.state = State::QBetween(q);
                            return Verdict::More;
                        }
                        Ok(Some(0)) => {
                            let start = q + PARAMETER.len();
                            self.state = State::QParamName {
                                start,
                                scanned: start,
                            };
                        }
                        Ok(Some(1)) => {
                            if let Some(verdict) = self.function_closed(q + FUNCTION_CLOSE.len()) {
                                return verdict;
                            }
                        }
                        // `</function>` left out before the wrapper's closing tag or the next
                        // function block.
                        Ok(Some(_)) => {
                            if let Some(verdict) = self.function_closed(q) {
                                return verdict;
                            }
                        }
                        // ... or before the next wrapper.
                        Ok(None) => {
                            let waiting = State::QBetween(q);
                            if let Some(verdict) = self.left_open(b, q, self.ends(), waiting) {
                                return verdict;
                            }
                        }
                    }
                }
                State::QParamName { start, scanned } => {
                    let at = match name_end(b, scanned) {
                        Ok(at) => at,
                        Err(scanned) => {
                            self.state = State::QParamName { start, scanned };
                            return Verdict::More;
                        }
                    };
                    let tool = self.records.last().and_then(|r| r.name.as_deref());
                    let raw = &buf[start..at];
                    if parameter_name(raw, b[at] == b'>', tool.unwrap_or_default(), tools).is_none()
                    {
                        self.state = State::SeekClose(start);
                        continue;
                    }
                    self.state = State::QValue(ValueScan::new(past_stop(b, at)));
                }
                State::QValue(mut scan) => match scan.end(b, false) {
                    ValueEnd::At(_, resume) => self.state = State::QBetween(resume),
                    _ => {
                        self.state = State::QValue(scan);
                        return Verdict::More;
                    }
                },
                State::FName { start, scanned } => {
                    let at = match name_end(b, scanned) {
                        Ok(at) => at,
                        Err(scanned) => {
                            self.state = State::FName { start, scanned };
                            return Verdict::More;
                        }
                    };
                    let name = quoted_name(&buf[start..at]).unwrap_or_default();
                    if b[at] != b'>' || name.is_empty() {
                        self.state = State::SeekClose(start);
                        continue;
                    }
                    self.records.push(named(name, None, true, 0));
                    self.state = State::FBody(at + 1);
                }
                State::FBody(_) | State::PBody { .. } => {
                    if let Some(verdict) = self.read_params(b) {
                        return verdict;
                    }
                }
                State::ArgsOpen(p, then) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = State::ArgsOpen(q, then);
                        return Verdict::More;
                    }
                    if b[q] != b'{' {
                        self.state = State::SeekClose(q);
                        continue;
                    }
                    self.args = Some(arguments_at(&mut self.records, q, self.open.json));
                    self.state = State::Args(then);
                }
                State::Args(then) => {
                    let args = self.args.as_mut().expect("set with the state");
                    match scan_arguments(args, buf, &mut self.records) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => self.state = State::AfterArgs(end, then),
                        Scanned::Broken(at) => self.state = State::SeekClose(at),
                    }
                }
                State::AfterArgs(p, ArgsClose::Optional) => {
                    // (`p` stays the arguments' end: a call left unclosed ends there.)
                    let q = ws(b, p);
                    let close = self.wrap.map_or(CLOSE, |wrap| wrap.close());
                    return match starts(b, q, close) {
                        None => Verdict::More,
                        Some(true) => self.end(q + close.len()),
                        Some(false) => self.end(p),
                    };
                }
                State::AfterArgs(p, ArgsClose::ToolCall) => {
                    let q = ws(b, p);
                    match starts(b, q, CLOSE) {
                        None => {
                            self.state = State::AfterArgs(q, ArgsClose::ToolCall);
                            return Verdict::More;
                        }
                        Some(true) => return self.end(q + CLOSE.len()),
                        Some(false) => {
                            let then = |p| State::AfterArgs(p, ArgsClose::ToolCall);
                            if let Some(verdict) = self.reopened(b, q, &TOOL_CALL.ends, then) {
                                return verdict;
                            }
                        }
                    }
                }
                State::AfterArgs(p, ArgsClose::Function) => {
                    let q = ws(b, p);
                    match starts(b, q, FUNCTION_CLOSE) {
                        None => {
                            self.state = State::AfterArgs(q, ArgsClose::Function);
                            return Verdict::More;
                        }
                        Some(true) => {
                            if let Some(verdict) = self.function_closed(q + FUNCTION_CLOSE.len()) {
                                return verdict;
                            }
                        }
                        // `</function>` left out before the next function block.
                        Some(false) => {
                            let (ends, waiting) = (function_ends(self.wrap), State::AfterArgs(q, ArgsClose::Function));
                            if let Some(verdict) = self.left_open(b, q, ends, waiting) {
                                return verdict;
                            }
                        }
                    }
                }
                State::QAfterFunction(p) => {
                    let q = ws(b, p);
                    let close = self.wrap.map_or(CLOSE, |wrap| wrap.close());
                    // The wrapper's closing tag, or another `<function=…>` in it: its own call
                    // (`tags::after_function`).
                    match starts_any(b, q, &[close, FUNCTION]) {
                        Err(()) => {
                            self.state = State::QAfterFunction(q);
                            return Verdict::More;
                        }
                        Ok(Some(0)) => return self.end(q + close.len()),
                        Ok(Some(_)) => {
                            close_last(&mut self.records);
                            let start = q + FUNCTION_TAG.len();
                            self.state = State::QName {
                                start,
                                scanned: start,
                            };
                        }
                        Ok(None) => {
                            if let Some(verdict) = self.reopened(b, q, self.ends(), State::QAfterFunction) {
                                return verdict;
                            }
                        }
                    }
                }
                State::StrayClose(after) => {
                    return match stray_close(b, after) {
                        Err(()) => Verdict::More,
                        Ok(stray) => self.end(stray.unwrap_or(after)),
                    };
                }
                State::GName { start, scanned } => {
                    let Some(at) = find_any3(b'<', b'>', b'\n', &b[scanned..]) else {
                        self.state = State::GName {
                            start,
                            scanned: b.len(),
                        };
                        return Verdict::More;
                    };
                    let at = scanned + at;
                    let name = buf[start..at].trim();
                    if name.is_empty() || name.contains(char::is_whitespace) {
                        self.state = State::SeekClose(start);
                        continue;
                    }
                    if let Some(verdict) = self.glm_name(buf, start, at, at + 1) {
                        return verdict;
                    }
                }
                State::RNone => return Verdict::End(self.at),
                // The earlier spelling's invokes run to the closing tag (`rwkv::legacy`).
                State::RInvoke(q) => match starts(b, q, INVOKE) {
                    None => return Verdict::More,
                    Some(true) => self.state = State::SeekClose(q),
                    Some(false) => self.state = State::RNone,
                },
                State::RLine(from) => match b[from..].iter().position(|&c| c == b'\n') {
                    Some(i) => self.state = State::RAfter(from + i + 1),
                    None => {
                        self.state = State::RLine(b.len());
                        return Verdict::More;
                    }
                },
                State::RAfter(after) => return after_line(b, after).map_or(Verdict::More, Verdict::End),
                State::GTyped { start, stop, scanned } => {
                    if let Some(verdict) = self.glm_name(buf, start, stop, scanned) {
                        return verdict;
                    }
                }
                State::GFirst(_)
                | State::GBetween(_)
                | State::GKey(_)
                | State::GValueTag(_)
                | State::GValue { .. }
                | State::GQuotedCall { .. } => {
                    if let Some(verdict) = self.read_pairs(b) {
                        return verdict;
                    }
                }
            }
        }
    }

}

impl Machine for TagCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        self.read(buf, None)
    }

    fn advance_with(&mut self, buf: &str, tools: Option<&dyn ParamTypes>) -> Verdict {
        self.read(buf, tools)
    }

    fn records(&self) -> &[CallRecord] {
        match &self.json {
            Some(json) => &json.scanner.records,
            None => &self.records,
        }
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        match self.state {
            State::Json => self.json.as_mut().map(|json| &mut json.scanner),
            State::Args(_) => self.args.as_mut().map(|args| &mut args.scanner),
            _ => None,
        }
    }

    fn skip_piece(&mut self, len: usize, piece: &str) -> bool {
        let piece = piece.as_bytes();
        match &mut self.state {
            State::QValue(scan) => scan.skip_piece(len, piece),
            State::GKey(from) => self.key_close.skip_piece(*from, len, piece),
            State::SeekClose(from) => self.close.skip_piece(*from, len, piece),
            // (Each search moves past the piece only where none of its tags may start.)
            State::GValue {
                from,
                quoted: None,
                opens_call,
            } => {
                let close = !*opens_call || self.quoted_calls.skip_piece(*from, len, piece);
                self.value_close.skip_piece(*from, len, piece) && close
            }
            State::GQuotedCall { from, .. } => self.quoted_calls.skip_piece(*from, len, piece),
            _ => false,
        }
    }

    fn safe(&self) -> usize {
        self.json
            .as_ref()
            .or(self.args.as_ref())
            .map_or(0, |j| j.scanner.pos)
    }
}
