//! The tags of the `<tool_call>` group and the small rules the decoder and the machine share.

use crate::protocol::{Format, FormatSet};
use crate::scan::find::{find_any3, Needle};

use super::super::cursor::{failed_end, DenseSearcher, Markers, TextSeek};
use super::super::cx::skip_ws;
use super::super::machine::{starts, starts_any, ws};
use super::super::markers::same;
use super::super::schema::ParamTypes;

pub(crate) const OPEN: &str = "<tool_call>";
pub(crate) const CLOSE: &str = "</tool_call>";

/// The tag around a call and what its body may be: `<tool_call>` (hermes, qwen3_coder or
/// glm45, by the body) or another model's tag around one shape of body (Seed-OSS's
/// `<seed:tool_call>` around `<function=…>`, LongCat's `<longcat_tool_call>` around JSON).
pub(crate) struct Wrap {
    /// The format of the calls it wraps (of a `<function=…>` body, for `<tool_call>`).
    pub format: Format,
    /// What ends a call in it: its closing tag ([`Wrap::close`]), then the wrapper's opening
    /// tag (a model that leaves the close out before its next call opens the next wrapper).
    pub ends: Markers,
    /// `ends`' searcher in a value, which may be dense with `<`
    /// ([`Seek::dense`](super::super::cursor::Seek::dense)).
    pub ends_searcher: DenseSearcher,
    pub body: Body,
    /// The tags of an [`Body::ArgPairs`] body's pairs.
    pub pairs: &'static Pairs,
    /// The formats whose answer this tag also wraps when its body is no call ([`answer_of`]).
    pub answer_of: FormatSet,
}

impl Wrap {
    /// The wrapper's closing tag: the first of its `ends`.
    pub fn close(&self) -> &'static str {
        self.ends.patterns()[0]
    }
}

/// What a wrapper holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Body {
    /// The body's shape decides among hermes, qwen3_coder and glm45.
    Shared,
    /// A JSON call, read as hermes reads it.
    Json,
    /// `<function=NAME>` and its parameters, read as qwen3_coder reads them.
    Function,
    /// A JSON call object written name first (`{"name"`), read as hermes reads it; any other
    /// body makes the opening tag prose (`<json>{"a": 1}` or `<response>Sure` are no calls).
    /// (Granite 20B FC writes `<function_call> {…}` before each call and closes none: see
    /// [`Wrap::ends`].)
    CallObject,
    /// hermes's `<function name="NAME">` and JSON arguments, closed by `</function>`.
    FunctionName,
    /// glm45's name and `<arg_key>`/`<arg_value>` pairs (or GLM-5.3 Flash's JSON after the
    /// name's `>`), read as glm45 reads them (IQuest-Coder v2, IQuest Q1), with the wrapper's
    /// [`Pairs`] (LongCat's `<longcat_arg_key>`); or a JSON call, read as hermes reads it.
    ArgPairs,
}

pub(crate) static TOOL_CALL: Wrap = Wrap {
    format: Format::Qwen3Coder,
    ends: Markers::new(&[CLOSE, OPEN]),
    ends_searcher: DenseSearcher::new(),
    body: Body::Shared,
    pairs: &GLM_PAIRS,
    answer_of: FormatSet::NONE,
};

/// Granite's answer wrapper, also a Hermes-family wrapper around a call object.
pub(crate) const RESPONSE: &str = "<response>";
pub(crate) const RESPONSE_CLOSE: &str = "</response>";

/// The formats whose answer the tag `open` wraps (Granite writes its answer as
/// `<response>…</response>`). When one of them is read and the tag holds no call object, the
/// tags are markup, dropped from content, and the body is the answer.
pub(crate) const fn answer_of(open: &str) -> FormatSet {
    if same(open, RESPONSE) {
        FormatSet::only(Format::Granite)
    } else {
        FormatSet::NONE
    }
}

/// hermes's other spellings (fine-tunes write them; llama.cpp reads them): `<function
/// name="f">{…}</function>`, and a call object in a generic tag. Their order is the group's
/// `STARTS` after `<tool_call>` and `<function=`.
pub(crate) const FUNCTION_NAME: &str = "<function name=";

