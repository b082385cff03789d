//! What every mode of the stream shares: the position in the input, the prose state (think
//! spans, code, the message start), the text not yet sent, and the numbering of calls. Modes
//! write through these methods only; none reaches into another mode.

use std::collections::HashSet;
use std::mem;

use crate::formats::Group;
use crate::ids::generate_id;

use super::held::Held;
use super::spans::CodeSpans;
use super::Event;

/// A position in the input: bytes and, when counted, characters (a calls-only parse counts
/// bytes only; its caller turns the byte offsets of failures into character offsets once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Pos {
    pub bytes: usize,
    chars: Option<usize>,
}

impl Pos {
    pub fn start(count_chars: bool) -> Self {
        Pos {
            bytes: 0,
            chars: count_chars.then_some(0),
        }
    }

    pub fn after(self, s: &str) -> Pos {
        Pos {
            bytes: self.bytes + s.len(),
            chars: self.chars.map(|chars| chars + s.chars().count()),
        }
    }

    /// The character offset, when counted.
    pub fn chars(self) -> Option<usize> {
        self.chars
    }
}

/// Where the prose is, as text mode and the modes that hand back to it see it.
#[derive(Debug, Default)]
pub(super) struct Prose {
    pub in_think: bool,
    /// A `<think>` span (or a reasoning message) was seen.
    pub saw_think: bool,
    /// Non-blank reasoning has been sent (a new reasoning block starts on a new line).
    pub reasoning_sent: bool,
    pub at_line_start: bool,
    /// Inside a Markdown code block (```` ``` ```` or `~~~xml`).
    pub in_code: bool,
    /// The open code block's fence character and run length: only a line of at least as many
    /// of them, and nothing else, closes it (CommonMark).
    pub code_fence: (u8, usize),
    /// The code block was opened in reasoning: the think span's end ends it too.
    pub code_in_reasoning: bool,
    /// The code block was opened after content: an example, whose markers are prose.
    pub code_quotes: bool,
    /// Non-blank content has been seen, code fence lines aside (a code block opened after it
    /// quotes).
    pub content_seen: bool,
    /// A code fence line is being read: its info string is not content.
    pub in_fence_line: bool,
    /// Non-whitespace content (or a call) has been seen: raw JSON `whole` and the bare formats
    /// no longer apply.
    pub message_started: bool,
    /// How many implied-start groups (`Grammar::IMPLIED_START`) the message start was read
    /// as a region of, each giving it back: none is tried again.
    pub implied_tried: usize,
    /// Inline code spans of the prose (markers in them are prose).
    pub spans: CodeSpans,
    /// Inside the body of a group's prose message (harmony): `(group, is_reasoning)`.
    pub message: Option<(Group, bool)>,
    /// Right after a message of this group that may be followed by a header alone
    /// (`Grammar::NEXT_HEADER_AFTER`), blank space aside: its message-start markers are looked
    /// for here as at the start of the text.
    pub header_next: Option<Group>,
}

/// The shared state of one stream.
pub(super) struct Shared {
    pub pos: Pos,
    pub prose: Prose,
    /// Text not yet sent as an event, and whether it is reasoning.
    run: String,
    run_reasoning: bool,
    /// Send text, reasoning, call starts and argument deltas (a calls-only parse does not).
    pub events: bool,
    /// Code spans are tracked only when some format has markers.
    pub track_spans: bool,
    next_index: usize,
    seen_ids: HashSet<String>,
    /// `~~~tool_call` blocks and raw-JSON fences seen, for messages.
    pub blocks: usize,
    pub raw_blocks: usize,
    /// A `~~~tool_call` body once ran to the end of the text inside a string: from then on
    /// every fence line ends a body (the batch scanner's rule, which keeps it linear).
    pub strings_run_to_end: bool,
    /// The opening line of the ```` ``` ```` code block just opened, and the blank text after
    /// it, held until the block's first other text: prose sends it, a call drops it.
    code_open: Option<HeldFence>,
    /// The code block's opening line was dropped: it wraps call markup, and its closing fence
    /// is dropped too.
    code_wraps_calls: bool,
    /// Call events read inside think spans, not sent yet.
    pub held: Held,
}

/// A code block's opening line held back ([`Shared::open_code`]).
struct HeldFence {
    text: String,
    /// The opening line has not ended yet (its info string is part of it).
    in_line: bool,
}

impl HeldFence {
    /// Takes the opening line's rest and the blank text that starts `text`; returns how much.
    fn take(&mut self, text: &str) -> usize {
        let mut taken = 0;
        if self.in_line {
            match text.find(['\n', '\r']) {
                Some(end) => {
                    taken = end + 1;
                    self.in_line = false;
                }
                None => taken = text.len(),
            }
        }
        let rest = &text[taken..];
        taken += rest.len() - rest.trim_start().len();
        self.text.push_str(&text[..taken]);
        taken
    }
}

