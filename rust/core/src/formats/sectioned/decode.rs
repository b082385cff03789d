//! Decoding a token-delimited region: a section of calls, or one call.

use std::ops::Range;

use super::super::cursor::TextSeek;
use super::super::cx::{skip_ws, Cx, Failure};
use super::{Body, Opens, ReadBody, Tokens};
use crate::json::{JsonBuilder, JsonView};

/// Parses `range` with `read` for each call's header (the range between `CALL_BEGIN` and
/// `SEP`) and body (starting after `SEP`).
pub(crate) fn parse_region<B>(
    cx: &mut Cx<'_, '_, B>,
    range: Range<usize>,
    tokens: &'static Tokens,
    read: ReadBody<B>,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let mut seps = TextSeek::new(text, end, &tokens.sep);
    let mut call_ends = TextSeek::new(text, end, &tokens.call_end);
    cx.markup_in_prose(range, &tokens.starts, |cx, marker| {
        let opens = tokens.opens[marker.pattern];
        if opens != Opens::Call {
            // A section; DeepSeek R1's `<｜tool▁calls｜>` also begins its first call.
            let mut p = marker.end;
            if opens == Opens::SectionAndCall {
                let (at, header) = (marker.start, marker.end);
                p = one_call(cx, at, header, end, tokens, &mut seps, &mut call_ends, read)?;
            }
            loop {
                p = skip_ws(text, p, end);
                let rest = &text[p..end];
                if rest.starts_with(tokens.call_begin) {
                    let header = p + tokens.call_begin.len();
                    p = one_call(cx, p, header, end, tokens, &mut seps, &mut call_ends, read)?;
                } else {
                    let section_end = tokens.section_ends().iter().find(|e| rest.starts_with(**e));
                    break Ok(p + section_end.map_or(0, |e| e.len()));
                }
            }
        } else {
            let (at, header) = (marker.start, marker.end);
            one_call(cx, at, header, end, tokens, &mut seps, &mut call_ends, read)
        }
    })
}

/// The call whose markup starts at `at` and whose header starts at `header_start` (after its
/// call marker). Returns where its markup ends.
#[allow(clippy::too_many_arguments)]
fn one_call<B>(
    cx: &mut Cx<'_, '_, B>,
    at: usize,
    header_start: usize,
    end: usize,
    tokens: &Tokens,
    seps: &mut TextSeek<'_>,
    call_ends: &mut TextSeek<'_>,
    read: ReadBody<B>,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let call_end = call_ends.find(header_start);
    let sep = seps
        .find(header_start)
        .filter(|&s| call_end.is_none_or(|e| s < e));
    let Some(sep) = sep else {
        let markup_end = call_end.map_or(end, |e| e + tokens.call_end.text.len());
        let failure = Failure::parse(format!("missing {}", tokens.sep.text), header_start, None);
        let format = tokens.first_allowed(cx.allowed);
        cx.fail(format, at..markup_end, failure);
        return Ok(markup_end);
    };
    let body = sep + tokens.sep.text.len();
    match read(cx, header_start..sep, body, end)? {
        Body::Call {
            format,
            name,
            id,
            arguments,
            end: body_end,
        } => {
            let after = skip_ws(text, body_end, end);
            let markup_end = if text[after..end].starts_with(tokens.call_end.text) {
                after + tokens.call_end.text.len()
            } else if after == end {
                end
            } else {
                let markup_end = call_ends.end_of_next(body_end, end);
                let detail = format!("expected {} after the arguments", tokens.call_end.text);
                cx.fail(
                    format,
                    at..markup_end,
                    Failure::parse(detail, after, Some(name)),
                );
                return Ok(markup_end);
            };
            cx.call(format, at..markup_end, name, id, arguments)?;
            Ok(markup_end)
        }
        Body::Fail(format, failure) => {
            let markup_end = call_ends.end_of_next(body, end);
            cx.fail(format, at..markup_end, failure);
            Ok(markup_end)
        }
    }
}
