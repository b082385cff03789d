//! The open-weight formats of §6 as a mode of the stream engine (`Mode::Region`).
//!
//! Text mode recognises a start marker ([`super::markers`]) and hands the rest of the input to
//! a [`RegionBody`]: the region's text (from its marker) and a small resumable machine for its
//! group that finds, without re-scanning, (1) each call's name as soon as it is written (→
//! `CallStart`), (2) the byte span of JSON arguments as they arrive (→ `CallDelta`s of the
//! model's own bytes), and (3) where the region's markup ends. Closing markers are looked for
//! only where the one-shot parser would look (outside JSON strings, after a parameter value…).
//!
//! At the end of the region its text is decoded once by the one-shot parser of `formats`
//! ([`crate::formats::parse_markup`]), so every rule (variants, typing by `tools`, ids, errors)
//! lives there; the machines only decide *where* a region ends and what to announce early.
//! Arguments that are not JSON text (qwen3_coder, glm45, pythonic) are sent as one delta holding
//! the compact JSON of the decoded arguments when the call ends.
//!
//! Two message-start forms have no marker: a bare Llama 3 `{"name": …, "parameters": …}` and a
//! bare pythonic `[f(…)]`. Like raw JSON (§9.1 invariant 4) they are held until known; a bare
//! object that is not a Llama 3 call goes on to the raw-JSON rules, a `[` that is not a call
//! list to raw JSON or text.

use std::mem;

use crate::formats::harmony::{self, Message};
use crate::formats::sectioned::Tokens;
use crate::formats::{
    deepseek, kimi_k2, parse_markup, pythonic, Format, FormatOptions, Group, ParamTypes,
};
use crate::json::{JsonBuilder, JsonView, ParseOptions};

use super::body::Closing;
use super::find::{find2, find3};
use super::markers::Marker;
use super::scanner::{CallRecord, CallScanner, Stop};
use super::{Mode, Out, Pos, RawBody, RawKind, StreamParser};

const TOOL_CALL_CLOSE: &str = "</tool_call>";
const FUNCTION: &str = "<function=";
const FUNCTION_CLOSE: &str = "</function>";
const PARAMETER: &str = "<parameter=";
const PARAMETER_CLOSE: &str = "</parameter>";
const ARG_KEY: &str = "<arg_key>";
const ARG_KEY_CLOSE: &str = "</arg_key>";
const ARG_VALUE: &str = "<arg_value>";
const ARG_VALUE_CLOSE: &str = "</arg_value>";
const TOOL_CALLS: &str = "[TOOL_CALLS]";
const CALL_ID: &str = "[CALL_ID]";
const ARGS: &str = "[ARGS]";
const PYTHON_END: &str = "<|python_end|>";
const FENCE: &str = "```";

/// A call region being read.
pub(super) struct RegionBody {
    group: Group,
    /// Where the region starts in the input.
    at: Pos,
    /// The region's text, from its start marker.
    text: String,
    machine: Machine,
    live: super::LiveCalls,
    /// Calls are announced before the region ends (not for held message-start candidates).
    announce: bool,
    in_think: bool,
}

/// What a machine knows after the input so far.
enum Verdict {
    More,
    /// The region's markup ends here.
    End(usize),
    /// A harmony message that is not a call: its header ends here, its body is prose.
    Prose {
        end: usize,
        reasoning: bool,
    },
    /// A message-start candidate that is not this format after all.
    NotMine,
}

/// Where a literal may be next in a growing buffer: searches resume where they stopped.
#[derive(Clone, Copy, Debug, Default)]
struct Seek {
    from: usize,
}

impl Seek {
    fn at(from: usize) -> Self {
        Self { from }
    }

    /// The first of `needles` at or after `self.from`: (position, which). Without one, the
    /// next search starts at a possible partial match at the end of `buf`.
    fn find(&mut self, buf: &[u8], needles: &[&str]) -> Option<(usize, usize)> {
        let mut firsts = [needles[0].as_bytes()[0]; 3];
        for (slot, needle) in firsts.iter_mut().zip(needles.iter().skip(1)) {
            *slot = needle.as_bytes()[0];
        }
        let mut pos = self.from.min(buf.len());
        loop {
            let Some(i) = find3(firsts[0], firsts[1], firsts[2], &buf[pos..]) else {
                self.from = buf.len();
                return None;
            };
            let at = pos + i;
            let mut partial = false;
            for (k, needle) in needles.iter().enumerate() {
                match starts(buf, at, needle) {
                    Some(true) => {
                        self.from = at;
                        return Some((at, k));
                    }
                    None => partial = true,
                    Some(false) => {}
                }
            }
            if partial {
                self.from = at;
                return None;
            }
            pos = at + 1;
        }
    }

    /// The first `a` or `b` byte at or after `self.from`.
    fn byte(&mut self, buf: &[u8], a: u8, b: u8) -> Option<usize> {
        let from = self.from.min(buf.len());
        match find2(a, b, &buf[from..]) {
            Some(i) => Some(from + i),
            None => {
                self.from = buf.len();
                None
            }
        }
    }
}

/// The length of the next piece of `input` for a region holding `held` bytes (see
/// [`StreamParser::region`]), on a character boundary.
fn piece_len(input: &str, held: usize) -> usize {
    let mut end = input.len().min(held.max(4096));
    while !input.is_char_boundary(end) {
        end += 1;
    }
    end
}

/// Whether `buf[at..]` starts with `lit`: `None` while too short to tell.
fn starts(buf: &[u8], at: usize, lit: &str) -> Option<bool> {
    let avail = &buf[at.min(buf.len())..];
    let lit = lit.as_bytes();
    if avail.len() >= lit.len() {
        Some(avail.starts_with(lit))
    } else if lit.starts_with(avail) {
        None
    } else {
        Some(false)
    }
}

