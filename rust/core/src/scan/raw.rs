//! Where bare JSON calls may sit anywhere in a message (`raw_json="anywhere"`): every balanced
//! `{…}` / `[…]` that could hold a call, found by one string-aware pass with a stack; only spans
//! whose keys look like a call are returned, so each byte is decoded about once however deep the
//! nesting. (The message-start and fenced candidates are the stream engine's.)

use std::collections::VecDeque;
use std::ops::Range;

use crate::calls::is_candidate_arguments_key;
use crate::json::MAX_DEPTH;

/// A balanced `{…}` or `[…]` whose keys look like a tool call (or a list of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSpan {
    pub range: Range<usize>,
}

/// Result of [`balanced_spans`].
#[derive(Debug, Default, PartialEq, Eq)]
pub struct BalancedScan {
    /// Call-like spans sorted by start (outer before inner).
    pub spans: Vec<CallSpan>,
    /// The start of an object that looked like a call but never closed.
    pub unterminated: Option<usize>,
}

#[derive(Default)]
struct Frame {
    start: usize,
    is_object: bool,
    expect_key: bool,
    has_name: bool,
    has_arguments: bool,
    has_wrapper: bool,
    /// Arrays: every item so far is a call-like object.
    all_items_calls: bool,
    items: usize,
}

impl Frame {
    fn call_like(&self) -> bool {
        if self.is_object {
            (self.has_name && self.has_arguments) || self.has_wrapper
        } else {
            self.items > 0 && self.all_items_calls
        }
    }
}

/// The open brackets of [`balanced_spans`], in bounded memory: the outermost
/// [`MAX_DEPTH`] frames and the innermost [`MAX_DEPTH`] are kept; brackets in between are
/// only counted.
///
/// A frame with [`MAX_DEPTH`] open brackets above it holds nesting deeper than the JSON
/// depth limit, so it can never decode: at most it is a broken call (an error). The outer
/// frames are kept for those errors (the outermost call wins and covers what is inside), the
/// inner ones for valid calls nested under unbalanced brackets; the uncounted middle can
/// produce neither a call nor, being inside a kept outer frame or under unbalanced
/// brackets, a span worth reporting. Its bracket kinds are not kept, so a mismatched closer
/// there is not noticed.
#[derive(Default)]
struct FrameStack {
    outer: Vec<Frame>,
    /// Frames between `outer` and `inner`: open, untracked.
    hidden: usize,
    inner: VecDeque<Frame>,
}

impl FrameStack {
    fn is_empty(&self) -> bool {
        self.outer.is_empty() && self.hidden == 0 && self.inner.is_empty()
    }

    fn clear(&mut self) {
        self.outer.clear();
        self.hidden = 0;
        self.inner.clear();
    }

    /// The innermost frame, `None` when it is untracked (or there is none).
    fn last_mut(&mut self) -> Option<&mut Frame> {
        if self.inner.is_empty() && self.hidden == 0 {
            self.outer.last_mut()
        } else {
            self.inner.back_mut()
        }
    }

    fn push(&mut self, frame: Frame) {
        if self.outer.len() < MAX_DEPTH && self.hidden == 0 && self.inner.is_empty() {
            self.outer.push(frame);
            return;
        }
        if self.inner.len() == MAX_DEPTH {
            self.inner.pop_front();
            self.hidden += 1;
        }
        self.inner.push_back(frame);
    }

    /// Closes the innermost bracket: `Ok(Some(frame))` when it was tracked, `Ok(None)` when
    /// it was not, `Err(())` when nothing was open.
    fn pop(&mut self) -> Result<Option<Frame>, ()> {
        if let Some(frame) = self.inner.pop_back() {
            return Ok(Some(frame));
        }
        if self.hidden > 0 {
            self.hidden -= 1;
            return Ok(None);
        }
        self.outer.pop().map(Some).ok_or(())
    }

    /// The outermost frames, outer first.
    fn outer(&self) -> impl Iterator<Item = &Frame> {
        self.outer.iter().chain(self.inner.iter())
    }
}

