//! Decoding a `<tool_call>` region (each call's body is read as hermes, qwen3_coder or glm45),
//! or a region of another wrapper of `<function=…>` bodies.

use std::ops::Range;

use super::super::cursor::Markers;
use super::super::cx::{skip_ws, Cx};
use super::tags::{
    body_format, body_start, function_tag, is_call_object, reads_json, shape_of, Body, Closers, Wrap, FUNCTION,
    HERMES_WRAPS, OPENS, TOOL_CALL,
};
use super::super::rwkv::legacy;
use super::{glm45, hermes, qwen3_coder};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;

static MARKERS: Markers = Markers::new(OPENS);

pub(super) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let mut closers = Closers::new(text, end, &TOOL_CALL);
    cx.markup_in_prose(range, &MARKERS, |cx, marker| {
        let bare_function = marker.pattern == 1;
        let wrap = marker.pattern.checked_sub(2).map(|i| &HERMES_WRAPS[i]);
        let body = match (bare_function, wrap) {
            (true, _) => marker.end,
            (false, wrap) => opened_body(text, marker.end, end, wrap.unwrap_or(&TOOL_CALL)),
        };
        let prose_marker = match wrap {
            Some(wrap) => {
                !cx.allowed.contains(Format::Hermes)
                    || (wrap.body == Body::CallObject
                        && is_call_object(&text.as_bytes()[..end], body) != Some(true))
            }
            None => {
                bare_function
                    && !cx.allowed.contains(Format::Qwen3Coder)
                    && !cx.allowed.contains(Format::Hermes)
            }
        };
        if prose_marker {
            cx.prose(marker.start..marker.end);
            return Ok(marker.end);
        }
        if let Some(wrap) = wrap {
            let mut closers = Closers::new(text, end, wrap);
            return wrapped_call(cx, wrap, marker.start, marker.end, end, &mut closers);
        }
        if bare_function {
            qwen3_coder::call(cx, marker.start, marker.start, end, None, &mut closers)
        } else {
            let rest = &text[body..end];
            let is_function = rest.starts_with(FUNCTION)
                || function_tag(text, body, end, cx.options.tools).is_some();
            let shape = shape_of(rest.as_bytes().first().copied().unwrap_or(0), is_function);
            match body_format(shape, cx.allowed) {
                format if reads_json(format, shape) => {
                    hermes::call(cx, format, marker.start, body, end, &mut closers)
                }
                Format::Qwen3Coder => {
                    let closer = Some(&TOOL_CALL);
                    qwen3_coder::call(cx, marker.start, body, end, closer, &mut closers)
                }
                Format::Rwkv => legacy::call(cx, (marker.start, marker.end), body, end),
                format => glm45::call(cx, format, marker.start, body, end, &mut closers),
            }
        }
    })
}

/// Decodes a region of `wrap` (one shape of body, not [`Body::Shared`]), whose opening tags are
/// `opens`.
pub(crate) fn parse_wrapped<B>(
    cx: &mut Cx<'_, '_, B>,
    range: Range<usize>,
    wrap: &'static Wrap,
    opens: &Markers,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let mut closers = Closers::new(text, end, wrap);
    cx.markup_in_prose(range, opens, |cx, marker| {
        wrapped_call(cx, wrap, marker.start, marker.end, end, &mut closers)
    })
}

/// One call of `wrap` whose opening tag spans `open..tag_end`. Returns where its markup ends.
fn wrapped_call<B>(
    cx: &mut Cx<'_, '_, B>,
    wrap: &'static Wrap,
    open: usize,
    tag_end: usize,
    end: usize,
    closers: &mut Closers<'_>,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let body = opened_body(cx.text, tag_end, end, wrap);
    match wrap.body {
        Body::Json | Body::CallObject => hermes::call(cx, wrap.format, open, body, end, closers),
        Body::FunctionName => hermes::named_call(cx, open, tag_end, end, closers),
        // A JSON call in a pairs wrapper (LongCat writes both) is read as hermes reads it.
        Body::ArgPairs if cx.text[body..end].starts_with(['{', '[']) => {
            hermes::call(cx, wrap.format, open, body, end, closers)
        }
        Body::ArgPairs => glm45::call(cx, wrap.format, open, body, end, closers),
        Body::Function | Body::Shared => {
            qwen3_coder::call(cx, open, body, end, Some(wrap), closers)
        }
    }
}

/// Where the body of `wrap` whose opening tag ends at `tag_end` starts (`tags::body_start`;
/// `<function name=…>`'s name follows its tag).
fn opened_body(text: &str, tag_end: usize, end: usize, wrap: &'static Wrap) -> usize {
    if wrap.body == Body::FunctionName {
        return skip_ws(text, tag_end, end);
    }
    body_start(&text.as_bytes()[..end], tag_end, &wrap.ends).unwrap_or_else(|at| at)
}
