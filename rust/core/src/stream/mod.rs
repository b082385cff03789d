//! §9.1: a resumable, linear-time stream parser for model text.
//!
//! [`StreamParser`] is fed chunks (`&str`, or `&[u8]` cut anywhere, even inside a UTF-8
//! sequence) and emits [`Event`]s: text and reasoning deltas, a call's start as soon as its name
//! is known, the raw bytes of its arguments as they arrive, and its end once decoded (or an
//! invalid call). [`parse_text`] is the same engine fed the whole text at once, so streaming and
//! batch results agree by construction.
//!
//! # How it works
//!
//! The parser is a state machine with one mode per kind of region:
//!
//! * **text** (`Mode::Text`): plain text and `<think>` spans. Only bytes that may start a marker
//!   are looked at (a `memchr` jump to the next `\n` or `<`); a marker split across chunks is
//!   recognised byte by byte by the small machines of [`lines`], so a held-back prefix is never
//!   re-scanned. Held text is at most one marker long (plus the spaces, tabs and CR allowed
//!   after `~~~tool_call` on its line).
//! * **`~~~tool_call` body** (`Mode::Fence`): the same rules as [`crate::scan::fence`]: fence
//!   lines on their own, closing fence only outside a JSON string, an unterminated block ends at
//!   the next opening fence or the end of the text, no blocks inside ```` ``` ```` code. The body
//!   is appended line by line and scanned once by [`scanner::CallScanner`], which finds each
//!   call's name (→ `CallStart`) and the byte span of its arguments (→ `CallDelta`s, the model's
//!   own bytes). At the closing fence the body is decoded once by the batch code
//!   ([`crate::calls::push_calls_of_text`]) → `CallEnd` / `Invalid`.
//! * **raw JSON** (`Mode::Raw`, §4.3): a message that starts with `{`/`[` (`whole`), or the body
//!   of a ```` ```json ```` / ```` ``` ```` fence (`fenced`). It is held until it is known to be a
//!   call (then the call events) or not (then it is released as text). A byte that cannot be
//!   JSON, or a fence body not starting with `{`/`[`, releases it early. Decoding uses the batch
//!   code ([`crate::extract::raw_candidate`]).
//!
//! Every byte is scanned a bounded number of times and nothing is re-parsed per chunk: work is
//! O(input), memory O(longest call + longest marker).
//!
//! * **§6 formats** (`Mode::Region`, [`formats`]): a start marker of an enabled format
//!   (recognised across chunks by [`markers::MarkerMatch`], outside inline code spans, inside
//!   think spans only with `calls_in_reasoning`) opens a region whose per-group machine announces
//!   each call when its name is written, forwards JSON argument bytes, and finds the end of the
//!   markup; the region is then decoded once by the one-shot parser
//!   ([`crate::formats::parse_markup`]). Harmony messages that are not calls are streamed as
//!   content (`final`…) or reasoning (`analysis`) until their end marker.
//!
//! # Deliberate differences from the batch parsers
//!
//! * Calls of every enabled format are reported in text order (batch `extract` stops at the
//!   first tier that finds something).
//! * A call's id is fixed at its `CallStart`: a model-written id that comes after the arguments
//!   cannot be used, so the call keeps the id announced at its start.
//! * Spaces before an opening `~~~tool_call` line are text (they cannot be held: their number
//!   is unbounded), so an unterminated block's `raw` starts at the first `~`.
//! * A block that fails as a whole reports one `Invalid` per call it had announced.
//! * A `</think>` without an opening tag stays text (it cannot reclassify text already sent).
//! * In `whole` mode a message that starts with a JSON call is a call as soon as the value
//!   closes; text after it is content.
//! * Raw-JSON wrapper shapes (`{"tool_calls": [...]}`, `{"function": {...}}`), calls without
//!   arguments text, and the non-JSON arguments of qwen3_coder, glm45 and pythonic get one
//!   `CallDelta` holding the compact JSON of the decoded arguments, when the call ends.
//! * The calls of one §6 region (a DeepSeek/Kimi section, a pythonic list, a Mistral array)
//!   end together when the region ends: it is decoded as a whole.
//! * A broken §6 call whose one-shot parse would run past the markup the stream saw (e.g. a
//!   pythonic list with a missing comma, swallowed to the end of the text by the batch parser)
//!   ends at that markup: the same calls, the rest is content.
//! * `content`/`reasoning` are not trimmed (the one-shot `parse_format` trims them).

