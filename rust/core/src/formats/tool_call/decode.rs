//! Decoding a `<tool_call>` region: each call's body is read as hermes, qwen3_coder or glm45.

use std::ops::Range;

use super::super::cursor::{Markers, ProseCursor};
use super::super::cx::{skip_ws, Cx};
use super::tags::{body_format, is_call_object, shape_of, Closers, Opening, FUNCTION, STARTS};
use super::{glm45, hermes, qwen3_coder};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;

static MARKERS: Markers = Markers::new(&STARTS);

pub(super) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let mut closers = Closers::new(text, end);
    let mut cursor = ProseCursor::new(text, &MARKERS, range.start);
    let mut pos = range.start;
    while let Some(marker) = cursor.next(pos, end) {
        let opening = Opening::of_start(marker.pattern);
        let body = skip_ws(text, marker.end, end);
        let prose_marker = match opening {
            Opening::Function => {
                !cx.allowed.contains(Format::Qwen3Coder) && !cx.allowed.contains(Format::Hermes)
            }
            Opening::FunctionName => !cx.allowed.contains(Format::Hermes),
            Opening::Wrapper(_) => {
                !cx.allowed.contains(Format::Hermes)
                    || is_call_object(&text.as_bytes()[..end], body) != Some(true)
            }
            Opening::ToolCall => false,
        };
        if prose_marker {
            cx.prose(pos..marker.end);
            pos = marker.end;
            continue;
        }
        cx.prose(pos..marker.start);
        pos = match opening {
            Opening::Function => {
                qwen3_coder::call(cx, marker.start, marker.start, end, opening, &mut closers)?
            }
            Opening::FunctionName => hermes::named_call(cx, marker.start, marker.end, end)?,
            Opening::Wrapper(_) => hermes::call(cx, marker.start, body, end, opening)?,
            Opening::ToolCall => {
                let rest = &text[body..end];
                let shape = shape_of(
                    rest.as_bytes().first().copied().unwrap_or(0),
                    rest.starts_with(FUNCTION),
                );
                match body_format(shape, cx.allowed) {
                    Format::Hermes => hermes::call(cx, marker.start, body, end, opening)?,
                    Format::Qwen3Coder => {
                        qwen3_coder::call(cx, marker.start, body, end, opening, &mut closers)?
                    }
                    _ => glm45::call(cx, marker.start, body, end, &mut closers)?,
                }
            }
        };
    }
    cx.prose(pos..end);
    Ok(())
}
