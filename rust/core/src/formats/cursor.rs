//! Forward-only searches: start markers outside code spans, and cached searches for closing
//! markers. Both keep every parse linear: no byte is searched twice as long as the positions
//! asked for only grow.

use crate::scan::finders::{self, find_byte, find_either, Needle};

/// A start marker found in prose.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Marker {
    pub start: usize,
    pub end: usize,
    /// Index of the pattern in its [`Markers`].
    pub pattern: usize,
}

/// Finds start markers that are not inside an inline code span (the rule in the module
/// documentation of `formats`).
pub(crate) struct ProseCursor<'t> {
    text: &'t str,
    markers: &'t Markers,
    /// Backtick state is known up to here.
    scanned: usize,
    /// Length of the backtick run that opened the current code span.
    open_run: Option<usize>,
    /// Inside a ```` ```json ```` fence: markers there sit in JSON strings.
    json_fence: bool,
    /// Start of the current line, when known (unknown after a jump past a call).
    line_start: Option<usize>,
}

impl<'t> ProseCursor<'t> {
    pub fn new(text: &'t str, markers: &'t Markers, start: usize) -> Self {
        Self {
            text,
            markers,
            scanned: start,
            open_run: None,
            json_fence: false,
            line_start: (start == 0 || text.as_bytes()[start - 1] == b'\n').then_some(start),
        }
    }

    /// The next marker in `from..end` outside a code span. A `from` past the scanned text (the
    /// end of a call) starts a fresh line state: code spans do not continue across calls.
    pub fn next(&mut self, from: usize, end: usize) -> Option<Marker> {
        if from > self.scanned {
            self.scanned = from;
            self.open_run = None;
            self.line_start = None;
        }
        let mut from = from;
        while let Some(found) = self.markers.find(self.text, from, end) {
            self.advance(found.start);
            if self.open_run.is_none() && !self.json_fence {
                return Some(found);
            }
            from = found.end;
        }
        None
    }

    /// Updates the code-span state with the text up to `to`.
    fn advance(&mut self, to: usize) {
        let bytes = self.text.as_bytes();
        let mut pos = self.scanned;
        while let Some(i) = find_either(b'`', b'\n', &bytes[pos..to]) {
            pos += i;
            if bytes[pos] == b'\n' {
                self.open_run = None;
                pos += 1;
                self.line_start = Some(pos);
                continue;
            }
            let run_start = pos;
            while pos < to && bytes[pos] == b'`' {
                pos += 1;
            }
            let run = pos - run_start;
            let fence_line = run >= 3
                && self
                    .line_start
                    .is_some_and(|l| bytes[l..run_start].iter().all(|&b| b == b' ' || b == b'\t'));
            if fence_line {
                let line_end = find_byte(b'\n', &bytes[pos..to]).map_or(to, |i| pos + i);
                let info = self.text[pos..line_end].trim();
                if self.json_fence {
                    self.json_fence = !info.is_empty();
                } else {
                    self.json_fence = info.eq_ignore_ascii_case("json");
                }
                pos = line_end;
                continue;
            }
            self.open_run = match self.open_run {
                None => Some(run),
                Some(open) if open == run => None,
                other => other,
            };
        }
        self.scanned = to.max(self.scanned);
    }
}

/// A forward search for one marker that remembers its last answer.
pub(crate) struct Seek<'t> {
    haystack: &'t [u8],
    needle: &'static Needle,
    /// The last search started here and found `found`: answers for `from` in between.
    searched_from: usize,
    found: Option<usize>,
    /// No occurrence starts at or after this position.
    exhausted_from: Option<usize>,
}

impl<'t> Seek<'t> {
    /// Searches `text[..end]` for `needle`.
    pub fn new(text: &'t str, end: usize, needle: &'static Needle) -> Self {
        Self {
            haystack: &text.as_bytes()[..end],
            needle,
            searched_from: 0,
            found: None,
            exhausted_from: None,
        }
    }

    /// The first occurrence at or after `from`. Linear overall when `from` never decreases.
    pub fn find(&mut self, from: usize) -> Option<usize> {
        if let Some(found) = self
            .found
            .filter(|&f| self.searched_from <= from && from <= f)
        {
            return Some(found);
        }
        if self.exhausted_from.is_some_and(|e| from >= e) || from > self.haystack.len() {
            return None;
        }
        match self.needle.find(&self.haystack[from..]) {
            Some(i) => {
                self.searched_from = from;
                self.found = Some(from + i);
                self.found
            }
            None => {
                self.exhausted_from = Some(from);
                None
            }
        }
    }

    pub fn needle_len(&self) -> usize {
        self.needle.text.len()
    }

