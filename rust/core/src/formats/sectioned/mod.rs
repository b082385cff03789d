//! The token-delimited shape shared by DeepSeek and Kimi-K2: an optional section
//! (`BEGIN … END`) of calls `CALL_BEGIN header SEP body CALL_END`. A call outside a section is
//! accepted too, and a `CALL_END` left out at the end of the text, before the next
//! `CALL_BEGIN` or before the section's `END` (llama.cpp's Kimi-K2 cases). A header that meets
//! the next `CALL_BEGIN` before its `SEP` is a failed call that ends there, so it never hides
//! the next call. A section's first `CALL_BEGIN` left out (`BEGIN header SEP body CALL_END`) is
//! read when the `SEP` comes before any `CALL_END`, next call or section end. A group of this shape
//! gives its [`Tokens`]; the decoder and the machine here do the rest.

pub(crate) mod decode;
pub(crate) mod machine;

use std::ops::Range;

use super::cursor::Markers;
use super::cx::{skip_ws, Cx, Failure};
use super::grammar::Start;
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};
use crate::scan::find::Needle;

pub(crate) struct Tokens {
    /// The formats using these tokens; a call that fails before its format is known is
    /// reported as the first allowed one.
    pub formats: &'static [Format],
    /// `[call_begin, section_end…]`: what may follow a call in a section (a model may spell its
    /// section's end more than one way).
    pub in_section: &'static [&'static str],
    /// `in_section` as markers to search for: what ends text a section holds before its
    /// first call.
    pub in_section_marks: Markers,
    pub call_begin: &'static str,
    pub sep: Needle,
    pub call_end: Needle,
    /// The start markers, what each opens in [`Tokens::opens`].
    pub starts: Markers,
    pub opens: &'static [Opens],
    /// `[sep, call_end, call_begin]`: what ends a header (the next call's begin token ends a
    /// header that never reached its separator).
    pub header_ends: Markers,
    /// How the machine reads a header, knowing the body's first byte.
    pub header: fn(&str, u8, FormatSet) -> Header,
    /// The format whose section may hold a Python-literal list of call dicts instead of calls
    /// (`sarashina`, whose `<|tool_calls|>` is Solar Open's section token): read when it is
    /// asked for and the section's first byte opens a list or a dict.
    pub list: Option<Format>,
}

impl Tokens {
    pub fn first_allowed(&self, allowed: FormatSet) -> Format {
        self.formats
            .iter()
            .copied()
            .find(|&f| allowed.contains(f))
            .unwrap_or(self.formats[0])
    }
}

/// The [`Tokens`] of a group of this shape: its formats, what may follow a call in a section
/// (`[CALL_BEGIN, SECTION_END…]`), its call's `[CALL_BEGIN, SEP, CALL_END]`, its start markers
/// each with what it opens, and its header reader; the rest is derived from those.
macro_rules! tokens {
    (
        formats: $formats:expr,
        in_section: $in_section:expr,
        call: [$begin:expr, $sep:expr, $end:expr],
        starts: [$(($start:expr, $opens:ident)),+ $(,)?],
        header: $header:expr
        $(, list: $list:expr)? $(,)?
    ) => {
        $crate::formats::sectioned::Tokens {
            formats: $formats,
            in_section: $in_section,
            in_section_marks: $crate::formats::cursor::Markers::new($in_section),
            call_begin: $begin,
            sep: $crate::scan::find::Needle::new($sep),
            call_end: $crate::scan::find::Needle::new($end),
            starts: $crate::formats::cursor::Markers::new(&[$($start),+]),
            opens: &[$($crate::formats::sectioned::Opens::$opens),+],
            header_ends: $crate::formats::cursor::Markers::new(&[$sep, $end, $begin]),
            header: $header,
            list: $crate::formats::sectioned::list_format(&[$($list)?]),
        }
    };
}
pub(crate) use tokens;

