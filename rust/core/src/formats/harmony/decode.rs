//! Decoding harmony and Muse Glimmer messages: calls, reasoning and content.

use std::ops::Range;

use super::super::cursor::{Markers, ProseCursor, TextSeek};
use super::super::cx::{skip_ws, Cx, Failure};
use super::super::invoke;
use super::{
    block_at, classify, Message, ATEM, CHANNEL, MESSAGE, MESSAGE_NEEDLE, RECIPIENT, START,
    TERMINATORS,
};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;

static MARKERS: Markers = Markers::new(&[START, CHANNEL]);

pub(super) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let mut messages = TextSeek::new(text, end, &MESSAGE_NEEDLE);
    let mut cursor = ProseCursor::new(text, &MARKERS, range.start);
    let mut pos = range.start;
    // A region opened at `to=` (the machine has seen a header there) or at `<|message|>` starts
    // with a header whose text begins there, as after `<|start|>`.
    let opening = &text[range.start..];
    let at_header = opening.starts_with(RECIPIENT) || opening.starts_with(MESSAGE);
    let mut at_recipient = at_header.then_some(range.start);
    loop {
        let (start, header_start, after_start) = match at_recipient.take() {
            Some(at) => (at, at, true),
            None => match cursor.next(pos, end) {
                Some(marker) => (marker.start, marker.end, marker.pattern == 0),
                None => break,
            },
        };
        let Some(message) = messages.find(header_start) else {
            break;
        };
        cx.prose(pos..start);
        let header = &text[header_start..message];
        let kind = classify(header, after_start);
        let body = message + MESSAGE.len();
        if let Message::Call(_) = kind {
            let q = skip_ws(text, body, end);
            if let Some(Some(_)) = block_at(&text.as_bytes()[..end], q, cx.allowed) {
                // A Muse Glimmer call: the invokes of its ATEM block, which ends the region.
                invoke::decode::parse_region(cx, q..end, &ATEM)?;
                pos = end;
                break;
            }
        }
        let (body_end, markup_end) = match TERMINATORS.find(text, body, end) {
            Some(t) if t.pattern == 3 => (t.start, t.start),
            Some(t) => (t.start, t.end),
            None => (end, end),
        };
        match kind {
            Message::Call(name) => call(cx, start..markup_end, name, body, body_end)?,
            Message::Analysis => {
                cx.begin_reasoning();
                cx.reasoning_text(body..body_end);
            }
            Message::Other => cx.prose(body..body_end),
        }
        pos = markup_end;
    }
    cx.prose(pos..end);
    Ok(())
}

/// A call whose arguments are the whole body `body..body_end`: JSON arguments are harmony's,
/// Muse Glimmer's only where harmony is not read.
fn call<B>(
    cx: &mut Cx<'_, '_, B>,
    markup: Range<usize>,
    name: String,
    body: usize,
    body_end: usize,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let format = match cx.allowed.contains(Format::Harmony) {
        true => Format::Harmony,
        false => Format::MuseGlimmer,
    };
    if name.is_empty() {
        let failure = Failure::parse("missing tool name", markup.start, None);
        cx.fail(format, markup, failure);
        return Ok(());
    }
    if skip_ws(cx.text, body, body_end) == body_end {
        let arguments = cx.builder.empty_object()?;
        return cx.call(format, markup, name, None, arguments);
    }
    match cx.json_at(body, body_end)? {
        Ok((arguments, json_end)) if skip_ws(cx.text, json_end, body_end) == body_end => {
            cx.call(format, markup, name, None, arguments)
        }
        Ok((_, json_end)) => {
            let failure =
                Failure::parse("extra text after the JSON arguments", json_end, Some(name));
            cx.fail(format, markup, failure);
            Ok(())
        }
        Err(error) => {
            cx.fail(format, markup, Failure::json(error, Some(name)));
            Ok(())
        }
    }
}