    /// The end of the first occurrence at or after `from`, or `otherwise`.
    pub fn end_of_next(&mut self, from: usize, otherwise: usize) -> usize {
        match self.find(from) {
            Some(found) => found + self.needle_len(),
            None => otherwise,
        }
    }
}

/// [`finders::find_short`] on text: the byte offset of the first `needle` in `haystack`.
pub(crate) fn find_short(haystack: &str, needle: &str) -> Option<usize> {
    finders::find_short(haystack.as_bytes(), needle.as_bytes())
}

/// A small set of fixed markers that all start with one of at most two bytes (`<` and `[` in
/// every format): a `memchr2` scan stops only at those bytes and compares the markers there.
/// Linear: each stop costs at most one comparison per marker.
pub(crate) struct Markers {
    patterns: &'static [&'static str],
    first_bytes: [u8; 2],
}

impl Markers {
    /// Panics (at compile time, in a `static`) when the markers start with more than two
    /// distinct bytes or one is empty.
    pub const fn new(patterns: &'static [&'static str]) -> Self {
        let first = patterns[0].as_bytes()[0];
        let mut other = first;
        let mut i = 0;
        while i < patterns.len() {
            let byte = patterns[i].as_bytes()[0];
            if byte != first {
                assert!(other == first || other == byte, "at most two first bytes");
                other = byte;
            }
            i += 1;
        }
        Self {
            patterns,
            first_bytes: [first, other],
        }
    }

    /// The leftmost marker that lies within `text[from..end]` (the first listed wins at one
    /// position).
    pub fn find(&self, text: &str, from: usize, end: usize) -> Option<Marker> {
        let bytes = &text.as_bytes()[..end];
        let [a, b] = self.first_bytes;
        let mut pos = from;
        while let Some(i) = find_either(a, b, &bytes[pos..]) {
            let start = pos + i;
            let rest = &bytes[start..];
            let found = self
                .patterns
                .iter()
                .position(|p| rest.starts_with(p.as_bytes()));
            if let Some(pattern) = found {
                let end = start + self.patterns[pattern].len();
                return Some(Marker {
                    start,
                    end,
                    pattern,
                });
            }
            pos = start + 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_in_code_spans_are_prose() {
        static MARKERS: Markers = Markers::new(&["<x>"]);
        let text = "say `<x>` or ``a ` <x>`` then <x>\n`open <x>\n<x>";
        let mut cursor = ProseCursor::new(text, &MARKERS, 0);
        let first = cursor.next(0, text.len()).unwrap();
        assert_eq!(first.start, text.find(" then <x>").unwrap() + 6);
        let second = cursor.next(first.end, text.len()).unwrap();
        assert_eq!(second.start, text.len() - 3);
        assert!(cursor.next(second.end, text.len()).is_none());
    }

    #[test]
    fn markers_in_json_fences_are_prose() {
        static MARKERS: Markers = Markers::new(&["<x>"]);
        let text = "a\n```json\n{\"s\": \"<x>\"}\n```\n```xml\n<x>\n```";
        let mut cursor = ProseCursor::new(text, &MARKERS, 0);
        let found = cursor.next(0, text.len()).unwrap();
        assert_eq!(found.start, text.rfind("<x>").unwrap());
    }

    #[test]
    fn markers_find_the_leftmost_within_the_range() {
        static TWO: Markers = Markers::new(&["<ab>", "[c]", "<a"]);
        let text = "x <a [c] <ab> [d";
        let at = |from, end| {
            TWO.find(text, from, end)
                .map(|m| (m.start, m.end, m.pattern))
        };
        assert_eq!(at(0, text.len()), Some((2, 4, 2)));
        assert_eq!(at(3, text.len()), Some((5, 8, 1)));
        assert_eq!(at(6, text.len()), Some((9, 13, 0)));
        // A marker must end within the range; the first listed wins at one position.
        assert_eq!(at(6, 12), Some((9, 11, 2)));
        assert_eq!(at(10, text.len()), None);
    }

    #[test]
    fn find_short_finds_the_first_occurrence() {
        assert_eq!(find_short("a to to= to=x", "to="), Some(5));
        assert_eq!(find_short("tto=", "to="), Some(1));
        assert_eq!(find_short("to", "to="), None);
        assert_eq!(find_short("", "to="), None);
    }

    #[test]
    fn seek_caches_and_stops() {
        static CLOSE: Needle = Needle::new("</c>");
        let text = "a</c>b</c>";
        let mut seek = Seek::new(text, text.len(), &CLOSE);
        assert_eq!(seek.find(0), Some(1));
        assert_eq!(seek.find(1), Some(1));
        assert_eq!(seek.find(2), Some(6));
        assert_eq!(seek.find(7), None);
        assert_eq!(seek.find(9), None);
        assert_eq!(seek.end_of_next(0, 99), 5);
    }
}
