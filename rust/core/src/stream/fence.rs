//! `~~~tool_call` mode: the same rules as [`crate::scan::fence`] (fence lines on their own, the
//! closing fence, in the block's own fence character, only outside a JSON string, an
//! unterminated block ending at the next opening fence or the end of the text). The body is appended line by line and scanned once by a
//! [`CallScanner`], which finds each call's name (to announce it) and the byte span of its
//! arguments (to forward the model's own bytes). At the closing fence the body is decoded once
//! by the batch code ([`crate::calls::push_calls_of_text_parsed`]).

use std::mem;

use crate::calls::{
    push_calls_of_text_parsed, Invalid, Outcome, Protocol, TextCallContext, TextPlace,
};
use crate::json::{JsonBuilder, JsonView};
use crate::scan::call_scan::{CallScanner, Stop};
use crate::scan::fence::closing_fence_len;
use crate::scan::find::find_either;
use crate::text_tagged::unterminated_block;

use super::emit::{Closing, LiveCalls};
use super::lines::{FenceKind, FenceLine, Step};
use super::shared::Pos;
use super::{Ctx, Event, Next};

pub(super) struct FenceBody {
    /// The opening fence line, from its fence.
    open_line: String,
    /// Its fence character: a closing line is written in it.
    fence: u8,
    open_at: Pos,
    body_at: Pos,
    body: String,
    scanner: CallScanner,
    /// The classifier of the current line while it may still be a fence line.
    line: Option<FenceLine>,
    line_start: usize,
    line_in_string: bool,
    /// Whether the line break the current line awaits the end of (a `\r`) ends a line outside
    /// an escape.
    break_ends_line: bool,
    quotes: DoubleQuotes,
    /// The first fence line seen inside a JSON string: (line start, line end, kind).
    string_fence: Option<(usize, usize, FenceKind)>,
    live: LiveCalls,
    block: usize,
}

/// The next piece of `input` up to a line break (`\n` or `\r`, included), or all of it. The
/// `\n` of a `\r\n` is a piece of its own: the line readers join the two.
pub(super) fn next_line_piece(input: &str) -> &str {
    let end = find_either(b'\n', b'\r', input.as_bytes()).map_or(input.len(), |i| i + 1);
    &input[..end]
}

impl FenceBody {
    /// A block opened by the fence line `held`.
    pub fn open<B: JsonBuilder>(held: &str, cx: &mut Ctx<'_, B>) -> Box<Self> {
        let shared = &mut *cx.shared;
        let open_at = shared.pos;
        shared.pos = shared.pos.after(held);
        shared.blocks += 1;
        Box::new(FenceBody {
            open_line: held.to_owned(),
            fence: held.as_bytes()[0],
            open_at,
            body_at: shared.pos,
            body: String::new(),
            scanner: CallScanner::new(cx.options.json, false),
            line: Some(FenceLine::START),
            line_start: 0,
            line_in_string: false,
            break_ends_line: false,
            quotes: DoubleQuotes::default(),
            string_fence: None,
            live: LiveCalls::default(),
            block: shared.blocks - 1,
        })
    }

    /// [`super::StreamParser::feed_argument_piece`] in a block (not at the start of a line,
    /// which may be a fence line).
    pub fn take_argument_piece(&mut self, chunk: &str) -> Option<usize> {
        if self.line.is_some() {
            return None;
        }
        let len = self.body.len();
        let call = self.live.sending_all(&self.scanner.records, len)?;
        let was_escaped = self.scanner.escaped();
        if !self.scanner.skip_string_piece(len, chunk) {
            return None;
        }
        call.took_string_piece(chunk, &self.scanner, was_escaped);
        self.body.push_str(chunk);
        // The fence-line rule's own string tracking sees every byte, as on the full path (no
        // newline here, so no line can end). Where it is in the same `"` string as the scanner,
        // the piece (no unescaped `"`, no control byte) only moves the escape state, as it moved
        // the scanner's: no second pass.
        let same_string = DoubleQuotes {
            in_string: true,
            escaped: was_escaped,
        };
        if self.quotes == same_string && self.scanner.quote() == b'"' {
            self.quotes.escaped = self.scanner.escaped();
        } else {
            self.quotes.line_ends(chunk.as_bytes());
        }
        Some(call.index)
    }

