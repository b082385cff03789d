//! `iquest_q1` (IQuest Q1): glm45's body in `<iquest_tool_call>…</iquest_tool_call>`, one call
//! per tag: `<iquest_tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value>
//! </iquest_tool_call>`. Values are typed as glm45's. Its end of turn `<|iquest_end|>` is a
//! control token, never content.

use super::tool_call::tags::{Body, Wrap, GLM_PAIRS};
use super::tool_call;
use crate::protocol::{Format, FormatSet};
use super::cursor::{DenseSearcher, Markers};

const OPEN: &str = "<iquest_tool_call>";
const CLOSE: &str = "</iquest_tool_call>";

static WRAP: Wrap = Wrap {
    format: Format::IquestQ1,
    ends: Markers::new(&[CLOSE, OPEN]),
    ends_searcher: DenseSearcher::new(),
    body: Body::ArgPairs,
    pairs: &GLM_PAIRS,
    answer_of: FormatSet::NONE,
};

tool_call::wrapped_spec!(WRAP, OPEN, Format::IquestQ1, &["<|iquest_end|>"]);
