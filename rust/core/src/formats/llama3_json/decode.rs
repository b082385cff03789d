//! Decoding a Llama 3 region: joined call objects after `<|python_tag|>`, or a bare message
//! that starts with one.

use std::ops::Range;

use super::super::cursor::Markers;
use super::super::cx::{skip_ws, Cx, Failure, ReadCalls};
use super::super::pythonic::call_lines;
use super::super::tool_call::tags::is_call_object;
use super::{tagged_body, Tagged, CALL_SUFFIX, PYTHON_TAG};
use crate::calls::push_calls_of_value;
use crate::json::{JsonBuilder, JsonKind, JsonView};
use crate::protocol::Format;
use crate::scan::find::Needle;
use crate::scan::think::message_start;

static PYTHON_TAG_NEEDLE: Needle = Needle::new(PYTHON_TAG);
static PARAMETERS_KEY: Needle = Needle::new("\"parameters\"");
static ARGUMENTS_KEY: Needle = Needle::new("\"arguments\"");

static MARKERS: Markers = Markers::new(&[PYTHON_TAG]);

pub(super) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let mut pos = range.start;
    let start = range.start + message_start(&text[range.clone()]);
    let bare = &text[start..end];
    if bare.starts_with('{') {
        // Without an arguments key or a tag anywhere this cannot hold Llama 3 calls: leaving
        // it to the raw-JSON tier at once spares decoding every raw-JSON message twice.
        let bytes = bare.as_bytes();
        let keys = [&PARAMETERS_KEY, &ARGUMENTS_KEY, &PYTHON_TAG_NEEDLE];
        if keys.iter().all(|key| key.find(bytes).is_none()) {
            cx.prose(range);
            return Ok(());
        }
        match calls_of(cx, Format::Llama3Json, start, end, false)? {
            Some(calls_end) => {
                cx.prose(pos..start);
                pos = calls_end;
            }
            // A JSON message that is not Llama 3 calls: a tag inside it sits in a string.
            None => {
                cx.prose(range);
                return Ok(());
            }
        }
    }
    cx.markup_in_prose(pos..end, &MARKERS, |cx, marker| {
        let body = skip_ws(text, marker.end, end);
        match tagged_body(&text.as_bytes()[..end], body) {
            Some(Tagged::Builtin) => {
                return call_lines(cx, Format::Llama3Json, (body, end), CALL_SUFFIX);
            }
            // Raw code runs to the region's end (the machine ends it at an end token); a
            // name cut off by the end of the text is code too.
            Some(Tagged::Code) | None if body < end => {
                cx.code_call(Format::Llama3Json, marker.start..end, body..end)?;
                return Ok(end);
            }
            _ => {}
        }
        let calls_end = calls_of(cx, Format::Llama3Json, marker.end, end, true)?;
        Ok(calls_end.unwrap_or(marker.end))
    })
}

