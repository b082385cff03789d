//! The open-weight text formats of §6: one-shot parsers that turn a model's raw text into calls,
//! `content` (the text outside call markup) and `reasoning` (think spans, harmony `analysis`).
//!
//! Every format is parsed by one forward pass over the text: markers are found with an
//! Aho–Corasick automaton, closing markers with cached forward searches ([`cursor::Seek`]), and
//! JSON with the crate's one-pass parser, so the work is linear in the input.
//!
//! **Code-span rule.** A start marker that sits inside an inline Markdown code span is prose, not
//! a call: after a backtick run on a line, markers are ignored until a backtick run of the same
//! length closes the span or the line ends. Only the text *before* the marker decides, so a
//! stream parser applies the same rule without look-ahead. `` `<tool_call>` `` or
//! `` `[TOOL_CALLS]` `` in prose therefore creates no call, while a call on a line of its own
//! (or inside a ```` ``` ```` fence, as §4.3 does for raw JSON) is found. Markers inside a
//! ```` ```json ```` fence are prose too: they sit in JSON strings (the raw-JSON tier's).
//!
//! **Content and reasoning.** `content` is the text outside call markup and think spans, and
//! `reasoning` the text of think spans and harmony `analysis` messages (several joined by a
//! newline); both are trimmed of surrounding whitespace. `reasoning` is `None` when the text has
//! neither.

mod cursor;
pub(crate) mod deepseek;
pub(crate) mod glm45;
pub(crate) mod harmony;
mod hermes;
pub(crate) mod kimi_k2;
mod literal;
pub(crate) mod llama3_json;
pub(crate) mod mistral;
pub(crate) mod pythonic;
pub(crate) mod qwen3_coder;
mod schema;
pub(crate) mod sectioned;
mod sniff;
pub(crate) mod tool_call;

#[cfg(test)]
mod tests;

use std::ops::Range;

use crate::calls::{
    call_fields_from_text, call_fields_list_from_text, call_from_fields, normalize_arguments,
    push_call, Call, CallFields, FailureKind, Outcome, Protocol, ShapeFailure, TextCallContext,
    TextPlace,
};
use crate::json::{parse_prefix, JsonBuilder, JsonView, ParseError, ParseOptions, SyntaxError};
use crate::scan::think::{self, think_spans};

pub use schema::{property_types, tool_properties, ParamTypes, ToolSchemas, Types};
pub use sniff::sniff;

/// A format of §6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Hermes,
    Qwen3Coder,
    Mistral,
    Llama3Json,
    Pythonic,
    DeepseekV3,
    DeepseekV31,
    KimiK2,
    Harmony,
    Glm45,
}

impl Format {
    pub const ALL: [Format; 10] = [
        Format::Hermes,
        Format::Qwen3Coder,
        Format::Mistral,
        Format::Llama3Json,
        Format::Pythonic,
        Format::DeepseekV3,
        Format::DeepseekV31,
        Format::KimiK2,
        Format::Harmony,
        Format::Glm45,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Hermes => "hermes",
            Format::Qwen3Coder => "qwen3_coder",
            Format::Mistral => "mistral",
            Format::Llama3Json => "llama3_json",
            Format::Pythonic => "pythonic",
            Format::DeepseekV3 => "deepseek_v3",
            Format::DeepseekV31 => "deepseek_v31",
            Format::KimiK2 => "kimi_k2",
            Format::Harmony => "harmony",
            Format::Glm45 => "glm45",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Format::ALL.into_iter().find(|f| f.as_str() == name)
    }

    /// The parser that handles this format (formats sharing markers share a parser).
    pub(crate) const fn group(self) -> Group {
        match self {
            Format::Hermes | Format::Qwen3Coder | Format::Glm45 => Group::ToolCallTag,
            Format::Mistral => Group::Mistral,
            Format::Llama3Json => Group::Llama3Json,
            Format::Pythonic => Group::Pythonic,
            Format::DeepseekV3 | Format::DeepseekV31 => Group::Deepseek,
            Format::KimiK2 => Group::KimiK2,
            Format::Harmony => Group::Harmony,
        }
    }
}

/// A set of formats (`formats="auto"` is [`FormatSet::ALL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatSet(u16);

impl FormatSet {
    pub const ALL: FormatSet = FormatSet((1 << Format::ALL.len()) - 1);
    pub const NONE: FormatSet = FormatSet(0);

    pub fn only(format: Format) -> Self {
        FormatSet(1 << format as u16)
    }

    pub fn with(self, format: Format) -> Self {
        FormatSet(self.0 | 1 << format as u16)
    }

