//! What a group of formats gives the registry: its markers, its decoder and its stream machine,
//! side by side behind one trait, so that the stream, `parse_text` and `extract` read a format
//! by the same rules.
//!
//! * The **machine** ([`Machine`]) is fed the text of a call region as it grows, from its start
//!   marker. It finds, without re-scanning, each call's name as soon as it is written (to
//!   announce it), the byte span of JSON arguments as they arrive (to forward the model's own
//!   bytes), and where the region's markup ends. Closing markers are looked for only where the
//!   decoder would look (outside JSON strings, after a parameter value…).
//! * The **decoder** ([`Grammar::decode`]) reads the region once it has ended: every rule of the
//!   format (variants, typing by `tools`, ids, errors) lives there. It only ever sees the
//!   region's text, so the machine alone decides where a region ends.

use std::ops::Range;

use crate::json::{JsonBuilder, JsonView, ParseOptions};
use crate::protocol::FormatSet;
use crate::scan::call_scan::{CallRecord, CallScanner};

use super::cx::Cx;
use super::schema::ParamTypes;

/// A marker that opens a call region anywhere in prose, and the formats it opens.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Start {
    pub text: &'static str,
    pub formats: FormatSet,
}

/// A format that may have no marker at all: a message that *starts* with this byte is a
/// candidate, held until the machine knows (`{` for bare Llama 3 objects, `[` for pythonic
/// lists).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bare {
    pub first: u8,
    pub formats: FormatSet,
}

/// What a machine needs to know of the parse.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Open {
    /// The enabled formats (of this group, a call shape whose format is off is read as the
    /// first enabled one, as the decoder does).
    pub formats: FormatSet,
    pub json: ParseOptions,
    /// Record the calls of JSON call text as it is read (a parse that announces calls does; a
    /// calls-only parse reads them again only when a failure needs their names).
    pub track: bool,
}

/// What a machine knows after the region's text so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    More,
    /// The region's markup ends here.
    End(usize),
    /// A message that is not a call (harmony): its header ends here, its body is prose, read
    /// as content, or as reasoning when `reasoning`, until one of the group's
    /// [`Grammar::PROSE_ENDS`].
    Prose {
        end: usize,
        reasoning: bool,
    },
    /// A message-start candidate ([`Grammar::BARE`]) that is not this format after all.
    NotMine,
}

/// A group of formats.
pub(crate) trait Grammar {
    /// The markers that open a region (each starts with `<` or `[`, or is looked for at the start
    /// of a message only: `markers::is_anchored`, or of any line with [`Grammar::AT_LINES`];
    /// none is a prefix of another marker of any group).
    const STARTS: &'static [Start];
    /// The group's message-start markers also open a region at the start of any line
    /// (Functionary's `>>>`): text mode looks for them where a line begins, so prose is not
    /// slowed down.
    const AT_LINES: bool = false;
    /// A region that may open without a marker, at the start of a message.
    const BARE: Option<Bare> = None;
    /// The group's formats whose message may also be nothing but a JSON call object or list
    /// with no markup, bare or in one ```` ``` ```` / ```` ```json ```` fence (Hermes-family
    /// models drop their tags): such a message is read by raw JSON's `whole` reader even when
    /// raw JSON is not asked for. Only at the message start, as raw JSON `whole` reads it, so
    /// JSON after prose never runs.
    const WHOLE_JSON: FormatSet = FormatSet::NONE;
    /// A message may begin without the group's first start marker, because the chat template
    /// writes it at the end of the generation prompt (Functionary's `>>>`), or because the
    /// format has none (`granite_pythonic`'s bare calls): at the start of a message whose first
    /// byte may begin a name, a region opens with no marker text and the machine decides as
    /// after the marker (text that is not a header is an empty region, and the message is read
    /// on as before; with several such groups, each is tried in turn). Sniffing asks
    /// [`Grammar::claims_message`].
    const IMPLIED_START: bool = false;
    /// The implied start is read only where the caller names one of the group's formats, not
    /// under `"auto"` ([`FormatSet::ALL`]): nothing at the message's start shows the format
    /// (Functionary v3.2's `f\n{…}` is any word over a line of JSON, its `python\n…` any
    /// message that starts with the word), so only the caller knows the prompt wrote the marker.
    const IMPLIED_ONLY_NAMED: bool = false;
    /// Markers that end a prose message of this group ([`Verdict::Prose`]); outside one, the
    /// formats they name read them as control tokens (dropped). Inside the message they are
    /// looked for anywhere, whatever byte they start with.
    const PROSE_ENDS: &'static [Start] = &[];
    /// Ends of a message after which the group's next message may begin with its header alone,
    /// its start marker left out (Muse Glimmer's `<|eom|>` then ` to=f<|message|>`): after a
    /// prose message or a region that ends with one, text mode looks for the group's
    /// message-start markers (`markers::is_anchored`) as at the start of the text.
    const NEXT_HEADER_AFTER: &'static [&'static str] = &[];
    /// The group's formats whose reasoning is a prose message of its own (harmony's analysis
    /// channel, Muse Glimmer's `to=self`, HyperCLOVA X 14B's reasoning turn), which
    /// [`Grammar::PROSE_ENDS`] close: a prompt that opened the reasoning (`starts_in_reasoning`)
    /// opened that message, where the formats read are all among them.
    const REASONING_IS_A_MESSAGE: FormatSet = FormatSet::NONE;
    /// Start markers that inside the group's prose messages are stray special tokens, dropped
    /// (Muse Glimmer's `<|message|>` in an answer's body): no message's text holds them.
    const DROPPED_IN_PROSE: &'static [&'static str] = &[];
    /// The control tokens of the group's formats that are not text (end of turn, end of a call
    /// section): wherever they stand outside a call, they are dropped, never `content`.
    const CONTROL: &'static [&'static str] = &[];

    type Machine: Machine;

    /// Whether a message that starts with the [`Grammar::BARE`] byte looks like this format
    /// (for sniffing; the machine decides for good).
    fn claims_bare(_message: &str) -> bool {
        true
    }

    /// Whether a message (from its start) begins as a region of an [`Grammar::IMPLIED_START`]
    /// group would.
    fn claims_message(_message: &str) -> bool {
        false
    }

    /// The machine of a region opened by `STARTS[start]` (or `BARE`, when `None`), whose text
    /// so far (the marker) ends at `at`.
    fn open(start: Option<usize>, at: usize, open: Open) -> Self::Machine;

    /// Decodes the region `range` of `cx.text` (it starts at a start marker, or is a bare
    /// message), recording its calls and prose in `cx`.
    fn decode<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView;
}