mod body;
mod find;
mod formats;
mod lines;
mod markers;
mod scanner;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_fast_path;
#[cfg(test)]
mod tests_formats;

use std::collections::HashSet;
use std::mem;
use std::sync::Arc;

use crate::calls::{Call, Invalid, Outcome};
use crate::extract::RawJsonMode;
use crate::formats::{Format, FormatSet, ToolSchemas};
use crate::json::{JsonBuilder, JsonView, ParseOptions};
use crate::scan::fence::LEADING_BOM;

use find::{find2, find3};
use formats::RegionBody;
use lines::{CodeAction, CodeFence, FenceKind, FenceLine, Step};
use markers::{CodeSpans, Marker, MarkerMatch};
use scanner::{CallScanner, DoubleQuotes};

/// What the stream reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Event<V> {
    Text(String),
    Reasoning(String),
    CallStart {
        index: usize,
        id: String,
        name: String,
    },
    CallDelta {
        index: usize,
        arguments: String,
    },
    /// `call.id` is always set.
    CallEnd {
        index: usize,
        call: Call<V>,
    },
    Invalid(Invalid),
}

/// Which formats the stream recognises.
#[derive(Clone, Copy, Debug)]
pub struct StreamOptions {
    /// `~~~tool_call` blocks (§4.2).
    pub text_tagged: bool,
    /// Raw JSON (§4.3): `Whole` or `Fenced` (`Anywhere` is treated as `Fenced`: quoting JSON in
    /// prose is not a call while streaming).
    pub raw_json: Option<RawJsonMode>,
    /// The open-weight formats of §6 (`formats="auto"` is [`FormatSet::ALL`]).
    pub formats: FormatSet,
    /// Look for calls inside `<think>` spans.
    pub calls_in_reasoning: bool,
    pub json: ParseOptions,
}

impl StreamOptions {
    /// `parse_text(text, format=NAME)`: only that format of §6.
    pub fn only(format: Format) -> Self {
        Self {
            text_tagged: false,
            raw_json: None,
            formats: FormatSet::only(format),
            ..Self::default()
        }
    }
}

impl Default for StreamOptions {
    fn default() -> Self {
        Self {
            text_tagged: true,
            raw_json: Some(RawJsonMode::Fenced),
            formats: FormatSet::ALL,
            calls_in_reasoning: true,
            json: ParseOptions::default(),
        }
    }
}

/// A failure of [`StreamParser::feed_bytes`] / [`StreamParser::finish`]: bytes that are not
/// UTF-8 (at this offset of the whole byte stream), or the builder's own error.
#[derive(Debug, PartialEq, Eq)]
pub enum StreamError<E> {
    Utf8 { offset: usize },
    Build(E),
}

/// A position in the input: bytes and characters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pos {
    bytes: usize,
    chars: usize,
}

impl Pos {
    fn after(self, s: &str) -> Pos {
        Pos {
            bytes: self.bytes + s.len(),
            chars: self.chars + s.chars().count(),
        }
    }
}

/// A call announced with `CallStart`.
#[derive(Clone, Debug)]
struct Live {
    index: usize,
    id: String,
    name: Option<String>,
    /// Argument bytes sent so far end here (offset in the body).
    sent_to: usize,
}

/// Live progress of the calls of one body.
#[derive(Debug, Default)]
struct LiveCalls {
    live: Vec<Option<Live>>,
    /// Records before this one are finished (ended, or announced with all arguments sent).
    from: usize,
}

