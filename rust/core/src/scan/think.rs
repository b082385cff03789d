//! `<think>…</think>` spans (reasoning that models write before answering).

use std::ops::Range;

use super::finders::{THINK_CLOSE, THINK_OPEN};

pub const OPEN: &str = "<think>";
pub const CLOSE: &str = "</think>";

/// The think spans of `text`, tags included. An unclosed `<think>` runs to the end of the text;
/// a `</think>` with no opening tag before it closes a span that began at the start of the
/// text (chat templates often put the opening tag in the prompt).
pub fn think_spans(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    // Most texts have no tag at all: one byte search settles it.
    if memchr::memchr(b'<', bytes).is_none() {
        return spans;
    }
    // The first `<think>` is searched for once: the tags cannot overlap, so a leading
    // `</think>` ends before it.
    let mut next_open = THINK_OPEN.find(bytes);
    if let Some(close) = THINK_CLOSE.find(bytes) {
        if next_open.is_none_or(|open| close < open) {
            spans.push(0..close + CLOSE.len());
        }
    }
    while let Some(start) = next_open {
        let inner = start + OPEN.len();
        match THINK_CLOSE.find(&bytes[inner..]) {
            Some(close) => {
                let end = inner + close + CLOSE.len();
                spans.push(start..end);
                next_open = THINK_OPEN.find(&bytes[end..]).map(|found| end + found);
            }
            None => {
                spans.push(start..bytes.len());
                break;
            }
        }
    }
    spans
}

/// The text outside `spans`, as (offset, slice) pieces.
pub fn outside<'t>(text: &'t str, spans: &[Range<usize>]) -> Vec<(usize, &'t str)> {
    let mut pieces = Vec::with_capacity(spans.len() + 1);
    let mut pos = 0;
    for span in spans {
        if span.start > pos {
            pieces.push((pos, &text[pos..span.start]));
        }
        pos = span.end;
    }
    if pos < text.len() {
        pieces.push((pos, &text[pos..]));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans() {
        let text = "<think>a</think>b<think>c";
        assert_eq!(think_spans(text), vec![0..16, 17..25]);
        assert_eq!(outside(text, &think_spans(text)), vec![(16, "b")]);
        assert_eq!(think_spans("plan</think>{}"), vec![0..12]);
        assert!(think_spans("none").is_empty());
        let text = "a</think>b<think>c</think>d<think>e";
        assert_eq!(think_spans(text), vec![0..9, 10..26, 27..35]);
        assert!(think_spans("<b>no tags</b>").is_empty());
    }
}
