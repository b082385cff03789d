//! `longcat` (Meituan LongCat-Flash): hermes's JSON call in `<longcat_tool_call>…
//! </longcat_tool_call>`, one call (or a JSON list of calls) per tag; or, as its later chat
//! templates write it, glm45's name and pairs spelled with LongCat's tags:
//! `<longcat_tool_call>f\n<longcat_arg_key>a</longcat_arg_key>\n<longcat_arg_value>1
//! </longcat_arg_value></longcat_tool_call>`, values typed as glm45's.

use super::tool_call::tags::{Body, Pairs, Wrap};
use super::tool_call;
use crate::protocol::{Format, FormatSet};
use super::cursor::{DenseSearcher, Markers};

const OPEN: &str = "<longcat_tool_call>";
const CLOSE: &str = "</longcat_tool_call>";

static PAIRS: Pairs = Pairs::new(
    "<longcat_arg_key>",
    "</longcat_arg_key>",
    "<longcat_arg_value>",
    "</longcat_arg_value>",
);

static WRAP: Wrap = Wrap {
    format: Format::Longcat,
    ends: Markers::new(&[CLOSE, OPEN]),
    ends_searcher: DenseSearcher::new(),
    body: Body::ArgPairs,
    pairs: &PAIRS,
    answer_of: FormatSet::NONE,
};

tool_call::wrapped_spec!(WRAP, OPEN, Format::Longcat);
