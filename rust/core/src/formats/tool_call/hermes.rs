//! `hermes` (Hermes, Qwen2.5, Qwen3, ERNIE 4.5): `<tool_call>{"name": …, "arguments": …}
//! </tool_call>`, with or without newlines, `parameters` for `arguments`, a JSON array of calls
//! in one tag, and a missing final `</tool_call>` at the end of the text. Other wrappers of a
//! JSON call (GigaChat 3, hermes's `<tool>`…, see the group) read their body here too;
//! `<function=f>` and `<function name="f">` are followed by the JSON arguments alone (or, after
//! `<function name="f">`, MiniCPM 5's `<param>` elements: [`super::params`]).

use super::super::cut_json::closed_at_end;
use super::super::cx::{skip_ws, Cx, Failure};
use super::tags::{
    after_function, close_tag, function_ends, past_fence_close, quoted_name, tag_name, AfterFunction, Body, Closers, Wrap,
};
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
    let ends = closers.ends;
    // (A Markdown fence around the JSON, EXAONE MoE's, closes before the tag.)
    let close = |json_end: usize| close_tag(text, open, past_fence_close(text, json_end, end), end, ends);
    if let Some((calls, json_end)) = cx.read_calls(body, end)? {
        if let Some(markup_end) = close(json_end) {
            cx.push_read(format, open..markup_end, calls)?;
            return Ok(markup_end);
        }
    }
    let read = match cx.json_at(body, end)? {
        // A list or call object the end of the text cut right after a call.
        Err(error) => match closed_at_end(cx, &error, body, end)? {
            Some(value) => Ok((value, end)),
            None => Err(error),
        },
        read => read,
    };
    match read {
        Ok((value, json_end)) => match close(json_end) {
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
                let markup_end = closers.wrap_end(json_end, end);
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
            let markup_end = closers.wrap_end(body, end);
            cx.fail(format, open..markup_end, Failure::json(error, None));
            Ok(markup_end)
        }
    }
}

/// `<function name="NAME">` (its `<function name=` ending at `at`) and JSON arguments.
pub(crate) fn named_call<B>(
    cx: &mut Cx<'_, '_, B>,
    open: usize,
    at: usize,
    end: usize,
    closers: &mut Closers<'_>,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let named = tag_name(cx.text, at, end).and_then(|(raw, args)| Some((quoted_name(raw)?, args)));
    let Some((name, args)) = named else {
        let markup_end = closers.function_end(at, end);
        let failure = Failure::parse("expected <function name=\"NAME\">", at, None);
        cx.fail(Format::Hermes, open..markup_end, failure);
        return Ok(markup_end);
    };
    let body = skip_ws(cx.text, args, end);
    let rest = &cx.text[body..end];
    if super::params::BODY_OPENS.iter().any(|tag| rest.starts_with(tag)) {
        return super::params::call(cx, open, name, body, end, closers);
    }
    match json_arguments(cx, Format::Hermes, open, name, args, end, None, true, closers)? {
        AfterFunction::Closed(markup_end) | AfterFunction::Another(markup_end) => Ok(markup_end),
        AfterFunction::Missing => unreachable!("a call read to its end says where"),
    }
}

/// A call named `name` whose JSON arguments follow at `at` (after whitespace), closed by
/// `</function>` and then by the closing tag of `wrap` (if any, other than `</function>`), or by
/// another `<function=…>` in `wrap`; without a function tag (`function_tag` false: glm45's name
/// then JSON arguments, as Laguna writes them), by the closing tag of `wrap` alone. Returns where
/// its markup ends, or where the next block starts (never [`AfterFunction::Missing`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn json_arguments<B>(
    cx: &mut Cx<'_, '_, B>,
    format: Format,
    open: usize,
    name: &str,
    at: usize,
    end: usize,
    wrap: Option<&'static Wrap>,
    function_tag: bool,
    closers: &mut Closers<'_>,
) -> Result<AfterFunction, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let outer = wrap.filter(|wrap| wrap.body != Body::FunctionName);
    let args = skip_ws(text, at, end);
    let ends = match wrap {
        Some(wrap) if !function_tag => &wrap.ends,
        _ => function_ends(wrap),
    };
    let closer = ends.patterns()[0];
    let failure = match cx.json_at(args, end)? {
        Ok((arguments, json_end)) => {
            let closed = close_tag(text, open, json_end, end, ends).map(|after| match function_tag {
                true => (after, after_function(text, open, after, end, wrap)),
                false => (after, AfterFunction::Closed(after)),
            });
            match closed {
                Some((_, AfterFunction::Closed(markup_end))) => {
                    cx.call(format, open..markup_end, name.to_owned(), None, arguments)?;
                    return Ok(AfterFunction::Closed(markup_end));
                }
                Some((after, AfterFunction::Another(next))) => {
                    cx.call(format, open..after, name.to_owned(), None, arguments)?;
                    return Ok(AfterFunction::Another(next));
                }
                _ => Failure::parse(
                    format!("expected {closer} after the JSON arguments"),
                    json_end,
                    Some(name.into()),
                ),
            }
        }
        Err(error) => Failure::json(error, Some(name.into())),
    };
    let markup_end = match outer {
        Some(_) => closers.wrap_end(args, end),
        None => closers.function_end(args, end),
    };
    cx.fail(format, open..markup_end, failure);
    Ok(AfterFunction::Closed(markup_end))
}
