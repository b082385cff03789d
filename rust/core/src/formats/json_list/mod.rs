//! Call lists between a start token and an end token: `<|tool_call_start|>[…]<|tool_call_end|>`
//! (LFM2), `<tool_calls>[…]</tool_calls>` (Jamba, Hunyuan A13B), `<tool_calls>` with call
//! objects one a line (MiniMax M1) or with glm45-shaped `<tool_call>f<tool_sep>…</tool_call>`
//! calls (HY v3), `<TOOLCALL>[…]</TOOLCALL>` (Nemotron Nano 2; Nemotron-Mini writes
//! `<toolcall> {…} </toolcall>`, one object),
//! `<|tool_call|>[…]` (Granite 3, no end token), `<|tools_prefix|>[…]<|tools_suffix|>`
//! (Apertus), `<|START_ACTION|>[…]<|END_ACTION|>` (Command R7B / A) and
//! `<function_calls>f(a=1)\ng(b=2)</function_calls>` (Olmo 3: pythonic calls, one a line), and,
//! only at the start of a message, `functools[…]` (Phi-4-mini, Firefunction v2; its `[` opens
//! the list, and a `{` right after `functools` opens one call object, a list of one) and ``Action: ```json\n[…]\n``` `` (Command R / R+; `Action:` on a line of its own
//! too, as R+'s template writes it): a marker that does not begin
//! with `<` or `[` is not looked for in prose (`markers::is_anchored`).
//!
//! The list is JSON, one call object per item, in the shape of its format ([`Shape`]); LFM2
//! also writes it as a pythonic list (`[f(a=1)]`, read by the pythonic grammar). A single
//! object stands for a list of one, an empty list (or nothing) is no call, and a missing end
//! token is accepted: the region ends with the list. A list that is not valid JSON is one
//! failed call whose markup runs to the end token (or to the end of the text).

mod decode;
mod machine;

pub(crate) use decode::one_list;
pub(crate) use machine::ListCall;

use std::ops::Range;

use super::cx::Cx;
use super::grammar::{Grammar, Open, Start};
use crate::json::{JsonBuilder, JsonView};
use crate::protocol::{Format, FormatSet};
use crate::scan::find::{same, Needle};

/// How a format writes one call object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `{"name": …, "arguments" | "parameters": …}`.
    Named,
    /// `{"name": …}` objects, or a pythonic `[f(a=1)]` list (LFM2; its brackets may be left
    /// out, as a list of one call is written: `f(a=1)`).
    NamedOrPythonic,
    /// Pythonic calls without brackets, one a line (Olmo 3).
    PythonicLines,
    /// `{"f": {…arguments}}`: the one key is the name (Apertus).
    Keyed,
    /// `{"tool_call_id": …, "tool_name": …, "parameters": …}` (Cohere; `name` and `arguments`
    /// are read too).
    Cohere,
}

/// One format of the group: its tokens and the shape of its call objects.
pub(crate) struct Wrap {
    pub format: Format,
    pub end: Option<&'static Needle>,
    pub shape: Shape,
    /// The format whose body is call objects one a line, sharing the tokens: a body that
    /// starts with `{` is its (MiniMax M1 beside Jamba; one object reads the same either way).
    pub lines: Option<Format>,
    /// The format whose body is `<tool_call>` calls (HY v3, beside Jamba).
    pub tagged: Option<Format>,
}

impl Wrap {
    /// The format a body is read as: the body's own ([`Wrap::lines`], [`Wrap::tagged`]), or,
    /// when that one is not allowed, the first allowed format of the tokens.
    pub(crate) fn format_of(&self, body: Body, allowed: FormatSet) -> Format {
        let own = match body {
            Body::Lines => self.lines,
            Body::Tagged => self.tagged,
            _ => None,
        };
        let own = own.unwrap_or(self.format);
        if allowed.contains(own) {
            return own;
        }
        let formats = [Some(self.format), self.lines, self.tagged];
        formats.into_iter().flatten().find(|&f| allowed.contains(f)).unwrap_or(own)
    }
}