struct FenceBody {
    /// The opening fence line, from its `~`.
    open_line: String,
    open_at: Pos,
    body_at: Pos,
    body: String,
    scanner: CallScanner,
    /// The classifier of the current line while it may still be a fence line.
    line: Option<FenceLine>,
    line_start: usize,
    line_in_string: bool,
    quotes: DoubleQuotes,
    /// The first fence line seen inside a JSON string: (line start, line end, kind).
    string_fence: Option<(usize, usize, FenceKind)>,
    live: LiveCalls,
    block: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RawKind {
    Whole,
    Fenced,
}

struct RawBody {
    kind: RawKind,
    /// The opening fence line (`Fenced`).
    prefix: String,
    at: Pos,
    body_at: Pos,
    body: String,
    scanner: CallScanner,
    line_start: usize,
}

enum Mode {
    Text,
    Fence(Box<FenceBody>),
    Raw(Box<RawBody>),
    /// A call region of a §6 format (see [`formats`]).
    Region(Box<RegionBody>),
}

#[derive(Clone, Copy, Debug)]
enum Candidate {
    Fence(FenceLine),
    /// `<think>`, `</think>` and the markers of the enabled §6 formats.
    Marker(MarkerMatch),
    Code(CodeFence),
}

/// Outcome of a text-mode candidate marker.
enum Resolved {
    /// Not a marker: release the first character as text and look again after it.
    Fail,
    /// Release the held text as text, without looking at it again.
    Plain {
        toggle_code: bool,
    },
    OpenFence,
    Marker(Marker),
    JsonFence,
}

/// The incremental parser. Feed it with [`feed`](Self::feed) / [`feed_bytes`](Self::feed_bytes),
/// end with [`finish`](Self::finish).
pub struct StreamParser {
    options: StreamOptions,
    mode: Mode,
    candidate: Option<Candidate>,
    /// Bytes of the pending candidate that came in earlier chunks.
    pending: String,
    /// Text not yet sent as an event, and whether it is reasoning.
    run: String,
    run_reasoning: bool,
    pos: Pos,
    in_think: bool,
    saw_think: bool,
    at_line_start: bool,
    in_code: bool,
    /// Non-whitespace content (or a call) has been seen: raw JSON `whole` no longer applies.
    message_started: bool,
    next_index: usize,
    blocks: usize,
    raw_blocks: usize,
    seen_ids: HashSet<String>,
    /// A body once ran to the end of the text inside a string: from then on every fence line
    /// ends a body (the batch scanner's rule, which keeps it linear).
    strings_run_to_end: bool,
    utf8_pending: Vec<u8>,
    /// Bytes decoded and fed so far; `utf8_pending` is not counted, so it starts here.
    bytes_fed: usize,
    finished: bool,
    /// Tool definitions, to type qwen3_coder and glm45 values.
    tools: Option<Arc<ToolSchemas>>,
    /// Inline code spans of the prose (markers in them are prose).
    spans: CodeSpans,
    /// Inside the body of a harmony message that is not a call: `Some(is_analysis)`.
    harmony_message: Option<bool>,
    /// Non-blank reasoning has been sent (a new reasoning block starts on a new line).
    reasoning_sent: bool,
}

type Out<B> = Vec<Event<<B as JsonBuilder>::Value>>;

impl StreamParser {
    pub fn new(options: StreamOptions) -> Self {
        Self {
            options,
            mode: Mode::Text,
            candidate: None,
            pending: String::new(),
            run: String::new(),
            run_reasoning: false,
            pos: Pos::default(),
            in_think: false,
            saw_think: false,
            at_line_start: true,
            in_code: false,
            message_started: false,
            next_index: 0,
            blocks: 0,
            raw_blocks: 0,
            seen_ids: HashSet::new(),
            strings_run_to_end: false,
            utf8_pending: Vec::new(),
            bytes_fed: 0,
            finished: false,
            tools: None,
            spans: CodeSpans::default(),
            harmony_message: None,
            reasoning_sent: false,
        }
    }

