//! `harmony` (gpt-oss): messages `<|start|>ROLE<|channel|>CHANNEL<|message|>BODY` ended by
//! `<|end|>`, `<|call|>`, `<|return|>` or the next `<|start|>`. A message with a recipient
//! (`to=functions.f`, in the role header or after the channel) is a call whose body is the JSON
//! arguments, on any channel, with or without `<|constrain|>json`; the name drops `functions.`.
//! Other `analysis` messages go to `reasoning`, the rest to `content`. A text that starts in
//! the middle of a header (`<|channel|>…`, the `<|start|>assistant` being in the prompt) works
//! too.

use std::ops::Range;

use super::cursor::{find_short, Markers, ProseCursor, Seek};
use super::{skip_ws, Cx, Failure, Format};
use crate::json::{JsonBuilder, JsonView};
use crate::scan::finders::Needle;

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
pub(crate) const MESSAGE: &str = "<|message|>";
static MESSAGE_NEEDLE: Needle = Needle::new(MESSAGE);

static MARKERS: Markers = Markers::new(&[START, CHANNEL]);
/// What ends a message body; the last one (a new message) is not part of this one's markup.
pub(crate) const ENDS: [&str; 4] = ["<|end|>", "<|call|>", "<|return|>", START];
static TERMINATORS: Markers = Markers::new(&ENDS);

/// The word after `to=` in a header, if any.
fn recipient(header: &str) -> Option<&str> {
    let at = find_short(header, "to=")?;
    let rest = &header[at + 3..];
    Some(&rest[..word_len(rest)]).filter(|r| !r.is_empty())
}

/// The length of the word that starts `text`: up to whitespace (as `char::is_whitespace`
/// defines it) or `<`. Bytes are compared while they are ASCII, characters after that.
fn word_len(text: &str) -> usize {
    for (i, &byte) in text.as_bytes().iter().enumerate() {
        match byte {
            // The ASCII characters `char::is_whitespace` accepts, and `<`.
            b'\t'..=b'\r' | b' ' | b'<' => return i,
            0x80.. => {
                let rest = &text[i..];
                let len = rest.find(|c: char| c.is_whitespace() || c == '<');
                return i + len.unwrap_or(rest.len());
            }
            _ => {}
        }
    }
    text.len()
}

/// What a message is, by its header (the text between its start marker and `<|message|>`).
pub(crate) enum Message {
    /// A call to this tool (the name without `functions.`).
    Call(String),
    Analysis,
    Other,
}

/// Reads a header that follows `<|start|>` (`after_start`) or `<|channel|>`.
pub(crate) fn classify(header: &str, after_start: bool) -> Message {
    let (role, channel) = if after_start {
        match find_short(header, CHANNEL) {
            Some(i) => (&header[..i], &header[i + CHANNEL.len()..]),
            None => (header, ""),
        }
    } else {
        ("", header)
    };
    let channel = channel.trim_start();
    let channel_name = &channel[..word_len(channel)];
    match recipient(role).or_else(|| recipient(channel)) {
        Some(to) if !matches!(to, "assistant" | "user" | "system" | "developer") => {
            Message::Call(to.strip_prefix("functions.").unwrap_or(to).to_owned())
        }
        _ if channel_name == "analysis" => Message::Analysis,
        _ => Message::Other,
    }
}

pub(crate) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let mut messages = Seek::new(text, end, &MESSAGE_NEEDLE);
    let mut cursor = ProseCursor::new(text, &MARKERS, range.start);
    let mut pos = range.start;
    while let Some(marker) = cursor.next(pos, end) {
        let Some(message) = messages.find(marker.end) else {
            break;
        };
        cx.prose(pos..marker.start);
        let header = &text[marker.end..message];
        let kind = classify(header, marker.pattern == 0);
        let body = message + MESSAGE.len();
        let (body_end, markup_end) = match TERMINATORS.find(text, body, end) {
            Some(t) if t.pattern == 3 => (t.start, t.start),
            Some(t) => (t.start, t.end),
            None => (end, end),
        };
        match kind {
            Message::Call(name) => call(cx, marker.start..markup_end, name, body, body_end)?,
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

/// A call whose arguments are the whole body `body..body_end`.
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
    if name.is_empty() {
        let failure = Failure::parse("missing tool name", markup.start, None);
        cx.fail(Format::Harmony, markup, failure);
        return Ok(());
    }
    if skip_ws(cx.text, body, body_end) == body_end {
        let arguments = cx.builder.empty_object()?;
        return cx.call(Format::Harmony, markup, name, None, arguments);
    }
    match cx.json_at(body, body_end)? {
        Ok((arguments, json_end)) if skip_ws(cx.text, json_end, body_end) == body_end => {
            cx.call(Format::Harmony, markup, name, None, arguments)
        }
        Ok((_, json_end)) => {
            let failure =
                Failure::parse("extra text after the JSON arguments", json_end, Some(name));
            cx.fail(Format::Harmony, markup, failure);
            Ok(())
        }
        Err(error) => {
            cx.fail(Format::Harmony, markup, Failure::json(error, Some(name)));
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_len_agrees_with_the_char_definition() {
        let ends = |c: char| c.is_whitespace() || c == '<';
        for text in [
            "",
            "functions.f",
            "functions.f <|constrain|>json",
            "f<|call|>",
            "f\u{0B}g",
            "f\u{1C}g",
            "fünf x",
            "f\u{A0}g",
            "f\u{3000}g",
            "日本\u{2028}",
            "a\tb",
        ] {
            let expected = text.find(ends).unwrap_or(text.len());
            assert_eq!(word_len(text), expected, "{text:?}");
        }
    }
}