macro_rules! hermes_wraps {
    ($(($open:expr, $close:expr, $body:expr)),* $(,)?) => {
        /// The group's opening markers: `<tool_call>`, `<function=`, then `HERMES_WRAPS`'s.
        pub(crate) const OPENS: &[&str] = &[OPEN, FUNCTION, $($open),*];
        /// The wraps of `OPENS[2..]`.
        pub(crate) static HERMES_WRAPS: [Wrap; OPENS.len() - 2] = [
            $(Wrap {
                format: Format::Hermes,
                ends: Markers::new(&[$close, $open]),
                ends_searcher: DenseSearcher::new(),
                body: $body,
                pairs: &GLM_PAIRS,
                answer_of: answer_of($open),
            }),*
        ];
    };
}

hermes_wraps![
    (FUNCTION_NAME, FUNCTION_CLOSE, Body::FunctionName),
    // MiniCPM 5's tag as a tokenizer may leave it: the space dropped, or its space marker `Ġ`
    // (U+0120) written out (vLLM's test_minicpm5xml_tool_parser.py).
    ("<functionname=", FUNCTION_CLOSE, Body::FunctionName),
    ("<function\u{120}name=", FUNCTION_CLOSE, Body::FunctionName),
    ("<function_call>", "</function_call>", Body::CallObject),
    ("<tool>", "</tool>", Body::CallObject),
    ("<tools>", "</tools>", Body::CallObject),
    (RESPONSE, RESPONSE_CLOSE, Body::CallObject),
    ("<json>", "</json>", Body::CallObject),
    ("<JSON>", "</JSON>", Body::CallObject),
    ("<xml>", "</xml>", Body::CallObject),
];

/// Whether the body at `at` is a JSON call object written name first (`{"name"`, whitespace
/// allowed), or a list of them (`[{"name"`: Qwen2.5-Coder's `<tools>[…]</tools>`). `None`
/// while it may still be one.
pub(crate) fn is_call_object(b: &[u8], at: usize) -> Option<bool> {
    let q = ws(b, at);
    match b.get(q) {
        None => None,
        Some(b'{') => starts(b, ws(b, q + 1), "\"name\""),
        // One level of list: its first item decides.
        Some(b'[') if b.get(ws(b, q + 1)) != Some(&b'[') => is_call_object(b, q + 1),
        Some(_) => Some(false),
    }
}

/// qwen3_coder.
pub(crate) const FUNCTION: &str = "<function=";
/// The start of any function tag, canonical (`<function=`) or garbled ([`function_name`]).
pub(crate) const FUNCTION_TAG: &str = "<function";
pub(crate) const FUNCTION_CLOSE: &str = "</function>";
/// What ends a `<function=…>` block's call: its `</function>`, or the next block's tag.
pub(crate) static FUNCTION_ENDS: Markers = Markers::new(&[FUNCTION_CLOSE, FUNCTION]);
pub(crate) const PARAMETER: &str = "<parameter=";
pub(crate) const PARAMETER_CLOSE: &str = "</parameter>";
/// What ends a parameter value: its `</parameter>`, or, when that was left out, the next
/// `<parameter=`, the `</function>` or the `</tool_call>` (the value ends before them: Step-3.5
/// closes a call with `</tool_call>` alone, its value and function left open).
pub(crate) static VALUE_ENDS: Markers =
    Markers::new(&[PARAMETER_CLOSE, PARAMETER, FUNCTION_CLOSE, CLOSE]);

/// glm45 (and HY v3, which writes `<tool_sep>` after the name).
pub(crate) const TOOL_SEP: &str = "<tool_sep>";
pub(crate) const KEY: &str = "<arg_key>";
pub(crate) const KEY_CLOSE: &str = "</arg_key>";
pub(crate) const VALUE: &str = "<arg_value>";
pub(crate) const VALUE_CLOSE: &str = "</arg_value>";

/// The tags of a key and value pair: glm45's `<arg_key>a</arg_key><arg_value>1</arg_value>`, or
/// another model's spelling of them.
pub(crate) struct Pairs {
    pub key: &'static str,
    pub key_close: &'static str,
    pub key_close_needle: Needle,
    pub value: &'static str,
    pub value_close: &'static str,
    pub value_close_needle: Needle,
}

