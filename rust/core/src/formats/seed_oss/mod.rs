//! `seed_oss` (ByteDance Seed-OSS): qwen3_coder's `<function=f><parameter=a>1</parameter>
//! </function>` body in `<seed:tool_call>…</seed:tool_call>`, one call per tag. Values are typed
//! by the tool schema, as in qwen3_coder. Seed's `<seed:think>` reasoning is not a think span:
//! it stays in `content`, and a call written inside it is read.

use super::tool_call::tags::{Body, Wrap, GLM_PAIRS};
use super::tool_call;
use crate::protocol::{Format, FormatSet};
use super::cursor::{DenseSearcher, Markers};

const OPEN: &str = "<seed:tool_call>";
const CLOSE: &str = "</seed:tool_call>";

static WRAP: Wrap = Wrap {
    format: Format::SeedOss,
    ends: Markers::new(&[CLOSE, OPEN]),
    ends_searcher: DenseSearcher::new(),
    body: Body::Function,
    pairs: &GLM_PAIRS,
    answer_of: FormatSet::NONE,
};

tool_call::wrapped_spec!(WRAP, OPEN, Format::SeedOss);
