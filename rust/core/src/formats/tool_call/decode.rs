//! Decoding a `<tool_call>` region (each call's body is read as hermes, qwen3_coder or glm45),
//! or a region of another wrapper of `<function=…>` bodies.

use std::ops::Range;

use super::super::cursor::{Markers, ProseCursor};
use super::super::cx::{skip_ws, Cx};
use super::tags::{body_format, shape_of, Body, Closers, Wrap, FUNCTION, OPEN, TOOL_CALL};
use super::{glm45, hermes, qwen3_coder};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;

static MARKERS: Markers = Markers::new(&[OPEN, FUNCTION]);

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
        if bare_function && !cx.allowed.contains(Format::Qwen3Coder) {
            cx.prose(pos..marker.end);
            pos = marker.end;
            continue;
        }
        cx.prose(pos..marker.start);
        pos = if bare_function {
            qwen3_coder::call(cx, marker.start, marker.start, end, None, &mut closers)?
        } else {
            let body = skip_ws(text, marker.end, end);
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
                _ => glm45::call(cx, marker.start, body, end, &mut closers)?,
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
        let body = skip_ws(text, marker.end, end);
        pos = if wrap.body == Body::Json {
            hermes::call(cx, wrap.format, marker.start, body, end, &mut closers)?
        } else {
            qwen3_coder::call(cx, marker.start, body, end, Some(wrap), &mut closers)?
        };
    }
    cx.prose(pos..end);
    Ok(())
}
