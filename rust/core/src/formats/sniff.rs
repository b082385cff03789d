//! Which formats occur in a text: one pass over the fixed marker set, plus a look at the first
//! character of the message for the two formats that may have no marker at all (`llama3_json`
//! as bare `{"name": …}` objects, `pythonic` as a bare `[f(…)]` list).

use super::{FormatSet, Group};
use crate::scan::finders::THINK_CLOSE;
use crate::scan::think::{think_spans, OPEN};

/// Every marker starts with `<` or `[` (the scan below relies on it).
const MARKERS: [(&str, Group); 12] = [
    ("<tool_call>", Group::ToolCallTag),
    ("<function=", Group::ToolCallTag),
    ("[TOOL_CALLS]", Group::Mistral),
    ("<|python_tag|>", Group::Llama3Json),
    ("<|python_start|>", Group::Pythonic),
    ("<｜tool▁calls▁begin｜>", Group::Deepseek),
    ("<｜tool▁call▁begin｜>", Group::Deepseek),
    ("<|tool_calls_section_begin|>", Group::KimiK2),
    ("<|tool_call_begin|>", Group::KimiK2),
    ("<|start|>", Group::Harmony),
    ("<|channel|>", Group::Harmony),
    ("<|message|>", Group::Harmony),
];

/// The bytes that follow the first in some marker: most `<` and `[` in a text are followed by
/// none of them, and are passed over with one table lookup.
static SECOND_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < MARKERS.len() {
        table[MARKERS[i].0.as_bytes()[1] as usize] = true;
        i += 1;
    }
    table
};

/// The marker that starts `rest`, if any. The second and third bytes are compared first: they
/// tell the markers apart, so at most one or two are compared whole.
fn marker_at(rest: &[u8]) -> Option<(usize, Group)> {
    let [_, second, third, ..] = *rest else {
        return None;
    };
    if !SECOND_BYTES[second as usize] {
        return None;
    }
    MARKERS.iter().find_map(|&(marker, group)| {
        let marker = marker.as_bytes();
        (marker[1] == second && marker[2] == third && rest.starts_with(marker))
            .then_some((marker.len(), group))
    })
}

/// The groups of `allowed` whose markers occur in `text`, in the order of their first
/// occurrence.
///
/// A message that is JSON (it starts with `{`, or `[` and a JSON value) is a raw-JSON or bare
/// Llama 3 candidate: markers inside it sit in JSON strings and are not looked for.
pub fn sniff(text: &str, allowed: FormatSet) -> impl Iterator<Item = Group> {
    // At most one entry per group, on the stack: this runs for every text `extract` sees.
    let mut found = [(0, Group::ToolCallTag); Group::ALL.len()];
    let mut count = 0;
    let bit = |group: Group| 1u8 << group as u8;
    let mut left = Group::ALL
        .iter()
        .filter(|&&g| allowed.has_group(g))
        .fold(0u8, |bits, &g| bits | bit(g));
    let start = message_start(text);
    if let Some(group) = bare_message(&text[start..]) {
        if left & bit(group) != 0 {
            found[0] = (start, group);
            count = 1;
            left &= !bit(group);
        }
    }
    if !is_json_message(&text[start..]) {
        let bytes = text.as_bytes();
        let mut pos = 0;
        while left != 0 {
            let Some(i) = memchr::memchr2(b'<', b'[', &bytes[pos..]) else {
                break;
            };
            let at = pos + i;
            pos = at + 1;
            if let Some((len, group)) = marker_at(&bytes[at..]) {
                pos = at + len;
                if left & bit(group) != 0 {
                    found[count] = (at, group);
                    count += 1;
                    left &= !bit(group);
                }
            }
        }
    }
    found[..count].sort_by_key(|&(pos, _)| pos);
    found.into_iter().take(count).map(|(_, group)| group)
}

/// A message (from its start: past leading think spans and whitespace) that is a bare JSON
/// object (Llama 3) or a bare `[name(` list (pythonic).
fn bare_message(rest: &str) -> Option<Group> {
    if rest.starts_with('{') {
        return Some(Group::Llama3Json);
    }
    if rest.starts_with('[') && super::pythonic::starts_call_list(rest) {
        return Some(Group::Pythonic);
    }
    None
}

/// Whether a message (from its start) is JSON rather than markup: `{`, or `[` followed by a
/// JSON value or `]` (`[TOOL_CALLS]` and `[f(` are not).
fn is_json_message(rest: &str) -> bool {
    match rest.strip_prefix('[') {
        Some(inner) => inner.trim_start().starts_with(['{', '[', '"', ']']),
        None => rest.starts_with('{'),
    }
}

/// Where the message proper starts: past leading whitespace and think spans.
pub(crate) fn message_start(text: &str) -> usize {
    let trimmed = |pos: usize| pos + (text[pos..].len() - text[pos..].trim_start().len());
    let mut pos = trimmed(0);
    let bytes = text.as_bytes();
    let has_tag = || memchr::memchr(b'<', bytes).is_some() && THINK_CLOSE.find(bytes).is_some();
    if text[pos..].starts_with(OPEN) || has_tag() {
        for span in think_spans(text) {
            if span.start > pos {
                break;
            }
            pos = trimmed(span.end.max(pos));
        }
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Format;

    fn sniffed(text: &str, allowed: FormatSet) -> Vec<Group> {
        sniff(text, allowed).collect()
    }

    #[test]
    fn every_marker_is_found_after_near_misses() {
        for (marker, group) in MARKERS {
            assert!(marker.starts_with(['<', '[']), "{marker}");
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
            vec![Group::Mistral, Group::ToolCallTag]
        );
        assert_eq!(
            sniffed(text, FormatSet::only(Format::Hermes)),
            vec![Group::ToolCallTag]
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
        // Markers inside the strings of a JSON message are not markup.
        let json = r#"[{"name": "f", "arguments": {"s": "<tool_call>"}}]"#;
        assert!(sniffed(json, FormatSet::ALL).is_empty());
        let object = r#"{"name": "f", "arguments": {"s": "<|python_tag|>"}}"#;
        assert_eq!(sniffed(object, FormatSet::ALL), vec![Group::Llama3Json]);
    }
}
