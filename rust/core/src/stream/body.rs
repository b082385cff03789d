//! The call-region modes of the stream: `~~~tool_call` bodies and raw-JSON candidates, and the
//! shared emission of call events (indices, ids, live starts and argument deltas, the decode).

use std::collections::HashMap;
use std::mem;

use crate::calls::{
    push_calls_of_text_parsed, Invalid, Outcome, Protocol, TextCallContext, TextPlace,
};
use crate::extract::{raw_candidate, unterminated_block};
use crate::ids::generate_id;
use crate::json::{to_compact_json, JsonBuilder, JsonView, ParseOptions};
use crate::position::CharOffsets;

use super::find::find1;
use super::lines::{json_fence_close, FenceKind, FenceLine, Step};
use super::scanner::{CallRecord, CallScanner, Stop};
use super::{Event, FenceBody, Live, LiveCalls, Mode, Out, Pos, RawBody, RawKind, StreamParser};

/// The end of a call region, ready to be reported.
pub(super) struct Closing<'a, V> {
    /// The region's text (the body).
    pub text: &'a str,
    pub records: &'a [CallRecord],
    pub live: &'a mut LiveCalls,
    pub outcomes: Vec<Outcome<V>>,
    /// Outcome `k` belongs to the record whose `item` is `k`.
    pub mapped: bool,
    /// Byte offsets in `outcomes` are relative to the start of `text` at this position.
    pub relative_to: Option<Pos>,
    pub at: Pos,
}

impl RawBody {
    pub(super) fn new(kind: RawKind, prefix: String, at: Pos, options: ParseOptions) -> Self {
        let body_at = at.after(&prefix);
        Self {
            kind,
            prefix,
            at,
            body_at,
            body: String::new(),
            scanner: CallScanner::new(options, true),
            line_start: 0,
        }
    }
}

/// The next line of `input` (its `\n` included), or all of it.
fn next_line(input: &str) -> &str {
    let end = find1(b'\n', input.as_bytes()).map_or(input.len(), |i| i + 1);
    &input[..end]
}

fn trimmed(text: &str, end: usize) -> std::ops::Range<usize> {
    let piece = &text[..end];
    let start = piece.len() - piece.trim_start().len();
    start..piece.trim_end().len().max(start)
}

impl LiveCalls {
    /// The announced call whose argument bytes are being sent, when all of a text of `len`
    /// bytes is sent: that of the last record, open, with its arguments begun and not ended.
    pub(super) fn sending_all<'a>(
        &'a mut self,
        records: &[CallRecord],
        len: usize,
    ) -> Option<&'a mut Live> {
        let r = records.len().checked_sub(1)?;
        let record = &records[r];
        if r < self.from
            || record.closed
            || record.args_start.is_none()
            || record.args_end.is_some()
        {
            return None;
        }
        self.live
            .get_mut(r)?
            .as_mut()
            .filter(|call| call.sent_to == len)
    }
}

impl FenceBody {
    /// [`StreamParser::feed_argument_piece`] in a block (not at the start of a line, which may
    /// be a fence line).
    fn take_argument_piece(&mut self, chunk: &str) -> Option<usize> {
        if self.line.is_some() {
            return None;
        }
        let len = self.body.len();
        let call = self.live.sending_all(&self.scanner.records, len)?;
        if !self.scanner.skip_string_piece(len, chunk) {
            return None;
        }
        self.body.push_str(chunk);
        call.sent_to = self.body.len();
        // The fence-line rule's own string tracking sees every byte, as on the full path (no
        // newline here, so no line can end).
        self.quotes.line_ends(chunk.as_bytes());
        Some(call.index)
    }
}

impl StreamParser {
    /// The fast path of [`feed`](Self::feed) for the usual chunk of a long call: one inside a
    /// JSON string in the arguments of an announced call whose bytes have all been sent, that
    /// does not close the string and holds no newline, so that it cannot end the call or the
    /// region. Taking it is all the full path would do: append it, move the scanner past it and
    /// send it whole as the call's next `CallDelta`. Returns that call's index, or `None` having
    /// done nothing.
    pub fn feed_argument_piece(&mut self, chunk: &str) -> Option<usize> {
        if chunk.is_empty() || !self.run.is_empty() {
            return None;
        }
        let index = match &mut self.mode {
            Mode::Fence(body) => body.take_argument_piece(chunk)?,
            Mode::Region(body) => body.take_argument_piece(chunk)?,
            _ => return None,
        };
        self.bytes_fed += chunk.len();
        Some(index)
    }

