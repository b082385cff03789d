//! Which formats occur in a text: one pass over the registry's marker table, plus a look at the
//! start of the message for the formats that may have no marker at all (`llama3_json` as bare
//! `{"name": …}` objects, `pythonic` as a bare `[f(…)]` list) and for the markers that only open
//! a call there (`functools[`).

use std::cell::Cell;
use std::ops::Range;

use super::markers::{
    lead_start, match_at, match_from, may_start, opens_lines, starts_of, Mask, Match, Role,
    ANCHORED, LINE_ANCHORED, LINE_FIRST, TABLE,
};
use super::{bare_group, implied_groups, FormatSet, Group};
use crate::scan::find::find_either;
use crate::scan::think::{closes_span, message_start, message_start_given, start_after};

/// The groups of `allowed` whose markers occur in `text`, in the order of their first
/// occurrence.
///
/// A message that is JSON (it starts with `{`, or `[` and a JSON value) is a raw-JSON or bare
/// Llama 3 candidate: markers inside it sit in JSON strings and are not looked for. `think`
/// holds the text's think spans (`think_spans(text)`, which the caller needs too).
pub fn sniff(
    text: &str,
    allowed: FormatSet,
    think: &[Range<usize>],
) -> impl Iterator<Item = Group> {
    let mut found: Vec<(usize, Group)> = Vec::new();
    let start = start_after(text, think);
    let rest = &text[start..];
    let bare = rest
        .as_bytes()
        .first()
        .and_then(|&b| bare_group(b, allowed));
    if let Some(group) = bare.filter(|g| g.claims_bare(rest)) {
        found.push((start, group));
    }
    if let Match::Found(entry) = match_at(rest.as_bytes(), starts_of(allowed) & ANCHORED) {
        if let Role::Start { group, .. } = TABLE[entry].role {
            found.push((start, group));
        }
    }
    if let Some(group) = implied_message(rest, allowed) {
        found.push((start, group));
    }
    if !is_json_message(rest) {
        let bytes = text.as_bytes();
        // Only the markers of groups not found yet are compared.
        let mut live = starts_of(allowed);
        for &(_, group) in &found {
            live &= !group_mask(group);
        }
        let stops = Stops::new(bytes);
        let mut pos = 0;
        while !live.is_empty() {
            let Some(stop) = stops.next(pos, live) else {
                break;
            };
            pos = stop + 1;
            let from = lead_start(bytes, stop, 0);
            if let (at, Match::Found(entry)) = match_from(bytes, from, stop, live) {
                if let Role::Start { group, .. } = TABLE[entry].role {
                    found.push((at, group));
                    live &= !group_mask(group);
                }
                // Markers inside this one (`<tool_call>` in MiniMax-M3's) are part of it.
                pos = at + TABLE[entry].text.len();
            }
        }
    }
    found.sort_by_key(|&(pos, _)| pos);
    found.into_iter().map(|(_, group)| group)
}

/// What [`sniff_calls`] found in a text.
#[derive(Debug, PartialEq, Eq)]
pub enum Sniffed {
    /// The text may hold a call of the allowed formats.
    MayHoldCalls,
    /// It holds none; its message proper starts here (past whitespace and think spans).
    NoCalls { message_start: usize },
}

/// Whether `text` may hold a call of `allowed`: a start marker of one of them occurs, or the
/// message starts with the byte of a markerless form. A superset of what the stream engine
/// reads (it also weighs code spans and think spans), so that `extract` runs the engine only on
/// texts where it may find something: marker-free prose costs one `memchr` pass, which also
/// finds the first think tag (so where the message starts).
pub fn sniff_calls(text: &str, allowed: FormatSet) -> Sniffed {
    if allowed.is_empty() {
        let message_start = message_start(text);
        return Sniffed::NoCalls { message_start };
    }
    let starts = starts_of(allowed);
    let bytes = text.as_bytes();
    let mut first_tag_closes = None;
    let stops = Stops::new(bytes);
    let mut pos = 0;
    while let Some(at) = stops.next(pos, starts) {
        let from = lead_start(bytes, at, 0);
        let may_match = from < at || bytes.len() - at < 2 || may_start(&bytes[at..], starts);
        if may_match && matches!(match_from(bytes, from, at, starts), (_, Match::Found(_))) {
            return Sniffed::MayHoldCalls;
        }
        if first_tag_closes.is_none() {
            first_tag_closes = closes_span(&bytes[at..]);
        }
        pos = at + 1;
    }
    let start = message_start_given(text, first_tag_closes == Some(true));
    let bare = |&first: &u8| bare_group(first, allowed).is_some();
    let message_at = |at: usize| {
        bytes.get(at).is_some_and(bare)
            || implied_message(&text[at..], allowed).is_some()
            || matches!(match_at(&bytes[at..], starts & ANCHORED), Match::Found(_))
    };
    // The text's own start counts too: a later `</think>` puts what precedes it in reasoning,
    // but a stream has read a call there before that tag arrives (`{…}</think>`).
    let text_start = text_start(text);
    let may_hold_calls = message_at(start) || (text_start != start && message_at(text_start));
    match may_hold_calls {
        true => Sniffed::MayHoldCalls,
        false => Sniffed::NoCalls {
            message_start: start,
        },
    }
}

