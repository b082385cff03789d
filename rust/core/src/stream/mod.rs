//! A resumable, linear-time stream parser for model text.
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
//! * **text** ([`text`]): plain text and `<think>` spans. Only bytes that may start a marker
//!   are looked at (a `memchr` jump to the next `\n` or `<`); a marker cut by the end of a chunk
//!   is held and matched again when the next one comes. Held text is at most one marker long
//!   (plus the spaces, tabs and CR allowed after `~~~tool_call` on its line), and the opening
//!   line of a ```` ``` ```` block until the block's first non-blank text: a call there drops
//!   it and the block's closing fence line, as markup ([`shared::Shared::open_code`]).
//! * **`~~~tool_call` body** ([`fence`]): the same rules as [`crate::scan::fence`]: fence
//!   lines on their own, closing fence only outside a JSON string, an unterminated block ends at
//!   the next opening fence or the end of the text, no blocks inside ```` ``` ```` code. The body
//!   is appended line by line and scanned once by [`scanner::CallScanner`], which finds each
//!   call's name (→ `CallStart`) and the byte span of its arguments (→ `CallDelta`s, the model's
//!   own bytes). At the closing fence the body is decoded once by the batch code
//!   ([`crate::calls::push_calls_of_text`]) → `CallEnd` / `Invalid`.
//! * **raw JSON** ([`raw`]): a message that starts with `{`/`[` (`whole`), or the body
//!   of a ```` ```json ```` / ```` ``` ```` fence (`fenced`). It is held until it is known to be a
//!   call (then the call events) or not (then it is released as text). A byte that cannot be
//!   JSON, or a fence body not starting with `{`/`[`, releases it early. Decoding uses the batch
//!   code ([`crate::raw_json::raw_candidate`]).
//!
//! Every byte is scanned a bounded number of times and nothing is re-parsed per chunk: work is
//! O(input), memory O(longest call + longest marker).
//!
//! * **open-weight formats** ([`region`]): a start marker of an enabled format (from the
//!   registry's marker table, outside inline code spans, inside think spans only with
//!   `calls_in_reasoning`) opens a region whose group machine announces each call when its name
//!   is written, forwards JSON argument bytes, and finds the end of the markup; the region is
//!   then decoded once by the group's decoder ([`crate::formats::decode_region`]). Harmony
//!   messages that are not calls are streamed as content (`final`…) or reasoning (`analysis`)
//!   until their end marker.
//!
//! The modes share one narrow context ([`shared::Shared`]: position, prose state, call
//! numbering) and hand over to each other through [`Next`]; none touches another's state.
//!
//! The same engine, told not to produce text and argument events, is `extract`'s reader of the
//! text protocols: `extract`, `parse_text` and a stream read every text by the same rules.
//!
//! # Deliberate differences from the batch parsers
//!
//! * Calls of every enabled format are reported in text order (batch `extract` stops at the
//!   first tier that finds something).
//! * A call's id is fixed at its `CallStart`: a model-written id that comes after the arguments
//!   cannot be used, so the call keeps the id announced at its start.
//! * Spaces before an opening `~~~tool_call` line are text (they cannot be held: their number
//!   is unbounded), so an unterminated block's `raw` starts at the first `~`.
//! * A `</think>` without an opening tag after content, before any think span, stays text (it
//!   cannot reclassify text already sent); other unopened closing tags are stray tokens, dropped.
//! * In `whole` mode a message that starts with a JSON call is a call as soon as the value
//!   closes; text after it is content.
//! * Raw-JSON wrapper shapes (`{"tool_calls": [...]}`, `{"function": {...}}`), calls without
//!   arguments text, and the non-JSON arguments of qwen3_coder, glm45 and pythonic get one
//!   `CallDelta` holding the compact JSON of the decoded arguments, when the call ends.
//! * The calls of one region (a DeepSeek/Kimi section, a pythonic list, a Mistral array)
//!   end together when the region ends: it is decoded as a whole.
//! * A broken call whose one-shot parse would run past the markup the stream saw (e.g. a
//!   pythonic list with a missing comma, swallowed to the end of the text by the batch parser)
//!   ends at that markup: the same calls, the rest is content.
//! * `content`/`reasoning` are not trimmed (the one-shot `parse_format` trims them).
//!
//! Calls read inside think spans are held ([`held`]) until a call outside reasoning drops them
//! or the text ends: a draft in the reasoning followed by the call gives the call once.

