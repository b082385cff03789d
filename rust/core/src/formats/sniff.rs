//! Which formats occur in a text: one pass over the fixed marker set, plus a look at the first
//! character of the message for the two formats that may have no marker at all (`llama3_json`
//! as bare `{"name": …}` objects, `pythonic` as a bare `[f(…)]` list).

use std::ops::Range;

use super::{FormatSet, Group};
use crate::scan::finders::{find_byte, find_either, THINK_CLOSE};
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

/// For each byte value, the markers (bit `i`: `MARKERS[i]`) whose byte at `at` it is.
const fn markers_by_byte(at: usize) -> [u16; 256] {
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < MARKERS.len() {
        table[MARKERS[i].0.as_bytes()[at] as usize] |= 1 << i;
        i += 1;
    }
    table
}

static BY_SECOND_BYTE: [u16; 256] = markers_by_byte(1);
static BY_THIRD_BYTE: [u16; 256] = markers_by_byte(2);

/// The bit of a group in a set of groups.
fn group_bit(group: Group) -> u8 {
    1 << group as u8
}

/// For each group, its markers (bit `i`: `MARKERS[i]`).
static GROUP_MARKERS: [u16; Group::ALL.len()] = {
    let mut table = [0u16; Group::ALL.len()];
    let mut i = 0;
    while i < MARKERS.len() {
        table[MARKERS[i].1 as usize] |= 1 << i;
        i += 1;
    }
    table
};

/// The marker of `live` (a set of markers) that starts `rest`, if any. Two table lookups leave
/// the markers with the same second and third bytes (most `<` and `[` in a text start none),
/// and only those are compared whole, in list order.
fn marker_at(rest: &[u8], live: u16) -> Option<Group> {
    let [_, second, third, ..] = *rest else {
        return None;
    };
    let mut candidates = BY_SECOND_BYTE[second as usize] & BY_THIRD_BYTE[third as usize] & live;
    while candidates != 0 {
        let (marker, group) = MARKERS[candidates.trailing_zeros() as usize];
        if rest.starts_with(marker.as_bytes()) {
            return Some(group);
        }
        candidates &= candidates - 1;
    }
    None
}

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
    // At most one entry per group, on the stack: this runs for every text `extract` sees.
    let mut found = [(0, Group::ToolCallTag); Group::ALL.len()];
    let mut count = 0;
    let mut left = Group::ALL
        .iter()
        .filter(|&&g| allowed.has_group(g))
        .fold(0u8, |bits, &g| bits | group_bit(g));
    let start = start_after(text, think);
    if let Some(group) = bare_message(&text[start..]) {
        if left & group_bit(group) != 0 {
            found[0] = (start, group);
            count = 1;
            left &= !group_bit(group);
        }
    }
    if !is_json_message(&text[start..]) {
        let bytes = text.as_bytes();
        // Only the markers of groups not found yet are compared (no marker holds a `<` or `[`
        // past its first byte, so the stops inside a found marker compare nothing).
        let mut live = Group::ALL
            .iter()
            .filter(|&&g| left & group_bit(g) != 0)
            .fold(0, |bits, &g| bits | GROUP_MARKERS[g as usize]);
        let mut pos = 0;
        while live != 0 {
            let Some(i) = find_either(b'<', b'[', &bytes[pos..]) else {
                break;
            };
            let at = pos + i;
            pos = at + 1;
            if let Some(group) = marker_at(&bytes[at..], live) {
                found[count] = (at, group);
                count += 1;
                live &= !GROUP_MARKERS[group as usize];
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
    let trimmed = trim_start(text, 0);
    let bytes = text.as_bytes();
    let has_tag = || find_byte(b'<', bytes).is_some() && THINK_CLOSE.find(bytes).is_some();
    if text[trimmed..].starts_with(OPEN) || has_tag() {
        start_after(text, &think_spans(text))
    } else {
        trimmed
    }
}

/// [`message_start`] for a text whose think spans are known.
fn start_after(text: &str, think: &[Range<usize>]) -> usize {
    let mut pos = trim_start(text, 0);
    for span in think {
        if span.start > pos {
            break;
        }
        pos = trim_start(text, span.end.max(pos));
    }
    pos
}

/// `pos` moved past whitespace.
fn trim_start(text: &str, pos: usize) -> usize {
    pos + (text[pos..].len() - text[pos..].trim_start().len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Format;

    fn sniffed(text: &str, allowed: FormatSet) -> Vec<Group> {
        sniff(text, allowed, &think_spans(text)).collect()
    }

    #[test]
    fn every_marker_is_found_after_near_misses() {
        for (marker, group) in MARKERS {
            assert!(marker.starts_with(['<', '[']), "{marker}");
            assert!(!marker[1..].contains(['<', '[']), "{marker}");
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
