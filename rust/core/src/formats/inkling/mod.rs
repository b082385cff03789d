//! `inkling` (Thinking Machines Inkling, its TML content blocks): a turn is a run of messages,
//! each ended by `<|end_message|>`. `<|message_model|>f<|content_invoke_tool_json|>{"name": "f",
//! "args": {…}}` is a call (the name before the token echoes the JSON's, which is the call's),
//! `<|message_model|><|content_text|>…` a reply (content), `<|content_thinking|>…` reasoning.
//! The JSON call is read as hermes reads one (`"args"`, `"arguments"` or `"parameters"`); a call
//! token without `<|message_model|>` before it is read too (text detokenized without the other
//! special tokens). A raw-text invocation or a tool error
//! (`<|message_model|>f<|content_invoke_tool_text|>…`) is content, its echoed name markup. A
//! message after `<|message_model|>` that is none of these is content.
//!
//! The generation prompt ends with `<|message_model|>`, so the model's text may start inside
//! that first message's header: `get_weather<|content_invoke_tool_json|>{…}` is read as if
//! `<|message_model|>` preceded it ([`Grammar::IMPLIED_START`]), its echoed name (letters,
//! digits, `_`, `-`) markup. A text that does not start so (`plain answer`) is read on as text.

mod machine;

use std::ops::Range;

use super::cx::{skip_ws, Cx, Failure};
use super::grammar::{Grammar, Open, Start};
use crate::calls::push_calls_of_value;
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

const MESSAGE: &str = "<|message_model|>";
const THINKING: &str = "<|content_thinking|>";
const INVOKE: &str = "<|content_invoke_tool_json|>";
const TEXT: &str = "<|content_text|>";
const END: &str = "<|end_message|>";
/// The tokens of a raw-text tool invocation and of a tool error: their blocks carry no JSON
/// call, so their text is content (as vLLM's Inkling parser reads them), never a call run on
/// free text.
const RAW_BLOCKS: [&str; 2] = ["<|content_invoke_tool_text|>", "<|content_tool_error|>"];
/// The longest tool name echoed before the call token (a longer run is a reply).
const NAME_MAX: usize = 128;

const fn token(text: &'static str) -> Start {
    Start {
        text,
        formats: FormatSet::only(Format::Inkling),
    }
}

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[token(MESSAGE), token(THINKING), token(INVOKE)];
    /// The generation prompt wrote the first `<|message_model|>`.
    const IMPLIED_START: bool = true;
    /// A message ends at its end token, or where the next one begins.
    const PROSE_ENDS: &'static [Start] =
        &[token(END), token(MESSAGE), token(THINKING), token(INVOKE)];
    /// The reply's own token, the end of the turn, and the raw blocks' tokens ([`RAW_BLOCKS`]).
    const CONTROL: &'static [&'static str] = &[
        TEXT,
        "<|content_model_end_sampling|>",
        RAW_BLOCKS[0],
        RAW_BLOCKS[1],
    ];

    type Machine = machine::InklingMessage;

    fn claims_message(message: &str) -> bool {
        echoed_name(message.as_bytes()).is_some()
    }

    fn open(start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        machine::InklingMessage::new(start.unwrap_or(0), at, open)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let (text, end) = (cx.text, range.end);
        // A message the generation prompt opened is a call only when it starts with the
        // echoed name and the call token; any other such region is text (cut by the end of the
        // text before the machine could tell).
        let implied = !Self::STARTS.iter().any(|s| text[range.clone()].starts_with(s.text));
        if implied && echoed_name(text[range.clone()].as_bytes()).is_none() {
            cx.prose(range);
            return Ok(());
        }
        // A call's JSON starts after its token; any other region is a message's opening markup.
        let Some(body) = text[range.clone()].find(INVOKE).map(|i| range.start + i + INVOKE.len())
        else {
            return Ok(());
        };
        let body = skip_ws(text, body, end);
        let markup_end = |json_end: usize| {
            let after = skip_ws(text, json_end, end);
            if text[after..end].starts_with(END) {
                after + END.len()
            } else {
                json_end
            }
        };
        if let Some((calls, json_end)) = cx.read_calls(body, end)? {
            let markup_end = markup_end(json_end);
            cx.push_read(Format::Inkling, range.start..markup_end, calls)?;
            cx.prose(markup_end..end);
            return Ok(());
        }
        match cx.json_at(body, end)? {
            Ok((value, json_end)) => {
                let markup_end = markup_end(json_end);
                let context = cx.context(Format::Inkling, range.start..markup_end);
                let (options, json_at) = (cx.options.json, body - range.start);
                push_calls_of_value(cx.builder, value, &context, json_at, options, &mut cx.outcomes)?;
                cx.prose(markup_end..end);
            }
            Err(error) => cx.fail(Format::Inkling, range, Failure::json(error, None)),
        }
        Ok(())
    }
}

/// The length of the tool name echoed at the start of `b`, when the call token follows it: in
/// a header the generation prompt opened, a name is letters, digits, `_` and `-` (a text that
/// starts with other bytes is released as text at once).
fn echoed_name(b: &[u8]) -> Option<usize> {
    let name = implied_name_len(b);
    (name > 0 && name <= NAME_MAX && b[name..].starts_with(INVOKE.as_bytes())).then_some(name)
}

/// The run of name bytes at the start of `b` (up to one past [`NAME_MAX`]).
fn implied_name_len(b: &[u8]) -> usize {
    b.iter()
        .take(NAME_MAX + 1)
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
        .count()
}
