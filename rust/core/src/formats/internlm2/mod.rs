//! `internlm2` (InternLM2, InternLM2.5): hermes's JSON call (`"parameters"` or `"arguments"`)
//! in `<|action_start|><|plugin|>…<|action_end|>`, one call per action. `<|plugin|>` (the tool
//! channel) opens the call; `<|action_start|>` before it is a control token, never content.

use super::tool_call::tags::{Body, Wrap, GLM_PAIRS};
use super::tool_call;
use crate::protocol::{Format, FormatSet};
use super::cursor::{DenseSearcher, Markers};

const ACTION_START: &str = "<|action_start|>";
const OPEN: &str = "<|plugin|>";
const CLOSE: &str = "<|action_end|>";

static WRAP: Wrap = Wrap {
    format: Format::Internlm2,
    // The next call opens with `<|action_start|>`.
    ends: Markers::new(&[CLOSE, ACTION_START, OPEN]),
    ends_searcher: DenseSearcher::new(),
    body: Body::Json,
    pairs: &GLM_PAIRS,
    answer_of: FormatSet::NONE,
};

tool_call::wrapped_spec!(WRAP, OPEN, Format::Internlm2, &[ACTION_START]);
