//! Decoding a pythonic region: a `[call, …]` list after `<|python_start|>`, or a bare message
//! that starts with one.

use std::convert::Infallible;
use std::ops::Range;

use super::super::cursor::Markers;
use super::super::cx::{skip_ws, Cx, Failure};
use super::super::llama3_json::calls_of;
use super::super::literal::{LitErr, LiteralError, Literals};
use super::super::wrapped::unwrapped;
use super::machine::strip;
use super::sarashina::{dict_list, starts_dict_list};
use super::{dotted_name, starts_call_list, PYTHON_END, PYTHON_START};
use crate::calls::Outcome;
use crate::json::{JsonBuilder, JsonKind, JsonStr, JsonView, ValueBuilder};
use crate::protocol::Format;
use crate::scan::think::message_start;

static MARKERS: Markers = Markers::new(&[PYTHON_START]);

pub(super) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let mut pos = range.start;
    let start = range.start + message_start(&text[range.clone()]);
    if cx.allowed.contains(Format::Sarashina) && starts_dict_list(&text[start..end]) {
        let list_end = dict_list(cx, start, start, end, true)?;
        if list_end > start {
            cx.prose(pos..start);
            pos = list_end;
        }
    } else if cx.allowed.contains(Format::Pythonic) && starts_call_list(&text[start..end]) {
        cx.prose(pos..start);
        pos = call_list(cx, Format::Pythonic, start, end)?;
        // Lists written one after another (`[f()] [g()]`) are calls too.
        loop {
            let next = skip_ws(text, pos, end);
            if !starts_call_list(&text[next..end]) {
                break;
            }
            pos = call_list(cx, Format::Pythonic, next, end)?;
        }
    }
    cx.markup_in_prose(pos..end, &MARKERS, |cx, marker| {
        let list = skip_ws(text, marker.end, end);
        // Llama 4 writes its JSON calls after the token too (`<|python_start|>{"name": …}`):
        // `llama3_json`'s call objects, as the machine reads them.
        let list_end = if text[list..end].starts_with('{') {
            let format = match cx.allowed.contains(Format::Llama3Json) {
                true => Format::Llama3Json,
                false => Format::Pythonic,
            };
            calls_of(cx, format, list, end, true)?.unwrap_or(end)
        } else if !cx.allowed.contains(Format::Pythonic) {
            // The token opens no list of a format asked for: text.
            cx.prose(marker.start..marker.end);
            return Ok(marker.end);
        } else {
            call_list(cx, Format::Pythonic, list, end)?
        };
        let after = skip_ws(text, list_end, end);
        match text[after..end].starts_with(PYTHON_END) {
            true => Ok(after + PYTHON_END.len()),
            false => Ok(list_end),
        }
    })
}

/// The `[call, …]` list at `start`, calls of `format`; returns where it ends.
pub(crate) fn call_list<B>(
    cx: &mut Cx<'_, '_, B>,
    format: Format,
    start: usize,
    end: usize,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let mut reader = Literals::new(text, start, end);
    if !reader.eat(b'[') {
        cx.fail(
            format,
            start..end,
            Failure::parse("expected '[' and a list of calls", start, None),
        );
        return Ok(end);
    }
    let mut first = true;
    let mut guesses = GUESSES_PER_LIST;
    loop {
        if reader.eat(b']') {
            return Ok(reader.pos);
        }
        if !first && !reader.eat(b',') {
            let failure = Failure::parse("expected ',' or ']' between calls", reader.pos, None);
            cx.fail(format, start..end, failure);
            return Ok(end);
        }
        if reader.eat(b']') {
            return Ok(reader.pos);
        }
        first = false;
        reader.skip_ws();
        if !record_call(cx, format, &mut reader, &mut guesses)? {
            return Ok(end);
        }
    }
}

/// Reads the call at the reader and records it, or its failure; a failed call resumes past its
/// `)` (or a stray closing bracket). `false`: the failure runs to the end.
fn record_call<B>(
    cx: &mut Cx<'_, '_, B>,
    format: Format,
    reader: &mut Literals<'_>,
    guesses: &mut usize,
) -> Result<bool, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let call_start = reader.pos;
    match one_call(cx, reader, guesses)? {
        Ok((name, arguments)) => {
            let (tools, json) = (cx.options.tools, cx.options.json);
            let arguments = unwrapped(cx.builder, tools, &name, arguments, json)?;
            cx.call(format, call_start..reader.pos, name, None, arguments)?;
        }
        Err((failure, Some(resume))) => {
            let resume = resume.max(call_start + 1);
            cx.fail(format, call_start..resume, failure);
            reader.pos = resume;
        }
        Err((failure, None)) => {
            cx.fail(format, call_start..reader.end, failure);
            return Ok(false);
        }
    }
    Ok(true)
}

