//! The `<tool_call>` tag shared by hermes (a JSON body), qwen3_coder (`<function=NAME>`) and
//! glm45 (a name, then `<arg_key>`/`<arg_value>` pairs): the body decides which, among the
//! allowed formats. A bare `<function=…>` block without the wrapper is qwen3_coder too, or
//! hermes when JSON arguments follow the name (`<function=f>{"a": 1}</function>`).
//!
//! Hermes also has the spellings fine-tunes use (llama.cpp reads them): `<function name="f">`
//! with JSON arguments, and a JSON call object in `<function_call>`, `<tool>`, `<tools>`,
//! `<response>`, `<json>`, `<JSON>` or `<xml>` (`tags::HERMES_WRAPS`). Those generic tags are a
//! call only when the object starts with its `"name"` key; otherwise the tag is prose.
//!
//! A hermes message that is nothing but a call object or list, bare or in one ```` ``` ```` /
//! ```` ```json ```` fence (the tags dropped), is read as raw JSON `whole` reads it
//! ([`Grammar::WHOLE_JSON`]).

pub(crate) mod decode;
pub(crate) mod glm45;
pub(crate) mod hermes;
pub(crate) mod machine;
mod params;
mod qwen3_coder;
mod state;
pub(crate) mod tags;
mod value;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

/// The `Spec` of another model's wrapper of one call (`tags::Wrap`), opened by `$open`:
/// `tool_call::wrapped_spec!(WRAP, OPEN, Format::F);` (`F` is `WRAP`'s format), and optionally
/// the format's control tokens (`Grammar::CONTROL`).
macro_rules! wrapped_spec {
    ($wrap:expr, $open:expr, $format:expr) => {
        $crate::formats::tool_call::wrapped_spec!($wrap, $open, $format, &[]);
    };
    ($wrap:expr, $open:expr, $format:expr, $control:expr) => {
        static OPENS: $crate::formats::cursor::Markers =
            $crate::formats::cursor::Markers::new(&[$open]);

        $crate::formats::grammar::spec!(
            starts: &[$crate::formats::grammar::Start {
                text: $open,
                formats: $crate::protocol::FormatSet::only($format),
            }],
            control: $control,
            machine: $crate::formats::tool_call::machine::TagCall,
            open: |_start, at, open| Self::Machine::new(Some(&$wrap), at, open),
            decode: |cx, range| {
                $crate::formats::tool_call::decode::parse_wrapped(cx, range, &$wrap, &OPENS)
            },
        );
    };
}
pub(crate) use wrapped_spec;

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &{
        let mut starts = [Start {
            text: tags::OPEN,
            // Granite 3.1's list follows `<tool_call>` too (`tags::body_format`).
            formats: FormatSet::of(&[
                Format::Hermes,
                Format::Qwen3Coder,
                Format::Glm45,
                Format::HyperclovaxSeedThink,
                Format::Granite,
                // RWKV's earlier spelling (`rwkv::legacy`).
                Format::Rwkv,
            ]),
        }; tags::OPENS.len()];
        starts[1] = Start {
            text: tags::FUNCTION,
            formats: FormatSet::of(&[Format::Qwen3Coder, Format::Hermes]),
        };
        let mut i = 2;
        while i < starts.len() {
            starts[i] = Start {
                text: tags::OPENS[i],
                formats: FormatSet::only(Format::Hermes).union(tags::answer_of(tags::OPENS[i])),
            };
            i += 1;
        }
        starts
    };

    /// Hermes 2 Pro and Qwen 2.5 drop the `<tool_call>` tags in practice: a message that is
    /// only the call object (or a list of them), bare or fenced, is their call too.
    /// HyperCLOVA X SEED Think writes such a list (`"parameters"` for arguments) where
    /// constrained decoding forces JSON.
    const WHOLE_JSON: FormatSet = FormatSet::of(&[Format::Hermes, Format::HyperclovaxSeedThink]);

    /// The end of an answer a wrapper held ([`tags::answer_of`]).
    const PROSE_ENDS: &'static [Start] = &[Start {
        text: tags::RESPONSE_CLOSE,
        formats: tags::answer_of(tags::RESPONSE),
    }];
    /// Qwen's and GLM's end of turn, Ling 3's (`<|role_end|>`, read as glm45) and Step-Audio
    /// 2's (`<|EOT|>`, read as glm45); MiniCPM-V's reserved marker tokens 12 to 15, which it
    /// writes around its reasoning and calls (read as qwen3_coder), in both spellings.
    const CONTROL: &'static [&'static str] = &[
        "<|im_end|>",
        "<|endoftext|>",
        "<|role_end|>",
        "<|EOT|>",
        "<reserved_12>",
        "<reserved_13>",
        "<reserved_14>",
        "<reserved_15>",
        "<|reserved_12|>",
        "<|reserved_13|>",
        "<|reserved_14|>",
        "<|reserved_15|>",
    ];
    type Machine = machine::TagCall;

    fn open(start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        let wrap = match start {
            Some(0) => Some(&tags::TOOL_CALL),
            None | Some(1) => None,
            Some(i) => Some(&tags::HERMES_WRAPS[i - 2]),
        };
        machine::TagCall::new(wrap, at, open)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        decode::parse_region(cx, range)
    }
}
