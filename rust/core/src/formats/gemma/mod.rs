//! Gemma's call syntax: FunctionGemma's
//! `<start_function_call>call:f{a:<escape>text<escape>,b:1}<end_function_call>` and Gemma 4's
//! `<|tool_call>call:f{a:<|"|>text<|"|>,b:1}<tool_call|>`. The arguments are an object whose
//! keys are bare (or quoted by the string token), whose strings sit between two string tokens
//! (kept as written, never typed), and whose other values are JSON literals, objects and arrays
//! in the same syntax. A start token opens one call, or several written one after another
//! (`call:f{…}call:g{…}`, each ending where the next `call:` begins); a missing end token is accepted at the end of
//! the text (or before the next start token, or Gemma 4's end of turn `<turn|>`). A Gemma 4
//! message that starts with `call:f{` (the model dropped its `<|tool_call>`, often right after
//! its thought channel) is a call too; only at the start of a message, as a bare pythonic list.

mod decode;
mod machine;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

/// One format's tokens.
pub(crate) struct Tokens {
    pub format: Format,
    pub start: &'static str,
    pub end: &'static str,
    /// The string delimiter.
    pub quote: &'static str,
}

/// In the order of the group's `STARTS`; the last is a Gemma 4 call without its start token.
pub(crate) static TOKENS: [Tokens; 3] = [
    Tokens {
        format: Format::FunctionGemma,
        start: "<start_function_call>",
        end: "<end_function_call>",
        quote: "<escape>",
    },
    Tokens {
        format: Format::Gemma4,
        start: "<|tool_call>",
        end: "<tool_call|>",
        quote: "<|\"|>",
    },
    Tokens {
        format: Format::Gemma4,
        start: CALL,
        end: "<tool_call|>",
        quote: "<|\"|>",
    },
];

/// What precedes the name (after a start token, or opening a message: [`TOKENS`]' last).
pub(crate) const CALL: &str = "call:";

/// Gemma 4's end of turn: it ends a call whose end token the model left out, and is never text.
pub(crate) const END_OF_TURN: &str = "<turn|>";

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[
        Start {
            text: TOKENS[0].start,
            formats: FormatSet::only(Format::FunctionGemma),
        },
        Start {
            text: TOKENS[1].start,
            formats: FormatSet::only(Format::Gemma4),
        },
        // Not `<`: looked for at the start of a message only (`markers::is_anchored`).
        Start {
            text: TOKENS[2].start,
            formats: FormatSet::only(Format::Gemma4),
        },
    ];
    /// Gemma's end of turn (Gemma 3's, Gemma 4's) and end of sequence (`<eos>`, written out
    /// where the text was decoded with special tokens), FunctionGemma's and Gemma 4's
    /// tool-response tokens (stop sequences), and Gemma 4's call end token written again after
    /// a call.
    const CONTROL: &'static [&'static str] = &[
        "<end_of_turn>",
        END_OF_TURN,
        "<eos>",
        "<start_function_response>",
        "<|tool_response>",
        "<tool_call|>",
    ];

    type Machine = machine::GemmaCall;

    fn open(start: Option<usize>, at: usize, _open: Open) -> Self::Machine {
        machine::GemmaCall::new(&TOKENS[start.unwrap_or(0)], at)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        decode::parse_region(cx, range)
    }
}

/// The tokens of the region that starts at `text`.
pub(crate) fn tokens_of(text: &str) -> &'static Tokens {
    TOKENS
        .iter()
        .find(|t| text.starts_with(t.start))
        .unwrap_or(&TOKENS[0])
}

/// The name after the start token, from `at` up to the `{` at `brace`: `call:` (after a stray
/// `:`, as in `<|tool_call>:call:f{`) and whitespace left out; `None` when empty or not on one
/// line.
pub(crate) fn name(text: &str, at: usize, brace: usize) -> Option<&str> {
    let name = text[at..brace].trim_start();
    let name = name.strip_prefix(':').unwrap_or(name);
    let name = name.strip_prefix(CALL).unwrap_or(name).trim();
    (!name.is_empty() && !name.contains(['\n', ' ', '<'])).then_some(name)
}

/// Whether `b` may be part of the name of a call that opens a message (`call:f{`): ASCII
/// letters, digits, `_`, `-`, `.`, and any byte of a non-ASCII character.
pub(crate) fn is_bare_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.') || !b.is_ascii()
}