/// The `Spec` of a group of this shape, from its [`Tokens`], its start markers (in the order of
/// [`Tokens::starts`]), its formats, its control tokens and its body reader:
/// `sectioned::spec!(TOKENS, [SECTION_BEGIN, CALL_BEGIN], FORMATS, ["<|im_end|>"], read);`.
macro_rules! spec {
    ($tokens:expr, $starts:expr, $formats:expr, $control:expr, $read:expr) => {
        $crate::formats::grammar::spec!(
            starts: &$crate::formats::sectioned::starts($starts, $formats),
            control: &$control,
            machine: $crate::formats::sectioned::machine::SectionCall,
            open: |start, at, open| Self::Machine::new(&$tokens, start, at, open),
            decode: |cx, range| {
                $crate::formats::sectioned::decode::parse_region(cx, range, &$tokens, $read)
            },
        );
    };
}
pub(crate) use spec;

/// What a start marker opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opens {
    Section,
    Call,
    /// DeepSeek R1's `<｜tool▁calls｜>`: the section and its first call at once.
    SectionAndCall,
}

/// The format given as a group's `list`, if one was.
pub(crate) const fn list_format(given: &[Format]) -> Option<Format> {
    match given {
        [format] => Some(*format),
        _ => None,
    }
}

impl Tokens {
    /// Whether a section whose first byte is `first` holds `list`'s literal list.
    pub fn holds_list(&self, first: u8, allowed: FormatSet) -> bool {
        matches!(first, b'[' | b'{') && self.list.is_some_and(|f| allowed.contains(f))
    }

    /// The section ends: what follows a call in a section, but the next call.
    pub fn section_ends(&self) -> &'static [&'static str] {
        &self.in_section[1..]
    }
}

/// The start markers of a group of this shape, in the order of [`Tokens::starts`].
pub(crate) const fn starts<const N: usize>(
    texts: [&'static str; N],
    formats: &[Format],
) -> [Start; N] {
    let formats = FormatSet::of(formats);
    let mut starts = [Start { text: "", formats }; N];
    let mut i = 0;
    while i < N {
        starts[i].text = texts[i];
        i += 1;
    }
    starts
}

/// What a header says about its call, for the machine.
pub(crate) enum Header {
    Call {
        name: String,
        id: Option<String>,
    },
    /// DeepSeek V3: the name is on the line after the separator, then a ```` ```json ```` fence.
    NameOnNextLine,
    Fail,
}

/// What a format's decoder read from one call's header and body.
pub(crate) enum Body<V> {
    Call {
        format: Format,
        name: String,
        id: Option<String>,
        arguments: V,
        /// Where the body ends (before `CALL_END`).
        end: usize,
    },
    Fail(Format, Failure),
}

/// The call `name` of `format` whose body at `body` (before `end`) is its JSON arguments.
pub(crate) fn json_body<B>(
    cx: &mut Cx<'_, '_, B>,
    format: Format,
    name: String,
    id: Option<String>,
    body: usize,
    end: usize,
) -> Result<Body<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    Ok(match cx.json_at(body, end)? {
        Ok((arguments, json_end)) => Body::Call {
            format,
            name,
            id,
            arguments,
            end: json_end,
        },
        Err(error) => Body::Fail(format, Failure::json(error, Some(name))),
    })
}

/// Whether nothing but white space comes between a call's argument token and its end token
/// (`call_end`, or what may follow a call in the section, `in_section`, the end token left out):
/// a call written with no arguments, read as the empty object as a harmony call with an empty
/// body is (Kimi K2, DeepSeek V3.1). A body cut off by the end of the text is not one: its
/// arguments were never written.
pub(crate) fn no_arguments(
    text: &str,
    body: usize,
    end: usize,
    call_end: &str,
    in_section: &[&str],
) -> bool {
    let rest = &text[skip_ws(text, body, end)..end];
    rest.starts_with(call_end) || in_section.iter().any(|t| rest.starts_with(t))
}

/// A format's decoder of one call: its header range and where its body starts (before `end`).
pub(crate) type ReadBody<B> =
    fn(
        &mut Cx<'_, '_, B>,
        Range<usize>,
        usize,
        usize,
    ) -> Result<Body<<B as JsonBuilder>::Value>, <B as JsonBuilder>::Error>;
