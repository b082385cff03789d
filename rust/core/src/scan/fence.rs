//! Finding `~~~tool_call` blocks.
//!
//! A block opens with a line that is exactly `~~~tool_call` (after optional spaces/tabs; trailing
//! spaces, tabs and CR allowed) outside any ```` ``` ```` code block, and closes at the first line
//! that is `~~~` (same allowances) **outside a JSON string** of its body. Everything is found in
//! one forward pass: `memmem` for the marker, `memchr` through bodies.

use std::ops::Range;

use smallvec::SmallVec;

use super::find::Needle;

const TOOL_CALL: &str = "tool_call";
static TILDES: Needle = Needle::new("~~~");
static BACKTICKS: Needle = Needle::new("```");

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenceBlock {
    /// From the start of the opening line to the end of the closing line (or of the body).
    pub span: Range<usize>,
    /// The lines between the fences.
    pub body: Range<usize>,
    /// False when no closing fence came before the next opening fence or the end of the text.
    pub terminated: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum FenceLine {
    Open,
    Close,
}

/// The end of the line starting at `start`: the index after its `\n`, or the text length.
fn line_end(bytes: &[u8], start: usize) -> usize {
    memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i + 1)
}

/// Classifies the line starting at `start` as a fence line, returning its end (after its
/// `\n`). Read forward from the tildes: a fence line is short, and a line that merely holds
/// `~~~` stops at its first other character.
///
/// An opening line is `~~~tool_call`, also spaced as `~~~ tool_call` (a model's slip, whose
/// intent is plain). A closing line is `~~~`, or `~~~`, a space or tab and any text: the block
/// closes there and the text is prose (`~~~ and then some prose`, as the seed reads it).
fn fence_line(bytes: &[u8], start: usize) -> Option<(FenceLine, usize)> {
    let mut i = start;
    loop {
        let n = indent_len(&bytes[i..]);
        if n == 0 {
            break;
        }
        i += n;
    }
    if !bytes[i..].starts_with(b"~~~") {
        return None;
    }
    i += 3;
    let after_tildes = i;
    while let Some(b' ' | b'\t') = bytes.get(i) {
        i += 1;
    }
    let spaced = i > after_tildes;
    if bytes[i..].starts_with(b"tool_call") {
        if let Some(end) = padding_to_line_end(bytes, i + "tool_call".len()) {
            return Some((FenceLine::Open, end));
        }
    }
    match padding_to_line_end(bytes, i) {
        Some(end) => Some((FenceLine::Close, end)),
        None if spaced => Some((FenceLine::Close, line_end(bytes, i))),
        None => None,
    }
}

/// The end of the line (after its `\n`) when only spaces, tabs and `\r` come from `i` to it.
fn padding_to_line_end(bytes: &[u8], mut i: usize) -> Option<usize> {
    while let Some(b' ' | b'\t' | b'\r') = bytes.get(i) {
        i += 1;
    }
    match bytes.get(i) {
        None => Some(i),
        Some(b'\n') => Some(i + 1),
        Some(_) => None,
    }
}

/// Where the fence of a closing line (`line`, from its start) ends: after `~~~` and its
/// padding, before the prose a closing line may carry (the whole line when it has none).
pub fn closing_fence_len(line: &[u8]) -> usize {
    let mut i = line.iter().position(|&b| b == b'~').map_or(0, |i| i + 3);
    while let Some(b' ' | b'\t' | b'\r') = line.get(i) {
        i += 1;
    }
    match line.get(i) {
        None | Some(b'\n') => line.len(),
        Some(_) => i,
    }
}

/// A byte order mark (U+FEFF) at the very start of a text.
pub const LEADING_BOM: &str = "\u{feff}";

/// Characters read as indentation before a fence line, like spaces and tabs: invisible or
/// no-break characters that editors, copy-paste and some tokenizers put before a line (a
/// byte order mark, a zero-width space, a word joiner, a no-break space). A fence they hide
/// is still the fence the model wrote.
pub const INVISIBLE_INDENT: [&str; 4] = ["\u{feff}", "\u{200b}", "\u{2060}", "\u{a0}"];

/// The length of the indentation character (space, tab or [`INVISIBLE_INDENT`]) that starts
/// `bytes`, or 0.
pub fn indent_len(bytes: &[u8]) -> usize {
    match bytes.first() {
        Some(b' ' | b'\t') => 1,
        Some(&b) if b >= 0x80 => INVISIBLE_INDENT
            .iter()
            .find(|c| bytes.starts_with(c.as_bytes()))
            .map_or(0, |c| c.len()),
        _ => 0,
    }
}

/// The length of the indentation character that ends `bytes`, or 0.
fn indent_len_before(bytes: &[u8]) -> usize {
    match bytes.last() {
        Some(b' ' | b'\t') => 1,
        Some(&b) if b >= 0x80 => INVISIBLE_INDENT
            .iter()
            .find(|c| bytes.ends_with(c.as_bytes()))
            .map_or(0, |c| c.len()),
        _ => 0,
    }
}