impl Pairs {
    pub(crate) const fn new(
        key: &'static str,
        key_close: &'static str,
        value: &'static str,
        value_close: &'static str,
    ) -> Self {
        Self {
            key,
            key_close,
            key_close_needle: Needle::new(key_close),
            value,
            value_close,
            value_close_needle: Needle::new(value_close),
        }
    }
}

/// glm45's pairs (also HY v3's, IQuest-Coder v2's and IQuest Q1's).
pub(crate) static GLM_PAIRS: Pairs = Pairs::new(KEY, KEY_CLOSE, VALUE, VALUE_CLOSE);

/// The formats, in the order a body of a shape whose format is off is tried (HyperCLOVA X
/// SEED Think writes glm45's shape).
const FORMATS: [Format; 4] = [
    Format::Hermes,
    Format::Qwen3Coder,
    Format::Glm45,
    Format::HyperclovaxSeedThink,
];

/// Which format a `<tool_call>` body is read as: by its shape (`{`/`[` hermes, `<function=`
/// qwen3_coder, a name glm45), or, when that format is not allowed, the first allowed one (which
/// then usually fails, visibly); granite (read as hermes) when none of the three is.
pub(crate) fn body_format(shape: Format, allowed: FormatSet) -> Format {
    // Granite 3.1 writes its JSON list after `<tool_call>` (Granite 3.0 after `<|tool_call|>`).
    if !allowed.intersects(FormatSet::of(&FORMATS)) && allowed.contains(Format::Granite) {
        return Format::Granite;
    }
    // RWKV's earlier spelling: `<tool_call>` and a call object on a line (`rwkv::legacy`).
    if !allowed.intersects(FormatSet::of(&FORMATS)) && allowed.contains(Format::Rwkv) {
        return Format::Rwkv;
    }
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

/// Whether a body of `shape` read as `format` is JSON: hermes's and Granite's bodies, and a call
/// object in glm45's or qwen3_coder's tag (Laguna writes `<tool_call>{"name": …, "arguments":
/// …}</tool_call>` as well as its name-and-pairs calls, and Qwen3.5 at times Qwen's earlier JSON
/// call for its `<function=…>` block; a name never starts with `{` or `[`).
pub(crate) fn reads_json(format: Format, shape: Format) -> bool {
    matches!(format, Format::Hermes | Format::Granite)
        || (matches!(format, Format::Glm45 | Format::Qwen3Coder) && shape == Format::Hermes)
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

/// Where the name of a tag that starts at `start` stops: at its `>`, at the line break a model
/// wrote instead, or at the `<` of markup that follows a tag left unclosed (a name holds none,
/// so a call never reads past the next call's tag for one): the first of them in
/// `text[start..end]`.
pub(crate) fn name_stop(text: &str, start: usize, end: usize) -> Option<usize> {
    find_name_stop(&text.as_bytes()[start..end]).map(|i| start + i)
}

/// [`name_stop`] in `bytes`.
pub(crate) fn find_name_stop(bytes: &[u8]) -> Option<usize> {
    find_any3(b'>', b'\n', b'<', bytes)
}

/// Where a name stops ([`find_name_stop`]) in a stream's text so far, resuming at `scanned`;
/// `Err` with the new resume point while it has not.
pub(crate) fn name_end(b: &[u8], scanned: usize) -> Result<usize, usize> {
    match find_name_stop(&b[scanned..]) {
        Some(i) => Ok(scanned + i),
        None => Err(b.len()),
    }
}

/// The type line of Step-Audio 2's calls: `<tool_call>function\nf\n{"a": 1}</tool_call>`, as
/// its chat template writes them (a glm45-shaped body whose first line is the call's type).
pub(crate) const TYPE_LINE: &str = "function";

/// Step-Audio 2's call: after a first line `function` (the glm45 name `name`, stopped by a
/// line break at `stop`), the tool's name on a line of its own, then JSON arguments. Returns the
/// real name's span (trimmed) when a `{` follows it, `Ok(None)` when the body is not so spelled
/// (the name is then `function`, as glm45 reads it), or, while `text` does not tell yet, where
/// to look again from (`from`: the second line's stop is looked for from there, at most `stop +
/// 1`).
pub(crate) fn typed_name(
    text: &str,
    name: &str,
    stop: usize,
    from: usize,
) -> Result<Option<std::ops::Range<usize>>, usize> {
    let b = text.as_bytes();
    if name != TYPE_LINE || b.get(stop) != Some(&b'\n') {
        return Ok(None);
    }
    let line = stop + 1;
    let from = from.max(line);
    let Some(line_end) = find_name_stop(&b[from..]).map(|i| from + i) else {
        return Err(b.len());
    };
    let written = &text[line..line_end];
    let real = written.trim();
    if b[line_end] != b'\n' || real.is_empty() || real.contains(char::is_whitespace) {
        return Ok(None);
    }
    match b.get(ws(b, line_end)) {
        None => Err(line_end),
        Some(b'{') => {
            let start = line + (written.len() - written.trim_start().len());
            Ok(Some(start..start + real.len()))
        }
        Some(_) => Ok(None),
    }
}

/// Where what follows a name that stopped at `stop` starts: past its `>` or line break, at
/// the `<` of the markup that stopped it.
pub(crate) fn past_stop(bytes: &[u8], stop: usize) -> usize {
    match bytes[stop] {
        b'<' => stop,
        _ => stop + 1,
    }
}

/// The name in `<function name="NAME">`, from the tag's text after `name=` up to its `>`: the
/// value without its quotes. `None` when the tag holds more than one quoted value (another
/// attribute, `name="f" extra="x"`, which no template writes) or nothing: no tool's name holds
/// a quote, so the call fails, keeping its text, where it was read as `f" extra="x`.
pub(crate) fn quoted_name(raw: &str) -> Option<&str> {
    let name = raw.trim().trim_matches(['"', '\'']).trim();
    (!name.is_empty() && !name.contains(['"', '\''])).then_some(name)
}

/// The name in `<function=NAME>` / `<parameter=NAME>` starting at `start`: the text up to `>`
/// on the same line, and the position after the `>`.
pub(crate) fn tag_name(text: &str, start: usize, end: usize) -> Option<(&str, usize)> {
    let stop = name_stop(text, start, end).filter(|&i| text.as_bytes()[i] == b'>')?;
    let name = text[start..stop].trim();
    (!name.is_empty()).then_some((name, stop + 1))
}

/// The tool a function tag names: `raw` is the tag's text after `<function` up to its name's
/// stop ([`name_stop`]), `closed` when that is a `>`. `<function=NAME>` names any tool, and so
/// does `<function =NAME>` (a space drifted in before the `=`: the `=` still says a name
/// follows). Step-3.5 garbles the tag at times (`<function NAME>`, `<functionNAME>`,
/// `<function=NAME` ended by a line break); such a tag names a tool only when `tools=` offers
/// exactly that name, as SGLang repairs them: anything else stays no tag (the call fails,
/// keeping its text). A tag written self-closing, `<function=NAME/>` (a call with no
/// parameters, in XML's spelling), names `NAME`: no tool's name ends in `/`.
pub(crate) fn function_name<'t>(
    raw: &'t str,
    closed: bool,
    tools: Option<&dyn ParamTypes>,
) -> Option<&'t str> {
    let name = match raw.trim_start_matches([' ', '\t']).strip_prefix('=') {
        Some(name) if closed => {
            let name = name.trim();
            let name = name.strip_suffix('/').map_or(name, str::trim_end);
            return Some(name).filter(|name| !name.is_empty());
        }
        Some(name) => name,
        None if closed => raw,
        None => return None,
    }
    .trim();
    let offered = !name.is_empty() && tools.is_some_and(|tools| tools.has_tool(name));
    offered.then_some(name)
}