    fn claim_id(&mut self, id: Option<String>) -> String {
        if let Some(id) = id {
            if self.seen_ids.insert(id.clone()) {
                return id;
            }
        }
        let id = generate_id();
        self.seen_ids.insert(id.clone());
        id
    }

    fn event<V>(&mut self, event: Event<V>, out: &mut Vec<Event<V>>) {
        self.flush(out);
        out.push(event);
    }

    /// Announces calls whose name is known and sends their argument bytes up to `safe`.
    pub(super) fn progress<V>(
        &mut self,
        text: &str,
        records: &[CallRecord],
        live: &mut LiveCalls,
        safe: usize,
        out: &mut Vec<Event<V>>,
    ) {
        if live.live.len() < records.len() {
            live.live.resize(records.len(), None);
        }
        for (r, record) in records.iter().enumerate().skip(live.from) {
            if live.live[r].is_none() {
                let Some(id) = record.ready.clone() else {
                    continue;
                };
                let index = self.next_index;
                self.next_index += 1;
                let id = self.claim_id(id);
                let name = record.name.clone().unwrap_or_default();
                self.event(
                    Event::CallStart {
                        index,
                        id: id.clone(),
                        name,
                    },
                    out,
                );
                live.live[r] = Some(Live {
                    index,
                    id,
                    name: record.name.clone(),
                    sent_to: record.args_start.unwrap_or(0),
                });
            }
            let Some(call) = live.live[r].as_mut() else {
                continue;
            };
            if let Some(start) = record.args_start {
                // A call may be announced before its arguments begin.
                call.sent_to = call.sent_to.max(start);
                let mut end = record.args_end.unwrap_or(safe.max(call.sent_to));
                // A scanner may stop inside a character of bad arguments: send whole
                // characters only (the rest goes with the next delta).
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                if end > call.sent_to {
                    let arguments = text[call.sent_to..end].to_owned();
                    let index = call.index;
                    call.sent_to = end;
                    self.event(Event::CallDelta { index, arguments }, out);
                }
            }
        }
        while live.from < records.len() {
            let record = &records[live.from];
            let done = record.closed
                && match &live.live[live.from] {
                    None => record.ready.is_none(),
                    Some(call) => record.args_end.is_none_or(|end| call.sent_to >= end),
                };
            if !done {
                break;
            }
            live.from += 1;
        }
    }

