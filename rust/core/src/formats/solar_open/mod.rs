//! `solar_open` (Upstage Solar Open 100B): `<|tool_calls|>` then, per call,
//! `<|tool_call:begin|>ID<|tool_call:name|>f<|tool_call:args|>{…}<|tool_call:end|>`, the
//! token-delimited section shape (`sectioned`). The header holds the call's id (kept) and, after
//! `<|tool_call:name|>`, the tool's name; the body is the JSON arguments. A turn is a run of
//! channels, as harmony's: `<|think|>` opens the reasoning, a prose message read as reasoning up
//! to `<|end|>` (`<|think|>Plan.<|end|><|content|>Hi`); the other turn tokens (`<|end|>`
//! elsewhere, `<|begin|>assistant`, `<|content|>`, `<|flush|>`) and the end of a turn of calls,
//! `<|calls|>`, are control tokens. (Solar Open 2 writes another format: `solar_open2`.)
//!
//! Sarashina writes `<|tool_calls|>` too, then a Python-literal list of call dicts: with
//! `sarashina` asked for, a section that opens with a list is its (`pythonic::sarashina`).

use std::ops::Range;

use super::cx::{Cx, Failure};
use super::grammar::{Grammar, Machine, Open, Start, Verdict};
use super::sectioned::machine::SectionCall;
use super::sectioned::{self, Body, Header, Tokens};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};
use crate::scan::call_scan::{CallRecord, CallScanner};

const SECTION_BEGIN: &str = "<|tool_calls|>";
const CALL_BEGIN: &str = "<|tool_call:begin|>";
/// Between the call's id and its name, in the header.
const NAME: &str = "<|tool_call:name|>";
const SEP: &str = "<|tool_call:args|>";
const CALL_END: &str = "<|tool_call:end|>";
/// The end of an assistant turn of calls.
const SECTION_END: &str = "<|calls|>";
/// The reasoning channel, and the end of a channel's message.
const THINK: &str = "<|think|>";
const END: &str = "<|end|>";

const FORMATS: &[Format] = &[Format::SolarOpen];
const SOLAR: FormatSet = FormatSet::of(FORMATS);
const IN_SECTION: &[&str] = &[CALL_BEGIN, SECTION_END];

static TOKENS: Tokens = sectioned::tokens! {
    formats: FORMATS,
    in_section: IN_SECTION,
    call: [CALL_BEGIN, SEP, CALL_END],
    starts: [(SECTION_BEGIN, Section), (CALL_BEGIN, Call)],
    header: header,
    list: Format::Sarashina,
};

pub(crate) struct Spec;

impl Grammar for Spec {
    /// The section token opens Sarashina's list too ([`Tokens::list`]); `<|think|>` comes last,
    /// after the sectioned shape's own markers.
    const STARTS: &'static [Start] = &[
        Start {
            text: SECTION_BEGIN,
            formats: SOLAR.union(FormatSet::only(Format::Sarashina)),
        },
        Start {
            text: CALL_BEGIN,
            formats: SOLAR,
        },
        Start {
            text: THINK,
            formats: SOLAR,
        },
    ];
    const PROSE_ENDS: &'static [Start] = &[Start {
        text: END,
        formats: SOLAR,
    }];
    /// The turn's tokens: the next message's role, its content channel, the end of the answer
    /// and of a turn of calls (a section end with no section open is markup all the same).
    const CONTROL: &'static [&'static str] =
        &["<|begin|>assistant", "<|content|>", "<|flush|>", SECTION_END];

    type Machine = Region;

    fn open(start: Option<usize>, at: usize, open: Open) -> Region {
        match start {
            Some(2) => Region::Reasoning(at),
            _ => Region::Calls(Box::new(SectionCall::new(&TOKENS, start, at, open))),
        }
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        sectioned::decode::parse_region(cx, range, &TOKENS, read)
    }
}

/// A region: calls, or the reasoning channel's header (its message is prose, read as reasoning).
pub(crate) enum Region {
    /// Boxed: a section's machine is large, the reasoning header's a byte offset.
    Calls(Box<SectionCall>),
    /// `<|think|>`, ending here.
    Reasoning(usize),
}

impl Machine for Region {
    fn advance(&mut self, buf: &str) -> Verdict {
        match self {
            Region::Calls(calls) => calls.advance(buf),
            &mut Region::Reasoning(end) => Verdict::Prose {
                end,
                reasoning: true,
            },
        }
    }

    fn records(&self) -> &[CallRecord] {
        match self {
            Region::Calls(calls) => calls.records(),
            Region::Reasoning(_) => &[],
        }
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        match self {
            Region::Calls(calls) => calls.reading_json(),
            Region::Reasoning(_) => None,
        }
    }

    fn safe(&self) -> usize {
        match self {
            Region::Calls(calls) => calls.safe(),
            Region::Reasoning(_) => 0,
        }
    }
}

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