/// The function tag at `at` in `text[..end]`: the tool it names ([`function_name`]) and where
/// the tag ends.
pub(crate) fn function_tag<'t>(
    text: &'t str,
    at: usize,
    end: usize,
    tools: Option<&dyn ParamTypes>,
) -> Option<(&'t str, usize)> {
    let start = at + FUNCTION_TAG.len();
    if !text[at..end].starts_with(FUNCTION_TAG) {
        return None;
    }
    let stop = name_stop(text, start, end)?;
    let closed = text.as_bytes()[stop] == b'>';
    let after = past_stop(text.as_bytes(), stop);
    Some((function_name(&text[start..stop], closed, tools)?, after))
}

/// The parameter a `<parameter=` tag of a call to `tool` names: `raw` is the tag's text after
/// `<parameter=` up to its name's stop, `closed` when that is a `>`. A closed tag names any
/// parameter. Step-3.5's garbled ones, a name ended by a line break or written after a second
/// `parameter=`, name one only when `tool` is offered and declares exactly that parameter.
pub(crate) fn parameter_name<'t>(
    raw: &'t str,
    closed: bool,
    tool: &str,
    tools: Option<&dyn ParamTypes>,
) -> Option<&'t str> {
    let name = raw.trim();
    let declared = |key: &str| tools.is_some_and(|tools| tools.has_parameter(tool, key) == Some(true));
    let repeated = name
        .strip_prefix(&PARAMETER[1..])
        .map(str::trim)
        .filter(|&key| declared(key) && !declared(name));
    match repeated {
        Some(key) => Some(key),
        // A self-closing tag (`<parameter=NAME/>`) names `NAME` (its value is then empty).
        None if closed => Some(name.strip_suffix('/').map_or(name, str::trim_end))
            .filter(|name| !name.is_empty()),
        None => Some(name).filter(|&name| declared(name)),
    }
}

