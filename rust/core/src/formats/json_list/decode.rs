//! Decoding call lists between tokens.

use std::ops::Range;

use super::super::cursor::{Markers, TextSeek};
use super::super::cut_json::{closed_at_end, OutsideStrings};
use super::super::cx::{skip_ws, Cx, Failure};
use super::super::pythonic::{call_lines, call_list};
use super::super::tool_call::glm45;
use super::{
    body_kind, body_start, echo_end, tool_role, Body, Shape, Wrap, AT_REGION_START, START_TEXTS,
    TURN, WRAPS,
};
use crate::calls::push_calls_of_value;
use crate::json::{JsonBuilder, JsonKind, JsonView};
use crate::protocol::Format;

/// The start tokens a region's walk looks for: all but Command R's `Action:` ones, which open calls
/// only at the start of a message and so only ever begin the region they open.
static MARKERS: Markers = Markers::new(START_TEXTS.split_at(AT_REGION_START).0);

pub(super) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let mut from = range.start;
    let mut at_start = START_TEXTS.iter().enumerate().skip(AT_REGION_START);
    if let Some((i, marker)) = at_start.find(|(_, marker)| text[from..end].starts_with(**marker)) {
        let body = skip_ws(text, from + marker.len(), end);
        from = one_list(cx, &WRAPS[i], from..body, end)?;
    }
    cx.markup_in_prose(from..end, &MARKERS, |cx, marker| {
        let wrap = &WRAPS[marker.pattern];
        let mut at = body_start(marker.pattern, marker.end);
        if marker.pattern == TURN {
            // HyperCLOVA X 14B's turn header: the tool role's list, or the header alone.
            match tool_role(&text.as_bytes()[..end], at) {
                Some(Some(body)) => at = body,
                _ => return Ok(marker.end),
            }
        }
        one_list(cx, wrap, marker.start..skip_ws(text, at, end), end)
    })
}

/// The list of the region whose start token begins at `span.start` and whose body begins at
/// `span.end`; returns where the region's markup ends.
pub(crate) fn one_list<B>(
    cx: &mut Cx<'_, '_, B>,
    wrap: &'static Wrap,
    span: Range<usize>,
    end: usize,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let (text, body) = (cx.text, span.end);
    let kind = body_kind(&text.as_bytes()[..end], body, wrap);
    let kind = kind.unwrap_or(if body >= end { Body::Empty } else { Body::Other });
    let format = wrap.format_of(kind, cx.allowed);
    let read = match kind {
        Body::Empty => Ok(body),
        Body::PythonicLines => Ok(call_lines(cx, format, (body, end), "")?),
        Body::Pythonic => Ok(call_list(cx, format, body, end)?),
        Body::Json => json_list(cx, wrap.shape, format, span.start, body, end)?,
        Body::Lines => object_lines(cx, wrap, format, span.start, body, end)?,
        Body::Tagged => Ok(glm45::calls(cx, format, body, end)?),
        Body::Other => Err(Failure::parse("expected a list of calls", body, None)),
    };
    match read {
        Ok(list_end) => {
            let after = skip_ws(text, list_end, end);
            Ok(match wrap.end {
                Some(token) if text[after..end].starts_with(token.text) => {
                    let closed = after + token.text.len();
                    let bytes = &text.as_bytes()[..end];
                    echo_end(bytes, body..list_end, closed, token.text).flatten().unwrap_or(closed)
                }
                _ => list_end,
            })
        }
        Err(failure) => {
            let markup_end = markup_end(text, wrap, body, end);
            cx.fail(format, span.start..markup_end, failure);
            Ok(markup_end)
        }
    }
}

/// Where the markup of a broken body starting at `body` ends: at the end token, or the end.
fn markup_end(text: &str, wrap: &Wrap, body: usize, end: usize) -> usize {
    match wrap.end {
        Some(token) => TextSeek::new(text, end, token).end_of_next(body, end),
        None => end,
    }
}

