//! The XML "invoke" shape shared by MiniMax-M2, DeepSeek's DSML and others: a block of calls
//! `OPEN INVOKE name="f"> PARAMETER name="a">value</PARAMETER> … </INVOKE> … CLOSE`. Values are
//! raw text typed by the tool schema, as in qwen3_coder; a parameter written `string="true"`
//! keeps its text (unless the schema allows no string there), `string="false"` is decoded as JSON (DSML). The attributes' names are the
//! shape's ([`Attrs`]: Kimi K3 writes `tool=`, `key=` and `type="string"`). An invoke whose body is a JSON
//! object instead of parameters is read too (DSML models write both), and a self-closing invoke
//! (`<invoke name="f"/>`, DeepSeek V4's call without arguments) is a call with no arguments; a
//! JSON call object (`{"name": …, "arguments": …}`) or list of them in place of the invokes is
//! read as those calls (dots writes both). A value ends at the first closing tag that markup
//! follows (a value may hold its own closing tag as text, and where the shape says so whole
//! quoted blocks and invokes: [`quoted`]). A missing final closing tag is accepted at the end
//! of the text. A group of this shape gives its [`Tags`]; the decoder
//! and the machine here do the rest.

pub(crate) mod decode;
pub(crate) mod machine;
pub(crate) mod quoted;

use std::borrow::Cow;

use super::cursor::Markers;
use super::cx::skip_ws;
use super::grammar::Start;
use crate::protocol::{Format, FormatSet};
use crate::scan::find::{find_byte, find_short, Needle};
use quoted::Quoted;

pub(crate) struct Tags {
    pub format: Format,
    /// Each wrapper's opening tag (the decoder's markers), with its closing tag at the same
    /// index.
    pub open_markers: Markers,
    /// `open_markers` may end with one marker more than there are closes: the invoke tag
    /// itself, for invokes written with no wrapper (DeepSeek V4 often opens a call so), a run
    /// of them that ends where anything else begins ([`Tags::close`] is `None` for it).
    pub closes: &'static [Needle],
    /// For each wrapper (and a run of bare invokes), what ends a broken invoke: the invoke's
    /// closing tag, or the wrapper's (none where [`Tags::left_open`] says it).
    pub recover: &'static [Markers],
    /// The start of an invoke tag, before its attributes (`<invoke`).
    pub invoke: &'static str,
    pub invoke_close: Needle,
    /// The start of a parameter tag (`<parameter`); empty when the body is not parameters
    /// (MiniMax-M3's elements, read by its own decoder): the invoke then runs to its close.
    pub parameter: &'static str,
    pub parameter_close: Needle,
    /// The parameter tag is a special token, never a value's text (DeepSeek's DSML): one inside
    /// a value begins the next parameter, the value's closing tag left out.
    pub parameter_ends_value: bool,
    /// A value may quote a block or an invoke of the shape's markup whole ([`quoted`]): only
    /// a closing tag outside it ends the value. `None`: the first closing tag that markup
    /// follows does.
    pub quoted: Option<&'static Quoted>,
    /// Tokens skipped between invokes (Step-3 frames each invoke in its call tokens).
    pub between: &'static [&'static str],
    /// A between token ending with this may be followed by the tool's name, which is skipped
    /// too (Step-3 writes `<｜tool_call_begin｜>function<｜tool_sep｜>f` before the invoke).
    pub between_name: Option<&'static str>,
    /// An entry of another kind than a call, skipped whole: (its begin token, the separator
    /// after its kind, its end token). Step-3 frames a call as `<｜tool_call_begin｜>function
    /// <｜tool_sep｜>…` and may frame other entries so (`thought<｜tool_sep｜>…<｜tool_call_end｜>`),
    /// which hold no invoke.
    pub other_entry: Option<(&'static str, &'static str, &'static str)>,
    /// An element that may wrap a JSON object body: (its opening tag, before its attributes;
    /// its closing tag). Kimi K3 writes `<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>`
    /// for arguments given whole.
    pub json_body: Option<(&'static str, &'static str)>,
    pub attrs: Attrs,
    /// For a shape whose tags are the model's special tokens, never text (Kimi K3's XTML): what
    /// ends a block, a call or a value the model left open. `None`: a block ends at its
    /// closing tag only.
    pub left_open: Option<&'static LeftOpen>,
}