    /// A parser whose qwen3_coder and glm45 values are typed by these tools' schemas.
    pub fn with_tools(options: StreamOptions, tools: Option<Arc<ToolSchemas>>) -> Self {
        Self {
            tools,
            ..Self::new(options)
        }
    }

    /// Back to the initial state, keeping the options and tools.
    pub fn reset(&mut self) {
        *self = Self::with_tools(self.options, self.tools.take());
    }

    pub fn options(&self) -> &StreamOptions {
        &self.options
    }

    /// Whether a `<think>` span was seen.
    pub fn saw_reasoning(&self) -> bool {
        self.saw_think
    }

    /// Whether the bytes fed so far end inside a UTF-8 sequence (held for the next chunk).
    pub fn holds_partial_utf8(&self) -> bool {
        !self.utf8_pending.is_empty()
    }

    /// Whether [`finish`](Self::finish) has run (further input starts a new message only after
    /// [`reset`](Self::reset)).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Feeds a chunk of text, appending the events it completes to `out`.
    pub fn feed<B>(
        &mut self,
        chunk: &str,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        if let Some(index) = self.feed_argument_piece(chunk) {
            out.push(Event::CallDelta {
                index,
                arguments: chunk.to_owned(),
            });
            return Ok(());
        }
        self.feed_full(chunk, builder, out)
    }

    /// [`feed`](Self::feed) without its fast path, for a caller that has just tried
    /// [`feed_argument_piece`](Self::feed_argument_piece) on this chunk.
    pub fn feed_full<B>(
        &mut self,
        chunk: &str,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        self.bytes_fed += chunk.len();
        self.push(chunk, builder, out)?;
        self.flush(out);
        Ok(())
    }

    /// Feeds raw bytes. A UTF-8 sequence cut at the end of the chunk is held for the next one;
    /// bytes that can never be UTF-8 are an error naming their offset in the byte stream.
    pub fn feed_bytes<B>(
        &mut self,
        chunk: &[u8],
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), StreamError<B::Error>>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let mut chunk = chunk;
        if !self.utf8_pending.is_empty() {
            let width = utf8_width(self.utf8_pending[0]);
            let take = (width - self.utf8_pending.len()).min(chunk.len());
            self.utf8_pending.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if self.utf8_pending.len() < width {
                return Ok(());
            }
            let held = mem::take(&mut self.utf8_pending);
            let Ok(text) = std::str::from_utf8(&held) else {
                return Err(StreamError::Utf8 {
                    offset: self.bytes_fed,
                });
            };
            self.feed(text, builder, out).map_err(StreamError::Build)?;
        }
        let text = match std::str::from_utf8(chunk) {
            Ok(text) => text,
            Err(e) if e.error_len().is_none() => {
                self.utf8_pending = chunk[e.valid_up_to()..].to_vec();
                // SAFETY: `valid_up_to` bytes were just validated.
                unsafe { std::str::from_utf8_unchecked(&chunk[..e.valid_up_to()]) }
            }
            Err(e) => {
                return Err(StreamError::Utf8 {
                    offset: self.bytes_fed + e.valid_up_to(),
                })
            }
        };
        self.feed(text, builder, out).map_err(StreamError::Build)
    }

