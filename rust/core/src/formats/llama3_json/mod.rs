//! `llama3_json`: `{"name": "f", "parameters": {…}}`, optionally after `<|python_tag|>`,
//! several joined by `;`. After the tag, a Python call is one of Llama 3's built-in tools,
//! `brave_search.call(query="x")`, named without its `.call` (read as pythonic calls, one a
//! line, up to a `<`).
//!
//! After `<|python_tag|>` every object must be a call (anything else is an error). Without the
//! tag, only a message that *starts* with a call object spelled the Llama 3 way (`"name"` and
//! `"parameters"`) is read (never JSON in the middle of prose, as raw JSON decides); a message
//! that starts with other JSON is left to raw JSON.

mod decode;
mod machine;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Bare, Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

const PYTHON_TAG: &str = "<|python_tag|>";
/// The suffix of a built-in tool's name in its call (`brave_search.call(query="x")`).
const CALL_SUFFIX: &str = ".call";

/// Whether a body that starts with `first` after the tag is a built-in tool call (a Python
/// call, `brave_search.call(query="x")`) rather than JSON objects.
fn is_builtin_start(first: u8) -> bool {
    first == b'_' || first.is_ascii_alphabetic()
}

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[Start {
        text: PYTHON_TAG,
        formats: FormatSet::only(Format::Llama3Json),
    }];
    const BARE: Option<Bare> = Some(Bare {
        first: b'{',
        formats: FormatSet::only(Format::Llama3Json),
    });

    /// Llama 3's and Llama 4's end of turn and end of message (after a call).
    const CONTROL: &'static [&'static str] =
        &["<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "<|eot|>", "<|eom|>"];
    type Machine = machine::LlamaCall;

    fn open(start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        machine::LlamaCall::new(start.is_none(), at, open)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        decode::parse_region(cx, range)
    }
}