/// The first of `lits` that `buf[at..]` starts with: `Err(())` while one may still match.
fn starts_any(buf: &[u8], at: usize, lits: &[&str]) -> Result<Option<usize>, ()> {
    let mut undecided = false;
    for (k, lit) in lits.iter().enumerate() {
        match starts(buf, at, lit) {
            Some(true) => return Ok(Some(k)),
            None => undecided = true,
            Some(false) => {}
        }
    }
    if undecided {
        Err(())
    } else {
        Ok(None)
    }
}

fn ws(buf: &[u8], mut p: usize) -> usize {
    while p < buf.len() && matches!(buf[p], b' ' | b'\t' | b'\n' | b'\r') {
        p += 1;
    }
    p
}

/// A call whose name is known (arguments typed from text: sent as compact JSON at its end).
fn named(name: &str, id: Option<String>, derived: bool, item: usize) -> CallRecord {
    CallRecord {
        item,
        name: Some(name.to_owned()).filter(|n| !n.is_empty()),
        ready: (!name.is_empty()).then(|| id.clone()),
        id,
        derived,
        ..CallRecord::default()
    }
}

/// A JSON value read structurally (strings, nesting) until it closes.
struct JsonValue {
    scanner: CallScanner,
}

enum Scanned {
    More,
    Closed(usize),
    /// A byte that cannot be JSON, at this position.
    Broken(usize),
}

impl JsonValue {
    fn new(start: usize, options: ParseOptions) -> Self {
        let mut scanner = CallScanner::new(options, true);
        scanner.pos = start;
        Self { scanner }
    }

    fn scan(&mut self, buf: &str) -> Scanned {
        loop {
            match self.scanner.scan(buf) {
                Stop::End => return Scanned::More,
                Stop::Newline => {}
                Stop::TopClosed => return Scanned::Closed(self.scanner.pos),
                Stop::NotJson => return Scanned::Broken(self.scanner.pos - 1),
            }
        }
    }
}

/// One machine per group (see the module documentation).
enum Machine {
    Tag(Box<TagCall>),
    Sectioned(Box<SectionCall>),
    Mistral(Box<MistralCall>),
    Llama(Box<LlamaCall>),
    Pythonic(Box<PythonicCall>),
    Harmony(Box<HarmonyMessage>),
}

impl Machine {
    fn advance(&mut self, buf: &str) -> Verdict {
        match self {
            Machine::Tag(m) => m.advance(buf),
            Machine::Sectioned(m) => m.advance(buf),
            Machine::Mistral(m) => m.advance(buf),
            Machine::Llama(m) => m.advance(buf),
            Machine::Pythonic(m) => m.advance(buf),
            Machine::Harmony(m) => m.advance(buf),
        }
    }

    /// The calls found so far (offsets in the region's text).
    fn records(&self) -> &[CallRecord] {
        match self {
            Machine::Tag(m) => match &m.json {
                Some(json) => &json.scanner.records,
                None => &m.records,
            },
            Machine::Sectioned(m) => &m.records,
            Machine::Mistral(m) => match &m.pre {
                Some(json) => &json.scanner.records,
                None => &m.records,
            },
            Machine::Llama(m) => &m.scanner.records,
            Machine::Pythonic(m) => &m.records,
            Machine::Harmony(m) => &m.records,
        }
    }

    /// The scanner of the JSON value this machine is reading, when reading it is all the
    /// machine does next (its `advance` is that scanner's `scan` until the value ends), and its
    /// position is [`safe`](Self::safe).
    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        let json = match self {
            Machine::Tag(m) if matches!(m.state, TagState::Json) => m.json.as_mut(),
            Machine::Sectioned(m) if matches!(m.state, SectionState::Args { .. }) => {
                m.args.as_mut()
            }
            Machine::Mistral(m) if matches!(m.state, MistralState::Args) && m.pre.is_none() => {
                m.args.as_mut()
            }
            Machine::Llama(m) if matches!(m.state, LlamaState::InObject) => {
                return Some(&mut m.scanner)
            }
            _ => None,
        };
        json.map(|json| &mut json.scanner)
    }

    /// Argument bytes before this offset are final.
    fn safe(&self) -> usize {
        match self {
            Machine::Tag(m) => m.json.as_ref().map_or(0, |j| j.scanner.pos),
            Machine::Sectioned(m) => m.args.as_ref().map_or(0, |j| j.scanner.pos),
            Machine::Mistral(m) => m
                .pre
                .as_ref()
                .or(m.args.as_ref())
                .map_or(0, |j| j.scanner.pos),
            Machine::Llama(m) => m.scanner.pos,
            Machine::Pythonic(_) => 0,
            Machine::Harmony(m) => m.seek.from,
        }
    }
}

// ----- <tool_call>: hermes, qwen3_coder, glm45 ----------------------------------------------

#[derive(Clone, Copy, Debug)]
enum TagState {
    /// After `<tool_call>`: the body's first bytes decide its format.
    Shape(usize),
    Json,
    AfterJson(usize),
    /// A failed call: its markup runs to the closing tag.
    SeekClose,
    QName,
    QBetween(usize),
    QParamName,
    QValue,
    QAfterFunction(usize),
    GName(usize),
    GBetween(usize),
    GKey,
    GValueTag(usize),
    GValue,
}

struct TagCall {
    formats: crate::formats::FormatSet,
    json_options: ParseOptions,
    /// `<tool_call>` around the call (else a bare `<function=…>`, closed by `</function>`).
    wrapped: bool,
    state: TagState,
    seek: Seek,
    json: Option<JsonValue>,
    records: Vec<CallRecord>,
}

