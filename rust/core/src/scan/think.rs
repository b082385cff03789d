//! Think spans (reasoning that models write before answering): `<think>…</think>`, and
//! Magistral's `[THINK]…[/THINK]`, Seed-OSS's `<seed:think>…</seed:think>`, Cohere's
//! `<|START_THINKING|>…<|END_THINKING|>`, Apertus's `<|inner_prefix|>…<|inner_suffix|>`,
//! Gemma 4's thought channel `<|channel>thought…<channel|>`, Solar Open 2's
//! `<|think:start|>…<|think:end|>` and HY v4's `<think:6124c78e>…</think:6124c78e>` (a tag that
//! ends with `:` takes the checkpoint's suffix, see [`suffix_len`]). Either closing tag ends a
//! span either opening tag began.
//!
//! Outside a span, a closing tag is a stray control token (Gemma 4 may end its answer with one),
//! and so is the token of an opening tag written without its channel name (`<|channel>` not
//! followed by `thought`): neither is content. The readers drop them; [`think_spans`] gives
//! each a span of its own, holding no reasoning.

use std::ops::Range;

use super::find::{find_either, same, Needle};

/// The opening tags, and the closing tags in the same order.
pub const OPENS: [&str; 8] = [
    "<think>",
    "<think:",
    "[THINK]",
    "<seed:think>",
    "<|START_THINKING|>",
    "<|inner_prefix|>",
    "<|channel>thought",
    "<|think:start|>",
];
pub const CLOSES: [&str; 8] = [
    "</think>",
    "</think:",
    "[/THINK]",
    "</seed:think>",
    "<|END_THINKING|>",
    "<|inner_suffix|>",
    "<channel|>",
    "<|think:end|>",
];
/// The opening tags that are a token and a channel name (`<|channel>` `thought`): their tokens.
/// Each is a prefix of its tag, the one prefix the marker table allows (a reader holds such a
/// token until the bytes after it tell the tag apart, so chunk splits change nothing).
pub const OPEN_TOKENS: [&str; 1] = ["<|channel>"];
/// One search per closing tag, for the texts that may hold one: `</think>` and `</think:` share
/// theirs (`</think`), so the suffixed tag costs prose with a `<` no extra pass.
static CLOSE_NEEDLES: [Needle; 7] = [
    Needle::new("</think"),
    Needle::new(CLOSES[2]),
    Needle::new(CLOSES[3]),
    Needle::new(CLOSES[4]),
    Needle::new(CLOSES[5]),
    Needle::new(CLOSES[6]),
    Needle::new(CLOSES[7]),
];

/// The most bytes a suffix may have (HY v4's checkpoints write 8 hex digits or a word).
pub const SUFFIX_MAX: usize = 64;

/// Whether `tag` is a think tag that takes a suffix (one that ends with `:`): `<think:` is
/// whole only as `<think:` + suffix + `>`.
pub const fn takes_suffix(tag: &str) -> bool {
    let b = tag.as_bytes();
    if b.is_empty() || b[b.len() - 1] != b':' {
        return false;
    }
    let mut i = 0;
    while i < OPENS.len() {
        if same(OPENS[i], tag) || same(CLOSES[i], tag) {
            return true;
        }
        i += 1;
    }
    false
}

/// The length of the suffix that `rest` starts with, up to its closing `>`: 1 to
/// [`SUFFIX_MAX`] bytes, none of them `>`, `<` or blank. `Ok(None)` while more bytes may
/// tell; `Err(())` when what `rest` holds is no suffix.
pub(crate) fn suffix_len(rest: &[u8]) -> Result<Option<usize>, ()> {
    let len = rest
        .iter()
        .take(SUFFIX_MAX + 1)
        .position(|&c| c == b'>' || c == b'<' || c.is_ascii_whitespace());
    match len {
        None if rest.len() <= SUFFIX_MAX => Ok(None),
        Some(len) if len > 0 && rest[len] == b'>' => Ok(Some(len)),
        _ => Err(()),
    }
}

/// The length of `tag` at the start of `rest`, its suffix and `>` included: `Ok(None)` while
/// more bytes may complete it, `Err(())` when `rest` does not hold it.
pub(crate) fn tag_len(rest: &[u8], tag: &str) -> Result<Option<usize>, ()> {
    if !rest.starts_with(tag.as_bytes()) {
        return Err(());
    }
    if !takes_suffix(tag) {
        return Ok(Some(tag.len()));
    }
    Ok(suffix_len(&rest[tag.len()..])?.map(|len| tag.len() + len + 1))
}

/// The length of the tag of `tags` that `rest` starts with (in a whole text).
fn tag_at(rest: &[u8], tags: &[&str]) -> Option<usize> {
    tags.iter()
        .find_map(|tag| tag_len(rest, tag).ok().flatten())
}

