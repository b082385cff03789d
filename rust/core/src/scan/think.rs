//! `<think>…</think>` spans (reasoning that models write before answering).

use std::ops::Range;

use super::find::{find_byte, Needle};

pub const OPEN: &str = "<think>";
pub const CLOSE: &str = "</think>";
pub(crate) static CLOSE_NEEDLE: Needle = Needle::new(CLOSE);

/// The think spans of `text`, tags included. An unclosed `<think>` runs to the end of the text;
/// a `</think>` with no opening tag before it closes a span that began at the start of the
/// text (chat templates often put the opening tag in the prompt); later unopened `</think>`
/// tags, and `<think>` inside a span, are prose.
pub fn think_spans(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    // One pass over the `<` bytes (a few in a typical reply; neither tag holds a second `<`,
    // so tags cannot overlap), rather than a substring search per tag.
    let mut open = None;
    let mut leading_close_allowed = true;
    let mut pos = 0;
    while let Some(i) = find_byte(b'<', &bytes[pos..]) {
        let at = pos + i;
        let rest = &bytes[at..];
        pos = at + 1;
        match open {
            None if rest.starts_with(OPEN.as_bytes()) => {
                open = Some(at);
                leading_close_allowed = false;
            }
            None if rest.starts_with(CLOSE.as_bytes()) => {
                if leading_close_allowed {
                    spans.push(0..at + CLOSE.len());
                }
                leading_close_allowed = false;
            }
            Some(start) if rest.starts_with(CLOSE.as_bytes()) => {
                spans.push(start..at + CLOSE.len());
                open = None;
            }
            _ => {}
        }
    }
    if let Some(start) = open {
        spans.push(start..bytes.len());
    }
    spans
}

/// Where the message proper starts: past leading whitespace and think spans.
pub(crate) fn message_start(text: &str) -> usize {
    let trimmed = trim_start(text, 0);
    let bytes = text.as_bytes();
    let has_tag = || find_byte(b'<', bytes).is_some() && CLOSE_NEEDLE.find(bytes).is_some();
    if text[trimmed..].starts_with(OPEN) || has_tag() {
        start_after(text, &think_spans(text))
    } else {
        trimmed
    }
}

/// [`message_start`] for a text whose think spans are known.
pub(crate) fn start_after(text: &str, think: &[Range<usize>]) -> usize {
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

    #[test]
    fn spans() {
        let text = "<think>a</think>b<think>c";
        assert_eq!(think_spans(text), vec![0..16, 17..25]);
        assert_eq!(think_spans("plan</think>{}"), vec![0..12]);
        assert!(think_spans("none").is_empty());
        let text = "a</think>b<think>c</think>d<think>e";
        assert_eq!(think_spans(text), vec![0..9, 10..26, 27..35]);
        assert!(think_spans("<b>no tags</b>").is_empty());
    }

    /// The rule of [`think_spans`] with one substring search per tag.
    fn think_spans_by_search(text: &str) -> Vec<Range<usize>> {
        let find = |tag: &str, from: usize| text[from..].find(tag).map(|i| from + i);
        let mut spans = Vec::new();
        let mut next_open = find(OPEN, 0);
        if let Some(close) = find(CLOSE, 0) {
            if next_open.is_none_or(|open| close < open) {
                spans.push(0..close + CLOSE.len());
            }
        }
        while let Some(start) = next_open {
            match find(CLOSE, start + OPEN.len()) {
                Some(close) => {
                    let end = close + CLOSE.len();
                    spans.push(start..end);
                    next_open = find(OPEN, end);
                }
                None => {
                    spans.push(start..text.len());
                    break;
                }
            }
        }
        spans
    }

    #[test]
    fn spans_agree_with_one_search_per_tag() {
        let pieces = ["<think>", "</think>", "<", "a", "<thin", "</", "\n"];
        let mut texts = vec![String::new()];
        for _ in 0..5 {
            texts = texts
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
                .collect();
            for text in &texts {
                assert_eq!(think_spans(text), think_spans_by_search(text), "{text:?}");
            }
        }
    }
}