impl TagCall {
    fn closer(&self) -> &'static str {
        if self.wrapped {
            TOOL_CALL_CLOSE
        } else {
            FUNCTION_CLOSE
        }
    }

    fn fail(&mut self, from: usize) {
        self.seek = Seek::at(from);
        self.state = TagState::SeekClose;
    }

    fn end(&mut self, end: usize) -> Verdict {
        if let Some(record) = self.records.last_mut() {
            record.closed = true;
        }
        Verdict::End(end)
    }

    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                TagState::Shape(p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = TagState::Shape(q);
                        return Verdict::More;
                    }
                    let shape = if matches!(b[q], b'{' | b'[') {
                        Format::Hermes
                    } else {
                        match starts(b, q, FUNCTION) {
                            None => {
                                self.state = TagState::Shape(q);
                                return Verdict::More;
                            }
                            Some(true) => Format::Qwen3Coder,
                            Some(false) => Format::Glm45,
                        }
                    };
                    // As the one-shot parser: a shape whose format is not allowed is read as
                    // the first allowed one.
                    let format = if self.formats.contains(shape) {
                        shape
                    } else {
                        [Format::Hermes, Format::Qwen3Coder, Format::Glm45]
                            .into_iter()
                            .find(|&f| self.formats.contains(f))
                            .unwrap_or(shape)
                    };
                    self.state = match format {
                        Format::Hermes => {
                            self.json = Some(JsonValue {
                                scanner: {
                                    let mut s = CallScanner::new(self.json_options, true);
                                    s.pos = q;
                                    s
                                },
                            });
                            TagState::Json
                        }
                        Format::Qwen3Coder if shape == Format::Qwen3Coder => {
                            self.seek = Seek::at(q + FUNCTION.len());
                            TagState::QName
                        }
                        Format::Qwen3Coder => {
                            self.fail(q);
                            continue;
                        }
                        _ => TagState::GName(q),
                    };
                }
                TagState::Json => {
                    let json = self.json.as_mut().expect("set with the state");
                    match json.scan(buf) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => self.state = TagState::AfterJson(end),
                        Scanned::Broken(at) => self.fail(at),
                    }
                }
                TagState::AfterJson(p) => {
                    let q = ws(b, p);
                    match starts(b, q, TOOL_CALL_CLOSE) {
                        None => {
                            self.state = TagState::AfterJson(q);
                            return Verdict::More;
                        }
                        Some(true) => return Verdict::End(q + TOOL_CALL_CLOSE.len()),
                        Some(false) => self.fail(q),
                    }
                }
                TagState::SeekClose => {
                    let closer = self.closer();
                    return match self.seek.find(b, &[closer]) {
                        Some((at, _)) => Verdict::End(at + closer.len()),
                        None => Verdict::More,
                    };
                }
                TagState::QName => {
                    let name_start = self.seek.from;
                    let Some(at) = self.seek.byte(b, b'>', b'\n') else {
                        self.seek = Seek::at(name_start);
                        return Verdict::More;
                    };
                    let name = buf[name_start..at].trim();
                    if b[at] == b'\n' || name.is_empty() {
                        self.fail(name_start);
                        continue;
                    }
                    let item = self.records.len();
                    self.records.push(named(name, None, true, item));
                    self.state = TagState::QBetween(at + 1);
                }
                TagState::QBetween(p) => {
                    let q = ws(b, p);
                    match starts_any(b, q, &[PARAMETER, FUNCTION_CLOSE]) {
                        Err(()) => {
                            self.state = TagState::QBetween(q);
                            return Verdict::More;
                        }
                        Ok(Some(0)) => {
                            self.seek = Seek::at(q + PARAMETER.len());
                            self.state = TagState::QParamName;
                        }
                        Ok(Some(_)) => {
                            let after = q + FUNCTION_CLOSE.len();
                            if !self.wrapped {
                                return self.end(after);
                            }
                            self.state = TagState::QAfterFunction(after);
                        }
                        Ok(None) => self.fail(q),
                    }
                }
                TagState::QParamName => {
                    let name_start = self.seek.from;
                    let Some(at) = self.seek.byte(b, b'>', b'\n') else {
                        self.seek = Seek::at(name_start);
                        return Verdict::More;
                    };
                    if b[at] == b'\n' || buf[name_start..at].trim().is_empty() {
                        self.fail(name_start);
                        continue;
                    }
                    self.seek = Seek::at(at + 1);
                    self.state = TagState::QValue;
                }
                TagState::QValue => match self.seek.find(b, &[PARAMETER_CLOSE]) {
                    Some((at, _)) => self.state = TagState::QBetween(at + PARAMETER_CLOSE.len()),
                    None => return Verdict::More,
                },
                TagState::QAfterFunction(p) => {
                    let q = ws(b, p);
                    match starts(b, q, TOOL_CALL_CLOSE) {
                        None => {
                            self.state = TagState::QAfterFunction(q);
                            return Verdict::More;
                        }
                        Some(true) => return self.end(q + TOOL_CALL_CLOSE.len()),
                        Some(false) => self.fail(q),
                    }
                }
                TagState::GName(p) => {
                    self.seek = Seek::at(self.seek.from.max(p));
                    let Some(at) = self.seek.byte(b, b'<', b'\n') else {
                        return Verdict::More;
                    };
                    let name = buf[p..at].trim();
                    if name.is_empty() || name.contains(char::is_whitespace) {
                        self.fail(p);
                        continue;
                    }
                    let item = self.records.len();
                    self.records.push(named(name, None, true, item));
                    self.state = TagState::GBetween(at);
                }
                TagState::GBetween(p) => {
                    let q = ws(b, p);
                    match starts_any(b, q, &[ARG_KEY, TOOL_CALL_CLOSE]) {
                        Err(()) => {
                            self.state = TagState::GBetween(q);
                            return Verdict::More;
                        }
                        Ok(Some(0)) => {
                            self.seek = Seek::at(q + ARG_KEY.len());
                            self.state = TagState::GKey;
                        }
                        Ok(Some(_)) => return self.end(q + TOOL_CALL_CLOSE.len()),
                        Ok(None) => self.fail(q),
                    }
                }
                TagState::GKey => match self.seek.find(b, &[ARG_KEY_CLOSE]) {
                    Some((at, _)) => self.state = TagState::GValueTag(at + ARG_KEY_CLOSE.len()),
                    None => return Verdict::More,
                },
                TagState::GValueTag(p) => {
                    let q = ws(b, p);
                    match starts(b, q, ARG_VALUE) {
                        None => {
                            self.state = TagState::GValueTag(q);
                            return Verdict::More;
                        }
                        Some(true) => {
                            self.seek = Seek::at(q + ARG_VALUE.len());
                            self.state = TagState::GValue;
                        }
                        Some(false) => self.fail(q),
                    }
                }
                TagState::GValue => match self.seek.find(b, &[ARG_VALUE_CLOSE]) {
                    Some((at, _)) => self.state = TagState::GBetween(at + ARG_VALUE_CLOSE.len()),
                    None => return Verdict::More,
                },
            }
        }
    }
}

