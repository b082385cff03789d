//! The tags of the `<tool_call>` group and the small rules the decoder and the machine share.

use crate::protocol::{Format, FormatSet};
use crate::scan::find::{find_either, Needle};

use super::super::cursor::{Markers, TextSeek};
use super::super::cx::skip_ws;
use super::super::machine::{starts, ws};

pub(crate) const OPEN: &str = "<tool_call>";
pub(crate) const CLOSE: &str = "</tool_call>";
pub(crate) static CLOSE_NEEDLE: Needle = Needle::new(CLOSE);

/// qwen3_coder.
pub(crate) const FUNCTION: &str = "<function=";
pub(crate) const FUNCTION_CLOSE: &str = "</function>";
pub(crate) static FUNCTION_CLOSE_NEEDLE: Needle = Needle::new(FUNCTION_CLOSE);
pub(crate) const PARAMETER: &str = "<parameter=";
pub(crate) const PARAMETER_CLOSE: &str = "</parameter>";
/// What ends a parameter value: its `</parameter>`, or, when that was left out, the next
/// `<parameter=` or the `</function>` (the value ends before them).
pub(crate) static VALUE_ENDS: Markers = Markers::new(&[PARAMETER_CLOSE, PARAMETER, FUNCTION_CLOSE]);

/// hermes: `<function name="NAME">{…}</function>`.
pub(crate) const FUNCTION_NAME: &str = "<function name=";

/// Hermes-family wrappers other than `<tool_call>` that fine-tunes write around a JSON call
/// object (found in llama.cpp's tests), each closed by its own tag.
pub(crate) const WRAPPERS: [(&str, &str); 7] = [
    ("<function_call>", "</function_call>"),
    ("<tool>", "</tool>"),
    ("<tools>", "</tools>"),
    ("<response>", "</response>"),
    ("<json>", "</json>"),
    ("<JSON>", "</JSON>"),
    ("<xml>", "</xml>"),
];
static WRAPPER_CLOSE_NEEDLES: [Needle; 7] = [
    Needle::new(WRAPPERS[0].1),
    Needle::new(WRAPPERS[1].1),
    Needle::new(WRAPPERS[2].1),
    Needle::new(WRAPPERS[3].1),
    Needle::new(WRAPPERS[4].1),
    Needle::new(WRAPPERS[5].1),
    Needle::new(WRAPPERS[6].1),
];

/// The start markers, in the order of the group's `STARTS` (a marker's index there is its
/// [`Opening`]).
pub(crate) const STARTS: [&str; 10] = [
    OPEN,
    FUNCTION,
    FUNCTION_NAME,
    WRAPPERS[0].0,
    WRAPPERS[1].0,
    WRAPPERS[2].0,
    WRAPPERS[3].0,
    WRAPPERS[4].0,
    WRAPPERS[5].0,
    WRAPPERS[6].0,
];

/// What opened a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opening {
    /// `<tool_call>`: any body.
    ToolCall,
    /// A bare `<function=NAME>`: qwen3_coder parameters, or hermes JSON arguments.
    Function,
    /// `<function name="NAME">`: JSON arguments.
    FunctionName,
    /// `WRAPPERS[i]`: a JSON call object, else the marker is prose.
    Wrapper(usize),
}

impl Opening {
    /// The opening of `STARTS[index]`.
    pub fn of_start(index: usize) -> Self {
        match index {
            0 => Self::ToolCall,
            1 => Self::Function,
            2 => Self::FunctionName,
            i => Self::Wrapper(i - 3),
        }
    }

    /// The tag that closes the region.
    pub fn close(self) -> &'static str {
        match self {
            Self::ToolCall => CLOSE,
            Self::Function | Self::FunctionName => FUNCTION_CLOSE,
            Self::Wrapper(i) => WRAPPERS[i].1,
        }
    }

    pub fn close_needle(self) -> &'static Needle {
        match self {
            Self::ToolCall => &CLOSE_NEEDLE,
            Self::Function | Self::FunctionName => &FUNCTION_CLOSE_NEEDLE,
            Self::Wrapper(i) => &WRAPPER_CLOSE_NEEDLES[i],
        }
    }
}

