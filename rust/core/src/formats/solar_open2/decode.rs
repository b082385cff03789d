//! Decoding a Solar Open 2 call (its region: from its start token to its end token, to the next
//! call's start, or to the end of the text).

use std::ops::Range;

use super::super::cursor::{Markers, TextSeek};
use super::super::cx::{skip_ws, Cx, Failure};
use super::{ARG, ARG_END, ARG_VALUE, CALL, CALL_END};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;
use crate::scan::find::find_either;

/// What ends an argument's key: its value token, or (dropped) a token that leaves no value.
static KEY_ENDS: Markers = Markers::new(&[ARG_VALUE, ARG, ARG_END, CALL_END]);
/// What ends a value: its end token, or (dropped) the next argument or the call's end.
static VALUE_ENDS: Markers = Markers::new(&[ARG_END, ARG, CALL_END]);

pub(super) fn call<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let (text, end) = (cx.text, range.end);
    let fail = |cx: &mut Cx<'_, '_, B>, detail: String, at: usize, name: Option<&str>| {
        let failure = Failure::parse(detail, at, name.map(str::to_owned));
        cx.fail(Format::SolarOpen2, range.clone(), failure);
        Ok(())
    };
    let body = range.start + CALL.len();
    // The name is its line: one a token cuts short is no name.
    let line_end = find_either(b'\n', b'<', &text.as_bytes()[body..end]).map(|i| body + i);
    let Some(line_end) = line_end.filter(|&e| text.as_bytes()[e] == b'\n') else {
        return fail(cx, "expected a tool name on the call's line".into(), body, None);
    };
    let name = text[body..line_end].trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return fail(cx, "expected a tool name".into(), body, None);
    }
    let (mut key_ends, mut value_ends) = (
        TextSeek::new(text, end, &KEY_ENDS),
        TextSeek::new(text, end, &VALUE_ENDS),
    );
    let mut arguments = cx.builder.new_object()?;
    let mut pos = line_end;
    loop {
        pos = skip_ws(text, pos, end);
        let rest = &text[pos..end];
        if rest.is_empty() || rest.starts_with(CALL_END) {
            break;
        }
        if !rest.starts_with(ARG) {
            return fail(cx, format!("expected {ARG} or {CALL_END}"), pos, Some(name));
        }
        let key_start = pos + ARG.len();
        let Some(key_end) = key_ends.next(key_start).filter(|m| m.pattern == 0) else {
            return fail(cx, format!("no {ARG_VALUE} after the key"), pos, Some(name));
        };
        let key = text[key_start..key_end.start].trim();
        let value_start = key_end.end;
        let (value_end, next) = match value_ends.next(value_start) {
            Some(m) if m.pattern == 0 => (m.start, m.end),
            Some(m) => (m.start, m.start),
            None => (end, end),
        };
        cx.insert_value(&mut arguments, name, key, &text[value_start..value_end], None)?;
        pos = next;
    }
    let arguments = cx.builder.finish_object(arguments)?;
    cx.call(Format::SolarOpen2, range, name.to_owned(), None, arguments)?;
    Ok(())
}
