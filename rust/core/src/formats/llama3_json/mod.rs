//! `llama3_json`: `{"name": "f", "parameters": {…}}`, optionally after `<|python_tag|>`,
//! several joined by `;` (or, after the tag, in one JSON list); an object after a call with a
//! `,`, blank space, a line break or nothing between is another call when it is one. After the tag, a Python call is one of Llama 3's built-in tools,
//! `brave_search.call(query="x")`, named without its `.call` (read as pythonic calls, one a
//! line, up to a `<`), and anything else is raw code for the code interpreter, up to the end of
//! the message (its end token, or the end of the text): the call `python` with `{"code": …}`,
//! as llama.cpp reads Functionary v3.1's `<|python_tag|>`.
//!
//! After `<|python_tag|>` every object must be a call (anything else is an error). Without the
//! tag, only a message that *starts* with a call object spelled the Llama 3 way (`"name"` and
//! `"parameters"`, or `"arguments"` as Llama 3 also writes it) is read (never JSON in the middle of prose, as raw JSON decides); a message
//! that starts with other JSON is left to raw JSON. A message that is only a call object (or
//! list) in a Markdown fence, or that begins as one and breaks, is read as hermes reads such a
//! message ([`Grammar::WHOLE_JSON`]): the call, or an `InvalidToolCall` keeping the text.

mod decode;
mod machine;

pub(crate) use decode::calls_of;
pub(crate) use machine::LlamaCall;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Bare, Grammar, Open, Start};
use super::tool_call::tags::is_call_object;
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

const PYTHON_TAG: &str = "<|python_tag|>";
/// The suffix of a built-in tool's name in its call (`brave_search.call(query="x")`).
const CALL_SUFFIX: &str = ".call";

/// Llama 3's and Llama 4's end of turn and end of message (after a call): they also end raw
/// code.
const END_TOKENS: &[&str] = &["<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "<|eot|>", "<|eom|>"];

/// What follows `<|python_tag|>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tagged {
    /// `;`-joined call objects.
    Json,
    /// A built-in tool's call, `brave_search.call(query="x")`.
    Builtin,
    /// Anything else: raw code.
    Code,
}

/// What the body at `at` (past whitespace) is; `None` while more bytes may tell (the name of a
/// built-in call and its `(` are not all there).
pub(crate) fn tagged_body(b: &[u8], at: usize) -> Option<Tagged> {
    let &first = b.get(at)?;
    if first == b'{' {
        return Some(Tagged::Json);
    }
    // A list of call objects (`[{"name": …}, …]`, as Llama 3.2 writes several calls) is no
    // code: nothing runs a list literal.
    if first == b'[' {
        return Some(match is_call_object(b, at)? {
            true => Tagged::Json,
            false => Tagged::Code,
        });
    }
    if first != b'_' && !first.is_ascii_alphabetic() {
        return Some(Tagged::Code);
    }
    let is_name = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.');
    let name_end = at + b[at..].iter().position(|c| !is_name(c))?;
    if !b[at..name_end].ends_with(CALL_SUFFIX.as_bytes()) {
        return Some(Tagged::Code);
    }
    let paren = name_end + b[name_end..].iter().position(|&c| c != b' ' && c != b'\t')?;
    Some(if b[paren] == b'(' { Tagged::Builtin } else { Tagged::Code })
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
    /// Llama 3.2 wraps its call object in a ```` ```json ```` fence at times
    /// (ollama/ollama#13519): a message that is only that fence is the call.
    const WHOLE_JSON: FormatSet = FormatSet::only(Format::Llama3Json);

    const CONTROL: &'static [&'static str] = END_TOKENS;
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