/// What ends a block, a call or a value whose closing tag the model left out, in a shape whose
/// tags are special tokens ([`Tags::left_open`]).
pub(crate) struct LeftOpen {
    /// The template's tokens that stand only outside a block (a new block, a think channel,
    /// the reply's or the message's close, the end of the turn): a block, a call or a value
    /// left open ends before the first of them.
    pub ends: &'static [&'static str],
    /// The parameter's closing tag, then the other closing tags that end a value whose close
    /// was left out (the call's, the block's, the reply's, the message's). A value ends at the
    /// first of them that markup follows ([`LeftOpen::markup_follows`]): one followed by text
    /// is the value's own (a command that quotes the tag).
    pub value_ends: Markers,
    /// What ends the markup of a broken call: its own closing tag (past it), then the tags
    /// before which it ends (the next call, the block's close, and `ends`), so that a broken
    /// call never takes the next one with it.
    pub broken_ends: Markers,
    /// The token that ends a tag with attributes or a name (`<|sep|>`).
    pub sep: &'static str,
    /// What every tag of the shape starts with (`<|`).
    pub tag: &'static str,
}

impl LeftOpen {
    /// Whether markup follows a tag that ends at `at`: past its `sep` and whitespace, the end
    /// of the text or another tag.
    pub(crate) fn markup_follows(&self, text: &str, at: usize, end: usize) -> bool {
        let at = if text[at..end].starts_with(self.sep) {
            at + self.sep.len()
        } else {
            at
        };
        let rest = &text[skip_ws(text, at, end)..end];
        rest.is_empty() || rest.starts_with(self.tag)
    }

    /// Where a value that starts at `from` ends: at the first of [`LeftOpen::value_ends`] that
    /// markup follows; else at the first of them (what follows is then reported), `None` when
    /// none comes.
    pub(crate) fn value_end(&self, text: &str, from: usize, end: usize) -> Option<usize> {
        let first = self.value_ends.find(text, from, end)?;
        let mut next = Some(first);
        while let Some(tag) = next {
            if self.markup_follows(text, tag.end, end) {
                return Some(tag.start);
            }
            next = self.value_ends.find(text, tag.start + 1, end);
        }
        Some(first.start)
    }
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
    /// The template escapes attribute values as XML does (Kimi K3: `&quot;`, `&amp;`): names
    /// and keys are read back unescaped.
    pub escaped: bool,
    /// The shape writes a tool that has no namespace as its name twice, `f.f` (Muse Glimmer's
    /// same-name namespace): such a name is read as `f`.
    pub doubled_names: bool,
}

impl Attrs {
    /// The value of `key` among a tag's `attributes`, trimmed, unescaped when the shape's
    /// values are ([`Attrs::escaped`]).
    pub fn value<'t>(&self, attributes: &'t str, key: &str) -> Option<Cow<'t, str>> {
        let value = attribute(attributes, key)?.trim();
        Some(if self.escaped {
            unescape(value)
        } else {
            Cow::Borrowed(value)
        })
    }

    /// The invoked tool's name among a tag's `attributes`: its [`Attrs::tool`] value, `f.f`
    /// read as `f` where the shape doubles names ([`Attrs::doubled_names`]).
    pub fn tool_name<'t>(&self, attributes: &'t str) -> Option<Cow<'t, str>> {
        let name = self.value(attributes, self.tool)?;
        let single = match name.split_once('.') {
            Some((first, second)) if self.doubled_names && first == second => first.to_owned(),
            _ => return Some(name),
        };
        Some(Cow::Owned(single))
    }
}