fn at_line_start(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    loop {
        let n = indent_len_before(&bytes[..j]);
        if n == 0 {
            break;
        }
        j -= n;
    }
    (j == 0 || bytes[j - 1] == b'\n').then_some(j)
}

/// Tracks whether a position lies inside a ```` ``` ```` code block, scanning forward only.
struct CodeBlocks<'a> {
    bytes: &'a [u8],
    scanned_to: usize,
    inside: bool,
}

impl<'a> CodeBlocks<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            scanned_to: 0,
            inside: false,
        }
    }

    /// Whether `pos` (at or after every earlier query) is inside a code block.
    fn inside_at(&mut self, pos: usize) -> bool {
        while self.scanned_to < pos {
            let Some(found) = BACKTICKS.find(&self.bytes[self.scanned_to..pos]) else {
                self.scanned_to = pos;
                break;
            };
            let at = self.scanned_to + found;
            let line_end = line_end(self.bytes, at);
            if at_line_start(self.bytes, at).is_some() {
                self.inside = !self.inside;
            }
            self.scanned_to = line_end.min(pos).max(at + 3);
        }
        self.inside
    }

    /// Skips a region (a tool-call block) whose backticks are not code fences.
    fn skip_to(&mut self, pos: usize) {
        self.scanned_to = self.scanned_to.max(pos);
    }
}

enum BodyEnd {
    /// A closing fence line: its start and end.
    Closed(usize, usize),
    /// Another opening fence line starts here first: the block is unterminated.
    NextOpen(usize),
    /// The scan ran out of text inside a JSON string.
    EndOfText,
}

/// The blocks of a text: almost always one or two, kept without a heap allocation.
pub type Blocks = SmallVec<[FenceBlock; 2]>;

/// Finds every `~~~tool_call` block of `text`, in order.
pub fn find_blocks(text: &str) -> Blocks {
    find_blocks_with(text, |_| None)
}

/// [`find_blocks`], asking `known_close(body_start)` first for each body: a caller that has
/// already decoded the body's JSON (and so knows where it ends) returns the closing line's
/// start and end, sparing the string-aware scan. Returning `None` falls back to the scan.
pub fn find_blocks_with(
    text: &str,
    mut known_close: impl FnMut(usize) -> Option<(usize, usize)>,
) -> Blocks {
    let bytes = text.as_bytes();
    let mut code_blocks = CodeBlocks::new(bytes);
    let mut blocks = Blocks::new();
    let mut pos = 0;
    // Set once a body scan has run to the end of the text inside a string: any later scan that
    // reaches a fence line inside a string is then in the same state there and would also run
    // to the end, so it stops at once. This keeps the whole scan linear.
    let mut string_runs_to_end = false;
    // Tildes are rarer than the tag's word, which the hermes tags hold too.
    while let Some(found) = TILDES.find(&bytes[pos..]) {
        let tildes = pos + found;
        // The tag after the tildes (`~~~tool_call`, or spaced: `~~~ tool_call`).
        let mut tag = tildes + 3;
        while matches!(bytes.get(tag), Some(b' ' | b'\t')) {
            tag += 1;
        }
        let tagged = bytes[tag..].starts_with(TOOL_CALL.as_bytes());
        let Some(line_start) = tagged.then(|| at_line_start(bytes, tildes)).flatten() else {
            pos = tildes + 1;
            continue;
        };
        let Some((FenceLine::Open, body_start)) = fence_line(bytes, line_start) else {
            pos = tildes + 1;
            continue;
        };
        if code_blocks.inside_at(line_start) {
            pos = body_start;
            continue;
        }
        let end = match known_close(body_start) {
            Some((close_start, close_end)) => BodyEnd::Closed(close_start, close_end),
            None => match scan_body(bytes, body_start, string_runs_to_end) {
                BodyEnd::EndOfText => {
                    string_runs_to_end = true;
                    first_fence_line(bytes, body_start)
                }
                found => found,
            },
        };
        let (block, next) = match end {
            BodyEnd::Closed(close_start, close_end) => (
                FenceBlock {
                    span: line_start..close_end,
                    body: body_start..close_start,
                    terminated: true,
                },
                close_end,
            ),
            BodyEnd::NextOpen(open_start) => (
                FenceBlock {
                    span: line_start..open_start,
                    body: body_start..open_start,
                    terminated: false,
                },
                open_start,
            ),
            BodyEnd::EndOfText => (
                FenceBlock {
                    span: line_start..bytes.len(),
                    body: body_start..bytes.len(),
                    terminated: false,
                },
                bytes.len(),
            ),
        };
        blocks.push(block);
        code_blocks.skip_to(next);
        pos = next;
    }
    blocks
}