/// The think spans of `text`, tags included. An unclosed `<think>` runs to the end of the text;
/// a `</think>` with no opening tag before it closes a span that began at the start of the
/// text (chat templates often put the opening tag in the prompt); a later unopened `</think>`,
/// or a stray opening token ([`OPEN_TOKENS`]), is a span of its own (a control token, no
/// text); `<think>` inside a span is reasoning.
pub fn think_spans(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    // One pass over the `<` and `[` bytes (a few in a typical reply; no tag holds a second `<`
    // or `[`, so tags cannot overlap), rather than a substring search per tag.
    let mut open = None;
    let mut leading_close_allowed = true;
    let mut pos = 0;
    while let Some(i) = find_either(b'<', b'[', &bytes[pos..]) {
        let at = pos + i;
        let rest = &bytes[at..];
        pos = at + 1;
        match (open, tag_at(rest, &OPENS), tag_at(rest, &CLOSES)) {
            (None, Some(_), _) => {
                open = Some(at);
                leading_close_allowed = false;
            }
            (None, None, Some(len)) => {
                spans.push(if leading_close_allowed { 0 } else { at }..at + len);
                leading_close_allowed = false;
            }
            (None, None, None) => {
                if let Some(len) = tag_at(rest, &OPEN_TOKENS) {
                    spans.push(at..at + len);
                    leading_close_allowed = false;
                }
            }
            (Some(start), _, Some(len)) => {
                spans.push(start..at + len);
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
    let has_tag = || {
        find_either(b'<', b'[', bytes).is_some()
            && CLOSE_NEEDLES
                .iter()
                .any(|close| close.find(bytes).is_some())
    };
    let opens_at = |tags: &[&str]| tags.iter().any(|tag| text[trimmed..].starts_with(tag));
    if opens_at(&OPENS) || opens_at(&OPEN_TOKENS) || has_tag() {
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
    fn every_closing_tag_has_its_search() {
        for close in CLOSES {
            let searched = CLOSE_NEEDLES.iter().filter(|n| close.starts_with(n.text));
            assert_eq!(searched.count(), 1, "{close}");
        }
    }

    #[test]
    fn spans() {
        let text = "<think>a</think>b<think>c";
        assert_eq!(think_spans(text), vec![0..16, 17..25]);
        assert_eq!(think_spans("plan</think>{}"), vec![0..12]);
        assert!(think_spans("none").is_empty());
        let text = "a</think>b<think>c</think>d<think>e";
        assert_eq!(think_spans(text), vec![0..9, 10..26, 27..35]);
        // Stray closing tags after the first tag are control tokens: spans of their own.
        let text = "<think>a</think>b</think>c";
        assert_eq!(think_spans(text), vec![0..16, 17..25]);
        assert_eq!(message_start("<think>a</think> </think> {}"), 26);
        assert!(think_spans("<b>no tags</b>").is_empty());
        // Magistral's tags, and either closing tag for either opening tag.
        assert_eq!(think_spans("[THINK]a[/THINK]b"), vec![0..16]);
        assert_eq!(think_spans("plan[/THINK]{}"), vec![0..12]);
        assert_eq!(think_spans("[THINK]a</think>b[x]"), vec![0..16]);
        assert_eq!(message_start("[THINK]a[/THINK] {}"), 17);
        // Gemma 4's thought channel.
        assert_eq!(
            think_spans("<|channel>thought\nplan<channel|>Hi"),
            vec![0..32]
        );
        // Its channel token alone, and its closing token after the answer, are stray tokens.
        let text = "<|channel><|channel>thought\n<channel|>Hi<channel|>";
        assert_eq!(think_spans(text), vec![0..10, 10..38, 40..50]);
        assert_eq!(message_start("<|channel> {}"), 11);
        assert_eq!(message_start("<|channel>thought {}"), 20);
        // Solar Open 2's, whose template writes the opening tag in the prompt.
        assert_eq!(think_spans("<|think:start|>a<|think:end|>b"), vec![0..29]);
        assert_eq!(think_spans("a<|think:end|>b"), vec![0..14]);
        // HY v4's, with the checkpoint's suffix; without a whole suffix, a tag is prose.
        let text = "<think:6124c78e>a</think:6124c78e>b";
        assert_eq!(think_spans(text), vec![0..34]);
        assert_eq!(think_spans("a</think:x1>b</think:x1>"), vec![0..12, 13..24]);
        assert!(think_spans("<think:> <think: x> <think:a").is_empty());
        assert_eq!(message_start("<think:ab>plan</think:ab> {}"), 26);
    }

    /// The rule of [`think_spans`] with one substring search per tag (for `<think>` alone).
    fn think_spans_by_search(text: &str) -> Vec<Range<usize>> {
        const OPEN: &str = OPENS[0];
        const CLOSE: &str = CLOSES[0];
        let find = |tag: &str, from: usize| text[from..].find(tag).map(|i| from + i);
        let mut spans = Vec::new();
        let mut pos = 0;
        loop {
            let next_open = find(OPEN, pos);
            match find(CLOSE, pos) {
                // An unopened close: from the text's start when it is the first tag, else alone.
                Some(close) if next_open.is_none_or(|open| close < open) => {
                    let start = if pos == 0 { 0 } else { close };
                    pos = close + CLOSE.len();
                    spans.push(start..pos);
                }
                _ => {
                    let Some(start) = next_open else { break };
                    let Some(close) = find(CLOSE, start + OPEN.len()) else {
                        spans.push(start..text.len());
                        break;
                    };
                    pos = close + CLOSE.len();
                    spans.push(start..pos);
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
