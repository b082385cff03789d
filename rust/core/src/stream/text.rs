//! Text mode: plain text and think spans. Only bytes that may start something are looked at (a
//! `memchr` jump to the next line end or marker byte). A marker is matched against the
//! registry's table where the whole of it has arrived; one cut by the end of a chunk is held
//! (at most the longest marker) and matched again when more comes. Fence lines
//! (`~~~tool_call`, ```` ``` ````) are recognised byte by byte by the small machines of
//! [`super::lines`], so held text is never re-scanned.

use std::mem;

use crate::formats::markers::{self, match_at, Mask, Match, Role, TABLE};
use crate::formats::{bare_group, implied_groups, Group};
use crate::json::{JsonBuilder, JsonView};
use crate::scan::fence::{indent_len, LEADING_BOM};

use super::fence::FenceBody;
use super::lines::{CodeAction, CodeClose, CodeFence, FenceKind, FenceLine, Step};
use super::raw::{RawBody, RawKind};
use super::region::RegionBody;
use super::{Ctx, Mode, Next};

/// Something that may begin at the current byte, not decided yet.
#[derive(Clone, Copy, Debug)]
enum Candidate {
    /// A tilde line: a `~~~tool_call` opening line when `blocks` (else a code fence), or a
    /// code fence of another info string.
    Fence {
        line: FenceLine,
        blocks: bool,
    },
    /// A marker of this mask, cut by the end of a chunk.
    Marker(Mask),
    /// A message-start `[` cut by the end of a chunk inside a marker of this mask (`[TOOL`):
    /// the marker, or else a JSON value that begins the message ([`message_value`]).
    MessageStart(Mask),
    Code(CodeFence),
    /// A line in a code block that may close it.
    CodeClose(CodeClose),
}

/// What a decided candidate is.
enum Resolved {
    /// Not anything: release the first character as text and look again after it.
    Fail,
    /// Release the held text as text, without looking at it again.
    Plain {
        toggle_code: bool,
    },
    OpenFence,
    /// `TABLE[i]`.
    Marker(usize),
    JsonFence,
}

/// The state of text mode between chunks.
#[derive(Default)]
pub(super) struct Text {
    candidate: Option<Candidate>,
    /// Bytes of the candidate that came in earlier chunks.
    pending: String,
}

