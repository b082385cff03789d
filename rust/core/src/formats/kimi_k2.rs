//! `kimi_k2`: `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0
//! <|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>`, with or without
//! spaces between the tokens. The model's id (`functions.f:0`) is kept; the name is the id
//! without `functions.` and `:IDX`.

use std::ops::Range;

use super::cursor::Markers;
use super::sectioned::{self, Body, Tokens};
use super::{Cx, Failure, Format};
use crate::json::{JsonBuilder, JsonView};
use crate::scan::finders::Needle;

pub(crate) static TOKENS: Tokens = Tokens {
    formats: &[Format::KimiK2],
    section_begin: "<|tool_calls_section_begin|>",
    section_end: "<|tool_calls_section_end|>",
    call_begin: "<|tool_call_begin|>",
    sep: Needle::new("<|tool_call_argument_begin|>"),
    call_end: Needle::new("<|tool_call_end|>"),
};

static MARKERS: Markers = Markers::new(&[TOKENS.section_begin, TOKENS.call_begin]);

pub(crate) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    sectioned::parse_region(cx, range, &TOKENS, &MARKERS, read)
}

/// The name in a Kimi call id: `functions.get_weather:0` → `get_weather`.
pub(crate) fn name_of_id(id: &str) -> &str {
    let name = id.strip_prefix("functions.").unwrap_or(id);
    match name.rsplit_once(':') {
        Some((name, index)) if !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => name,
    }
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
    let id = cx.text[header.clone()].trim();
    let name = name_of_id(id).to_owned();
    if name.is_empty() {
        let failure = Failure::parse("missing tool name", header.start, None);
        return Ok(Body::Fail(Format::KimiK2, failure));
    }
    let id = id.to_owned();
    Ok(match cx.json_at(body, end)? {
        Ok((arguments, json_end)) => Body::Call {
            format: Format::KimiK2,
            name,
            id: Some(id),
            arguments,
            end: json_end,
        },
        Err(error) => Body::Fail(Format::KimiK2, Failure::json(error, Some(name))),
    })
}