mod emit;
mod fence;
mod held;
mod lines;
mod raw;
mod region;
mod shared;
mod spans;
mod stops;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_fast_path;
#[cfg(test)]
mod tests_formats;
#[cfg(test)]
mod tests_reasoning;
mod text;

use std::mem;
use std::sync::Arc;

use crate::calls::{Call, Invalid, Outcome};
use crate::formats::markers::{control_of, starts_of, Mask};
use crate::formats::{whole_json_mode, Format, FormatSet, Group, ParamTypes, ToolSchemas};
use crate::json::{JsonBuilder, JsonView, ParseOptions};
use crate::raw_json::RawJsonMode;

use fence::FenceBody;
use raw::RawBody;
use region::RegionBody;
use shared::Shared;
use text::Text;

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
    /// `~~~tool_call` blocks.
    pub text_tagged: bool,
    /// Raw JSON: `Whole` or `Fenced` (`Anywhere` is treated as `Fenced`: quoting JSON in
    /// prose is not a call while streaming).
    pub raw_json: Option<RawJsonMode>,
    /// The open-weight formats (`formats="auto"` is [`FormatSet::ALL`]).
    pub formats: FormatSet,
    /// Look for calls inside think spans; they count only when the message has no call outside
    /// them ([`held`]).
    pub calls_in_reasoning: bool,
    /// The prompt opened a think span (a chat template that ends with `<think>`): the text
    /// starts inside reasoning, up to the first closing think tag.
    pub starts_in_reasoning: bool,
    pub json: ParseOptions,
    /// A whole-message raw-JSON value `{"response": "…"}` is that string as content (llama.cpp's
    /// generic format, named as `llamacpp_generic`); else it is kept as the JSON written.
    pub json_answers: bool,
}

impl StreamOptions {
    /// `parse_text(text, format=NAME)`: only that open-weight format.
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
            starts_in_reasoning: false,
            json: ParseOptions::model_text(false),
            json_answers: false,
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

/// The body being read, when not text.
enum Mode {
    Text,
    Fence(Box<FenceBody>),
    Raw(Box<RawBody>),
    Region(Box<RegionBody>),
}

/// What a mode did with its input.
enum Next {
    /// It used this many bytes and goes on.
    Stay(usize),
    /// It used this many bytes; the stream goes on in `Mode` (text when a body ended), which
    /// reads the `String` (text given back) before the rest of the input.
    To(usize, Mode, String),
}

impl Next {
    /// Back to text after `used` bytes, reading `replay` first.
    fn replay(used: usize, replay: String) -> Self {
        Next::To(used, Mode::Text, replay)
    }

    /// Into `mode` after `used` bytes.
    fn switch(used: usize, mode: Mode) -> Self {
        Next::To(used, mode, String::new())
    }
}

/// What a mode is given to work with.
struct Ctx<'a, B: JsonBuilder> {
    pub shared: &'a mut Shared,
    pub options: &'a StreamOptions,
    pub tools: Option<&'a dyn ParamTypes>,
    pub builder: &'a mut B,
    pub out: &'a mut Out<B>,
    /// The start markers and control tokens of the enabled formats.
    pub starts: Mask,
    /// Some enabled format may open bare (or without its first marker) at the message start.
    pub bare_formats: bool,
}

type Out<B> = Vec<Event<<B as JsonBuilder>::Value>>;

/// The options, and what follows from them.
#[derive(Clone, Copy, Debug)]
struct Setup {
    options: StreamOptions,
    starts: Mask,
    bare_formats: bool,
    events: bool,
}

