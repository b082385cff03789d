//! Where text mode looks: what may begin at the current byte, given the prose state (a message
//! start, a think span, a code span, a prose message of some format).

use crate::formats::markers::{self, in_prose_of, Mask};
use crate::json::JsonBuilder;
use crate::raw_json::RawJsonMode;
use crate::scan::find::{find_any4, find_byte};

use super::Ctx;

impl<B: JsonBuilder> Ctx<'_, B> {
    /// Whether a message-start JSON value (raw JSON `whole`, a bare format, or a JSON message
    /// whose strings hold markers) may begin here.
    pub(super) fn whole_eligible(&self) -> bool {
        let prose = &self.shared.prose;
        (self.options.raw_json.is_some() || self.bare_formats || !self.starts.is_empty())
            && !prose.message_started
            && !prose.in_think
            && !prose.in_code
    }

    /// The markers a candidate starting here may complete to: the think tags (and stray think
    /// tokens outside a span), and the start markers of the enabled formats (not in a code
    /// span; in think spans only with `calls_in_reasoning`).
    pub(super) fn marker_mask(&mut self) -> Mask {
        let prose = &mut self.shared.prose;
        let mut mask = if prose.in_think {
            // An opening tag before any reasoning is the span's own (one the prompt opened, or
            // one the model opened twice, `<think><think>`), not text.
            let tags = match !prose.reasoning_sent {
                true => markers::THINK_CLOSE | markers::THINK_OPEN,
                false => markers::THINK_CLOSE,
            };
            // And the enabled formats' tokens that end a span (Kimi K3's reply channel).
            tags | (markers::THINK_ENDS & self.starts)
        } else {
            markers::THINK_OPEN | markers::THINK_STRAY
        };
        if self.starts.is_empty()
            || (prose.in_think && !self.options.calls_in_reasoning)
            || prose.spans.inside()
            || (prose.in_code && prose.code_quotes)
        {
            // A prose message's end token ends it wherever it comes: no quote holds a special
            // token.
            return match prose.message {
                Some((group, _)) => mask | markers::in_prose_of(group, Mask::NONE),
                None => mask,
            };
        }
        mask |= self.starts;
        if let Some((group, _)) = prose.message {
            mask = in_prose_of(group, mask);
        }
        mask
    }

    /// The next byte of `bytes` where something may begin after the line start (the think tags
    /// include `[THINK]`, so `[` is always one), and, in a prose message, where it may end.
    pub(super) fn next_stop(&self, bytes: &[u8]) -> Option<usize> {
        let stop = find_any4(b'\n', b'<', b'[', b'\r', bytes);
        let Some(end) = self.message_stop() else {
            return stop;
        };
        let before = &bytes[..stop.unwrap_or(bytes.len())];
        find_byte(end, before).or(stop)
    }

    /// The byte the prose message being read may end at beside the usual stops
    /// ([`markers::prose_stop`]).
    pub(super) fn message_stop(&self) -> Option<u8> {
        let (group, _) = self.shared.prose.message?;
        markers::prose_stop(group)
    }

    pub(super) fn fences_allowed(&self) -> bool {
        let prose = &self.shared.prose;
        self.options.text_tagged
            && !prose.in_code
            && (!prose.in_think || self.options.calls_in_reasoning)
    }

    pub(super) fn json_fence_allowed(&self) -> bool {
        let prose = &self.shared.prose;
        match self.options.raw_json {
            None => false,
            Some(RawJsonMode::Whole) => !prose.message_started && !prose.in_think,
            Some(_) => !prose.in_think || self.options.calls_in_reasoning,
        }
    }
}
