//! Where a `<parameter=NAME>` value ends, shared by the decoder and the stream machine.
//!
//! Code-writing tools are asked to write files that hold this very markup (a parser's test
//! fixture, a chat template), so a value may contain `</parameter>`, `<parameter=…>`,
//! `<function=…>` or a whole `<tool_call>` as text (vLLM's qwen3 tests). The value ends at the
//! first `</parameter>` that is not inside such text, which is the first one that closes no tag
//! opened in the value and is followed (past whitespace) by another parameter, `</function>`,
//! `</tool_call>` or the end of the text. When there is none (up to the end of the text), the
//! model left the value's `</parameter>` out: the value ends before the next `<parameter=`, the
//! `</function>` or the `</tool_call>` (`tags::VALUE_ENDS`). The search looks at most [`LOOK`] tags ahead, so a
//! flood of unclosed tags stays linear.
//!
//! With `tools=`, the decoder also asks the schema ([`ValueScan::end_in_call`]): a
//! `</parameter>` followed by `<parameter=NAME>` for a NAME the called tool does not have is
//! text too. The stream machine reads without the schema: it only finds where the call's
//! markup ends (its `</function>` and wrapper), which a value's inner tags do not move, and
//! the region is then decoded with the schema on every path.

use std::ops::Range;

use super::super::cursor::{Markers, Pattern, Search};
use super::super::machine::{starts_any, ws};
use super::tags::{CLOSE, FUNCTION, FUNCTION_CLOSE, PARAMETER, PARAMETER_CLOSE, VALUE_ENDS};

/// The tags a value's text is scanned for: its close, then the tags that open or close others.
static MARKS: Markers = Markers::new(&[PARAMETER_CLOSE, PARAMETER, FUNCTION, FUNCTION_CLOSE]);
/// What follows a value's real `</parameter>`.
const AFTER_CLOSE: &[&str] = &[PARAMETER, FUNCTION_CLOSE, CLOSE];
/// How many tags past its start a value's end is looked for.
const LOOK: u32 = 64;
/// The longest of [`MARKS`], less one: a marker cut by the end of a stream's text starts after
/// this many bytes from its end.
const CUT: usize = PARAMETER_CLOSE.len() - 1;

/// The name of the `<parameter=NAME>` tag whose name starts at `start` (`None` when a line
/// break comes before its `>`), or `Err` while its `>` is not written yet.
fn parameter_named(b: &[u8], start: usize) -> Result<Option<&str>, ()> {
    let rest = b.get(start..).unwrap_or_default();
    let gt = rest.iter().position(|&c| c == b'>' || c == b'\n').ok_or(())?;
    let name = std::str::from_utf8(&rest[..gt]).ok();
    Ok(name.filter(|_| rest[gt] == b'>').map(str::trim))
}

/// Where a value ends ([`ValueScan::end`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ValueEnd {
    /// The value's text, and where the call's markup resumes after it (past its
    /// `</parameter>`, or at the tag it ends before).
    At(Range<usize>, usize),
    /// No `</parameter>` and no tag follows: the value runs off the end of the text.
    Unterminated,
    /// The text (of a stream) may still grow to tell.
    More,
}

/// A value's end, found in text that may still grow (a stream) or is whole (a decoder).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ValueScan {
    /// Where the value starts.
    start: usize,
    /// Where the scan resumes.
    pos: usize,
    /// Tags opened in the value and not closed.
    depth: u32,
    /// Tags passed.
    seen: u32,
    /// No tag, whole or cut, starts before here past `pos` (a stream's last scan found none).
    clear: usize,
}

impl ValueScan {
    pub fn new(start: usize) -> Self {
        Self {
            start,
            pos: start,
            depth: 0,
            seen: 0,
            clear: 0,
        }
    }

    /// Where the value ends in `b`, the text so far (all of it when `whole`).
    pub fn end(&mut self, b: &[u8], whole: bool) -> ValueEnd {
        self.end_in_call(b, whole, None)
    }

    /// [`end`](Self::end), where `is_parameter` says whether the call has a parameter of a
    /// name (by the tool's schema): a `</parameter>` followed by `<parameter=NAME>` for a name
    /// the tool does not have is text in the value, not its end (vLLM's qwen3 tests).
    pub fn end_in_call(
        &mut self,
        b: &[u8],
        whole: bool,
        is_parameter: Option<&dyn Fn(&str) -> bool>,
    ) -> ValueEnd {
        self.clear = 0;
        loop {
            let found = match MARKS.search(b, self.pos) {
                Search::Found(found) => found,
                Search::Partial(at) if !whole => {
                    self.pos = self.pos.max(at);
                    return ValueEnd::More;
                }
                Search::None if !whole => {
                    self.pos = self.pos.max(b.len().saturating_sub(CUT));
                    self.clear = b.len();
                    return ValueEnd::More;
                }
                _ => return self.left_open(b),
            };
            if self.seen == LOOK {
                return self.left_open(b);
            }
            match found.pattern {
                0 if self.depth == 0 => {
                    let next = ws(b, found.end);
                    match starts_any(b, next, AFTER_CLOSE) {
                        Ok(Some(0)) if is_parameter.is_some() => {
                            match parameter_named(b, next + PARAMETER.len()) {
                                Err(()) if !whole => return ValueEnd::More,
                                Ok(Some(name)) if is_parameter.is_some_and(|is| !is(name)) => {}
                                _ => return ValueEnd::At(self.start..found.start, found.end),
                            }
                        }
                        Ok(Some(_)) => return ValueEnd::At(self.start..found.start, found.end),
                        _ if next == b.len() && whole => {
                            return ValueEnd::At(self.start..found.start, found.end)
                        }
                        Err(()) if !whole => return ValueEnd::More,
                        _ => {}
                    }
                }
                1 | 2 => self.depth += 1,
                _ => self.depth = self.depth.saturating_sub(1),
            }
            self.seen += 1;
            self.pos = found.end;
        }
    }

    /// The value of a parameter whose `</parameter>` was left out: up to the next tag, without
    /// the line breaks that put it on lines of its own (the template's layout).
    fn left_open(&self, b: &[u8]) -> ValueEnd {
        match VALUE_ENDS.search(b, self.start) {
            Search::Found(found) if found.pattern == 0 => {
                ValueEnd::At(self.start..found.start, found.end)
            }
            Search::Found(found) => {
                let text = &b[self.start..found.start];
                let lead = if text.starts_with(b"\r\n") {
                    2
                } else {
                    usize::from(text.starts_with(b"\n"))
                };
                let rest = &text[lead..];
                let trail = if rest.ends_with(b"\r\n") {
                    2
                } else {
                    usize::from(rest.ends_with(b"\n"))
                };
                let start = self.start + lead;
                ValueEnd::At(start..start + rest.len() - trail, found.start)
            }
            _ => ValueEnd::Unterminated,
        }
    }

    /// Moves past `piece`, appended to a text of `len` bytes, when that is all scanning it
    /// would do: the last scan found no tag, not even one cut by the end, up to `len`, and no
    /// tag may start in `piece` (a stream region takes such a chunk without reading it).
    pub fn skip_piece(&mut self, len: usize, piece: &[u8]) -> bool {
        if self.clear != len || MARKS.may_start_in(piece) {
            return false;
        }
        self.clear = len + piece.len();
        self.pos = self.pos.max(self.clear.saturating_sub(CUT));
        true
    }
}