impl Setup {
    /// The engine's setup for `options`: a format whose message may be a bare or fenced JSON
    /// call ([`Grammar::WHOLE_JSON`](crate::formats::grammar::Grammar::WHOLE_JSON)) reads it
    /// as raw JSON `whole` does, when no raw JSON was asked for.
    fn new(mut options: StreamOptions, events: bool) -> Self {
        options.raw_json = whole_json_mode(options.raw_json, options.formats);
        Self::literal(options, events)
    }

    /// A stream's state at its start.
    fn shared(&self) -> Shared {
        let mut shared = Shared::new(self.events, !self.starts.is_empty());
        if self.options.starts_in_reasoning {
            shared.prose.saw_think = true;
            // Where the formats read are those of a group whose reasoning is a prose message of
            // its own (harmony's analysis channel, Muse Glimmer's `to=self`, HyperCLOVA X 14B's
            // reasoning turn), the prompt opened that message, and the group's end token closes
            // it.
            let formats = self.options.formats;
            let group = Group::ALL.iter().copied().find(|g| {
                let message = g.reasoning_is_a_message();
                !message.is_empty() && message.union(formats) == message
            });
            match group {
                Some(group) if !formats.is_empty() => shared.prose.message = Some((group, true)),
                _ => shared.prose.in_think = true,
            }
        }
        shared
    }

    /// The setup for `options` taken as given.
    fn literal(options: StreamOptions, events: bool) -> Self {
        let starts = starts_of(options.formats) | control_of(options.formats);
        Self {
            options,
            starts,
            bare_formats: Group::ALL.iter().any(|g| {
                g.bare()
                    .is_some_and(|b| b.formats.intersects(options.formats))
                    || (g.implied_start() && g.formats().intersects(options.formats))
            }),
            events,
        }
    }
}

/// The incremental parser. Feed it with [`feed`](Self::feed) / [`feed_bytes`](Self::feed_bytes),
/// end with [`finish`](Self::finish).
pub struct StreamParser {
    setup: Setup,
    /// Tool definitions, to type the values of XML-style formats.
    tools: Option<Arc<ToolSchemas>>,
    shared: Shared,
    text: Text,
    mode: Mode,
    utf8_pending: Vec<u8>,
    /// Bytes decoded and fed so far; `utf8_pending` is not counted, so it starts here.
    bytes_fed: usize,
    finished: bool,
}

impl StreamParser {
    pub fn new(options: StreamOptions) -> Self {
        Self::with_tools(options, None)
    }

    /// A parser whose XML-style values are typed by these tools' schemas.
    pub fn with_tools(options: StreamOptions, tools: Option<Arc<ToolSchemas>>) -> Self {
        Self::build(Setup::new(options, true), tools)
    }

    fn build(setup: Setup, tools: Option<Arc<ToolSchemas>>) -> Self {
        Self {
            setup,
            tools,
            shared: setup.shared(),
            text: Text::default(),
            mode: Mode::Text,
            utf8_pending: Vec::new(),
            bytes_fed: 0,
            finished: false,
        }
    }

    /// Back to the initial state, keeping the options and tools.
    pub fn reset(&mut self) {
        *self = Self::build(self.setup, self.tools.take());
    }

    pub fn options(&self) -> &StreamOptions {
        &self.setup.options
    }

    /// Whether a `<think>` span was seen.
    pub fn saw_reasoning(&self) -> bool {
        self.shared.prose.saw_think
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
        let (mut cx, text, mode) = self.parts(builder, out);
        // The usual chunk of a long parameter value or of prose is taken as the modes would
        // take it, without stepping through them; text mode reads on from the first byte of
        // other prose where something may begin.
        let mut plain = 0;
        let taken = match mode {
            Mode::Region(body) => body.skip_piece(chunk),
            Mode::Text => {
                plain = text.plain_len(chunk, &cx);
                plain == chunk.len()
            }
            _ => false,
        };
        if !taken {
            push(text, mode, chunk, plain, &mut cx)?;
        } else if plain > 0 {
            cx.shared.text_out(chunk, cx.out);
        }
        cx.shared.flush(cx.out);
        Ok(())
    }

