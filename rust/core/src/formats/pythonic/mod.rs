//! `pythonic` (Llama 4, Olmo 3, LFM2): `[f(a=1), g(b='x', c=True, d=None, e=[1, {'k': 2}])]`,
//! optionally inside `<|python_start|>…<|python_end|>`. Arguments are Python literals read by
//! `literal` (never evaluated); a call with anything else (a name, an expression, a positional
//! argument) is an error for that call, and the other calls are still read. A raw newline in a
//! quoted string is part of the string (models write multi-line shell commands so).
//!
//! Without the `<|python_start|>` tag, only a message that *starts* with `[name(` is read, and
//! the lists written right after it (`[f()][g()]`).
//!
//! The group also reads `sarashina`'s Python-literal list of call dicts (`sarashina`), which
//! opens a message the same way (`[{'name': …}]`).

mod decode;
mod machine;
pub(crate) mod sarashina;

pub(crate) use decode::{call_lines, call_list, python_call};
pub(crate) use machine::PythonicCall;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Bare, Grammar, Open, Start};
use super::literal::Literals;
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};

const PYTHON_START: &str = "<|python_start|>";
const PYTHON_END: &str = "<|python_end|>";

pub(crate) struct Spec;

impl Grammar for Spec {
    /// Llama 4's call token opens its pythonic list, or Llama 3 call objects (`llama3_json`'s,
    /// `llama4_json` as vLLM names it: Llama 4 writes its JSON calls there too).
    const STARTS: &'static [Start] = &[Start {
        text: PYTHON_START,
        formats: FormatSet::of(&[Format::Pythonic, Format::Llama3Json]),
    }];
    const BARE: Option<Bare> = Some(Bare {
        first: b'[',
        formats: FormatSet::of(&[Format::Pythonic, Format::Sarashina]),
    });

    /// Llama 3.2's and Llama 4's end of turn and end of message (after a call).
    const CONTROL: &'static [&'static str] =
        &["<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "<|eot|>", "<|eom|>"];
    type Machine = machine::PythonicCall;

    fn claims_bare(message: &str) -> bool {
        starts_call_list(message) || sarashina::starts_dict_list(message)
    }

    fn open(start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        let machine = machine::PythonicCall::new(start.is_none(), at, Some(PYTHON_END));
        let (calls, dicts) = (Format::Pythonic, Format::Sarashina);
        let machine = machine.bare_kinds(open.formats.contains(calls), open.formats.contains(dicts));
        machine.start_objects(open)
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        decode::parse_region(cx, range)
    }
}

/// Whether `text` starts with `[`, a (dotted) name and `(`.
fn starts_call_list(text: &str) -> bool {
    let mut reader = Literals::new(text, 0, text.len());
    reader.eat(b'[') && {
        reader.skip_ws();
        dotted_name(&mut reader).is_some() && reader.eat(b'(')
    }
}

/// A call's name: an identifier, dotted (`brave_search.call`), and with `-` inside, as tool names
/// (MCP's `add-note`) may have: `weather-forecast(…)` is that tool's call, not a subtraction
/// (Llama Stack's tests read it so). A `-` joins only letters, digits and `_` on both sides.
fn dotted_name<'t>(reader: &mut Literals<'t>) -> Option<&'t str> {
    let start = reader.pos;
    reader.identifier()?;
    loop {
        match reader.peek() {
            Some(b'.') => {
                reader.pos += 1;
                reader.identifier()?;
            }
            Some(b'-') if reader.text.as_bytes()[..reader.end]
                .get(reader.pos + 1)
                .is_some_and(|&b| b == b'_' || b.is_ascii_alphanumeric()) =>
            {
                reader.pos += 1;
                let bytes = &reader.text.as_bytes()[..reader.end];
                while bytes.get(reader.pos).is_some_and(|&b| b == b'_' || b.is_ascii_alphanumeric()) {
                    reader.pos += 1;
                }
            }
            _ => break,
        }
    }
    Some(&reader.text[start..reader.pos])
}
