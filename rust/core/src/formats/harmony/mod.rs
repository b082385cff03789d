//! `harmony` (gpt-oss): messages `<|start|>ROLE<|channel|>CHANNEL<|message|>BODY` ended by
//! `<|end|>`, `<|call|>`, `<|return|>` or the next `<|start|>`. A message with a recipient
//! (`to=functions.f`, in the role header or after the channel) is a call whose body is the JSON
//! arguments, on any channel, with or without `<|constrain|>json`; the name drops `functions.`.
//! Other `analysis` messages go to `reasoning`, the rest to `content`. A text that starts in
//! the middle of a header, the `<|start|>assistant` being in the prompt, works too: at the
//! channel (`<|channel|>…`), or, at the very start of the message only, at the recipient
//! (` to=functions.f<|channel|>commentary …`: `to=`, a word and `<|channel|>`; text that begins
//! with `to=` and goes on otherwise is prose).

mod decode;
mod machine;

use std::ops::Range;

use super::cursor::{find_short, Markers};
use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};
use crate::scan::find::Needle;

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
const MESSAGE: &str = "<|message|>";
/// A role header's recipient, where a completion starts inside the header.
const RECIPIENT: &str = "to=";
/// How far after `to=` the `<|channel|>` of a role header is looked for.
const MAX_HEADER: usize = 256;
static MESSAGE_NEEDLE: Needle = Needle::new(MESSAGE);

/// What ends a message body; the last one (a new message) is not part of this one's markup.
const ENDS: [&str; 4] = ["<|end|>", "<|call|>", "<|return|>", START];
static TERMINATORS: Markers = Markers::new(&ENDS);

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[
        Start {
            text: START,
            formats: FormatSet::only(Format::Harmony),
        },
        Start {
            text: CHANNEL,
            formats: FormatSet::only(Format::Harmony),
        },
        // Anchored (`markers::is_anchored`): looked for at the start of a message only.
        Start {
            text: RECIPIENT,
            formats: FormatSet::only(Format::Harmony),
        },
    ];
    const PROSE_ENDS: &'static [Start] = &{
        let mut ends = [Start {
            text: START,
            formats: FormatSet::only(Format::Harmony),
        }; ENDS.len()];
        let mut i = 0;
        while i < ENDS.len() {
            ends[i].text = ENDS[i];
            i += 1;
        }
        ends
    };

    type Machine = machine::HarmonyMessage;

    fn open(start: Option<usize>, at: usize, _open: Open) -> Self::Machine {
        match start {
            // The recipient is the header's own text.
            Some(2) => machine::HarmonyMessage::at_recipient(),
            _ => machine::HarmonyMessage::new(start == Some(0), at),
        }
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        decode::parse_region(cx, range)
    }
}

/// Whether a message that starts with `to=` (`text`, from it) is a role header: `to=`, a word,
/// blank space and `<|channel|>`, within [`MAX_HEADER`] bytes; `None` until the text shows it.
/// (Other models write `to=functions.f<|message|>` with markup of their own after it: not
/// harmony.)
fn recipient_header(text: &str) -> Option<bool> {
    let rest = text.get(RECIPIENT.len()..)?;
    // Held back no further than a tool's name and a marker: a longer start is prose.
    let cut = (rest.len() > MAX_HEADER)
        .then(|| (0..=MAX_HEADER).rev().find(|&i| rest.is_char_boundary(i)))
        .flatten();
    let head = &rest[..cut.unwrap_or(rest.len())];
    let after = head[word_len(head)..].trim_start_matches([' ', '\t']).as_bytes();
    let n = after.len().min(CHANNEL.len());
    if after[..n] != CHANNEL.as_bytes()[..n] {
        return Some(false);
    }
    if n == CHANNEL.len() {
        Some(true)
    } else {
        cut.map(|_| false)
    }
}

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
enum Message {
    /// A call to this tool (the name without `functions.`).
    Call(String),
    Analysis,
    Other,
}

/// Reads a header that follows `<|start|>` (`after_start`) or `<|channel|>`. A header that
/// names its channel twice (`<|channel|>commentary to=assistant<|channel|>analysis`, as gpt-oss
/// sometimes writes) is on the last one; what comes before it is read as the role.
fn classify(header: &str, after_start: bool) -> Message {
    let (role, channel) = match header.rfind(CHANNEL) {
        Some(i) => (&header[..i], &header[i + CHANNEL.len()..]),
        None if after_start => (header, ""),
        None => ("", header),
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
