//! Decoding a block of glm45-shaped calls with tags of their own (an HY v4 block, K2 Horizon's
//! `<ifm|tool_calls>`). Each call runs to its closing tag, as the machine finds it: what fails
//! inside a call fails that call alone.

use std::ops::Range;

use super::super::cx::{skip_ws, Cx, Failure};
use super::{find_tag, Tags, OPEN, OPEN_CALL};
use crate::calls::push_calls_of_value;
use crate::json::{JsonBuilder, JsonView};
use crate::scan::find::find_byte;

pub(super) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let b = &cx.text.as_bytes()[..range.end];
    let lone = Tags::lone(&cx.text[range.clone()]);
    let open_len = if lone { OPEN_CALL.len() } else { OPEN.len() };
    let Ok(Some((tags, body))) = Tags::read(b, range.start + open_len, lone) else {
        // No suffix: the marker is prose.
        cx.prose(range);
        return Ok(());
    };
    let pos = match lone {
        true => lone_calls(cx, &tags, range.start, range.end)?,
        false => block(cx, &tags, range.start, body, range.end)?,
    };
    cx.prose(pos..range.end);
    Ok(())
}

/// The block of `tags` that opens at `start` and whose body starts at `body`; returns where its
/// markup ends.
pub(crate) fn block<B>(
    cx: &mut Cx<'_, '_, B>,
    tags: &Tags,
    start: usize,
    body: usize,
    end: usize,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let (text, b) = (cx.text, &cx.text.as_bytes()[..end]);
    let mut pos = body;
    loop {
        pos = skip_ws(text, pos, end);
        let rest = &text[pos..end];
        if rest.starts_with(&tags.close_all) {
            pos += tags.close_all.len();
        } else if rest.starts_with(&tags.call) {
            pos = call(cx, tags, pos, end)?;
            continue;
        } else if pos < end {
            let markup_end = find_tag(b, &tags.close_all, pos).map_or(end, |at| at + tags.close_all.len());
            let from = if pos == skip_ws(text, body, end) { start } else { pos };
            let failure = Failure::parse(format!("expected {}", tags.call), pos, None);
            cx.fail(tags.format, from..markup_end, failure);
            pos = markup_end;
        }
        return Ok(pos);
    }
}

/// Calls of `tags` one after another from `start`, with no block around them; returns where
/// the last one's markup ends.
pub(crate) fn lone_calls<B>(cx: &mut Cx<'_, '_, B>, tags: &Tags, start: usize, end: usize) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut pos = start;
    loop {
        let next = skip_ws(cx.text, pos, end);
        if !cx.text[next..end].starts_with(&tags.call) {
            return Ok(pos);
        }
        pos = call(cx, tags, next, end)?;
    }
}

/// The call whose opening tag starts at `open`; returns where its markup ends.
fn call<B>(cx: &mut Cx<'_, '_, B>, tags: &Tags, open: usize, end: usize) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let (text, b) = (cx.text, &cx.text.as_bytes()[..end]);
    let body = open + tags.call.len();
    // A missing closing tag is accepted at the end of the text.
    let (close, markup_end) = match find_tag(b, &tags.call_close, body) {
        Some(at) => (at, at + tags.call_close.len()),
        None => (end, end),
    };
    let format = tags.format;
    let fail = |cx: &mut Cx<'_, '_, B>, detail: String, at: usize, name: Option<String>| -> Result<usize, B::Error> {
        cx.fail(format, open..markup_end, Failure::parse(detail, at, name));
        Ok(markup_end)
    };
    let json = skip_ws(text, body, close);
    if tags.json_bodies && matches!(b.get(json), Some(b'{' | b'[')) {
        return match cx.json_at(json, close)? {
            Ok((value, json_end)) if skip_ws(text, json_end, close) == close => {
                let context = cx.context(format, open..markup_end);
                let (options, json_at) = (cx.options.json, json - open);
                push_calls_of_value(cx.builder, value, &context, json_at, options, &mut cx.outcomes)?;
                Ok(markup_end)
            }
            Ok((_, json_end)) => fail(cx, format!("expected {} after the JSON", tags.call_close), json_end, None),
            Err(error) => {
                cx.fail(format, open..markup_end, Failure::json(error, None));
                Ok(markup_end)
            }
        };
    }
    let name_end = find_byte(b'<', &b[body..close]).map_or(close, |i| body + i);
    let name = text[body..name_end].trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return fail(cx, "expected a tool name".into(), body, None);
    }
    let mut arguments = cx.builder.new_object()?;
    let mut pos = skip_ws(text, name_end, close);
    if let Some(sep) = tags.sep.as_deref().filter(|sep| text[pos..close].starts_with(sep)) {
        pos = skip_ws(text, pos + sep.len(), close);
    }
    if tags.json_arguments && b.get(pos) == Some(&b'{') {
        return match cx.json_at(pos, close)? {
            Ok((value, json_end)) if skip_ws(text, json_end, close) == close => {
                cx.call(format, open..markup_end, name.to_owned(), None, value)?;
                Ok(markup_end)
            }
            Ok((_, json_end)) => {
                let detail = format!("expected {} after the JSON", tags.call_close);
                fail(cx, detail, json_end, Some(name.into()))
            }
            Err(error) => {
                cx.fail(format, open..markup_end, Failure::json(error, Some(name.into())));
                Ok(markup_end)
            }
        };
    }
    while pos < close {
        if !text[pos..close].starts_with(&tags.key) {
            let detail = format!("expected {} or {}", tags.key, tags.call_close);
            return fail(cx, detail, pos, Some(name.into()));
        }
        let key_start = pos + tags.key.len();
        let Some(key_close) = find_tag(&b[..close], &tags.key_close, key_start) else {
            return fail(cx, format!("no {}", tags.key_close), pos, Some(name.into()));
        };
        let key = text[key_start..key_close].trim();
        let mut value_tag = skip_ws(text, key_close + tags.key_close.len(), close);
        // K2 Horizon's type tag: the type the model gives the value.
        let mut wire_type = None;
        if let Some((type_open, type_close)) = &tags.arg_type {
            if text[value_tag..close].starts_with(type_open.as_str()) {
                let type_start = value_tag + type_open.len();
                let Some(type_end) = find_tag(&b[..close], type_close, type_start) else {
                    return fail(cx, format!("no {type_close}"), value_tag, Some(name.into()));
                };
                wire_type = Some(text[type_start..type_end].trim());
                value_tag = skip_ws(text, type_end + type_close.len(), close);
            }
        }
        if !text[value_tag..close].starts_with(&tags.value) {
            let detail = format!("expected {} after the key '{key}'", tags.value);
            return fail(cx, detail, value_tag, Some(name.into()));
        }
        let value_start = value_tag + tags.value.len();
        let Some(value_close) = find_tag(&b[..close], &tags.value_close, value_start) else {
            let detail = format!("no {}", tags.value_close);
            return fail(cx, detail, value_tag, Some(name.into()));
        };
        let types = wire_type.map(|word| cx.param_types(name, key).narrowed_to(word));
        cx.insert_value(&mut arguments, name, key, &text[value_start..value_close], types)?;
        pos = skip_ws(text, value_close + tags.value_close.len(), close);
    }
    let arguments = cx.builder.finish_object(arguments)?;
    cx.call(format, open..markup_end, name.to_owned(), None, arguments)?;
    Ok(markup_end)
}
