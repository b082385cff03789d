//! The open-weight text formats: how each family of models writes its calls in raw text, read
//! into calls, `content` (the text outside call markup) and `reasoning` (think spans, harmony
//! `analysis`).
//!
//! The formats are listed once, in [`crate::registry`]; each group of formats that share their
//! markers is a folder here whose `Spec` implements [`grammar::Grammar`]: its start markers, its
//! stream machine and its decoder side by side. The module declarations, the dispatch below and
//! the marker tables ([`markers`]) are generated from the list.
//!
//! **Code-span rule.** A start marker that sits inside an inline Markdown code span is prose, not
//! a call: after a backtick run on a line, markers are ignored until a backtick run of the same
//! length closes the span or the line ends. Only the text *before* the marker decides, so a
//! stream parser applies the same rule without look-ahead. `` `<tool_call>` `` or
//! `` `[TOOL_CALLS]` `` in prose therefore creates no call, while a call on a line of its own
//! (or inside a ```` ``` ```` fence that opens the message) is found. A ```` ``` ```` block
//! opened after content is an example: markers in it are prose too, as are markers inside a
//! ```` ```json ```` fence (they sit in JSON strings, raw JSON's).
//!
//! **Content and reasoning.** `content` is the text outside call markup and think spans, and
//! `reasoning` the text of think spans and harmony `analysis` messages (several joined by a
//! newline); both are trimmed of surrounding whitespace. `reasoning` is `None` when the text has
//! neither. A ```` ``` ```` block whose first non-blank text is call markup is part of the
//! calls: its opening and closing fence lines are not `content` either (in any format).

pub(crate) mod cursor;
mod cut_json;
mod cx;
pub(crate) mod grammar;
mod invoke;
mod lead;
mod literal;
pub(crate) mod machine;
pub(crate) mod markers;
mod mask;
mod schema;
mod sectioned;
pub mod sniff;
mod wrapped;

#[cfg(test)]
mod tests;

use std::ops::Range;

use crate::calls::Outcome;
use crate::json::{JsonBuilder, JsonView, ParseOptions};
use crate::raw_json::RawJsonMode;
use crate::registry::for_each_group;
use crate::scan::call_scan::{CallRecord, CallScanner};

pub use crate::protocol::{Format, FormatSet, Group};
pub(crate) use cx::Cx;
use grammar::{Bare, Grammar, Machine, Open, Start, Verdict};
pub use schema::{
    definition_parameters, has_property, property_types, tool_definition, tool_names, ParamTypes,
    ToolSchemas, Types,
};

macro_rules! define_groups {
    ($($module:ident $group:ident [$($formats:tt)*])*) => {
        $(mod $module;)*

        /// The stream machine of a region of any group.
        pub(crate) enum AnyMachine {
            $($group(<$module::Spec as Grammar>::Machine),)*
        }

        impl AnyMachine {
            fn get(&self) -> &dyn Machine {
                match self {
                    $(AnyMachine::$group(machine) => machine,)*
                }
            }

            fn get_mut(&mut self) -> &mut dyn Machine {
                match self {
                    $(AnyMachine::$group(machine) => machine,)*
                }
            }
        }

        impl Group {
            /// The markers that open a region of this group.
            pub(crate) const fn starts(self) -> &'static [Start] {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::STARTS,)*
                }
            }

            /// Whether the group's message-start markers open at any line start.
            pub(crate) const fn at_lines(self) -> bool {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::AT_LINES,)*
                }
            }

            /// Whether a message may begin without the group's first start marker.
            pub(crate) const fn implied_start(self) -> bool {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::IMPLIED_START,)*
                }
            }

            /// Whether the implied start is read only where the caller names the group's formats.
            pub(crate) const fn implied_only_named(self) -> bool {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::IMPLIED_ONLY_NAMED,)*
                }
            }

            /// Whether a message begins as a region of an implied-start group would.
            pub(crate) fn claims_message(self, message: &str) -> bool {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::claims_message(message),)*
                }
            }

            /// The message-start byte of the group's markerless form, if it has one.
            pub(crate) const fn bare(self) -> Option<Bare> {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::BARE,)*
                }
            }

            /// The formats whose message may be a bare or fenced JSON call
            /// ([`Grammar::WHOLE_JSON`]).
            pub(crate) const fn whole_json(self) -> FormatSet {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::WHOLE_JSON,)*
                }
            }

            /// Whether a message that starts with the group's bare byte looks like it.
            pub(crate) fn claims_bare(self, message: &str) -> bool {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::claims_bare(message),)*
                }
            }

            /// Start markers dropped inside the group's prose messages.
            pub(crate) const fn dropped_in_prose(self) -> &'static [&'static str] {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::DROPPED_IN_PROSE,)*
                }
            }

            /// The group's formats whose reasoning is a prose message of its own.
            pub(crate) const fn reasoning_is_a_message(self) -> FormatSet {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::REASONING_IS_A_MESSAGE,)*
                }
            }

            /// The markers that end the group's prose messages.
            pub(crate) const fn prose_ends(self) -> &'static [Start] {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::PROSE_ENDS,)*
                }
            }

            /// Whether `text` ends with an end after which the group's next message may begin
            /// with its header alone ([`Grammar::NEXT_HEADER_AFTER`]).
            pub(crate) fn next_header_after(self, text: &str) -> bool {
                let ends = match self {
                    $(Group::$group => <$module::Spec as Grammar>::NEXT_HEADER_AFTER,)*
                };
                ends.iter().any(|end| text.ends_with(end))
            }

            /// The control tokens of the group's formats ([`Grammar::CONTROL`]).
            pub(crate) const fn control(self) -> &'static [&'static str] {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::CONTROL,)*
                }
            }

            /// The machine of a region opened by `starts()[start]` (or bare, when `None`).
            pub(crate) fn open(self, start: Option<usize>, at: usize, open: Open) -> AnyMachine {
                match self {
                    $(Group::$group => {
                        AnyMachine::$group(<$module::Spec as Grammar>::open(start, at, open))
                    })*
                }
            }

            /// Decodes a region of this group.
            pub(crate) fn decode<B>(
                self,
                cx: &mut Cx<'_, '_, B>,
                range: Range<usize>,
            ) -> Result<(), B::Error>
            where
                B: JsonBuilder,
                B::Value: JsonView,
            {
                match self {
                    $(Group::$group => <$module::Spec as Grammar>::decode(cx, range),)*
                }
            }
        }
    };
}

