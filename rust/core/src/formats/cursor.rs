//! Forward-only searches shared by the decoders and the stream machines: start markers outside
//! code spans ([`ProseCursor`]), and the one resumable search for closing markers ([`Seek`]),
//! which works on a complete text and on a stream region's growing buffer alike. Both keep every
//! parse linear: no byte is searched twice as long as the positions asked for only grow.

use std::sync::OnceLock;

use aho_corasick::packed::{self, Searcher};
use aho_corasick::Span;

use crate::scan::find::{self, find_any3, find_byte, find_either, Needle};

/// A marker found in a text: its span and which pattern of its set it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Marker {
    pub start: usize,
    pub end: usize,
    /// Index of the pattern in its set (0 for a [`Needle`]).
    pub pattern: usize,
}

/// What a search over a text that may still grow found.
pub(crate) enum Search {
    Found(Marker),
    /// Nothing, but a pattern may complete from here once more text comes.
    Partial(usize),
    None,
}

/// Something a [`Seek`] looks for: one marker, or a set of them.
pub(crate) trait Pattern: Sync {
    /// The leftmost occurrence in `hay[from..]`.
    fn search(&self, hay: &[u8], from: usize) -> Search;

    /// Whether an occurrence may start in `piece`: it holds a byte one of the markers starts
    /// with.
    fn may_start_in(&self, piece: &[u8]) -> bool;
}

impl Pattern for Needle {
    fn search(&self, hay: &[u8], from: usize) -> Search {
        if from > hay.len() {
            return Search::None;
        }
        let needle = self.text.as_bytes();
        match self.find(&hay[from..]) {
            Some(i) => Search::Found(Marker {
                start: from + i,
                end: from + i + needle.len(),
                pattern: 0,
            }),
            None => match partial_tail(hay, from, needle) {
                Some(at) => Search::Partial(at),
                None => Search::None,
            },
        }
    }

    fn may_start_in(&self, piece: &[u8]) -> bool {
        find_byte(self.text.as_bytes()[0], piece).is_some()
    }
}

/// Where a proper prefix of `needle` ends `hay[from..]`, if one does.
fn partial_tail(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let earliest = hay.len().saturating_sub(needle.len() - 1).max(from);
    (earliest..hay.len()).find(|&at| needle.starts_with(&hay[at..]))
}

/// A resumable forward search for one [`Pattern`] in a text that only grows (or never changes).
/// It remembers its last answer, and how far it knows there is none, so that asking again from
/// the same or a later position costs nothing more than the new bytes.
pub(crate) struct Seek {
    pattern: Target,
    /// The position last asked from.
    asked: usize,
    /// The leftmost occurrence at or after `asked`, once found.
    found: Option<Marker>,
    /// No occurrence starts in `asked..clear`.
    clear: usize,
}

/// What a [`Seek`] searches with.
#[derive(Clone, Copy)]
enum Target {
    Pattern(&'static dyn Pattern),
    /// A marker set searched as text dense with their first byte ([`Markers::search_dense`]).
    Dense(&'static Markers, &'static DenseSearcher),
}

impl Target {
    fn search(self, hay: &[u8], from: usize) -> Search {
        match self {
            Self::Pattern(pattern) => pattern.search(hay, from),
            Self::Dense(markers, searcher) => markers.search_dense(searcher, hay, from),
        }
    }

    fn may_start_in(self, piece: &[u8]) -> bool {
        match self {
            Self::Pattern(pattern) => pattern.may_start_in(piece),
            Self::Dense(markers, _) => markers.may_start_in(piece),
        }
    }
}

impl Seek {
    pub fn new(pattern: &'static dyn Pattern) -> Self {
        Self::of(Target::Pattern(pattern))
    }

    /// A search for `markers` in text dense with their first byte (HTML or code in a value):
    /// the same answers as [`Seek::new`]'s, found with [`Markers::search_dense`].
    pub fn dense(markers: &'static Markers, searcher: &'static DenseSearcher) -> Self {
        Self::of(Target::Dense(markers, searcher))
    }

    fn of(pattern: Target) -> Self {
        Self {
            pattern,
            asked: 0,
            found: None,
            clear: 0,
        }
    }

    /// The leftmost occurrence that starts at or after `from` and ends within `hay`. An
    /// occurrence cut by the end of `hay` is not reported (a stream region waits for more).
    pub fn find(&mut self, hay: &[u8], from: usize) -> Option<Marker> {
        if from < self.asked {
            self.found = None;
            self.clear = from;
        }
        self.asked = from;
        if let Some(found) = self.found.filter(|f| f.start >= from) {
            return Some(found);
        }
        match self.pattern.search(hay, from.max(self.clear)) {
            Search::Found(found) => {
                self.found = Some(found);
                Some(found)
            }
            Search::Partial(at) => {
                self.clear = at;
                None
            }
            Search::None => {
                self.clear = hay.len().max(from);
                None
            }
        }
    }

