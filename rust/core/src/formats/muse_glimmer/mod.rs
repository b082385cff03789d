//! `muse_glimmer` (Muse Glimmer's ATEM blocks): `<atem:function_calls><atem:invoke name="f">
//! <atem:parameter name="a">1</atem:parameter></atem:invoke></atem:function_calls>`, several
//! invokes per block. Values are typed by the tool schema (without one, JSON when valid, else
//! the text), as in qwen3_coder. The channel framing around the block (`to=…<|message|>` …
//! `<|eom|>`) is prose.

use super::cursor::Markers;
use super::invoke::{self, Tags};
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

invoke::spec!(TAGS, [OPEN], Format::MuseGlimmer);
