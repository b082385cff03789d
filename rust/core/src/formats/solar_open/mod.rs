//! `solar_open` (Upstage Solar Open 100B): `<|tool_calls|>` then, per call,
//! `<|tool_call:begin|>ID<|tool_call:name|>f<|tool_call:args|>{…}<|tool_call:end|>`, the
//! token-delimited section shape (`sectioned`). The header holds the call's id (kept) and, after
//! `<|tool_call:name|>`, the tool's name; the body is the JSON arguments. The turn's tokens
//! (`<|end|>`, `<|begin|>assistant`, `<|content|>`, `<|flush|>`) and the end of a turn of calls,
//! `<|calls|>`, are control tokens. (Solar Open 2 writes another format: `solar_open2`.)
//!
//! Sarashina writes `<|tool_calls|>` too, then a Python-literal list of call dicts: with
//! `sarashina` asked for, a section that opens with a list is its (`pythonic::sarashina`).

use std::ops::Range;

use super::cx::{Cx, Failure};
use super::sectioned::{self, Body, Header, Tokens};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

const SECTION_BEGIN: &str = "<|tool_calls|>";
const CALL_BEGIN: &str = "<|tool_call:begin|>";
/// Between the call's id and its name, in the header.
const NAME: &str = "<|tool_call:name|>";
const SEP: &str = "<|tool_call:args|>";
const CALL_END: &str = "<|tool_call:end|>";
/// The end of an assistant turn of calls.
const SECTION_END: &str = "<|calls|>";

const FORMATS: &[Format] = &[Format::SolarOpen];
const IN_SECTION: &[&str] = &[CALL_BEGIN, SECTION_END];

static TOKENS: Tokens = sectioned::tokens! {
    formats: FORMATS,
    in_section: IN_SECTION,
    call: [CALL_BEGIN, SEP, CALL_END],
    starts: [(SECTION_BEGIN, Section), (CALL_BEGIN, Call)],
    header: header,
    list: Format::Sarashina,
};

sectioned::spec!(
    TOKENS,
    [SECTION_BEGIN, CALL_BEGIN],
    FORMATS,
    // The turn's tokens: a message's end, the next message's role, its content channel, the
    // end of a turn; a section end with no section open is markup all the same.
    [
        "<|end|>",
        "<|begin|>assistant",
        "<|content|>",
        "<|flush|>",
        SECTION_END
    ],
    read,
    list: Format::Sarashina
);

/// The id and the tool's name in a call's header (`ID<|tool_call:name|>NAME`), if it names one.
fn parts(header: &str) -> Option<(Option<&str>, &str)> {
    let (id, name) = header.split_once(NAME)?;
    let (id, name) = (id.trim(), name.trim());
    (!name.is_empty()).then_some(((!id.is_empty()).then_some(id), name))
}

fn header(header: &str, _body_first: u8, _allowed: FormatSet) -> Header {
    match parts(header) {
        None => Header::Fail,
        Some((id, name)) => Header::Call {
            name: name.to_owned(),
            id: id.map(str::to_owned),
        },
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
    let Some((id, name)) = parts(&cx.text[header.clone()]) else {
        let detail = format!("expected {NAME} and a tool name");
        return Ok(Body::Fail(
            Format::SolarOpen,
            Failure::parse(detail, header.start, None),
        ));
    };
    let (id, name) = (id.map(str::to_owned), name.to_owned());
    sectioned::json_body(cx, Format::SolarOpen, name, id, body, end)
}
