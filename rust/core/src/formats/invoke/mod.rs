//! The XML "invoke" shape shared by MiniMax-M2, DeepSeek's DSML and others: a block of calls
//! `OPEN INVOKE name="f"> PARAMETER name="a">value</PARAMETER> … </INVOKE> … CLOSE`. Values are
//! raw text typed by the tool schema, as in qwen3_coder; a parameter written `string="true"`
//! keeps its text, `string="false"` is decoded as JSON (DSML). The attributes' names are the
//! shape's ([`Attrs`]: Kimi K3 writes `tool=`, `key=` and `type="string"`). An invoke whose body is a JSON
//! object instead of parameters is read too (DSML models write both), and a self-closing invoke
//! (`<invoke name="f"/>`, DeepSeek V4's call without arguments) is a call with no arguments. A
//! missing final closing tag is accepted at the end of the text. A group of this shape gives its [`Tags`]; the decoder
//! and the machine here do the rest.

pub(crate) mod decode;
pub(crate) mod machine;

use super::cursor::Markers;
use super::grammar::Start;
use crate::protocol::{Format, FormatSet};
use crate::scan::find::{find_byte, Needle};

pub(crate) struct Tags {
    pub format: Format,
    /// Each wrapper's opening tag (the decoder's markers), with its closing tag at the same
    /// index.
    pub open_markers: Markers,
    pub closes: &'static [Needle],
    /// For each wrapper, what ends a broken invoke: the invoke's closing tag, or the wrapper's.
    pub recover: &'static [Markers],
    /// The start of an invoke tag, before its attributes (`<invoke`).
    pub invoke: &'static str,
    pub invoke_close: Needle,
    pub parameter: &'static str,
    pub parameter_close: Needle,
    /// Tokens skipped between invokes (Step-3 frames each invoke in its call tokens).
    pub between: &'static [&'static str],
    pub attrs: Attrs,
}

/// The names of the attributes a shape reads.
pub(crate) struct Attrs {
    /// The invoked tool's name (`name=`).
    pub tool: &'static str,
    /// A parameter's name (`name=`).
    pub key: &'static str,
    /// The attribute and value that mark a parameter value as text (`string="true"`); another
    /// value of that attribute leaves the value to the schema (JSON without one).
    pub text: (&'static str, &'static str),
}

/// The XML shapes' attributes: `<invoke name="f">`, `<parameter name="a" string="true">`.
pub(crate) const XML_ATTRS: Attrs = Attrs {
    tool: "name",
    key: "name",
    text: ("string", "true"),
};

/// The `Spec` of a group of this shape, from its [`Tags`] and its wrappers' opening tags:
/// `invoke::spec!(TAGS, [OPEN], Format::F);` (and `, control: &[…]` for its control tokens).
macro_rules! spec {
    ($tags:expr, $opens:expr, $format:expr) => {
        $crate::formats::invoke::spec!($tags, $opens, $format, control: &[]);
    };
    ($tags:expr, $opens:expr, $format:expr, control: $control:expr) => {
        $crate::formats::grammar::spec!(
            starts: &$crate::formats::invoke::starts($opens, $format),
            control: $control,
            machine: $crate::formats::invoke::machine::InvokeBlock,
            open: |start, at, open| Self::Machine::new(&$tags, start.unwrap_or(0), at, open),
            decode: |cx, range| $crate::formats::invoke::decode::parse_region(cx, range, &$tags),
        );
    };
}
pub(crate) use spec;

/// The `Spec` of a group with one XML wrapper, from the names of its three tags:
/// `invoke::xml_spec!(Format::F, "wrapper", "invoke", "parameter");` reads
/// `<wrapper><invoke name="f"><parameter name="a">1</parameter></invoke></wrapper>`.
macro_rules! xml_spec {
    ($format:expr, $wrapper:literal, $invoke:literal, $parameter:literal) => {
        static TAGS: $crate::formats::invoke::Tags = {
            use $crate::formats::cursor::Markers;
            use $crate::scan::find::Needle;
            static CLOSES: [Needle; 1] = [Needle::new(concat!("</", $wrapper, ">"))];
            $crate::formats::invoke::Tags {
                format: $format,
                closes: &CLOSES,
                open_markers: Markers::new(&[concat!("<", $wrapper, ">")]),
                recover: &[Markers::new(&[
                    concat!("</", $invoke, ">"),
                    concat!("</", $wrapper, ">"),
                ])],
                invoke: concat!("<", $invoke),
                invoke_close: Needle::new(concat!("</", $invoke, ">")),
                parameter: concat!("<", $parameter),
                parameter_close: Needle::new(concat!("</", $parameter, ">")),
                between: &[],
                attrs: $crate::formats::invoke::XML_ATTRS,
            }
        };
        $crate::formats::invoke::spec!(TAGS, [concat!("<", $wrapper, ">")], $format);
    };
}
pub(crate) use xml_spec;

/// The start markers of a group of this shape: its wrappers' opening tags.
pub(crate) const fn starts<const N: usize>(opens: [&'static str; N], format: Format) -> [Start; N] {
    let mut starts = [Start {
        text: "",
        formats: FormatSet::NONE,
    }; N];
    let mut i = 0;
    while i < N {
        starts[i] = Start {
            text: opens[i],
            formats: FormatSet::only(format),
        };
        i += 1;
    }
    starts
}

/// A tag's attributes, from after its name to its `>`: the text between, and the position
/// after the `>`. `None` when the line ends (or the text does) first.
pub(crate) fn tag_rest(text: &str, at: usize, end: usize) -> Option<(&str, usize)> {
    let bytes = &text.as_bytes()[at..end];
    let gt = find_byte(b'>', bytes)?;
    Some((&text[at..at + gt], at + gt + 1))
}

/// Whether a tag whose attributes are `attributes` closes itself (`<invoke name="f"/>`).
pub(crate) fn is_self_closing(attributes: &str) -> bool {
    attributes.trim_end().ends_with('/')
}

/// The value of `key="…"` (or `'…'`) among a tag's attributes.
pub(crate) fn attribute<'t>(attributes: &'t str, key: &str) -> Option<&'t str> {
    let mut rest = attributes;
    loop {
        let at = rest.find(key)?;
        let before_ok = at == 0 || rest.as_bytes()[at - 1].is_ascii_whitespace();
        let after = rest[at + key.len()..].trim_start();
        rest = &rest[at + key.len()..];
        let Some(value) = after.strip_prefix('=').map(str::trim_start) else {
            continue;
        };
        if !before_ok {
            continue;
        }
        let quote = value.chars().next().filter(|&q| q == '"' || q == '\'')?;
        let value = &value[1..];
        return value.find(quote).map(|end| &value[..end]);
    }
}