impl Shared {
    pub fn new(events: bool, track_spans: bool) -> Self {
        Self {
            pos: Pos::start(events),
            prose: Prose {
                at_line_start: true,
                ..Prose::default()
            },
            run: String::new(),
            run_reasoning: false,
            events,
            track_spans,
            next_index: 0,
            seen_ids: HashSet::new(),
            blocks: 0,
            raw_blocks: 0,
            strings_run_to_end: false,
            code_open: None,
            code_wraps_calls: false,
            held: Held::default(),
        }
    }

    /// Whether text sent now is reasoning.
    fn reasoning_now(&self) -> bool {
        self.prose.in_think || matches!(self.prose.message, Some((_, true)))
    }

    /// Sends `text` of the input as text or reasoning (by the current prose state) and moves
    /// past it.
    pub fn text_out<V>(&mut self, text: &str, out: &mut Vec<Event<V>>) {
        if text.is_empty() {
            return;
        }
        let reasoning = self.pass(text);
        self.send(text, reasoning, out);
    }

    /// Moves past `text` of the input as [`text_out`](Self::text_out) does, without sending
    /// it; returns whether it is reasoning.
    fn pass(&mut self, text: &str) -> bool {
        let reasoning = self.reasoning_now();
        if !reasoning && !self.prose.message_started && !text.trim_ascii_start().is_empty() {
            self.prose.message_started = true;
        }
        if !reasoning {
            self.see_content(text);
        }
        if self.track_spans {
            self.prose.spans.feed(text);
        }
        self.pos = self.pos.after(text);
        reasoning
    }

    /// Notes non-blank content in `text` of the input, outside a code fence line.
    fn see_content(&mut self, mut text: &str) {
        if self.prose.in_fence_line {
            let Some(end) = text.find(['\n', '\r']) else {
                return;
            };
            self.prose.in_fence_line = false;
            text = &text[end..];
        }
        if !self.prose.content_seen && !text.trim_ascii().is_empty() {
            self.prose.content_seen = true;
        }
    }

    /// A code fence line (`line`, its first bytes from the fence on) opens a code block. A
    /// block that holds only call markup is part of the calls, not content: the line is held
    /// until the block's first non-blank text shows which (a bounded wait: the rest of the line
    /// and blank text).
    pub fn open_code<V>(&mut self, line: &str, out: &mut Vec<Event<V>>) {
        self.prose.in_code = true;
        let fence = line.as_bytes().first().copied().unwrap_or(b'`');
        self.prose.code_fence = (fence, line.bytes().take_while(|&b| b == fence).count());
        // After content, a code block is an example (`Here is what a call looks like:`): the
        // markup in it is quoted, never run. One that opens the message may wrap the calls.
        self.prose.code_quotes = self.prose.content_seen && !self.reasoning_now();
        self.prose.code_in_reasoning = self.reasoning_now();
        self.prose.in_fence_line = !self.reasoning_now();
        self.code_wraps_calls = false;
        if self.reasoning_now() || !self.events {
            self.text_out(line, out);
            return;
        }
        self.code_open = Some(HeldFence {
            text: String::new(),
            in_line: true,
        });
        self.text_out(line, out);
    }

    /// A code fence line (`line`, its first bytes) closes the code block: dropped when the
    /// block's opening line was.
    pub fn close_code<V>(&mut self, line: &str, out: &mut Vec<Event<V>>) {
        self.prose.in_code = false;
        self.prose.code_quotes = false;
        self.prose.in_fence_line = !self.reasoning_now();
        if mem::take(&mut self.code_wraps_calls) {
            self.pass(line);
        } else {
            self.text_out(line, out);
        }
    }

    /// A think span ends, and with it a code block left open inside it: a fence the reasoning
    /// never closed does not change how the answer is read.
    pub fn end_think(&mut self) {
        self.prose.in_think = false;
        // Nor does an inline code span the reasoning left open quote the answer.
        self.prose.spans.reset();
        if self.prose.code_in_reasoning {
            self.prose.in_code = false;
        }
    }

    /// The text ended: a code block's held opening line is text.
    pub fn end_text<V>(&mut self, out: &mut Vec<Event<V>>) {
        if let Some(held) = self.code_open.take() {
            self.push(&held.text, false, out);
        }
    }