// ----- DeepSeek and Kimi-K2: token-delimited sections ----------------------------------------

#[derive(Clone, Copy, Debug)]
enum SectionState {
    /// Between calls of a section.
    Between(usize),
    /// After `CALL_BEGIN`: the header runs to `SEP`.
    Header(usize),
    /// After `SEP`, waiting for the body's first byte (header text range kept).
    Body {
        body: usize,
        header: (usize, usize),
    },
    V3Name(usize),
    V3Fence(usize),
    V3Open(usize),
    Args {
        v3: bool,
    },
    V3Close(usize),
    AfterArgs(usize),
    /// A failed call: its markup runs to `CALL_END`.
    SeekEnd,
}

struct SectionCall {
    tokens: &'static Tokens,
    formats: crate::formats::FormatSet,
    json_options: ParseOptions,
    in_section: bool,
    state: SectionState,
    seek: Seek,
    args: Option<JsonValue>,
    records: Vec<CallRecord>,
}

impl SectionCall {
    fn kimi(&self) -> bool {
        self.tokens.call_begin == kimi_k2::TOKENS.call_begin
    }

    /// After a call: the next one in the section, or the end of the region.
    fn next(&mut self, at: usize) -> Option<Verdict> {
        if let Some(record) = self.records.last_mut() {
            record.closed = true;
        }
        if self.in_section {
            self.state = SectionState::Between(at);
            None
        } else {
            Some(Verdict::End(at))
        }
    }

    fn fail(&mut self, from: usize) {
        self.seek = Seek::at(from);
        self.state = SectionState::SeekEnd;
    }

    fn start_args(&mut self, at: usize, v3: bool) {
        if let Some(record) = self.records.last_mut() {
            record.args_start = Some(at);
        }
        self.args = Some(JsonValue::new(at, self.json_options));
        self.state = SectionState::Args { v3 };
    }

    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        let t = self.tokens;
        loop {
            match self.state {
                SectionState::Between(p) => {
                    let q = ws(b, p);
                    match starts_any(b, q, &[t.call_begin, t.section_end]) {
                        Err(()) => {
                            self.state = SectionState::Between(q);
                            return Verdict::More;
                        }
                        Ok(Some(0)) => {
                            self.seek = Seek::at(q + t.call_begin.len());
                            self.state = SectionState::Header(q + t.call_begin.len());
                        }
                        Ok(Some(_)) => return Verdict::End(q + t.section_end.len()),
                        Ok(None) => return Verdict::End(q),
                    }
                }
                SectionState::Header(h) => {
                    match self.seek.find(b, &[t.sep.text, t.call_end.text]) {
                        None => return Verdict::More,
                        Some((at, 0)) => {
                            self.state = SectionState::Body {
                                body: at + t.sep.text.len(),
                                header: (h, at),
                            };
                        }
                        Some((at, _)) => {
                            if let Some(verdict) = self.next(at + t.call_end.text.len()) {
                                return verdict;
                            }
                        }
                    }
                }
                SectionState::Body { body, header } => {
                    let q = ws(b, body);
                    if q == b.len() {
                        return Verdict::More;
                    }
                    let header = buf[header.0..header.1].trim();
                    let item = self.records.len();
                    if self.kimi() {
                        let name = kimi_k2::name_of_id(header);
                        if name.is_empty() {
                            self.fail(body);
                            continue;
                        }
                        self.records
                            .push(named(name, Some(header.to_owned()), false, item));
                    } else {
                        let v3_shape = header == "function" && b[q] != b'{';
                        let v3 = match (
                            self.formats.contains(Format::DeepseekV3),
                            self.formats.contains(Format::DeepseekV31),
                        ) {
                            (true, true) => v3_shape,
                            (true, false) => true,
                            _ => false,
                        };
                        if v3 {
                            self.seek = Seek::at(body);
                            self.state = SectionState::V3Name(body);
                            continue;
                        }
                        if header.is_empty() {
                            self.fail(body);
                            continue;
                        }
                        self.records.push(named(header, None, false, item));
                    }
                    if matches!(b[q], b'{' | b'[') {
                        self.start_args(q, false);
                    } else {
                        if let Some(record) = self.records.last_mut() {
                            record.derived = true;
                        }
                        self.fail(q);
                    }
                }
                SectionState::V3Name(body) => {
                    let Some(at) = self.seek.byte(b, b'\n', b'\n') else {
                        return Verdict::More;
                    };
                    let name = buf[body..at].trim();
                    if name.is_empty() {
                        self.fail(body);
                        continue;
                    }
                    let item = self.records.len();
                    self.records.push(named(name, None, false, item));
                    self.state = SectionState::V3Fence(at);
                }
                SectionState::V3Fence(p) => {
                    let q = ws(b, p);
                    match starts(b, q, FENCE) {
                        None => {
                            self.state = SectionState::V3Fence(q);
                            return Verdict::More;
                        }
                        Some(true) => self.state = SectionState::V3Open(q + FENCE.len()),
                        Some(false) => self.fail(q),
                    }
                }
                SectionState::V3Open(p) => {
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
                        self.fail(r);
                    }
                }
                SectionState::Args { v3 } => {
                    let args = self.args.as_mut().expect("set with the state");
                    match args.scan(buf) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => {
                            if let Some(record) = self.records.last_mut() {
                                record.args_end = Some(end);
                            }
                            self.state = if v3 {
                                SectionState::V3Close(end)
                            } else {
                                SectionState::AfterArgs(end)
                            };
                        }
                        Scanned::Broken(at) => self.fail(at),
                    }
                }
                SectionState::V3Close(p) => {
                    let q = ws(b, p);
                    match starts(b, q, FENCE) {
                        None => {
                            self.state = SectionState::V3Close(q);
                            return Verdict::More;
                        }
                        Some(true) => self.state = SectionState::AfterArgs(q + FENCE.len()),
                        Some(false) => self.fail(q),
                    }
                }
                SectionState::AfterArgs(p) => {
                    let q = ws(b, p);
                    match starts(b, q, t.call_end.text) {
                        None => {
                            self.state = SectionState::AfterArgs(q);
                            return Verdict::More;
                        }
                        Some(true) => {
                            if let Some(verdict) = self.next(q + t.call_end.text.len()) {
                                return verdict;
                            }
                        }
                        Some(false) => self.fail(p),
                    }
                }
                SectionState::SeekEnd => match self.seek.find(b, &[t.call_end.text]) {
                    None => return Verdict::More,
                    Some((at, _)) => {
                        if let Some(verdict) = self.next(at + t.call_end.text.len()) {
                            return verdict;
                        }
                    }
                },
            }
        }
    }
}

