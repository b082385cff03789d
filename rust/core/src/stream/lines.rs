//! Small byte-at-a-time recognisers for markers that may arrive split across chunks.

use crate::scan::fence::INVISIBLE_INDENT;

/// Result of feeding one byte to a recogniser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step<T> {
    /// Still a possible match; the byte is part of it.
    More,
    /// Decided; `consumed` says whether this byte belongs to the marker.
    Done(T, bool),
}

/// What a line turned out to be (fence lines, docs/parsing.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FenceKind {
    Open,
    Close,
    None,
}

const TAG: &[u8] = b"tool_call";

/// Classifies a line as a `~~~tool_call` opening line, a `~~~` closing line or neither, fed
/// from the line start (optional indentation first) up to and including its line break: the
/// rules of [`crate::scan::fence`] (`~~~ tool_call` opens; `~~~`, a space and prose closes; the
/// same in backticks; a line ends at `\n`, `\r\n` or a lone `\r`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FenceLine {
    /// The fence character (`~` or `` ` ``), once read.
    fence: u8,
    state: LineState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineState {
    Indent,
    /// The first `len` bytes of an invisible indentation character (`scan::fence`).
    WideIndent {
        bytes: [u8; 3],
        len: u8,
    },
    /// This many fence characters.
    Fence(u8),
    /// More than three: not a protocol line, a code fence whose run goes on.
    LongRun,
    /// Spaces or tabs right after the fence (a closing line, unless `tool_call` follows).
    Gap,
    /// Matched the fence (then spaces or tabs, if `spaced`) and this many bytes of `tool_call`.
    Tag {
        matched: u8,
        spaced: bool,
    },
    /// Padding after the fence and `tool_call` (an opening line).
    OpenPad {
        spaced: bool,
    },
    /// Text after the fence and a space: a closing line that carries prose.
    Prose,
    /// A `\r` ended a line of this kind; a `\n` right after it belongs to the same break.
    Break(FenceKind),
}

/// The state after `len` bytes of a possible invisible indentation character: back to
/// `Indent` once it is whole, `None` when no such character starts so.
fn wide_indent(bytes: [u8; 3], len: u8) -> Option<LineState> {
    let seen = &bytes[..len as usize];
    let char = INVISIBLE_INDENT
        .iter()
        .find(|c| c.as_bytes().starts_with(seen))?;
    Some(if char.len() == seen.len() {
        LineState::Indent
    } else {
        LineState::WideIndent { bytes, len }
    })
}

impl FenceLine {
    /// A line not read yet.
    pub const START: Self = Self {
        fence: 0,
        state: LineState::Indent,
    };

    /// The line's fence character (0 before one is read).
    pub fn fence(self) -> u8 {
        self.fence
    }

    pub fn step(&mut self, b: u8) -> Step<FenceKind> {
        use LineState::*;
        if let Break(kind) = self.state {
            return Step::Done(kind, b == b'\n');
        }
        if b == b'\r' {
            // The line is decided as at a `\n`; the next byte says whether the break is `\r\n`.
            let mut at_newline = *self;
            return match at_newline.step(b'\n') {
                Step::Done(kind, true) if kind != FenceKind::None => {
                    self.state = Break(kind);
                    Step::More
                }
                decided => decided,
            };
        }
        let padding = matches!(b, b' ' | b'\t');
        let tag = |matched: u8| TAG.get(matched as usize) == Some(&b);
        let next = match (self.state, b) {
            (Indent, b' ' | b'\t') => Indent,
            (Indent, 0x80..) => match wide_indent([b, 0, 0], 1) {
                Some(next) => next,
                None => return Step::Done(FenceKind::None, false),
            },
            (WideIndent { mut bytes, len }, _) => {
                bytes[len as usize] = b;
                match wide_indent(bytes, len + 1) {
                    Some(next) => next,
                    None => return Step::Done(FenceKind::None, false),
                }
            }
            (Indent, b'~' | b'`') => {
                self.fence = b;
                Fence(1)
            }
            (Fence(n), _) if n < 3 && b == self.fence => Fence(n + 1),
            (Fence(3) | LongRun, _) if b == self.fence => LongRun,
            (Fence(3) | Gap | Prose, b'\n') => return Step::Done(FenceKind::Close, true),
            (Fence(3) | Gap, _) if padding => Gap,
            (Fence(3), _) if tag(0) => Tag {
                matched: 1,
                spaced: false,
            },
            (Gap, _) if tag(0) => Tag {
                matched: 1,
                spaced: true,
            },
            (Tag { matched, spaced }, _) if tag(matched) => Tag {
                matched: matched + 1,
                spaced,
            },
            (Tag { matched: 9, .. } | OpenPad { .. }, b'\n') => {
                return Step::Done(FenceKind::Open, true)
            }
            (Tag { matched: 9, spaced } | OpenPad { spaced }, _) if padding => OpenPad { spaced },
            (Tag { spaced: true, .. }, b'\n') => return Step::Done(FenceKind::Close, true),
            (Gap | Prose | Tag { spaced: true, .. } | OpenPad { spaced: true }, _) => Prose,
            _ => return Step::Done(FenceKind::None, false),
        };
        self.state = next;
        Step::More
    }

