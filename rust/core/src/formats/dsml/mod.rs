//! `deepseek_dsml` (DeepSeek V3.2, V4 and V4.1): `<｜DSML｜function_calls><｜DSML｜invoke name="f">
//! <｜DSML｜parameter name="a" string="false">1</｜DSML｜parameter></｜DSML｜invoke>
//! </｜DSML｜function_calls>` (V4 names the block `tool_calls`; V4.1 names it ` calls` and
//! writes a space after the DSML token in every tag: `<｜DSML｜ calls><｜DSML｜ invoke name="f">`;
//! a block is read in the spelling its opening tag has). `string="true"` keeps a value's
//! text (unless the tool schema allows no string there: then the schema types it),
//! `string="false"` decodes it as JSON (typed by the tool schema when one is given); an invoke
//! may hold a JSON object instead of parameters. Invokes written with no wrapper (V4 often
//! opens a call with a bare `<｜DSML｜invoke`, V4.1 with a bare `<｜DSML｜ invoke`) are read as a
//! run of calls. A parameter tag inside a value begins the next parameter (the value's closing
//! tag left out: DSML tags are special tokens), unless the value quotes a whole block or invoke
//! (a file documenting the call syntax): that markup, closes and all, is the value's text
//! ([`invoke::quoted`]).

use super::cursor::Markers;
use super::deepseek::END_OF_SENTENCE;
use super::invoke::quoted::Quoted;
use super::invoke::{self, Tags, XML_ATTRS};
use crate::protocol::Format;
use crate::scan::find::Needle;

const FUNCTION_CALLS: &str = "<｜DSML｜function_calls>";
const TOOL_CALLS: &str = "<｜DSML｜tool_calls>";
const FUNCTION_CALLS_CLOSE: &str = "</｜DSML｜function_calls>";
const TOOL_CALLS_CLOSE: &str = "</｜DSML｜tool_calls>";
const INVOKE: &str = "<｜DSML｜invoke";
const INVOKE_CLOSE: &str = "</｜DSML｜invoke>";
const PARAMETER: &str = "<｜DSML｜parameter";
const PARAMETER_CLOSE: &str = "</｜DSML｜parameter>";

static CLOSES: [Needle; 2] = [
    Needle::new(FUNCTION_CALLS_CLOSE),
    Needle::new(TOOL_CALLS_CLOSE),
];

static TAGS: Tags = Tags {
    format: Format::DeepseekDsml,
    closes: &CLOSES,
    // The last marker opens a run of bare invokes, which has no closing tag.
    open_markers: Markers::new(&[FUNCTION_CALLS, TOOL_CALLS, INVOKE]),
    recover: &[
        Markers::new(&[INVOKE_CLOSE, FUNCTION_CALLS_CLOSE]),
        Markers::new(&[INVOKE_CLOSE, TOOL_CALLS_CLOSE]),
        Markers::new(&[INVOKE_CLOSE]),
    ],
    invoke: INVOKE,
    invoke_close: Needle::new(INVOKE_CLOSE),
    parameter: PARAMETER,
    parameter_close: Needle::new(PARAMETER_CLOSE),
    parameter_ends_value: true,
    quoted: Some(&QUOTED),
    between: &[],
    between_name: None,
    other_entry: None,
    json_body: None,
    attrs: XML_ATTRS,
    left_open: None,
};

const CALLS: &str = "<｜DSML｜ calls>";
const CALLS_CLOSE: &str = "</｜DSML｜ calls>";
const SPACED_INVOKE: &str = "<｜DSML｜ invoke";
const SPACED_INVOKE_CLOSE: &str = "</｜DSML｜ invoke>";
const SPACED_PARAMETER: &str = "<｜DSML｜ parameter";
const SPACED_PARAMETER_CLOSE: &str = "</｜DSML｜ parameter>";

static SPACED_CLOSES: [Needle; 1] = [Needle::new(CALLS_CLOSE)];

/// V4.1's spelling.
static SPACED: Tags = Tags {
    format: Format::DeepseekDsml,
    closes: &SPACED_CLOSES,
    // As V4's: the last marker opens a run of bare invokes (Dynamo's V4.1 tests write them).
    open_markers: Markers::new(&[CALLS, SPACED_INVOKE]),
    recover: &[
        Markers::new(&[SPACED_INVOKE_CLOSE, CALLS_CLOSE]),
        Markers::new(&[SPACED_INVOKE_CLOSE]),
    ],
    invoke: SPACED_INVOKE,
    invoke_close: Needle::new(SPACED_INVOKE_CLOSE),
    parameter: SPACED_PARAMETER,
    parameter_close: Needle::new(SPACED_PARAMETER_CLOSE),
    parameter_ends_value: true,
    quoted: Some(&SPACED_QUOTED),
    between: &[],
    between_name: None,
    other_entry: None,
    json_body: None,
    attrs: XML_ATTRS,
    left_open: None,
};

/// A value may quote DSML markup whole, in either spelling (a file that documents the call
/// syntax, the shape Dynamo saw V4.1 write): the opening tags, then the closing tags.
macro_rules! quoted {
    ($parameter_close:expr, $parameter:expr) => {
        Quoted::new(
&[
                $parameter_close,
                $parameter,
                FUNCTION_CALLS,
                TOOL_CALLS,
                INVOKE,
                CALLS,
                SPACED_INVOKE,
                FUNCTION_CALLS_CLOSE,
                TOOL_CALLS_CLOSE,
                INVOKE_CLOSE,
                CALLS_CLOSE,
                SPACED_INVOKE_CLOSE,
            ],
5,
)
    };
}

static QUOTED: Quoted = quoted!(PARAMETER_CLOSE, PARAMETER);
static SPACED_QUOTED: Quoted = quoted!(SPACED_PARAMETER_CLOSE, SPACED_PARAMETER);

// A block's closing tag that closes no block is a control token, as the other invoke formats'
// stray wrappers are (the SGLang gateway's DSML streaming tests), and so is DeepSeek's
// end-of-sentence token after the block (vLLM-Ascend's DeepSeek V4.1 tests).
invoke::spec!(
    spellings: [TAGS, SPACED],
    [FUNCTION_CALLS, TOOL_CALLS, INVOKE, CALLS, SPACED_INVOKE],
    Format::DeepseekDsml,
    control: &[FUNCTION_CALLS_CLOSE, TOOL_CALLS_CLOSE, CALLS_CLOSE, END_OF_SENTENCE]
);

#[cfg(test)]
mod tests {
    use super::super::grammar::Grammar;
    use super::{Spec, SPACED, TAGS};

    #[test]
    fn the_starts_are_the_spellings_markers_in_order() {
        let markers = [TAGS.open_markers.patterns(), SPACED.open_markers.patterns()].concat();
        let starts: Vec<_> = Spec::STARTS.iter().map(|start| start.text).collect();
        assert_eq!(starts, markers);
    }
}
