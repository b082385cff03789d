//! `qwen3_coder` (Qwen3-Coder, Qwen3.5, Step-3.5):
//! `<tool_call><function=f><parameter=a>1</parameter></function></tool_call>`, and `seed_oss`
//! (the same body in `<seed:tool_call>`). Values are raw text, typed by the tool schema (see
//! `schema`). A `<function=…>` block without a wrapper is accepted too (qwen3_coder), and a
//! missing `</function>` or closing wrapper tag at the end of the text (or before prose, when the
//! wrapper is never closed after it). A value may hold the
//! markup itself as text, and a value whose `</parameter>` was left out ends before the next
//! `<parameter=`, the `</function>` or the `</tool_call>` (see `value`; a `</tool_call>` also
//! closes a function whose `</function>` was left out); such a value that ends in a misspelt close
//! tag (`</parameter1>`, `</parameter_x>`, a bare `</parameter`: the model meant to close it)
//! ends before that tag, as in SGLang. A value closed by its `</parameter>` is kept as written.
//! With `tools=`, Step-3.5's garbled tags are read when they name an offered tool and one of
//! its parameters exactly (`tags::function_name`, `tags::parameter_name`).

use super::super::cx::{skip_ws, Cx, Failure};
use super::super::schema::layout::without_line_break;
use super::hermes;
use super::value::{ValueEnd, ValueScan};
use super::tags::{
    after_function, function_tag, parameter_name, parameter_tag, reopens, AfterFunction, Body, Closers,
    Wrap, CLOSE, FUNCTION, FUNCTION_CLOSE, FUNCTION_TAG, PARAMETER, PARAMETER_CLOSE, TOOL_CALL,
};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;

/// The calls of a wrapper (or of a bare `<function=…>` block) whose markup starts at `open`
/// (its wrapper's opening tag, or `<function=` when there is no `wrap`) and whose first
/// `<function=` is at `at`: one call per `<function=…>` block it holds. Returns where its
/// markup ends.
pub(super) fn call<B>(
    cx: &mut Cx<'_, '_, B>,
    open: usize,
    at: usize,
    end: usize,
    wrap: Option<&'static Wrap>,
    closers: &mut Closers<'_>,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let (mut open, mut at) = (open, at);
    loop {
        match function(cx, open, at, end, wrap, closers)? {
            AfterFunction::Another(next) => (open, at) = (next, next),
            AfterFunction::Closed(markup_end) => return Ok(markup_end),
            AfterFunction::Missing => unreachable!("a call read to its end says where"),
        }
    }
}

