//! `solar_open2` (Upstage Solar Open 2): one call per start token, the name on its line, then
//! its arguments as token-delimited pairs: `<|tool_call:start|>f\n<|tool_arg:start|>a
//! <|tool_arg:value|>1<|tool_arg:end|>\n<|tool_call:end|>`. Values are raw text typed by the tool
//! schema, as glm45's. A dropped `<|tool_arg:end|>` ends the value at the next argument or the
//! call's end; a dropped `<|tool_call:end|>` ends the call where the next one starts (or where
//! the think span it was written in closes, as every region in a think span does), or at the
//! end of the text, as vLLM reads them.

mod decode;
mod machine;

use std::ops::Range;

use super::cursor::Markers;
use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

const CALL: &str = "<|tool_call:start|>";
const CALL_END: &str = "<|tool_call:end|>";
const ARG: &str = "<|tool_arg:start|>";
const ARG_VALUE: &str = "<|tool_arg:value|>";
const ARG_END: &str = "<|tool_arg:end|>";

/// What ends a call's markup: its end token (part of it), or the next call's start (not).
static CALL_ENDS: Markers = Markers::new(&[CALL_END, CALL]);

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[Start {
        text: CALL,
        formats: FormatSet::only(Format::SolarOpen2),
    }];

    type Machine = machine::SolarCall;

    fn open(_start: Option<usize>, at: usize, _open: Open) -> Self::Machine {
        machine::SolarCall::new(at)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        decode::call(cx, range)
    }
}