const LFM2_START: &str = "<|tool_call_start|>";
const JAMBA_START: &str = "<tool_calls>";
const NEMOTRON_START: &str = "<TOOLCALL>";
/// Nemotron-Mini-4B-Instruct's spelling (its template's; ollama/ollama#6870).
const NEMOTRON_MINI_START: &str = "<toolcall>";
const GRANITE_START: &str = "<|tool_call|>";
const APERTUS_START: &str = "<|tools_prefix|>";
const COHERE_START: &str = "<|START_ACTION|>";
const OLMO3_START: &str = "<function_calls>";
/// What a [`Wrap::tagged`] body starts with.
const TAGGED: &str = super::tool_call::tags::OPEN;
const FUNCTOOLS_START: &str = "functools[";
/// Phi-4-mini's marker before one call object instead of a list (`functools{"name": …}`).
const FUNCTOOLS_OBJECT_START: &str = "functools{";
/// Command R's tool-use template: `Action:` and a JSON fence of Cohere call objects, on the
/// same line or (Command R+) the next.
const COMMAND_R_START: &str = "Action: ```json";
const COMMAND_R_START_LINE: &str = "Action:\n```json";
/// HyperCLOVA X SEED Think 14B's tool role: its chat template ends the prompt with
/// `<|im_start|>assistant`, so a message that calls starts ` -> tool/function_call` and a JSON
/// list follows, ended by `<|im_end|>`.
const HYPERCLOVAX_14B_START: &str = "-> tool/function_call";
/// The model's own assistant turn header, after its reasoning turn or an answer: it ends the
/// turn before (`…<|im_end|>\n<|im_start|>assistant`), and opens the tool role
/// (`Let me check.<|im_end|>\n<|im_start|>assistant -> tool/function_call\n[…]`) or the answer
/// (`\n…`). The header is markup either way ([`ListCall`] tells which at the bytes after it).
pub(crate) const HYPERCLOVAX_14B_TURN: &str = "<|im_start|>assistant";
/// HyperCLOVA X 14B's reasoning turn, where the prompt ended with `<|im_start|>assistant` and
/// the model thinks first (`/think\n…`, the header the chat template writes when thinking is
/// forced): at the start of a message only, it opens a reasoning message that the next turn
/// header ends.
const HYPERCLOVAX_14B_THINK: &str = "/think\n";
static IM_END: Needle = Needle::new("<|im_end|>");
const ANSWER_OPEN: &str = "<answer>";
const ANSWER_CLOSE: &str = "</answer>";

const LFM2_END_TEXT: &str = "<|tool_call_end|>";

static LFM2_END: Needle = Needle::new(LFM2_END_TEXT);
static JAMBA_END: Needle = Needle::new("</tool_calls>");
static NEMOTRON_END: Needle = Needle::new("</TOOLCALL>");
static NEMOTRON_MINI_END: Needle = Needle::new("</toolcall>");
static APERTUS_END: Needle = Needle::new("<|tools_suffix|>");
static COHERE_END: Needle = Needle::new("<|END_ACTION|>");
static OLMO3_END: Needle = Needle::new("</function_calls>");
static FENCE_END: Needle = Needle::new("```");

/// The index in [`START_TEXTS`] of the first marker read only where a region starts (Command
/// R's `Action:` spellings, HyperCLOVA X 14B's tool role and reasoning turn at a message's
/// start): they are the last, as the only ones whose first byte is neither `<` nor `f` (the
/// decoder's marker walk stops at two bytes).
pub(crate) const AT_REGION_START: usize = 11;

/// The index in [`START_TEXTS`] of HyperCLOVA X 14B's turn header.
pub(crate) const TURN: usize = 10;
/// The index in [`START_TEXTS`] of HyperCLOVA X 14B's reasoning turn, which opens a reasoning
/// message, never a region to decode.
pub(crate) const THINK: usize = 14;
// The indices above name these markers: a marker added before them moves them.
const _: () = assert!(
    same(START_TEXTS[TURN], HYPERCLOVAX_14B_TURN)
        && same(START_TEXTS[THINK], HYPERCLOVAX_14B_THINK)
        && same(START_TEXTS[AT_REGION_START], COMMAND_R_START)
);

/// The start tokens, in the order of [`WRAPS`].
pub(crate) const START_TEXTS: [&str; 15] = [
    LFM2_START,
    JAMBA_START,
    NEMOTRON_START,
    NEMOTRON_MINI_START,
    GRANITE_START,
    APERTUS_START,
    COHERE_START,
    OLMO3_START,
    FUNCTOOLS_START,
    FUNCTOOLS_OBJECT_START,
    HYPERCLOVAX_14B_TURN,
    COMMAND_R_START,
    COMMAND_R_START_LINE,
    HYPERCLOVAX_14B_START,
    HYPERCLOVAX_14B_THINK,
];