/// `text` with its XML character references read: the five named entities and numeric ones
/// (`&#34;`, `&#x22;`). A `&` that begins none stays as written.
pub(crate) fn unescape(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = rest[1..]
            .find(';')
            .filter(|&n| n <= 8)
            .map(|n| &rest[1..n + 1]);
        let decoded = entity.and_then(|name| match name {
            "quot" => Some('"'),
            "amp" => Some('&'),
            "apos" => Some('\''),
            "lt" => Some('<'),
            "gt" => Some('>'),
            _ => {
                let number = name.strip_prefix('#')?;
                let code = match number.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                    None => number.parse().ok()?,
                };
                char::from_u32(code)
            }
        });
        match (entity, decoded) {
            (Some(name), Some(c)) => {
                out.push(c);
                rest = &rest[name.len() + 2..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The XML shapes' attributes: `<invoke name="f">`, `<parameter name="a" string="true">`.
pub(crate) const XML_ATTRS: Attrs = Attrs {
    tool: "name",
    key: "name",
    text: ("string", "true"),
    escaped: false,
    doubled_names: false,
};

/// The `Spec` of a group of this shape, from its [`Tags`] and its wrappers' opening tags:
/// `invoke::spec!(TAGS, [OPEN], Format::F);` (and `, control: &[…]` for its control tokens).
/// A group whose blocks come in several spellings gives one [`Tags`] each, and all their
/// wrappers' opening tags in that order: `invoke::spec!(spellings: [A, B], [A_OPEN, B_OPEN],
/// Format::F);` (DeepSeek V4.1 writes DSML's tags with a space after the DSML token).
macro_rules! spec {
    ($tags:expr, $opens:expr, $format:expr) => {
        $crate::formats::invoke::spec!($tags, $opens, $format, control: &[]);
    };
    ($tags:expr, $opens:expr, $format:expr, control: $control:expr) => {
        $crate::formats::invoke::spec!(spellings: [$tags], $opens, $format, control: $control);
    };
    (spellings: [$($tags:expr),+], $opens:expr, $format:expr) => {
        $crate::formats::invoke::spec!(spellings: [$($tags),+], $opens, $format, control: &[]);
    };
    (spellings: [$($tags:expr),+], $opens:expr, $format:expr, control: $control:expr) => {
        static SPELLINGS: &[&$crate::formats::invoke::Tags] = &[$(&$tags),+];
        $crate::formats::grammar::spec!(
            starts: &$crate::formats::invoke::starts($opens, $format),
            control: $control,
            machine: $crate::formats::invoke::machine::InvokeBlock,
            open: |start, at, open| {
                let (tags, block) = $crate::formats::invoke::spelling(SPELLINGS, start.unwrap_or(0));
                Self::Machine::new(tags, block, at, open)
            },
            decode: |cx, range| {
                let tags = $crate::formats::invoke::spelling_at(SPELLINGS, cx.text, range.start);
                $crate::formats::invoke::decode::parse_region(cx, range, tags)
            },
        );
    };
}
pub(crate) use spec;

/// The spelling of the block the group's start marker `start` opens (the spellings' wrappers,
/// in order, are the group's starts), and that wrapper's index among the spelling's.
pub(crate) fn spelling(spellings: &[&'static Tags], start: usize) -> (&'static Tags, usize) {
    let mut block = start;
    for &tags in spellings {
        let wrappers = tags.open_markers.patterns().len();
        if block < wrappers {
            return (tags, block);
        }
        block -= wrappers;
    }
    (spellings[0], 0)
}

/// The spelling whose wrapper opens the region at `at` (a region starts at a start marker).
pub(crate) fn spelling_at(spellings: &[&'static Tags], text: &str, at: usize) -> &'static Tags {
    let opens = |tags: &&&Tags| {
        let patterns = tags.open_markers.patterns();
        patterns.iter().any(|open| text[at..].starts_with(open))
    };
    spellings
        .iter()
        .find(opens)
        .copied()
        .unwrap_or(spellings[0])
}

/// The [`Tags`] of one XML wrapper, from the names of its three tags:
/// `invoke::xml_tags!(Format::F, "wrapper", "invoke", "parameter")` reads
/// `<wrapper><invoke name="f"><parameter name="a">1</parameter></invoke></wrapper>`
/// (`, attrs: …` for other [`Attrs`] than [`XML_ATTRS`]).
macro_rules! xml_tags {
    ($format:expr, $wrapper:literal, $invoke:literal, $parameter:literal) => {
        $crate::formats::invoke::xml_tags!(
            $format, $wrapper, $invoke, $parameter,
            attrs: $crate::formats::invoke::XML_ATTRS
        )
    };
    ($format:expr, $wrapper:literal, $invoke:literal, $parameter:literal, attrs: $attrs:expr) => {{
        use $crate::formats::cursor::Markers;
        use $crate::scan::find::Needle;
        static CLOSES: [Needle; 1] = [Needle::new(concat!("</", $wrapper, ">"))];
        // An invoke tag opens quoted markup only with its space: `<invoked>` is text.
        static QUOTED: $crate::formats::invoke::quoted::Quoted =
            $crate::formats::invoke::quoted::Quoted::new(
&[
                    concat!("</", $parameter, ">"),
                    concat!("<", $parameter),
                    concat!("<", $wrapper, ">"),
                    concat!("<", $invoke, " "),
                    concat!("</", $wrapper, ">"),
                    concat!("</", $invoke, ">"),
                ],
2,
);
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
            parameter_ends_value: false,
            quoted: Some(&QUOTED),
            between: &[],
            between_name: None,
            other_entry: None,
            json_body: None,
            attrs: $attrs,
            left_open: None,
        }
    }};
}
pub(crate) use xml_tags;

/// The `Spec` of a group with one XML wrapper ([`xml_tags`]):
/// `invoke::xml_spec!(Format::F, "wrapper", "invoke", "parameter");`.
macro_rules! xml_spec {
    ($format:expr, $wrapper:literal, $invoke:literal, $parameter:literal) => {
        static TAGS: $crate::formats::invoke::Tags =
            $crate::formats::invoke::xml_tags!($format, $wrapper, $invoke, $parameter);
        // A stray closing wrapper (the model's special token) is never content.
        $crate::formats::invoke::spec!(
            TAGS,
            [concat!("<", $wrapper, ">")],
            $format,
            control: &[concat!("</", $wrapper, ">")]
        );
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

impl Tags {
    /// Whether `rest` starts with one of the tokens that end a block, call or value the model
    /// left open ([`LeftOpen::ends`]).
    pub(crate) fn ends_left_open(&self, rest: &str) -> bool {
        self.left_open
            .is_some_and(|left_open| left_open.ends.iter().any(|end| rest.starts_with(end)))
    }

    /// The closing tag of the wrapper `block` opened; `None` for a run of bare invokes.
    pub(crate) fn close(&self, block: usize) -> Option<&'static str> {
        self.closes.get(block).map(|needle| needle.text)
    }

    /// Where the markup goes on after the between token `token` ending at `at`: past the
    /// tool's name when one may follow it ([`Tags::between_name`]). `Err(())` while the name
    /// may go on past the end of `b` (a stream's text so far, not `whole`).
    pub(crate) fn after_between(
        &self,
        token: &str,
        b: &[u8],
        at: usize,
        whole: bool,
    ) -> Result<usize, ()> {
        if let Some(past) = self.past_other_entry(token, b, at, whole)? {
            return Ok(past);
        }
        if !self.between_name.is_some_and(|sep| token.ends_with(sep)) {
            return Ok(at);
        }
        let is_name = |c: &&u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.');
        let end = at + b[at..].iter().take_while(is_name).count();
        // A stream's text that ends here (the name not begun yet, or running on) decides
        // nothing: the name's bytes may follow.
        if end == b.len() && !whole {
            return Err(());
        }
        Ok(end)
    }

    /// Past an entry of another kind than `function` ([`Tags::other_entry`]) that the begin
    /// token `token` ending at `at` opens, when it holds no invoke; `None` for any other
    /// markup. `Err(())` while a stream's text so far (`b`, not `whole`) leaves it open.
    fn past_other_entry(
        &self,
        token: &str,
        b: &[u8],
        at: usize,
        whole: bool,
    ) -> Result<Option<usize>, ()> {
        let Some((_, sep, end)) = self.other_entry.filter(|(begin, ..)| *begin == token) else {
            return Ok(None);
        };
        let kind_end = at
            + b[at..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
        let rest = &b[kind_end..];
        if !rest.starts_with(sep.as_bytes()) {
            let open = kind_end == b.len() || sep.as_bytes().starts_with(rest);
            return if open && !whole { Err(()) } else { Ok(None) };
        }
        if kind_end == at || &b[at..kind_end] == b"function" {
            return Ok(None);
        }
        let body = kind_end + sep.len();
        match find_short(&b[body..], end.as_bytes()) {
            Some(i) if find_short(&b[body..body + i], self.invoke.as_bytes()).is_none() => {
                Ok(Some(body + i + end.len()))
            }
            None if !whole => Err(()),
            _ => Ok(None),
        }
    }
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

/// The value of `key="…"` (or `'…'`) among a tag's attributes; unquoted (`key=f`), as HTML
/// allows, the value runs to the next whitespace or the end of the tag, a self-closing `/`
/// left out (`<invoke name=f/>`).
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
        let Some(quote) = value.chars().next().filter(|&q| q == '"' || q == '\'') else {
            let bare = value.split(|c: char| c.is_ascii_whitespace()).next()?;
            let bare = match bare.len() == value.len() {
                true => bare.strip_suffix('/').unwrap_or(bare),
                false => bare,
            };
            return (!bare.is_empty()).then_some(bare);
        };
        let value = &value[1..];
        return value.find(quote).map(|end| &value[..end]);
    }
}

#[cfg(test)]
mod tests {
    use super::{attribute, unescape};

    #[test]
    fn attribute_values_quoted_or_bare() {
        assert_eq!(attribute(r#" name="f""#, "name"), Some("f"));
        assert_eq!(attribute(" name='f'", "name"), Some("f"));
        // Unquoted, as HTML allows: to the next whitespace, a self-closing `/` left out.
        assert_eq!(attribute(" name=get_fact", "name"), Some("get_fact"));
        assert_eq!(attribute(" name=f string=true", "string"), Some("true"));
        assert_eq!(attribute(" name=f string=true", "name"), Some("f"));
        assert_eq!(attribute(" name=f/", "name"), Some("f"));
        assert_eq!(attribute(" name=a/b c", "name"), Some("a/b"));
        assert_eq!(attribute(" name=", "name"), None);
        assert_eq!(attribute(" name= ", "name"), None);
    }

    #[test]
    fn unescape_reads_xml_references_once() {
        assert_eq!(unescape("plain"), "plain");
        assert_eq!(unescape("a &quot;b&quot; &amp; c"), "a \"b\" & c");
        assert_eq!(unescape("&lt;&gt;&apos;&#34;&#x27;"), "<>'\"'");
        // Read once: `&amp;quot;` is the text `&quot;`; a `&` that begins no reference stays.
        assert_eq!(unescape("&amp;quot;"), "&quot;");
        assert_eq!(
            unescape("R&D & co &bogus; &#xZZ; &"),
            "R&D & co &bogus; &#xZZ; &"
        );
        assert_eq!(unescape("&#x1F600;"), "\u{1F600}");
    }
}