    pub fn contains(self, format: Format) -> bool {
        self.0 & (1 << format as u16) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn has_group(self, group: Group) -> bool {
        self.0 & group.formats().0 != 0
    }
}

/// Parsers that share markers are one group: `<tool_call>` opens hermes, qwen3_coder and glm45
/// calls alike, and the DeepSeek versions share their tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    ToolCallTag,
    Mistral,
    Llama3Json,
    Pythonic,
    Deepseek,
    KimiK2,
    Harmony,
}

impl Group {
    pub(crate) const ALL: [Group; 7] = [
        Group::ToolCallTag,
        Group::Mistral,
        Group::Llama3Json,
        Group::Pythonic,
        Group::Deepseek,
        Group::KimiK2,
        Group::Harmony,
    ];

    /// The formats this group parses.
    const fn formats(self) -> FormatSet {
        let mut bits = 0;
        let mut i = 0;
        while i < Format::ALL.len() {
            if Format::ALL[i].group() as u8 == self as u8 {
                bits |= 1 << Format::ALL[i] as u16;
            }
            i += 1;
        }
        FormatSet(bits)
    }

    pub(crate) fn parse_region<B>(
        self,
        cx: &mut Cx<'_, '_, B>,
        range: Range<usize>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        match self {
            Group::ToolCallTag => tool_call::parse_region(cx, range),
            Group::Mistral => mistral::parse_region(cx, range),
            Group::Llama3Json => llama3_json::parse_region(cx, range),
            Group::Pythonic => pythonic::parse_region(cx, range),
            Group::Deepseek => deepseek::parse_region(cx, range),
            Group::KimiK2 => kimi_k2::parse_region(cx, range),
            Group::Harmony => harmony::parse_region(cx, range),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct FormatOptions<'a> {
    pub json: ParseOptions,
    /// Tool definitions, to type qwen3_coder and glm45 parameter values.
    pub tools: Option<&'a dyn ParamTypes>,
    /// Parse calls written inside think spans (§6).
    pub calls_in_reasoning: bool,
}

impl Default for FormatOptions<'_> {
    fn default() -> Self {
        Self {
            json: ParseOptions::default(),
            tools: None,
            calls_in_reasoning: true,
        }
    }
}

/// What `parse_text` returns: calls with the text around them.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed<V> {
    pub content: String,
    pub reasoning: Option<String>,
    pub outcomes: Vec<Outcome<V>>,
}

/// Parses `text` as `format` (`parse_text(text, format=NAME)`).
pub fn parse_format<B>(
    builder: &mut B,
    text: &str,
    format: Format,
    options: FormatOptions<'_>,
) -> Result<Parsed<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut cx = Cx::new(builder, text, options, FormatSet::only(format), true);
    run(&mut cx, format.group(), &think_spans(text))?;
    Ok(cx.finish())
}

/// Decodes the markup of one call region found by the stream engine (`text` starts at a start
/// marker of `group`) with the one-shot parser, so the rules live in one place. `content` and
/// `reasoning` are the prose the parser left, untrimmed; `first_index` numbers the calls in
/// error messages.
pub(crate) fn parse_markup<B>(
    builder: &mut B,
    text: &str,
    group: Group,
    allowed: FormatSet,
    options: FormatOptions<'_>,
    in_think: bool,
    first_index: usize,
) -> Result<Parsed<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut cx = Cx::new(builder, text, options, allowed, true);
    cx.in_think = in_think;
    cx.first_index = first_index;
    group.parse_region(&mut cx, 0..text.len())?;
    Ok(Parsed {
        content: cx.content,
        reasoning: cx.has_reasoning.then_some(cx.reasoning),
        outcomes: cx.outcomes,
    })
}

/// Tier 2 of `extract` (§4.4): runs the groups of `allowed` whose markers occur in `text`, in
/// the order of their first marker; the first that yields a call or an error wins.
pub fn extract_formats<B>(
    builder: &mut B,
    text: &str,
    allowed: FormatSet,
    options: FormatOptions<'_>,
) -> Result<Vec<Outcome<B::Value>>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    if allowed.is_empty() {
        return Ok(Vec::new());
    }
    let think = think_spans(text);
    for group in sniff(text, allowed, &think) {
        let mut cx = Cx::new(&mut *builder, text, options, allowed, false);
        run(&mut cx, group, &think)?;
        if !cx.outcomes.is_empty() {
            return Ok(cx.outcomes);
        }
    }
    Ok(Vec::new())
}