    /// Reports the decoded outcomes of a region: `CallEnd` (after a `CallStart` and the
    /// argument bytes, if not sent yet) or `Invalid`. Announced calls left without an outcome
    /// (a region that failed as a whole) become `Invalid` too.
    pub(super) fn emit_calls<V: JsonView>(
        &mut self,
        closing: Closing<'_, V>,
        out: &mut Vec<Event<V>>,
    ) {
        let Closing {
            text,
            records,
            live,
            outcomes,
            mapped,
            relative_to,
            at,
        } = closing;
        live.live.resize(records.len(), None);
        let first_live = live.live.iter().position(Option::is_some);
        let mut reported = vec![false; records.len()];
        // Where in `out` the last `Invalid` went (cloned only if an announced call needs it:
        // its `raw` may be the whole text).
        let mut last_invalid: Option<usize> = None;
        // Looked up once per outcome: a map, not a search (a region may hold 10⁵ calls).
        let mut record_of_item: HashMap<usize, usize> = HashMap::with_capacity(records.len());
        if mapped {
            for (r, record) in records.iter().enumerate() {
                record_of_item.entry(record.item).or_insert(r);
            }
        }
        let mut char_offsets = CharOffsets::new(text);
        for (k, outcome) in outcomes.into_iter().enumerate() {
            let r = if mapped {
                record_of_item.get(&k).copied()
            } else if k == 0 {
                first_live
            } else {
                None
            };
            if let Some(r) = r {
                reported[r] = true;
            }
            let record = r.map(|r| &records[r]);
            let announced = r.and_then(|r| live.live[r].clone());
            match outcome {
                Outcome::Call(mut call) => {
                    let (index, id) = match announced {
                        Some(mut call_live) => {
                            let end = record.and_then(|rec| rec.args_end).unwrap_or(0);
                            if let Some(start) = record.and_then(|rec| rec.args_start) {
                                call_live.sent_to = call_live.sent_to.max(start);
                            }
                            // Arguments the model did not write as JSON text (or not at all)
                            // are sent as the compact JSON of the decoded value.
                            let derived =
                                record.is_none_or(|rec| rec.derived || rec.args_start.is_none());
                            let arguments = if derived {
                                to_compact_json(&call.arguments)
                            } else if end > call_live.sent_to {
                                text[call_live.sent_to..end].to_owned()
                            } else {
                                String::new()
                            };
                            if !arguments.is_empty() {
                                self.event(
                                    Event::CallDelta {
                                        index: call_live.index,
                                        arguments,
                                    },
                                    out,
                                );
                            }
                            (call_live.index, call_live.id)
                        }
                        None => {
                            let index = self.next_index;
                            self.next_index += 1;
                            let id = self.claim_id(call.id.take());
                            self.event(
                                Event::CallStart {
                                    index,
                                    id: id.clone(),
                                    name: call.name.clone(),
                                },
                                out,
                            );
                            let arguments = match record.and_then(CallRecord::args_span) {
                                Some(span) => text[span].to_owned(),
                                None => to_compact_json(&call.arguments),
                            };
                            if !arguments.is_empty() {
                                self.event(Event::CallDelta { index, arguments }, out);
                            }
                            (index, id)
                        }
                    };
                    call.id = Some(id);
                    self.event(Event::CallEnd { index, call }, out);
                }
                Outcome::Invalid(mut invalid) => {
                    invalid.index = match &announced {
                        Some(call_live) => call_live.index,
                        None => {
                            self.next_index += 1;
                            self.next_index - 1
                        }
                    };
                    if invalid.name.is_none() {
                        invalid.name = record.and_then(|rec| rec.name.clone());
                    }
                    if let (Some(base), Some(byte)) = (relative_to, invalid.byte_offset) {
                        invalid.byte_offset = Some(base.bytes + byte);
                    }
                    invalid.offset = invalid.byte_offset.map(|byte| {
                        at.chars + char_offsets.char_offset(byte.saturating_sub(at.bytes))
                    });
                    self.event(Event::Invalid(*invalid), out);
                    last_invalid = Some(out.len() - 1);
                }
            }
        }
        for (r, call_live) in live.live.iter().enumerate() {
            let Some(call_live) = call_live else {
                continue;
            };
            if reported[r] {
                continue;
            }
            let last = last_invalid.and_then(|k| match &out[k] {
                Event::Invalid(invalid) => Some(invalid.clone()),
                _ => None,
            });
            let mut invalid = last.unwrap_or_else(|| Invalid {
                kind: crate::calls::FailureKind::Parse,
                protocol: Protocol::TextTagged,
                index: 0,
                raw: text.to_owned(),
                name: None,
                subject: "tool call cut off".to_owned(),
                detail: "the call's text was not complete".to_owned(),
                byte_offset: Some(at.bytes),
                line_column: None,
                offset: Some(at.chars),
            });
            invalid.index = call_live.index;
            invalid.name = records[r].name.clone();
            self.event(Event::Invalid(invalid), out);
        }
    }

    // ----- ~~~tool_call bodies ---------------------------------------------------------------

    /// Feeds a `~~~tool_call` body, line by line; returns how much of `input` it used.
    pub(super) fn fence<B>(
        &mut self,
        mut body: Box<FenceBody>,
        input: &str,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<usize, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let mut used = 0;
        while used < input.len() {
            let piece = next_line(&input[used..]);
            used += piece.len();
            body.body.push_str(piece);
            let (line_start, line_in_string) = (body.line_start, body.line_in_string);
            let mut verdict = FenceKind::None;
            if let Some(mut line) = body.line.take() {
                let decided = piece.bytes().find_map(|b| match line.step(b) {
                    Step::More => None,
                    Step::Done(kind, _) => Some(kind),
                });
                match decided {
                    Some(kind) => verdict = kind,
                    None => body.line = Some(line),
                }
            }
            if verdict != FenceKind::None {
                if !line_in_string || self.strings_run_to_end {
                    let line_end = body.body.len();
                    let rest =
                        self.close_fence(body, line_start, line_end, verdict, builder, out)?;
                    self.push(&rest, builder, out)?;
                    return Ok(used);
                }
                if body.string_fence.is_none() {
                    body.string_fence = Some((line_start, body.body.len(), verdict));
                }
            }
            while body.scanner.scan(&body.body) != Stop::End {}
            // Which lines may be fence lines is the batch scanner's rule (`"` strings only,
            // also with repair, where the call scanner reads `'` strings too).
            if body.quotes.line_ends(piece.as_bytes()) {
                body.line = Some(FenceLine::Indent);
                body.line_start = body.body.len();
                body.line_in_string = body.quotes.in_string();
            }
            let safe = if body.line.is_some() && (!body.line_in_string || self.strings_run_to_end) {
                body.line_start
            } else {
                body.scanner.pos
            };
            let mut live = mem::take(&mut body.live);
            self.progress(&body.body, &body.scanner.records, &mut live, safe, out);
            body.live = live;
        }
        self.mode = Mode::Fence(body);
        Ok(used)
    }

