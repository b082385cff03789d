//! `kimi_k2`: `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0
//! <|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>`, with or without
//! spaces between the tokens, and with the section tokens also spelled in the singular
//! (`<|tool_call_section_begin|>`…`<|tool_call_section_end|>`, as some Kimi outputs have
//! them). The model's id (`functions.f:0`) is kept; the name is the id without `functions.`
//! and `:IDX`. An id that is only the index (`0`) names the tool `tools=` leaves no doubt
//! about, if any (see `tool_of_bare_index`).

use std::ops::Range;

use super::cx::{Cx, Failure};
use super::sectioned::{self, Body, Header, Tokens};
use super::schema::only_fitting_tool;
use crate::json::{JsonBuilder, JsonKind, JsonView};
use crate::protocol::{Format, FormatSet};

const SECTION_BEGIN: &str = "<|tool_calls_section_begin|>";
const SECTION_BEGIN_SINGULAR: &str = "<|tool_call_section_begin|>";
const CALL_BEGIN: &str = "<|tool_call_begin|>";
const SEP: &str = "<|tool_call_argument_begin|>";
const CALL_END: &str = "<|tool_call_end|>";
const SECTION_END: &str = "<|tool_calls_section_end|>";
const SECTION_END_SINGULAR: &str = "<|tool_call_section_end|>";

const FORMATS: &[Format] = &[Format::KimiK2];
const IN_SECTION: &[&str] = &[CALL_BEGIN, SECTION_END, SECTION_END_SINGULAR];

static TOKENS: Tokens = sectioned::tokens! {
    formats: FORMATS,
    in_section: IN_SECTION,
    call: [CALL_BEGIN, SEP, CALL_END],
    starts: [(SECTION_BEGIN, Section), (CALL_BEGIN, Call), (SECTION_BEGIN_SINGULAR, Section)],
    header: header,
};

sectioned::spec!(
    TOKENS,
    [SECTION_BEGIN, CALL_BEGIN, SECTION_BEGIN_SINGULAR],
    FORMATS,
    // A section end with no section open (text between the section's tokens ended it early)
    // is markup all the same, as are a call's end and argument tokens outside a call (a stray
    // double close): Kimi's special tokens, never text.
    ["<|im_end|>", SECTION_END, SECTION_END_SINGULAR, CALL_END, SEP],
    read
);

/// The header is the model's call id, which names the tool.
fn header(header: &str, _body_first: u8, _allowed: FormatSet) -> Header {
    match name_of_id(header) {
        "" => Header::Fail,
        name => Header::Call {
            name: name.to_owned(),
            id: Some(header.to_owned()),
        },
    }
}

/// The name in a Kimi call id: `functions.get_weather:0` → `get_weather`. An id that is only
/// the call's index (`0`, as vLLM's tests have it) names no tool: empty.
fn name_of_id(id: &str) -> &str {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let name = id.strip_prefix("functions.").unwrap_or(id);
    match name.rsplit_once(':') {
        Some((name, index)) if digits(index) => name,
        _ if digits(name) => "",
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
    let name = match name_of_id(id) {
        "" => match tool_of_bare_index(cx, id, header.start, body, end)? {
            Ok(name) => name,
            Err(failed) => return Ok(failed),
        },
        name => name.to_owned(),
    };
    let id = id.to_owned();
    if sectioned::no_arguments(cx.text, body, end, CALL_END, IN_SECTION) {
        let arguments = cx.builder.empty_object()?;
        return Ok(Body::Call {
            format: Format::KimiK2,
            name,
            id: Some(id),
            arguments,
            end: body,
        });
    }
    sectioned::json_body(cx, Format::KimiK2, name, Some(id), body, end)
}

/// The tool of a call whose id is only its index (`0`): the one `tools=` leaves no doubt about
/// ([`only_fitting_tool`]: the only tool offered, or the only one whose schema lists every
/// argument key, as vLLM infers it). Without `tools=`, or when no single tool fits, the call
/// fails saying its id names no tool: it is never a call to a tool named `0`.
fn tool_of_bare_index<B>(
    cx: &mut Cx<'_, '_, B>,
    id: &str,
    at: usize,
    body: usize,
    end: usize,
) -> Result<Result<String, Body<B::Value>>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let nameless = |why: &str| {
        let detail = format!("missing tool name (the call id {id:?} names none{why})");
        Err(Body::Fail(Format::KimiK2, Failure::parse(detail, at, None)))
    };
    let Some(tools) = cx.options.tools else {
        return Ok(nameless(""));
    };
    let keys = match cx.json_at(body, end)? {
        Ok((arguments, _)) if arguments.kind() == JsonKind::Object => Some(
            arguments
                .entries()
                .into_iter()
                .map(|(key, _)| key)
                .collect::<Vec<_>>(),
        ),
        _ => None,
    };
    Ok(match only_fitting_tool(tools, keys.as_deref()) {
        Some(name) => Ok(name),
        None => nameless(", and no single tool offered fits its arguments"),
    })
}
