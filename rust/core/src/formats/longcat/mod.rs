//! `longcat` (Meituan LongCat-Flash): hermes's JSON call in `<longcat_tool_call>…
//! </longcat_tool_call>`, one call (or a JSON list of calls) per tag.

use super::tool_call::tags::{Body, Wrap};
use super::tool_call;
use crate::protocol::{Format, FormatSet};
use super::cursor::Markers;

const OPEN: &str = "<longcat_tool_call>";
const CLOSE: &str = "</longcat_tool_call>";

static WRAP: Wrap = Wrap {
    format: Format::Longcat,
    ends: Markers::new(&[CLOSE, OPEN]),
    body: Body::Json,
    answer_of: FormatSet::NONE,
};

tool_call::wrapped_spec!(WRAP, OPEN, Format::Longcat);