/// One string-aware pass over `text` finding every call-like balanced span.
pub fn balanced_spans(text: &str) -> BalancedScan {
    let bytes = text.as_bytes();
    let mut stack = FrameStack::default();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if stack.is_empty() {
            match memchr::memchr2(b'{', b'[', &bytes[i..]) {
                Some(found) => i += found,
                None => break,
            }
        }
        let c = bytes[i];
        match c {
            b'{' | b'[' => {
                if let Some(parent) = stack.last_mut() {
                    if !parent.is_object {
                        parent.items += 1;
                        if c == b'[' {
                            parent.all_items_calls = false;
                        }
                    }
                }
                stack.push(Frame {
                    start: i,
                    is_object: c == b'{',
                    expect_key: c == b'{',
                    all_items_calls: true,
                    ..Frame::default()
                });
                i += 1;
            }
            b'}' | b']' => {
                let frame = match stack.pop() {
                    Ok(Some(frame)) if frame.is_object == (c == b'}') => frame,
                    Ok(None) => {
                        // An untracked bracket: too deep to be a call; its parent, if
                        // tracked, holds an item that is not one.
                        if let Some(parent) = stack.last_mut() {
                            if !parent.is_object {
                                parent.all_items_calls = false;
                            }
                        }
                        i += 1;
                        continue;
                    }
                    _ => {
                        stack.clear();
                        i += 1;
                        continue;
                    }
                };
                let call_like = frame.call_like();
                if call_like {
                    spans.push(CallSpan {
                        range: frame.start..i + 1,
                    });
                }
                if let Some(parent) = stack.last_mut() {
                    let call_item = frame.is_object && call_like;
                    if !parent.is_object && !call_item {
                        parent.all_items_calls = false;
                    }
                }
                i += 1;
            }
            b'"' => {
                let Some(end) = string_end(bytes, i + 1) else {
                    // A newline or the end of text inside a string: not JSON; start afresh.
                    stack.clear();
                    i = memchr::memchr(b'\n', &bytes[i + 1..]).map_or(bytes.len(), |n| i + 2 + n);
                    continue;
                };
                if let Some(frame) = stack.last_mut() {
                    if frame.is_object && frame.expect_key {
                        match &bytes[i + 1..end] {
                            b"name" => frame.has_name = true,
                            key if std::str::from_utf8(key)
                                .is_ok_and(is_candidate_arguments_key) =>
                            {
                                frame.has_arguments = true
                            }
                            b"function" | b"tool_call" | b"tool_calls" => frame.has_wrapper = true,
                            _ => {}
                        }
                        frame.expect_key = false;
                    } else if !frame.is_object {
                        frame.items += 1;
                        frame.all_items_calls = false;
                    }
                }
                i = end + 1;
            }
            b',' => {
                if let Some(frame) = stack.last_mut() {
                    frame.expect_key = frame.is_object;
                }
                i += 1;
            }
            b' ' | b'\t' | b'\n' | b'\r' | b':' => i += 1,
            _ => {
                if let Some(frame) = stack.last_mut() {
                    if !frame.is_object {
                        frame.items += 1;
                        frame.all_items_calls = false;
                    }
                }
                i += 1;
            }
        }
    }
    let unterminated = stack
        .outer()
        .find(|f| f.is_object && f.has_name && f.has_arguments)
        .map(|f| f.start);
    spans.sort_by_key(|s| s.range.start);
    BalancedScan {
        spans,
        unterminated,
    }
}

/// The index of the closing quote of a string whose content starts at `i`, or `None` if a raw
/// newline or the end of the text comes first.
fn string_end(bytes: &[u8], mut i: usize) -> Option<usize> {
    loop {
        let found = memchr::memchr3(b'"', b'\\', b'\n', &bytes[i..])?;
        i += found;
        match bytes[i] {
            b'"' => return Some(i),
            b'\\' => i += 2,
            _ => return None,
        }
        if i >= bytes.len() {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_spans_find_call_like_objects() {
        let text = r#"x {"name": "f", "arguments": {"name": "g", "arguments": {}}} y [{"name":"h","parameters":{}}] {"other": 1} {"tool_calls": []}"#;
        let scan = balanced_spans(text);
        let spans: Vec<&str> = scan.spans.iter().map(|s| &text[s.range.clone()]).collect();
        assert_eq!(
            spans,
            vec![
                r#"{"name": "f", "arguments": {"name": "g", "arguments": {}}}"#,
                r#"{"name": "g", "arguments": {}}"#,
                r#"[{"name":"h","parameters":{}}]"#,
                r#"{"name":"h","parameters":{}}"#,
                r#"{"tool_calls": []}"#,
            ]
        );
        assert_eq!(scan.unterminated, None);
    }

    #[test]
    fn strings_hide_braces_and_newlines_reset() {
        let text = "{\"name\": \"}{\", \"arguments\": {}} {\"bad\": \"x\n{\"name\":\"f\",\"arguments\":{}}";
        let scan = balanced_spans(text);
        let spans: Vec<&str> = scan.spans.iter().map(|s| &text[s.range.clone()]).collect();
        assert_eq!(
            spans,
            vec![
                r#"{"name": "}{", "arguments": {}}"#,
                r#"{"name":"f","arguments":{}}"#
            ]
        );
    }

    #[test]
    fn unterminated_call_is_reported() {
        let scan = balanced_spans(r#"call: {"name": "f", "arguments": {"a": 1"#);
        assert_eq!(scan.unterminated, Some(6));
    }

    #[test]
    fn deep_nesting_keeps_bounded_frames() {
        let mut stack = FrameStack::default();
        for start in 0..1_000_000 {
            stack.push(Frame {
                start,
                ..Frame::default()
            });
        }
        assert_eq!(stack.outer.len() + stack.inner.len(), 2 * MAX_DEPTH);
        assert_eq!(stack.outer().next().map(|f| f.start), Some(0));
        for _ in 0..1_000_000 {
            assert!(stack.pop().is_ok());
        }
        assert!(stack.is_empty() && stack.pop().is_err());
    }

    #[test]
    fn calls_under_deep_brackets_are_found() {
        // A call nested under more unbalanced brackets than the depth limit is still a span.
        let call = r#"{"name":"f","arguments":{}}"#;
        let text = "[".repeat(3 * MAX_DEPTH) + call;
        let scan = balanced_spans(&text);
        let spans: Vec<&str> = scan.spans.iter().map(|s| &text[s.range.clone()]).collect();
        assert_eq!(spans, vec![call]);
        // A call whose arguments nest too deep is still one (broken) span, the outermost.
        let deep = format!(
            r#"{{"name":"f","arguments":{}{}}}"#,
            "[".repeat(3 * MAX_DEPTH),
            "]".repeat(3 * MAX_DEPTH)
        );
        let scan = balanced_spans(&deep);
        assert_eq!(
            scan.spans.first().map(|s| s.range.clone()),
            Some(0..deep.len())
        );
        let open = format!(
            r#"x {{"name":"f","arguments":{}"#,
            "{".repeat(3 * MAX_DEPTH)
        );
        assert_eq!(balanced_spans(&open).unterminated, Some(2));
    }

    #[test]
    fn deep_nesting_is_linear() {
        let text = "[".repeat(1_000_000) + &"]".repeat(1_000_000);
        assert!(balanced_spans(&text).spans.is_empty());
    }
}