for_each_group!(define_groups);

impl Machine for AnyMachine {
    fn advance(&mut self, buf: &str) -> Verdict {
        self.get_mut().advance(buf)
    }

    fn advance_with(&mut self, buf: &str, tools: Option<&dyn ParamTypes>) -> Verdict {
        self.get_mut().advance_with(buf, tools)
    }

    fn records(&self) -> &[CallRecord] {
        self.get().records()
    }

    fn reading_json(&mut self) -> Option<&mut CallScanner> {
        self.get_mut().reading_json()
    }

    fn skip_piece(&mut self, len: usize, piece: &str) -> bool {
        self.get_mut().skip_piece(len, piece)
    }

    fn safe(&self) -> usize {
        self.get().safe()
    }

    fn undecided(&self) -> bool {
        self.get().undecided()
    }

    fn raw_value_end(&self, len: usize) -> Option<usize> {
        self.get().raw_value_end(len)
    }
}

/// The groups among `formats` whose messages may begin without their first start marker
/// ([`Grammar::IMPLIED_START`]), when `first` may begin a name, in registry order. Under
/// `"auto"` ([`FormatSet::ALL`]), not those whose implied start needs naming
/// ([`Grammar::IMPLIED_ONLY_NAMED`]).
pub(crate) fn implied_groups(first: u8, formats: FormatSet) -> impl Iterator<Item = Group> {
    let name = first.is_ascii_alphanumeric() || first == b'_';
    let auto = formats == FormatSet::ALL;
    Group::ALL.iter().copied().filter(move |g| {
        name && g.implied_start()
            && !(auto && g.implied_only_named())
            && g.formats().intersects(formats)
    })
}

/// The group whose markerless form a message starting with `first` may be, among `formats`.
pub(crate) fn bare_group(first: u8, formats: FormatSet) -> Option<Group> {
    Group::ALL.iter().copied().find(|g| {
        g.bare()
            .is_some_and(|bare| bare.first == first && bare.formats.intersects(formats))
    })
}

/// The raw JSON a parse of `formats` reads: `asked`, else `whole` when one of them reads a
/// message that is a bare or fenced JSON call ([`Grammar::WHOLE_JSON`]).
pub fn whole_json_mode(asked: Option<RawJsonMode>, formats: FormatSet) -> Option<RawJsonMode> {
    let reads = Group::ALL
        .iter()
        .any(|g| g.whole_json().intersects(formats));
    asked.or(reads.then_some(RawJsonMode::Whole))
}

#[derive(Clone, Copy, Debug)]
pub struct FormatOptions<'a> {
    pub json: ParseOptions,
    /// Tool definitions, to type qwen3_coder and glm45 parameter values.
    pub tools: Option<&'a dyn ParamTypes>,
    /// Parse calls written inside think spans (docs/formats.md).
    pub calls_in_reasoning: bool,
}

impl Default for FormatOptions<'_> {
    fn default() -> Self {
        Self {
            json: ParseOptions::model_text(false),
            tools: None,
            calls_in_reasoning: true,
        }
    }
}

/// What `parse_text` returns: calls with the text around them.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed<V> {
    pub content: String,
    pub reasoning: Option<String>,
    pub outcomes: Vec<Outcome<V>>,
}

/// Where a region sits in its parse.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place {
    /// Inside a think span: its prose is reasoning.
    pub in_think: bool,
    /// The number of calls before the region (calls are numbered in error messages).
    pub first_index: usize,
    /// The region's prose is wanted (a calls-only parse does not collect it).
    pub collect_text: bool,
}

/// Decodes one call region found by the stream engine (`text` starts at a start marker of
/// `group`, or is a bare message) with the group's decoder, so the rules live in one place.
/// `content` and `reasoning` are the prose the decoder left, untrimmed.
pub(crate) fn decode_region<B>(
    builder: &mut B,
    text: &str,
    group: Group,
    allowed: FormatSet,
    options: FormatOptions<'_>,
    place: Place,
) -> Result<Parsed<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut cx = Cx::new(builder, text, options, allowed, place.collect_text);
    cx.in_think = place.in_think;
    cx.first_index = place.first_index;
    group.decode(&mut cx, 0..text.len())?;
    Ok(Parsed {
        content: cx.content,
        reasoning: cx.has_reasoning.then_some(cx.reasoning),
        outcomes: cx.outcomes,
    })
}
