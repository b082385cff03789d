//! `hermes` (Hermes, Qwen2.5, Qwen3, ERNIE 4.5): `<tool_call>{"name": …, "arguments": …}
//! </tool_call>`, with or without newlines, `parameters` for `arguments`, a JSON array of calls
//! in one tag, and a missing final `</tool_call>` at the end of the text. Other wrappers of a
//! JSON call (GigaChat 3) read their body here too.

use super::super::cx::{Cx, Failure};
use super::tags::{close_tag, Closers};
use crate::protocol::Format;
use crate::calls::push_calls_of_value;
use crate::json::{JsonBuilder, JsonView};

/// One call of `format` whose wrapper starts at `open` and whose JSON body starts at `body`.
/// Returns where its markup ends.
pub(crate) fn call<B>(
    cx: &mut Cx<'_, '_, B>,
    format: Format,
    open: usize,
    body: usize,
    end: usize,
    closers: &mut Closers<'_>,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    if let Some((calls, json_end)) = cx.read_calls(body, end)? {
        if let Some(markup_end) = close_tag(text, json_end, end, closers.close) {
            cx.push_read(format, open..markup_end, calls)?;
            return Ok(markup_end);
        }
    }
    match cx.json_at(body, end)? {
        Ok((value, json_end)) => match close_tag(text, json_end, end, closers.close) {
            Some(markup_end) => {
                let context = cx.context(format, open..markup_end);
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
                let markup_end = closers.tool_call.end_of_next(json_end, end);
                let at = json_end;
                cx.fail(
                    format,
                    open..markup_end,
                    Failure::parse(
                        format!("expected {} after the JSON", closers.close),
                        at,
                        None,
                    ),
                );
                Ok(markup_end)
            }
        },
        Err(error) => {
            let markup_end = closers.tool_call.end_of_next(body, end);
            cx.fail(format, open..markup_end, Failure::json(error, None));
            Ok(markup_end)
        }
    }
}
