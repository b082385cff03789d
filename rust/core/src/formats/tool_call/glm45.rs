//! `glm45` (GLM-4.5/4.6, and GLM-4.7 without the newlines):
//! `<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>`. Values are
//! typed as in qwen3_coder. Laguna writes these calls, and at times a JSON call object
//! in the tag (read as hermes reads it) or the arguments as one JSON object after the name;
//! GLM-5.3 Flash writes JSON arguments after a `>`: `<tool_call>f>{"a": 1}`, its
//! `</tool_call>` often left out. HY v3 writes the same calls with `<tool_sep>` after the name
//! (either form of arguments may follow it), in a `<tool_calls>` list (read by the call-list
//! group with [`calls`]).
//! `hyperclovax_seed_think` (HyperCLOVA X SEED Think) writes glm45's calls with each value
//! JSON-encoded: a JSON string literal there is that string.

use std::ops::Range;

use super::super::cursor::{failed_end, Markers, TextSeek};
use super::super::cx::{skip_ws, Cx, Failure};
use super::super::schema::layout::without_line_break;
use super::hermes;
use super::tags::{
    close_tag, closes_value, reopens, repeat_end, typed_name, AfterFunction, Closers, Pairs, OPEN,
    TOOL_CALL, TOOL_SEP,
};
use crate::json::{JsonBuilder, JsonKind, JsonStr, JsonView};
use crate::protocol::Format;
use crate::scan::find::find_any3;

/// The `<tool_call>` calls at `body`, one after another (HY v3's list); returns where the last
/// one's markup ends.
pub(crate) fn calls<B>(
    cx: &mut Cx<'_, '_, B>,
    format: Format,
    body: usize,
    end: usize,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let mut closers = Closers::new(text, end, &TOOL_CALL);
    let (mut pos, mut next) = (body, body);
    while text[next..end].starts_with(OPEN) {
        let name = skip_ws(text, next + OPEN.len(), end);
        pos = call(cx, format, next, name, end, &mut closers)?;
        next = skip_ws(text, pos, end);
    }
    Ok(pos)
}

/// One call whose `<tool_call>` starts at `open` and whose name starts at `body`. Returns where
/// its markup ends.
pub(super) fn call<B>(
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
    let mut fail = |cx: &mut Cx<'_, '_, B>, from: usize, failure: Failure| {
        // (The wrapper's seek alone: the closure borrows no other closer.)
        let markup_end = failed_end(closers.wrap.next(from), end);
        cx.fail(format, open..markup_end, failure);
        markup_end
    };
    let mut name_end = find_any3(b'<', b'>', b'\n', &text.as_bytes()[body..end]).map_or(end, |i| body + i);
    let mut name = text[body..name_end].trim();
    if let Ok(Some(real)) = typed_name(&text[..end], name, name_end, name_end + 1) {
        (name, name_end) = (&text[real.clone()], real.end);
    }
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Ok(fail(
            cx,
            body,
            Failure::parse("expected a tool name", body, None),
        ));
    }
    if text[name_end..end].starts_with('>') {
        let close = closers.close;
        return json_arguments(cx, format, (open, name, name_end + 1, end), close, fail);
    }
    let mut pos = skip_ws(text, name_end, end);
    // HY v3's separator after the name, before either form of arguments.
    if text[pos..end].starts_with(TOOL_SEP) {
        pos = skip_ws(text, pos + TOOL_SEP.len(), end);
    }
    if text[pos..end].starts_with('{') {
        let wrap = Some(&TOOL_CALL);
        return match hermes::json_arguments(cx, format, open, name, pos, end, wrap, false, closers)? {
            AfterFunction::Closed(markup_end) | AfterFunction::Another(markup_end) => Ok(markup_end),
            AfterFunction::Missing => unreachable!("a call read to its end says where"),
        };
    }
    let mut arguments = cx.builder.new_object()?;
    // Where the call's markup was last opened: a model that restarts the call writes it again
    // from there (`tags::repeat_end`), then goes on.
    let mut start = open;
    let pairs = closers.pairs;
    let (key_tag, key_close_tag) = (pairs.key, pairs.key_close);
    let (value_tag_text, value_close_tag) = (pairs.value, pairs.value_close);
    loop {
        pos = skip_ws(text, pos, end);
        if !text[pos..end].starts_with(key_tag) {
            let bytes = &text.as_bytes()[..end];
            if reopens(bytes, pos, closers.ends) == Some(true) {
                if let Ok(Some(repeat)) = repeat_end(bytes, start, pos) {
                    (start, pos) = (pos, repeat);
                    continue;
                }
            }
            break;
        }
        let key_start = pos + key_tag.len();
        let Some(key_close) = closers.arg_key.find(key_start) else {
            // No `</arg_key>` in the rest of the text: the call runs to its end (the stream,
            // waiting for one, knows no more).
            let failure = Failure::parse(format!("no {key_close_tag}"), pos, Some(name.into()));
            cx.fail(format, open..end, failure);
            return Ok(end);
        };
        let key = text[key_start..key_close].trim();
        let value_tag = skip_ws(text, key_close + key_close_tag.len(), end);
        let (raw, next) = if text[value_tag..end].starts_with(value_tag_text) {
            let value_start = value_tag + value_tag_text.len();
            let quoting = (&mut closers.quoted, &mut closers.quoting);
            let seeks = (&mut closers.arg_value, closers.ends, pairs);
            let from = after_quoted_calls(text, value_start, end, quoting, seeks).unwrap_or(value_start);
            let closes = (&mut closers.arg_value, closers.ends, pairs);
            let Some((value_end, next)) = value_end(text, from, end, closes) else {
                let failure = Failure::parse(format!("no {value_close_tag}"), value_tag, Some(name.into()));
                return Ok(fail(cx, value_tag, failure));
            };
            (value_start..value_end, next)
        } else if let Some(found) = value_without_open(text, value_tag, (&mut closers.arg_value, closers.ends, pairs)) {
            found
        } else {
            let detail = format!("expected {value_tag_text} after the key '{key}'");
            return Ok(fail(
                cx,
                value_tag,
                Failure::parse(detail, value_tag, Some(name.into())),
            ));
        };
        let json_encoded = format == Format::HyperclovaxSeedThink;
        if !(json_encoded && json_string(cx, &mut arguments, key, raw.clone())?) {
            cx.insert_value(&mut arguments, name, key, &text[raw], None)?;
        }
        pos = next;
    }
    let close = closers.close;
    let Some(markup_end) = close_tag(text, start, pos, end, closers.ends) else {
        let failure = Failure::parse(format!("expected {key_tag} or {close}"), pos, Some(name.into()));
        return Ok(fail(cx, pos, failure));
    };
    let arguments = cx.builder.finish_object(arguments)?;
    cx.call(
        format,
        open..markup_end,
        name.to_owned(),
        None,
        arguments,
    )?;
    Ok(markup_end)
}

