//! Raw-JSON mode: a message that starts with `{`/`[` (`Whole`), or the body of a
//! ```` ```json ```` / ```` ``` ```` fence (`Fenced`). It is held until it is known to be a call
//! (then the call events) or not (then it is given back as text). A byte that cannot be JSON,
//! or a fence body not starting with `{`/`[`, gives it back early. Decoding uses the batch code
//! ([`crate::raw_json::raw_candidate`]).
//!
//! When raw JSON is not read but some format is, a message that starts with a JSON value is
//! still held here, and released as text whole: markers inside a JSON message sit in its
//! strings.

use std::mem;
use std::ops::Range;

use crate::calls::TextPlace;
use crate::json::{JsonBuilder, JsonView};
use crate::raw_json::{generic_answer, raw_candidate};
use crate::scan::call_scan::{CallScanner, Stop};

use super::emit::{Closing, LiveCalls};
use super::fence::next_line_piece;
use super::lines::json_fence_close;
use super::shared::Pos;
use super::{Ctx, Mode, Next};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RawKind {
    Whole,
    Fenced,
}

pub(super) struct RawBody {
    kind: RawKind,
    /// Raw JSON is read (else the value is only kept whole, as text).
    decode: bool,
    /// The opening fence line (`Fenced`).
    prefix: String,
    at: Pos,
    body_at: Pos,
    body: String,
    scanner: CallScanner,
    line_start: usize,
    /// A fenced line ended with the chunk at a `\r`: the next byte says whether it is `\r\n`.
    cr_pending: bool,
}

/// The trimmed span of `text[..end]`.
fn trimmed(text: &str, end: usize) -> Range<usize> {
    let piece = &text[..end];
    let start = piece.len() - piece.trim_start().len();
    start..piece.trim_end().len().max(start)
}

impl RawBody {
    /// A candidate that starts here (after the fence line `prefix`, when `Fenced`).
    pub fn new<B: JsonBuilder>(kind: RawKind, prefix: String, cx: &Ctx<'_, B>) -> Box<Self> {
        Self::at(kind, prefix, cx.shared.pos, cx)
    }

    /// A candidate that started at `at`.
    pub fn at<B: JsonBuilder>(
        kind: RawKind,
        prefix: String,
        at: Pos,
        cx: &Ctx<'_, B>,
    ) -> Box<Self> {
        let body_at = at.after(&prefix);
        Box::new(Self {
            kind,
            decode: cx.options.raw_json.is_some(),
            prefix,
            at,
            body_at,
            body: String::new(),
            scanner: CallScanner::new(cx.options.json, true),
            line_start: 0,
            cr_pending: false,
        })
    }

    /// Decodes `value`, a whole-message candidate that started at `at` and has been read (a
    /// bare Llama 3 object that held no call).
    pub fn close_value<B>(value: &str, at: Pos, cx: &mut Ctx<'_, B>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let mut raw = Self::at(RawKind::Whole, String::new(), at, cx);
        while !matches!(
            raw.scanner.scan(value),
            Stop::End | Stop::TopClosed | Stop::NotJson
        ) {}
        raw.close(value, value.len(), value.len(), cx)
    }

    /// Feeds the candidate, line by line. One that began in this chunk is read in it, and
    /// copied only when it runs past it.
    pub fn feed<B>(&mut self, input: &str, cx: &mut Ctx<'_, B>) -> Result<Next, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let in_input = self.body.is_empty();
        let mut owned = mem::take(&mut self.body);
        let mut used = 0;
        // A fenced line that a lone `\r` ended in the last chunk (a body begun there).
        if mem::take(&mut self.cr_pending) && !input.starts_with('\n') {
            if let Some(next) = self.fenced_line_end(&owned, 0, cx)? {
                return Ok(next);
            }
        }
        while used < input.len() {
            let piece = next_line_piece(&input[used..]);
            used += piece.len();
            if !in_input {
                owned.push_str(piece);
            }
            let body: &str = if in_input { &input[..used] } else { &owned };
            match self.kind {
                RawKind::Whole => loop {
                    match self.scanner.scan(body) {
                        Stop::End => break,
                        Stop::Newline => {}
                        Stop::TopClosed => {
                            let excess = body.len() - self.scanner.pos;
                            let end = self.scanner.pos;
                            self.close(body, end, end, cx)?;
                            return Ok(Next::replay(used - excess, String::new()));
                        }
                        Stop::NotJson => return Ok(self.give_back(body, used, cx)),
                    }
                },
                RawKind::Fenced => {
                    // Lines are looked at whole (the last one may be the closing fence): at a
                    // `\n`, or at a `\r` once the next byte shows it is not `\r\n`.
                    let line_ends = match piece.as_bytes().last() {
                        Some(b'\n') => true,
                        Some(b'\r') => match input.as_bytes().get(used) {
                            Some(b'\n') => false,
                            Some(_) => true,
                            None => {
                                self.cr_pending = true;
                                false
                            }
                        },
                        _ => false,
                    };
                    if line_ends {
                        if let Some(next) = self.fenced_line_end(body, used, cx)? {
                            return Ok(next);
                        }
                    }
                }
            }
        }
        self.body = if in_input { input.to_owned() } else { owned };
        Ok(Next::Stay(used))
    }

