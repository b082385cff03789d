//! `seed_oss` (ByteDance Seed-OSS): qwen3_coder's `<function=f><parameter=a>1</parameter>
//! </function>` body in `<seed:tool_call>…</seed:tool_call>`, one call per tag. Values are typed
//! by the tool schema, as in qwen3_coder. Seed's `<seed:think>` reasoning is not a think span:
//! it stays in `content`, and a call written inside it is read.

use std::ops::Range;

use super::cursor::Markers;
use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use super::tool_call::decode::parse_wrapped;
use super::tool_call::machine::TagCall;
use super::tool_call::tags::{Body, Wrap};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};
use crate::scan::find::Needle;

const OPEN: &str = "<seed:tool_call>";
const CLOSE: &str = "</seed:tool_call>";

static WRAP: Wrap = Wrap {
    format: Format::SeedOss,
    close: CLOSE,
    close_needle: Needle::new(CLOSE),
    body: Body::Function,
};

static OPENS: Markers = Markers::new(&[OPEN]);

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[Start {
        text: OPEN,
        formats: FormatSet::only(Format::SeedOss),
    }];

    type Machine = TagCall;

    fn open(_start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        TagCall::new(Some(&WRAP), at, open)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        parse_wrapped(cx, range, &WRAP, &OPENS)
    }
}
