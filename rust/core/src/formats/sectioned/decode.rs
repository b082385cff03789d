//! Decoding a token-delimited region: a section of calls, or one call.

use std::ops::Range;

use super::super::cursor::TextSeek;
use super::super::cx::{skip_ws, Cx, Failure};
use super::super::pythonic::sarashina::dict_list;
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
    // Where each header ends (`Tokens::header_ends`).
    let mut heads = TextSeek::new(text, end, &tokens.header_ends);
    let mut ends = TextSeek::new(text, end, &tokens.call_end);
    cx.markup_in_prose(range, &tokens.starts, |cx, marker| {
        let opens = tokens.opens[marker.pattern];
        if opens != Opens::Call {
            // A section; DeepSeek R1's `<｜tool▁calls｜>` also begins its first call.
            let mut p = marker.end;
            let mut calls = false;
            if opens == Opens::SectionAndCall {
                let (at, header) = (marker.start, marker.end);
                p = one_call(cx, at, header, end, tokens, &mut heads, &mut ends, read)?;
                calls = true;
            }
            loop {
                p = skip_ws(text, p, end);
                let rest = &text[p..end];
                if rest.starts_with(tokens.call_begin) {
                    let header = p + tokens.call_begin.len();
                    p = one_call(cx, p, header, end, tokens, &mut heads, &mut ends, read)?;
                    calls = true;
                } else if let Some(e) = tokens.section_ends().iter().find(|e| rest.starts_with(**e))
                {
                    break Ok(p + e.len());
                } else if !calls && p < end && tokens.holds_list(text.as_bytes()[p], cx.allowed) {
                    p = dict_list(cx, marker.start, p, end, false)?;
                    calls = true;
                } else if calls || p == end {
                    break Ok(p);
                } else if begin_left_out(text, p, end, tokens, &mut heads) {
                    p = one_call(cx, p, p, end, tokens, &mut heads, &mut ends, read)?;
                    calls = true;
                } else {
                    break Ok(no_call(cx, marker.start, p, end, tokens));
                }
            }
        } else {
            let (at, header) = (marker.start, marker.end);
            one_call(cx, at, header, end, tokens, &mut heads, &mut ends, read)
        }
    })
}

/// Whether the text at `p`, in a section before its first call, is a call whose `CALL_BEGIN` was
/// left out: its `SEP` comes before any `CALL_END` and before the next call or the section's
/// end (`<｜tool▁calls▁begin｜>f<｜tool▁sep｜>{…}`, Xinference's DeepSeek V3.1 tests): the
/// separator is the call's own token, which prose never holds.
fn begin_left_out(
    text: &str,
    p: usize,
    end: usize,
    tokens: &Tokens,
    heads: &mut TextSeek<'_>,
) -> bool {
    let Some(head) = heads.next(p).filter(|m| m.pattern == 0) else {
        return false;
    };
    tokens
        .in_section_marks
        .find(text, p, end)
        .is_none_or(|mark| head.start < mark.start)
}

/// Text at `p` in a section opened at `at`, before any call: when a call begins later in the
/// section, that text is prose and the section ends here (returns `p`); when the section ends (or
/// the text does) first, the model began a section it wrote no call in (cut off, or the call's
/// tokens left out): one failed call, its markup to the section's end, never prose.
fn no_call<B>(cx: &mut Cx<'_, '_, B>, at: usize, p: usize, end: usize, tokens: &Tokens) -> usize
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let next = tokens.in_section_marks.find(cx.text, p, end);
    if next.is_some_and(|m| m.pattern == 0) {
        return p;
    }
    let markup_end = next.map_or(end, |m| m.end);
    let detail = format!("no {} in the section", tokens.call_begin);
    let format = tokens.first_allowed(cx.allowed);
    cx.fail(format, at..markup_end, Failure::parse(detail, p, None));
    markup_end
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
    heads: &mut TextSeek<'_>,
    call_ends: &mut TextSeek<'_>,
    read: ReadBody<B>,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    // The header ends at `SEP`; `CALL_END` (the call ends after it) or the next call's
    // `CALL_BEGIN` (it ends before it) first: no separator, a failed call.
    let header_end = heads.next(header_start);
    let Some(sep) = header_end.filter(|m| m.pattern == 0).map(|m| m.start) else {
        let markup_end = match header_end {
            Some(m) if m.pattern == 1 => m.end,
            Some(m) => m.start,
            None => end,
        };
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
            let rest = &text[after..end];
            let markup_end = if rest.starts_with(tokens.call_end.text) {
                after + tokens.call_end.text.len()
            } else if cut_token(rest, tokens) {
                // A token cut by the end of the text (a generation stopped in it): markup.
                end
            } else if after == end || tokens.in_section.iter().any(|t| rest.starts_with(*t)) {
                // The end of the text, the next call or the section's end: the call's end token
                // was left out.
                after
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

/// Whether `rest`, the text after a call's arguments to the end of the region, is a token the
/// end of the text cut: a proper prefix of the call's end token, or of what may follow a call
/// in the section (Ollama's `TestDeepSeek3ParserFinalizesToolCallWithPartialEndTagOnDone`).
fn cut_token(rest: &str, tokens: &Tokens) -> bool {
    let cut = |token: &str| rest.len() < token.len() && token.starts_with(rest);
    cut(tokens.call_end.text) || tokens.in_section.iter().any(|t| cut(t))
}
