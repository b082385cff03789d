//! `hy_v4` (Tencent HY v4 checkpoints whose structural tokens carry a suffix):
//! `<tool_calls:6124c78e><tool_call:6124c78e>f<arg_key:6124c78e>a</arg_key:6124c78e>
//! <arg_value:6124c78e>1</arg_value:6124c78e></tool_call:6124c78e></tool_calls:6124c78e>`.
//! HY v3's calls (glm45's shape, `<tool_sep>` optional), every tag with the checkpoint's
//! suffix: a `:` and the bytes up to `>`, read from the block's opening tag and required on
//! every tag after it (Hy3's `:opensource` checkpoints write `f<tool_sep:opensource>`, HY v4's
//! none). Values are typed by the tool schema, as in glm45. Unsuffixed tokens are HY v3's
//! wire format (`<tool_calls>`, read by the call-list group).
//!
//! Hy3's preview chat template writes calls with no block around them, each closed by its own
//! token and its arguments one JSON object (or the key/value pairs):
//! `<tool_call:opensource>f<tool_sep:opensource>{"a": 1}<end_of_tool_call:opensource>`.

pub(crate) mod decode;
pub(crate) mod machine;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};
use crate::scan::find::find_short;
use crate::scan::think::suffix_len;

/// The opening tag of a block, up to its suffix.
const OPEN: &str = "<tool_calls:";
/// The opening tag of a call written alone (Hy3), up to its suffix.
const OPEN_CALL: &str = "<tool_call:";

/// The tags of a block of glm45-shaped calls whose tokens are spelt another way: one HY v4
/// checkpoint's, each with its suffix, or K2 Horizon's `<ifm|…>` tokens.
pub(crate) struct Tags {
    pub close_all: String,
    pub call: String,
    pub call_close: String,
    /// The optional separator between a call's name and its arguments (HY's `<tool_sep>`).
    pub sep: Option<String>,
    pub key: String,
    pub key_close: String,
    /// An optional type tag between a key and its value (K2 Horizon's `<ifm|arg_type>`).
    pub arg_type: Option<(String, String)>,
    pub value: String,
    pub value_close: String,
    /// The format whose calls these are.
    pub format: Format,
    /// A call's body may be a JSON call object instead of a name and arguments (K2 Horizon).
    pub json_bodies: bool,
    /// A call's arguments may be one JSON object after its name (and separator), as HY v3's
    /// may (Hy3's lone calls write them so).
    pub json_arguments: bool,
}

impl Tags {
    /// The tags `tag` spells (`tag("tool_call")`, `tag("/tool_call")`) for `format`; `ifm`:
    /// with K2 Horizon's type tags and JSON bodies.
    pub fn spelt(format: Format, tag: impl Fn(&str) -> String, ifm: bool) -> Tags {
        Tags {
            close_all: tag("/tool_calls"),
            call: tag("tool_call"),
            call_close: tag("/tool_call"),
            sep: (!ifm).then(|| tag("tool_sep")),
            key: tag("arg_key"),
            key_close: tag("/arg_key"),
            arg_type: ifm.then(|| (tag("arg_type"), tag("/arg_type"))),
            value: tag("arg_value"),
            value_close: tag("/arg_value"),
            format,
            json_bodies: ifm,
            json_arguments: false,
        }
    }

    /// The tags of the block whose `<tool_calls:` (or, `lone`, the call whose `<tool_call:`)
    /// ends at `at` in `b`, and where its body starts: the suffix runs to the first `>`.
    /// `Ok(None)` while more bytes may tell; `Err(())` when what follows is no suffix (empty,
    /// spaced, or too long).
    pub fn read(b: &[u8], at: usize, lone: bool) -> Result<Option<(Tags, usize)>, ()> {
        let rest = &b[at.min(b.len())..];
        match suffix_len(rest)? {
            None => Ok(None),
            Some(len) => {
                let suffix = std::str::from_utf8(&rest[..len]).map_err(|_| ())?;
                let mut tags =
                    Tags::spelt(Format::HyV4, |name| format!("<{name}:{suffix}>"), false);
                tags.json_arguments = true;
                if lone {
                    tags.call_close = format!("<end_of_tool_call:{suffix}>");
                }
                Ok(Some((tags, at + len + 1)))
            }
        }
    }

    /// Whether a region that starts with `text` is a lone call's.
    pub fn lone(text: &str) -> bool {
        text.starts_with(OPEN_CALL)
    }
}

/// The first `tag` in `b[from..]`, as an offset in `b`.
pub(crate) fn find_tag(b: &[u8], tag: &str, from: usize) -> Option<usize> {
    find_short(&b[from.min(b.len())..], tag.as_bytes()).map(|i| from + i)
}

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[
        Start {
            text: OPEN,
            formats: FormatSet::only(Format::HyV4),
        },
        Start {
            text: OPEN_CALL,
            formats: FormatSet::only(Format::HyV4),
        },
    ];

    type Machine = machine::Block;

    fn open(start: Option<usize>, at: usize, _open: Open) -> Self::Machine {
        machine::Block::new(at, start == Some(1))
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        decode::parse_region(cx, range)
    }
}
