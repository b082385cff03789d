//! `minimax_m2` (MiniMax-M2, M2.1, M2.5): `<minimax:tool_call><invoke name="f"><parameter
//! name="a">1</parameter></invoke>…</minimax:tool_call>`, several invokes per block. Values are
//! typed by the tool schema, as in qwen3_coder.

use super::cursor::Markers;
use super::invoke::{self, Tags};
use crate::protocol::Format;
use crate::scan::find::Needle;

const OPEN: &str = "<minimax:tool_call>";
const INVOKE_CLOSE: &str = "</invoke>";
const CLOSE: &str = "</minimax:tool_call>";

static CLOSES: [Needle; 1] = [Needle::new(CLOSE)];

static TAGS: Tags = Tags {
    format: Format::MinimaxM2,
    closes: &CLOSES,
    open_markers: Markers::new(&[OPEN]),
    recover: &[Markers::new(&[INVOKE_CLOSE, CLOSE])],
    invoke: "<invoke",
    invoke_close: Needle::new(INVOKE_CLOSE),
    parameter: "<parameter",
    parameter_close: Needle::new("</parameter>"),
    between: &[],
};

invoke::spec!(TAGS, [OPEN], Format::MinimaxM2);