/// The closing fence line that follows a complete JSON value ending at `end`, with nothing but
/// blank space between them: the line's start and end. A JSON value cannot hold a bare `~~~`
/// line outside its strings, so this agrees with the string-aware scan of [`find_blocks`].
pub fn closing_fence_after(text: &str, end: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut i = end;
    // The rest of the value's own line must be blank.
    while let Some(b' ' | b'\t' | b'\r') = bytes.get(i) {
        i += 1;
    }
    if bytes.get(i) != Some(&b'\n') {
        return None;
    }
    loop {
        let line_start = i + 1;
        if let Some((FenceLine::Close, line_end)) = fence_line(bytes, line_start) {
            return Some((line_start, line_end));
        }
        // Only blank lines may come before the fence.
        i = line_start;
        while let Some(b' ' | b'\t' | b'\r') = bytes.get(i) {
            i += 1;
        }
        if bytes.get(i) != Some(&b'\n') {
            return None;
        }
    }
}

/// Walks a body from `start`, tracking JSON strings, to the first fence line outside a string.
fn scan_body(bytes: &[u8], start: usize, stop_at_fence_in_string: bool) -> BodyEnd {
    let mut i = start;
    let mut in_string = false;
    let mut line_start = Some(start);
    loop {
        if let Some(ls) = line_start.take() {
            if let Some((kind, end)) = fence_line(bytes, ls) {
                if !in_string {
                    return match kind {
                        FenceLine::Close => BodyEnd::Closed(ls, end),
                        FenceLine::Open => BodyEnd::NextOpen(ls),
                    };
                }
                if stop_at_fence_in_string {
                    return BodyEnd::EndOfText;
                }
                // No call's string holds a whole opening line: a quote left open ran on into
                // the next block, so this block ends at its first fence line.
                if kind == FenceLine::Open {
                    return first_fence_line(bytes, start);
                }
            }
        }
        let Some(found) = next_json_special(&bytes[i..]) else {
            return BodyEnd::EndOfText;
        };
        i += found;
        match bytes[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            // An escape only means something inside a string; it may escape a newline.
            b'\\' => i += if in_string { 2 } else { 1 },
            _ => {
                i += 1;
                line_start = Some(i);
            }
        }
        if i >= bytes.len() {
            return BodyEnd::EndOfText;
        }
    }
}

/// The offset of the next `"`, `\\` or newline. In JSON bodies these are usually a few bytes
/// apart, closer than a SIMD search pays for its setup, so a short plain loop goes first; long
/// runs (big string arguments) go to `memchr3`.
fn next_json_special(bytes: &[u8]) -> Option<usize> {
    const SHORT: usize = 32;
    let head = &bytes[..bytes.len().min(SHORT)];
    if let Some(found) = head.iter().position(|&b| matches!(b, b'"' | b'\\' | b'\n')) {
        return Some(found);
    }
    memchr::memchr3(b'"', b'\\', b'\n', &bytes[head.len()..]).map(|found| head.len() + found)
}

