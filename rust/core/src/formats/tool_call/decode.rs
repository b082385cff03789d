//! Decoding a `<tool_call>` region (each call's body is read as hermes, qwen3_coder or glm45),
//! or a region of another wrapper of `<function=…>` bodies.

use std::ops::Range;

use super::super::cursor::{Markers, ProseCursor};
use super::super::cx::{skip_ws, Cx};
use super::tags::{
    body_format, is_call_object, shape_of, Body, Closers, Wrap, FUNCTION, HERMES_WRAPS, OPENS,
    TOOL_CALL,
};
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
    let mut cursor = ProseCursor::new(text, &MARKERS, range.start);
    let mut pos = range.start;
    while let Some(marker) = cursor.next(pos, end) {
        let bare_function = marker.pattern == 1;
        let body = skip_ws(text, marker.end, end);
        let wrap = marker.pattern.checked_sub(2).map(|i| &HERMES_WRAPS[i]);
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
            cx.prose(pos..marker.end);
            pos = marker.end;
            continue;
        }
        cx.prose(pos..marker.start);
        if let Some(wrap) = wrap {
            let mut closers = Closers::new(text, end, wrap);
            pos = wrapped_call(cx, wrap, marker.start, marker.end, end, &mut closers)?;
            continue;
        }
        pos = if bare_function {
            qwen3_coder::call(cx, marker.start, marker.start, end, None, &mut closers)?
        } else {
            let rest = &text[body..end];
            let shape = shape_of(
                rest.as_bytes().first().copied().unwrap_or(0),
                rest.starts_with(FUNCTION),
            );
            match body_format(shape, cx.allowed) {
                Format::Hermes => {
                    hermes::call(cx, Format::Hermes, marker.start, body, end, &mut closers)?
                }
                Format::Qwen3Coder => qwen3_coder::call(
                    cx,
                    marker.start,
                    body,
                    end,
                    Some(&TOOL_CALL),
                    &mut closers,
                )?,
                _ => glm45::call(cx, Format::Glm45, marker.start, body, end, &mut closers)?,
            }
        };
    }
    cx.prose(pos..end);
    Ok(())
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
    let mut cursor = ProseCursor::new(text, opens, range.start);
    let mut pos = range.start;
    while let Some(marker) = cursor.next(pos, end) {
        cx.prose(pos..marker.start);
        pos = wrapped_call(cx, wrap, marker.start, marker.end, end, &mut closers)?;
    }
    cx.prose(pos..end);
    Ok(())
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
    let body = skip_ws(cx.text, tag_end, end);
    match wrap.body {
        Body::Json | Body::CallObject => hermes::call(cx, wrap.format, open, body, end, closers),
        Body::FunctionName => hermes::named_call(cx, open, tag_end, end, closers),
        Body::Function | Body::Shared => {
            qwen3_coder::call(cx, open, body, end, Some(wrap), closers)
        }
    }
}
