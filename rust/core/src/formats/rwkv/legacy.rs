//! RWKV's earlier spelling of a call, which vLLM's `rwkv` parser still reads: `<tool_call>`, then
//! the call object on one line, a Python dict as often as JSON, with no closing tag:
//!
//! ```text
//! Need to inspect the file.
//! <tool_call>
//! {'arguments': {'filePath': 'calculator.py'}, 'name': 'read', 'type': 'tool_call'}
//! ```
//!
//! The `<tool_call>` tag is the `tool_call` group's marker: its body is read here when `rwkv` is
//! read and none of that group's own formats is (`tool_call::tags::body_format`). The call is the
//! object on the line after the tag (JSON, else a Python literal; a call object as every format
//! reads one), and its markup runs to the end of that line, and through a `</tool_call>` that
//! follows. Arguments are returned as the model wrote them (vLLM rewrites them for one coding
//! agent's tools). An earlier parser read invokes in the tag instead (vLLM's tests at
//! 38a442be): `<tool_call>\n<invoke name="f">\n<parameter name="a">1</parameter>\n</invoke>\n
//! </tool_call>`, read as MiniMax-M2's invokes are ([`INVOKE_TAGS`]), to the closing tag (or
//! the next `<tool_call>`, or the end of the text). A tag followed by anything else is prose.

use super::super::cursor::failed_end;
use super::super::cx::{Cx, Failure};
use super::super::invoke::{self, Tags};
use super::super::literal::{parse_literal, LitErr};
use super::super::machine::{starts, ws};
use super::super::tool_call::tags::TOOL_CALL;
use crate::calls::push_calls_of_value;
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;

/// The tag that ends the call's markup when it follows the call's line.
pub(crate) const CLOSE: &str = "</tool_call>";

/// The start of the earlier spelling's invoke.
pub(crate) const INVOKE: &str = "<invoke";

/// The earlier spelling's invokes in `<tool_call>`, read as MiniMax-M2's.
static INVOKE_TAGS: Tags = invoke::xml_tags!(Format::Rwkv, "tool_call", "invoke", "parameter");

/// The call whose `<tool_call>` spans `open..tag_end` and whose object starts at `body` (past
/// white space). Returns where its markup ends.
pub(crate) fn call<B>(
    cx: &mut Cx<'_, '_, B>,
    (open, tag_end): (usize, usize),
    body: usize,
    end: usize,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    if text[body..end].starts_with(INVOKE) {
        // To the closing tag, or before the next call's tag (the stream's `SeekClose`).
        let markup_end = failed_end(TOOL_CALL.ends.find(text, body, end), end);
        invoke::decode::parse_region(cx, open..markup_end, &INVOKE_TAGS)?;
        return Ok(markup_end);
    }
    if !text[body..end].starts_with('{') {
        cx.prose(open..tag_end);
        return Ok(tag_end);
    }
    let (line_end, after) = match text[body..end].find('\n') {
        Some(i) => (body + i, body + i + 1),
        None => (end, end),
    };
    let markup_end = markup_end(text, after, end);
    let value = match cx.json_at(body, line_end)? {
        Ok((value, json_end)) if text[json_end..line_end].trim().is_empty() => value,
        _ => match parse_literal(cx.builder, &text[body..line_end]) {
            Ok(value) => value,
            Err(LitErr::Build(e)) => return Err(e),
            Err(LitErr::Syntax(e)) => {
                let failure = Failure::parse(e.detail, body + e.offset, None);
                cx.fail(Format::Rwkv, open..markup_end, failure);
                return Ok(markup_end);
            }
        },
    };
    let context = cx.context(Format::Rwkv, open..markup_end);
    let (options, json_at) = (cx.options.json, body - open);
    push_calls_of_value(cx.builder, value, &context, json_at, options, &mut cx.outcomes)?;
    Ok(markup_end)
}

/// Where the markup of a call whose line ends at `after` (past its line break) ends: through a
/// `</tool_call>` that follows (white space before it allowed), else at `after`.
fn markup_end(text: &str, after: usize, end: usize) -> usize {
    after_line(&text.as_bytes()[..end], after).unwrap_or(after)
}

/// [`markup_end`] for the stream machine, in the text so far: `None` while `b` may still hold
/// the `</tool_call>`.
pub(crate) fn after_line(b: &[u8], after: usize) -> Option<usize> {
    let at = ws(b, after);
    match starts(b, at, CLOSE)? {
        true => Some(at + CLOSE.len()),
        false => Some(after),
    }
}
