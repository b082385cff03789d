//! `deepseek_v3` and `deepseek_v31` (U+FF5C and U+2581 in the tokens):
//!
//! * V3: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{…}\n```<｜tool▁call▁end｜>`
//! * V3.1: `<｜tool▁call▁begin｜>f<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`
//!
//! both inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>` (DeepSeek R1 also writes
//! `<｜tool▁calls｜>` for the section's begin and its first call's together). They share their
//! tokens, so when both are allowed each call is read by its shape: V3 when the header is
//! `function` and the body does not start with `{`.

use std::ops::Range;

use super::cx::{skip_ws, Cx, Failure};
use super::sectioned::{self, Body, Header, Tokens};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};
use crate::scan::fence::line_end;

const SECTION_BEGIN: &str = "<｜tool▁calls▁begin｜>";
const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
/// DeepSeek R1's spelling: the section and its first call begin at once.
const SECTION_AND_CALL: &str = "<｜tool▁calls｜>";
const SEP: &str = "<｜tool▁sep｜>";
const CALL_END: &str = "<｜tool▁call▁end｜>";

const SECTION_END: &str = "<｜tool▁calls▁end｜>";
/// DeepSeek's end-of-sentence token, a control token in its DSML versions too.
pub(crate) const END_OF_SENTENCE: &str = "<｜end▁of▁sentence｜>";

const FORMATS: &[Format] = &[Format::DeepseekV31, Format::DeepseekV3];
const IN_SECTION: &[&str] = &[CALL_BEGIN, SECTION_END];

static TOKENS: Tokens = sectioned::tokens! {
    formats: FORMATS,
    in_section: IN_SECTION,
    call: [CALL_BEGIN, SEP, CALL_END],
    starts: [(SECTION_BEGIN, Section), (CALL_BEGIN, Call), (SECTION_AND_CALL, SectionAndCall)],
    header: header,
};

const FENCE: &str = "```";

sectioned::spec!(
    TOKENS,
    [SECTION_BEGIN, CALL_BEGIN, SECTION_AND_CALL],
    FORMATS,
    // A section end with no section open is markup all the same, and so is a call end with no
    // call open (a call's end token written twice), and the tokens of the tool results the chat
    // template writes back (a model may echo them): their text stays.
    [
        END_OF_SENTENCE,
        SECTION_END,
        CALL_END,
        "<｜tool▁outputs▁begin｜>",
        "<｜tool▁output▁begin｜>",
        "<｜tool▁output▁end｜>",
        "<｜tool▁outputs▁end｜>",
    ],
    read
);

/// Which version a call is, by its header and its body's first byte: V3 when the header is
/// `function` and the body is not JSON (when both versions are allowed).
fn is_v3(header: &str, body_first: u8, allowed: FormatSet) -> bool {
    match (
        allowed.contains(Format::DeepseekV3),
        allowed.contains(Format::DeepseekV31),
    ) {
        (true, true) => header == "function" && body_first != b'{',
        (true, false) => true,
        _ => false,
    }
}

fn header(header: &str, body_first: u8, allowed: FormatSet) -> Header {
    if is_v3(header, body_first, allowed) {
        Header::NameOnNextLine
    } else if header.is_empty() {
        Header::Fail
    } else {
        Header::Call {
            name: header.to_owned(),
            id: None,
        }
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
    let text = cx.text;
    let header_text = text[header.clone()].trim();
    let body_first = text.as_bytes()[skip_ws(text, body, end)..end]
        .first()
        .copied()
        .unwrap_or(0);
    let format = if is_v3(header_text, body_first, cx.allowed) {
        Format::DeepseekV3
    } else {
        Format::DeepseekV31
    };
    if format == Format::DeepseekV31 {
        if header_text.is_empty() {
            return Ok(Body::Fail(
                format,
                Failure::parse("missing tool name", header.start, None),
            ));
        }
        let name = header_text.to_owned();
        if sectioned::no_arguments(text, body, end, CALL_END, IN_SECTION) {
            // `f<｜tool▁sep｜><｜tool▁call▁end｜>`: a call written with no arguments, as
            // Kimi K2's (FastDeploy's DeepSeek tests read it so).
            let arguments = cx.builder.empty_object()?;
            return Ok(Body::Call {
                format,
                name,
                id: None,
                arguments,
                end: body,
            });
        }
        return sectioned::json_body(cx, format, name, None, body, end);
    }
    // V3: the name on the rest of the line (ended by `\n`, `\r\n` or a lone `\r`, or by the
    // fence when the model wrote it on the same line), then a ```json fence.
    let line_end = line_end(&text.as_bytes()[..end], body);
    let name_end = text[body..line_end].find(FENCE).map_or(line_end, |i| body + i);
    let name = text[body..name_end].trim().to_owned();
    if name.is_empty() {
        return Ok(Body::Fail(
            format,
            Failure::parse("missing tool name", body, None),
        ));
    }
    let fence = skip_ws(text, name_end, end);
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
