//! The `<tool_call>` tag shared by hermes (a JSON body), qwen3_coder (`<function=NAME>`) and
//! glm45 (a name, then `<arg_key>`/`<arg_value>` pairs): the body decides which, among the
//! allowed formats. A bare `<function=…>` block without the wrapper is qwen3_coder too.

pub(crate) mod decode;
mod glm45;
pub(crate) mod hermes;
pub(crate) mod machine;
mod qwen3_coder;
pub(crate) mod tags;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

/// The `Spec` of another model's wrapper of one call (`tags::Wrap`), opened by `$open`:
/// `tool_call::wrapped_spec!(WRAP, OPEN, Format::F);` (`F` is `WRAP`'s format).
macro_rules! wrapped_spec {
    ($wrap:expr, $open:expr, $format:expr) => {
        static OPENS: $crate::formats::cursor::Markers =
            $crate::formats::cursor::Markers::new(&[$open]);

        pub(crate) struct Spec;

        impl $crate::formats::grammar::Grammar for Spec {
            const STARTS: &'static [$crate::formats::grammar::Start] =
                &[$crate::formats::grammar::Start {
                    text: $open,
                    formats: $crate::protocol::FormatSet::only($format),
                }];

            type Machine = $crate::formats::tool_call::machine::TagCall;

            fn open(
                _start: Option<usize>,
                at: usize,
                open: $crate::formats::grammar::Open,
            ) -> Self::Machine {
                Self::Machine::new(Some(&$wrap), at, open)
            }

            fn decode<B>(
                cx: &mut $crate::formats::Cx<'_, '_, B>,
                range: std::ops::Range<usize>,
            ) -> Result<(), B::Error>
            where
                B: $crate::json::JsonBuilder,
                B::Value: $crate::json::JsonView,
            {
                $crate::formats::tool_call::decode::parse_wrapped(cx, range, &$wrap, &OPENS)
            }
        }
    };
}
pub(crate) use wrapped_spec;

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[
        Start {
            text: tags::OPEN,
            formats: FormatSet::of(&[Format::Hermes, Format::Qwen3Coder, Format::Glm45]),
        },
        Start {
            text: tags::FUNCTION,
            formats: FormatSet::only(Format::Qwen3Coder),
        },
    ];

    /// Qwen's and GLM's end of turn.
    const CONTROL: &'static [&'static str] = &["<|im_end|>", "<|endoftext|>"];
    type Machine = machine::TagCall;

    fn open(start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        let wrap = (start == Some(0)).then_some(&tags::TOOL_CALL);
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
