//! `kimi_k3` (Moonshot Kimi K3, its XTML channels): `<|open|>tools<|sep|><|open|>call
//! tool="f" index="1"<|sep|><|open|>argument key="a" type="integer"<|sep|>1<|close|>argument<|sep|>
//! <|close|>call<|sep|><|close|>tools<|sep|>`: the invoke shape with XTML tags, several calls per
//! block. A value of `type="string"` is its text as written; any other type is typed by the
//! tool schema, JSON without one. Arguments given whole are a JSON object in a `json` element
//! (`<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>`). The reply's `response` channel markers and the end of the
//! message are control tokens: the reply is content. A marker in the table has no `<` past its
//! first byte, so the channels' markers are their `<|open|>NAME` / `<|close|>NAME` tokens and
//! `<|sep|>` is a token of its own (skipped in the block, a control token outside it).

use super::cursor::Markers;
use super::invoke::{self, Attrs, Tags};
use crate::protocol::Format;
use crate::scan::find::Needle;

const OPEN: &str = "<|open|>tools";
const SEP: &str = "<|sep|>";
const CLOSE: &str = "<|close|>tools<|sep|>";
const CALL_CLOSE: &str = "<|close|>call<|sep|>";

static CLOSES: [Needle; 1] = [Needle::new(CLOSE)];

static TAGS: Tags = Tags {
    format: Format::KimiK3,
    closes: &CLOSES,
    open_markers: Markers::new(&[OPEN]),
    recover: &[Markers::new(&[CALL_CLOSE, CLOSE])],
    // The attributes run to the `>` of `<|sep|>`.
    invoke: "<|open|>call",
    invoke_close: Needle::new(CALL_CLOSE),
    parameter: "<|open|>argument",
    parameter_close: Needle::new("<|close|>argument<|sep|>"),
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
};

invoke::spec!(
    TAGS,
    [OPEN],
    Format::KimiK3,
    control: &["<|open|>response", "<|close|>response", "<|close|>message", "<|end_of_msg|>", SEP]
);
