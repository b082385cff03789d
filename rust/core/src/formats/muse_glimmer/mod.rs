//! `muse_glimmer` (Muse Glimmer's ATEM blocks): `<atem:function_calls><atem:invoke name="f">
//! <atem:parameter name="a">1</atem:parameter></atem:invoke></atem:function_calls>`, several
//! invokes per block. Values are typed by the tool schema (without one, JSON when valid, else
//! the text), as in qwen3_coder. The channel framing around the block (`to=…<|message|>` …
//! `<|eom|>`) is prose.

use std::ops::Range;

use super::cursor::Markers;
use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use super::invoke::machine::InvokeBlock;
use super::invoke::{self, Tags};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;
use crate::scan::find::Needle;

const OPEN: &str = "<atem:function_calls>";
const INVOKE_CLOSE: &str = "</atem:invoke>";
const CLOSE: &str = "</atem:function_calls>";

static CLOSES: [Needle; 1] = [Needle::new(CLOSE)];

static TAGS: Tags = Tags {
    format: Format::MuseGlimmer,
    closes: &CLOSES,
    open_markers: Markers::new(&[OPEN]),
    recover: &[Markers::new(&[INVOKE_CLOSE, CLOSE])],
    invoke: "<atem:invoke",
    invoke_close: Needle::new(INVOKE_CLOSE),
    parameter: "<atem:parameter",
    parameter_close: Needle::new("</atem:parameter>"),
    between: &[],
};

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &invoke::starts([OPEN], Format::MuseGlimmer);

    type Machine = InvokeBlock;

    fn open(start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        InvokeBlock::new(&TAGS, start.unwrap_or(0), at, open)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        invoke::decode::parse_region(cx, range, &TAGS)
    }
}