/// Splits the text at its think spans (`think`) and parses each piece with `group`.
fn run<B>(cx: &mut Cx<'_, '_, B>, group: Group, think: &[Range<usize>]) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let mut pos = 0;
    for span in think.iter().cloned() {
        group.parse_region(cx, pos..span.start)?;
        let inner_start = if text[span.start..].starts_with(think::OPEN) {
            span.start + think::OPEN.len()
        } else {
            span.start
        };
        let inner_end = if text[..span.end].ends_with(think::CLOSE) {
            span.end - think::CLOSE.len()
        } else {
            span.end
        };
        let inner = inner_start..inner_end.max(inner_start);
        cx.begin_reasoning();
        if cx.options.calls_in_reasoning {
            cx.in_think = true;
            group.parse_region(cx, inner)?;
            cx.in_think = false;
        } else {
            cx.reasoning_text(inner);
        }
        pos = span.end;
    }
    group.parse_region(cx, pos..text.len())
}

/// The state of one parse: the input, the builder, and what has been found so far.
pub(crate) struct Cx<'t, 'b, B: JsonBuilder> {
    pub builder: &'b mut B,
    pub text: &'t str,
    pub options: FormatOptions<'b>,
    pub allowed: FormatSet,
    pub outcomes: Vec<Outcome<B::Value>>,
    content: String,
    reasoning: String,
    has_reasoning: bool,
    /// Prose currently goes to `reasoning` (inside a think span).
    in_think: bool,
    /// `extract` needs the calls only.
    collect_text: bool,
    /// Number of calls before this parse (the stream engine parses one region at a time).
    first_index: usize,
}

impl<'t, 'b, B> Cx<'t, 'b, B>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    fn new(
        builder: &'b mut B,
        text: &'t str,
        options: FormatOptions<'b>,
        allowed: FormatSet,
        collect_text: bool,
    ) -> Self {
        Self {
            builder,
            text,
            options,
            allowed,
            outcomes: Vec::new(),
            content: String::new(),
            reasoning: String::new(),
            has_reasoning: false,
            in_think: false,
            collect_text,
            first_index: 0,
        }
    }

    fn finish(self) -> Parsed<B::Value> {
        Parsed {
            content: self.content.trim().to_owned(),
            reasoning: self.has_reasoning.then(|| self.reasoning.trim().to_owned()),
            outcomes: self.outcomes,
        }
    }

    /// Text outside call markup: content, or reasoning inside a think span.
    pub fn prose(&mut self, range: Range<usize>) {
        if self.in_think {
            self.reasoning_text(range);
        } else if self.collect_text && range.start < range.end {
            self.content.push_str(&self.text[range]);
        }
    }

    /// Starts a new reasoning block (a think span, an analysis message).
    pub fn begin_reasoning(&mut self) {
        self.has_reasoning = true;
        if self.collect_text && !self.reasoning.trim().is_empty() {
            self.reasoning.push('\n');
        }
    }

    pub fn reasoning_text(&mut self, range: Range<usize>) {
        self.has_reasoning = true;
        if self.collect_text && range.start < range.end {
            self.reasoning.push_str(&self.text[range]);
        }
    }

    /// Parses one JSON value starting at `start` (after whitespace) and ending before `end`.
    /// Returns the value and the byte offset just past it; syntax errors carry absolute offsets.
    pub fn json_at(&mut self, start: usize, end: usize) -> Result<JsonAt<B::Value>, B::Error> {
        match parse_prefix(&self.text[start..end], self.builder, self.options.json) {
            Ok((value, len)) => Ok(Ok((value, start + len))),
            Err(ParseError::Build(e)) => Err(e),
            Err(ParseError::Syntax(mut e)) => {
                e.offset += start;
                Ok(Err(e))
            }
        }
    }

    /// Reads the JSON at `start` (before `end`) when it is a call object, or a list of call
    /// objects that all read cleanly, without building the objects themselves: the common
    /// shapes, on the hot path. Also returns the offset just past the JSON. `None` for anything
    /// else (other values, broken JSON, a list with a failing call): the caller then takes its
    /// general path, which decides and reports with the same rules.
    pub fn read_calls(
        &mut self,
        start: usize,
        end: usize,
    ) -> Result<Option<ReadCallsAndEnd<B::Value>>, B::Error> {
        let text = &self.text[start..end];
        let options = self.options.json;
        let built = |e: ParseError<B::Error>| match e {
            ParseError::Build(e) => Err(e),
            ParseError::Syntax(_) => Ok(None),
        };
        if text.starts_with('{') {
            return match call_fields_from_text(self.builder, text, options) {
                Ok(found) => {
                    Ok(found.map(|(fields, len)| (ReadCalls::Object(fields), start + len)))
                }
                Err(e) => built(e),
            };
        }
        let (list, len) = match call_fields_list_from_text(self.builder, text, options) {
            Ok(Some(found)) => found,
            Ok(None) => return Ok(None),
            Err(e) => return built(e),
        };
        let mut calls = Vec::with_capacity(list.len());
        for fields in list {
            match call_from_fields(self.builder, fields, options) {
                Ok(call) => calls.push(call),
                Err(ShapeFailure { build: Some(e), .. }) => return Err(e),
                Err(_) => return Ok(None),
            }
        }
        Ok(Some((ReadCalls::List(calls), start + len)))
    }

    /// Records calls found by [`Cx::read_calls`] in the markup at `range` (a call object that
    /// does not read as a call is recorded as a failure, as the general path does).
    pub fn push_read(
        &mut self,
        format: Format,
        range: Range<usize>,
        calls: ReadCalls<B::Value>,
    ) -> Result<(), B::Error> {
        match calls {
            ReadCalls::Object(fields) => {
                let context = self.context(format, range);
                let call = call_from_fields(self.builder, fields, self.options.json);
                push_call(call, &context, &mut self.outcomes)
            }
            ReadCalls::List(calls) => {
                self.outcomes.extend(calls.into_iter().map(Outcome::Call));
                Ok(())
            }
        }
    }

    /// The context of the call markup at `range`, for error reports.
    pub fn context(&self, format: Format, range: Range<usize>) -> TextCallContext<'t> {
        TextCallContext {
            protocol: Protocol::Format(format),
            what: TextPlace::FormatCall(format, self.first_index + self.outcomes.len()),
            text: &self.text[range.clone()],
            base: range.start,
        }
    }

    /// Records a failed call whose markup is `range`; `at` is the absolute offset of the failure.
    pub fn fail(&mut self, format: Format, range: Range<usize>, failure: Failure) {
        let context = self.context(format, range.clone());
        let subject = match failure.kind {
            FailureKind::Arguments => format!("invalid arguments in {}", context.what),
            FailureKind::Parse => format!("invalid {}", context.what),
        };
        let at = failure
            .at
            .map(|at| at.clamp(range.start, range.end) - range.start);
        let index = self.outcomes.len();
        let invalid = context.invalid(
            failure.kind,
            index,
            subject,
            failure.detail,
            at,
            failure.name,
        );
        self.outcomes.push(Outcome::invalid(invalid));
    }

    /// Records a call whose arguments value still needs §3 normalisation.
    pub fn call(
        &mut self,
        format: Format,
        range: Range<usize>,
        name: String,
        id: Option<String>,
        arguments: B::Value,
    ) -> Result<(), B::Error> {
        match normalize_arguments(self.builder, Some(arguments), self.options.json) {
            Ok(arguments) => {
                self.outcomes.push(Outcome::Call(Call {
                    id: id.filter(|id| !id.is_empty()),
                    name,
                    arguments,
                }));
                Ok(())
            }
            Err(failure) => match failure.build {
                Some(e) => Err(e),
                None => {
                    self.fail(
                        format,
                        range,
                        Failure {
                            kind: failure.kind,
                            detail: failure.detail,
                            at: None,
                            name: Some(name),
                        },
                    );
                    Ok(())
                }
            },
        }
    }
}