    /// Ends the text: releases everything held, ends or invalidates an open call.
    pub fn finish<B>(
        &mut self,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), StreamError<B::Error>>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        if !self.utf8_pending.is_empty() {
            self.utf8_pending.clear();
            return Err(StreamError::Utf8 {
                offset: self.bytes_fed,
            });
        }
        self.finish_modes(builder, out)
            .map_err(StreamError::Build)?;
        self.flush(out);
        self.finished = true;
        Ok(())
    }

    fn finish_modes<B>(&mut self, builder: &mut B, out: &mut Out<B>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        loop {
            match mem::replace(&mut self.mode, Mode::Text) {
                Mode::Text => {
                    let Some(candidate) = self.candidate.take() else {
                        return Ok(());
                    };
                    let held = mem::take(&mut self.pending);
                    // What the decision leaves of `held` is looked at again.
                    let used = self.resolve(candidate.at_end(), &held, out);
                    self.push(&held[used..], builder, out)?;
                }
                Mode::Fence(body) => {
                    let rest = self.finish_fence(body, builder, out)?;
                    self.push(&rest, builder, out)?;
                }
                Mode::Raw(body) => {
                    let rest = self.finish_raw(body, builder, out)?;
                    self.push(&rest, builder, out)?;
                }
                Mode::Region(body) => self.finish_region(*body, builder, out)?,
            }
        }
    }

    /// Routes input to the current mode until it is used up.
    fn push<B>(
        &mut self,
        mut input: &str,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        while !input.is_empty() {
            let used = match mem::replace(&mut self.mode, Mode::Text) {
                Mode::Text => self.text(input, builder, out)?,
                Mode::Fence(body) => self.fence(body, input, builder, out)?,
                Mode::Raw(body) => self.raw(body, input, builder, out)?,
                Mode::Region(body) => self.region(body, input, builder, out)?,
            };
            input = &input[used..];
        }
        Ok(())
    }

    // ----- text mode -------------------------------------------------------------------------

    /// Sends `text` as text or reasoning (by the current think state).
    fn text_out<V>(&mut self, text: &str, out: &mut Vec<Event<V>>) {
        if text.is_empty() {
            return;
        }
        let reasoning = self.in_think || self.harmony_message == Some(true);
        if self.run_reasoning != reasoning {
            self.flush(out);
            self.run_reasoning = reasoning;
        }
        if !reasoning && !self.message_started && !text.trim_ascii_start().is_empty() {
            self.message_started = true;
        }
        if reasoning && !self.reasoning_sent {
            self.reasoning_sent = !text.trim().is_empty();
        }
        if !self.options.formats.is_empty() {
            self.spans.feed(text);
        }
        self.pos = self.pos.after(text);
        self.run.push_str(text);
    }

    fn flush<V>(&mut self, out: &mut Vec<Event<V>>) {
        if !self.run.is_empty() {
            let run = mem::take(&mut self.run);
            out.push(if self.run_reasoning {
                Event::Reasoning(run)
            } else {
                Event::Text(run)
            });
        }
    }

    fn whole_eligible(&self) -> bool {
        let bare_formats = self.bare_format(b'{') || self.bare_format(b'[');
        (self.options.raw_json.is_some() || bare_formats)
            && !self.message_started
            && !self.in_think
            && !self.in_code
    }

    /// The markers a candidate starting here may complete to (a bit set over
    /// [`markers::MARKERS`]): the think tag, and the start markers of the enabled formats
    /// outside code spans (and inside think spans only with `calls_in_reasoning`).
    fn marker_mask(&mut self) -> u32 {
        let mut mask = if self.in_think {
            Marker::THINK_CLOSE
        } else {
            Marker::THINK_OPEN
        };
        if self.options.formats.is_empty()
            || (self.in_think && !self.options.calls_in_reasoning)
            || self.spans.inside()
        {
            return mask;
        }
        mask |= Marker::starts_of(self.options.formats);
        if self.harmony_message.is_some() {
            // In a message body only its end (or a new message) is markup.
            mask = (mask & !Marker::HARMONY_CHANNEL) | Marker::HARMONY_ENDS;
        }
        mask
    }

    /// The next byte of `bytes` where a marker may begin after the line start.
    fn next_stop(&self, bytes: &[u8]) -> Option<usize> {
        if self.options.formats.contains(Format::Mistral) {
            find3(b'\n', b'<', b'[', bytes)
        } else {
            find2(b'\n', b'<', bytes)
        }
    }

    fn fences_allowed(&self) -> bool {
        self.options.text_tagged
            && !self.in_code
            && (!self.in_think || self.options.calls_in_reasoning)
    }

    fn json_fence_allowed(&self) -> bool {
        match self.options.raw_json {
            None => false,
            Some(RawJsonMode::Whole) => !self.message_started && !self.in_think,
            Some(_) => !self.in_think || self.options.calls_in_reasoning,
        }
    }

    /// Text mode: returns how much of `input` it used (it stops after a marker that switches
    /// the mode).
    fn text<B>(&mut self, input: &str, builder: &mut B, out: &mut Out<B>) -> Result<usize, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let bytes = input.as_bytes();
        let mut i = 0;
        let mut run_start = 0;
        // Where the candidate's bytes start in `input` (earlier ones are in `pending`).
        let mut candidate_start = 0;
        loop {
            if let Some(mut candidate) = self.candidate {
                let mut resolved = None;
                while i < bytes.len() {
                    match candidate.step(bytes[i]) {
                        Step::More => i += 1,
                        Step::Done(r, consumed) => {
                            i += usize::from(consumed);
                            // Markers are matched byte by byte: one may part from the text
                            // inside a character (`▁` and `▊` share two bytes), which then
                            // belongs to the candidate's text whole.
                            while !input.is_char_boundary(i) {
                                i += 1;
                            }
                            resolved = Some(r);
                            break;
                        }
                    }
                }
                let Some(resolved) = resolved else {
                    self.candidate = Some(candidate);
                    self.pending.push_str(&input[candidate_start..]);
                    return Ok(bytes.len());
                };
                self.candidate = None;
                if !self.pending.is_empty() {
                    // The candidate spans chunks: decide on the joined bytes, look again at
                    // what was not used, and let `push` route the rest of `input`.
                    let mut held = mem::take(&mut self.pending);
                    held.push_str(&input[candidate_start..i]);
                    let used = self.resolve(resolved, &held, out);
                    let rest = held[used..].to_owned();
                    self.push(&rest, builder, out)?;
                    return Ok(i);
                }
                let used = self.resolve(resolved, &input[candidate_start..i], out);
                i = candidate_start + used;
                if !matches!(self.mode, Mode::Text) {
                    return Ok(i);
                }
                run_start = i;
            }
            // No candidate: scan for the next byte that may begin a marker.
            while i < bytes.len() {
                if !(self.at_line_start || self.whole_eligible()) {
                    match self.next_stop(&bytes[i..]) {
                        Some(found) => i += found,
                        None => {
                            i = bytes.len();
                            break;
                        }
                    }
                }
                let b = bytes[i];
                if b == b'\n' {
                    self.at_line_start = true;
                    i += 1;
                    continue;
                }
                let mut start = None;
                if self.at_line_start {
                    match b {
                        b' ' | b'\t' => {
                            i += 1;
                            continue;
                        }
                        // A byte order mark at the very start pads the first line, as in
                        // `scan::fence`.
                        0xEF if self.pos.bytes + i == 0 && input.starts_with(LEADING_BOM) => {
                            self.message_started = true;
                            i += LEADING_BOM.len();
                            continue;
                        }
                        b'~' if self.fences_allowed() => {
                            start = Some(Candidate::Fence(FenceLine::Indent));
                        }
                        b'`' => {
                            let json = !self.in_code && self.json_fence_allowed();
                            start = Some(Candidate::Code(CodeFence::new(json)));
                        }
                        _ => {}
                    }
                    self.at_line_start = false;
                }
                if start.is_none() {
                    if b == b'<' || (b == b'[' && !self.whole_eligible()) {
                        self.text_out(&input[run_start..i], out);
                        run_start = i;
                        start = MarkerMatch::start(self.marker_mask(), b).map(Candidate::Marker);
                        if start.is_none() && !self.in_think {
                            self.message_started = true;
                        }
                    } else if self.whole_eligible() && (b == b'{' || b == b'[') {
                        self.text_out(&input[run_start..i], out);
                        self.flush(out);
                        self.message_started = true;
                        if self.bare_format(b) {
                            self.mode = Mode::Region(RegionBody::bare(self, b));
                            return Ok(i);
                        }
                        self.mode = Mode::Raw(Box::new(RawBody::new(
                            RawKind::Whole,
                            String::new(),
                            self.pos,
                            self.options.json,
                        )));
                        return Ok(i);
                    } else if !self.in_think && !matches!(b, b' ' | b'\t' | b'\r') {
                        self.message_started = true;
                    }
                }
                if let Some(candidate) = start {
                    self.text_out(&input[run_start..i], out);
                    candidate_start = i;
                    self.candidate = Some(candidate);
                    break;
                }
                i += 1;
            }
            if self.candidate.is_none() {
                self.text_out(&input[run_start..], out);
                return Ok(bytes.len());
            }
        }
    }

    /// Acts on a decided candidate whose bytes are `held`; returns how many of them it used
    /// (all, except after a failed candidate, whose first character alone is released).
    fn resolve<V>(&mut self, resolved: Resolved, held: &str, out: &mut Vec<Event<V>>) -> usize {
        match resolved {
            Resolved::Fail => {
                let first = held.chars().next().map_or(0, char::len_utf8);
                self.text_out(&held[..first], out);
                if !self.in_think {
                    self.message_started = true;
                }
                first
            }
            Resolved::Plain { toggle_code } => {
                self.text_out(held, out);
                if toggle_code {
                    self.in_code = !self.in_code;
                }
                held.len()
            }
            Resolved::Marker(Marker::ThinkOpen | Marker::ThinkClose) => {
                self.flush(out);
                self.pos = self.pos.after(held);
                self.in_think = !self.in_think;
                self.saw_think = true;
                if self.in_think && self.reasoning_sent {
                    // As the one-shot parsers: reasoning blocks are joined by a newline.
                    self.prose_out("\n", true, out);
                }
                held.len()
            }
            Resolved::Marker(Marker::HarmonyEnd) => {
                self.flush(out);
                self.pos = self.pos.after(held);
                self.harmony_message = None;
                held.len()
            }
            Resolved::Marker(marker) => {
                self.flush(out);
                self.harmony_message = None;
                self.message_started = true;
                self.mode = Mode::Region(RegionBody::open(self, marker, held));
                held.len()
            }
            Resolved::OpenFence => {
                self.flush(out);
                self.message_started = true;
                let open_at = self.pos;
                self.pos = self.pos.after(held);
                self.blocks += 1;
                self.mode = Mode::Fence(Box::new(FenceBody {
                    open_line: held.to_owned(),
                    open_at,
                    body_at: self.pos,
                    body: String::new(),
                    scanner: CallScanner::new(self.options.json, false),
                    line: Some(FenceLine::Indent),
                    line_start: 0,
                    line_in_string: false,
                    quotes: DoubleQuotes::default(),
                    string_fence: None,
                    live: LiveCalls::default(),
                    block: self.blocks - 1,
                }));
                held.len()
            }
            Resolved::JsonFence => {
                self.flush(out);
                self.message_started = true;
                self.mode = Mode::Raw(Box::new(RawBody::new(
                    RawKind::Fenced,
                    held.to_owned(),
                    self.pos,
                    self.options.json,
                )));
                held.len()
            }
        }
    }
}

