//! `dots` (rednote dots.llm): `<dots_function_call><invoke name="f"><parameter name="a">1
//! </parameter></invoke></dots_function_call>`, MiniMax-M2's invokes in another wrapper, several
//! per block. Values are typed by the tool schema, as in qwen3_coder.

use std::ops::Range;

use super::cursor::Markers;
use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use super::invoke::machine::InvokeBlock;
use super::invoke::{self, Tags};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;
use crate::scan::find::Needle;

const OPEN: &str = "<dots_function_call>";
const INVOKE_CLOSE: &str = "</invoke>";
const CLOSE: &str = "</dots_function_call>";

static CLOSES: [Needle; 1] = [Needle::new(CLOSE)];

static TAGS: Tags = Tags {
    format: Format::Dots,
    closes: &CLOSES,
    open_markers: Markers::new(&[OPEN]),
    recover: &[Markers::new(&[INVOKE_CLOSE, CLOSE])],
    invoke: "<invoke",
    invoke_close: Needle::new(INVOKE_CLOSE),
    parameter: "<parameter",
    parameter_close: Needle::new("</parameter>"),
    between: &[],
};

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &invoke::starts([OPEN], Format::Dots);

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
