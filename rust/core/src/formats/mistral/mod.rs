//! `mistral`: `[TOOL_CALLS][{"name": …, "arguments": …}, …]` (before v11) and, per call,
//! `[TOOL_CALLS]f[ARGS]{…}` or `[TOOL_CALLS]f[CALL_ID]abc123XYZ[ARGS]{…}` (v11 and later), also
//! with the `[ARGS]` token dropped in decoding (`[TOOL_CALLS]f{…}`, as vLLM's tests write it).
//! The model's `[CALL_ID]` (or a pre-v11 `"id"`) is kept. A v11 call written right after
//! another's arguments, without its `[TOOL_CALLS]` (`a[ARGS]{…}b[ARGS]{…}`), is the next call:
//! only a name and the `[ARGS]` or `[CALL_ID]` token, nothing else, continue the region. A
//! message that is only the JSON call list, its `[TOOL_CALLS]` decoded away, is read too.

mod decode;
mod machine;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};
use crate::scan::find::Needle;

const TOOL_CALLS: &str = "[TOOL_CALLS]";
static TOOL_CALLS_NEEDLE: Needle = Needle::new(TOOL_CALLS);
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";

/// The end of the name of a v11 call that starts at `at` right after a call's arguments (its
/// `[TOOL_CALLS]` left out): `Ok(Some(end))` when a name and `[ARGS]` or `[CALL_ID]` are there,
/// `Ok(None)` when anything else is, `Err(())` while `b` may still grow into one.
fn next_call_name(b: &[u8], at: usize) -> Result<Option<usize>, ()> {
    let len = b[at..]
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        .count();
    let name_end = at + len;
    if name_end == b.len() {
        return Err(());
    }
    if len == 0 {
        return Ok(None);
    }
    match super::machine::starts_any(b, name_end, &[ARGS, CALL_ID]) {
        Err(()) => Err(()),
        Ok(found) => Ok(found.map(|_| name_end)),
    }
}

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[Start {
        text: TOOL_CALLS,
        formats: FormatSet::only(Format::Mistral),
    }];

    const CONTROL: &'static [&'static str] = &["[/TOOL_CALLS]"];
    /// `[TOOL_CALLS]` is a control token, which a server decoding with `skip_special_tokens`
    /// leaves out (Mistral 7B Instruct v0.3 served with its Hugging Face tokenizer): a message
    /// that is only the pre-v11 call list (or one call object), bare or fenced, is its call
    /// too. Only the whole message, as hermes reads one: JSON after prose never runs.
    const WHOLE_JSON: FormatSet = FormatSet::only(Format::Mistral);
    type Machine = machine::MistralCall;

    fn open(_start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        machine::MistralCall::new(at, open)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        decode::parse_region(cx, range)
    }
}
