//! Think spans (reasoning that models write before answering): `<think>…</think>`, and
//! Magistral's `[THINK]…[/THINK]`, Seed-OSS's `<seed:think>…</seed:think>`, Cohere's
//! `<|START_THINKING|>…<|END_THINKING|>`, Apertus's `<|inner_prefix|>…<|inner_suffix|>`,
//! Gemma 4's thought channel `<|channel>thought…<channel|>`, Solar Open 2's
//! `<|think:start|>…<|think:end|>`, MiniMax-M3's `<mm:think>…</mm:think>`, K2 Horizon's
//! `<ifm|think>` (and `_fast`, `_faster`) spans, PLaMo 3's
//! `<|plamo:begin_think:plamo|>…<|plamo:end_think:plamo|>`, Kimi K3's `<|open|>think<|sep|>…
//! <|close|>think<|sep|>` (its tags without the `<|sep|>`, a control token of its own) and HY v4's
//! `<think:6124c78e>…</think:6124c78e>` (a tag that ends with `:` takes the checkpoint's suffix,
//! see [`suffix_len`]). Either closing tag ends a span either opening tag began.
//!
//! Outside a span, a closing tag is a stray control token (Gemma 4 may end its answer with one),
//! and so is the token of an opening tag written without its channel name (`<|channel>` not
//! followed by `thought`): neither is content. The readers drop them; [`think_spans`] gives
//! each a span of its own, holding no reasoning.

use std::ops::Range;

use super::find::{find_either, same};

/// The opening tags, and the closing tags in the same order.
pub const OPENS: [&str; 14] = [
    "<think>",
    "<think:",
    "[THINK]",
    "<seed:think>",
    "<|START_THINKING|>",
    "<|inner_prefix|>",
    "<|channel>thought",
    "<|think:start|>",
    "<mm:think>",
    "<ifm|think>",
    "<ifm|think_fast>",
    "<ifm|think_faster>",
    "<|plamo:begin_think:plamo|>",
    "<|open|>think",
];
pub const CLOSES: [&str; 14] = [
    "</think>",
    "</think:",
    "[/THINK]",
    "</seed:think>",
    "<|END_THINKING|>",
    "<|inner_suffix|>",
    "<channel|>",
    "<|think:end|>",
    "</mm:think>",
    "</ifm|think>",
    "</ifm|think_fast>",
    "</ifm|think_faster>",
    "<|plamo:end_think:plamo|>",
    "<|close|>think",
];
/// Tokens that end a think span without being its closing tag: Kimi K3's reply channel, which a
/// model writes straight after thinking the prompt opened when it skips the thought. Inside a
/// span they end it; elsewhere they are their format's control tokens.
pub const ENDS: [&str; 2] = ["<|open|>response", "<|open|> response"];

/// The opening tags that are a token and a channel name (`<|channel>` `thought`): their tokens.
/// Each is a prefix of its tag, the one prefix the marker table allows (a reader holds such a
/// token until the bytes after it tell the tag apart, so chunk splits change nothing).
pub const OPEN_TOKENS: [&str; 1] = ["<|channel>"];

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
#[inline(never)]
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
#[inline(always)]
pub(crate) fn tag_len(rest: &[u8], tag: &str) -> Result<Option<usize>, ()> {
    if !rest.starts_with(tag.as_bytes()) {
        return Err(());
    }
    if !takes_suffix(tag) {
        return Ok(Some(tag.len()));
    }
    Ok(suffix_len(&rest[tag.len()..])?.map(|len| tag.len() + len + 1))
}

/// A think tag found at a `<` or `[`, with its length.
#[derive(Clone, Copy)]
enum Tag {
    Open,
    Close(usize),
}

/// Per byte, the tags (bit `i` for `OPENS[i]`, `OPENS.len() + i` for `CLOSES[i]`) whose second,
/// then third, byte it is: most `<` and `[` in prose are passed over on two lookups, and the
/// rare candidate is compared whole.
static BY_SECOND_BYTE: [u32; 256] = tags_by_byte(1);
static BY_THIRD_BYTE: [u32; 256] = tags_by_byte(2);
// Every tag has its bit.
const _: () = assert!(OPENS.len() + CLOSES.len() <= u32::BITS as usize);

const fn tags_by_byte(index: usize) -> [u32; 256] {
    let mut table = [0; 256];
    let mut i = 0;
    while i < OPENS.len() {
        table[OPENS[i].as_bytes()[index] as usize] |= 1 << i;
        table[CLOSES[i].as_bytes()[index] as usize] |= 1 << (OPENS.len() + i);
        i += 1;
    }
    table
}

/// The think tag `rest` (which starts at a `<` or `[`) starts with.
#[inline(always)]
fn tag_at(rest: &[u8]) -> Option<Tag> {
    let [_, second, third, ..] = *rest else {
        return None;
    };
    let mut candidates = BY_SECOND_BYTE[second as usize] & BY_THIRD_BYTE[third as usize];
    while candidates != 0 {
        let i = candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        match OPENS.get(i) {
            Some(open) if matches!(tag_len(rest, open), Ok(Some(_))) => return Some(Tag::Open),
            Some(_) => {}
            None => {
                if let Ok(Some(len)) = tag_len(rest, CLOSES[i - OPENS.len()]) {
                    return Some(Tag::Close(len));
                }
            }
        }
    }
    None
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
        match (open, tag_at(rest)) {
            (None, Some(Tag::Open)) => {
                open = Some(at);
                leading_close_allowed = false;
            }
            (None, Some(Tag::Close(len))) => {
                spans.push(if leading_close_allowed { 0 } else { at }..at + len);
                leading_close_allowed = false;
            }
            (None, None) => {
                if let Some(token) = OPEN_TOKENS.iter().find(|t| rest.starts_with(t.as_bytes())) {
                    spans.push(at..at + token.len());
                    leading_close_allowed = false;
                }
            }
            (Some(start), Some(Tag::Close(len))) => {
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
    message_start_given(text, first_tag_closes(text.as_bytes()))
}

/// [`message_start`] for a text whose first think tag is known, from a pass over its `<` and
/// `[` bytes that the caller makes anyway ([`closes_span`] at each).
pub(crate) fn message_start_given(text: &str, first_tag_closes: bool) -> usize {
    let trimmed = trim_start(text, 0);
    let opens_at = |tags: &[&str]| tags.iter().any(|tag| text[trimmed..].starts_with(tag));
    let opens_with_span = opens_at(&OPENS) || opens_at(&OPEN_TOKENS);
    if opens_with_span || first_tag_closes {
        start_after(text, &think_spans(text))
    } else {
        trimmed
    }
}

/// Whether `rest` (which starts at a `<` or `[`) starts with a closing think tag (`Some(true)`),
/// an opening one (`Some(false)`), or neither.
#[inline(always)]
pub(crate) fn closes_span(rest: &[u8]) -> Option<bool> {
    tag_at(rest).map(|tag| matches!(tag, Tag::Close(_)))
}

/// Whether the first think tag of `bytes` is a closing one (a span opened in the prompt). One
/// pass that stops at the first tag.
fn first_tag_closes(bytes: &[u8]) -> bool {
    let mut pos = 0;
    while let Some(i) = find_either(b'<', b'[', &bytes[pos..]) {
        if let Some(closes) = closes_span(&bytes[pos + i..]) {
            return closes;
        }
        pos += i + 1;
    }
    false
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
        // MiniMax-M3's; a turn without reasoning starts with the closing tag alone.
        assert_eq!(think_spans("<mm:think>a</mm:think>b"), vec![0..22]);
        assert_eq!(think_spans("</mm:think>b"), vec![0..11]);
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