    /// Feeds a chunk through the modes alone (what the shortcuts of
    /// [`feed_full`](Self::feed_full) are checked against).
    #[cfg(test)]
    fn feed_modes<B>(
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
        let (mut cx, text, mode) = self.parts(builder, out);
        push(text, mode, chunk, 0, &mut cx)?;
        cx.shared.flush(cx.out);
        Ok(())
    }

    /// The fast path of [`feed`](Self::feed) for the usual chunk of a long call: one inside a
    /// JSON string in the arguments of an announced call whose bytes have all been sent, that
    /// does not close the string and holds no newline, so that it cannot end the call or the
    /// region. Taking it is all the full path would do: append it, move the scanner past it and
    /// send it whole as the call's next `CallDelta`. Returns that call's index, or `None` having
    /// done nothing.
    pub fn feed_argument_piece(&mut self, chunk: &str) -> Option<usize> {
        // A call inside a think span is held: its pieces are not sent.
        if chunk.is_empty() || !self.shared.run_is_empty() || self.shared.prose.in_think {
            return None;
        }
        let index = match &mut self.mode {
            Mode::Fence(body) => body.take_argument_piece(chunk)?,
            Mode::Region(body) => body.take_argument_piece(chunk)?,
            _ => return None,
        };
        self.bytes_fed += chunk.len();
        Some(index)
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
        let (mut cx, text, mode) = self.parts(builder, out);
        finish_modes(text, mode, &mut cx).map_err(StreamError::Build)?;
        cx.shared.flush(cx.out);
        self.finished = true;
        Ok(())
    }

    /// The modes' context, and the text and body states apart from it.
    fn parts<'a, B: JsonBuilder>(
        &'a mut self,
        builder: &'a mut B,
        out: &'a mut Out<B>,
    ) -> (Ctx<'a, B>, &'a mut Text, &'a mut Mode) {
        let setup = &self.setup;
        let cx = Ctx {
            shared: &mut self.shared,
            options: &setup.options,
            tools: self.tools.as_deref().map(|t| t as &dyn ParamTypes),
            builder,
            out,
            starts: setup.starts,
            bare_formats: setup.bare_formats,
        };
        (cx, &mut self.text, &mut self.mode)
    }
}

/// Routes input to the current mode until it is used up (text mode knowing its first `plain`
/// bytes to be text).
fn push<B>(
    text: &mut Text,
    mode: &mut Mode,
    mut input: &str,
    mut plain: usize,
    cx: &mut Ctx<'_, B>,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    while !input.is_empty() {
        let next = match &mut *mode {
            Mode::Text => text.feed(input, mem::take(&mut plain), cx)?,
            // Inside a think span (only with `calls_in_reasoning`): its calls are held.
            body if cx.shared.prose.in_think => cx.in_reasoning(|cx| match body {
                Mode::Fence(body) => body.feed(input, cx),
                Mode::Raw(body) => body.feed(input, cx),
                Mode::Region(body) => body.feed(input, cx),
                Mode::Text => unreachable!("text mode is read above"),
            }),
            Mode::Fence(body) => body.feed(input, cx)?,
            Mode::Raw(body) => body.feed(input, cx)?,
            Mode::Region(body) => body.feed(input, cx)?,
        };
        match next {
            Next::Stay(used) => input = &input[used..],
            Next::To(used, next, replay) => {
                *mode = next;
                push(text, mode, &replay, 0, cx)?;
                input = &input[used..];
            }
        }
    }
    Ok(())
}