/// Whether the body at `at` is a JSON call object written name first (`{"name"`, whitespace
/// allowed), as a generic wrapper's body must be for the wrapper to be a call: `<json>{"a": 1}`
/// or `<response>Sure</response>` in prose are no calls. `None` while it may still be one.
pub(crate) fn is_call_object(b: &[u8], at: usize) -> Option<bool> {
    let q = ws(b, at);
    match b.get(q) {
        None => None,
        Some(b'{') => starts(b, ws(b, q + 1), NAME_KEY),
        Some(_) => Some(false),
    }
}

const NAME_KEY: &str = "\"name\"";

/// glm45.
pub(crate) const KEY: &str = "<arg_key>";
pub(crate) const KEY_CLOSE: &str = "</arg_key>";
pub(crate) static KEY_CLOSE_NEEDLE: Needle = Needle::new(KEY_CLOSE);
pub(crate) const VALUE: &str = "<arg_value>";
pub(crate) const VALUE_CLOSE: &str = "</arg_value>";
pub(crate) static VALUE_CLOSE_NEEDLE: Needle = Needle::new(VALUE_CLOSE);

/// The formats, in the order a body of a shape whose format is off is tried.
const FORMATS: [Format; 3] = [Format::Hermes, Format::Qwen3Coder, Format::Glm45];

/// Which format a `<tool_call>` body is read as: by its shape (`{`/`[` hermes, `<function=`
/// qwen3_coder, a name glm45), or, when that format is not allowed, the first allowed one (which
/// then usually fails, visibly).
pub(crate) fn body_format(shape: Format, allowed: FormatSet) -> Format {
    // `<function=f>` is hermes's spelling too when JSON arguments follow (the reader decides).
    let function_for_hermes = shape == Format::Qwen3Coder && allowed.contains(Format::Hermes);
    if allowed.contains(shape) || function_for_hermes {
        return shape;
    }
    FORMATS
        .into_iter()
        .find(|&f| allowed.contains(f))
        .unwrap_or(shape)
}

/// The shape of a body that starts with `first` (`is_function`: with `<function=`).
pub(crate) fn shape_of(first: u8, is_function: bool) -> Format {
    if matches!(first, b'{' | b'[') {
        Format::Hermes
    } else if is_function {
        Format::Qwen3Coder
    } else {
        Format::Glm45
    }
}

/// The name in `<function=NAME>` / `<parameter=NAME>` starting at `start`: the text up to `>`
/// on the same line, and the position after the `>`.
pub(crate) fn tag_name(text: &str, start: usize, end: usize) -> Option<(&str, usize)> {
    let bytes = &text.as_bytes()[start..end];
    let gt = find_either(b'>', b'\n', bytes).filter(|&i| bytes[i] == b'>')?;
    let name = text[start..start + gt].trim();
    (!name.is_empty()).then_some((name, start + gt + 1))
}

/// Where the markup of a call that ends at `pos` ends: past whitespace and the `close` tag
/// (`</tool_call>`…); a missing one is accepted at the end of the text. `None` when something
/// else follows.
pub(crate) fn close_tag(text: &str, pos: usize, end: usize, close: &str) -> Option<usize> {
    let after = skip_ws(text, pos, end);
    if text[after..end].starts_with(close) {
        Some(after + close.len())
    } else if after == end {
        Some(end)
    } else {
        None
    }
}

/// Closing markers of one region, searched forward once.
pub(crate) struct Closers<'t> {
    pub tool_call: TextSeek<'t>,
    pub parameter: TextSeek<'t>,
    pub function: TextSeek<'t>,
    pub arg_key: TextSeek<'t>,
    pub arg_value: TextSeek<'t>,
}

impl<'t> Closers<'t> {
    pub fn new(text: &'t str, end: usize) -> Self {
        Self {
            tool_call: TextSeek::new(text, end, &CLOSE_NEEDLE),
            parameter: TextSeek::new(text, end, &VALUE_ENDS),
            function: TextSeek::new(text, end, &FUNCTION_CLOSE_NEEDLE),
            arg_key: TextSeek::new(text, end, &KEY_CLOSE_NEEDLE),
            arg_value: TextSeek::new(text, end, &VALUE_CLOSE_NEEDLE),
        }
    }
}