    /// Moves past `piece`, appended to a text of `len` bytes, when that is all asking again
    /// from `from` would do: the last search, from `from`, found nothing up to `len` (not even a
    /// marker cut by its end), and no marker may start in `piece`. Returns whether it did. A
    /// stream region takes a chunk so without reading it again.
    pub fn skip_piece(&mut self, from: usize, len: usize, piece: &[u8]) -> bool {
        let cleared = self.asked == from
            && self.clear == len
            && self.found.is_none_or(|found| found.start < from);
        if !cleared || self.pattern.may_start_in(piece) {
            return false;
        }
        self.clear = len + piece.len();
        true
    }

    /// How far the last search that found nothing knows there is none: a marker cut by the
    /// end of the text may start here.
    pub fn clear_to(&self) -> usize {
        self.clear
    }

    /// The start of the next occurrence at or after `from`.
    pub fn start_of_next(&mut self, hay: &[u8], from: usize) -> Option<usize> {
        self.find(hay, from).map(|m| m.start)
    }

    /// The end of the next occurrence at or after `from`, or `otherwise`.
    pub fn end_of_next(&mut self, hay: &[u8], from: usize, otherwise: usize) -> usize {
        self.find(hay, from).map_or(otherwise, |m| m.end)
    }
}

/// Where the markup of a call that failed ends, given the next marker of a call's ends (its closing marker first, then the openings of the next) at or
/// after the failure: past a closing tag, before an opening one (the next call's), or at
/// `otherwise` when none comes.
pub(crate) fn failed_end(next: Option<Marker>, otherwise: usize) -> usize {
    match next {
        Some(found) if found.pattern == 0 => found.end,
        Some(found) => found.start,
        None => otherwise,
    }
}

/// A [`Seek`] over one complete text, up to `end`: what the decoders use.
pub(crate) struct TextSeek<'t> {
    hay: &'t [u8],
    seek: Seek,
}

impl<'t> TextSeek<'t> {
    pub fn new(text: &'t str, end: usize, pattern: &'static dyn Pattern) -> Self {
        Self {
            hay: &text.as_bytes()[..end],
            seek: Seek::new(pattern),
        }
    }

    /// [`Seek::dense`] over one complete text.
    pub fn dense(
        text: &'t str,
        end: usize,
        (markers, searcher): (&'static Markers, &'static DenseSearcher),
    ) -> Self {
        Self {
            hay: &text.as_bytes()[..end],
            seek: Seek::dense(markers, searcher),
        }
    }

    /// The start of the first occurrence at or after `from`.
    pub fn find(&mut self, from: usize) -> Option<usize> {
        self.seek.start_of_next(self.hay, from)
    }

    /// The first occurrence at or after `from`.
    pub fn next(&mut self, from: usize) -> Option<Marker> {
        self.seek.find(self.hay, from)
    }

    /// The end of the first occurrence at or after `from`, or `otherwise`.
    pub fn end_of_next(&mut self, from: usize, otherwise: usize) -> usize {
        self.seek.end_of_next(self.hay, from, otherwise)
    }
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
            line_start: (start == 0 || matches!(text.as_bytes()[start - 1], b'\n' | b'\r'))
                .then_some(start),
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