/// Calls without brackets at `start`, one a line (or `,`-separated), calls of `format`, up to
/// a `<` between calls, `suffix` taken off their names; returns where they end.
pub(crate) fn call_lines<B>(
    cx: &mut Cx<'_, '_, B>,
    format: Format,
    (start, end): (usize, usize),
    suffix: &str,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut reader = Literals::new(cx.text, start, end);
    let mut guesses = GUESSES_PER_LIST;
    loop {
        reader.skip_ws();
        match reader.peek() {
            None | Some(b'<') => return Ok(reader.pos),
            Some(b',') => {
                reader.pos += 1;
                continue;
            }
            Some(_) => {}
        }
        let before = cx.outcomes.len();
        let more = record_call(cx, format, &mut reader, &mut guesses)?;
        if let Some(Outcome::Call(call)) = cx.outcomes[before..].first_mut() {
            call.name = strip(&call.name, suffix).to_owned();
        }
        if !more {
            return Ok(end);
        }
    }
}

/// A call's name and arguments, or its failure with where to resume (past its `)`).
pub(crate) type CallRead<V> = Result<(String, V), (Failure, Option<usize>)>;

/// The one call `name(key=literal, …)` at `start` (Gemma 4's `call:f(query="x")`, a Python
/// call in place of its own syntax), not recorded; and where the reader stopped (past its `)`
/// when it was read).
pub(crate) fn python_call<B>(
    cx: &mut Cx<'_, '_, B>,
    start: usize,
    end: usize,
) -> Result<(CallRead<B::Value>, usize), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut reader = Literals::new(cx.text, start, end);
    let mut guesses = GUESSES_PER_LIST;
    let read = one_call(cx, &mut reader, &mut guesses)?;
    Ok((read, reader.pos))
}

/// `name(key=literal, …)` at the reader. On failure, also where the call's closing `)` ends
/// (to resume with the next call), when it can be found.
fn one_call<B>(
    cx: &mut Cx<'_, '_, B>,
    reader: &mut Literals<'_>,
    guesses: &mut usize,
) -> Result<CallRead<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let Some(name) = dotted_name(reader) else {
        let failure = Failure::parse("expected a function name", reader.pos, None);
        return Ok(Err((failure, skip_call(reader))));
    };
    let name = name.to_owned();
    if !reader.eat(b'(') {
        let failure = Failure::parse(
            "expected '(' after the function name",
            reader.pos,
            Some(name),
        );
        return Ok(Err((failure, skip_call(reader))));
    }
    let arguments_start = reader.pos;
    let mut arguments = cx.builder.new_object()?;
    match keyword_arguments(cx.builder, reader, &mut arguments, guesses)? {
        Ok(()) => Ok(Ok((name, cx.builder.finish_object(arguments)?))),
        Err(error) => {
            // The call's end is looked for from its start, where its quotes pair as written.
            reader.pos = arguments_start;
            let failure = Failure::parse(error.detail, error.offset, Some(name));
            Ok(Err((failure, skip_call(reader))))
        }
    }
}

/// The keyword arguments after a call's `(`, into `arguments`; the reader ends past the `)`.
/// `guesses`: how many readings of unescaped quotes may still be tried.
fn keyword_arguments<B>(
    b: &mut B,
    reader: &mut Literals<'_>,
    arguments: &mut B::Object,
    guesses: &mut usize,
) -> Result<Result<(), LiteralError>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut first = true;
    loop {
        if reader.eat(b')') {
            return Ok(Ok(()));
        }
        if !first && !reader.eat(b',') {
            return Ok(Err(reader.error("expected ',' or ')'")));
        }
        if reader.eat(b')') {
            return Ok(Ok(()));
        }
        first = false;
        reader.skip_ws();
        let key_at = reader.pos;
        let key = if reader.bytes[key_at..reader.end].starts_with(b"**") {
            reader.pos += 2;
            None
        } else if let Some(key) = reader.identifier().filter(|_| reader.eat(b'=')) {
            Some(key)
        } else {
            reader.pos = key_at;
            let detail =
                "expected a keyword argument name=value (positional arguments have no name)";
            return Ok(Err(reader.error(detail)));
        };
        reader.skip_ws();
        let value_at = reader.pos;
        let value = match reader.value(b) {
            Ok(value) => value,
            Err(LitErr::Build(e)) => return Err(e),
            Err(LitErr::Syntax(error)) => return Ok(Err(error)),
        };
        let value = match unescaped_quotes(b, reader, value_at, guesses)? {
            Some(value) => value,
            None => value,
        };
        match key {
            Some(key) => b.object_insert(arguments, JsonStr::from_utf8(key), value)?,
            None => {
                // `**{…}`: the mapping's members join the arguments, a later binding of a key
                // replacing an earlier one, as Python binds keyword arguments.
                if value.kind() != JsonKind::Object {
                    reader.pos = value_at;
                    let detail = "expected a dict literal after '**' (keyword arguments \
                                  unpacked from a mapping)";
                    return Ok(Err(reader.error(detail)));
                }
                for (key, member) in value.entries() {
                    b.object_insert(arguments, JsonStr::from_utf8(&key), member)?;
                }
            }
        }
    }
}

