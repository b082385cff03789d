//! `gigachat3` (GigaChat 3 and 3.1): one JSON call `{"name": …, "arguments": {…}}` after
//! `<|message_sep|>function call<|role_sep|>` (GigaChat 3, a message whose role is
//! `function call`, newlines between the tokens) or after `<|function_call|>` (GigaChat 3.1),
//! ended by the end of the JSON or an end-of-sequence `</s>`. A `<|message_sep|>` that opens
//! any other message is prose. A message may also begin with the role itself,
//! `function call<|role_sep|>` (the call is the whole reply: SGLang's tests), looked for only
//! there. The body is read as hermes reads its JSON.

mod machine;

use std::ops::Range;

use super::cursor::{DenseSearcher, Markers};
use super::cx::{skip_ws, Cx};
use super::grammar::{Grammar, Open, Start};
use super::tool_call::hermes;
use super::tool_call::tags::{Body, Closers, Wrap, GLM_PAIRS};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

const MESSAGE_SEP: &str = "<|message_sep|>";
const FUNCTION_CALL: &str = "<|function_call|>";
const ROLE: &str = "function call";
const ROLE_SEP: &str = "<|role_sep|>";
const EOS: &str = "</s>";

static WRAP: Wrap = Wrap {
    format: Format::Gigachat3,
    ends: Markers::new(&[EOS]),
    ends_searcher: DenseSearcher::new(),
    body: Body::Json,
    pairs: &GLM_PAIRS,
    answer_of: FormatSet::NONE,
};

static MARKERS: Markers = Markers::new(&[MESSAGE_SEP, FUNCTION_CALL, ROLE]);

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[
        Start {
            text: MESSAGE_SEP,
            formats: FormatSet::only(Format::Gigachat3),
        },
        Start {
            text: FUNCTION_CALL,
            formats: FormatSet::only(Format::Gigachat3),
        },
        // At the start of a message only (`markers::is_anchored`).
        Start {
            text: ROLE,
            formats: FormatSet::only(Format::Gigachat3),
        },
    ];

    type Machine = machine::GigaCall;

    fn open(start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        let opened = match start {
            Some(0) => machine::Opened::MessageSep,
            Some(2) => machine::Opened::Role,
            _ => machine::Opened::FunctionCall,
        };
        machine::GigaCall::new(opened, at, open)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let text = cx.text;
        let end = range.end;
        let mut closers = Closers::new(text, end, &WRAP);
        cx.markup_in_prose(range, &MARKERS, |cx, marker| {
            let body = match marker.pattern {
                0 => role_end(text, marker.end, end),
                2 => role_sep_end(text, marker.end, end),
                _ => Some(marker.end),
            };
            let Some(body) = body else {
                cx.prose(marker.start..marker.end);
                return Ok(marker.end);
            };
            let body = skip_ws(text, body, end);
            let format = Format::Gigachat3;
            hermes::call(cx, format, marker.start, body, end, &mut closers)
        })
    }
}

/// After `<|message_sep|>` at `at`: past `function call<|role_sep|>` (whitespace around the role
/// allowed), or `None` when the message has another role.
fn role_end(text: &str, at: usize, end: usize) -> Option<usize> {
    let role = skip_ws(text, at, end);
    let role_end = role + text[role..end].strip_prefix(ROLE).map(|_| ROLE.len())?;
    role_sep_end(text, role_end, end)
}

/// After the role `function call` ending at `at`: past `<|role_sep|>` (whitespace before it
/// allowed), or `None`.
fn role_sep_end(text: &str, at: usize, end: usize) -> Option<usize> {
    let sep = skip_ws(text, at, end);
    text[sep..end]
        .starts_with(ROLE_SEP)
        .then_some(sep + ROLE_SEP.len())
}