/// The `<parameter=` tag at `at` in `text[..end]` of a call to `tool`: the parameter it names
/// ([`parameter_name`]) and where the tag ends.
pub(crate) fn parameter_tag<'t>(
    text: &'t str,
    at: usize,
    end: usize,
    tool: &str,
    tools: Option<&dyn ParamTypes>,
) -> Option<(&'t str, usize)> {
    let start = at + PARAMETER.len();
    let stop = name_stop(text, start, end)?;
    let closed = text.as_bytes()[stop] == b'>';
    let after = past_stop(text.as_bytes(), stop);
    Some((parameter_name(&text[start..stop], closed, tool, tools)?, after))
}

/// Where the markup of a call that starts at `open` and ends at `pos` ends: past whitespace and
/// the closing tag (`ends`'s first marker); a missing closing tag is accepted at the end of the
/// text (or cut off there, `</tool_`: the text ends inside the tag) and before the next opening
/// tag ([`reopens`]: the call's markup ends there, unless that tag starts the same call written
/// again, [`repeat_end`]). `None` when something else follows.
pub(crate) fn close_tag(
    text: &str,
    open: usize,
    pos: usize,
    end: usize,
    ends: &Markers,
) -> Option<usize> {
    let bytes = &text.as_bytes()[..end];
    let close = ends.patterns()[0];
    let (mut open, mut pos) = (open, pos);
    loop {
        let after = skip_ws(text, pos, end);
        if text[after..end].starts_with(close) {
            return Some(after + close.len());
        }
        if after == end || close.starts_with(&text[after..end]) {
            return Some(end);
        }
        if reopens(bytes, after, ends) != Some(true) {
            return None;
        }
        match repeat_end(bytes, open, after) {
            Ok(Some(repeat)) => (open, pos) = (after, repeat),
            _ => return Some(after),
        }
    }
}

/// A model that leaves a call's closing tag out may write the whole call again, word for word
/// (Laguna's `<tool_call>f\n{…}\n<tool_call>f\n{…}</tool_call>`, Ollama's
/// `TestLagunaParserIgnoresDuplicatedNestedToolCall`): one call, whose markup runs through the
/// repeat, so that it never runs twice. With the call's markup `bytes[open..at]` (trailing
/// whitespace aside), where the same bytes written again from `at` end (`None` when they are
/// not); `Err(())` while `bytes` ends inside a repeat.
pub(crate) fn repeat_end(bytes: &[u8], open: usize, at: usize) -> Result<Option<usize>, ()> {
    let call = bytes[open..at].trim_ascii_end();
    let written = &bytes[at..bytes.len().min(at + call.len())];
    match call.starts_with(written) {
        false => Ok(None),
        true if written.len() == call.len() => Ok(Some(at + call.len())),
        true => Err(()),
    }
}

