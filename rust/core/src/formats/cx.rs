//! The state of one decode: the region's text, the builder, the calls found so far and the
//! prose around them, with the helpers every decoder uses to read JSON and record calls.

use std::ops::Range;

use crate::calls::{
    call_fields_from_text, call_fields_list_from_text, call_from_fields, failure_subject,
    normalize_arguments, push_call, Call, CallFields, FailureKind, Outcome, ShapeFailure,
    TextCallContext, TextPlace,
};
use crate::json::{parse_prefix, JsonBuilder, JsonStr, JsonView, ParseError, SyntaxError};
use crate::protocol::{Format, FormatSet, Protocol};

use super::cursor::{Marker, Markers, ProseCursor};
use super::schema::{typed_value, Types};
use super::FormatOptions;

/// The tool that raw code is written for (Functionary's `>>>python`, and `<|python_tag|>` code
/// as llama.cpp reads it): its call is `python` with `{"code": …}`.
pub(crate) const CODE_TOOL: &str = "python";

/// The state of one parse: the input, the builder, and what has been found so far.
pub(crate) struct Cx<'t, 'b, B: JsonBuilder> {
    pub builder: &'b mut B,
    pub text: &'t str,
    pub options: FormatOptions<'b>,
    pub allowed: FormatSet,
    pub outcomes: Vec<Outcome<B::Value>>,
    pub(super) content: String,
    pub(super) reasoning: String,
    pub(super) has_reasoning: bool,
    /// Prose currently goes to `reasoning` (inside a think span).
    pub(super) in_think: bool,
    /// `extract` needs the calls only.
    pub(super) collect_text: bool,
    /// Number of calls before this parse (the stream engine parses one region at a time).
    pub(super) first_index: usize,
}

impl<'t, 'b, B> Cx<'t, 'b, B>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    pub fn new(
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

    /// Inserts parameter `key` of the call `name` into `arguments`, its raw text `raw` typed
    /// as the markup says (`types`) or else by the tools' schema (the XML-style formats).
    pub fn insert_value(
        &mut self,
        arguments: &mut B::Object,
        name: &str,
        key: &str,
        raw: &str,
        types: Option<Types>,
    ) -> Result<(), B::Error> {
        let schema = self.options.tools.map(|tools| tools.types(name, key));
        let types = match (types, schema) {
            // Text by the markup (DSML's `string="true"`) where the schema allows no string:
            // the schema types it, as a tool validating its arguments needs (vLLM does too).
            (Some(Types::TEXT), Some(schema)) if schema.excludes_string() => schema,
            (Some(types), _) => types,
            (None, schema) => schema.unwrap_or_default(),
        };
        let value = self.typed(raw, types)?;
        self.builder
            .object_insert(arguments, JsonStr::from_utf8(key), value)
    }

    /// The schema types of parameter `key` of tool `name` (empty without `tools=`).
    pub fn param_types(&self, name: &str, key: &str) -> Types {
        self.options
            .tools
            .map_or(Types::default(), |tools| tools.types(name, key))
    }

    /// A raw-text value typed by `types` ([`typed_value`]).
    pub fn typed(&mut self, raw: &str, types: Types) -> Result<B::Value, B::Error> {
        typed_value(self.builder, raw, types, self.options.json)
    }

    /// Text outside call markup: content, or reasoning inside a think span.
    pub fn prose(&mut self, range: Range<usize>) {
        if self.in_think {
            self.reasoning_text(range);
        } else if self.collect_text && range.start < range.end {
            self.content.push_str(&self.text[range]);
        }
    }

    /// The walk every region decoder makes: each of `markers` in `range` outside code spans, in
    /// order. The prose before a marker goes out as prose; `markup` reads what the marker opens
    /// and returns where the prose resumes (a marker that opens nothing is given back as prose
    /// by `markup`). The prose after the last markup goes out too.
    pub fn markup_in_prose(
        &mut self,
        range: Range<usize>,
        markers: &Markers,
        mut markup: impl FnMut(&mut Self, Marker) -> Result<usize, B::Error>,
    ) -> Result<(), B::Error> {
        let mut cursor = ProseCursor::new(self.text, markers, range.start);
        let mut pos = range.start;
        while let Some(marker) = cursor.next(pos, range.end) {
            self.prose(pos..marker.start);
            pos = markup(self, marker)?;
        }
        self.prose(pos..range.end);
        Ok(())
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
        for (_, fields) in list {
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
        let subject = failure_subject(failure.kind, &context.what);
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

    /// Records raw code (the text of `code`, trailing whitespace cut) as the call
    /// [`CODE_TOOL`] with `{"code": …}`, whose markup is `span`.
    pub fn code_call(
        &mut self,
        format: Format,
        span: Range<usize>,
        code: Range<usize>,
    ) -> Result<(), B::Error> {
        self.text_call(format, span, CODE_TOOL, "code", code)
    }

    /// Records the call `name` whose one argument `key` is the text `text` (trailing
    /// whitespace cut), whose markup is `span`: raw code, a command line.
    pub fn text_call(
        &mut self,
        format: Format,
        span: Range<usize>,
        name: &str,
        key: &str,
        text: Range<usize>,
    ) -> Result<(), B::Error> {
        let text = self.text[text].trim_end();
        let mut arguments = self.builder.new_object()?;
        let value = self.builder.string(JsonStr::from_utf8(text))?;
        self.builder
            .object_insert(&mut arguments, JsonStr::from_utf8(key), value)?;
        let arguments = self.builder.finish_object(arguments)?;
        self.call(format, span, name.to_owned(), None, arguments)
    }

    /// Records a call whose arguments value still needs normalising to an object.
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