    /// The verdict when the text ends on this line.
    pub fn at_end(self) -> FenceKind {
        use LineState::*;
        match self.state {
            Tag { matched: 9, .. } | OpenPad { .. } => FenceKind::Open,
            Fence(3) | Gap | Prose | Tag { spaced: true, .. } => FenceKind::Close,
            Break(kind) => kind,
            _ => FenceKind::None,
        }
    }

    /// Whether the line can still become an opening line.
    pub fn may_open(self) -> bool {
        match self.state {
            LineState::Prose | LineState::LongRun => false,
            LineState::Break(kind) => kind == FenceKind::Open,
            _ => true,
        }
    }

    /// Whether a `\r` ended the line and the next byte decides whether `\n` belongs to it.
    pub fn awaits_break_end(self) -> bool {
        matches!(self.state, LineState::Break(_))
    }

    /// After a [`FenceKind::None`] verdict (or at the end of the text): whether the line is a
    /// Markdown code fence all the same, three fence characters and an info string the
    /// protocol does not read (`~~~xml`, `~~~~`, `~~~tool_calls`).
    pub fn opens_code(self) -> bool {
        use LineState::*;
        matches!(
            self.state,
            Fence(3) | LongRun | Tag { spaced: false, .. } | OpenPad { spaced: false }
        )
    }
}

/// Recognises the line that closes a code block opened by a run of `need` fence characters
/// (CommonMark's rule): a run of at least as many of them, then only spaces or tabs to the
/// line end. Fed from the run's first byte; the verdict is `true` for a closing line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CodeClose {
    fence: u8,
    need: usize,
    run: usize,
    padded: bool,
}

impl CodeClose {
    pub fn new(fence: u8, need: usize) -> Self {
        Self {
            fence,
            need,
            run: 0,
            padded: false,
        }
    }

    pub fn step(&mut self, b: u8) -> Step<bool> {
        if b == self.fence && !self.padded {
            self.run += 1;
            return Step::More;
        }
        if self.run < self.need {
            return Step::Done(false, false);
        }
        match b {
            b' ' | b'\t' => {
                self.padded = true;
                Step::More
            }
            b'\n' | b'\r' => Step::Done(true, false),
            _ => Step::Done(false, false),
        }
    }

    /// The verdict when the text ends on this line.
    pub fn at_end(self) -> bool {
        self.run >= self.need
    }
}

/// What a ```` ``` ```` line at a line start does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CodeAction {
    /// Toggles the code-block state (any fence while one is open; a non-JSON opening fence).
    Toggle,
    /// Opens a ```` ```json ```` / ```` ``` ```` fence whose body may be a raw-JSON call.
    JsonFence,
    /// Not a fence (fewer than three backticks).
    NotFence,
    /// Opens a ```` ```tool_call ```` block.
    OpenBlock,
}

/// Recognises a code fence line from its first backtick. `json_candidates` says whether an
/// opening fence with a JSON (or empty) info string starts a raw-JSON candidate; then the info
/// string is read up to the end of the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CodeFence {
    pub ticks: u8,
    /// A byte other than a backtick came: the fence's run is over.
    run_over: bool,
    pub json_candidates: bool,
    /// Bytes of `json` matched in the info string (`None` before any non-padding byte).
    pub info: Option<u8>,
    pub trailing: bool,
    /// A `\r` ended the line; the next byte says whether a `\n` belongs to it.
    cr: bool,
    /// The same line read as a ```` ```tool_call ```` opening line, while it may be one.
    block: Option<FenceLine>,
    /// The code-fence verdict, reached while the line may still open a block.
    decided: Option<CodeAction>,
}

impl CodeFence {
    /// `tool_call_blocks` says whether a ```` ```tool_call ```` line opens a block.
    pub fn new(json_candidates: bool, tool_call_blocks: bool) -> Self {
        Self {
            ticks: 0,
            run_over: false,
            json_candidates,
            info: None,
            trailing: false,
            cr: false,
            block: tool_call_blocks.then_some(FenceLine::START),
            decided: None,
        }
    }