impl Text {
    /// Reads text; returns how much of `input` it used and the mode a marker opened. Its first
    /// `plain` bytes are known to be text ([`plain_len`](Self::plain_len)): the search for
    /// where something may begin resumes after them.
    pub fn feed<B>(
        &mut self,
        input: &str,
        plain: usize,
        cx: &mut Ctx<'_, B>,
    ) -> Result<Next, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let bytes = input.as_bytes();
        let mut i = 0;
        if let Some(candidate) = self.candidate.take() {
            match self.continue_candidate(candidate, input, cx) {
                Continued::Held => return Ok(Next::Stay(input.len())),
                Continued::Replay(used, replay) => return Ok(Next::replay(used, replay)),
                Continued::Opened(used, mode) => return Ok(Next::switch(used, mode)),
                Continued::Reopened(mode, held) => return Ok(Next::To(0, mode, held)),
                Continued::Decided(used) => i = used,
            }
        }
        let mut run_start = i;
        i += plain;
        while i < bytes.len() {
            let prose = &cx.shared.prose;
            if !(prose.at_line_start || prose.header_next.is_some() || cx.whole_eligible()) {
                match cx.next_stop(&bytes[i..]) {
                    Some(found) => i += found,
                    None => break,
                }
            }
            let b = bytes[i];
            // A line ends at `\n`, `\r\n` or a lone `\r` (after `\r\n`, both bytes leave the
            // next one at a line start).
            if b == b'\n' || b == b'\r' {
                cx.shared.prose.at_line_start = true;
                i += 1;
                continue;
            }
            let mut start = None;
            let line_start = cx.shared.prose.at_line_start;
            if line_start {
                match b {
                    b' ' | b'\t' => {
                        i += 1;
                        continue;
                    }
                    // A byte order mark at the very start pads the first line, as in
                    // `scan::fence`.
                    0xEF if cx.shared.pos.bytes + i == 0 && input.starts_with(LEADING_BOM) => {
                        cx.shared.prose.message_started = true;
                        i += LEADING_BOM.len();
                        continue;
                    }
                    // Invisible indentation before a fence, as in `scan::fence` (a chunk of
                    // text holds whole characters).
                    0x80.. if indent_len(&bytes[i..]) > 0 => {
                        cx.shared.prose.message_started = true;
                        i += indent_len(&bytes[i..]);
                        continue;
                    }
                    b'~' | b'`' if cx.shared.prose.in_code => {
                        let (fence, run) = cx.shared.prose.code_fence;
                        if b == fence {
                            start = Some(Candidate::CodeClose(CodeClose::new(fence, run)));
                        }
                    }
                    b'~' => {
                        start = Some(Candidate::Fence {
                            line: FenceLine::START,
                            blocks: cx.fences_allowed(),
                        });
                    }
                    b'`' => {
                        let json = !cx.shared.prose.in_code && cx.json_fence_allowed();
                        let blocks = cx.fences_allowed();
                        start = Some(Candidate::Code(CodeFence::new(json, blocks)));
                    }
                    _ => {}
                }
                cx.shared.prose.at_line_start = false;
            }
            if start.is_none() {
                let eligible = cx.whole_eligible();
                // After a message whose group's next one may begin with its header alone, that
                // group's message-start markers, until the first byte that is not blank space.
                let header_next = cx.shared.prose.header_next;
                if !matches!(b, b' ' | b'\t') {
                    cx.shared.prose.header_next = None;
                }
                let anchors = match header_next {
                    Some(group) if !eligible => {
                        cx.starts & markers::ANCHORED & markers::starts_of(group.formats())
                    }
                    _ if eligible => cx.starts & markers::ANCHORED,
                    _ => Mask::NONE,
                };
                // A message that may begin after a marker the generation prompt wrote.
                // Each implied-start group is tried once, in registry order: one that gives
                // the text back leaves it to the next.
                let tried = cx.shared.prose.implied_tried;
                let implied = eligible
                    .then(|| implied_groups(b, cx.options.formats).nth(tried))
                    .flatten();
                if let Some(group) = implied {
                    cx.shared.prose.implied_tried += 1;
                    cx.shared.text_out(&input[run_start..i], cx.out);
                    cx.shared.flush(cx.out);
                    let region = RegionBody::open(group, 0, "", true, cx);
                    return Ok(Next::switch(i, Mode::Region(region)));
                }
                let stop = b == b'<'
                    || (b == b'[' && !eligible)
                    || (line_start && markers::opens_lines(b, cx.starts))
                    || cx.message_stop() == Some(b);
                // A marker that only opens a call at the start of a message.
                let anchored = !anchors.is_empty() && !matches!(b, b'{' | b'[' | b' ' | b'\t');
                if stop || anchored {
                    // A marker may begin a few bytes before its `<` (`markers::lead_len`).
                    let from = if stop {
                        markers::lead_start(bytes, i, run_start)
                    } else {
                        i
                    };
                    cx.shared.text_out(&input[run_start..from], cx.out);
                    run_start = from;
                    // After the prose before it is released: its code spans count.
                    let mask = if stop { cx.marker_mask() } else { anchors };
                    let (at, found) = markers::match_from(bytes, from, i, mask);
                    if at > from {
                        cx.shared.text_out(&input[from..at], cx.out);
                        run_start = at;
                    }
                    i = at;
                    match found {
                        Match::Found(entry) => {
                            let held = &input[i..i + markers::found_len(&bytes[i..], entry)];
                            if let Some(mode) =
                                self.resolve(Resolved::Marker(entry), held, true, cx)
                            {
                                // A region reads its marker from the input itself.
                                return Ok(Next::switch(i, mode));
                            }
                            i += held.len();
                            run_start = i;
                            continue;
                        }
                        Match::Partial => start = Some(Candidate::Marker(mask)),
                        Match::None => {
                            if !cx.shared.prose.in_think {
                                cx.shared.prose.message_started = true;
                            }
                        }
                    }
                } else if eligible && (b == b'{' || b == b'[') {
                    cx.shared.text_out(&input[run_start..i], cx.out);
                    cx.shared.flush(cx.out);
                    cx.shared.prose.message_started = true;
                    // A marker whole at the message start (`[TOOL_CALLS]`, `[THINK]`) is read
                    // at once: no bare form begins with one, so a bare candidate would only give
                    // it back (through raw JSON) to be matched here again, and in repair mode
                    // the lenient scanner would read it as a JSON list. One cut by the chunk
                    // waits for the rest, as the whole text would.
                    let mask = cx.marker_mask();
                    match match_at(&bytes[i..], mask) {
                        Match::Found(entry) => {
                            let held = &input[i..i + markers::found_len(&bytes[i..], entry)];
                            if let Some(mode) =
                                self.resolve(Resolved::Marker(entry), held, true, cx)
                            {
                                return Ok(Next::switch(i, mode));
                            }
                            i += held.len();
                            run_start = i;
                            continue;
                        }
                        Match::Partial => {
                            self.candidate = Some(Candidate::MessageStart(mask));
                            self.pending.clear();
                            self.pending.push_str(&input[i..]);
                            return Ok(Next::Stay(input.len()));
                        }
                        Match::None => return Ok(Next::switch(i, message_value(b, cx))),
                    }
                } else if !cx.shared.prose.in_think && !matches!(b, b' ' | b'\t') {
                    cx.shared.prose.message_started = true;
                }
            }
            if let Some(candidate) = start {
                cx.shared.text_out(&input[run_start..i], cx.out);
                match self.start_candidate(candidate, &input[i..], cx) {
                    Continued::Held => return Ok(Next::Stay(input.len())),
                    Continued::Replay(used, replay) => return Ok(Next::replay(i + used, replay)),
                    Continued::Opened(used, mode) => return Ok(Next::switch(i + used, mode)),
                    Continued::Reopened(mode, held) => return Ok(Next::To(i, mode, held)),
                    Continued::Decided(used) => {
                        i += used;
                        run_start = i;
                        continue;
                    }
                }
            }
            i += 1;
        }
        // A chunk that ends with the lead of a marker (`]`) holds it for the next one.
        let tail = markers::lead_tail(&bytes[run_start..], cx.starts);
        if tail > 0 {
            let at = bytes.len() - tail;
            cx.shared.text_out(&input[run_start..at], cx.out);
            run_start = at;
            let mask = cx.marker_mask();
            if markers::lead_tail(&bytes[at..], mask) == tail {
                self.candidate = Some(Candidate::Marker(mask));
                self.pending.clear();
                self.pending.push_str(&input[at..]);
                return Ok(Next::Stay(input.len()));
            }
        }
        cx.shared.text_out(&input[run_start..], cx.out);
        Ok(Next::Stay(input.len()))
    }

    /// How many leading bytes of `input` are text as they stand (what [`feed`](Self::feed)
    /// finds at its first look): none while a candidate is held, at a line start or where a
    /// message may begin; else those before the first byte where something may begin, or
    /// before a trailing marker lead (`]`) that the next chunk may complete. The usual chunk of
    /// prose is all of it.
    pub fn plain_len<B: JsonBuilder>(&self, input: &str, cx: &Ctx<'_, B>) -> usize {
        let prose = &cx.shared.prose;
        if self.candidate.is_some()
            || prose.at_line_start
            || prose.header_next.is_some()
            || cx.whole_eligible()
        {
            return 0;
        }
        let bytes = input.as_bytes();
        cx.next_stop(bytes)
            .unwrap_or_else(|| bytes.len() - markers::lead_tail(bytes, cx.starts))
    }

    /// Steps a new candidate through `rest` (the input from its first byte).
    fn start_candidate<B: JsonBuilder>(
        &mut self,
        candidate: Candidate,
        rest: &str,
        cx: &mut Ctx<'_, B>,
    ) -> Continued {
        self.pending.clear();
        self.continue_candidate(candidate, rest, cx)
    }

    /// Steps a candidate (whose earlier bytes are in `pending`) through `input`.
    fn continue_candidate<B: JsonBuilder>(
        &mut self,
        candidate: Candidate,
        input: &str,
        cx: &mut Ctx<'_, B>,
    ) -> Continued {
        let earlier = self.pending.len();
        let (resolved, used) = match candidate {
            Candidate::Marker(_) | Candidate::MessageStart(_) => {
                let (Candidate::Marker(mask) | Candidate::MessageStart(mask)) = candidate else {
                    unreachable!("matched above")
                };
                // The held bytes and as much of the input as the longest marker needs.
                let mut take = markers::LONGEST.saturating_sub(earlier).min(input.len());
                while !input.is_char_boundary(take) {
                    take += 1;
                }
                self.pending.push_str(&input[..take]);
                let found = match_at(self.pending.as_bytes(), mask);
                if let (Candidate::MessageStart(_), Match::None) = (candidate, found) {
                    // Not a marker: the message begins with a JSON value.
                    let mut held = mem::take(&mut self.pending);
                    held.truncate(earlier);
                    return Continued::Reopened(message_value(held.as_bytes()[0], cx), held);
                }
                match found {
                    // A think tag's token held for the tag it might begin may have ended in
                    // the earlier bytes (`<|channel>` + `x`): none of the input is used.
                    Match::Found(entry) => (
                        Resolved::Marker(entry),
                        markers::found_len(self.pending.as_bytes(), entry).saturating_sub(earlier),
                    ),
                    Match::Partial => {
                        self.candidate = Some(candidate);
                        return Continued::Held;
                    }
                    Match::None => (Resolved::Fail, 0),
                }
            }
            Candidate::Fence { .. } | Candidate::Code(_) | Candidate::CodeClose(_) => {
                let mut candidate = candidate;
                let bytes = input.as_bytes();
                let mut i = 0;
                let mut decided = None;
                while i < bytes.len() {
                    match candidate.step(bytes[i]) {
                        Step::More => i += 1,
                        Step::Done(resolved, consumed) => {
                            i += usize::from(consumed);
                            // Markers are matched byte by byte: one may part from the text
                            // inside a character, which then belongs to the candidate whole.
                            while !input.is_char_boundary(i) {
                                i += 1;
                            }
                            decided = Some(resolved);
                            break;
                        }
                    }
                }
                let Some(resolved) = decided else {
                    self.candidate = Some(candidate);
                    self.pending.push_str(input);
                    return Continued::Held;
                };
                (resolved, i)
            }
        };
        // The candidate's bytes: copied only when some came in earlier chunks.
        let mut joined = mem::take(&mut self.pending);
        let held: &str = if earlier == 0 {
            &input[..used]
        } else {
            joined.truncate(earlier);
            joined.push_str(&input[..used]);
            &joined
        };
        let failed = matches!(resolved, Resolved::Fail);
        let decided = match resolved {
            Resolved::Marker(entry) => markers::found_len(held.as_bytes(), entry),
            _ => held.len(),
        };
        if let Some(mode) = self.resolve(resolved, &held[..decided], false, cx) {
            return Continued::Opened(used, mode);
        }
        if decided < held.len() {
            return Continued::Replay(used, held[decided..].to_owned());
        }
        if !failed {
            return Continued::Decided(used);
        }
        // Only the first character was text: the rest is looked at again, the bytes of earlier
        // chunks replayed, then the input from its start.
        let first = held.chars().next().map_or(0, char::len_utf8);
        if earlier == 0 {
            Continued::Decided(first)
        } else {
            Continued::Replay(0, held[first..earlier].to_owned())
        }
    }

    /// Acts on a decided candidate whose bytes are `held`; returns the mode it opens. A region
    /// whose marker is still in the input (`in_input`) is given it there, not copied.
    fn resolve<B: JsonBuilder>(
        &mut self,
        resolved: Resolved,
        held: &str,
        in_input: bool,
        cx: &mut Ctx<'_, B>,
    ) -> Option<Mode> {
        let shared = &mut *cx.shared;
        match resolved {
            Resolved::Fail => {
                let first = held.chars().next().map_or(0, char::len_utf8);
                shared.text_out(&held[..first], cx.out);
                if !shared.prose.in_think {
                    shared.prose.message_started = true;
                }
                None
            }
            Resolved::Plain { toggle_code: false } => {
                shared.text_out(held, cx.out);
                None
            }
            Resolved::Plain { toggle_code: true } => {
                if shared.prose.in_code {
                    shared.close_code(held, cx.out);
                } else {
                    shared.open_code(held, cx.out);
                }
                // A lone `\r` that ended the fence line was taken with it.
                shared.prose.at_line_start = held.ends_with(['\n', '\r']);
                None
            }
            Resolved::Marker(entry) => {
                shared.flush(cx.out);
                let dropped = shared
                    .prose
                    .message
                    .is_some_and(|(group, _)| markers::dropped_in_prose_of(group, entry));
                if dropped {
                    shared.pos = shared.pos.after(held);
                    return None;
                }
                match TABLE[entry].role {
                    Role::ThinkOpen => {
                        shared.pos = shared.pos.after(held);
                        shared.prose.in_think = true;
                        shared.prose.saw_think = true;
                        shared.begin_reasoning(cx.out);
                        None
                    }
                    Role::ThinkClose if shared.prose.in_think => {
                        shared.pos = shared.pos.after(held);
                        shared.end_think();
                        None
                    }
                    // An unopened closing tag after content (or a call), before any think
                    // span: the span began in the prompt, and its text was sent as content; the
                    // tag stays, to show where the answer begins. Any other is a stray token,
                    // dropped (one that a bare-JSON candidate gave back, `[/THINK]`, too).
                    Role::ThinkClose
                        if (shared.prose.content_seen || shared.peek_index() > 0)
                            && !shared.prose.saw_think =>
                    {
                        shared.text_out(held, cx.out);
                        None
                    }
                    Role::ProseEnd => {
                        shared.pos = shared.pos.after(held);
                        shared.prose.message = None;
                        // A code span the message left open ends with it.
                        shared.prose.spans.reset();
                        // The end is one marker for the groups that list it: the one whose
                        // next message may follow it with a header alone, if any.
                        shared.prose.header_next = Group::ALL
                            .iter()
                            .copied()
                            .find(|g| g.next_header_after(held));
                        None
                    }
                    // Before any text, a closing tag ends the span the prompt began, empty
                    // (MiniMax-M3 starts a turn without reasoning so); after a span, it is a
                    // stray token. Dropped either way.
                    Role::ThinkClose => {
                        shared.pos = shared.pos.after(held);
                        shared.prose.saw_think = true;
                        None
                    }
                    Role::Control => {
                        shared.pos = shared.pos.after(held);
                        if shared.prose.in_think && markers::THINK_ENDS.has(entry) {
                            shared.end_think();
                        }
                        None
                    }
                    Role::Start { group, index } => {
                        shared.prose.message = None;
                        shared.prose.message_started = true;
                        let region = RegionBody::open(group, index, held, in_input, cx);
                        Some(Mode::Region(region))
                    }
                }
            }
            Resolved::OpenFence => {
                shared.flush(cx.out);
                shared.prose.message_started = true;
                Some(Mode::Fence(FenceBody::open(held, cx)))
            }
            Resolved::JsonFence => {
                shared.flush(cx.out);
                shared.prose.message_started = true;
                Some(Mode::Raw(RawBody::new(
                    RawKind::Fenced,
                    held.to_owned(),
                    cx,
                )))
            }
        }
    }

    /// The text ended: a held candidate is decided as it stands, and what it leaves is looked
    /// at again.
    pub fn finish<B: JsonBuilder>(
        &mut self,
        cx: &mut Ctx<'_, B>,
    ) -> Option<(String, Option<Mode>)> {
        let candidate = self.candidate.take()?;
        let held = mem::take(&mut self.pending);
        let resolved = match candidate {
            // The text ended inside what may have been a marker: else a JSON value.
            Candidate::MessageStart(mask) => match markers::match_at_end(held.as_bytes(), mask) {
                Some(entry) => Resolved::Marker(entry),
                None => {
                    let mode = message_value(held.as_bytes()[0], cx);
                    return Some((held, Some(mode)));
                }
            },
            // A think tag's token that the tag it may begin was waited for (`<|channel>`).
            Candidate::Marker(mask) => match markers::match_at_end(held.as_bytes(), mask) {
                Some(entry) => Resolved::Marker(entry),
                None => Resolved::Fail,
            },
            Candidate::Fence { line, blocks } => match line.at_end() {
                FenceKind::Open if blocks => Resolved::OpenFence,
                FenceKind::Open => Resolved::Plain { toggle_code: true },
                FenceKind::None if line.opens_code() => Resolved::Plain { toggle_code: true },
                _ => Resolved::Fail,
            },
            Candidate::CodeClose(close) => Resolved::Plain {
                toggle_code: close.at_end(),
            },
            Candidate::Code(code) => match code.at_end() {
                CodeAction::Toggle => Resolved::Plain { toggle_code: true },
                CodeAction::OpenBlock => Resolved::OpenFence,
                _ => Resolved::Fail,
            },
        };
        let used = match resolved {
            Resolved::Fail => held.chars().next().map_or(0, char::len_utf8),
            Resolved::Marker(entry) => markers::found_len(held.as_bytes(), entry),
            _ => held.len(),
        };
        let opened = match resolved {
            Resolved::Marker(_) => self.resolve(resolved, &held[..used], false, cx),
            _ => self.resolve(resolved, &held, false, cx),
        };
        Some((held[used..].to_owned(), opened))
    }
}