/// One `<function=…>` block (see [`call`]): where its wrapper's markup ends, or where the next
/// block starts.
fn function<B>(
    cx: &mut Cx<'_, '_, B>,
    open: usize,
    at: usize,
    end: usize,
    wrap: Option<&'static Wrap>,
    closers: &mut Closers<'_>,
) -> Result<AfterFunction, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let format = wrap.map_or(Format::Qwen3Coder, |wrap| wrap.format);
    let mut fail = |cx: &mut Cx<'_, '_, B>, from: usize, failure: Failure| {
        let markup_end = if wrap.is_some() {
            closers.wrap_end(from, end)
        } else {
            closers.function_end(from, end)
        };
        cx.fail(format, open..markup_end, failure);
        AfterFunction::Closed(markup_end)
    };
    let tools = cx.options.tools;
    let Some((name, mut pos)) = function_tag(text, at, end, tools) else {
        // (What ends the block is looked for after its own `<function`.)
        let from = match text[at..end].starts_with(FUNCTION_TAG) {
            true => at + FUNCTION_TAG.len(),
            false => at,
        };
        let failure = Failure::parse("expected <function=NAME>", at, None);
        return Ok(fail(cx, from, failure));
    };
    if text.as_bytes().get(skip_ws(text, pos, end)) == Some(&b'{') {
        // JSON arguments after the name: hermes's spelling, where the tag is shared.
        let shared = wrap.is_none_or(|wrap| wrap.body == Body::Shared);
        let format = if shared && cx.allowed.contains(Format::Hermes) {
            Format::Hermes
        } else {
            format
        };
        return hermes::json_arguments(cx, format, open, name, pos, end, wrap, true, closers);
    }
    let mut arguments = cx.builder.new_object()?;
    loop {
        pos = skip_ws(text, pos, end);
        let rest = &text[pos..end];
        if rest.starts_with(PARAMETER) {
            let Some((key, value_start)) = parameter_tag(text, pos, end, name, tools) else {
                let failure = Failure::parse("expected <parameter=NAME>", pos, Some(name.into()));
                return Ok(fail(cx, pos, failure));
            };
            // With `tools=`, a tag naming no parameter of the tool (even repaired) is text in
            // the value.
            let is_parameter = tools.map(|offered| {
                move |key: &str| {
                    let key = parameter_name(key, true, name, tools).unwrap_or(key);
                    offered.has_parameter(name, key) != Some(false)
                }
            });
            let is_parameter = is_parameter.as_ref().map(|is| is as &dyn Fn(&str) -> bool);
            let mut scan = ValueScan::new(value_start);
            let ValueEnd::At(value, resume) =
                scan.end_in_call(&text.as_bytes()[..end], true, is_parameter)
            else {
                let detail = format!("unterminated <parameter={key}>: no {PARAMETER_CLOSE}");
                return Ok(fail(
                    cx,
                    pos,
                    Failure::parse(detail, pos, Some(name.into())),
                ));
            };
            let closed = text[value.end..resume].starts_with(PARAMETER_CLOSE);
            // A value whose `</parameter>` was left out may end in a misspelt one.
            let raw = match closed {
                true => &text[value],
                false => without_drifted_close(&text[value]),
            };
            cx.insert_value(&mut arguments, name, key, raw, None)?;
            pos = resume;
        } else if rest.starts_with(FUNCTION_CLOSE) {
            pos += FUNCTION_CLOSE.len();
            break;
        } else if rest.is_empty()
            || rest.starts_with(wrap.map_or(CLOSE, |wrap| wrap.close()))
            || rest.starts_with(FUNCTION)
            || reopens(rest.as_bytes(), 0, wrap.map_or(&TOOL_CALL.ends, |wrap| &wrap.ends)) == Some(true)
        {
            // The end of the text, or `</function>` left out before the wrapper's closing tag,
            // the next block or the next wrapper.
            break;
        } else {
            let failure = Failure::parse(
                format!("expected <parameter=NAME> or {FUNCTION_CLOSE}"),
                pos,
                Some(name.into()),
            );
            return Ok(fail(cx, pos, failure));
        }
    }
    let (markup_end, after) = match after_function(text, open, pos, end, wrap) {
        AfterFunction::Closed(markup_end) => (markup_end, AfterFunction::Closed(markup_end)),
        another @ AfterFunction::Another(_) => (pos, another),
        // Text after the `</function>` of a wrapper that is never closed: the model left its
        // closing tag out and went on writing. The call ends with its block, and the text is
        // prose (a wrapper closed later holds it: a broken call).
        AfterFunction::Missing if wrap.is_some_and(|wrap| !text[pos..end].contains(wrap.close())) => {
            (pos, AfterFunction::Closed(pos))
        }
        AfterFunction::Missing => {
            let detail = format!("expected {}", wrap.map_or(FUNCTION_CLOSE, |wrap| wrap.close()));
            let failure = Failure::parse(detail, pos, Some(name.into()));
            return Ok(fail(cx, pos, failure));
        }
    };
    let arguments = cx.builder.finish_object(arguments)?;
    cx.call(
        format,
        open..markup_end,
        name.to_owned(),
        None,
        arguments,
    )?;
    Ok(after)
}

/// An unclosed value without the misspelt close tag it ends in, if any: `</parameter` followed
/// by nothing or by a tag's rest (no space, `<` or `>` before its `>`), then whitespace. The
/// line break that put the tag on a line of its own goes too, as for any left-open value.
fn without_drifted_close(raw: &str) -> &str {
    let unclosed_tag = &PARAMETER_CLOSE[..PARAMETER_CLOSE.len() - 1];
    let trimmed = raw.trim_end();
    let Some(at) = trimmed.rfind(unclosed_tag) else {
        return raw;
    };
    let rest = &trimmed[at + unclosed_tag.len()..];
    let tag_rest = rest.strip_suffix('>').unwrap_or(rest);
    let drifted = (rest.is_empty() || rest.ends_with('>'))
        && !tag_rest.contains(|c: char| c.is_whitespace() || c == '<' || c == '>');
    if drifted {
        without_line_break(&raw[..at])
    } else {
        raw
    }
}