/// The first fence line at or after `start`, ignoring strings (the fallback for a body whose
/// quotes never balance).
fn first_fence_line(bytes: &[u8], start: usize) -> BodyEnd {
    let mut search = start;
    while let Some(found) = TILDES.find(&bytes[search..]) {
        let at = search + found;
        if let Some(ls) = at_line_start(bytes, at).filter(|&ls| ls >= start) {
            match fence_line(bytes, ls) {
                Some((FenceLine::Close, end)) => return BodyEnd::Closed(ls, end),
                Some((FenceLine::Open, _)) => return BodyEnd::NextOpen(ls),
                None => {}
            }
        }
        search = at + 3;
    }
    BodyEnd::EndOfText
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bodies(text: &str) -> Vec<(&str, bool)> {
        find_blocks(text)
            .into_iter()
            .map(|b| (&text[b.body], b.terminated))
            .collect()
    }

    /// A fence line as the contract words it: optional indent, `~~~` or `~~~tool_call` (spaces
    /// or tabs allowed before `tool_call`), then nothing but spaces, tabs and `\r` up to the
    /// line's end; or `~~~`, a space or tab, and any text (a closing line with prose).
    fn fence_line_by_definition(bytes: &[u8], start: usize) -> Option<(FenceLine, usize)> {
        let end = line_end(bytes, start);
        let line = bytes[start..end]
            .strip_suffix(b"\n")
            .unwrap_or(&bytes[start..end]);
        let text = std::str::from_utf8(line).ok()?;
        let rest = text.trim_start_matches([' ', '\t']).strip_prefix("~~~")?;
        let padding = |s: &str| s.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r'));
        let tag = rest.trim_start_matches([' ', '\t']);
        if tag.strip_prefix("tool_call").is_some_and(padding) {
            return Some((FenceLine::Open, end));
        }
        (padding(rest) || tag.len() < rest.len()).then_some((FenceLine::Close, end))
    }

    #[test]
    fn fence_lines_are_read_as_defined() {
        let parts = [
            "",
            " ",
            "\t",
            "~~~",
            "~",
            "tool_call",
            "tool_calls",
            "\r",
            "x",
            "\n",
        ];
        for a in parts {
            for b in parts {
                for c in parts {
                    for d in parts {
                        let line = format!("{a}{b}{c}{d}");
                        let got = fence_line(line.as_bytes(), 0);
                        let want = fence_line_by_definition(line.as_bytes(), 0);
                        assert_eq!(got, want, "{line:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn plain_blocks_and_crlf() {
        let text =
            "hi\n~~~tool_call\n{\"name\":\"a\"}\n~~~\nmid\r\n  ~~~tool_call \r\n{}\r\n\t~~~\r\nend";
        assert_eq!(
            bodies(text),
            vec![("{\"name\":\"a\"}\n", true), ("{}\r\n", true)]
        );
    }

    #[test]
    fn fence_inside_json_string_does_not_close() {
        let text = "~~~tool_call\n{\"a\": \"x\n~~~\ny\"}\n~~~\n";
        assert_eq!(bodies(text), vec![("{\"a\": \"x\n~~~\ny\"}\n", true)]);
    }

    #[test]
    fn an_open_quote_does_not_run_into_the_next_block() {
        let text =
            "~~~tool_call\n{\"\n~~~\n~~~tool_call\n{\"name\": \"\\\"\", \"arguments\": {}}\n~~~\n";
        assert_eq!(
            bodies(text),
            vec![
                ("{\"\n", true),
                ("{\"name\": \"\\\"\", \"arguments\": {}}\n", true)
            ]
        );
    }

    #[test]
    fn spaced_opening_lines_and_closing_lines_with_prose() {
        let text = "~~~ tool_call\n{}\n~~~ and then some prose\n~~~\ttool_call \n[]\n~~~\n";
        assert_eq!(bodies(text), vec![("{}\n", true), ("[]\n", true)]);
        assert_eq!(closing_fence_len(b"  ~~~ and then\n"), 6);
        assert_eq!(closing_fence_len(b"~~~ \r\n"), 6);
        assert_eq!(closing_fence_len(b"~~~"), 3);
    }

    #[test]
    fn unterminated_block_then_next_block() {
        let text = "~~~tool_call\n{\"name\": \"a\"\n~~~tool_call\n{}\n~~~\n";
        assert_eq!(
            bodies(text),
            vec![("{\"name\": \"a\"\n", false), ("{}\n", true)]
        );
        assert_eq!(bodies("~~~tool_call\n{}"), vec![("{}", false)]);
    }

    #[test]
    fn not_blocks() {
        for text in [
            "~~~tool_calls\n{}\n~~~\n",
            "~~~ tool_calls\n{}\n~~~\n",
            "~~~TOOL_CALL\n{}\n~~~\n",
            "say ~~~tool_call\n{}\n~~~\n",
            "```\n~~~tool_call\n{}\n~~~\n```\n",
            "no markers at all",
        ] {
            assert!(find_blocks(text).is_empty(), "{text:?}");
        }
        assert_eq!(
            bodies("```\ncode\n```\n~~~tool_call\n{}\n~~~"),
            vec![("{}\n", true)]
        );
    }

    #[test]
    fn closing_fence_after_a_value() {
        let text = "{\"a\": 1}  \r\n\n  ~~~ \nrest";
        assert_eq!(closing_fence_after(text, 8), Some((13, 20)));
        assert_eq!(closing_fence_after("{} ~~~\n", 2), None);
        assert_eq!(closing_fence_after("{}\nx\n~~~\n", 2), None);
        assert_eq!(closing_fence_after("{}\n", 2), None);
    }

    #[test]
    fn unbalanced_quote_falls_back_to_first_fence_line() {
        let text = "~~~tool_call\n{\"a\": \"x}\n~~~\n~~~tool_call\n{}\n~~~\n";
        assert_eq!(bodies(text), vec![("{\"a\": \"x}\n", true), ("{}\n", true)]);
    }

    #[test]
    fn repeated_unbalanced_blocks_stay_linear() {
        // Each block's quote is left open: the next opening line, inside that string, ends the
        // block at its own fence line. What matters too is that this takes linear time.
        let text = "~~~tool_call\n\"\n~~~\n".repeat(100_000);
        assert_eq!(find_blocks(&text).len(), 100_000);
        let text = "~~~tool_call\n\"\n".repeat(100_000);
        let blocks = find_blocks(&text);
        assert!(blocks.len() >= 50_000 && blocks.iter().all(|b| !b.terminated));
    }
}
