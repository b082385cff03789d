//! Region mode: a call region of an open-weight format, from its start marker (or, for the
//! markerless forms, from the start of the message). The group's machine
//! ([`crate::formats::grammar::Machine`]) finds names, argument bytes and the end of the
//! markup as the text grows; the region is then decoded once by the group's decoder
//! ([`crate::formats::decode_region`]), so every rule of the format lives there.
//!
//! A bare candidate (a message starting with `{` or `[`) is held until known: a bare object
//! that is not a Llama 3 call goes on to raw JSON, a `[` that is not a call list to raw JSON or
//! text.

use std::borrow::Cow;
use std::mem;

use crate::calls::Outcome;
use crate::formats::cursor::{Markers, Seek};
use crate::formats::grammar::{Machine, Open, Verdict};
use crate::formats::markers::{control_of, match_at, starts_of, Mask, Match, TABLE};
use crate::formats::{decode_region, AnyMachine, FormatOptions, FormatSet, Group, Place};
use crate::json::{JsonBuilder, JsonView};
use crate::scan::call_scan::CallRecord;
use crate::scan::find::find_either;
use crate::scan::think::CLOSES;

use super::emit::{Closing, LiveCalls};
use super::raw::{RawBody, RawKind};
use super::shared::Pos;
use super::{Ctx, Mode, Next};

pub(super) struct RegionBody {
    group: Group,
    /// The start marker it opened with (`None`: a bare message), and that marker's length.
    start: Option<usize>,
    marker_len: usize,
    /// Where the region starts in the input.
    at: Pos,
    /// The region's text, from its start marker, once it runs past the chunk it began in
    /// (until then it is read in the input, not copied).
    text: String,
    machine: AnyMachine,
    live: LiveCalls,
    /// Calls are announced before the region ends (not for held message-start candidates).
    announce: bool,
    in_think: bool,
    /// In a region opened inside a think span: the search for the span's close, which ends
    /// the region (a special token no call holds; the answer after it is no argument).
    think_close: Option<Seek>,
    next_starts: NextStarts,
    /// The slot in `live` of the call whose argument string the last input continued
    /// ([`take_argument_piece`](Self::take_argument_piece)), while nothing else has read the
    /// region since: the next chunk may continue it without the machine's records.
    continued: Option<usize>,
}

/// The tags that close a think span (any of them closes any span, as in text mode).
static THINK_CLOSES: Markers = Markers::new(&CLOSES);

/// The start markers of a region's group: a broken call ends at the next one, so argument bytes
/// that may begin one are held until the marker is known (the next chunk sends them if they
/// turn out to be arguments). The first bytes and the longest length make the look at a
/// chunk's end a few bit tests.
#[derive(Clone, Copy)]
struct NextStarts {
    mask: Mask,
    first_bytes: [u64; 4],
    longest: usize,
}

impl NextStarts {
    const NONE: Self = Self {
        mask: Mask::NONE,
        first_bytes: [0; 4],
        longest: 0,
    };

    fn of(mask: Mask) -> Self {
        let mut next = Self { mask, ..Self::NONE };
        for i in mask.entries() {
            let text = TABLE[i].text.as_bytes();
            next.first_bytes[usize::from(text[0] / 64)] |= 1 << (text[0] % 64);
            next.longest = next.longest.max(text.len());
        }
        next
    }

    /// `safe`, moved back to where a start marker that `text` ends inside begins.
    fn before_cut(&self, text: &str, safe: usize) -> usize {
        let bytes = text.as_bytes();
        (safe.saturating_sub(self.longest)..safe)
            .find(|&p| {
                self.first_bytes[usize::from(bytes[p] / 64)] & 1 << (bytes[p] % 64) != 0
                    && matches!(match_at(&bytes[p..], self.mask), Match::Partial)
            })
            .unwrap_or(safe)
    }
}

/// The length of the next piece of `input` for a region holding `held` bytes, on a character
/// boundary: a region copies its input into its own buffer, so it takes a piece no longer than
/// that buffer (at least 4 KiB), and one long chunk holding many short regions is copied once,
/// not once per region. The engine is chunk-invariant, so pieces change no result.
fn piece_len(input: &str, held: usize) -> usize {
    let mut end = input.len().min(held.max(4096));
    while !input.is_char_boundary(end) {
        end += 1;
    }
    end
}

