//! `plamo3` (PFN PLaMo 3): `<|plamo:begin_tool_requests:plamo|>` then, per call,
//! `<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>f<|plamo:end_tool_name:plamo|>
//! <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{…}
//! <|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>`, and
//! `<|plamo:end_tool_requests:plamo|>`: the token-delimited section shape (`sectioned`), whose
//! separator and call end here runs of the model's tags, written together as its template
//! writes them (the name's opening tag is read as part of the call's header).
//! `<|plamo:tag|>` ends the turn.

use std::ops::Range;

use super::cx::{Cx, Failure};
use super::sectioned::{self, Body, Header, Tokens};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

const SECTION_BEGIN: &str = "<|plamo:begin_tool_requests:plamo|>";
const CALL_BEGIN: &str = "<|plamo:begin_tool_request:plamo|>";
/// Before the name, in the call's header.
const NAME_BEGIN: &str = "<|plamo:begin_tool_name:plamo|>";
/// The end of the name and the start of the JSON arguments, with the constraint tokens the
/// model writes before them.
const SEP: &str = "<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>\
                   <|plamo:constrain|>json<|plamo:msg|>";
const CALL_END: &str = "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>";
const SECTION_END: &str = "<|plamo:end_tool_requests:plamo|>";

const FORMATS: &[Format] = &[Format::Plamo3];
const IN_SECTION: &[&str] = &[CALL_BEGIN, SECTION_END];

static TOKENS: Tokens = sectioned::tokens! {
    formats: FORMATS,
    in_section: IN_SECTION,
    call: [CALL_BEGIN, SEP, CALL_END],
    starts: [(SECTION_BEGIN, Section), (CALL_BEGIN, Call)],
    header: header,
};

sectioned::spec!(
    TOKENS,
    [SECTION_BEGIN, CALL_BEGIN],
    FORMATS,
    // The end of turn; a section end with no section open is markup all the same.
    ["<|plamo:tag|>", SECTION_END],
    read
);

/// The tool's name in a call's header (`<|plamo:begin_tool_name:plamo|>NAME`), if any.
fn name_of(header: &str) -> Option<&str> {
    let name = header.trim().strip_prefix(NAME_BEGIN)?.trim();
    (!name.is_empty()).then_some(name)
}

fn header(header: &str, _body_first: u8, _allowed: FormatSet) -> Header {
    match name_of(header) {
        None => Header::Fail,
        Some(name) => Header::Call {
            name: name.to_owned(),
            id: None,
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
    let Some(name) = name_of(&cx.text[header.clone()]) else {
        let detail = format!("expected {NAME_BEGIN} and a tool name");
        return Ok(Body::Fail(
            Format::Plamo3,
            Failure::parse(detail, header.start, None),
        ));
    };
    let name = name.to_owned();
    sectioned::json_body(cx, Format::Plamo3, name, None, body, end)
}
