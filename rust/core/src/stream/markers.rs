//! Text-mode markers of the §6 formats (and `<think>`), recognised byte by byte so that a marker
//! split across chunks is found without re-scanning, and the inline code-span state that the
//! one-shot parsers use to ignore markers in prose (`` `<tool_call>` ``).

use crate::formats::{Format, FormatSet};

use super::find::find2;
use super::lines::Step;

/// Every marker text mode may see. No marker is a prefix of another, so the first one that
/// completes is the match.
pub(crate) const MARKERS: [&str; 16] = [
    "<think>",
    "</think>",
    "<tool_call>",
    "<function=",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "<|python_start|>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "<|start|>",
    "<|channel|>",
    "<|end|>",
    "<|call|>",
    "<|return|>",
];

/// Indices into [`MARKERS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    ThinkOpen,
    ThinkClose,
    ToolCall,
    Function,
    ToolCalls,
    PythonTag,
    PythonStart,
    DeepseekSection,
    DeepseekCall,
    KimiSection,
    KimiCall,
    HarmonyStart,
    HarmonyChannel,
    /// `<|end|>`, `<|call|>`, `<|return|>`: the end of a harmony message.
    HarmonyEnd,
}

impl Marker {
    fn of_index(i: usize) -> Marker {
        use Marker::*;
        [
            ThinkOpen,
            ThinkClose,
            ToolCall,
            Function,
            ToolCalls,
            PythonTag,
            PythonStart,
            DeepseekSection,
            DeepseekCall,
            KimiSection,
            KimiCall,
            HarmonyStart,
            HarmonyChannel,
            HarmonyEnd,
            HarmonyEnd,
            HarmonyEnd,
        ][i]
    }

    /// The markers that start a call region of `formats` (a bit set over [`MARKERS`]).
    pub fn starts_of(formats: FormatSet) -> u32 {
        let mut mask = 0;
        let mut add = |format: Format, markers: &[usize]| {
            if formats.contains(format) {
                for &m in markers {
                    mask |= 1 << m;
                }
            }
        };
        add(Format::Hermes, &[2]);
        add(Format::Glm45, &[2]);
        add(Format::Qwen3Coder, &[2, 3]);
        add(Format::Mistral, &[4]);
        add(Format::Llama3Json, &[5]);
        add(Format::Pythonic, &[6]);
        add(Format::DeepseekV3, &[7, 8]);
        add(Format::DeepseekV31, &[7, 8]);
        add(Format::KimiK2, &[9, 10]);
        add(Format::Harmony, &[11, 12]);
        mask
    }

    pub const THINK_OPEN: u32 = 1;
    pub const THINK_CLOSE: u32 = 2;
    /// `<|end|>`, `<|call|>`, `<|return|>`, and `<|start|>` (which ends a message too).
    pub const HARMONY_ENDS: u32 = 1 << 13 | 1 << 14 | 1 << 15 | 1 << 11;
    pub const HARMONY_CHANNEL: u32 = 1 << 12;
}

/// Matches the markers of a bit set against bytes, from the byte that may begin them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MarkerMatch {
    alive: u32,
    matched: usize,
}

impl MarkerMatch {
    /// A match over the markers of `mask` that begin with `first` (`None` when there are none).
    pub fn start(mask: u32, first: u8) -> Option<Self> {
        let alive = (0..MARKERS.len())
            .filter(|&m| mask & (1 << m) != 0 && MARKERS[m].as_bytes()[0] == first)
            .fold(0, |acc, m| acc | 1 << m);
        (alive != 0).then_some(Self { alive, matched: 0 })
    }

    pub fn step(&mut self, b: u8) -> Step<Option<Marker>> {
        let at = self.matched;
        let mut alive = 0;
        for (m, marker) in MARKERS.iter().enumerate() {
            if self.alive & (1 << m) == 0 {
                continue;
            }
            let marker = marker.as_bytes();
            if marker[at] != b {
                continue;
            }
            if at + 1 == marker.len() {
                return Step::Done(Some(Marker::of_index(m)), true);
            }
            alive |= 1 << m;
        }
        if alive == 0 {
            return Step::Done(None, false);
        }
        self.alive = alive;
        self.matched += 1;
        Step::More
    }
}

/// The longest marker, in bytes.
#[cfg(test)]
pub(crate) fn longest() -> usize {
    MARKERS.iter().map(|m| m.len()).max().unwrap_or(0)
}

/// Inline code spans of released prose (the one-shot rule of `formats`): a backtick run opens a
/// span that a run of the same length closes; a line end closes it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CodeSpans {
    open: Option<usize>,
    /// A backtick run still being counted (it may continue in the next piece).
    run: usize,
}

impl CodeSpans {
    /// Takes in released prose.
    pub fn feed(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut pos = 0;
        while let Some(i) = find2(b'`', b'\n', &bytes[pos..]) {
            let at = pos + i;
            if at > pos {
                self.end_run();
            }
            if bytes[at] == b'\n' {
                self.end_run();
                self.open = None;
            } else {
                self.run += 1;
            }
            pos = at + 1;
        }
        if pos < bytes.len() {
            self.end_run();
        }
    }

    fn end_run(&mut self) {
        if self.run == 0 {
            return;
        }
        self.open = match self.open {
            None => Some(self.run),
            Some(open) if open == self.run => None,
            other => other,
        };
        self.run = 0;
    }

    /// Whether the next byte (which is not a backtick) is inside a code span.
    pub fn inside(&mut self) -> bool {
        self.end_run();
        self.open.is_some()
    }

    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matched(mask: u32, text: &str) -> Option<Marker> {
        let bytes = text.as_bytes();
        let mut m = MarkerMatch::start(mask, bytes[0])?;
        for &b in bytes {
            match m.step(b) {
                Step::More => {}
                Step::Done(found, _) => return found,
            }
        }
        None
    }

    #[test]
    fn markers_are_told_apart_byte_by_byte() {
        let all = u32::MAX;
        assert_eq!(matched(all, "<tool_call>"), Some(Marker::ToolCall));
        assert_eq!(matched(all, "<|tool_call_begin|>"), Some(Marker::KimiCall));
        assert_eq!(
            matched(all, "<|tool_calls_section_begin|>"),
            Some(Marker::KimiSection)
        );
        assert_eq!(matched(all, "<|call|>"), Some(Marker::HarmonyEnd));
        assert_eq!(matched(all, "<tool_cake>"), None);
        assert_eq!(matched(Marker::THINK_OPEN, "<tool_call>"), None);
        for (i, a) in MARKERS.iter().enumerate() {
            for (j, b) in MARKERS.iter().enumerate() {
                assert!(i == j || !b.starts_with(a), "{a} prefixes {b}");
            }
        }
    }

    #[test]
    fn code_spans_across_pieces() {
        let mut spans = CodeSpans::default();
        spans.feed("say `");
        assert!(spans.inside());
        spans.feed("x` and ``");
        spans.feed("`");
        assert!(spans.inside());
        spans.feed("``` done ");
        assert!(!spans.inside());
        spans.feed("`open\n");
        assert!(!spans.inside());
    }
}