impl RegionBody {
    /// The region opened by `group.starts()[start]`, the marker `held`: the input goes on with
    /// it when `in_input`, else it came in earlier chunks and is kept here.
    pub fn open<B: JsonBuilder>(
        group: Group,
        start: usize,
        held: &str,
        in_input: bool,
        cx: &Ctx<'_, B>,
    ) -> Box<Self> {
        let open = Open {
            formats: cx.options.formats,
            json: cx.options.json,
            track: cx.shared.events,
        };
        Box::new(Self {
            group,
            start: Some(start),
            marker_len: held.len(),
            at: cx.shared.pos,
            text: if in_input {
                String::new()
            } else {
                held.to_owned()
            },
            machine: group.open(Some(start), held.len(), open),
            live: LiveCalls::default(),
            announce: true,
            in_think: cx.shared.prose.in_think,
            think_close: cx.shared.prose.in_think.then(|| Seek::new(&THINK_CLOSES)),
            next_starts: NextStarts::of(starts_of(group.formats()) & cx.starts),
            continued: None,
        })
    }

    /// A message-start candidate of `group`'s markerless form.
    pub fn bare<B: JsonBuilder>(group: Group, cx: &Ctx<'_, B>) -> Box<Self> {
        let open = Open {
            formats: cx.options.formats,
            json: cx.options.json,
            track: cx.shared.events,
        };
        Box::new(Self {
            group,
            start: None,
            marker_len: 0,
            at: cx.shared.pos,
            text: String::new(),
            machine: group.open(None, 0, open),
            live: LiveCalls::default(),
            announce: false,
            in_think: false,
            think_close: None,
            next_starts: NextStarts::NONE,
            continued: None,
        })
    }

    /// [`super::StreamParser::feed_argument_piece`] in a region: takes `chunk` and returns the
    /// call's index when it only continues an argument string of an announced call.
    pub fn take_argument_piece(&mut self, chunk: &str) -> Option<usize> {
        if !self.announce || self.think_close.is_some() {
            return None;
        }
        let len = self.text.len();
        let r = match self.continued.take() {
            Some(r) => r,
            None => self.live.sending_slot(self.machine.records(), len)?,
        };
        if self.next_starts.before_cut(chunk, chunk.len()) < chunk.len() {
            return None;
        }
        let json = self.machine.reading_json()?;
        let was_escaped = json.escaped();
        if !json.skip_string_piece(len, chunk) {
            return None;
        }
        let call = self.live.live[r].as_mut()?;
        call.took_string_piece(chunk, json, was_escaped);
        self.text.push_str(chunk);
        self.continued = Some(r);
        Some(call.index)
    }

    /// Takes `chunk` when it only grows the region: the machine is searching for a marker that
    /// cannot start in it, so reading it would change nothing but the text (no call, no
    /// argument bytes, no end).
    pub fn skip_piece(&mut self, chunk: &str) -> bool {
        self.continued = None;
        // An empty text is a region that began in this chunk, read in the input.
        if self.text.is_empty()
            || self.think_close.is_some()
            || !self.machine.skip_piece(self.text.len(), chunk)
        {
            return false;
        }
        self.text.push_str(chunk);
        true
    }