    /// A fenced line ended at the end of `body` (with `used` bytes of the input taken): the
    /// closing fence ends the candidate, a body that cannot be JSON gives it back; `None` reads
    /// on.
    fn fenced_line_end<B>(
        &mut self,
        body: &str,
        used: usize,
        cx: &mut Ctx<'_, B>,
    ) -> Result<Option<Next>, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        if let Some(close) = json_fence_close(&body[self.line_start..]) {
            let end = self.line_start + close;
            self.close(body, end, body.len(), cx)?;
            return Ok(Some(Next::replay(used, String::new())));
        }
        if self.not_json(body, None) {
            return Ok(Some(self.give_back(body, used, cx)));
        }
        self.line_start = body.len();
        Ok(None)
    }

    /// Scans a fenced body up to `end` (its length by default); whether it is known not to be a
    /// call: it does not start with `{`/`[`, or holds a byte that cannot be JSON before anything
    /// that looks like a call.
    fn not_json(&mut self, body: &str, end: Option<usize>) -> bool {
        let end = end.unwrap_or(body.len());
        if !self.scanner.started() {
            if let Some(first) = body[..end].trim_start().bytes().next() {
                if first != b'{' && first != b'[' {
                    return true;
                }
            }
        }
        loop {
            match self.scanner.scan(&body[..end]) {
                Stop::End => return false,
                Stop::NotJson => {
                    let call_like = self
                        .scanner
                        .records
                        .iter()
                        .any(|r| r.name.is_some() && r.args_start.is_some());
                    if call_like {
                        // Held to the closing fence, where it is reported as invalid.
                        self.scanner.pos = end;
                        return false;
                    }
                    return true;
                }
                Stop::Newline | Stop::TopClosed => {}
            }
        }
    }

    /// Decodes a candidate ending at `end` (`consumed` bytes of the body were used).
    pub fn close<B>(
        &mut self,
        body: &str,
        end: usize,
        consumed: usize,
        cx: &mut Ctx<'_, B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let region = trimmed(body, end);
        let shared = &mut *cx.shared;
        let what = match self.kind {
            RawKind::Whole => TextPlace::RawJson,
            RawKind::Fenced => {
                shared.raw_blocks += 1;
                TextPlace::RawJsonFence(shared.raw_blocks - 1)
            }
        };
        if self.kind == RawKind::Fenced {
            self.not_json(body, Some(end));
        }
        let mut outcomes = Vec::new();
        if self.decode {
            let options = cx.options.json;
            raw_candidate(
                cx.builder,
                body,
                region.clone(),
                what,
                options,
                &mut outcomes,
            )?;
        }
        if outcomes.is_empty() {
            // Not a call: the fence and its body are plain text, or (llama.cpp's generic
            // format, named) a `{"response": "…"}` message is its answer.
            let answer = (self.kind == RawKind::Whole && cx.options.json_answers)
                .then(|| generic_answer(&body[region], cx.options.json))
                .flatten();
            let text = answer.unwrap_or_else(|| {
                let mut text = mem::take(&mut self.prefix);
                text.push_str(&body[..consumed]);
                text
            });
            shared.pos = self.at;
            shared.text_out(&text, cx.out);
            shared.prose.in_code = false;
            shared.prose.at_line_start = text.ends_with(['\n', '\r']);
            return Ok(());
        }
        shared.pos = self.body_at.after(&body[..consumed]);
        let records = &self.scanner.records;
        let mapped =
            records.len() == outcomes.len() && records.iter().enumerate().all(|(k, r)| r.item == k);
        shared.emit_calls(
            Closing {
                text: body,
                records,
                live: &mut LiveCalls::default(),
                outcomes,
                mapped,
                relative_to: Some(self.body_at),
                at: self.body_at,
            },
            cx.out,
        );
        shared.prose.at_line_start = body[..consumed].ends_with(['\n', '\r']);
        // Weak models write several calls one after the other: a JSON value right after a
        // whole-message call (only blank space between) is a candidate too. Any prose ends
        // that, so JSON quoted in prose is still never read.
        if self.kind == RawKind::Whole {
            shared.prose.message_started = false;
        }
        Ok(())
    }

    /// Gives the held candidate back as text, to be looked at again (a fenced one as code),
    /// after `used` bytes of the input.
    fn give_back<B: JsonBuilder>(&mut self, body: &str, used: usize, cx: &mut Ctx<'_, B>) -> Next {
        let shared = &mut *cx.shared;
        shared.pos = self.at;
        let prefix = mem::take(&mut self.prefix);
        if self.kind == RawKind::Fenced {
            shared.open_code(&prefix, cx.out);
            shared.prose.at_line_start = true;
        } else {
            shared.text_out(&prefix, cx.out);
        }
        Next::To(used, Mode::Text, body.to_owned())
    }

    /// The text ended inside the candidate; returns what to look at again.
    pub fn finish<B>(&mut self, cx: &mut Ctx<'_, B>) -> Result<String, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let body = mem::take(&mut self.body);
        match self.kind {
            RawKind::Whole => self.close(&body, body.len(), body.len(), cx)?,
            RawKind::Fenced => match json_fence_close(&body[self.line_start..]) {
                Some(close) => {
                    let end = self.line_start + close;
                    self.close(&body, end, body.len(), cx)?;
                }
                // No closing fence: not a candidate; the text stays text.
                None => {
                    let Next::To(_, _, rest) = self.give_back(&body, 0, cx) else {
                        unreachable!("a candidate given back goes to text")
                    };
                    return Ok(rest);
                }
            },
        }
        Ok(String::new())
    }
}
