//! `hermes` (Hermes, Qwen2.5, Qwen3): `<tool_call>{"name": …, "arguments": …}</tool_call>`,
//! with or without newlines, `parameters` for `arguments`, a JSON array of calls in one tag,
//! and a missing final `</tool_call>` at the end of the text. The other wrappers of a call
//! object (`<tool>`…, see the group) read the same way; `<function=f>` and
//! `<function name="f">` are followed by the JSON arguments alone.

use super::super::cursor::TextSeek;
use super::super::cx::{skip_ws, Cx, Failure};
use super::tags::{close_tag, tag_name, Opening, FUNCTION_CLOSE};
use crate::calls::push_calls_of_value;
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;

/// One call whose wrapper (`opening`) starts at `open` and whose JSON body starts at `body`.
/// Returns where its markup ends.
pub(super) fn call<B>(
    cx: &mut Cx<'_, '_, B>,
    open: usize,
    body: usize,
    end: usize,
    opening: Opening,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let close = opening.close();
    if let Some((calls, json_end)) = cx.read_calls(body, end)? {
        if let Some(markup_end) = close_tag(text, json_end, end, close) {
            cx.push_read(Format::Hermes, open..markup_end, calls)?;
            return Ok(markup_end);
        }
    }
    match cx.json_at(body, end)? {
        Ok((value, json_end)) => match close_tag(text, json_end, end, close) {
            Some(markup_end) => {
                let context = cx.context(Format::Hermes, open..markup_end);
                let (options, json_at) = (cx.options.json, body - open);
                push_calls_of_value(
                    cx.builder,
                    value,
                    &context,
                    json_at,
                    options,
                    &mut cx.outcomes,
                )?;
                Ok(markup_end)
            }
            None => {
                let markup_end = end_of_next(text, json_end, end, opening);
                let failure = Failure::parse(format!("expected {close} after the JSON"), json_end, None);
                cx.fail(Format::Hermes, open..markup_end, failure);
                Ok(markup_end)
            }
        },
        Err(error) => {
            let markup_end = end_of_next(text, body, end, opening);
            cx.fail(Format::Hermes, open..markup_end, Failure::json(error, None));
            Ok(markup_end)
        }
    }
}

/// `<function name="NAME">` (its `<function name=` ending at `at`) and JSON arguments.
pub(super) fn named_call<B>(
    cx: &mut Cx<'_, '_, B>,
    open: usize,
    at: usize,
    end: usize,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let Some((name, args)) = tag_name(cx.text, at, end) else {
        let markup_end = end_of_next(cx.text, at, end, Opening::FunctionName);
        let failure = Failure::parse("expected <function name=\"NAME\">", at, None);
        cx.fail(Format::Hermes, open..markup_end, failure);
        return Ok(markup_end);
    };
    let name = name.trim_matches(['"', '\'']).trim();
    json_arguments(cx, Format::Hermes, open, name, args, end, Opening::FunctionName)
}

/// A call named `name` whose JSON arguments follow at `at` (after whitespace), closed by
/// `</function>` and then, in a `<tool_call>`, by `</tool_call>`. Returns where its markup
/// ends.
pub(super) fn json_arguments<B>(
    cx: &mut Cx<'_, '_, B>,
    format: Format,
    open: usize,
    name: &str,
    at: usize,
    end: usize,
    opening: Opening,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let args = skip_ws(text, at, end);
    let failure = match cx.json_at(args, end)? {
        Ok((arguments, json_end)) => {
            let closed = close_tag(text, json_end, end, FUNCTION_CLOSE).and_then(|after| {
                match opening {
                    Opening::ToolCall => close_tag(text, after, end, opening.close()),
                    _ => Some(after),
                }
            });
            match closed {
                Some(markup_end) => {
                    cx.call(format, open..markup_end, name.to_owned(), None, arguments)?;
                    return Ok(markup_end);
                }
                None => Failure::parse(
                    format!("expected {FUNCTION_CLOSE} after the JSON arguments"),
                    json_end,
                    Some(name.into()),
                ),
            }
        }
        Err(error) => Failure::json(error, Some(name.into())),
    };
    let markup_end = end_of_next(text, args, end, opening);
    cx.fail(format, open..markup_end, failure);
    Ok(markup_end)
}

/// Where a failed call's markup ends: past the next closing tag of its opening, or the end.
fn end_of_next(text: &str, from: usize, end: usize, opening: Opening) -> usize {
    TextSeek::new(text, end, opening.close_needle()).end_of_next(from, end)
}