// ----- mistral ---------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum MistralState {
    Start(usize),
    /// Pre-v11: a JSON call or array of calls.
    Pre,
    Name(usize),
    Id(usize),
    ArgsOpen(usize),
    Args,
    /// A failed call: its markup runs to the next `[TOOL_CALLS]`.
    SeekNext,
}

struct MistralCall {
    json_options: ParseOptions,
    state: MistralState,
    seek: Seek,
    pre: Option<JsonValue>,
    args: Option<JsonValue>,
    records: Vec<CallRecord>,
    name: (usize, usize),
}

impl MistralCall {
    fn fail(&mut self, from: usize) {
        self.seek = Seek::at(from);
        self.state = MistralState::SeekNext;
    }

    /// After `NAME[`: `[CALL_ID]` or `[ARGS]` must follow.
    fn after_name(&mut self, buf: &str, at: usize, id: Option<String>) -> Option<Verdict> {
        let b = buf.as_bytes();
        let tags: &[&str] = if id.is_none() && matches!(self.state, MistralState::Name(_)) {
            &[ARGS, CALL_ID]
        } else {
            &[ARGS]
        };
        match starts_any(b, at, tags) {
            Err(()) => Some(Verdict::More),
            Ok(Some(0)) => {
                let name = &buf[self.name.0..self.name.1];
                self.records.push(named(name, id, false, 0));
                self.state = MistralState::ArgsOpen(at + ARGS.len());
                None
            }
            Ok(Some(_)) => {
                self.seek = Seek::at(at + CALL_ID.len());
                self.state = MistralState::Id(at + CALL_ID.len());
                None
            }
            Ok(None) => {
                self.fail(at);
                None
            }
        }
    }

    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                MistralState::Start(p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = MistralState::Start(q);
                        return Verdict::More;
                    }
                    if matches!(b[q], b'[' | b'{') {
                        let mut scanner = CallScanner::new(self.json_options, true);
                        scanner.pos = q;
                        self.pre = Some(JsonValue { scanner });
                        self.state = MistralState::Pre;
                    } else {
                        self.seek = Seek::at(q);
                        self.state = MistralState::Name(q);
                    }
                }
                MistralState::Pre => {
                    let pre = self.pre.as_mut().expect("set with the state");
                    match pre.scan(buf) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => return Verdict::End(end),
                        Scanned::Broken(at) => self.fail(at),
                    }
                }
                MistralState::Name(start) => {
                    let Some(at) = self.seek.byte(b, b'[', b'[') else {
                        return Verdict::More;
                    };
                    let name = buf[start..at].trim();
                    if name.is_empty() {
                        self.fail(start);
                        continue;
                    }
                    let offset = buf[start..].find(name).unwrap_or(0) + start;
                    self.name = (offset, offset + name.len());
                    self.seek = Seek::at(at);
                    if let Some(verdict) = self.after_name(buf, at, None) {
                        return verdict;
                    }
                }
                MistralState::Id(start) => {
                    let Some(at) = self.seek.byte(b, b'[', b'[') else {
                        return Verdict::More;
                    };
                    let id = buf[start..at].trim().to_owned();
                    if let Some(verdict) = self.after_name(buf, at, Some(id)) {
                        return verdict;
                    }
                }
                MistralState::ArgsOpen(p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = MistralState::ArgsOpen(q);
                        return Verdict::More;
                    }
                    if matches!(b[q], b'{' | b'[') {
                        if let Some(record) = self.records.last_mut() {
                            record.args_start = Some(q);
                        }
                        self.args = Some(JsonValue::new(q, self.json_options));
                        self.state = MistralState::Args;
                    } else {
                        if let Some(record) = self.records.last_mut() {
                            record.derived = true;
                        }
                        self.fail(q);
                    }
                }
                MistralState::Args => {
                    let args = self.args.as_mut().expect("set with the state");
                    match args.scan(buf) {
                        Scanned::More => return Verdict::More,
                        Scanned::Closed(end) => {
                            if let Some(record) = self.records.last_mut() {
                                record.args_end = Some(end);
                                record.closed = true;
                            }
                            return Verdict::End(end);
                        }
                        Scanned::Broken(at) => self.fail(at),
                    }
                }
                MistralState::SeekNext => {
                    return match self.seek.find(b, &[TOOL_CALLS]) {
                        Some((at, _)) => Verdict::End(at),
                        None => Verdict::More,
                    }
                }
            }
        }
    }
}

