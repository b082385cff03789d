//! `k2_horizon` (IFM K2 Horizon, "K2-V3"): HY v4's calls with `<ifm|…>` tokens,
//! `<ifm|tool_calls><ifm|tool_call>f<ifm|arg_key>a</ifm|arg_key><ifm|arg_value>1</ifm|arg_value>
//! </ifm|tool_call></ifm|tool_calls>`, read by HY v4's block grammar. Its chat template writes
//! three dialects, all read: untyped values (typed by the tool schema), a
//! `<ifm|arg_type>integer</ifm|arg_type>` tag before each value (the type it names picks among
//! the types the schema allows, and types the value when the schema says nothing), and a JSON
//! call object as a call's body. Calls written without the `<ifm|tool_calls>` block around them
//! are read too, as SGLang's detector reads them.

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use super::hy_v4::decode::{block, lone_calls};
use super::hy_v4::machine::Block;
use super::hy_v4::Tags;
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

const BLOCK: &str = "<ifm|tool_calls>";
const CALL: &str = "<ifm|tool_call>";

fn tags() -> Tags {
    Tags::spelt(
        Format::K2Horizon,
        |name| match name.strip_prefix('/') {
            Some(name) => format!("</ifm|{name}>"),
            None => format!("<ifm|{name}>"),
        },
        true,
    )
}

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[
        Start {
            text: BLOCK,
            formats: FormatSet::only(Format::K2Horizon),
        },
        Start {
            text: CALL,
            formats: FormatSet::only(Format::K2Horizon),
        },
    ];
    /// A block's closing tag with no block open.
    const CONTROL: &'static [&'static str] = &["</ifm|tool_calls>"];

    type Machine = Block;

    fn open(start: Option<usize>, at: usize, _open: Open) -> Self::Machine {
        Block::with_tags(tags(), at, start == Some(1))
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let tags = tags();
        let pos = match cx.text[range.clone()].starts_with(BLOCK) {
            true => block(cx, &tags, range.start, range.start + BLOCK.len(), range.end)?,
            false => lone_calls(cx, &tags, range.start, range.end)?,
        };
        cx.prose(pos..range.end);
        Ok(())
    }
}