/// Whether `bytes[at..]` starts with an opening tag of `ends` (all but its first marker, the
/// closing tag): the model left the closing tag out and opened its next call. `None` while too
/// short to tell.
pub(crate) fn reopens(bytes: &[u8], at: usize, ends: &Markers) -> Option<bool> {
    opening_len(bytes, at, ends).ok().map(|found| found.is_some())
}

/// The length of the opening tag of `ends` at `at`, if one is there; `Err(())` while too short
/// to tell.
fn opening_len(bytes: &[u8], at: usize, ends: &Markers) -> Result<Option<usize>, ()> {
    let opens = &ends.patterns()[1..];
    starts_any(bytes, at, opens).map(|found| found.map(|i| opens[i].len()))
}

/// Whether the `</arg_value>` that ends at `after` closes its value: it does when `<arg_key>`
/// (`key`, the pairs' own), the call's closing tag or the next call's opening tag follows (past
/// white space), or the end of the text; else the value quotes the tag
/// (`let s = "</arg_value>"`). `None` while `bytes` may still grow into one of them (at the end
/// of a complete text: it closes).
pub(crate) fn closes_value(bytes: &[u8], after: usize, ends: &Markers, key: &str) -> Option<bool> {
    let q = ws(bytes, after);
    if q == bytes.len() {
        return None;
    }
    match starts_any(bytes, q, &[key, ends.patterns()[0]]) {
        Err(()) => None,
        Ok(Some(_)) => Some(true),
        Ok(None) => reopens(bytes, q, ends),
    }
}

/// Where a wrapper's body starts, at or after `at`: past white space, any opening tag of
/// `ends` written again right after the wrapper's own (`<tool_call><tool_call>f…`: the opener
/// doubled, one call), and a Markdown fence opened around the body ([`fence_open`]). `Err(at)`
/// while `bytes` may still hold such a tag or fence at `at`.
pub(crate) fn body_start(bytes: &[u8], at: usize, ends: &Markers) -> Result<usize, usize> {
    let mut at = ws(bytes, at);
    loop {
        match opening_len(bytes, at, ends) {
            Err(()) => return Err(at),
            Ok(Some(len)) => at = ws(bytes, at + len),
            Ok(None) => match fence_open(bytes, at) {
                Err(()) => return Err(at),
                Ok(Some(len)) => at = ws(bytes, at + len),
                Ok(None) => return Ok(at),
            },
        }
    }
}

/// A Markdown fence around a tag's JSON body: EXAONE MoE (K-EXAONE) writes
/// ```` <tool_call>```json\n{…}\n```</tool_call> ```` at times (llama.cpp's `EXAONE_MOE`
/// format reads it). An opening fence is ```` ``` ```` or ```` ```json ````, then a line break.
pub(crate) const FENCE: &str = "```";
const FENCE_OPENS: [&str; 4] = ["```json\n", "```json\r\n", "```\n", "```\r\n"];

/// The length of a fence opening at `at` ([`FENCE`]), `Ok(None)` when none does, `Err(())`
/// while `bytes` may still hold one. A fence naming another language (```` ```xml ````) is none:
/// its body is not read as JSON.
fn fence_open(bytes: &[u8], at: usize) -> Result<Option<usize>, ()> {
    match starts_any(bytes, at, &FENCE_OPENS)? {
        Some(k) => Ok(Some(FENCE_OPENS[k].len())),
        None => Ok(None),
    }
}

/// Past the closing [`FENCE`]s after a tag's JSON body that ends at `at` (white space around
/// them skipped; the stream machine skips each one it meets), or `at` when none follows.
pub(crate) fn past_fence_close(text: &str, at: usize, end: usize) -> usize {
    let mut at = at;
    loop {
        let after = skip_ws(text, at, end);
        if !text[after..end].starts_with(FENCE) {
            return at;
        }
        at = after + FENCE.len();
    }
}

/// What follows a `<function=…>` block's `</function>`.
pub(crate) enum AfterFunction {
    /// The block's markup ends here (after the wrapper's closing tag, if it has one).
    Closed(usize),
    /// Another `<function=…>` block starts here in the same wrapper: its own call (Qwen3-Coder
    /// writes several calls in one `<tool_call>` so).
    Another(usize),
    /// Something else: the wrapper's closing tag is missing.
    Missing,
}