// ----- llama3_json -----------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum LlamaState {
    Object(usize),
    InObject,
    /// After an object ending at `.0`: `;` and another object may follow.
    After(usize, usize),
    /// A failure the one-shot parser extends to the end of the text.
    ToEnd,
}

struct LlamaCall {
    /// A message-start object (no `<|python_tag|>`).
    bare: bool,
    state: LlamaState,
    scanner: CallScanner,
    /// Where the first object ends.
    first_end: Option<usize>,
}

impl LlamaCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                LlamaState::Object(p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = LlamaState::Object(q);
                        return Verdict::More;
                    }
                    if b[q] != b'{' {
                        self.state = LlamaState::ToEnd;
                        continue;
                    }
                    self.scanner.restart(q);
                    self.state = LlamaState::InObject;
                }
                LlamaState::InObject => loop {
                    match self.scanner.scan(buf) {
                        Stop::End => return Verdict::More,
                        Stop::Newline => {}
                        Stop::TopClosed => {
                            let end = self.scanner.pos;
                            self.first_end.get_or_insert(end);
                            self.state = LlamaState::After(end, end);
                            break;
                        }
                        Stop::NotJson if self.bare && self.first_end.is_none() => {
                            return Verdict::NotMine
                        }
                        Stop::NotJson => {
                            self.state = LlamaState::ToEnd;
                            break;
                        }
                    }
                },
                LlamaState::After(end, p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = LlamaState::After(end, q);
                        return Verdict::More;
                    }
                    if b[q] != b';' {
                        return Verdict::End(end);
                    }
                    let r = ws(b, q + 1);
                    if r == b.len() {
                        self.state = LlamaState::After(end, q);
                        return Verdict::More;
                    }
                    if b[r] != b'{' {
                        return Verdict::End(end);
                    }
                    self.state = LlamaState::Object(r);
                }
                LlamaState::ToEnd => return Verdict::More,
            }
        }
    }
}

// ----- pythonic --------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum PythonicState {
    /// After `<|python_start|>`: the list must open.
    Open(usize),
    List,
    AfterList(usize, usize),
    ToEnd,
}

struct PythonicCall {
    bare: bool,
    /// Before the first `(` of a bare list: only `[`, a dotted name and spaces may come.
    prelude: bool,
    state: PythonicState,
    pos: usize,
    list_start: usize,
    depth: usize,
    quote: Option<u8>,
    escaped: bool,
    name_start: Option<usize>,
    records: Vec<CallRecord>,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b >= 0x80
}

