//! Raw-JSON mode: a message that starts with `{`/`[` (`Whole`), or the body of a
//! ```` ```json ```` / ```` ``` ```` fence (`Fenced`). It is held until it is known to be a call
//! (then the call events) or not (then it is given back as text). A byte that cannot be JSON,
//! or a fence body not starting with `{`/`[`, gives it back early. Decoding uses the batch code
//! ([`crate::extract::raw_candidate`]).

use std::mem;
use std::ops::Range;

use crate::calls::TextPlace;
use crate::extract::raw_candidate;
use crate::json::{JsonBuilder, JsonView};
use crate::scan::call_scan::{CallScanner, Stop};

use super::emit::{Closing, LiveCalls};
use super::fence::next_line;
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
    /// The opening fence line (`Fenced`).
    prefix: String,
    at: Pos,
    body_at: Pos,
    body: String,
    scanner: CallScanner,
    line_start: usize,
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
            prefix,
            at,
            body_at,
            body: String::new(),
            scanner: CallScanner::new(cx.options.json, true),
            line_start: 0,
        })
    }

    /// A whole-message candidate whose first value, `value`, has been read (a bare Llama 3
    /// object that held no call).
    pub fn closed_value<B: JsonBuilder>(value: &str, at: Pos, cx: &Ctx<'_, B>) -> Box<Self> {
        let mut raw = Self::at(RawKind::Whole, String::new(), at, cx);
        raw.body = value.to_owned();
        while !matches!(
            raw.scanner.scan(&raw.body),
            Stop::End | Stop::TopClosed | Stop::NotJson
        ) {}
        raw
    }

    /// Feeds the candidate, line by line.
    pub fn feed<B>(&mut self, input: &str, cx: &mut Ctx<'_, B>) -> Result<Next, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let mut used = 0;
        while used < input.len() {
            let piece = next_line(&input[used..]);
            used += piece.len();
            self.body.push_str(piece);
            match self.kind {
                RawKind::Whole => loop {
                    match self.scanner.scan(&self.body) {
                        Stop::End => break,
                        Stop::Newline => {}
                        Stop::TopClosed => {
                            let excess = self.body.len() - self.scanner.pos;
                            let end = self.scanner.pos;
                            self.close(end, end, cx)?;
                            return Ok(Next::replay(used - excess, String::new()));
                        }
                        Stop::NotJson => return Ok(self.give_back(used, cx)),
                    }
                },
                RawKind::Fenced => {
                    if !piece.ends_with('\n') {
                        // Lines are looked at whole: the last one may be the closing fence.
                        continue;
                    }
                    if let Some(close) = json_fence_close(&self.body[self.line_start..]) {
                        let end = self.line_start + close;
                        let consumed = self.body.len();
                        self.close(end, consumed, cx)?;
                        return Ok(Next::replay(used, String::new()));
                    }
                    if self.not_json(None) {
                        return Ok(self.give_back(used, cx));
                    }
                    self.line_start = self.body.len();
                }
            }
        }
        Ok(Next::Stay(used))
    }

    /// Scans a fenced body up to `end` (its length by default); whether it is known not to be a
    /// call: it does not start with `{`/`[`, or holds a byte that cannot be JSON before anything
    /// that looks like a call.
    fn not_json(&mut self, end: Option<usize>) -> bool {
        let end = end.unwrap_or(self.body.len());
        if !self.scanner.started() {
            if let Some(first) = self.body[..end].trim_start().bytes().next() {
                if first != b'{' && first != b'[' {
                    return true;
                }
            }
        }
        loop {
            match self.scanner.scan(&self.body[..end]) {
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
        end: usize,
        consumed: usize,
        cx: &mut Ctx<'_, B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let region = trimmed(&self.body, end);
        let shared = &mut *cx.shared;
        let what = match self.kind {
            RawKind::Whole => TextPlace::RawJson,
            RawKind::Fenced => {
                shared.raw_blocks += 1;
                TextPlace::RawJsonFence(shared.raw_blocks - 1)
            }
        };
        if self.kind == RawKind::Fenced {
            self.not_json(Some(end));
        }
        let mut outcomes = Vec::new();
        raw_candidate(
            cx.builder,
            &self.body,
            region,
            what,
            cx.options.json,
            &mut outcomes,
        )?;
        if outcomes.is_empty() {
            // Not a call: the fence and its body are plain text.
            let mut text = mem::take(&mut self.prefix);
            text.push_str(&self.body[..consumed]);
            shared.pos = self.at;
            shared.text_out(&text, cx.out);
            shared.prose.in_code = false;
            shared.prose.at_line_start = text.ends_with('\n');
            return Ok(());
        }
        shared.pos = self.body_at.after(&self.body[..consumed]);
        let records = &self.scanner.records;
        let mapped =
            records.len() == outcomes.len() && records.iter().enumerate().all(|(k, r)| r.item == k);
        shared.emit_calls(
            Closing {
                text: &self.body,
                records,
                live: &mut LiveCalls::default(),
                outcomes,
                mapped,
                relative_to: Some(self.body_at),
                at: self.body_at,
            },
            cx.out,
        );
        shared.prose.at_line_start = self.body[..consumed].ends_with('\n');
        Ok(())
    }

    /// Gives the held candidate back as text, to be looked at again (a fenced one as code),
    /// after `used` bytes of the input.
    fn give_back<B: JsonBuilder>(&mut self, used: usize, cx: &mut Ctx<'_, B>) -> Next {
        let shared = &mut *cx.shared;
        shared.pos = self.at;
        let prefix = mem::take(&mut self.prefix);
        shared.text_out(&prefix, cx.out);
        if self.kind == RawKind::Fenced {
            shared.prose.in_code = true;
            shared.prose.at_line_start = true;
        }
        Next::To(used, Mode::Text, mem::take(&mut self.body))
    }

    /// The text ended inside the candidate; returns what to look at again.
    pub fn finish<B>(&mut self, cx: &mut Ctx<'_, B>) -> Result<String, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        match self.kind {
            RawKind::Whole => {
                let end = self.body.len();
                self.close(end, end, cx)?;
            }
            RawKind::Fenced => {
                if let Some(close) = json_fence_close(&self.body[self.line_start..]) {
                    let end = self.line_start + close;
                    let consumed = self.body.len();
                    self.close(end, consumed, cx)?;
                } else {
                    // No closing fence: not a candidate; the text stays text.
                    self.line_start = self.body.len();
                    let Next::To(_, _, rest) = self.give_back(0, cx) else {
                        unreachable!("a candidate given back goes to text")
                    };
                    return Ok(rest);
                }
            }
        }
        Ok(String::new())
    }
}