    /// Feeds the body, line by line. A body that began in this chunk is read in it, and copied
    /// only when it runs past it.
    pub fn feed<B>(&mut self, input: &str, cx: &mut Ctx<'_, B>) -> Result<Next, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let in_input = self.body.is_empty();
        let mut owned = mem::take(&mut self.body);
        let mut used = 0;
        while used < input.len() {
            let broke = self.line.is_some_and(FenceLine::awaits_break_end)
                && input.as_bytes()[used] != b'\n';
            // A line a lone `\r` ended is decided before the next byte, which begins a new line.
            let piece = if broke {
                ""
            } else {
                next_line_piece(&input[used..])
            };
            used += piece.len();
            if !in_input {
                owned.push_str(piece);
            }
            let body: &str = if in_input { &input[..used] } else { &owned };
            let (line_start, line_in_string) = (self.line_start, self.line_in_string);
            let mut verdict = FenceKind::None;
            if let Some(mut line) = self.line.take() {
                let decided = if broke {
                    Some(line.at_end())
                } else {
                    piece.bytes().find_map(|b| match line.step(b) {
                        Step::More => None,
                        Step::Done(kind, _) => Some(kind),
                    })
                };
                match decided {
                    Some(kind) => verdict = self.for_block(line, kind),
                    None => self.line = Some(line),
                }
            }
            if verdict != FenceKind::None {
                if !line_in_string || cx.shared.strings_run_to_end {
                    let rest = self.close(body, line_start, body.len(), verdict, cx)?;
                    return Ok(Next::replay(used, rest));
                }
                if self.string_fence.is_none() {
                    self.string_fence = Some((line_start, body.len(), verdict));
                }
                // An opening line inside a string: a quote was left open (as in `scan::fence`).
                if let (FenceKind::Open, Some((start, end, kind))) = (verdict, self.string_fence) {
                    let rest = self.close(body, start, end, kind, cx)?;
                    return Ok(Next::replay(used, rest));
                }
            }
            if broke {
                if self.break_ends_line {
                    self.line = Some(FenceLine::START);
                    self.line_start = body.len();
                    self.line_in_string = self.quotes.in_string();
                }
                continue;
            }
            if cx.shared.events {
                while self.scanner.scan(body) != Stop::End {}
            }
            // Which lines may be fence lines is the batch scanner's rule (`"` strings only,
            // also with repair, where the call scanner reads `'` strings too).
            let line_ends = self.quotes.line_ends(piece.as_bytes());
            // A `\r` that may begin `\r\n`: the next line begins after what follows it.
            self.break_ends_line = line_ends;
            if line_ends && !self.line.is_some_and(FenceLine::awaits_break_end) {
                self.line = Some(FenceLine::START);
                self.line_start = body.len();
                self.line_in_string = self.quotes.in_string();
            }
            if cx.shared.events {
                // A line not decided yet is not sent: it may be a fence line, and an opening
                // one ends the block even inside a string (a quote left open).
                let safe = if self.line.is_some() {
                    self.line_start
                } else {
                    self.scanner.pos
                };
                let records = &self.scanner.records;
                cx.shared
                    .progress(body, records, &mut self.live, safe, cx.out);
            }
        }
        self.body = if in_input { input.to_owned() } else { owned };
        Ok(Next::Stay(used))
    }