/// Call objects one a line at `body` (MiniMax M1); returns where the last ends. An object that
/// is not JSON fails to the end of its line where the next line starts another object (the
/// calls before and after it are kept), else to the end token.
fn object_lines<B>(
    cx: &mut Cx<'_, '_, B>,
    wrap: &Wrap,
    format: Format,
    start: usize,
    body: usize,
    end: usize,
) -> Result<Result<usize, Failure>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let mut object = body;
    // The block's end token after the object, found again only when an object starts past it.
    let mut block_limit: Option<usize> = None;
    loop {
        let object_end = match json_list(cx, wrap.shape, format, start, object, end)? {
            Ok(object_end) => object_end,
            Err(failure) => {
                let limit = match block_limit {
                    Some(at) if at >= object => at,
                    _ => *block_limit.insert(block_end(text, wrap, object, end)),
                };
                // Only a failure within its own line: the reader has not looked past it, so
                // reading on from the next line stays linear.
                let next = next_line_object(text, object, limit)
                    .filter(|&(line_end, _)| failure.at.is_some_and(|at| at <= line_end));
                if let Some((line_end, next)) = next {
                    cx.fail(format, object..line_end, failure);
                    object = next;
                    continue;
                }
                if object == body {
                    return Ok(Err(failure));
                }
                let markup_end = markup_end(text, wrap, object, end);
                cx.fail(format, object..markup_end, failure);
                return Ok(Ok(markup_end));
            }
        };
        let next = skip_ws(text, object_end, end);
        if next >= end || text.as_bytes()[next] != b'{' {
            return Ok(Ok(object_end));
        }
        object = next;
    }
}

/// Where the block's end token after `from` begins, else `end`.
fn block_end(text: &str, wrap: &Wrap, from: usize, end: usize) -> usize {
    wrap.end
        .and_then(|token| text[from..end].find(token.text))
        .map_or(end, |at| from + at)
}

/// Where the line of the object at `object` ends and the next line's object starts: a line that
/// begins with `{` (the model writes one call a line, from the line's start).
fn next_line_object(text: &str, object: usize, end: usize) -> Option<(usize, usize)> {
    let bytes = &text.as_bytes()[..end];
    let mut from = object;
    while let Some(newline) = bytes[from..].iter().position(|&b| b == b'\n') {
        let next = from + newline + 1;
        if bytes.get(next) == Some(&b'{') {
            return Some((from + newline, next));
        }
        from = next;
    }
    None
}

/// The JSON list (or single object) at `body`; returns where it ends, or why it is broken.
fn json_list<B>(
    cx: &mut Cx<'_, '_, B>,
    shape: Shape,
    format: Format,
    start: usize,
    body: usize,
    end: usize,
) -> Result<Result<usize, Failure>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let named = matches!(shape, Shape::Named | Shape::NamedOrPythonic);
    if named {
        if let Some((calls, json_end)) = cx.read_calls(body, end)? {
            cx.push_read(format, start..json_end, calls)?;
            return Ok(Ok(json_end));
        }
    }
    let (value, json_end) = match cx.json_at(body, end)? {
        Ok(read) => read,
        Err(error) => match closed_at_end(cx, &error, body, end)? {
            Some(value) => (value, end),
            None if named => return Ok(Err(Failure::json(error, None))),
            None => {
                return Ok(match item_by_item(cx, shape, format, body, end)? {
                    Some(list_end) => Ok(list_end),
                    None => Err(Failure::json(error, None)),
                })
            }
        },
    };
    let is_list = value.kind() == JsonKind::Array;
    if named {
        if !(is_list && value.items().is_empty()) {
            let context = cx.context(format, start..json_end);
            let (options, json_at) = (cx.options.json, body - start);
            push_calls_of_value(cx.builder, value, &context, json_at, options, &mut cx.outcomes)?;
        }
        return Ok(Ok(json_end));
    }
    let items = if is_list { value.items() } else { vec![value] };
    for item in items {
        match shaped_call(cx, shape, &item)? {
            Ok((name, id, arguments)) => {
                cx.call(format, start..json_end, name, id, arguments)?;
            }
            Err(detail) => {
                let failure = Failure::parse(detail, body, None);
                cx.fail(format, start..json_end, failure);
            }
        }
    }
    Ok(Ok(json_end))
}

