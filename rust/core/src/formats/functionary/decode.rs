//! Decoding a Functionary region (it starts at a `>>>`).

use std::ops::Range;

use super::super::cursor::TextSeek;
use super::super::cx::{Cx, Failure};
use super::{header, Header, MARKER, MARKER_NEEDLE};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;

const FORMAT: Format = Format::FunctionaryV32;

pub(super) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let bytes = &text.as_bytes()[..end];
    let mut next_marker = TextSeek::new(text, end, &MARKER_NEEDLE);
    // The `>>>` of each message, from the region's own (which the generation prompt may have
    // written instead: then the region starts at its header).
    let mut marker = range.start;
    let mut at = marker + MARKER.len() * usize::from(text[marker..end].starts_with(MARKER));
    loop {
        let pos = match header(bytes, at, true) {
            Header::Undecided | Header::Prose => {
                cx.prose(marker..end);
                return Ok(());
            }
            Header::Content(body) => {
                let next = next_marker.find(body).unwrap_or(end);
                cx.prose(body..next);
                next
            }
            Header::Code(body) => {
                cx.code_call(FORMAT, marker..end, body..end)?;
                return Ok(());
            }
            Header::Call { name, args } => {
                let name = text[name].to_owned();
                match cx.json_at(args, end)? {
                    Ok((arguments, json_end)) => {
                        cx.call(FORMAT, marker..json_end, name, None, arguments)?;
                        json_end
                    }
                    Err(error) => {
                        // A failed call's markup runs to the next `>>>` or the end.
                        let from = error.offset.clamp(args, end);
                        let next = next_marker.find(from).unwrap_or(end);
                        cx.fail(FORMAT, marker..next, Failure::json(error, Some(name)));
                        next
                    }
                }
            }
        };
        if !text[pos..end].starts_with(MARKER) {
            cx.prose(pos..end);
            return Ok(());
        }
        marker = pos;
        at = pos + MARKER.len();
    }
}
