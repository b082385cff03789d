//! `granite_pythonic` (IBM Granite 3.3 and 4.0 served with vLLM's `granite_pythonic` parser):
//! calls written bare, one a line, with no marker and no brackets around them:
//!
//! ```text
//! get_weather(location="Paris", unit="celsius")
//! search_web(query="vLLM release notes")
//! ```
//!
//! With no marker to tell a call from prose, only a message that *starts* with a call line is
//! read ([`Grammar::IMPLIED_START`]), with the call lines right after it; the first line that
//! is not a call ends the calls, and it and the rest are content. A line is a call when it
//! holds one call whole: a name, `(`, keyword arguments (or none) and their matching
//! `)`, then only blank space to the line's end (a string or a bracket may run over lines).
//! Granite writes keyword arguments only, so `len(obj)` on a line of its own stays prose. A
//! call line cut by the end of the text is content, as vLLM reads it. The values are
//! pythonic's (Python literals; `pythonic::call_lines` reads the calls), and a call whose
//! values do not read is an `InvalidToolCall`, never a guess.

mod machine;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use super::pythonic::call_lines;
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::Format;

pub(crate) use machine::calls_end;

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[];
    const IMPLIED_START: bool = true;
    /// Granite's end of text.
    const CONTROL: &'static [&'static str] = &["<|end_of_text|>"];

    type Machine = machine::GraniteCalls;

    fn claims_message(message: &str) -> bool {
        calls_end(message) > 0
    }

    fn open(_start: Option<usize>, at: usize, _open: Open) -> Self::Machine {
        machine::GraniteCalls::new(at)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let end = range.start + calls_end(&cx.text[range.clone()]);
        call_lines(cx, Format::GranitePythonic, (range.start, end), "")?;
        cx.prose(end..range.end);
        Ok(())
    }
}
