//! `step3` (StepFun Step-3): `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>
//! <steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter></steptml:invoke>
//! <｜tool_call_end｜><｜tool_calls_end｜>`, several calls per block: the invoke shape, each
//! invoke framed by its call tokens (`function<｜tool_sep｜>` and the tool's name after the begin
//! token may be there or not); an entry of another kind (`thought<｜tool_sep｜>…`) is skipped.
//! Values are typed by the tool schema, as in qwen3_coder.
//! (Step-3.5 writes qwen3_coder's format: `step3p5` is an alias of `qwen3_coder`.)

use super::cursor::Markers;
use super::invoke::quoted::Quoted;
use super::invoke::{self, Tags, XML_ATTRS};
use crate::protocol::Format;
use crate::scan::find::Needle;

const OPEN: &str = "<｜tool_calls_begin｜>";
const INVOKE: &str = "<steptml:invoke";
const INVOKE_CLOSE: &str = "</steptml:invoke>";
const PARAMETER: &str = "<steptml:parameter";
const PARAMETER_CLOSE: &str = "</steptml:parameter>";
const CLOSE: &str = "<｜tool_calls_end｜>";
const SEP: &str = "<｜tool_sep｜>";
const BEGIN: &str = "<｜tool_call_begin｜>";
const END: &str = "<｜tool_call_end｜>";

static CLOSES: [Needle; 1] = [Needle::new(CLOSE)];

static TAGS: Tags = Tags {
    format: Format::Step3,
    closes: &CLOSES,
    open_markers: Markers::new(&[OPEN]),
    recover: &[Markers::new(&[INVOKE_CLOSE, CLOSE])],
    invoke: INVOKE,
    invoke_close: Needle::new(INVOKE_CLOSE),
    parameter: PARAMETER,
    parameter_close: Needle::new(PARAMETER_CLOSE),
    parameter_ends_value: false,
    quoted: Some(&QUOTED),
    // The call's tokens as Step-3's template writes them, and as vLLM's tests spell them: the
    // begin token alone, the separator alone between calls, the tool's name after it.
    // (No token is a prefix of another: a stream cut after one decides as the whole text.)
    between: &[BEGIN, "function<｜tool_sep｜>", SEP, END],
    between_name: Some(SEP),
    // SGLang's compatibility tests: a `thought` entry before the call.
    other_entry: Some((BEGIN, SEP, END)),
    json_body: None,
    attrs: XML_ATTRS,
    left_open: None,
};

/// A value may quote a whole block or invoke (`invoke::quoted`).
static QUOTED: Quoted = Quoted::new(
&[
        PARAMETER_CLOSE,
        PARAMETER,
        OPEN,
        "<steptml:invoke ",
        CLOSE,
        INVOKE_CLOSE,
    ],
2,
);

invoke::spec!(TAGS, [OPEN], Format::Step3);