    /// Ends a block whose body ends at `end` with a fence line of `kind` ending at `line_end`;
    /// returns the text after the block that must be looked at again (an opening line that
    /// begins a new block, or what follows a fallback fence line at the end of the text).
    fn close_fence<B>(
        &mut self,
        mut body: Box<FenceBody>,
        end: usize,
        line_end: usize,
        kind: FenceKind,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<String, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let consumed = if kind == FenceKind::Open {
            end
        } else {
            line_end
        };
        let rest = body.body[consumed..].to_owned();
        self.pos = body.body_at.after(&body.body[..consumed]);
        body.body.truncate(end);
        self.at_line_start = true;
        if kind == FenceKind::Open {
            self.unterminated(body, out);
            return Ok(rest);
        }
        let what = TextPlace::FenceBlock(body.block);
        let context = TextCallContext {
            protocol: Protocol::TextTagged,
            what,
            text: &body.body,
            base: body.body_at.bytes,
        };
        let mut outcomes = Vec::new();
        let mapped =
            push_calls_of_text_parsed(builder, &context, self.options.json, &mut outcomes)?;
        let mut live = mem::take(&mut body.live);
        self.emit_calls(
            Closing {
                text: &body.body,
                records: &body.scanner.records,
                live: &mut live,
                outcomes,
                mapped,
                relative_to: None,
                at: body.body_at,
            },
            out,
        );
        Ok(rest)
    }

    /// The text ended inside a block.
    pub(super) fn finish_fence<B>(
        &mut self,
        body: Box<FenceBody>,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<String, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let mut body = body;
        if let Some(line) = body.line {
            let kind = line.at_end();
            if kind != FenceKind::None {
                if !body.line_in_string || self.strings_run_to_end {
                    let (start, end) = (body.line_start, body.body.len());
                    return self.close_fence(body, start, end, kind, builder, out);
                }
                if body.string_fence.is_none() {
                    body.string_fence = Some((body.line_start, body.body.len(), kind));
                }
            }
        }
        // No fence line outside a string: like the batch scanner, fall back to the first fence
        // line inside one, and from now on let fence lines end bodies whatever the strings.
        self.strings_run_to_end = true;
        if let Some((start, end, kind)) = body.string_fence {
            return self.close_fence(body, start, end, kind, builder, out);
        }
        self.pos = body.body_at.after(&body.body);
        self.unterminated(body, out);
        Ok(String::new())
    }

    /// Reports a block with no closing fence (§4.2): invalid, after the calls it announced.
    fn unterminated<V>(&mut self, mut body: Box<FenceBody>, out: &mut Vec<Event<V>>) {
        let mut raw = mem::take(&mut body.open_line);
        raw.push_str(&body.body);
        let first_live = body.live.live.iter().flatten().next().map(|l| l.index);
        let index = first_live.unwrap_or_else(|| {
            self.next_index += 1;
            self.next_index - 1
        });
        let mut invalid = unterminated_block(
            &TextPlace::FenceBlock(body.block),
            index,
            &raw,
            body.open_at.bytes,
        );
        invalid.offset = Some(body.open_at.chars);
        invalid.name = body.scanner.records.first().and_then(|r| r.name.clone());
        for call_live in body.live.live.iter().flatten() {
            let mut invalid = invalid.clone();
            invalid.index = call_live.index;
            invalid.name.clone_from(&call_live.name);
            self.event(Event::Invalid(invalid), out);
        }
        if first_live.is_none() {
            self.event(Event::Invalid(invalid), out);
        }
    }

    // ----- raw JSON ----------------------------------------------------------------------------

    /// Feeds a raw-JSON candidate; returns how much of `input` it used.
    pub(super) fn raw<B>(
        &mut self,
        mut body: Box<RawBody>,
        input: &str,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<usize, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let mut used = 0;
        while used < input.len() {
            let piece = next_line(&input[used..]);
            used += piece.len();
            body.body.push_str(piece);
            match body.kind {
                RawKind::Whole => loop {
                    match body.scanner.scan(&body.body) {
                        Stop::End => break,
                        Stop::Newline => {}
                        Stop::TopClosed => {
                            let excess = body.body.len() - body.scanner.pos;
                            let end = body.scanner.pos;
                            self.close_raw(body, end, end, builder, out)?;
                            return Ok(used - excess);
                        }
                        Stop::NotJson => {
                            self.release_raw(*body, builder, out)?;
                            return Ok(used);
                        }
                    }
                },
                RawKind::Fenced => {
                    if !piece.ends_with('\n') {
                        // Lines are looked at whole: the last one may be the closing fence.
                        continue;
                    }
                    if let Some(close) = json_fence_close(&body.body[body.line_start..]) {
                        let end = body.line_start + close;
                        let consumed = body.body.len();
                        self.close_raw(body, end, consumed, builder, out)?;
                        return Ok(used);
                    }
                    if self.fenced_not_json(&mut body, None) {
                        self.release_raw(*body, builder, out)?;
                        return Ok(used);
                    }
                    body.line_start = body.body.len();
                }
            }
        }
        self.mode = Mode::Raw(body);
        Ok(used)
    }

