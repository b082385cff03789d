//! Messages with a recipient header: `harmony` (gpt-oss) and `muse_glimmer`, which frame every
//! message alike.
//!
//! * `harmony`: messages `<|start|>ROLE<|channel|>CHANNEL<|message|>BODY` ended by `<|end|>`,
//!   `<|call|>`, `<|return|>` or the next `<|start|>`. A message with a recipient
//!   (`to=functions.f`, in the role header or after the channel) is a call whose body is the
//!   JSON arguments, on any channel, with or without `<|constrain|>json`; the name drops
//!   `functions.`. Other `analysis` messages go to `reasoning`, the rest to `content`.
//! * `muse_glimmer`: messages `<|start|>assistant to=RECIPIENT<|message|>BODY` ended by
//!   `<|eom|>` (more follow), `<|eot|>` (end of turn), `<|end_of_text|>` or the next
//!   `<|start|>`; after `<|eom|>`, the next message's header may leave out `<|start|>assistant`
//!   (` to=f<|message|>…`, read as at the start of the text). `to=self` is
//!   reasoning, `to=user` (or no recipient: `<|message|>Hi`) content, and a message to any other recipient is a
//!   call whose body is an ATEM block (`<atem:function_calls><atem:invoke name="f">
//!   <atem:parameter name="a">1</atem:parameter></atem:invoke></atem:function_calls>`, several
//!   invokes per block, values typed by the tool schema as in qwen3_coder; the names are the
//!   invokes'). An ATEM block with no framing around it is read as calls too; one quoted in a
//!   `to=user` or `to=self` message is text.
//!
//! A text that starts in the middle of a header, the `<|start|>assistant` being in the prompt,
//! works too: at the channel (`<|channel|>…`, harmony), or, at the very start of the message
//! only, at the recipient (` to=functions.f<|channel|>commentary …` in harmony,
//! ` to=user<|message|>` in Muse Glimmer: `to=`, a word and `<|channel|>` or `<|message|>`;
//! text that begins with `to=` and goes on otherwise is prose).

mod decode;
mod machine;

use std::ops::Range;

use super::cursor::{find_short, Markers};
use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use super::invoke::quoted::Quoted;
use super::invoke::{self, Tags};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};
use crate::scan::find::Needle;

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
const MESSAGE: &str = "<|message|>";
/// A role header's recipient, where a completion starts inside the header.
const RECIPIENT: &str = "to=";
/// How far after `to=` the `<|channel|>` (or `<|message|>`) of a role header is looked for.
const MAX_HEADER: usize = 256;
static MESSAGE_NEEDLE: Needle = Needle::new(MESSAGE);

/// Muse Glimmer's call block. A tool registered without a namespace is invoked by its name
/// twice (`get_weather.get_weather`), read as the tool's name. In a call message the block's
/// `<atem:function_calls>` may be left out, the body then its invokes (Dynamo's Muse Glimmer
/// tests write it so): the last marker opens that run of bare invokes, which has no closing tag.
const ATEM_OPEN: &str = "<atem:function_calls>";
const ATEM_INVOKE: &str = "<atem:invoke";
const ATEM_INVOKE_CLOSE: &str = "</atem:invoke>";
const ATEM_CLOSE: &str = "</atem:function_calls>";
const ATEM_PARAMETER: &str = "<atem:parameter";
const ATEM_PARAMETER_CLOSE: &str = "</atem:parameter>";
static ATEM_CLOSES: [Needle; 1] = [Needle::new(ATEM_CLOSE)];
/// What an ATEM block opens with: its wrapper, or (left out) its first invoke.
const ATEM_OPENINGS: [&str; 2] = [ATEM_OPEN, ATEM_INVOKE];
/// A value may quote a whole ATEM block or invoke (`invoke::quoted`).
static ATEM_QUOTED: Quoted = Quoted::new(
&[
        ATEM_PARAMETER_CLOSE,
        ATEM_PARAMETER,
        ATEM_OPEN,
        "<atem:invoke ",
        ATEM_CLOSE,
        ATEM_INVOKE_CLOSE,
    ],
2,
);
static ATEM: Tags = Tags {
    format: Format::MuseGlimmer,
    closes: &ATEM_CLOSES,
    open_markers: Markers::new(&ATEM_OPENINGS),
    recover: &[
        Markers::new(&[ATEM_INVOKE_CLOSE, ATEM_CLOSE]),
        Markers::new(&[ATEM_INVOKE_CLOSE]),
    ],
    invoke: ATEM_INVOKE,
    invoke_close: Needle::new(ATEM_INVOKE_CLOSE),
    parameter: ATEM_PARAMETER,
    parameter_close: Needle::new(ATEM_PARAMETER_CLOSE),
    parameter_ends_value: false,
    quoted: Some(&ATEM_QUOTED),
    between: &[],
    between_name: None,
    other_entry: None,
    json_body: None,
    attrs: invoke::Attrs {
        doubled_names: true,
        ..invoke::XML_ATTRS
    },
    left_open: None,
};

const BOTH: FormatSet = FormatSet::of(&[Format::Harmony, Format::MuseGlimmer]);
const HARMONY: FormatSet = FormatSet::only(Format::Harmony);
const MUSE: FormatSet = FormatSet::only(Format::MuseGlimmer);

/// What ends a message body; the last one (a new message) is not part of this one's markup.
/// Muse Glimmer's end of text (`<|end_of_text|>`, its end-of-sequence token) ends the message it
/// stands in, as `<|eot|>` does (mistral.rs's ATEM parser drops it from the answer).
const ENDS: [&str; 7] = [
    "<|end|>", "<|call|>", "<|return|>", "<|eom|>", "<|eot|>", "<|end_of_text|>", START,
];
static TERMINATORS: Markers = Markers::new(&ENDS);