pub(crate) static WRAPS: [Wrap; 15] = [
    wrap(Format::Lfm2, Some(&LFM2_END), Shape::NamedOrPythonic),
    Wrap {
        lines: Some(Format::MinimaxM1),
        tagged: Some(Format::HyV3),
        ..wrap(Format::Jamba, Some(&JAMBA_END), Shape::Named)
    },
    wrap(Format::Nemotron, Some(&NEMOTRON_END), Shape::Named),
    wrap(Format::Nemotron, Some(&NEMOTRON_MINI_END), Shape::Named),
    wrap(Format::Granite, None, Shape::Named),
    wrap(Format::Apertus, Some(&APERTUS_END), Shape::Keyed),
    wrap(Format::CommandR7b, Some(&COHERE_END), Shape::Cohere),
    wrap(Format::Olmo3, Some(&OLMO3_END), Shape::PythonicLines),
    wrap(Format::Phi4Mini, None, Shape::Named),
    wrap(Format::Phi4Mini, None, Shape::Named),
    wrap(Format::HyperclovaxSeedThink14b, Some(&IM_END), Shape::Named),
    wrap(Format::CommandR, Some(&FENCE_END), Shape::Cohere),
    wrap(Format::CommandR, Some(&FENCE_END), Shape::Cohere),
    wrap(Format::HyperclovaxSeedThink14b, Some(&IM_END), Shape::Named),
    wrap(Format::HyperclovaxSeedThink14b, Some(&IM_END), Shape::Named),
];

/// A format's tokens, read by no other format.
pub(crate) const fn wrap(format: Format, end: Option<&'static Needle>, shape: Shape) -> Wrap {
    Wrap {
        format,
        end,
        shape,
        lines: None,
        tagged: None,
    }
}

const fn start(text: &'static str, format: Format) -> Start {
    Start {
        text,
        formats: FormatSet::only(format),
    }
}

pub(crate) struct Spec;

impl Grammar for Spec {
    const STARTS: &'static [Start] = &[
        start(LFM2_START, Format::Lfm2),
        Start {
            text: JAMBA_START,
            // HY v4 checkpoints with unsuffixed tokens write HY v3's calls (`hy_v4` names
            // both; its own group reads the suffixed tokens).
            formats: FormatSet::of(&[Format::Jamba, Format::MinimaxM1, Format::HyV3, Format::HyV4]),
        },
        start(NEMOTRON_START, Format::Nemotron),
        start(NEMOTRON_MINI_START, Format::Nemotron),
        start(GRANITE_START, Format::Granite),
        start(APERTUS_START, Format::Apertus),
        start(COHERE_START, Format::CommandR7b),
        start(OLMO3_START, Format::Olmo3),
        start(FUNCTOOLS_START, Format::Phi4Mini),
        start(FUNCTOOLS_OBJECT_START, Format::Phi4Mini),
        start(HYPERCLOVAX_14B_TURN, Format::HyperclovaxSeedThink14b),
        start(COMMAND_R_START, Format::CommandR),
        start(COMMAND_R_START_LINE, Format::CommandR),
        start(HYPERCLOVAX_14B_START, Format::HyperclovaxSeedThink14b),
        start(HYPERCLOVAX_14B_THINK, Format::HyperclovaxSeedThink14b),
    ];
    /// Hunyuan A13B's answer wrapper (`<think>…</think>\n<answer>…</answer>`, read as jamba),
    /// and an LFM2 end token that closes no list: no message of this group is prose, so these
    /// are only control tokens, dropped for their format alone (a scope `CONTROL` has not: it
    /// names the whole group).
    /// HyperCLOVA X 14B's turn header is a start marker that also ends its reasoning message.
    const PROSE_ENDS: &'static [Start] = &[
        start(ANSWER_OPEN, Format::Jamba),
        start(ANSWER_CLOSE, Format::Jamba),
        start(LFM2_END_TEXT, Format::Lfm2),
        start(HYPERCLOVAX_14B_TURN, Format::HyperclovaxSeedThink14b),
    ];
    /// HyperCLOVA X 14B writes its reasoning as a turn of its own (`/think\n…`, or opened by
    /// the prompt), ended by its next turn header.
    const REASONING_IS_A_MESSAGE: FormatSet = FormatSet::only(Format::HyperclovaxSeedThink14b);
    /// HyperCLOVA X SEED Think 14B's list without its tool role (a reasoning parser took it):
    /// a message that is only the JSON call list, as hermes reads one.
    const WHOLE_JSON: FormatSet = FormatSet::only(Format::HyperclovaxSeedThink14b);
    /// Command R7B's and Command A's answer wrappers (their reasoning span is a think tag),
    /// Command R+'s turn tokens around an answer, Apertus's turn tokens, and the ChatML end of
    /// turn (HyperCLOVA X 14B ends its answer with it before it opens the tool role).
    const CONTROL: &'static [&'static str] = &[
        "<|im_end|>",
        "<|START_RESPONSE|>",
        "<|END_RESPONSE|>",
        "<|START_TEXT|>",
        "<|END_TEXT|>",
        "<|assistant_start|>",
        "<|assistant_end|>",
        "<|CHATBOT_TOKEN|>",
        "<|END_OF_TURN_TOKEN|>",
    ];

    type Machine = machine::ListCall;

    fn open(start: Option<usize>, at: usize, open: Open) -> Self::Machine {
        let start = start.unwrap_or(0);
        match start {
            TURN => machine::ListCall::turn(&WRAPS[start], at, open),
            THINK => machine::ListCall::reasoning(&WRAPS[start], at, open),
            _ => machine::ListCall::new(&WRAPS[start], body_start(start, at), open),
        }
    }

    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        decode::parse_region(cx, range)
    }
}