    /// Ends a block whose body ends at `end` with a fence line of `kind` ending at `line_end`;
    /// returns the text after the block that must be looked at again (an opening line that
    /// begins a new block, or what follows a fallback fence line at the end of the text).
    fn close<B>(
        &mut self,
        body: &str,
        end: usize,
        line_end: usize,
        kind: FenceKind,
        cx: &mut Ctx<'_, B>,
    ) -> Result<String, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        // A closing line's prose (`~~~ and then some prose`) is looked at again, as text.
        let consumed = if kind == FenceKind::Open {
            end
        } else {
            end + closing_fence_len(&body.as_bytes()[end..line_end])
        };
        let rest = body[consumed..].to_owned();
        cx.shared.pos = self.body_at.after(&body[..consumed]);
        cx.shared.prose.at_line_start = kind == FenceKind::Open || consumed == line_end;
        let body = &body[..end];
        if kind == FenceKind::Open {
            self.unterminated(body, cx);
            return Ok(rest);
        }
        let context = TextCallContext {
            protocol: Protocol::TextTagged,
            what: TextPlace::FenceBlock(self.block),
            text: body,
            base: self.body_at.bytes,
        };
        let mut outcomes = Vec::new();
        let mapped =
            push_calls_of_text_parsed(cx.builder, &context, cx.options.json, &mut outcomes)?;
        let unnamed_failure = outcomes
            .iter()
            .any(|o| matches!(o, Outcome::Invalid(invalid) if invalid.name.is_none()));
        if !mapped || unnamed_failure {
            self.announce_quietly(body, cx);
        }
        if !mapped && self.live.any_numbered() {
            let Some(Outcome::Invalid(mut invalid)) = outcomes.pop() else {
                unreachable!("text that is not JSON gives one failure")
            };
            invalid.offset = self.body_at.chars().and_then(|chars| {
                let byte = invalid.byte_offset?.checked_sub(self.body_at.bytes)?;
                Some(chars + body.get(..byte)?.chars().count())
            });
            self.fail_whole(*invalid, cx);
            return Ok(rest);
        }
        cx.shared.emit_calls(
            Closing {
                text: body,
                records: &self.scanner.records,
                live: &mut self.live,
                outcomes,
                mapped,
                relative_to: None,
                at: self.body_at,
            },
            cx.out,
        );
        Ok(rest)
    }

    /// The text ended inside the block; returns the text after it to look at again.
    pub fn finish<B>(&mut self, cx: &mut Ctx<'_, B>) -> Result<String, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let body = mem::take(&mut self.body);
        if let Some(line) = self.line {
            let kind = self.for_block(line, line.at_end());
            if kind != FenceKind::None {
                if !self.line_in_string || cx.shared.strings_run_to_end {
                    return self.close(&body, self.line_start, body.len(), kind, cx);
                }
                if self.string_fence.is_none() {
                    self.string_fence = Some((self.line_start, body.len(), kind));
                }
            }
        }
        // No fence line outside a string: like the batch scanner, fall back to the first fence
        // line inside one, and from now on let fence lines end bodies whatever the strings.
        cx.shared.strings_run_to_end = true;
        if let Some((start, end, kind)) = self.string_fence {
            return self.close(&body, start, end, kind, cx);
        }
        cx.shared.pos = self.body_at.after(&body);
        self.unterminated(&body, cx);
        Ok(String::new())
    }

    /// What a fence line of `kind` is to this block: a closing line closes only a block of its
    /// own fence; an opening line in either ends it.
    fn for_block(&self, line: FenceLine, kind: FenceKind) -> FenceKind {
        if kind == FenceKind::Close && line.fence() != self.fence {
            FenceKind::None
        } else {
            kind
        }
    }

    /// Without events, the body is scanned, and the calls a stream would have announced line
    /// by line counted, only when a failure needs them (its calls' names, one failure per call
    /// begun), so that both report the same calls.
    fn announce_quietly<B: JsonBuilder>(&mut self, body: &str, cx: &mut Ctx<'_, B>) {
        if !cx.shared.events {
            while self.scanner.scan(body) != Stop::End {}
            let safe = self.scanner.pos;
            let records = &self.scanner.records;
            cx.shared
                .progress(body, records, &mut self.live, safe, cx.out);
        }
    }

    /// Reports a block with no closing fence: invalid, after the calls it announced.
    fn unterminated<B: JsonBuilder>(&mut self, body: &str, cx: &mut Ctx<'_, B>) {
        self.announce_quietly(body, cx);
        let mut raw = mem::take(&mut self.open_line);
        raw.push_str(body);
        let index = self
            .live
            .first_index()
            .unwrap_or_else(|| cx.shared.take_index());
        let mut invalid = unterminated_block(
            &TextPlace::FenceBlock(self.block),
            index,
            &raw,
            self.open_at.bytes,
        );
        invalid.offset = self.open_at.chars();
        invalid.name = self.scanner.records.first().and_then(|r| r.name.clone());
        self.fail_whole(invalid, cx);
    }

    /// Reports a block that failed as a whole: once per announced call and per item numbered
    /// before one (named after its call object, if any), in order; once when there are none.
    fn fail_whole<B: JsonBuilder>(&mut self, invalid: Invalid, cx: &mut Ctx<'_, B>) {
        let announced = self.live.live.iter().flatten();
        let mut numbered: Vec<_> = announced
            .map(|call| (call.index, call.name.clone()))
            .collect();
        let records = &self.scanner.records;
        numbered.extend(self.live.reserved().map(|(item, index)| {
            let record = records.iter().find(|r| r.item == item);
            (index, record.and_then(|r| r.name.clone()))
        }));
        numbered.sort_unstable_by_key(|&(index, _)| index);
        if numbered.is_empty() {
            cx.shared.event(Event::Invalid(invalid), cx.out);
            return;
        }
        for (index, name) in numbered {
            let mut invalid = invalid.clone();
            invalid.index = index;
            invalid.name = name;
            cx.shared.event(Event::Invalid(invalid), cx.out);
        }
    }
}

/// The strings of a `~~~tool_call` body as the batch scanner ([`crate::scan::fence`]) sees
/// them, whatever the repair mode: `"` toggles a string, `\\` in a string escapes the next
/// byte unless it is a line break (JSON has no such escape). Fed the body one line at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct DoubleQuotes {
    in_string: bool,
    escaped: bool,
}

impl DoubleQuotes {
    /// Takes in the next piece of a line (at most one line break, at its end); says whether
    /// the piece ends a line after which a fence line may begin.
    pub fn line_ends(&mut self, piece: &[u8]) -> bool {
        let mut i = 0;
        loop {
            if self.escaped {
                if i == piece.len() {
                    return false;
                }
                self.escaped = false;
                if !matches!(piece[i], b'\n' | b'\r') {
                    i += 1;
                }
            }
            let Some(found) = find_either(b'"', b'\\', &piece[i..]) else {
                return matches!(piece.last(), Some(b'\n' | b'\r')) && i < piece.len();
            };
            i += found + 1;
            if piece[i - 1] == b'"' {
                self.in_string = !self.in_string;
            } else if self.in_string {
                self.escaped = true;
            }
        }
    }

    pub fn in_string(&self) -> bool {
        self.in_string
    }
}