const fn start(text: &'static str, formats: FormatSet) -> Start {
    Start { text, formats }
}

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[
        start(START, BOTH),
        start(CHANNEL, HARMONY),
        // Anchored (`markers::is_anchored`): looked for at the start of a message only.
        start(RECIPIENT, BOTH),
        // An ATEM block with no framing around it.
        start(ATEM_OPEN, MUSE),
        // A Muse Glimmer answer with no recipient (` to=user` is optional).
        start(MESSAGE, MUSE),
    ];
    const PROSE_ENDS: &'static [Start] = &[
        start(ENDS[0], HARMONY),
        start(ENDS[1], HARMONY),
        start(ENDS[2], HARMONY),
        start(ENDS[3], MUSE),
        start(ENDS[4], MUSE),
        start(ENDS[5], MUSE),
        start(ENDS[6], BOTH),
    ];
    // Muse Glimmer's `<|eom|>`: more messages follow, their `<|start|>assistant` at times left
    // out (OpenVINO Model Server's Onyx tests: ` to=self<|message|>…<|eom|> to=f<|message|>…`).
    const NEXT_HEADER_AFTER: &'static [&'static str] = &[ENDS[3]];
    const REASONING_IS_A_MESSAGE: FormatSet = BOTH;
    const DROPPED_IN_PROSE: &'static [&'static str] = &[MESSAGE];
    // A stray closing block (the model's special token) is never content.
    const CONTROL: &'static [&'static str] = &[ATEM_CLOSE];

    type Machine = machine::HarmonyMessage;

    fn open(start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        match start {
            // The recipient is the header's own text.
            Some(2) => machine::HarmonyMessage::at_recipient(open),
            Some(3) => machine::HarmonyMessage::block(at, open),
            // A header with nothing before `<|message|>`.
            Some(4) => machine::HarmonyMessage::new(true, 0, open),
            _ => machine::HarmonyMessage::new(start == Some(0), at, open),
        }
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        if cx.text[range.start..].starts_with(ATEM_OPEN) {
            return invoke::decode::parse_region(cx, range, &ATEM);
        }
        decode::parse_region(cx, range)
    }
}

/// Whether a message that starts with `to=` (`text`, from it) is a role header: `to=`, a word,
/// blank space and `<|channel|>` (harmony) or `<|message|>` (Muse Glimmer), among `formats`,
/// within [`MAX_HEADER`] bytes; `None` until the text shows it. (Other models write
/// `to=functions.f<|message|>` with markup of their own after it: not harmony.)
fn recipient_header(text: &str, formats: FormatSet) -> Option<bool> {
    let rest = text.get(RECIPIENT.len()..)?;
    // Held back no further than a tool's name and a marker: a longer start is prose.
    let cut = (rest.len() > MAX_HEADER)
        .then(|| (0..=MAX_HEADER).rev().find(|&i| rest.is_char_boundary(i)))
        .flatten();
    let head = &rest[..cut.unwrap_or(rest.len())];
    let after = head[word_len(head)..].trim_start_matches([' ', '\t']).as_bytes();
    let mut undecided = false;
    for (marker, format) in [(CHANNEL, Format::Harmony), (MESSAGE, Format::MuseGlimmer)] {
        if !formats.contains(format) {
            continue;
        }
        let n = after.len().min(marker.len());
        if after[..n] == marker.as_bytes()[..n] {
            if n == marker.len() {
                return Some(true);
            }
            undecided = true;
        }
    }
    if undecided && cut.is_none() {
        None
    } else {
        Some(false)
    }
}

/// Whether a call message's body, from `at`, is an ATEM block (Muse Glimmer, among `formats`),
/// and which of [`ATEM`]'s openings starts it (the wrapper, or a bare invoke): `Some(None)` when
/// it is not one, `None` while the text so far does not tell.
fn block_at(body: &[u8], at: usize, formats: FormatSet) -> Option<Option<usize>> {
    if !formats.contains(Format::MuseGlimmer) {
        return Some(None);
    }
    super::machine::starts_any(body, at, &ATEM_OPENINGS).ok()
}

/// The length of the opening of [`ATEM`] `block` starts with.
fn block_open_len(block: usize) -> usize {
    ATEM_OPENINGS[block].len()
}

/// The words of a header that follow a recipient without being part of it: the content type
/// (`json`, `code`, `text`, also after `<|constrain|>`) and the channels.
const HEADER_WORDS: [&str; 6] = ["json", "code", "text", "commentary", "analysis", "final"];

/// The word after `to=` in a header, if any. A tool's name may hold spaces (gpt-oss in LM
/// Studio wrote `to=functions.Web Search <|constrain|>json`, lmstudio-bug-tracker#876): after
/// `functions.`, each word one space after the name is more of it ([`joins_name`]), so the
/// name is never its first word alone.
fn recipient(header: &str) -> Option<&str> {
    let at = find_short(header, "to=")?;
    let rest = &header[at + 3..];
    let mut end = word_len(rest);
    if rest.starts_with("functions.") {
        while let Some(word) = rest[end..].strip_prefix(' ').map(|r| &r[..word_len(r)]) {
            if !joins_name(word) {
                break;
            }
            end += 1 + word.len();
        }
    }
    Some(&rest[..end]).filter(|r| !r.is_empty())
}

/// Whether `word`, written one space after a tool's name, is more of the name: a word that is
/// neither a header word (in any case) nor another attribute (`key=value`).
fn joins_name(word: &str) -> bool {
    !word.is_empty()
        && !word.contains('=')
        && !HEADER_WORDS.iter().any(|w| w.eq_ignore_ascii_case(word))
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
        // Muse Glimmer's reasoning.
        Some("self") => Message::Analysis,
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