/// Where the text's own first words begin, for the prefilters: past whitespace and the tokens
/// written `<…>` with no whitespace inside (`<|im_end|>`, `<reserved_12>`) that lead it. The
/// engine drops the control tokens among them, so a call right after them opens the message;
/// any other tag only makes the prefilter look further than it needs to.
pub(crate) fn text_start(text: &str) -> usize {
    /// Longer than any control token.
    const TOKEN_MAX: usize = 48;
    let mut at = text.len() - text.trim_start().len();
    while text[at..].starts_with('<') {
        let token = &text.as_bytes()[at..text.len().min(at + TOKEN_MAX)];
        match token
            .iter()
            .position(|&b| b == b'>' || b.is_ascii_whitespace())
        {
            Some(end) if token[end] == b'>' => {
                let next = at + end + 1;
                at = next + (text[next..].len() - text[next..].trim_start().len());
            }
            _ => break,
        }
    }
    at
}

/// The group whose message `rest` begins as without its first start marker
/// ([`crate::formats::grammar::Grammar::IMPLIED_START`]).
fn implied_message(rest: &str, allowed: FormatSet) -> Option<Group> {
    let &first = rest.as_bytes().first()?;
    implied_groups(first, allowed).find(|g| g.claims_message(rest))
}

/// Where markers may start in one text: at a `<` or `[`, or, for line-start markers
/// ([`LINE_ANCHORED`]), at the first byte of a line (after spaces or tabs) that one of them
/// begins with ([`LINE_FIRST`]). Line starts are found by their line breaks, so text full of
/// `*` or `>` mid-line (markdown) costs nothing more. Asked at growing positions; each search
/// remembers what it found, so the text is searched once whatever the callers skip.
struct Stops<'a> {
    bytes: &'a [u8],
    /// The next line start holding a `LINE_FIRST` byte: (searched from, found). The `<` and
    /// `[` before it are searched up to it, so no byte is searched twice either.
    line: Cell<(usize, Option<usize>)>,
}

impl<'a> Stops<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            line: Cell::new((usize::MAX, None)),
        }
    }

    /// The next position at or after `pos` where a marker of `mask` may start.
    #[inline(always)]
    fn next(&self, mut pos: usize, mask: Mask) -> Option<usize> {
        let bytes = self.bytes;
        if (mask & LINE_ANCHORED).is_empty() {
            return find_either(b'<', b'[', &bytes[pos..]).map(|i| pos + i);
        }
        loop {
            let line = next_from(&self.line, pos, |from| {
                line_first_byte(bytes, from).map(|at| at - from)
            });
            let before = line.unwrap_or(bytes.len());
            if let Some(i) = find_either(b'<', b'[', &bytes[pos..before]) {
                return Some(pos + i);
            }
            let at = line?;
            if opens_lines(bytes[at], mask) {
                return Some(at);
            }
            pos = at + 1;
        }
    }
}

/// The first byte at or after `from` that begins a line (after spaces or tabs) and that a
/// line-start marker may begin with ([`LINE_FIRST`]).
fn line_first_byte(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    let mut at_line_start = begins_line(bytes, at);
    loop {
        if !at_line_start {
            at += find_either(b'\n', b'\r', &bytes[at..])? + 1;
        }
        at_line_start = false;
        at += bytes[at..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        if bytes.get(at).is_some_and(|b| LINE_FIRST.contains(b)) {
            return Some(at);
        }
    }
}

/// The next hit at or after `pos` of the search `find` (offsets from where it starts), kept in
/// `memo` for the next ask.
fn next_from(
    memo: &Cell<(usize, Option<usize>)>,
    pos: usize,
    find: impl FnOnce(usize) -> Option<usize>,
) -> Option<usize> {
    let (from, found) = memo.get();
    let known = from <= pos && found.is_none_or(|at| at >= pos);
    if known {
        return found;
    }
    let found = find(pos).map(|i| pos + i);
    memo.set((pos, found));
    found
}

/// Whether only spaces and tabs stand between the line's start and `at` (out of line: the
/// scanning loop stays small).
#[inline(never)]
fn begins_line(bytes: &[u8], at: usize) -> bool {
    let indent = bytes[..at]
        .iter()
        .rev()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    at == indent || matches!(bytes[at - indent - 1], b'\n' | b'\r')
}

/// The table entries that start regions of `group`.
fn group_mask(group: Group) -> Mask {
    TABLE
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.role, Role::Start { group: g, .. } if g == group))
        .fold(Mask::NONE, |mask, (i, _)| mask.with(i))
}

