//! `kimi_k3` (Moonshot Kimi K3, its XTML channels): `<|open|>tools<|sep|><|open|>call
//! tool="f" index="1"<|sep|><|open|>argument key="a" type="integer"<|sep|>1<|close|>argument<|sep|>
//! <|close|>call<|sep|><|close|>tools<|sep|>`: the invoke shape with XTML tags, several calls per
//! block. A value of `type="string"` is its text as written; any other type is typed by the
//! tool schema, JSON without one. Arguments given whole are a JSON object in a `json` element
//! (`<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>`). The reply's `response` channel markers and the end of the
//! message are control tokens: the reply is content (the channel markers also as a detokenizer
//! that puts spaces between special tokens writes them, `<|open|> response <|sep|>`). A marker in the table has no `<` past its
//! first byte, so the channels' markers are their `<|open|>NAME` / `<|close|>NAME` tokens and
//! `<|sep|>` is a token of its own (skipped in the block, a control token outside it).
//!
//! The tags are special tokens, so a close the model left out is read where the template's
//! other tokens show it ([`LeftOpen`]): a value ends at the first closing tag (its own, the
//! call's, the block's, the reply's or the message's) that another tag or the end follows (one
//! followed by text is the value's own: a command that quotes it); a call or block ends before
//! the next call, a new block, a think channel, the reply's or the message's close. Prose after
//! a call ends a block left open, and calls written with no block around them (after that prose
//! or a think channel) are read as a run of calls, whose stray block close is a control token.
//! A broken call, or markup in a block that is not a call, ends past its own close or before
//! those tags: it fails alone, and the next call is read.

use super::cursor::Markers;
use super::invoke::{self, Attrs, LeftOpen, Tags};
use crate::protocol::Format;
use crate::scan::find::Needle;

const OPEN: &str = "<|open|>tools";
const SEP: &str = "<|sep|>";
const CLOSE: &str = "<|close|>tools<|sep|>";
const CALL: &str = "<|open|>call";
const CALL_CLOSE: &str = "<|close|>call<|sep|>";
const ARGUMENT_CLOSE: &str = "<|close|>argument<|sep|>";
/// The tokens that stand only outside a block (its own opening among them: a new block).
const OUTSIDE: [&str; 6] = [
    OPEN,
    "<|open|>think",
    "<|open|>response",
    "<|close|>response",
    "<|close|>message",
    "<|end_of_msg|>",
];

static CLOSES: [Needle; 1] = [Needle::new(CLOSE)];

static LEFT_OPEN: LeftOpen = LeftOpen {
    ends: &OUTSIDE,
    value_ends: Markers::new(&[
        ARGUMENT_CLOSE,
        CALL_CLOSE,
        CLOSE,
        OUTSIDE[3],
        OUTSIDE[4],
        OUTSIDE[5],
    ]),
    broken_ends: Markers::new(&[
        CALL_CLOSE,
        CALL,
        CLOSE,
        OUTSIDE[0],
        OUTSIDE[1],
        OUTSIDE[2],
        OUTSIDE[3],
        OUTSIDE[4],
        OUTSIDE[5],
    ]),
    sep: SEP,
    tag: "<|",
};

static TAGS: Tags = Tags {
    format: Format::KimiK3,
    closes: &CLOSES,
    // The last marker opens a run of calls written with no block, which has no closing tag.
    open_markers: Markers::new(&[OPEN, CALL]),
    // A broken call ends at `LEFT_OPEN.broken_ends`.
    recover: &[],
    // The attributes run to the `>` of `<|sep|>`.
    invoke: CALL,
    invoke_close: Needle::new(CALL_CLOSE),
    parameter: "<|open|>argument",
    parameter_close: Needle::new(ARGUMENT_CLOSE),
    parameter_ends_value: false,
    quoted: None,
    // The `<|sep|>` of the block's opening.
    between: &[SEP],
    between_name: None,
    other_entry: None,
    json_body: Some(("<|open|>json", "<|close|>json<|sep|>")),
    attrs: Attrs {
        tool: "tool",
        key: "key",
        text: ("type", "string"),
        escaped: true,
        doubled_names: false,
    },
    left_open: Some(&LEFT_OPEN),
};

invoke::spec!(
    TAGS,
    [OPEN, CALL],
    Format::KimiK3,
    control: &[
        "<|open|>response",
        "<|close|>response",
        // As a detokenizer that puts spaces between special tokens writes them.
        "<|open|> response",
        "<|close|> response",
        "<|close|>message",
        "<|end_of_msg|>",
        "<|close|>tools",
        SEP
    ]
);
