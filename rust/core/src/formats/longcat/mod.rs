//! `longcat` (Meituan LongCat-Flash): hermes's JSON call in `<longcat_tool_call>…
//! </longcat_tool_call>`, one call (or a JSON list of calls) per tag.

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

const OPEN: &str = "<longcat_tool_call>";
const CLOSE: &str = "</longcat_tool_call>";

static WRAP: Wrap = Wrap {
    format: Format::Longcat,
    close: CLOSE,
    close_needle: Needle::new(CLOSE),
    body: Body::Json,
};

static OPENS: Markers = Markers::new(&[OPEN]);

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[Start {
        text: OPEN,
        formats: FormatSet::only(Format::Longcat),
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