/// Ends every mode still open, and what each gives back.
fn finish_modes<B>(text: &mut Text, mode: &mut Mode, cx: &mut Ctx<'_, B>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    loop {
        let (next, rest) = match mem::replace(mode, Mode::Text) {
            Mode::Text => match text.finish(cx) {
                None => {
                    cx.shared.end_text(cx.out);
                    return cx.release_held();
                }
                Some((rest, opened)) => (opened.unwrap_or(Mode::Text), rest),
            },
            body if cx.shared.prose.in_think => cx.in_reasoning(|cx| match body {
                Mode::Fence(mut body) => Ok((Mode::Text, body.finish(cx)?)),
                Mode::Raw(mut body) => Ok((Mode::Text, body.finish(cx)?)),
                Mode::Region(mut body) => {
                    Ok(body.finish(cx)?.unwrap_or((Mode::Text, String::new())))
                }
                Mode::Text => unreachable!("text mode is read above"),
            }),
            Mode::Fence(mut body) => (Mode::Text, body.finish(cx)?),
            Mode::Raw(mut body) => (Mode::Text, body.finish(cx)?),
            Mode::Region(mut body) => match body.finish(cx)? {
                Some((next, rest)) => (next, rest),
                None => (Mode::Text, String::new()),
            },
        };
        *mode = next;
        push(text, mode, &rest, 0, cx)?;
    }
}

/// A parse of a whole text that reports calls only: `extract`'s reader of the open-weight
/// formats. It decides everything as [`parse_text`] does (the same engine), without making the
/// text and argument events, counting characters or assigning ids: the caller turns the
/// failures' byte offsets into character offsets and gives ids for the whole response at once.
///
/// The raw JSON it reads is `options.raw_json` as given: `extract` reads raw JSON in a tier of
/// its own, after the formats, so a format's bare or fenced JSON message is read there
/// ([`whole_json_mode`]).
pub fn read_calls<B>(
    builder: &mut B,
    text: &str,
    options: StreamOptions,
    tools: Option<&dyn ParamTypes>,
) -> Result<CallsFound<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let whole = run_whole(builder, text, Setup::literal(options, false), tools)?;
    let outcomes = whole
        .events
        .into_iter()
        .filter_map(|event| match event {
            Event::CallEnd { call, .. } => Some(Outcome::Call(call)),
            Event::Invalid(invalid) => Some(Outcome::invalid(invalid)),
            _ => None,
        })
        .collect();
    Ok(CallsFound {
        outcomes,
        in_reasoning: whole.calls_in_reasoning,
    })
}

/// The calls [`read_calls`] found.
#[derive(Debug)]
pub struct CallsFound<V> {
    pub outcomes: Vec<Outcome<V>>,
    /// They were all written inside think spans (the text has no call outside them).
    pub in_reasoning: bool,
}

impl<V> CallsFound<V> {
    /// Calls read where think spans do not matter (or none).
    pub fn outside_reasoning(outcomes: Vec<Outcome<V>>) -> Self {
        Self {
            outcomes,
            in_reasoning: false,
        }
    }
}

/// What the engine made of a whole text.
struct Whole<B: JsonBuilder> {
    events: Out<B>,
    saw_think: bool,
    /// Its calls were all read inside think spans.
    calls_in_reasoning: bool,
}

/// The engine over a whole text.
fn run_whole<B>(
    builder: &mut B,
    text: &str,
    setup: Setup,
    tools: Option<&dyn ParamTypes>,
) -> Result<Whole<B>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut shared = setup.shared();
    let mut events = Vec::new();
    let (mut text_mode, mut mode) = (Text::default(), Mode::Text);
    let mut cx = Ctx {
        shared: &mut shared,
        options: &setup.options,
        tools,
        builder,
        out: &mut events,
        starts: setup.starts,
        bare_formats: setup.bare_formats,
    };
    push(&mut text_mode, &mut mode, text, 0, &mut cx)?;
    finish_modes(&mut text_mode, &mut mode, &mut cx)?;
    cx.shared.flush(cx.out);
    Ok(Whole {
        events,
        saw_think: shared.prose.saw_think,
        calls_in_reasoning: shared.held.released,
    })
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// The result of [`parse_text`].
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

/// The whole text through the stream engine: content, reasoning and call outcomes.
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

/// [`parse_text`] with tool definitions, to type the values of XML-style formats.
pub fn parse_text_with_tools<B>(
    builder: &mut B,
    text: &str,
    options: StreamOptions,
    tools: Option<&dyn ParamTypes>,
) -> Result<ParsedText<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let whole = run_whole(builder, text, Setup::new(options, true), tools)?;
    Ok(collect(whole.events, whole.saw_think))
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
