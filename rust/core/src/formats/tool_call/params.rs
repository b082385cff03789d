//! MiniCPM 5's body of hermes's `<function name="f">`: `<param name="a">1</param>` elements
//! instead of JSON arguments (or none), up to the call's `</function>`. Values are raw text typed
//! by the tool schema, as in qwen3_coder, a `<![CDATA[…]]>` value its inside (which may hold
//! `</param>`, `</function>` or a whole call: a CDATA section quotes markup up to its `]]>`, so the
//! function's end is the first one outside it, for the decoder and the stream machine alike);
//! a value cut off by the end of the text fails the call. The elements may sit in an
//! `<arguments>…</arguments>` wrapper (MiniCPM 5's chat template lists the tag), and a call whose
//! one parameter wraps the whole arguments is unwrapped as the invoke shape's are (`wrapped`).

use super::super::cx::{skip_ws, Cx, Failure};
use super::super::invoke::{attribute, tag_rest};
use super::super::wrapped::unwrapped;
use super::super::cursor::failed_end;
use super::tags::{Closers, FUNCTION_CLOSE};
use super::super::cursor::Marker;
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;
use crate::scan::find::find_short;

pub(crate) const PARAM: &str = "<param";
/// The wrapper the elements may sit in: its tags are markup.
pub(crate) const ARGUMENTS: [&str; 2] = ["<arguments>", "</arguments>"];
const PARAM_CLOSE: &str = "</param>";
pub(crate) const CDATA: (&str, &str) = ("<![CDATA[", "]]>");
/// What opens the elements after `<function name="f">` (else JSON arguments follow).
pub(crate) const BODY_OPENS: [&str; 3] = [PARAM, ARGUMENTS[0], FUNCTION_CLOSE];
/// A byte-level BPE tokenizer's space marker `Ġ`, written out when its decoding is skipped.
const SPACE_MARKER: char = '\u{120}';

/// The call `name` whose `<function name=…>` starts at `open` and whose first `<param` is at
/// `body`; returns where its markup ends (after its `</function>`, or at the end).
pub(crate) fn call<B>(
    cx: &mut Cx<'_, '_, B>,
    open: usize,
    name: &str,
    body: usize,
    end: usize,
    closers: &mut Closers<'_>,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let next = function_close(text, closers, body, end);
    let (close, markup_end) = (next.map_or(end, |m| m.start), failed_end(next, end));
    let mut arguments = cx.builder.new_object()?;
    let mut pos = skip_ws(text, body, close);
    while pos < close {
        if let Some(tag) = ARGUMENTS.iter().find(|t| text[pos..close].starts_with(**t)) {
            pos = skip_ws(text, pos + tag.len(), close);
            continue;
        }
        let param = text[pos..close]
            .starts_with(PARAM)
            .then(|| tag_rest(text, pos + PARAM.len(), close))
            .flatten()
            // `<paramname=` and `<param\u{120}name=`: the tag as a tokenizer may leave it.
            .map(|(attrs, value)| (attrs.strip_prefix(SPACE_MARKER).unwrap_or(attrs), value))
            .and_then(|(attrs, value)| Some((attribute(attrs, "name")?.trim(), value)))
            .filter(|(key, _)| !key.is_empty());
        let Some((key, value)) = param else {
            let detail = "expected <param name=\"…\"> or </function>";
            let failure = Failure::parse(detail, pos, Some(name.into()));
            cx.fail(Format::Hermes, open..markup_end, failure);
            return Ok(markup_end);
        };
        // A CDATA section may hold `</param>` itself: the value's close comes after it.
        let bytes = text.as_bytes();
        let first = skip_ws(text, value, close);
        let from = match text[first..close].strip_prefix(CDATA.0) {
            Some(inner) => find_short(inner.as_bytes(), CDATA.1.as_bytes())
                .map_or(value, |i| close - inner.len() + i + CDATA.1.len()),
            None => value,
        };
        let Some(len) = find_short(&bytes[from..close], PARAM_CLOSE.as_bytes()) else {
            let detail = format!("unterminated parameter {key:?}: no {PARAM_CLOSE}");
            cx.fail(Format::Hermes, open..markup_end, Failure::parse(detail, pos, Some(name.into())));
            return Ok(markup_end);
        };
        let value_end = from + len;
        let raw = &text[value..value_end];
        let raw = raw.trim().strip_prefix(CDATA.0).and_then(|r| r.strip_suffix(CDATA.1)).unwrap_or(raw);
        cx.insert_value(&mut arguments, name, key, raw, None)?;
        pos = skip_ws(text, value_end + PARAM_CLOSE.len(), close);
    }
    let arguments = cx.builder.finish_object(arguments)?;
    let (tools, json) = (cx.options.tools, cx.options.json);
    let arguments = unwrapped(cx.builder, tools, name, arguments, json)?;
    cx.call(Format::Hermes, open..markup_end, name.to_owned(), None, arguments)?;
    Ok(markup_end)
}

/// The first of `closers.function`'s markers after `body` that no CDATA section quotes; `None`
/// when a CDATA section runs to `end` (the call is cut off inside it).
fn function_close(text: &str, closers: &mut Closers<'_>, body: usize, end: usize) -> Option<Marker> {
    let bytes = &text.as_bytes()[..end];
    let mut from = body;
    loop {
        let next = closers.function.next(from);
        let open = find_short(&bytes[from..], CDATA.0.as_bytes()).map(|i| from + i);
        match open {
            Some(open) if next.is_none_or(|marker| open < marker.start) => {
                let inner = open + CDATA.0.len();
                from = inner + find_short(&bytes[inner..], CDATA.1.as_bytes())? + CDATA.1.len();
            }
            _ => return next,
        }
    }
}
