//! `internlm2` (InternLM2, InternLM2.5): hermes's JSON call (`"parameters"` or `"arguments"`)
//! in `<|action_start|><|plugin|>…<|action_end|>`, one call per action. `<|plugin|>` (the tool
//! channel) opens the call; `<|action_start|>` before it is a control token, never content.

use super::tool_call::tags::{Body, Wrap};
use super::tool_call;
use crate::protocol::{Format, FormatSet};
use crate::scan::find::Needle;

const OPEN: &str = "<|plugin|>";
const CLOSE: &str = "<|action_end|>";

static WRAP: Wrap = Wrap {
    format: Format::Internlm2,
    close: CLOSE,
    close_needle: Needle::new(CLOSE),
    body: Body::Json,
    answer_of: FormatSet::NONE,
};

tool_call::wrapped_spec!(WRAP, OPEN, Format::Internlm2, &["<|action_start|>"]);