/// Where the body of a region opened by `START_TEXTS[start]`, ending at `at`, begins: a
/// marker's own `[` opens the list (or `{` its one call object).
pub(crate) fn body_start(start: usize, at: usize) -> usize {
    at - usize::from(START_TEXTS[start].ends_with(['[', '{']))
}

/// After HyperCLOVA X 14B's turn header, ending at `at`: where the tool role's list begins
/// (` -> tool/function_call`, blank space before it allowed) as `Some(Some(body))`,
/// `Some(None)` when the turn is not the tool role (an answer), `None` while more bytes may
/// tell.
pub(crate) fn tool_role(bytes: &[u8], at: usize) -> Option<Option<usize>> {
    let q = super::machine::ws(bytes, at);
    match super::machine::starts(bytes, q, HYPERCLOVAX_14B_START)? {
        true => Some(Some(q + HYPERCLOVAX_14B_START.len())),
        false => Some(None),
    }
}

/// Where a verbatim echo of the list `list` ends: LFM2 at times writes its list a second time
/// after the end token, closed by another end token (`<|tool_call_start|>[…]<|tool_call_end|>
/// […]<|tool_call_end|>`). That copy is neither prose nor a second call (the calls were read
/// once), so the region takes it in. From `at` (after whitespace): `Some(Some(end))` past the
/// second end token, `Some(None)` when the text there is not such an echo, `None` while more
/// bytes may tell.
pub(crate) fn echo_end(bytes: &[u8], list: Range<usize>, at: usize, token: &str) -> Option<Option<usize>> {
    if list.is_empty() {
        return Some(None);
    }
    let (echo, q) = (&bytes[list], super::machine::ws(bytes, at));
    let rest = &bytes[q..];
    if !rest.starts_with(echo) {
        return if echo.starts_with(rest) { None } else { Some(None) };
    }
    let p = super::machine::ws(bytes, q + echo.len());
    match super::machine::starts(bytes, p, token)? {
        true => Some(Some(p + token.len())),
        false => Some(None),
    }
}

/// What the body at `at` (after whitespace) is, once its first bytes tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Body {
    Json,
    /// Call objects one a line ([`Wrap::lines`]).
    Lines,
    /// `<tool_call>` calls ([`Wrap::tagged`]).
    Tagged,
    Pythonic,
    /// Pythonic calls without brackets, one a line ([`Shape::PythonicLines`], and LFM2's
    /// unbracketed call).
    PythonicLines,
    /// The end token (or the end of the text) comes first: no call.
    Empty,
    /// Anything else: a failed call.
    Other,
}

/// The kind of the body starting at `at` in `bytes`, `None` while more bytes may tell.
pub(crate) fn body_kind(bytes: &[u8], at: usize, wrap: &Wrap) -> Option<Body> {
    let &first = bytes.get(at)?;
    if let Some(end) = wrap.end {
        let end = end.text.as_bytes();
        let rest = &bytes[at..];
        if rest.starts_with(end) {
            return Some(Body::Empty);
        }
        if end.starts_with(rest) {
            return None;
        }
    }
    if wrap.tagged.is_some() && first == b'<' {
        let (rest, tagged) = (&bytes[at..], TAGGED.as_bytes());
        return if rest.starts_with(tagged) {
            Some(Body::Tagged)
        } else if tagged.starts_with(rest) {
            None
        } else {
            Some(Body::Other)
        };
    }
    match first {
        _ if wrap.shape == Shape::PythonicLines => Some(Body::PythonicLines),
        b'a'..=b'z' | b'A'..=b'Z' | b'_' if wrap.shape == Shape::NamedOrPythonic => {
            Some(Body::PythonicLines)
        }
        b'{' if wrap.lines.is_some() => Some(Body::Lines),
        b'{' => Some(Body::Json),
        b'[' if wrap.shape == Shape::NamedOrPythonic => {
            let q = super::machine::ws(bytes, at + 1);
            match bytes.get(q) {
                None => None,
                Some(b'{' | b'[' | b']' | b'"') => Some(Body::Json),
                Some(_) => Some(Body::Pythonic),
            }
        }
        b'[' => Some(Body::Json),
        _ => Some(Body::Other),
    }
}