    pub fn step(&mut self, b: u8) -> Step<CodeAction> {
        let block_open = match self.block.as_mut().map(|line| (line.step(b), *line)) {
            Some((Step::Done(FenceKind::Open, consumed), _)) => {
                return Step::Done(CodeAction::OpenBlock, consumed)
            }
            Some((Step::More, line)) if line.may_open() => true,
            _ => {
                self.block = None;
                false
            }
        };
        // The bytes a code verdict leaves behind while the line may still open a block are
        // fence, padding and part of `tool_call`: held with it, they are text all the same.
        let code = match self.decided {
            Some(action) => Step::Done(action, false),
            None => self.step_code(b),
        };
        match code {
            Step::Done(action, _) if block_open => {
                self.decided = Some(action);
                Step::More
            }
            code => code,
        }
    }

    fn step_code(&mut self, b: u8) -> Step<CodeAction> {
        // The whole run belongs to the fence: its length is what a closing fence must match.
        if b == b'`' && !self.run_over {
            self.ticks = self.ticks.saturating_add(1);
            return Step::More;
        }
        self.run_over = true;
        if self.ticks < 3 {
            return Step::Done(CodeAction::NotFence, false);
        }
        if !self.json_candidates || self.ticks > 3 {
            return Step::Done(CodeAction::Toggle, false);
        }
        if self.cr {
            return Step::Done(CodeAction::JsonFence, b == b'\n');
        }
        let padding = matches!(b, b' ' | b'\t');
        match b {
            b'\n' if matches!(self.info, None | Some(4)) => Step::Done(CodeAction::JsonFence, true),
            // A line break of its own, or the start of `\r\n`.
            b'\r' if matches!(self.info, None | Some(4)) => {
                self.cr = true;
                Step::More
            }
            _ if padding && matches!(self.info, None | Some(4)) => {
                self.trailing = self.info.is_some();
                Step::More
            }
            _ if !self.trailing
                && (self.info.unwrap_or(0) as usize) < 4
                && b.eq_ignore_ascii_case(&b"json"[self.info.unwrap_or(0) as usize]) =>
            {
                self.info = Some(self.info.unwrap_or(0) + 1);
                Step::More
            }
            _ => Step::Done(CodeAction::Toggle, false),
        }
    }

    pub fn at_end(self) -> CodeAction {
        if self
            .block
            .is_some_and(|line| line.at_end() == FenceKind::Open)
        {
            CodeAction::OpenBlock
        } else if let Some(action) = self.decided {
            action
        } else if self.ticks < 3 {
            CodeAction::NotFence
        } else {
            CodeAction::Toggle
        }
    }
}

