//! `step3` (StepFun Step-3): `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>
//! <steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter></steptml:invoke>
//! <｜tool_call_end｜><｜tool_calls_end｜>`, several calls per block: the invoke shape, each
//! invoke framed by its call tokens. Values are typed by the tool schema, as in qwen3_coder.
//! (Step-3.5 writes qwen3_coder's format: `step3p5` is an alias of `qwen3_coder`.)

use std::ops::Range;

use super::cursor::Markers;
use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use super::invoke::machine::InvokeBlock;
use super::invoke::{self, Tags};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;
use crate::scan::find::Needle;

const OPEN: &str = "<｜tool_calls_begin｜>";
const INVOKE_CLOSE: &str = "</steptml:invoke>";
const CLOSE: &str = "<｜tool_calls_end｜>";

static CLOSES: [Needle; 1] = [Needle::new(CLOSE)];

static TAGS: Tags = Tags {
    format: Format::Step3,
    closes: &CLOSES,
    open_markers: Markers::new(&[OPEN]),
    recover: &[Markers::new(&[INVOKE_CLOSE, CLOSE])],
    invoke: "<steptml:invoke",
    invoke_close: Needle::new(INVOKE_CLOSE),
    parameter: "<steptml:parameter",
    parameter_close: Needle::new("</steptml:parameter>"),
    between: &["<｜tool_call_begin｜>function<｜tool_sep｜>", "<｜tool_call_end｜>"],
};

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &invoke::starts([OPEN], Format::Step3);

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