/// HyperCLOVA X SEED Think writes each value as JSON (its template's `tojson`): a value that
/// is a JSON string literal (`"Seoul"`) is that string, inserted under `key`; returns whether
/// it was one (any other value is typed as glm45's, by the schema).
fn json_string<B>(
    cx: &mut Cx<'_, '_, B>,
    arguments: &mut B::Object,
    key: &str,
    raw: Range<usize>,
) -> Result<bool, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let written = &cx.text[raw.clone()];
    let value = written.trim();
    if !value.starts_with('"') {
        return Ok(false);
    }
    let start = raw.start + (written.len() - written.trim_start().len());
    let end = start + value.len();
    match cx.json_at(start, end)? {
        Ok((string, at)) if at == end && string.kind() == JsonKind::String => {
            cx.builder.object_insert(arguments, JsonStr::from_utf8(key), string)?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// GLM-5.3 Flash's call: JSON arguments after the name's `>` (from `at`), its closing tag
/// `close` optional (the call then ends with them). Returns where its markup ends.
fn json_arguments<B>(
    cx: &mut Cx<'_, '_, B>,
    format: Format,
    (open, name, at, end): (usize, &str, usize, usize),
    close: &str,
    mut fail: impl FnMut(&mut Cx<'_, '_, B>, usize, Failure) -> usize,
) -> Result<usize, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let start = skip_ws(text, at, end);
    if !text[start..end].starts_with('{') {
        let failure = Failure::parse("expected JSON arguments", start, Some(name.into()));
        return Ok(fail(cx, start, failure));
    }
    let (arguments, json_end) = match cx.json_at(start, end)? {
        Ok(read) => read,
        Err(error) => return Ok(fail(cx, start, Failure::json(error, Some(name.into())))),
    };
    let after = skip_ws(text, json_end, end);
    let markup_end = if text[after..end].starts_with(close) {
        after + close.len()
    } else {
        json_end
    };
    cx.call(format, open..markup_end, name.to_owned(), None, arguments)?;
    Ok(markup_end)
}

/// Where the calls a value that starts at `start` quotes whole end (a file that documents the
/// call syntax): a wrapper's opening tag before the value's first `</arg_value>` opens one,
/// which the wrapper's closing tag closes (ones opened inside it counted), and more may follow.
/// `None` when the value quotes none, or when that reading does not hold: a quoted call never
/// closes, or no `</arg_value>` that closes the value follows the quoted calls with no other
/// tag of the wrapper before it (`Use the <tool_call> tag` mentions one). The value is then
/// read as if it quoted nothing, and so are the region's later values, which keeps the search
/// linear. The stream machine reads a quoted call so too (`State::GQuotedCall`).
fn after_quoted_calls(
    text: &str,
    start: usize,
    end: usize,
    (quoted, quoting): (&mut TextSeek<'_>, &mut bool),
    (arg_value_close, ends, pairs): (&mut TextSeek<'_>, &Markers, &Pairs),
) -> Option<usize> {
    let mut pos = start;
    while *quoting {
        let first_close = arg_value_close.find(pos);
        let opener = quoted
            .next(pos)
            .filter(|tag| tag.pattern != 0 && first_close.is_none_or(|c| tag.start < c));
        let Some(opener) = opener else {
            break;
        };
        let (mut depth, mut at) = (1u32, opener.end);
        while depth > 0 {
            let Some(tag) = quoted.next(at) else {
                *quoting = false;
                return None;
            };
            depth = if tag.pattern == 0 { depth - 1 } else { depth + 1 };
            at = tag.end;
        }
        pos = at;
    }
    if pos == start {
        return None;
    }
    let close = arg_value_close.find(pos);
    let next_tag = quoted.next(pos);
    let bytes = &text.as_bytes()[..end];
    let holds = close.is_some_and(|close| {
        let after = close + pairs.value_close.len();
        next_tag.is_none_or(|tag| tag.start > close)
            && closes_value(bytes, after, ends, pairs.key) != Some(false)
    });
    if !holds {
        *quoting = false;
        return None;
    }
    Some(pos)
}

/// Where a value ends, its tags looked for from `from` (its start, or past the calls it quotes
/// whole: [`after_quoted_calls`]), and where reading goes on: after the
/// `</arg_value>` that closes it ([`closing_value_tag`]), or, where the model left that tag
/// out, at what follows the value: the next pair's `<arg_key>` (another `<arg_value>` opens
/// before any `</arg_value>`) or the call's closing tag (no `</arg_value>` at all). A value may
/// hold either tag as text when it is closed (`Wrap each call in <tool_call>…</tool_call>` is
/// one value). A left-open value ends before the line break that puts the next tag on a line of
/// its own (the template's layout).
fn value_end(
    text: &str,
    from: usize,
    end: usize,
    (arg_value_close, ends, pairs): (&mut TextSeek<'_>, &Markers, &Pairs),
) -> Option<(usize, usize)> {
    let close = arg_value_close.find(from);
    let value = &text[from..close.unwrap_or(end)];
    let cut = |before: usize| {
        let at = |tag: &str| value[..before].find(tag);
        let cut = match (at(pairs.key), at(ends.patterns()[0])) {
            (Some(k), Some(c)) => k.min(c),
            (k, c) => k.or(c)?,
        };
        // The line break that put the next tag on a line of its own is the template's layout,
        // not the value's, as for qwen3_coder's left-open values.
        let left = &value[..cut];
        Some((from + without_line_break(left).len(), from + cut))
    };
    let closed = |close: usize, seek: &mut TextSeek<'_>| {
        let close = closing_value_tag(text, close, end, seek, (ends, pairs));
        (close, close + pairs.value_close.len())
    };
    match (value.find(pairs.value), close) {
        // A value that is itself the tag (`<arg_value><arg_value></arg_value>`) has no pair
        // to cut at.
        (Some(next_value), Some(close)) => {
            cut(next_value).or_else(|| Some(closed(close, arg_value_close)))
        }
        (Some(next_value), None) => cut(next_value),
        (None, Some(close)) => Some(closed(close, arg_value_close)),
        (None, None) => cut(value.len()),
    }
}

/// A value whose `<arg_value>` the model left out but closed (`</arg_key>v</arg_value>`,
/// vllm-project/vllm#49248), from `from` (past the layout's whitespace): its text and where its
/// markup ends, when no other tag of the call comes before that `</arg_value>`.
fn value_without_open(
    text: &str,
    from: usize,
    (arg_value_close, ends, pairs): (&mut TextSeek<'_>, &Markers, &Pairs),
) -> Option<(Range<usize>, usize)> {
    let close = arg_value_close.find(from)?;
    let value = &text[from..close];
    let tags = [pairs.key, pairs.key_close, pairs.value];
    if tags.iter().chain(ends.patterns()).any(|tag| value.contains(tag)) {
        return None;
    }
    Some((from..close, close + pairs.value_close.len()))
}

/// The `</arg_value>` that closes a value whose first one is at `first`: the first that
/// [`closes_value`], with none of the call's `ends` before it (a value never quotes the tag
/// past its call's end); `first` when none does.
fn closing_value_tag(
    text: &str,
    first: usize,
    end: usize,
    seek: &mut TextSeek<'_>,
    (ends, pairs): (&Markers, &Pairs),
) -> usize {
    let bytes = &text.as_bytes()[..end];
    let mut at = first;
    loop {
        let after = at + pairs.value_close.len();
        if closes_value(bytes, after, ends, pairs.key) != Some(false) {
            return at;
        }
        match seek.find(after) {
            Some(next) if ends.find(text, after, next).is_none() => at = next,
            _ => return first,
        }
    }
}