impl PythonicCall {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                PythonicState::Open(p) => {
                    let q = ws(b, p);
                    if q == b.len() {
                        self.state = PythonicState::Open(q);
                        return Verdict::More;
                    }
                    if b[q] != b'[' {
                        self.state = PythonicState::ToEnd;
                        continue;
                    }
                    self.pos = q;
                    self.list_start = q;
                    self.state = PythonicState::List;
                }
                PythonicState::List => {
                    if let Some(verdict) = self.list(buf) {
                        return verdict;
                    }
                }
                PythonicState::AfterList(end, p) => {
                    let q = ws(b, p);
                    return match starts(b, q, PYTHON_END) {
                        None => {
                            self.state = PythonicState::AfterList(end, q);
                            Verdict::More
                        }
                        Some(true) => Verdict::End(q + PYTHON_END.len()),
                        Some(false) => Verdict::End(end),
                    };
                }
                PythonicState::ToEnd => return Verdict::More,
            }
        }
    }

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
                let Some(found) = find3(quote, b'\\', b'\n', &b[i..]) else {
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
                    self.quote = Some(c);
                    self.name_start = None;
                }
                b'(' | b'[' | b'{' => {
                    if c == b'(' && self.depth == 1 {
                        if let Some(start) = self.name_start.take() {
                            if self.prelude {
                                if !pythonic::starts_call_list(&buf[self.list_start..=i]) {
                                    return Some(Verdict::NotMine);
                                }
                                self.prelude = false;
                            }
                            let item = self.records.len();
                            self.records
                                .push(named(buf[start..i].trim(), None, true, item));
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
                        if let Some(record) = self.records.last_mut() {
                            record.closed = true;
                        }
                    }
                    if self.depth == 0 {
                        let end = i + 1;
                        if self.bare {
                            return Some(Verdict::End(end));
                        }
                        self.state = PythonicState::AfterList(end, end);
                        return None;
                    }
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

// ----- harmony ---------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum HarmonyState {
    Header,
    Body(usize),
    Args,
}

struct HarmonyMessage {
    after_start: bool,
    header_start: usize,
    state: HarmonyState,
    seek: Seek,
    records: Vec<CallRecord>,
}

impl HarmonyMessage {
    fn advance(&mut self, buf: &str) -> Verdict {
        let b = buf.as_bytes();
        loop {
            match self.state {
                HarmonyState::Header => {
                    let Some((at, _)) = self.seek.find(b, &[harmony::MESSAGE]) else {
                        return Verdict::More;
                    };
                    let body = at + harmony::MESSAGE.len();
                    match harmony::classify(&buf[self.header_start..at], self.after_start) {
                        Message::Call(name) => {
                            self.records.push(named(&name, None, false, 0));
                            self.state = HarmonyState::Body(body);
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
                HarmonyState::Body(p) => {
                    let q = ws(b, p);
                    match starts_any(b, q, &harmony::ENDS) {
                        Err(()) => {
                            self.state = HarmonyState::Body(q);
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
                    self.seek = Seek::at(q);
                    self.state = HarmonyState::Args;
                }
                HarmonyState::Args => {
                    let Some((at, k)) = self.seek.find(b, &harmony::ENDS) else {
                        return Verdict::More;
                    };
                    if let Some(record) = self.records.last_mut() {
                        if record.args_start.is_some() {
                            record.args_end = Some(at);
                        }
                        record.closed = true;
                    }
                    // A new message's `<|start|>` is not part of this one.
                    let end = if k == 3 {
                        at
                    } else {
                        at + harmony::ENDS[k].len()
                    };
                    return Verdict::End(end);
                }
            }
        }
    }
}

// ----- the mode ---------------------------------------------------------------------------------

impl RegionBody {
    /// The region opened by `marker`, whose text `held` has been read.
    pub(super) fn open(parser: &StreamParser, marker: Marker, held: &str) -> Box<Self> {
        let options = parser.options.json;
        let formats = parser.options.formats;
        let end = held.len();
        let sectioned = |tokens: &'static Tokens, in_section: bool| {
            let state = if in_section {
                SectionState::Between(end)
            } else {
                SectionState::Header(end)
            };
            Machine::Sectioned(Box::new(SectionCall {
                tokens,
                formats,
                json_options: options,
                in_section,
                state,
                seek: Seek::at(end),
                args: None,
                records: Vec::new(),
            }))
        };
        let tag = |wrapped: bool, state: TagState| {
            Machine::Tag(Box::new(TagCall {
                formats,
                json_options: options,
                wrapped,
                state,
                seek: Seek::at(end),
                json: None,
                records: Vec::new(),
            }))
        };
        let (group, machine) = match marker {
            Marker::ToolCall => (Group::ToolCallTag, tag(true, TagState::Shape(end))),
            Marker::Function => (Group::ToolCallTag, tag(false, TagState::QName)),
            Marker::ToolCalls => (
                Group::Mistral,
                Machine::Mistral(Box::new(MistralCall {
                    json_options: options,
                    state: MistralState::Start(end),
                    seek: Seek::at(end),
                    pre: None,
                    args: None,
                    records: Vec::new(),
                    name: (0, 0),
                })),
            ),
            Marker::PythonTag => (Group::Llama3Json, llama(false, end, options)),
            Marker::PythonStart => (Group::Pythonic, python(false, end)),
            Marker::DeepseekSection => (Group::Deepseek, sectioned(&deepseek::TOKENS, true)),
            Marker::DeepseekCall => (Group::Deepseek, sectioned(&deepseek::TOKENS, false)),
            Marker::KimiSection => (Group::KimiK2, sectioned(&kimi_k2::TOKENS, true)),
            Marker::KimiCall => (Group::KimiK2, sectioned(&kimi_k2::TOKENS, false)),
            Marker::HarmonyStart | Marker::HarmonyChannel => (
                Group::Harmony,
                Machine::Harmony(Box::new(HarmonyMessage {
                    after_start: marker == Marker::HarmonyStart,
                    header_start: end,
                    state: HarmonyState::Header,
                    seek: Seek::at(end),
                    records: Vec::new(),
                })),
            ),
            Marker::ThinkOpen | Marker::ThinkClose | Marker::HarmonyEnd => {
                unreachable!("not a region marker")
            }
        };
        Box::new(Self {
            group,
            at: parser.pos,
            text: held.to_owned(),
            machine,
            live: super::LiveCalls::default(),
            announce: true,
            in_think: parser.in_think,
        })
    }

    /// A message-start candidate: a bare Llama 3 object (`{`) or pythonic list (`[`).
    pub(super) fn bare(parser: &StreamParser, first: u8) -> Box<Self> {
        let (group, machine) = if first == b'{' {
            (Group::Llama3Json, llama(true, 0, parser.options.json))
        } else {
            (Group::Pythonic, python(true, 0))
        };
        Box::new(Self {
            group,
            at: parser.pos,
            text: String::new(),
            machine,
            live: super::LiveCalls::default(),
            announce: false,
            in_think: false,
        })
    }

    /// [`StreamParser::feed_argument_piece`] in a region: takes `chunk` and returns the call's
    /// index when it only continues an argument string of an announced call.
    pub(super) fn take_argument_piece(&mut self, chunk: &str) -> Option<usize> {
        if !self.announce {
            return None;
        }
        let len = self.text.len();
        let call = self.live.sending_all(self.machine.records(), len)?;
        if !self.machine.reading_json()?.skip_string_piece(len, chunk) {
            return None;
        }
        self.text.push_str(chunk);
        call.sent_to = self.text.len();
        Some(call.index)
    }
}

fn llama(bare: bool, end: usize, options: ParseOptions) -> Machine {
    Machine::Llama(Box::new(LlamaCall {
        bare,
        state: LlamaState::Object(end),
        scanner: CallScanner::new(options, true),
        first_end: None,
    }))
}

fn python(bare: bool, end: usize) -> Machine {
    Machine::Pythonic(Box::new(PythonicCall {
        bare,
        prelude: bare,
        state: if bare {
            PythonicState::List
        } else {
            PythonicState::Open(end)
        },
        pos: end,
        list_start: end,
        depth: 0,
        quote: None,
        escaped: false,
        name_start: None,
        records: Vec::new(),
    }))
}

impl StreamParser {
    /// Whether the engine looks for a bare Llama 3 object / pythonic list at the message start.
    pub(super) fn bare_format(&self, first: u8) -> bool {
        let format = if first == b'{' {
            Format::Llama3Json
        } else {
            Format::Pythonic
        };
        self.options.formats.contains(format)
    }

    /// Feeds a call region; returns how much of `input` it used.
    pub(super) fn region<B>(
        &mut self,
        mut body: Box<RegionBody>,
        input: &str,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<usize, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        // The region copies its input into its own buffer: it takes a piece no longer than
        // that buffer (at least 4 KiB), so one long chunk holding many short regions is copied
        // once, not once per region. The engine is chunk-invariant, so pieces change no
        // result; `push` feeds the rest.
        let input = &input[..piece_len(input, body.text.len())];
        let old = body.text.len();
        body.text.push_str(input);
        let verdict = body.machine.advance(&body.text);
        let end = match verdict {
            Verdict::More => {
                if body.announce {
                    let safe = body.machine.safe();
                    self.progress(
                        &body.text,
                        body.machine.records(),
                        &mut body.live,
                        safe,
                        out,
                    );
                }
                self.mode = Mode::Region(body);
                return Ok(input.len());
            }
            Verdict::NotMine => {
                self.give_back(*body, builder, out)?;
                return Ok(input.len());
            }
            Verdict::End(end) | Verdict::Prose { end, .. } => end,
        };
        // What follows the region goes back to text mode; a region may end before this input
        // (at a marker split across chunks), then its tail is looked at again.
        let (used, rest) = if end >= old {
            (end - old, String::new())
        } else {
            (input.len(), body.text[end..].to_owned())
        };
        body.text.truncate(end);
        match verdict {
            Verdict::Prose { reasoning, .. } => self.open_message(&body, reasoning, out),
            _ => self.close_region(*body, builder, out)?,
        }
        if !rest.is_empty() {
            self.push(&rest, builder, out)?;
        }
        Ok(used)
    }

    /// The text ended inside a region: its markup runs to the end.
    pub(super) fn finish_region<B>(
        &mut self,
        body: RegionBody,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        if let Machine::Pythonic(machine) = &body.machine {
            if machine.prelude {
                return self.give_back(body, builder, out);
            }
        }
        self.close_region(body, builder, out)
    }

    /// A harmony message that is not a call: drop its header, and read its body as content or
    /// reasoning until its end marker.
    fn open_message<V>(
        &mut self,
        body: &RegionBody,
        reasoning: bool,
        out: &mut Vec<super::Event<V>>,
    ) {
        self.flush(out);
        self.pos = body.at.after(&body.text);
        self.harmony_message = Some(reasoning);
        if reasoning {
            self.saw_think = true;
            if self.reasoning_sent {
                self.prose_out("\n", true, out);
            }
        }
        self.after_region(&body.text);
    }

    fn after_region(&mut self, text: &str) {
        self.spans.reset();
        self.message_started = true;
        self.at_line_start = text.ends_with('\n');
    }

    /// Sends prose without moving the input position (it was counted with its region).
    pub(super) fn prose_out<V>(
        &mut self,
        text: &str,
        reasoning: bool,
        out: &mut Vec<super::Event<V>>,
    ) {
        if text.is_empty() {
            return;
        }
        if self.run_reasoning != reasoning {
            self.flush(out);
            self.run_reasoning = reasoning;
        }
        if reasoning {
            self.saw_think = true;
            self.reasoning_sent |= !text.trim().is_empty();
        }
        self.run.push_str(text);
    }

    /// Decodes a finished region with the one-shot parser and reports its calls and prose.
    fn close_region<B>(
        &mut self,
        mut body: RegionBody,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        // Every call of the region is announced before the first one ends, whatever the
        // chunking (the region is decoded as a whole).
        let mut live = mem::take(&mut body.live);
        let safe = body.machine.safe();
        if body.announce {
            self.progress(&body.text, body.machine.records(), &mut live, safe, out);
        }
        let first_index = live.live.iter().flatten().map(|l| l.index).min();
        let options = FormatOptions {
            json: self.options.json,
            tools: self.tools.as_deref().map(|t| t as &dyn ParamTypes),
            calls_in_reasoning: self.options.calls_in_reasoning,
        };
        let decoded = parse_markup(
            builder,
            &body.text,
            body.group,
            self.options.formats,
            options,
            body.in_think,
            first_index.unwrap_or(self.next_index),
        )?;
        if !body.announce {
            if decoded.outcomes.is_empty() {
                // A bare object that is not a Llama 3 call: raw JSON may still take it.
                return self.not_llama(body, builder, out);
            }
            self.progress(&body.text, body.machine.records(), &mut live, safe, out);
        }
        self.emit_calls(
            Closing {
                text: &body.text,
                records: body.machine.records(),
                live: &mut live,
                outcomes: decoded.outcomes,
                mapped: true,
                relative_to: Some(body.at),
                at: body.at,
            },
            out,
        );
        self.prose_out(&decoded.content, body.in_think, out);
        if let Some(reasoning) = decoded.reasoning {
            self.prose_out(&reasoning, true, out);
        }
        self.pos = body.at.after(&body.text);
        self.after_region(&body.text);
        Ok(())
    }

    /// A message-start candidate that is not its format: raw JSON (when enabled) or text.
    fn give_back<B>(
        &mut self,
        body: RegionBody,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        self.pos = body.at;
        if self.options.raw_json.is_some() && body.group == Group::Pythonic {
            self.mode = Mode::Raw(Box::new(RawBody::new(
                RawKind::Whole,
                String::new(),
                body.at,
                self.options.json,
            )));
        }
        self.push(&body.text, builder, out)
    }

    /// The first object of a bare message, which is not Llama 3 calls, as raw JSON (or text);
    /// what follows it is looked at again.
    fn not_llama<B>(
        &mut self,
        body: RegionBody,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let Machine::Llama(machine) = &body.machine else {
            return self.give_back(body, builder, out);
        };
        let first_end = machine.first_end.unwrap_or(body.text.len());
        let rest = &body.text[first_end..];
        if self.options.raw_json.is_none() {
            return self.give_back(body, builder, out);
        }
        let mut raw = Box::new(RawBody::new(
            RawKind::Whole,
            String::new(),
            body.at,
            self.options.json,
        ));
        raw.body = body.text[..first_end].to_owned();
        while !matches!(
            raw.scanner.scan(&raw.body),
            Stop::End | Stop::TopClosed | Stop::NotJson
        ) {}
        self.close_raw(raw, first_end, first_end, builder, out)?;
        self.push(rest, builder, out)
    }
}
