//! The call events of a region: announcing calls whose name is known and forwarding their
//! argument bytes while the region grows ([`Shared::progress`]), then reporting what the
//! region decoded to ([`Shared::emit_calls`]).

use std::collections::{BTreeMap, HashMap};

use crate::calls::{FailureKind, Invalid, Outcome, Protocol};
use crate::json::{to_compact_json, JsonView, StrictPieces};
use crate::position::CharOffsets;
use crate::scan::call_scan::{CallRecord, CallScanner};

use super::shared::{Pos, Shared};
use super::Event;

/// A call announced with `CallStart`.
#[derive(Clone, Debug)]
pub(super) struct Live {
    pub index: usize,
    /// `None` in a calls-only parse, which leaves ids to its caller.
    pub id: Option<String>,
    pub name: Option<String>,
    /// Argument bytes sent so far end here (offset in the region's text).
    pub sent_to: usize,
    /// Where the argument text resumes at `sent_to`: raw control characters in its strings
    /// are sent escaped, so that the deltas join to strict JSON.
    pub pieces: StrictPieces,
}

impl Live {
    /// Moves past `chunk`, sent whole by a fast path after `scanner` took it inside a string
    /// from the escape state `was_escaped` (so it holds no closing quote and no control
    /// character). Pieces standing in the same `"` string only take the scanner's new escape
    /// state; others (a `'` string in repair mode) read the chunk, which they leave as it is.
    pub fn took_string_piece(&mut self, chunk: &str, scanner: &CallScanner, was_escaped: bool) {
        if scanner.quote() == b'"' && self.pieces == StrictPieces::in_string(was_escaped) {
            self.pieces = StrictPieces::in_string(scanner.escaped());
        } else {
            self.read_piece(chunk);
        }
        self.sent_to += chunk.len();
    }

    #[cold]
    #[inline(never)]
    fn read_piece(&mut self, chunk: &str) {
        self.pieces.next(chunk);
    }
}

/// Live progress of the calls of one region.
#[derive(Debug, Default)]
pub(super) struct LiveCalls {
    pub live: Vec<Option<Live>>,
    /// Records before this one are finished (ended, or announced with all arguments sent).
    from: usize,
    /// Indices taken for the items before an announced call that were not announced (a broken
    /// call the machine found no name for), by item: their outcomes take them later, so indices
    /// follow the calls' order in the text, not the order they were reported in.
    reserved: BTreeMap<usize, usize>,
    /// Items below this one have an index: announced, or reserved.
    indexed_items: usize,
}

impl LiveCalls {
    /// The announced call whose argument bytes are being sent, when all of a text of `len`
    /// bytes is sent: that of the last record, open, with its arguments begun and not ended.
    pub fn sending_all<'a>(
        &'a mut self,
        records: &[CallRecord],
        len: usize,
    ) -> Option<&'a mut Live> {
        let r = self.sending_slot(records, len)?;
        self.live[r].as_mut()
    }

    /// The slot in `live` of the call [`sending_all`](Self::sending_all) finds.
    pub fn sending_slot(&self, records: &[CallRecord], len: usize) -> Option<usize> {
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
            .get(r)?
            .as_ref()
            .filter(|call| call.sent_to == len)
            .map(|_| r)
    }

    /// Whether a call was announced or an index reserved.
    pub fn any_numbered(&self) -> bool {
        !self.reserved.is_empty() || self.live.iter().any(Option::is_some)
    }

    /// The items not announced before an announced call, with the indices reserved for them.
    pub fn reserved(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.reserved.iter().map(|(&item, &index)| (item, index))
    }

    /// The index of the first call announced (or reserved), if any.
    pub fn first_index(&self) -> Option<usize> {
        let announced = self.live.iter().flatten().map(|l| l.index);
        announced.chain(self.reserved.values().copied()).min()
    }
}

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

