//! `cwm` (Meta's Code World Model): a call is `<tool: NAME>`, the tool's input as free text, and
//! `</tool>`, as Meta's prompting guide writes it:
//!
//! ```text
//! <tool: bash>
//! ls -la
//! </tool>
//! ```
//!
//! The label names the tool; the input is what the tool's description in the system prompt
//! asks for (a command line, a path and a file's text), so it is the one argument `command`,
//! trimmed (vLLM's key), unless it is a JSON object, which is the arguments. The `>` after the
//! name may be left out (`<tool: python print(1) </tool>`): the input then starts after the
//! name. A missing `</tool>` ends the call at the end of the text.

mod machine;

use std::ops::Range;

use super::cursor::{Markers, TextSeek};
use super::cx::{skip_ws, Cx, Failure};
use super::grammar::{Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonKind, JsonView};
use crate::protocol::{Format, FormatSet};

const OPEN: &str = "<tool:";
const CLOSE: &str = "</tool>";
/// The argument that holds a call's free-text input.
const INPUT_KEY: &str = "command";
static CLOSES: Markers = Markers::new(&[CLOSE]);

/// A call's label, read from just after `<tool:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Label {
    pub name: Range<usize>,
    /// Where the tool's input starts (after the `>`, or after the name when it is left out).
    pub input: usize,
}

/// The label after a `<tool:` ending at `at` in `b`; `None` while more bytes may tell (the name
/// or the byte after it has not arrived). A name is a run of bytes up to white space, `>` or
/// `<` (a `</tool>` right after the colon leaves no name).
pub(crate) fn label(b: &[u8], at: usize) -> Option<Label> {
    let start = at + b[at..].iter().take_while(|c| matches!(c, b' ' | b'\t')).count();
    let len = b[start..]
        .iter()
        .position(|&c| matches!(c, b'>' | b'<') || c.is_ascii_whitespace())?;
    let name = start..start + len;
    let after = name.end + b[name.end..].iter().position(|c| !c.is_ascii_whitespace())?;
    let input = if b[after] == b'>' { after + 1 } else { name.end };
    Some(Label { name, input })
}

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[Start {
        text: OPEN,
        formats: FormatSet::only(Format::Cwm),
    }];
    const CONTROL: &'static [&'static str] = &["<|eot_id|>"];

    type Machine = machine::CwmCall;

    fn open(_start: Option<usize>, at: usize, _open: Open) -> Self::Machine {
        machine::CwmCall::new(at)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let (text, end) = (cx.text, range.end);
        let input_end = TextSeek::new(text, end, &CLOSES).find(range.start).unwrap_or(end);
        // The text ended inside the label: the name is all there is.
        let bytes = &text.as_bytes()[..input_end];
        let at = range.start + OPEN.len();
        let Label { name, input } = label(bytes, at).unwrap_or(Label {
            name: skip_ws(text, at, input_end)..input_end,
            input: input_end,
        });
        let name = text[name].trim().trim_end_matches('>');
        if name.is_empty() {
            let failure = Failure::parse("expected a tool name", at, None);
            cx.fail(Format::Cwm, range, failure);
            return Ok(());
        }
        let input = skip_ws(text, input.min(input_end), input_end);
        if text.as_bytes().get(input) == Some(&b'{') {
            if let Ok((value, value_end)) = cx.json_at(input, input_end)? {
                let rest = skip_ws(text, value_end, input_end);
                if value.kind() == JsonKind::Object && rest == input_end {
                    return cx.call(Format::Cwm, range, name.to_owned(), None, value);
                }
            }
        }
        cx.text_call(Format::Cwm, range, name, INPUT_KEY, input..input_end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        let read = |text: &str| label(text.as_bytes(), 0);
        assert_eq!(read(" bash>\nls"), Some(Label { name: 1..5, input: 6 }));
        assert_eq!(read(" bash >ls"), Some(Label { name: 1..5, input: 7 }));
        // The `>` left out: the input starts after the name.
        assert_eq!(read(" python print(1)"), Some(Label { name: 1..7, input: 7 }));
        assert_eq!(read(" </tool>"), Some(Label { name: 1..1, input: 1 }));
        // Not decided until the byte after the name's white space arrives.
        for cut in ["", " ba", " bash", " bash \n"] {
            assert_eq!(read(cut), None, "{cut:?}");
        }
    }
}