impl Candidate {
    fn step(&mut self, b: u8) -> Step<Resolved> {
        match self {
            Candidate::Fence(line) => match line.step(b) {
                Step::More if line.may_open() => Step::More,
                Step::Done(FenceKind::Open, consumed) => Step::Done(Resolved::OpenFence, consumed),
                _ => Step::Done(Resolved::Fail, false),
            },
            Candidate::Marker(markers) => match markers.step(b) {
                Step::More => Step::More,
                Step::Done(Some(marker), consumed) => {
                    Step::Done(Resolved::Marker(marker), consumed)
                }
                Step::Done(None, _) => Step::Done(Resolved::Fail, false),
            },
            Candidate::Code(code) => match code.step(b) {
                Step::More => Step::More,
                Step::Done(CodeAction::JsonFence, consumed) => {
                    Step::Done(Resolved::JsonFence, consumed)
                }
                Step::Done(CodeAction::Toggle, consumed) => {
                    Step::Done(Resolved::Plain { toggle_code: true }, consumed)
                }
                Step::Done(CodeAction::NotFence, _) => Step::Done(Resolved::Fail, false),
            },
        }
    }

    /// The decision when the text ends inside the candidate.
    fn at_end(self) -> Resolved {
        match self {
            Candidate::Fence(line) if line.at_end() == FenceKind::Open => Resolved::OpenFence,
            Candidate::Code(code) if code.at_end() == CodeAction::Toggle => {
                Resolved::Plain { toggle_code: true }
            }
            _ => Resolved::Fail,
        }
    }
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// The result of [`parse_text`]: §1 `Parsed`.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedText<V> {
    pub content: String,
    /// `None` when the text has no think span.
    pub reasoning: Option<String>,
    pub calls: Vec<Outcome<V>>,
}