/// Where a ```` ``` ```` closes a raw-JSON fence on `line` (a whole line, `\n` included or at
/// the end of the text): the line ends (before spaces) with a run of backticks whose length is
/// a multiple of three, as a left-to-right search for ```` ``` ```` finds it. Returns the
/// offset of the last three backticks.
pub(crate) fn json_fence_close(line: &str) -> Option<usize> {
    let trimmed = line.trim_end_matches([' ', '\t', '\r', '\n']);
    let run = trimmed.len() - trimmed.trim_end_matches('`').len();
    (run >= 3 && run % 3 == 0).then(|| trimmed.len() - 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `line` to a recogniser until it decides; else its verdict at the end of the text.
    fn verdict<S, T>(
        mut state: S,
        line: &str,
        step: fn(&mut S, u8) -> Step<T>,
        at_end: fn(S) -> T,
    ) -> T {
        for &b in line.as_bytes() {
            if let Step::Done(verdict, _) = step(&mut state, b) {
                return verdict;
            }
        }
        at_end(state)
    }

    fn fence(line: &str) -> FenceKind {
        verdict(FenceLine::START, line, FenceLine::step, FenceLine::at_end)
    }

    #[test]
    fn fence_lines() {
        assert_eq!(fence("~~~tool_call\n"), FenceKind::Open);
        assert_eq!(fence("  ~~~tool_call \r\n"), FenceKind::Open);
        assert_eq!(fence("~~~tool_call"), FenceKind::Open);
        assert_eq!(fence("\t~~~ \n"), FenceKind::Close);
        assert_eq!(fence("~~~"), FenceKind::Close);
        assert_eq!(fence("~~~ tool_call\n"), FenceKind::Open);
        assert_eq!(
            fence("\u{a0}\u{200b} \u{2060}\u{feff}~~~tool_call\n"),
            FenceKind::Open
        );
        assert_eq!(fence("\u{200b}~~~\n"), FenceKind::Close);
        assert_eq!(fence("\u{200c}~~~\n"), FenceKind::None);
        assert_eq!(fence("~~~\t tool_call"), FenceKind::Open);
        assert_eq!(fence("~~~ and then some prose\n"), FenceKind::Close);
        assert_eq!(fence("~~~ tool_calls\n"), FenceKind::Close);
        assert_eq!(fence("~~~ to\n"), FenceKind::Close);
        assert_eq!(fence("~~~ \r x"), FenceKind::Close);
        assert_eq!(fence("~~~\rx\n"), FenceKind::Close);
        assert_eq!(fence("~~~tool_call\r"), FenceKind::Open);
        assert_eq!(fence("~~~tool_call\r{"), FenceKind::Open);
        assert_eq!(fence("```tool_call\n"), FenceKind::Open);
        assert_eq!(fence("``` tool_call\r\n"), FenceKind::Open);
        assert_eq!(fence("```\n"), FenceKind::Close);
        for line in [
            "~~~tool_calls\n",
            "~~`tool_call\n",
            "````tool_call\n",
            "~~\r",
            "~~~~\n",
            "x~~~\n",
            "~~\n",
            "\n",
        ] {
            assert_eq!(fence(line), FenceKind::None, "{line:?}");
        }
    }

    /// Whether a tilde line the protocol does not read opens a code block all the same.
    fn opens_code(line: &str) -> bool {
        let mut state = FenceLine::START;
        for &b in line.as_bytes() {
            match state.step(b) {
                Step::More if state.may_open() || state.opens_code() => {}
                Step::Done(FenceKind::None, _) => return state.opens_code(),
                _ => return false,
            }
        }
        state.at_end() == FenceKind::None && state.opens_code()
    }

    #[test]
    fn tilde_code_fences() {
        for line in [
            "~~~xml\n",
            "~~~~\n",
            "~~~~xml",
            "~~~tool_calls\n",
            "~~~tool\r\n",
        ] {
            assert!(opens_code(line), "{line:?}");
        }
        for line in ["~~~\n", "~~~ prose\n", "~~~tool_call\n", "~~x\n", "x~~~\n"] {
            assert!(!opens_code(line), "{line:?}");
        }
    }

    fn closes(fence: u8, need: usize, line: &str) -> bool {
        let state = CodeClose::new(fence, need);
        verdict(state, line, CodeClose::step, CodeClose::at_end)
    }

    #[test]
    fn code_blocks_close_at_a_long_enough_bare_run() {
        assert!(closes(b'`', 3, "```\n"));
        assert!(closes(b'`', 3, "````  \r\n"));
        assert!(closes(b'~', 4, "~~~~~"));
        assert!(!closes(b'`', 4, "```\n"));
        assert!(!closes(b'`', 3, "``` trailing\n"));
        assert!(!closes(b'`', 3, "```python\n"));
        assert!(!closes(b'~', 3, "~~~ ~\n"));
    }

    fn code(line: &str) -> CodeAction {
        let state = CodeFence::new(true, true);
        verdict(state, line, CodeFence::step, CodeFence::at_end)
    }

    #[test]
    fn code_fences() {
        assert_eq!(code("```json\n"), CodeAction::JsonFence);
        assert_eq!(code("``` JSON \r\n"), CodeAction::JsonFence);
        assert_eq!(code("```\n"), CodeAction::JsonFence);
        assert_eq!(code("```python\n"), CodeAction::Toggle);
        assert_eq!(code("```json\r{"), CodeAction::JsonFence);
        assert_eq!(code("```json \r\n"), CodeAction::JsonFence);
        assert_eq!(code("```json\r"), CodeAction::Toggle);
        assert_eq!(code("```json x\n"), CodeAction::Toggle);
        assert_eq!(code("``x"), CodeAction::NotFence);
        assert_eq!(code("```tool_call\n"), CodeAction::OpenBlock);
        assert_eq!(code("```tool_call\r"), CodeAction::OpenBlock);
        assert_eq!(code("```tool_call"), CodeAction::OpenBlock);
        assert_eq!(code("```tool_calls\n"), CodeAction::Toggle);
        assert_eq!(code("```tool_cal"), CodeAction::Toggle);
        let mut without_blocks = CodeFence::new(false, false);
        // The whole run is the fence's, whatever its length.
        for _ in 0..4 {
            assert_eq!(without_blocks.step(b'`'), Step::More);
        }
        assert_eq!(
            without_blocks.step(b'p'),
            Step::Done(CodeAction::Toggle, false)
        );
        assert_eq!(code("````json\n"), CodeAction::Toggle);
        assert_eq!(json_fence_close("{}```\n"), Some(2));
        assert_eq!(json_fence_close("```"), Some(0));
        assert_eq!(json_fence_close("````\n"), None);
        assert_eq!(json_fence_close("``````  \n"), Some(3));
    }
}