    /// Feeds the region.
    pub fn feed<B>(&mut self, input: &str, cx: &mut Ctx<'_, B>) -> Result<Next, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        self.continued = None;
        // A region that began in this chunk is read in it; one that runs past it is copied
        // into its own buffer, a piece at a time no longer than that buffer (at least 4 KiB),
        // so that one long chunk holding many short regions is not copied once per region.
        let in_input = self.text.is_empty();
        let piece = if in_input {
            input
        } else {
            let piece = &input[..piece_len(input, self.text.len())];
            self.text.push_str(piece);
            piece
        };
        let old = if in_input {
            0
        } else {
            self.text.len() - piece.len()
        };
        let text = mem::take(&mut self.text);
        let view: &str = if in_input { piece } else { &text };
        // In a think span, the machine reads up to the span's close (or to where one may begin).
        let think_close = self.think_close.as_mut().map(|seek| {
            match seek.find(view.as_bytes(), self.marker_len) {
                Some(found) => (found.start, true),
                None => (seek.clear_to().min(view.len()), false),
            }
        });
        let upto = think_close.map_or(view.len(), |(at, _)| at);
        let mut verdict = self.machine.advance_with(&view[..upto], cx.tools);
        if let (Verdict::More, Some((at, true))) = (verdict, think_close) {
            verdict = Verdict::End(at);
        }
        let end = match verdict {
            Verdict::More => {
                if self.announce && cx.shared.events {
                    let safe = self.next_starts.before_cut(view, self.machine.safe());
                    let records = self.machine.records();
                    cx.shared
                        .progress(view, records, &mut self.live, safe, cx.out);
                }
                self.text = if in_input { piece.to_owned() } else { text };
                return Ok(Next::Stay(piece.len()));
            }
            Verdict::NotMine => return Ok(self.give_back(view, piece.len(), cx)),
            Verdict::End(end) | Verdict::Prose { end, .. } => end,
        };
        // What follows the region goes back to text mode; a region may end before this input
        // (at a marker split across chunks), then its tail is looked at again.
        let (used, rest) = if end >= old {
            (end - old, "")
        } else {
            (piece.len(), &view[end..])
        };
        let region = &view[..end];
        if region.is_empty() {
            // A message that did not begin after an implied marker: it is read on as text.
            cx.shared.pos = self.at;
            return Ok(Next::replay(used, rest.to_owned()));
        }
        if let Verdict::Prose { reasoning, .. } = verdict {
            self.open_message(region, reasoning, cx);
            return Ok(Next::replay(used, rest.to_owned()));
        }
        Ok(match self.close(region, cx)? {
            Some(Next::To(_, mode, mut replay)) => {
                // Raw JSON takes what the bare candidate gave back; the rest follows it.
                replay.push_str(rest);
                Next::To(used, mode, replay)
            }
            Some(Next::Stay(_)) => unreachable!("a closed region hands over"),
            None => Next::replay(used, rest.to_owned()),
        })
    }

    /// The text ended inside the region: its markup runs to the end. Returns what to look at
    /// again, and in which mode.
    pub fn finish<B>(&mut self, cx: &mut Ctx<'_, B>) -> Result<Option<(Mode, String)>, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let text = mem::take(&mut self.text);
        let next = if self.machine.undecided() {
            Some(self.give_back(&text, 0, cx))
        } else {
            self.close(&text, cx)?
        };
        Ok(next.map(|next| match next {
            Next::To(_, mode, replay) => (mode, replay),
            Next::Stay(_) => unreachable!("a finished region hands over"),
        }))
    }

    /// A harmony message that is not a call: drop its header, and read its body as content or
    /// reasoning until its end marker.
    fn open_message<B: JsonBuilder>(&mut self, header: &str, reasoning: bool, cx: &mut Ctx<'_, B>) {
        let shared = &mut *cx.shared;
        shared.flush(cx.out);
        shared.pos = self.at.after(header);
        shared.prose.message = Some((self.group, reasoning));
        if reasoning {
            shared.begin_reasoning(cx.out);
        }
        shared.after_markup(header);
    }

