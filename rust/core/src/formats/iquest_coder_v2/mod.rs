//! `iquest_coder_v2` (IQuest-Coder v2): glm45's body in `<iquestcoder_tool_call>…
//! </iquestcoder_tool_call>`, one call per tag: `<iquestcoder_tool_call>f<arg_key>a</arg_key>
//! <arg_value>1</arg_value></iquestcoder_tool_call>`. Values are typed as glm45's.

use super::tool_call::tags::{Body, Wrap, GLM_PAIRS};
use super::tool_call;
use crate::protocol::{Format, FormatSet};
use super::cursor::{DenseSearcher, Markers};

const OPEN: &str = "<iquestcoder_tool_call>";
const CLOSE: &str = "</iquestcoder_tool_call>";

static WRAP: Wrap = Wrap {
    format: Format::IquestCoderV2,
    ends: Markers::new(&[CLOSE, OPEN]),
    ends_searcher: DenseSearcher::new(),
    body: Body::ArgPairs,
    pairs: &GLM_PAIRS,
    answer_of: FormatSet::NONE,
};

tool_call::wrapped_spec!(WRAP, OPEN, Format::IquestCoderV2);
