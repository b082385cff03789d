//! Decoding an HY v4 block. Each call runs to its closing tag, as the machine finds it: what
//! fails inside a call fails that call alone.

use std::ops::Range;

use super::super::cx::{skip_ws, Cx, Failure};
use super::{find_tag, Tags, OPEN};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;
use crate::scan::find::find_byte;

pub(super) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let (text, end) = (cx.text, range.end);
    let b = &text.as_bytes()[..end];
    let Ok(Some((tags, body))) = Tags::read(b, range.start + OPEN.len()) else {
        // No suffix: the marker is prose.
        cx.prose(range);
        return Ok(());
    };
    let mut pos = body;
    loop {
        pos = skip_ws(text, pos, end);
        let rest = &text[pos..end];
        if rest.starts_with(&tags.close_all) {
            pos += tags.close_all.len();
        } else if rest.starts_with(&tags.call) {
            pos = call(cx, &tags, pos, end)?;
            continue;
        } else if pos < end {
            let markup_end = find_tag(b, &tags.close_all, pos).map_or(end, |at| at + tags.close_all.len());
            let from = if pos == skip_ws(text, body, end) { range.start } else { pos };
            let failure = Failure::parse(format!("expected {}", tags.call), pos, None);
            cx.fail(Format::HyV4, from..markup_end, failure);
            pos = markup_end;
        }
        break;
    }
    cx.prose(pos..end);
    Ok(())
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
    let name_end = find_byte(b'<', &b[body..close]).map_or(close, |i| body + i);
    let name = text[body..name_end].trim();
    let fail = |cx: &mut Cx<'_, '_, B>, detail: String, at: usize, name: Option<String>| -> Result<usize, B::Error> {
        cx.fail(Format::HyV4, open..markup_end, Failure::parse(detail, at, name));
        Ok(markup_end)
    };
    if name.is_empty() || name.contains(char::is_whitespace) {
        return fail(cx, "expected a tool name".into(), body, None);
    }
    let mut arguments = cx.builder.new_object()?;
    let mut pos = skip_ws(text, name_end, close);
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
        let value_tag = skip_ws(text, key_close + tags.key_close.len(), close);
        if !text[value_tag..close].starts_with(&tags.value) {
            let detail = format!("expected {} after the key '{key}'", tags.value);
            return fail(cx, detail, value_tag, Some(name.into()));
        }
        let value_start = value_tag + tags.value.len();
        let Some(value_close) = find_tag(&b[..close], &tags.value_close, value_start) else {
            let detail = format!("no {}", tags.value_close);
            return fail(cx, detail, value_tag, Some(name.into()));
        };
        cx.insert_value(&mut arguments, name, key, &text[value_start..value_close], None)?;
        pos = skip_ws(text, value_close + tags.value_close.len(), close);
    }
    let arguments = cx.builder.finish_object(arguments)?;
    cx.call(Format::HyV4, open..markup_end, name.to_owned(), None, arguments)?;
    Ok(markup_end)
}
