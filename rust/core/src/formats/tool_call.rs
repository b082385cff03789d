//! The `<tool_call>` tag shared by hermes (a JSON body), qwen3_coder (`<function=NAME>`) and
//! glm45 (a name, then `<arg_key>`/`<arg_value>` pairs): the body decides which, among the
//! allowed formats.

use std::ops::Range;

use super::cursor::{Markers, ProseCursor, Seek};
use super::{glm45, hermes, qwen3_coder, skip_ws, Cx, Format};
use crate::json::{JsonBuilder, JsonView};
use crate::scan::finders::Needle;

pub(crate) const OPEN: &str = "<tool_call>";
pub(crate) const CLOSE: &str = "</tool_call>";
static CLOSE_NEEDLE: Needle = Needle::new(CLOSE);

static MARKERS: Markers = Markers::new(&[OPEN, qwen3_coder::FUNCTION]);

/// Closing markers of one region, searched forward once.
pub(crate) struct Closers<'t> {
    pub tool_call: Seek<'t>,
    pub parameter: Seek<'t>,
    pub function: Seek<'t>,
    pub arg_key: Seek<'t>,
    pub arg_value: Seek<'t>,
}

pub(crate) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let mut closers = Closers {
        tool_call: Seek::new(text, end, &CLOSE_NEEDLE),
        parameter: Seek::new(text, end, &qwen3_coder::PARAMETER_CLOSE_NEEDLE),
        function: Seek::new(text, end, &qwen3_coder::FUNCTION_CLOSE_NEEDLE),
        arg_key: Seek::new(text, end, &glm45::KEY_CLOSE_NEEDLE),
        arg_value: Seek::new(text, end, &glm45::VALUE_CLOSE_NEEDLE),
    };
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
            qwen3_coder::call(cx, marker.start, marker.start, end, false, &mut closers)?
        } else {
            let body = skip_ws(text, marker.end, end);
            match body_format(&text[body..end], cx) {
                Format::Hermes => hermes::call(cx, marker.start, body, end, &mut closers)?,
                Format::Qwen3Coder => {
                    qwen3_coder::call(cx, marker.start, body, end, true, &mut closers)?
                }
                _ => glm45::call(cx, marker.start, body, end, &mut closers)?,
            }
        };
    }
    cx.prose(pos..end);
    Ok(())
}

/// Which format a `<tool_call>` body is written in; a shape whose format is not allowed is
/// read as the first allowed one (and usually fails there, visibly).
fn body_format<B: JsonBuilder>(body: &str, cx: &Cx<'_, '_, B>) -> Format {
    let shape = if body.starts_with(['{', '[']) {
        Format::Hermes
    } else if body.starts_with(qwen3_coder::FUNCTION) {
        Format::Qwen3Coder
    } else {
        Format::Glm45
    };
    if cx.allowed.contains(shape) {
        return shape;
    }
    [Format::Hermes, Format::Qwen3Coder, Format::Glm45]
        .into_iter()
        .find(|&f| cx.allowed.contains(f))
        .unwrap_or(shape)
}

/// Strips the one newline the templates put after an opening tag and before a closing tag.
pub(crate) fn strip_newlines(value: &str) -> &str {
    let value = value
        .strip_prefix("\r\n")
        .or_else(|| value.strip_prefix('\n'))
        .unwrap_or(value);
    value
        .strip_suffix("\r\n")
        .or_else(|| value.strip_suffix('\n'))
        .unwrap_or(value)
}

/// Where the markup of a call that ends at `pos` ends: past whitespace and a `</tool_call>`;
/// a missing `</tool_call>` is accepted at the end of the text. `None` when something else
/// follows.
pub(crate) fn close_tag(text: &str, pos: usize, end: usize) -> Option<usize> {
    let after = skip_ws(text, pos, end);
    if text[after..end].starts_with(CLOSE) {
        Some(after + CLOSE.len())
    } else if after == end {
        Some(end)
    } else {
        None
    }
}