/// Calls read straight from JSON text by [`Cx::read_calls`].
pub(crate) enum ReadCalls<V> {
    /// One call object's members.
    Object(CallFields<V>),
    /// A list of call objects, each read cleanly.
    List(Vec<Call<V>>),
}

/// Calls read by [`Cx::read_calls`] and the offset just past their JSON.
pub(crate) type ReadCallsAndEnd<V> = (ReadCalls<V>, usize);

/// A JSON value and the offset just past it, or a syntax error at an absolute offset.
pub(crate) type JsonAt<V> = Result<(V, usize), SyntaxError>;

/// Why one call failed.
pub(crate) struct Failure {
    pub kind: FailureKind,
    pub detail: String,
    /// Absolute byte offset of the failure, when known.
    pub at: Option<usize>,
    pub name: Option<String>,
}

impl Failure {
    pub fn parse(detail: impl Into<String>, at: usize, name: Option<String>) -> Self {
        Self {
            kind: FailureKind::Parse,
            detail: detail.into(),
            at: Some(at),
            name,
        }
    }

    pub fn json(error: SyntaxError, name: Option<String>) -> Self {
        // A refused value is valid JSON: its arguments are unusable, whatever the call's name.
        let refused = error.kind.is_refusal();
        Self {
            kind: if name.is_some() || refused {
                FailureKind::Arguments
            } else {
                FailureKind::Parse
            },
            detail: if refused {
                error.kind.message().into_owned()
            } else {
                format!("invalid JSON: {}", error.kind.message())
            },
            at: Some(error.offset),
            name,
        }
    }
}

/// The first position at or after `pos` (and before `end`) that is not JSON whitespace.
pub(crate) fn skip_ws(text: &str, pos: usize, end: usize) -> usize {
    let bytes = text.as_bytes();
    let mut pos = pos;
    while pos < end && matches!(bytes[pos], b' ' | b'\t' | b'\n' | b'\r') {
        pos += 1;
    }
    pos
}