/// What follows the `</function>` ending at `after` of a block in `wrap` (none, or
/// `<function name=…>`'s own, which `</function>` closes) whose markup starts at `open`.
pub(crate) fn after_function(
    text: &str,
    open: usize,
    after: usize,
    end: usize,
    wrap: Option<&Wrap>,
) -> AfterFunction {
    let Some(wrap) = wrap.filter(|wrap| wrap.body != Body::FunctionName) else {
        let stray = stray_close(&text.as_bytes()[..end], after).ok().flatten();
        return AfterFunction::Closed(stray.unwrap_or(after));
    };
    let next = skip_ws(text, after, end);
    if text[next..end].starts_with(FUNCTION) {
        return AfterFunction::Another(next);
    }
    close_tag(text, open, after, end, &wrap.ends).map_or(AfterFunction::Missing, AfterFunction::Closed)
}

/// Where a `</tool_call>` ends that follows (past whitespace) a block written without its
/// `<tool_call>`, which ends at `after`: models that drop the opening tag may still write the
/// closing one (vLLM `test_extract_tool_calls_streaming_missing_opening_tag`), and that stray
/// tag is markup, not prose. `Err(())` while `bytes` may still grow into it.
pub(crate) fn stray_close(bytes: &[u8], after: usize) -> Result<Option<usize>, ()> {
    let q = ws(bytes, after);
    match starts(bytes, q, CLOSE) {
        None => Err(()),
        Some(true) => Ok(Some(q + CLOSE.len())),
        Some(false) => Ok(None),
    }
}

/// Closing markers of one region, searched forward once.
pub(crate) struct Closers<'t> {
    /// The wrapper's closing tag, and what ends a call in it ([`Wrap::ends`]).
    pub close: &'static str,
    pub ends: &'static Markers,
    pub wrap: TextSeek<'t>,
    /// What ends a function block: [`FUNCTION_ENDS`], or the `<function name=…>` wrapper's.
    pub function: TextSeek<'t>,
    pub arg_key: TextSeek<'t>,
    pub arg_value: TextSeek<'t>,
    /// The tags of the wrapper's key and value pairs.
    pub pairs: &'static Pairs,
    /// The wrapper's tags inside a value, for the calls it quotes whole
    /// (`glm45::after_quoted_calls`), searched while `quoting`: no value of the region has
    /// failed that reading yet.
    pub quoted: TextSeek<'t>,
    pub quoting: bool,
}

impl<'t> Closers<'t> {
    pub fn new(text: &'t str, end: usize, wrap: &'static Wrap) -> Self {
        Self {
            close: wrap.close(),
            ends: &wrap.ends,
            wrap: TextSeek::new(text, end, &wrap.ends),
            function: TextSeek::new(text, end, function_ends(Some(wrap))),
            arg_key: TextSeek::new(text, end, &wrap.pairs.key_close_needle),
            arg_value: TextSeek::new(text, end, &wrap.pairs.value_close_needle),
            pairs: wrap.pairs,
            quoted: TextSeek::dense(text, end, (&wrap.ends, &wrap.ends_searcher)),
            quoting: true,
        }
    }

    /// Where a call that failed at `from` ends ([`failed_end`]), by the wrapper's markers.
    pub fn wrap_end(&mut self, from: usize, otherwise: usize) -> usize {
        failed_end(self.wrap.next(from), otherwise)
    }

    /// Where a function block that failed at `from` ends ([`failed_end`]).
    pub fn function_end(&mut self, from: usize, otherwise: usize) -> usize {
        failed_end(self.function.next(from), otherwise)
    }
}

/// What ends a function block in `wrap` (`None`: a bare one): `<function name=…>`'s own
/// markers, else [`FUNCTION_ENDS`].
pub(crate) fn function_ends(wrap: Option<&'static Wrap>) -> &'static Markers {
    match wrap {
        Some(wrap) if wrap.body == Body::FunctionName => &wrap.ends,
        _ => &FUNCTION_ENDS,
    }
}