    /// Updates the code-span state with the text up to `to`. A line ends at `\n`, `\r\n` or a
    /// lone `\r`, as everywhere.
    fn advance(&mut self, to: usize) {
        let bytes = self.text.as_bytes();
        let mut pos = self.scanned;
        while let Some(i) = find_any3(b'`', b'\n', b'\r', &bytes[pos..to]) {
            pos += i;
            if bytes[pos] != b'`' {
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
                let line_end = find_either(b'\n', b'\r', &bytes[pos..to]).map_or(to, |i| pos + i);
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

/// [`find::find_short`] on text: the byte offset of the first `needle` in `haystack`.
pub(crate) fn find_short(haystack: &str, needle: &str) -> Option<usize> {
    find::find_short(haystack.as_bytes(), needle.as_bytes())
}

/// A small set of fixed markers, no one a prefix of another, that all start with one of at
/// most two bytes (`<` and `[` in every format): a `memchr2` scan stops only at those bytes and
/// compares the markers there. Linear: each stop costs at most one comparison per marker.
pub(crate) struct Markers {
    patterns: &'static [&'static str],
    first_bytes: [u8; 2],
}

/// A marker set's Teddy searcher ([`Markers::search_dense`]), built on first use. It is kept
/// beside its set in a `static`: a [`Markers`] is often a promoted constant, which holds no
/// lock.
pub(crate) type DenseSearcher = OnceLock<Searcher>;

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

    /// [`Pattern::search`]'s answer, for text dense with the markers' first bytes (HTML or
    /// code in a value), where the `memchr2` scan would stop and compare at every `<`: Teddy
    /// (`aho_corasick::packed`) fingerprints each marker's first bytes and skips those with a
    /// SIMD scan. Then a marker cut by the end of `hay` may start only at one of those bytes
    /// near the end.
    pub fn search_dense(&self, searcher: &DenseSearcher, hay: &[u8], from: usize) -> Search {
        if from > hay.len() {
            return Search::None;
        }
        let searcher = searcher.get_or_init(|| {
            packed::Config::new()
                .match_kind(packed::MatchKind::LeftmostFirst)
                .builder()
                .extend(self.patterns)
                .build()
                .expect("a few short markers")
        });
        if let Some(found) = searcher.find_in(hay, Span::from(from..hay.len())) {
            return Search::Found(Marker {
                start: found.start(),
                end: found.end(),
                pattern: found.pattern().as_usize(),
            });
        }
        let longest = self.patterns.iter().map(|p| p.len()).max().unwrap_or(1);
        let tail = hay.len().saturating_sub(longest - 1).max(from);
        let [a, b] = self.first_bytes;
        let mut at = tail;
        while let Some(i) = find_either(a, b, &hay[at..]) {
            let rest = &hay[at + i..];
            let cut = |p: &&str| {
                let p = p.as_bytes();
                rest.get(1).is_none_or(|&b| p.get(1) == Some(&b)) && p.starts_with(rest)
            };
            if self.patterns.iter().any(cut) {
                return Search::Partial(at + i);
            }
            at += i + 1;
        }
        Search::None
    }

    /// The markers, in their order.
    pub fn patterns(&self) -> &'static [&'static str] {
        self.patterns
    }

    /// The leftmost marker that lies within `text[from..end]` (the first listed wins at one
    /// position).
    pub fn find(&self, text: &str, from: usize, end: usize) -> Option<Marker> {
        match self.search(&text.as_bytes()[..end], from) {
            Search::Found(found) => Some(found),
            Search::Partial(_) | Search::None => None,
        }
    }
}

impl Pattern for Markers {
    fn search(&self, hay: &[u8], from: usize) -> Search {
        let [a, b] = self.first_bytes;
        let mut pos = from.min(hay.len());
        let mut partial = None;
        while let Some(i) = find_either(a, b, &hay[pos..]) {
            let start = pos + i;
            let rest = &hay[start..];
            for (pattern, text) in self.patterns.iter().enumerate() {
                let text = text.as_bytes();
                if rest.starts_with(text) {
                    let end = start + text.len();
                    return Search::Found(Marker {
                        start,
                        end,
                        pattern,
                    });
                }
                if partial.is_none() && text.starts_with(rest) {
                    partial = Some(start);
                }
            }
            pos = start + 1;
        }
        match partial {
            Some(at) => Search::Partial(at),
            None => Search::None,
        }
    }

    fn may_start_in(&self, piece: &[u8]) -> bool {
        let [a, b] = self.first_bytes;
        find_either(a, b, piece).is_some()
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
    fn lines_end_at_a_lone_cr_and_at_crlf() {
        static MARKERS: Markers = Markers::new(&["<x>"]);
        for end in ["\r", "\r\n"] {
            // A fence's info line ends at the line end: the block is JSON, its marker prose.
            let text = format!("a{end}```json{end}{{\"s\": \"<x>\"}}{end}```{end}```xml{end}<x>");
            let mut cursor = ProseCursor::new(&text, &MARKERS, 0);
            let found = cursor.next(0, text.len()).map(|m| m.start);
            assert_eq!(found, text.rfind("<x>"), "{text:?}");
            // A line end closes a code span.
            let text = format!("`open <x>{end}<x>");
            let mut cursor = ProseCursor::new(&text, &MARKERS, 0);
            let found = cursor.next(0, text.len()).map(|m| m.start);
            assert_eq!(found, text.rfind("<x>"), "{text:?}");
            // A cursor starting after a line end starts a line (a fence may open there).
            let text = format!("x{end}```json{end}\"<x>\"{end}```{end}<x>");
            let start = text.find('`').unwrap();
            let mut cursor = ProseCursor::new(&text, &MARKERS, start);
            let found = cursor.next(start, text.len()).map(|m| m.start);
            assert_eq!(found, text.rfind("<x>"), "{text:?}");
        }
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
        let text = b"a</c>b</c>";
        let mut seek = Seek::new(&CLOSE);
        assert_eq!(seek.start_of_next(text, 0), Some(1));
        assert_eq!(seek.start_of_next(text, 1), Some(1));
        assert_eq!(seek.start_of_next(text, 2), Some(6));
        assert_eq!(seek.start_of_next(text, 7), None);
        assert_eq!(seek.start_of_next(text, 9), None);
        assert_eq!(seek.end_of_next(text, 0, 99), 5);
    }

    #[test]
    fn seek_resumes_in_a_growing_text_without_missing_a_cut_marker() {
        static SET: Markers = Markers::new(&["</c>", "<|end|>"]);
        let whole = "ab</x> <|en</c> <|end|>";
        for cut in 0..=whole.len() {
            let mut seek = Seek::new(&SET);
            let early = seek.find(&whole.as_bytes()[..cut], 0);
            if let Some(found) = early {
                assert!(found.end <= cut);
            }
            let late = seek.find(whole.as_bytes(), 0).unwrap();
            assert_eq!(
                (late.start, late.pattern),
                (whole.find("</c>").unwrap(), 0),
                "{cut}"
            );
            let next = seek.find(whole.as_bytes(), late.end).unwrap();
            assert_eq!(next.pattern, 1);
        }
    }
}