/// How a candidate went on.
enum Continued {
    /// The input ended inside it: it is held.
    Held,
    /// Decided after using this many bytes of the input; text goes on after them.
    Decided(usize),
    /// Decided after using this many bytes of the input, leaving held bytes of earlier chunks
    /// to look at again.
    Replay(usize, String),
    /// It opened a mode after using this many bytes of the input.
    Opened(usize, Mode),
    /// It opened a mode that reads these held bytes of earlier chunks, then the whole input.
    Reopened(Mode, String),
}

/// The mode of a JSON value that begins the message at `first` (`[`/`{`): a bare format's
/// region, else a raw-JSON candidate.
fn message_value<B: JsonBuilder>(first: u8, cx: &Ctx<'_, B>) -> Mode {
    match bare_group(first, cx.options.formats) {
        Some(group) => Mode::Region(RegionBody::bare(group, cx)),
        None => Mode::Raw(RawBody::new(RawKind::Whole, String::new(), cx)),
    }
}

impl Candidate {
    fn step(&mut self, b: u8) -> Step<Resolved> {
        match self {
            Candidate::Fence { line, blocks } => match line.step(b) {
                Step::More if line.may_open() || line.opens_code() => Step::More,
                Step::Done(FenceKind::Open, consumed) if *blocks => {
                    Step::Done(Resolved::OpenFence, consumed)
                }
                // `~~~tool_call` where blocks are not read (in reasoning, or the protocol is
                // off) is a code fence like any other; its line break stays text.
                Step::Done(FenceKind::Open, _) => {
                    Step::Done(Resolved::Plain { toggle_code: true }, false)
                }
                Step::Done(FenceKind::None, _) if line.opens_code() => {
                    Step::Done(Resolved::Plain { toggle_code: true }, false)
                }
                _ => Step::Done(Resolved::Fail, false),
            },
            Candidate::CodeClose(close) => match close.step(b) {
                Step::More => Step::More,
                Step::Done(closes, _) => Step::Done(
                    Resolved::Plain {
                        toggle_code: closes,
                    },
                    false,
                ),
            },
            Candidate::Code(code) => match code.step(b) {
                Step::More => Step::More,
                Step::Done(CodeAction::JsonFence, consumed) => {
                    Step::Done(Resolved::JsonFence, consumed)
                }
                Step::Done(CodeAction::Toggle, consumed) => {
                    Step::Done(Resolved::Plain { toggle_code: true }, consumed)
                }
                Step::Done(CodeAction::OpenBlock, consumed) => {
                    Step::Done(Resolved::OpenFence, consumed)
                }
                Step::Done(CodeAction::NotFence, _) => Step::Done(Resolved::Fail, false),
            },
            Candidate::Marker(_) | Candidate::MessageStart(_) => {
                unreachable!("markers are matched whole")
            }
        }
    }
}