/// Whether a message (from its start) is JSON rather than markup: `{`, or `[` followed by a
/// JSON value or `]` (`[TOOL_CALLS]` and `[f(` are not).
fn is_json_message(rest: &str) -> bool {
    match rest.strip_prefix('[') {
        Some(inner) => inner.trim_start().starts_with(['{', '[', '"', ']']),
        None => rest.starts_with('{'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Format;
    use crate::scan::think::think_spans;

    fn sniffed(text: &str, allowed: FormatSet) -> Vec<Group> {
        sniff(text, allowed, &think_spans(text)).collect()
    }

    #[test]
    fn every_marker_is_found_after_near_misses() {
        // (The message-start markers are found at the start only.)
        let markers = TABLE.iter().enumerate().filter_map(|(i, e)| match e.role {
            Role::Start { group, .. } if !ANCHORED.has(i) => Some((e.text, group)),
            _ => None,
        });
        for (marker, group) in markers {
            // Prefixes of the marker (and of the others) before it do not hide it.
            let cut = &marker[..marker.len() - 1];
            let text = format!("a [b] <c {cut} <| [T <｜ {marker} z");
            assert_eq!(sniffed(&text, FormatSet::ALL), vec![group], "{text}");
        }
    }

    #[test]
    fn sniffs_in_order_of_first_marker() {
        let text = "x [TOOL_CALLS]f[ARGS]{} then <tool_call>{}</tool_call>";
        assert_eq!(
            sniffed(text, FormatSet::ALL),
            vec![Group::Mistral, Group::ToolCall]
        );
        assert_eq!(
            sniffed(text, FormatSet::only(Format::Hermes)),
            vec![Group::ToolCall]
        );
        assert!(sniffed("plain prose, no markers", FormatSet::ALL).is_empty());
        assert_eq!(
            sniffed("<think>a</think>\n[f(a=1)]", FormatSet::ALL),
            vec![Group::Pythonic]
        );
        assert_eq!(
            sniffed(" {\"name\": \"f\"}", FormatSet::ALL),
            vec![Group::Llama3Json]
        );
        assert!(sniffed("[link](x)", FormatSet::ALL).is_empty());
        let functools = r#" functools[{"name": "f", "arguments": {}}]"#;
        assert_eq!(sniffed(functools, FormatSet::ALL), vec![Group::JsonList]);
        assert!(sniffed(&format!("See {functools}"), FormatSet::ALL).is_empty());
        let action = "Action: ```json\n[{\"tool_name\": \"f\"}]\n```";
        assert_eq!(sniffed(action, FormatSet::ALL), vec![Group::JsonList]);
        assert!(sniffed(&format!("Plan: x\n{action}"), FormatSet::ALL).is_empty());
        // Markers inside the strings of a JSON message are not markup.
        let json = r#"[{"name": "f", "arguments": {"s": "<tool_call>"}}]"#;
        assert!(sniffed(json, FormatSet::ALL).is_empty());
        let object = r#"{"name": "f", "arguments": {"s": "<|python_tag|>"}}"#;
        assert_eq!(sniffed(object, FormatSet::ALL), vec![Group::Llama3Json]);
        // Line-start markers: at the start of any line (after indentation), not mid-line.
        let label = "**Tool Call:**\n```json\n{}\n```";
        for text in [
            format!("Sure.\n{label}"),
            format!("Sure.\r\n  {label}"),
            format!("a *b* > c\n{label}"),
        ] {
            assert_eq!(
                sniffed(&text, FormatSet::ALL),
                vec![Group::Rwkv],
                "{text:?}"
            );
        }
        assert!(sniffed(&format!("Sure. {label}"), FormatSet::ALL).is_empty());
        assert_eq!(
            sniffed("Hi.\n>>>f\n{}", FormatSet::ALL),
            vec![Group::Functionary]
        );
        assert!(sniffed("Hi. >>>f\n{}", FormatSet::ALL).is_empty());
    }

    /// The one pass notes the first think tag on its way; the message starts where a pass of
    /// its own would say.
    #[test]
    fn message_start_from_the_sniffing_pass() {
        for text in [
            "plain prose [x] and <b>",
            "  plan</think>\n\n{\"a\": 1}",
            "plan[/THINK] <b>x</b>",
            "Hi <think>a</think> [link](x)",
            "<think>a</think>\n  later </think> text",
            "<b>x</b> then plan<|think:end|>",
            "<|channel>thought\nplan<channel|>Answer.",
            "<b><br>[a]</think>",
            "<|channel> {\"a\": 1}",
            "<think>a</think> </think>\n{\"a\": 1}",
            "<think:ab>plan</think:ab> <b>x</b>",
            "plan</think:6124c78e> [x]",
        ] {
            let start = message_start(text);
            let sniffed = sniff_calls(text, FormatSet::ALL);
            let expected = Sniffed::NoCalls {
                message_start: start,
            };
            assert!(
                sniffed == expected || sniffed == Sniffed::MayHoldCalls,
                "{text:?}"
            );
            if let Sniffed::NoCalls { message_start } = sniff_calls(text, FormatSet::NONE) {
                assert_eq!(message_start, start, "{text:?}");
            }
        }
        let closed = sniff_calls("plan</think> <b>Done.</b>", FormatSet::ALL);
        let message_start = "plan</think> ".len();
        assert_eq!(closed, Sniffed::NoCalls { message_start });
        let opened_later = sniff_calls(" Hi <think>a</think> b", FormatSet::ALL);
        assert_eq!(opened_later, Sniffed::NoCalls { message_start: 1 });
        // A bare call before a stray closing tag: a stream reads it before the tag arrives.
        let llama = FormatSet::only(Format::Llama3Json);
        let before_close = sniff_calls("{\"name\": \"f\"}\n</think>", llama);
        assert_eq!(before_close, Sniffed::MayHoldCalls);
    }

    #[test]
    fn the_text_start_is_past_leading_tokens() {
        assert_eq!(
            text_start("  <|im_end|>\n<reserved_12>{"),
            "  <|im_end|>\n<reserved_12>".len()
        );
        // A tag with whitespace inside, or one never closed, is where the text starts.
        assert_eq!(text_start("<a b>{"), 0);
        assert_eq!(text_start(" <|call|>< {"), " <|call|>".len());
        assert_eq!(text_start("{\"a\": 1}"), 0);
    }

    #[test]
    fn line_start_and_implied_markers() {
        let functionary = vec![Group::Functionary];
        let named = FormatSet::only(Format::FunctionaryV32);
        for text in [">>>f\n{}", "Hi.\n>>>f\n{}", "Hi.\n  >>>f\n{}"] {
            for formats in [FormatSet::ALL, named] {
                assert_eq!(sniffed(text, formats), functionary, "{text:?}");
                assert_eq!(sniff_calls(text, formats), Sniffed::MayHoldCalls);
            }
        }
        // A header the prompt wrote is read only where the format is named.
        for text in ["f\n{\"a\": 1}", "all\nHi.>>>f\n{}", "python\nprint(1)"] {
            assert_eq!(sniffed(text, named), functionary, "{text:?}");
            assert_eq!(sniff_calls(text, named), Sniffed::MayHoldCalls);
            assert!(sniffed(text, FormatSet::ALL).is_empty(), "{text:?}");
            assert_ne!(sniff_calls(text, FormatSet::ALL), Sniffed::MayHoldCalls);
        }
        for text in ["a >>>f\n{}", "x\n>> y", "Hello world", "all", "f\nx"] {
            assert!(sniffed(text, FormatSet::ALL).is_empty(), "{text:?}");
            assert_ne!(
                sniff_calls(text, FormatSet::ALL),
                Sniffed::MayHoldCalls,
                "{text:?}"
            );
        }
        // Without the format, `>` is no stop.
        let others = Format::ALL
            .iter()
            .filter(|&&f| f != Format::FunctionaryV32)
            .fold(FormatSet::NONE, |set, &f| set.with(f));
        assert_ne!(sniff_calls(">>>f\n{}", others), Sniffed::MayHoldCalls);
        // Two implied-start groups: the one the message begins as is found.
        let granite = vec![Group::GranitePythonic];
        for text in ["f(a=1)", "f(a=1)\nDone.", "<think>x</think>\n f()"] {
            assert_eq!(sniffed(text, FormatSet::ALL), granite, "{text:?}");
            assert_eq!(sniff_calls(text, FormatSet::ALL), Sniffed::MayHoldCalls);
        }
        for text in ["len(x)\nIt counts.", "f(a=1) is a call", "See:\nf(a=1)"] {
            assert!(sniffed(text, FormatSet::ALL).is_empty(), "{text:?}");
        }
    }
}