/// A list of call objects (Cohere, Apertus) that is not JSON as a whole, read item by item, so
/// that one broken object does not cost the good ones: each object is a call (or fails as one)
/// over its own markup, a broken one from its `{` to the brace that balances it, and a comma
/// left out between two objects is no error. Returns where the list ends; `None` when its items
/// cannot be told apart (the list then fails as a whole).
fn item_by_item<B>(
    cx: &mut Cx<'_, '_, B>,
    shape: Shape,
    format: Format,
    body: usize,
    end: usize,
) -> Result<Option<usize>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let bytes = &text.as_bytes()[..end];
    if bytes.get(body) != Some(&b'[') {
        return Ok(None);
    }
    let mut objects = Vec::new();
    let mut p = body + 1;
    let list_end = loop {
        p = skip_ws(text, p, end);
        match bytes.get(p) {
            Some(b',') => p += 1,
            Some(b']') => break p + 1,
            Some(b'{') => {
                let Some(close) = balanced_end(bytes, p) else {
                    return Ok(None);
                };
                objects.push(p..close);
                p = close;
            }
            _ => return Ok(None),
        }
    };
    for object in objects {
        let read = match cx.json_at(object.start, object.end)? {
            Ok((value, json_end)) if json_end == object.end => Ok(value),
            Ok((_, json_end)) => Err(Failure::parse("expected , or ]", json_end, None)),
            Err(error) => Err(Failure::json(error, None)),
        };
        match read.map(|value| (shaped_call(cx, shape, &value), object.start)) {
            Ok((shaped, at)) => match shaped? {
                Ok((name, id, arguments)) => cx.call(format, object, name, id, arguments)?,
                Err(detail) => cx.fail(format, object, Failure::parse(detail, at, None)),
            },
            Err(failure) => cx.fail(format, object, failure),
        }
    }
    Ok(Some(list_end))
}

/// Where the object or list opening at `open` ends (after the bracket that balances it, strings
/// skipped), or `None` when the text ends first.
fn balanced_end(bytes: &[u8], open: usize) -> Option<usize> {
    let (mut scan, mut depth) = (OutsideStrings::default(), 0usize);
    for (i, &byte) in bytes.iter().enumerate().skip(open) {
        match scan.bracket(byte) {
            Some(b'[' | b'{') => depth += 1,
            Some(_) => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            None => {}
        }
    }
    None
}

/// A call's name, id and arguments.
type Shaped<V> = (String, Option<String>, V);

/// The call of an Apertus (`{"f": {…}}`) or Cohere (`{"tool_name": "f", "parameters": {…}}`, or
/// `{"name": "f", "arguments": {…}}`) call object.
fn shaped_call<B>(
    cx: &mut Cx<'_, '_, B>,
    shape: Shape,
    item: &B::Value,
) -> Result<Result<Shaped<B::Value>, &'static str>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    if item.kind() != JsonKind::Object {
        return Ok(Err("a tool call must be a JSON object"));
    }
    if shape == Shape::Keyed {
        let mut entries = item.entries();
        return Ok(match (entries.pop(), entries.is_empty()) {
            (Some((name, arguments)), true) if !name.is_empty() => Ok((name, None, arguments)),
            _ => Err("expected a call object {\"NAME\": {arguments}} with one key"),
        });
    }
    // Cohere's own keys; a call object in the generic shape (`name`, `arguments`) is read too,
    // as every JSON call format reads it. Both spellings of one field at once are ambiguous.
    let [tool_name, parameters, id, name, generic_arguments] =
        item.members(["tool_name", "parameters", "tool_call_id", "name", "arguments"]);
    if tool_name.is_some() && name.is_some() {
        return Ok(Err("the call object names its tool twice (\"tool_name\" and \"name\")"));
    }
    if parameters.is_some() && generic_arguments.is_some() {
        return Ok(Err(
            "the call object gives its arguments twice (\"parameters\" and \"arguments\")",
        ));
    }
    let name = tool_name.or(name);
    let arguments = parameters.or(generic_arguments);
    let Some(name) = name.as_ref().and_then(|n| n.as_str()).filter(|n| !n.is_empty()) else {
        return Ok(Err("missing tool name (\"tool_name\")"));
    };
    let arguments = match arguments {
        Some(arguments) => arguments,
        None => {
            let object = cx.builder.new_object()?;
            cx.builder.finish_object(object)?
        }
    };
    let id = id.and_then(|id| id.as_str().map(str::to_owned));
    Ok(Ok((name.to_owned(), id, arguments)))
}