/// A stream machine (see the module documentation).
pub(crate) trait Machine {
    /// Reads `buf` (the region's text so far; it only grows between calls).
    fn advance(&mut self, buf: &str) -> Verdict;

    /// [`advance`](Self::advance) knowing the tools offered (`tools=`): the markup of a group
    /// whose garbled tags an offered tool's name repairs reads them so (qwen3_coder's).
    fn advance_with(&mut self, buf: &str, _tools: Option<&dyn ParamTypes>) -> Verdict {
        self.advance(buf)
    }

    /// The calls found so far (offsets in the region's text).
    fn records(&self) -> &[CallRecord];

    /// The scanner of the JSON value this machine is reading, when reading it is all the
    /// machine does next (its `advance` is that scanner's `scan` until the value ends), and its
    /// position is [`safe`](Self::safe).
    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        None
    }

    /// Takes `piece`, appended to the region's text of `len` bytes, when all
    /// [`advance`](Self::advance) would do with it is search past it for a marker that cannot
    /// start in it (it would return [`Verdict::More`], with the records and
    /// [`safe`](Self::safe) unchanged). Returns whether it did; the text grows by `piece`
    /// either way.
    fn skip_piece(&mut self, _len: usize, _piece: &str) -> bool {
        false
    }

    /// Argument bytes before this offset are final.
    fn safe(&self) -> usize {
        0
    }

    /// For a bare candidate: whether, if the text ended now, it would not be this format.
    fn undecided(&self) -> bool {
        false
    }

    /// For a bare candidate of `len` bytes in which the decoder found no call: where the value
    /// raw JSON may read instead ends (its first value, or all of it when that never closed).
    /// `None`: the candidate is given back whole.
    fn raw_value_end(&self, _len: usize) -> Option<usize> {
        None
    }
}

/// The `Spec` of a group in one of the shared shapes (`invoke`, `sectioned`, the wrappers of
/// `tool_call`), whose macros give it their markers, machine and decoder:
/// `grammar::spec!(starts: …, control: …, machine: M, open: |start, at, open| …,
/// decode: |cx, range| …);`.
macro_rules! spec {
    (
        starts: $starts:expr,
        control: $control:expr,
        machine: $machine:ty,
        open: |$start:ident, $at:ident, $open:ident| $opened:expr,
        decode: |$cx:ident, $range:ident| $decoded:expr $(,)?
    ) => {
        pub(crate) struct Spec;

        impl $crate::formats::grammar::Grammar for Spec {
            const STARTS: &'static [$crate::formats::grammar::Start] = $starts;
            const CONTROL: &'static [&'static str] = $control;

            type Machine = $machine;

            fn open(
                $start: Option<usize>,
                $at: usize,
                $open: $crate::formats::grammar::Open,
            ) -> Self::Machine {
                $opened
            }

            fn decode<B>(
                $cx: &mut $crate::formats::Cx<'_, '_, B>,
                $range: std::ops::Range<usize>,
            ) -> Result<(), B::Error>
            where
                B: $crate::json::JsonBuilder,
                B::Value: $crate::json::JsonView,
            {
                $decoded
            }
        }
    };
}
pub(crate) use spec;