/// Readings of unescaped quotes a call list may try, each a pass over at most the rest of
/// the list: a bound, so that no text makes the search quadratic.
const GUESSES_PER_LIST: usize = 64;

/// A string argument that holds quotes of its own kind, unescaped (`cmd='sed -n '1,5p' f.py'`):
/// its first inner quote seems to close it, and the call does not read on from there. The
/// string then ends at the one later quote on its line after which the rest of the call
/// reads; `None` (the first reading stands, and fails) when no quote or more than one does:
/// ambiguous text is never guessed. On `Some`, the reader ends past the string.
fn unescaped_quotes<B>(
    b: &mut B,
    reader: &mut Literals<'_>,
    open: usize,
    guesses: &mut usize,
) -> Result<Option<B::Value>, B::Error>
where
    B: JsonBuilder,
{
    let bytes = reader.bytes;
    let quote = bytes[open];
    let first_close = reader.pos;
    if !matches!(quote, b'\'' | b'"')
        || bytes[open..reader.end].starts_with(&[quote; 3])
        || *guesses == 0
        || matches!(next_byte(reader), Some(b',' | b')'))
    {
        return Ok(None);
    }
    let line = &bytes[first_close..reader.end];
    let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
    let mut fits = None;
    for close in memchr::memchr_iter(quote, line).map(|i| first_close + i) {
        if *guesses == 0 {
            return Ok(None);
        }
        *guesses -= 1;
        if call_reads_on(reader, open, close) {
            if fits.is_some() {
                return Ok(None);
            }
            fits = Some(close);
        }
    }
    let Some(close) = fits else {
        return Ok(None);
    };
    reader.pos = open;
    match reader.string_closed_at(b, close) {
        Ok(value) => Ok(Some(value)),
        Err(LitErr::Build(e)) => Err(e),
        Err(LitErr::Syntax(_)) => unreachable!("call_reads_on read this string"),
    }
}

/// Whether, with the string at `open` ending at the quote at `close`, the rest of the call
/// reads as keyword arguments up to its `)`, and the call list may go on after it.
fn call_reads_on(reader: &Literals<'_>, open: usize, close: usize) -> bool {
    let mut probe = Literals::new(reader.text, open, reader.end);
    let b = &mut ValueBuilder;
    let reads = |result: Result<Result<(), LiteralError>, Infallible>| match result {
        Ok(read) => read.is_ok(),
        Err(never) => match never {},
    };
    let string = probe.string_closed_at(b, close).map(drop).map_err(|e| match e {
        LitErr::Syntax(error) => error,
        LitErr::Build(never) => match never {},
    });
    if !reads(Ok(string)) {
        return false;
    }
    let Ok(mut rest) = b.new_object();
    let read_on = probe.eat(b')')
        || (probe.eat(b',') && reads(keyword_arguments(b, &mut probe, &mut rest, &mut 0)));
    // Calls in a list go on after `,` or end at `]` (or a closing token); calls a line each
    // (Olmo 3) go on after a line break.
    read_on
        && (matches!(probe.peek(), Some(b'\n' | b'\r'))
            || matches!(next_byte(&mut probe), None | Some(b',' | b']' | b'<')))
}

/// The next byte that is not whitespace.
fn next_byte(reader: &mut Literals<'_>) -> Option<u8> {
    reader.skip_ws();
    reader.peek()
}

/// From inside a broken call, the position just past its closing `)`: brackets are balanced
/// and quoted strings skipped. When a stray quote leaves a string open to the end, the quotes
/// are passed over, so that a sibling call after the broken one is still read. `None` when
/// the text ends first.
fn skip_call(reader: &Literals<'_>) -> Option<usize> {
    close_of_call(reader, true).or_else(|| close_of_call(reader, false))
}

fn close_of_call(reader: &Literals<'_>, strings: bool) -> Option<usize> {
    let bytes = reader.bytes;
    // Open `(`, `[` and `{`, counted apart: a `)` with no `(` open closes the call, even
    // where a `{` was left open.
    let mut open = [0usize; 3];
    let mut pos = reader.pos;
    while pos < reader.end {
        let byte = bytes[pos];
        match byte {
            b'\'' | b'"' if strings => {
                pos += 1;
                while pos < reader.end && bytes[pos] != byte && bytes[pos] != b'\n' {
                    pos += if bytes[pos] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' => open[bracket(byte)] += 1,
            b')' | b']' | b'}' if open[bracket(byte)] > 0 => open[bracket(byte)] -= 1,
            b')' => return Some(pos + 1),
            // The list closes before the call does: resume there.
            b']' => return Some(pos),
            _ => {}
        }
        pos += 1;
    }
    None
}

/// Which kind of bracket `byte` opens or closes: 0 `()`, 1 `[]`, 2 `{}`.
fn bracket(byte: u8) -> usize {
    match byte {
        b'(' | b')' => 0,
        b'[' | b']' => 1,
        _ => 2,
    }
}