/// Merges adjacent text, reasoning, and same-call argument deltas.
pub fn coalesce<V>(events: Vec<Event<V>>) -> Vec<Event<V>> {
    let mut merged: Vec<Event<V>> = Vec::with_capacity(events.len());
    for event in events {
        match (merged.last_mut(), event) {
            (Some(Event::Text(a)), Event::Text(b))
            | (Some(Event::Reasoning(a)), Event::Reasoning(b)) => a.push_str(&b),
            (
                Some(Event::CallDelta {
                    index: i,
                    arguments: a,
                }),
                Event::CallDelta {
                    index: j,
                    arguments: b,
                },
            ) if *i == j => a.push_str(&b),
            (_, event) => merged.push(event),
        }
    }
    merged
}

/// §1/§9.1: the whole text through the stream engine: content, reasoning and call outcomes.
pub fn parse_text<B>(
    builder: &mut B,
    text: &str,
    options: StreamOptions,
) -> Result<ParsedText<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    parse_text_with_tools(builder, text, options, None)
}

/// [`parse_text`] with tool definitions, to type qwen3_coder and glm45 values.
pub fn parse_text_with_tools<B>(
    builder: &mut B,
    text: &str,
    options: StreamOptions,
    tools: Option<Arc<ToolSchemas>>,
) -> Result<ParsedText<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut parser = StreamParser::with_tools(options, tools);
    let mut events = Vec::new();
    parser.feed(text, builder, &mut events)?;
    match parser.finish(builder, &mut events) {
        Ok(()) => {}
        Err(StreamError::Build(e)) => return Err(e),
        // A `&str` never leaves a partial UTF-8 sequence.
        Err(StreamError::Utf8 { .. }) => {}
    }
    Ok(collect(events, parser.saw_reasoning()))
}

/// Folds events into content, reasoning and outcomes.
pub fn collect<V>(events: Vec<Event<V>>, saw_reasoning: bool) -> ParsedText<V> {
    let mut parsed = ParsedText {
        content: String::new(),
        reasoning: saw_reasoning.then(String::new),
        calls: Vec::new(),
    };
    for event in events {
        match event {
            Event::Text(text) => parsed.content.push_str(&text),
            Event::Reasoning(text) => parsed
                .reasoning
                .get_or_insert_with(String::new)
                .push_str(&text),
            Event::CallEnd { call, .. } => parsed.calls.push(Outcome::Call(call)),
            Event::Invalid(invalid) => parsed.calls.push(Outcome::invalid(invalid)),
            Event::CallStart { .. } | Event::CallDelta { .. } => {}
        }
    }
    parsed
}
