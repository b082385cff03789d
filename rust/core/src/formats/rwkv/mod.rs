//! `rwkv` (RWKV-7 "Goose" chat models): each call is a line `**Tool Call:**` and a ```` ```json ````
//! fence holding one `{"name": …, "arguments": …}` object, as RWKV's chat template writes it:
//!
//! ````text
//! Checking.
//! **Tool Call:**
//! ```json
//! {"name": "get_weather", "arguments": {"city": "Paris"}}
//! ```
//! ````
//!
//! The label opens a call at the start of any line ([`Grammar::AT_LINES`]; in the middle of a
//! line it is prose), with the fence on the next line or on the same one. The object is read as
//! a call list of one (`json_list`'s grammar, up to the closing fence). RWKV's earlier spelling,
//! `<tool_call>` and the call object on a line, is read by [`legacy`].

pub(crate) mod legacy;

use std::ops::Range;

use super::cursor::Markers;
use super::cx::{skip_ws, Cx};
use super::grammar::{Grammar, Open, Start};
use super::json_list::{self, ListCall, Shape, Wrap};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};
use crate::scan::find::Needle;

/// The label and its fence, on two lines or on one.
const LABELS: [&str; 2] = ["**Tool Call:**\n```json", "**Tool Call:** ```json"];
static FENCE_END: Needle = Needle::new("```");
static CALL: Wrap = json_list::wrap(Format::Rwkv, Some(&FENCE_END), Shape::Named);
static MARKERS: Markers = Markers::new(&LABELS);

const fn label(text: &'static str) -> Start {
    Start {
        text,
        formats: FormatSet::only(Format::Rwkv),
    }
}

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[label(LABELS[0]), label(LABELS[1])];
    const AT_LINES: bool = true;

    type Machine = ListCall;

    fn open(_start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        ListCall::new(&CALL, at, open)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let (text, end) = (cx.text, range.end);
        cx.markup_in_prose(range, &MARKERS, |cx, marker| {
            let body = skip_ws(text, marker.end, end);
            json_list::one_list(cx, &CALL, marker.start..body, end)
        })
    }
}
