//! The `<tool_call>` tag shared by hermes (a JSON body), qwen3_coder (`<function=NAME>`) and
//! glm45 (a name, then `<arg_key>`/`<arg_value>` pairs): the body decides which, among the
//! allowed formats. A bare `<function=…>` block without the wrapper is qwen3_coder too, or
//! hermes when JSON arguments follow the name (`<function=f>{"a": 1}</function>`).
//!
//! Hermes also has the spellings fine-tunes use (llama.cpp reads them): `<function name="f">`
//! with JSON arguments, and a JSON call object in `<function_call>`, `<tool>`, `<tools>`,
//! `<response>`, `<json>`, `<JSON>` or `<xml>`. Those generic tags are a call only when the
//! object starts with its `"name"` key; otherwise the tag is prose.

mod decode;
mod glm45;
mod hermes;
mod machine;
mod qwen3_coder;
mod tags;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &{
        let hermes = FormatSet::only(Format::Hermes);
        let mut starts = [Start {
            text: tags::OPEN,
            formats: FormatSet::of(&[Format::Hermes, Format::Qwen3Coder, Format::Glm45]),
        }; tags::STARTS.len()];
        starts[1] = Start {
            text: tags::FUNCTION,
            formats: FormatSet::of(&[Format::Qwen3Coder, Format::Hermes]),
        };
        let mut i = 2;
        while i < starts.len() {
            starts[i] = Start {
                text: tags::STARTS[i],
                formats: hermes,
            };
            i += 1;
        }
        starts
    };

    /// Qwen's and GLM's end of turn.
    const CONTROL: &'static [&'static str] = &["<|im_end|>", "<|endoftext|>"];
    type Machine = machine::TagCall;

    fn open(start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        machine::TagCall::new(tags::Opening::of_start(start.unwrap_or(0)), at, open)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        decode::parse_region(cx, range)
    }
}