    /// Decodes the finished region with the group's decoder and reports its calls and prose.
    /// A bare candidate that decodes to no call hands over to raw JSON: the hand-over is
    /// returned.
    fn close<B>(&mut self, text: &str, cx: &mut Ctx<'_, B>) -> Result<Option<Next>, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        // Every call of the region is announced before the first one ends, whatever the
        // chunking (the region is decoded as a whole).
        let safe = self.machine.safe();
        if self.announce && cx.shared.events {
            let records = self.machine.records();
            cx.shared
                .progress(text, records, &mut self.live, safe, cx.out);
        }
        let first_index = self.live.first_index();
        let options = FormatOptions {
            json: cx.options.json,
            tools: cx.tools,
            calls_in_reasoning: cx.options.calls_in_reasoning,
        };
        let decoded = decode_region(
            cx.builder,
            text,
            self.group,
            cx.options.formats,
            options,
            Place {
                in_think: self.in_think,
                first_index: first_index.unwrap_or(cx.shared.peek_index()),
                collect_text: cx.shared.events,
            },
        )?;
        if !self.announce && decoded.outcomes.is_empty() {
            return self.not_mine(text, cx).map(Some);
        }
        // A calls-only parse did not record the calls while reading; a failure needs them (its
        // call's name, one failure per call begun), so the region is read again, recording.
        let failed = decoded
            .outcomes
            .iter()
            .any(|o| matches!(o, Outcome::Invalid(_)));
        let tracked = (!cx.shared.events && failed).then(|| self.tracked(text, cx));
        let records = tracked.as_deref().unwrap_or(self.machine.records());
        if !self.announce || !cx.shared.events {
            cx.shared
                .progress(text, records, &mut self.live, safe, cx.out);
        }
        let shared = &mut *cx.shared;
        shared.emit_calls(
            Closing {
                text,
                records,
                live: &mut self.live,
                outcomes: decoded.outcomes,
                mapped: true,
                relative_to: Some(self.at),
                at: self.at,
            },
            cx.out,
        );
        let content = without_control(&decoded.content, cx.options.formats);
        shared.prose_out(&content, self.in_think, cx.out);
        if let Some(reasoning) = decoded.reasoning {
            shared.prose_out(&reasoning, true, cx.out);
        }
        shared.pos = self.at.after(text);
        shared.after_markup(text);
        let group = self.group;
        shared.prose.header_next = group.next_header_after(text).then_some(group);
        Ok(None)
    }

    /// The calls of the region `text`, read again by a machine that records them.
    fn tracked<B: JsonBuilder>(&self, text: &str, cx: &Ctx<'_, B>) -> Vec<CallRecord> {
        let open = Open {
            formats: cx.options.formats,
            json: cx.options.json,
            track: true,
        };
        let mut machine = self.group.open(self.start, self.marker_len, open);
        machine.advance_with(text, cx.tools);
        machine.records().to_vec()
    }

    /// A bare candidate that is not its format: its first value goes to raw JSON (when enabled)
    /// or is text, whole (markers inside a JSON message sit in its strings), and what follows
    /// is looked at again. A candidate whose value never began is given back.
    fn not_mine<B>(&mut self, text: &str, cx: &mut Ctx<'_, B>) -> Result<Next, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let Some(first_end) = self.machine.raw_value_end(text.len()) else {
            return Ok(self.give_back(text, 0, cx));
        };
        let value = &text[..first_end];
        if cx.options.raw_json.is_some() {
            RawBody::close_value(value, self.at, cx)?;
        } else {
            cx.shared.pos = self.at;
            cx.shared.text_out(value, cx.out);
        }
        Ok(Next::To(0, Mode::Text, text[first_end..].to_owned()))
    }

    /// Gives the candidate's text back: a bare one to raw JSON (which reads it, or keeps a JSON
    /// value whole as text), else to text.
    fn give_back<B: JsonBuilder>(&mut self, text: &str, used: usize, cx: &mut Ctx<'_, B>) -> Next {
        cx.shared.pos = self.at;
        if !self.announce {
            let raw = RawBody::new(RawKind::Whole, String::new(), cx);
            return Next::To(used, Mode::Raw(raw), text.to_owned());
        }
        Next::To(used, Mode::Text, text.to_owned())
    }
}

/// The content a region's decoder gave back, without the control tokens of `formats`: text mode
/// drops them wherever they stand outside a call, and a region that ran past its call's close
/// (a value whose closing tag was left out) holds what follows, `<|im_end|>` too.
fn without_control(content: &str, formats: FormatSet) -> Cow<'_, str> {
    let (bytes, control) = (content.as_bytes(), control_of(formats));
    let (mut kept, mut from, mut pos) = (String::new(), 0, 0);
    while let Some(i) = find_either(b'<', b'[', &bytes[pos..]) {
        let at = pos + i;
        pos = at + 1;
        if let Match::Found(entry) = match_at(&bytes[at..], control) {
            kept.push_str(&content[from..at]);
            from = at + TABLE[entry].text.len();
            pos = from;
        }
    }
    if from == 0 {
        return Cow::Borrowed(content);
    }
    kept.push_str(&content[from..]);
    Cow::Owned(kept)
}
