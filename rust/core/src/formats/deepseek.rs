//! `deepseek_v3` and `deepseek_v31` (U+FF5C and U+2581 in the tokens):
//!
//! * V3: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{…}\n```<｜tool▁call▁end｜>`
//! * V3.1: `<｜tool▁call▁begin｜>f<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`
//!
//! both inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`. They share their tokens, so when
//! both are allowed each call is read by its shape: V3 when the header is `function` and the
//! body does not start with `{`.

use std::ops::Range;

use super::cursor::Markers;
use super::sectioned::{self, Body, Tokens};
use super::{skip_ws, Cx, Failure, Format};
use crate::json::{JsonBuilder, JsonView};
use crate::scan::finders::{find_byte, Needle};

pub(crate) static TOKENS: Tokens = Tokens {
    formats: &[Format::DeepseekV31, Format::DeepseekV3],
    section_begin: "<｜tool▁calls▁begin｜>",
    section_end: "<｜tool▁calls▁end｜>",
    call_begin: "<｜tool▁call▁begin｜>",
    sep: Needle::new("<｜tool▁sep｜>"),
    call_end: Needle::new("<｜tool▁call▁end｜>"),
};

const FENCE: &str = "```";

static MARKERS: Markers = Markers::new(&[TOKENS.section_begin, TOKENS.call_begin]);

pub(crate) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    sectioned::parse_region(cx, range, &TOKENS, &MARKERS, read)
}

fn read<B>(
    cx: &mut Cx<'_, '_, B>,
    header: Range<usize>,
    body: usize,
    end: usize,
) -> Result<Body<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let header_text = text[header.clone()].trim();
    let v3_shape =
        header_text == "function" && !text[skip_ws(text, body, end)..end].starts_with('{');
    let format = match (
        cx.allowed.contains(Format::DeepseekV3),
        cx.allowed.contains(Format::DeepseekV31),
    ) {
        (true, true) if v3_shape => Format::DeepseekV3,
        (true, false) => Format::DeepseekV3,
        _ => Format::DeepseekV31,
    };
    if format == Format::DeepseekV31 {
        if header_text.is_empty() {
            return Ok(Body::Fail(
                format,
                Failure::parse("missing tool name", header.start, None),
            ));
        }
        let name = header_text.to_owned();
        return Ok(match cx.json_at(body, end)? {
            Ok((arguments, json_end)) => Body::Call {
                format,
                name,
                id: None,
                arguments,
                end: json_end,
            },
            Err(error) => Body::Fail(format, Failure::json(error, Some(name))),
        });
    }
    // V3: the name on the rest of the line, then a ```json fence.
    let line_end = find_byte(b'\n', &text.as_bytes()[body..end]).map_or(end, |i| body + i);
    let name = text[body..line_end].trim().to_owned();
    if name.is_empty() {
        return Ok(Body::Fail(
            format,
            Failure::parse("missing tool name", body, None),
        ));
    }
    let fence = skip_ws(text, line_end, end);
    if !text[fence..end].starts_with(FENCE) {
        let failure = Failure::parse("expected a ```json fence after the name", fence, Some(name));
        return Ok(Body::Fail(format, failure));
    }
    let mut json_start = fence + FENCE.len();
    if text[json_start..end].starts_with("json") {
        json_start += "json".len();
    }
    let (arguments, json_end) = match cx.json_at(json_start, end)? {
        Ok(found) => found,
        Err(error) => return Ok(Body::Fail(format, Failure::json(error, Some(name)))),
    };
    let closing = skip_ws(text, json_end, end);
    if !text[closing..end].starts_with(FENCE) {
        let failure = Failure::parse("expected ``` after the arguments", closing, Some(name));
        return Ok(Body::Fail(format, failure));
    }
    Ok(Body::Call {
        format,
        name,
        id: None,
        arguments,
        end: closing + FENCE.len(),
    })
}