impl Shared {
    /// Announces calls whose name is known and sends their argument bytes up to `safe`.
    pub fn progress<V>(
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
                // Items before this call that have no index yet take theirs first.
                for item in live.indexed_items..record.item {
                    let index = self.take_index();
                    live.reserved.insert(item, index);
                }
                live.indexed_items = live.indexed_items.max(record.item + 1);
                let index = match live.reserved.remove(&record.item) {
                    Some(index) => index,
                    None => self.take_index(),
                };
                let id = self.claim_id(id);
                if let Some(id) = id.clone().filter(|_| self.events) {
                    let name = record.name.clone().unwrap_or_default();
                    self.event(Event::CallStart { index, id, name }, out);
                }
                live.live[r] = Some(Live {
                    index,
                    id,
                    name: record.name.clone(),
                    sent_to: record.args_start.unwrap_or(0),
                    pieces: StrictPieces::default(),
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
                    let (index, from) = (call.index, call.sent_to);
                    call.sent_to = end;
                    if self.events {
                        let arguments = call.pieces.next(&text[from..end]).into_owned();
                        self.event(Event::CallDelta { index, arguments }, out);
                    }
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
    pub fn emit_calls<V: JsonView>(&mut self, closing: Closing<'_, V>, out: &mut Vec<Event<V>>) {
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
        // Announced calls no outcome has reported yet.
        let mut unreported = live.live.iter().flatten().count();
        // The last `Invalid` sent (cloned only if an announced call needs it: its `raw` may
        // be the whole text).
        let mut last_invalid: Option<Invalid> = None;
        // Looked up once per outcome: a map, not a search (a region may hold 10⁵ calls).
        let mut record_of_item: HashMap<usize, usize> = HashMap::new();
        if mapped && records.len() > 1 {
            for (r, record) in records.iter().enumerate() {
                record_of_item.entry(record.item).or_insert(r);
            }
        }
        let mut char_offsets = CharOffsets::new(text);
        for (k, outcome) in outcomes.into_iter().enumerate() {
            let r = if mapped {
                match records {
                    [only] => (only.item == k).then_some(0),
                    _ => record_of_item.get(&k).copied(),
                }
            } else if k == 0 {
                first_live
            } else {
                None
            };
            if let Some(r) = r {
                if !reported[r] && live.live[r].is_some() {
                    unreported -= 1;
                }
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
                            if self.events {
                                // Arguments the model did not write as JSON text (or not at
                                // all) are sent as the compact JSON of the decoded value.
                                let derived = record
                                    .is_none_or(|rec| rec.derived || rec.args_start.is_none());
                                let arguments = if derived {
                                    to_compact_json(&call.arguments)
                                } else if end > call_live.sent_to {
                                    let from = call_live.sent_to;
                                    call_live.pieces.next(&text[from..end]).into_owned()
                                } else {
                                    String::new()
                                };
                                if !arguments.is_empty() {
                                    let index = call_live.index;
                                    self.event(Event::CallDelta { index, arguments }, out);
                                }
                            }
                            (call_live.index, call_live.id.or(call.id.take()))
                        }
                        None => {
                            let index = self.unannounced_index(live, mapped.then_some(k));
                            let id = self.claim_id(call.id.take());
                            if let Some(id) = id.clone().filter(|_| self.events) {
                                let name = call.name.clone();
                                self.event(Event::CallStart { index, id, name }, out);
                                let arguments = match record.and_then(CallRecord::args_span) {
                                    Some(span) => {
                                        StrictPieces::default().next(&text[span]).into_owned()
                                    }
                                    None => to_compact_json(&call.arguments),
                                };
                                if !arguments.is_empty() {
                                    self.event(Event::CallDelta { index, arguments }, out);
                                }
                            }
                            (index, id)
                        }
                    };
                    call.id = id;
                    self.event(Event::CallEnd { index, call }, out);
                }
                Outcome::Invalid(mut invalid) => {
                    invalid.index = match &announced {
                        Some(call_live) => call_live.index,
                        None => self.unannounced_index(live, mapped.then_some(k)),
                    };
                    if invalid.name.is_none() {
                        invalid.name = record.and_then(|rec| rec.name.clone());
                    }
                    if let (Some(base), Some(byte)) = (relative_to, invalid.byte_offset) {
                        invalid.byte_offset = Some(base.bytes + byte);
                    }
                    invalid.offset = at.chars().and_then(|chars| {
                        let byte = invalid.byte_offset?;
                        Some(chars + char_offsets.char_offset(byte.saturating_sub(at.bytes)))
                    });
                    if unreported > 0 {
                        last_invalid = Some((*invalid).clone());
                    }
                    self.event(Event::Invalid(*invalid), out);
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
            let mut invalid = last_invalid.clone().unwrap_or_else(|| Invalid {
                kind: FailureKind::Parse,
                protocol: Protocol::TextTagged,
                index: 0,
                raw: text.to_owned(),
                name: None,
                subject: "tool call cut off".to_owned(),
                detail: "the call's text was not complete".to_owned(),
                byte_offset: Some(at.bytes),
                line_column: None,
                offset: at.chars(),
            });
            invalid.index = call_live.index;
            invalid.name = records[r].name.clone();
            self.event(Event::Invalid(invalid), out);
        }
    }

    /// The index of an outcome no call was announced for: the one reserved for its item (`k`,
    /// when outcomes map to items), else the first one reserved, else the next.
    fn unannounced_index(&mut self, live: &mut LiveCalls, item: Option<usize>) -> usize {
        let reserved = match item.and_then(|k| live.reserved.remove(&k)) {
            Some(index) => Some(index),
            None => live.reserved.pop_first().map(|(_, index)| index),
        };
        reserved.unwrap_or_else(|| self.take_index())
    }
}
