//! `minimax_m3` (MiniMax-M3): every tag behind the namespace token `]<]minimax[>[`, and the
//! arguments as elements named by their keys, nested for objects and lists:
//! `]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="f">]<]minimax[>[<a>1]<]minimax[>[</a>
//! ]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>`, several invokes per block, or invokes
//! written with the block's tags left out (a run of bare invokes, as DeepSeek V4 writes). The
//! block's marker is found at its first `<` (`markers::lead_len`). The stream machine is the
//! invoke shape's (an invoke's body runs to its closing tag); [`decode`] reads the elements.

mod decode;

use super::cursor::Markers;
use super::invoke::{self, Tags, XML_ATTRS};
use crate::protocol::Format;
use crate::scan::find::Needle;

/// The namespace token before every tag.
const NS: &str = "]<]minimax[>[";
const OPEN: &str = "]<]minimax[>[<tool_call>";
const CLOSE: &str = "]<]minimax[>[</tool_call>";
const INVOKE: &str = "]<]minimax[>[<invoke";
const INVOKE_CLOSE: &str = "]<]minimax[>[</invoke>";

static CLOSES: [Needle; 1] = [Needle::new(CLOSE)];

static TAGS: Tags = Tags {
    format: Format::MinimaxM3,
    // The last marker opens a run of bare invokes (the block's tag left out), which has no
    // closing tag.
    open_markers: Markers::new(&[OPEN, INVOKE]),
    closes: &CLOSES,
    recover: &[
        Markers::new(&[INVOKE_CLOSE, CLOSE]),
        Markers::new(&[INVOKE_CLOSE]),
    ],
    invoke: INVOKE,
    invoke_close: Needle::new(INVOKE_CLOSE),
    // The body is elements, not parameters: the machine seeks the invoke's closing tag.
    parameter: "",
    parameter_close: Needle::new(INVOKE_CLOSE),
    parameter_ends_value: false,
    quoted: None,
    between: &[],
    between_name: None,
    other_entry: None,
    json_body: None,
    attrs: XML_ATTRS,
    left_open: None,
};

super::grammar::spec!(
    starts: &invoke::starts([OPEN, INVOKE], Format::MinimaxM3),
    // A closing tag that closes nothing (a block's, as DSML's, or an invoke's written twice) is
    // a control token: behind the namespace token it is the model's markup, never prose.
    control: &[CLOSE, INVOKE_CLOSE],
    machine: invoke::machine::InvokeBlock,
    open: |start, at, open| Self::Machine::new(&TAGS, start.unwrap_or(0), at, open),
    decode: |cx, range| decode::parse_region(cx, range, &TAGS),
);
