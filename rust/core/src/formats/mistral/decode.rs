//! Decoding a `[TOOL_CALLS]` region.

use std::ops::Range;

use super::super::cursor::{Markers, TextSeek};
use super::super::cx::{skip_ws, Cx, Failure};
use super::{next_call_name, ARGS, CALL_ID, TOOL_CALLS, TOOL_CALLS_NEEDLE};
use crate::calls::push_calls_of_value;
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;
use crate::scan::find::{find_byte, find_either};

static MARKERS: Markers = Markers::new(&[TOOL_CALLS]);

pub(super) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let mut next_marker = TextSeek::new(text, end, &TOOL_CALLS_NEEDLE);
    cx.markup_in_prose(range, &MARKERS, |cx, marker| {
        let body = skip_ws(text, marker.end, end);
        // A failed call's markup runs to the next [TOOL_CALLS] or the end.
        let recover = |next_marker: &mut TextSeek<'_>| next_marker.find(body).unwrap_or(end);
        let json_body = text[body..end].starts_with(['[', '{']);
        let read = if json_body {
            cx.read_calls(body, end)?
        } else {
            None
        };
        let resume = if let Some((calls, json_end)) = read {
            cx.push_read(Format::Mistral, marker.start..json_end, calls)?;
            json_end
        } else if json_body {
            match cx.json_at(body, end)? {
                Ok((value, json_end)) => {
                    let context = cx.context(Format::Mistral, marker.start..json_end);
                    let (options, json_at) = (cx.options.json, body - marker.start);
                    let outcomes = &mut cx.outcomes;
                    push_calls_of_value(cx.builder, value, &context, json_at, options, outcomes)?;
                    json_end
                }
                Err(error) => {
                    let markup_end = recover(&mut next_marker);
                    cx.fail(
                        Format::Mistral,
                        marker.start..markup_end,
                        Failure::json(error, None),
                    );
                    markup_end
                }
            }
        } else {
            // A v11 call, and those written right after it without their `[TOOL_CALLS]`.
            let mut start = (marker.start, body);
            loop {
                match v11_call(cx, start.1, end)? {
                    Ok(json_end) => match next_call_name(&text.as_bytes()[..end], json_end) {
                        Ok(Some(_)) => start = (json_end, json_end),
                        _ => break json_end,
                    },
                    Err(failure) => {
                        let markup_end = recover(&mut next_marker);
                        cx.fail(Format::Mistral, start.0..markup_end, failure);
                        break markup_end;
                    }
                }
            }
        };
        Ok(resume)
    })
}

/// `NAME[CALL_ID]ID[ARGS]{…}` at `body`, or `NAME{…}` (the `[ARGS]` token dropped in decoding):
/// records the call and returns the end of its JSON.
fn v11_call<B>(
    cx: &mut Cx<'_, '_, B>,
    body: usize,
    end: usize,
) -> Result<Result<usize, Failure>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let bytes = text.as_bytes();
    let bracket = |from: usize| find_byte(b'[', &bytes[from..end]).map(|i| from + i);
    let name_end = find_either(b'[', b'{', &bytes[body..end]).map(|i| body + i);
    let Some(name_end) = name_end else {
        return Ok(Err(Failure::parse("expected NAME[ARGS] or NAME{…}", body, None)));
    };
    let name = text[body..name_end].trim().to_owned();
    if name.is_empty() {
        return Ok(Err(Failure::parse("missing tool name", body, None)));
    }
    let mut pos = name_end;
    let mut id = None;
    if text[pos..end].starts_with(CALL_ID) {
        let id_start = pos + CALL_ID.len();
        let Some(id_end) = bracket(id_start) else {
            return Ok(Err(Failure::parse(
                "expected [ARGS] after the call id",
                id_start,
                Some(name),
            )));
        };
        id = Some(text[id_start..id_end].trim().to_owned());
        pos = id_end;
    }
    let args = if bytes[pos] == b'{' {
        pos
    } else if text[pos..end].starts_with(ARGS) {
        pos + ARGS.len()
    } else {
        return Ok(Err(Failure::parse("expected [ARGS]", pos, Some(name))));
    };
    let call_start = body;
    match cx.json_at(args, end)? {
        Ok((arguments, json_end)) => {
            cx.call(Format::Mistral, call_start..json_end, name, id, arguments)?;
            Ok(Ok(json_end))
        }
        Err(error) => Ok(Err(Failure::json(error, Some(name)))),
    }
}