    /// Sends prose that is not input at this position (a decoded region's content, a newline
    /// between reasoning blocks): the position does not move.
    pub fn prose_out<V>(&mut self, text: &str, reasoning: bool, out: &mut Vec<Event<V>>) {
        if text.is_empty() {
            return;
        }
        if reasoning {
            self.prose.saw_think = true;
        }
        self.send(text, reasoning, out);
    }

    fn send<V>(&mut self, mut text: &str, reasoning: bool, out: &mut Vec<Event<V>>) {
        if reasoning {
            self.prose.reasoning_sent |= !text.trim().is_empty();
        } else if let Some(held) = &mut self.code_open {
            text = &text[held.take(text)..];
            if text.is_empty() {
                return;
            }
            // Prose in the block: its opening line is content after all.
            let held = mem::take(&mut held.text);
            self.code_open = None;
            self.push(&held, false, out);
        }
        self.push(text, reasoning, out);
    }

    fn push<V>(&mut self, text: &str, reasoning: bool, out: &mut Vec<Event<V>>) {
        if !self.events || text.is_empty() {
            return;
        }
        if self.run_reasoning != reasoning {
            self.flush(out);
            self.run_reasoning = reasoning;
        }
        if self.run.is_empty() {
            // Allocated to size: most runs are one piece, sent when the chunk ends.
            self.run = text.to_owned();
        } else {
            self.run.push_str(text);
        }
    }

    /// Starts a reasoning block: joined to an earlier one by a newline, as the decoders do.
    pub fn begin_reasoning<V>(&mut self, out: &mut Vec<Event<V>>) {
        self.prose.saw_think = true;
        if self.prose.reasoning_sent {
            self.prose_out("\n", true, out);
        }
    }

    /// Sends the text held in the run.
    pub fn flush<V>(&mut self, out: &mut Vec<Event<V>>) {
        if !self.run.is_empty() {
            let run = mem::take(&mut self.run);
            out.push(if self.run_reasoning {
                Event::Reasoning(run)
            } else {
                Event::Text(run)
            });
        }
    }

    /// Whether no text is held in the run.
    pub fn run_is_empty(&self) -> bool {
        self.run.is_empty()
    }

    /// Sends an event after the text before it. A call in a code block whose opening line is
    /// held drops the line: the block wraps call markup.
    pub fn event<V>(&mut self, event: Event<V>, out: &mut Vec<Event<V>>) {
        if self.code_open.take().is_some() {
            self.code_wraps_calls = true;
        }
        self.flush(out);
        out.push(event);
    }

    /// The next call's index. The first call outside reasoning drops the calls held from
    /// inside it and takes the index they began at.
    pub fn take_index(&mut self) -> usize {
        if !self.prose.in_think && !self.held.outside {
            self.first_call_outside_reasoning();
        }
        self.next_index += 1;
        self.next_index - 1
    }

    #[cold]
    fn first_call_outside_reasoning(&mut self) {
        let (events, from) = self.held.drop_for_outside();
        self.drop_calls(events, from);
    }

    /// Drops the call events read inside reasoning: the indices they took from `from` on and
    /// the ids they claimed are free again.
    pub fn drop_calls<V>(&mut self, events: Vec<Event<V>>, from: Option<usize>) {
        if let Some(from) = from {
            self.next_index = from;
        }
        for event in events {
            let id = match event {
                Event::CallStart { id, .. } => Some(id),
                Event::CallEnd { call, .. } => call.id,
                _ => None,
            };
            if let Some(id) = id {
                self.seen_ids.remove(&id);
            }
        }
    }

    /// The index the next call will get (outside reasoning, that of the first call held).
    pub fn peek_index(&self) -> usize {
        match self.held.first_index() {
            Some(from) if !self.prose.in_think => from,
            _ => self.next_index,
        }
    }

    /// The id of a new call: the model's own, unless another call of the stream has it, else a
    /// generated one. A calls-only parse leaves ids to its caller (`assign_ids`), which keeps
    /// the same rule over the whole response.
    pub fn claim_id(&mut self, id: Option<String>) -> Option<String> {
        if !self.events {
            return id;
        }
        Some(self.unique_id(id))
    }

    fn unique_id(&mut self, id: Option<String>) -> String {
        // An empty id (`[CALL_ID][ARGS]`) is none: a tool result could not name the call.
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            if self.seen_ids.insert(id.clone()) {
                return id;
            }
        }
        let id = generate_id();
        self.seen_ids.insert(id.clone());
        id
    }

    /// After call markup that ended with `text`: prose resumes there.
    pub fn after_markup(&mut self, text: &str) {
        self.prose.spans.reset();
        self.prose.message_started = true;
        self.prose.at_line_start = text.ends_with('\n');
    }
}