/// The joined call objects at `start` ([`next_object`]), calls of `format` (Llama 4's after
/// `<|python_start|>` too). Returns where they end, or `None` (and records nothing) when not
/// `committed` and the first object is not a call.
pub(crate) fn calls_of<B>(
    cx: &mut Cx<'_, '_, B>,
    format: Format,
    start: usize,
    end: usize,
    committed: bool,
) -> Result<Option<usize>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let mut pos = start;
    let mut first = true;
    loop {
        let object_start = skip_ws(text, pos, end);
        let tentative = first && !committed;
        // A call object read field by field (the common case); an object without a name takes
        // the general path, which reports it.
        let read = match cx.read_calls(object_start, end)? {
            Some((ReadCalls::Object(fields), json_end)) if fields.has_name() || tentative => {
                Some((fields, json_end))
            }
            // A list of call objects right after the tag, each read cleanly.
            Some((calls @ ReadCalls::List(_), json_end)) if first && committed => {
                cx.push_read(format, object_start..json_end, calls)?;
                pos = json_end;
                first = false;
                match next_object(text, pos, end) {
                    Some((next, false)) => {
                        pos = next;
                        continue;
                    }
                    _ => return Ok(Some(pos)),
                }
            }
            _ => None,
        };
        if let Some((fields, json_end)) = read {
            if tentative && !fields.is_call_like() {
                return Ok(None);
            }
            let calls = ReadCalls::Object(fields);
            cx.push_read(format, object_start..json_end, calls)?;
            pos = json_end;
        } else {
            match cx.json_at(object_start, end)? {
                Ok((value, json_end)) => {
                    // A list right after the tag: its items are calls, each read or reported.
                    let is_call = (value.kind() == JsonKind::Object && value.get("name").is_some())
                        || (value.kind() == JsonKind::Array && first && committed);
                    if tentative && !(is_call && has_arguments(&value)) {
                        return Ok(None);
                    }
                    if is_call {
                        let context = cx.context(format, object_start..json_end);
                        let options = cx.options.json;
                        push_calls_of_value(
                            cx.builder,
                            value,
                            &context,
                            0,
                            options,
                            &mut cx.outcomes,
                        )?;
                    } else {
                        let failure = Failure::parse(
                            "expected a call object {\"name\": …, \"parameters\": …}",
                            object_start,
                            None,
                        );
                        cx.fail(format, object_start..json_end, failure);
                    }
                    pos = json_end;
                }
                Err(error) => {
                    if tentative {
                        return Ok(None);
                    }
                    cx.fail(
                        format,
                        object_start..end,
                        Failure::json(error, None),
                    );
                    return Ok(Some(end));
                }
            }
        }
        first = false;
        match next_object(text, pos, end) {
            Some((next, loose)) => {
                // An object joined without `;` is another call only if it is one or begins as
                // one (the model may go on with other JSON, which stays content with its
                // separator); after a `;` it must be.
                if loose && !joined_call_at(cx, skip_ws(text, next, end), end)? {
                    return Ok(Some(pos));
                }
                pos = next;
            }
            None => return Ok(Some(pos)),
        }
    }
}

/// Whether a call object has Llama 3's `"parameters"`, or `"arguments"`.
fn has_arguments<V: JsonView>(value: &V) -> bool {
    value.get("parameters").is_some() || value.get("arguments").is_some()
}

/// Whether the object at `at`, joined to a call without `;`, is another call: it begins as one,
/// name first (read as after a `;`: broken, it is an `InvalidToolCall`), or it is a Llama 3
/// call object with its name later (a name and [`has_arguments`]).
fn joined_call_at<B>(cx: &mut Cx<'_, '_, B>, at: usize, end: usize) -> Result<bool, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    if is_call_object(&cx.text.as_bytes()[..end], at) == Some(true) {
        return Ok(true);
    }
    Ok(match cx.json_at(at, end)? {
        Ok((value, _)) => {
            value.kind() == JsonKind::Object && value.get("name").is_some() && has_arguments(&value)
        }
        Err(_) => false,
    })
}

/// Where the next call object's separator ends, when one follows the object that ends at `pos`:
/// past a `;`, or (`true`: it is another call only if it is one) past a `,`, or at the blank
/// space or nothing before an object (vLLM's tests join parallel calls with `\n`, ` ` and `,`,
/// and its grammar for `tool_choice="required"` writes them back to back, as Llama 4's chat
/// template does).
pub(super) fn next_object(text: &str, pos: usize, end: usize) -> Option<(usize, bool)> {
    let after = skip_ws(text, pos, end);
    let object_after = |at: usize| text[skip_ws(text, at, end)..end].starts_with('{');
    match text.as_bytes().get(after) {
        Some(b';') => object_after(after + 1).then_some((after + 1, false)),
        Some(b',') => object_after(after + 1).then_some((after + 1, true)),
        Some(b'{') => Some((pos, true)),
        _ => None,
    }
}