    /// Scans a fenced body up to `end` (its length by default); whether it is known not to be a
    /// call: it does not start with `{`/`[`, or holds a byte that cannot be JSON before anything
    /// that looks like a call.
    fn fenced_not_json(&mut self, body: &mut RawBody, end: Option<usize>) -> bool {
        let end = end.unwrap_or(body.body.len());
        if !body.scanner.started() {
            if let Some(first) = body.body[..end].trim_start().bytes().next() {
                if first != b'{' && first != b'[' {
                    return true;
                }
            }
        }
        loop {
            match body.scanner.scan(&body.body[..end]) {
                Stop::End => return false,
                Stop::NotJson => {
                    let call_like = body
                        .scanner
                        .records
                        .iter()
                        .any(|r| r.name.is_some() && r.args_start.is_some());
                    if call_like {
                        // Held to the closing fence, where it is reported as invalid.
                        body.scanner.pos = end;
                        return false;
                    }
                    return true;
                }
                Stop::Newline | Stop::TopClosed => {}
            }
        }
    }

    /// Decodes a candidate ending at `end` (`consumed` bytes of the body were used).
    pub(super) fn close_raw<B>(
        &mut self,
        mut body: Box<RawBody>,
        end: usize,
        consumed: usize,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let region = trimmed(&body.body, end);
        let what = match body.kind {
            RawKind::Whole => TextPlace::RawJson,
            RawKind::Fenced => {
                self.raw_blocks += 1;
                TextPlace::RawJsonFence(self.raw_blocks - 1)
            }
        };
        if body.kind == RawKind::Fenced {
            self.fenced_not_json(&mut body, Some(end));
        }
        let mut outcomes = Vec::new();
        raw_candidate(
            builder,
            &body.body,
            region,
            what,
            self.options.json,
            &mut outcomes,
        )?;
        if outcomes.is_empty() {
            // Not a call: the fence and its body are plain text.
            let mut text = mem::take(&mut body.prefix);
            text.push_str(&body.body[..consumed]);
            self.pos = body.at;
            self.text_out(&text, out);
            self.in_code = false;
            self.at_line_start = text.ends_with('\n');
            return Ok(());
        }
        self.pos = body.body_at.after(&body.body[..consumed]);
        let records = &body.scanner.records;
        let mapped =
            records.len() == outcomes.len() && records.iter().enumerate().all(|(k, r)| r.item == k);
        let mut live = LiveCalls::default();
        self.emit_calls(
            Closing {
                text: &body.body,
                records,
                live: &mut live,
                outcomes,
                mapped,
                relative_to: Some(body.body_at),
                at: body.body_at,
            },
            out,
        );
        self.at_line_start = body.body[..consumed].ends_with('\n');
        Ok(())
    }

    /// Gives a held candidate back as text, to be looked at again (a fenced one as code).
    fn release_raw<B>(
        &mut self,
        mut body: RawBody,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        self.pos = body.at;
        let prefix = mem::take(&mut body.prefix);
        self.text_out(&prefix, out);
        if body.kind == RawKind::Fenced {
            self.in_code = true;
            self.at_line_start = true;
        }
        self.push(&body.body, builder, out)
    }

    pub(super) fn finish_raw<B>(
        &mut self,
        mut body: Box<RawBody>,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<String, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        match body.kind {
            RawKind::Whole => {
                let end = body.body.len();
                self.close_raw(body, end, end, builder, out)?;
            }
            RawKind::Fenced => {
                if let Some(close) = json_fence_close(&body.body[body.line_start..]) {
                    let end = body.line_start + close;
                    let consumed = body.body.len();
                    self.close_raw(body, end, consumed, builder, out)?;
                } else {
                    // No closing fence: not a candidate (§4.3); the text stays text.
                    body.line_start = body.body.len();
                    self.release_raw(*body, builder, out)?;
                }
            }
        }
        Ok(String::new())
    }
}
