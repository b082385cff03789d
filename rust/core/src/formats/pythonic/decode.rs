//! Decoding a pythonic region: a `[call, …]` list after `<|python_start|>`, or a bare message
//! that starts with one.

use std::ops::Range;

use super::super::cursor::Markers;
use super::super::cx::{skip_ws, Cx, Failure};
use super::super::literal::{LitErr, Literals};
use super::machine::strip;
use super::{dotted_name, starts_call_list, PYTHON_END, PYTHON_START};
use crate::calls::Outcome;
use crate::json::{JsonBuilder, JsonStr, JsonView};
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
    if starts_call_list(&text[start..end]) {
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
        let list_end = call_list(cx, Format::Pythonic, list, end)?;
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
        if !record_call(cx, format, &mut reader)? {
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
) -> Result<bool, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let call_start = reader.pos;
    match one_call(cx, reader)? {
        Ok((name, arguments)) => {
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
        let more = record_call(cx, format, &mut reader)?;
        if let Some(Outcome::Call(call)) = cx.outcomes[before..].first_mut() {
            call.name = strip(&call.name, suffix).to_owned();
        }
        if !more {
            return Ok(end);
        }
    }
}

/// A call's name and arguments, or its failure with where to resume (past its `)`).
type CallRead<V> = Result<(String, V), (Failure, Option<usize>)>;

/// `name(key=literal, …)` at the reader. On failure, also where the call's closing `)` ends
/// (to resume with the next call), when it can be found.
fn one_call<B>(
    cx: &mut Cx<'_, '_, B>,
    reader: &mut Literals<'_>,
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
    let mut arguments = cx.builder.new_object()?;
    let mut first = true;
    loop {
        if reader.eat(b')') {
            break;
        }
        if !first && !reader.eat(b',') {
            let failure = Failure::parse("expected ',' or ')'", reader.pos, Some(name));
            return Ok(Err((failure, skip_call(reader))));
        }
        if reader.eat(b')') {
            break;
        }
        first = false;
        reader.skip_ws();
        let key_at = reader.pos;
        let Some(key) = reader.identifier().filter(|_| reader.eat(b'=')) else {
            reader.pos = key_at;
            let failure = Failure::parse(
                "expected a keyword argument name=value (positional arguments have no name)",
                key_at,
                Some(name),
            );
            return Ok(Err((failure, skip_call(reader))));
        };
        match reader.value(cx.builder) {
            Ok(value) => {
                cx.builder
                    .object_insert(&mut arguments, JsonStr::from_utf8(key), value)?
            }
            Err(LitErr::Build(e)) => return Err(e),
            Err(LitErr::Syntax(error)) => {
                reader.pos = error.offset;
                let failure = Failure::parse(error.detail, error.offset, Some(name));
                return Ok(Err((failure, skip_call(reader))));
            }
        }
    }
    Ok(Ok((name, cx.builder.finish_object(arguments)?)))
}

/// From inside a broken call, the position just past its closing `)`: brackets are balanced
/// and quoted strings skipped. `None` when the text ends first.
fn skip_call(reader: &mut Literals<'_>) -> Option<usize> {
    let bytes = reader.bytes;
    let mut depth = 0usize;
    let mut pos = reader.pos;
    while pos < reader.end {
        match bytes[pos] {
            quote @ (b'\'' | b'"') => {
                pos += 1;
                while pos < reader.end && bytes[pos] != quote && bytes[pos] != b'\n' {
                    pos += if bytes[pos] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth > 0 => depth -= 1,
            b')' => return Some(pos + 1),
            // The list closes before the call does: resume there.
            b']' => return Some(pos),
            _ => {}
        }
        pos += 1;
    }
    None
}
