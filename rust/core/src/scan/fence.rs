//! Finding `~~~tool_call` blocks.
//!
//! A block opens with a line that is exactly `~~~tool_call`, or ```` ```tool_call ```` (the same
//! fence in backticks), after optional indentation (trailing spaces and tabs allowed), outside
//! any ```` ``` ```` code block, and closes at the first line that is its own fence (`~~~` or
//! ```` ``` ````, same allowances) **outside a JSON string** of its body. A line ends at `\n`,
//! `\r\n` or a lone `\r` (old Mac line endings). Everything is found in one forward pass:
//! `memmem` for the marker, `memchr` through bodies.

use std::ops::Range;

use smallvec::SmallVec;

use super::find::{find_any4, find_either, Needle};

static TOOL_CALL: Needle = Needle::new("tool_call");

/// The characters a fence is written in: tildes (the protocol) and backticks (markdown's code
/// fence, which models write out of habit: ```` ```tool_call ````).
const FENCE_BYTES: [u8; 2] = [b'~', b'`'];

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

/// The end of the line starting at `start`: the index after its line break (`\n`, `\r\n` or a
/// lone `\r`), or the text length.
pub(crate) fn line_end(bytes: &[u8], start: usize) -> usize {
    memchr::memchr2(b'\n', b'\r', &bytes[start..])
        .map_or(bytes.len(), |i| after_break(bytes, start + i))
}

/// The end of the line break at `i` (a `\n` or a `\r`; `\r\n` is one break).
fn after_break(bytes: &[u8], i: usize) -> usize {
    if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
        i + 2
    } else {
        i + 1
    }
}

/// Classifies the line starting at `start` as a fence line, returning its fence character and
/// its end (after its line break). Read forward from the fence: a fence line is short, and a
/// line that merely holds `~~~` stops at its first other character.
///
/// An opening line is `~~~tool_call`, also spaced as `~~~ tool_call` (a model's slip, whose
/// intent is plain). A closing line is `~~~`, or `~~~`, a space or tab and any text: the block
/// closes there and the text is prose (`~~~ and then some prose`, as the seed reads it). The
/// same in backticks.
fn fence_line(bytes: &[u8], start: usize) -> Option<(FenceLine, u8, usize)> {
    let mut i = start;
    loop {
        let n = indent_len(&bytes[i..]);
        if n == 0 {
            break;
        }
        i += n;
    }
    let fence = *bytes.get(i).filter(|b| FENCE_BYTES.contains(b))?;
    if !bytes[i..].starts_with(&[fence; 3]) {
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
            return Some((FenceLine::Open, fence, end));
        }
    }
    match padding_to_line_end(bytes, i) {
        Some(end) => Some((FenceLine::Close, fence, end)),
        None if spaced => Some((FenceLine::Close, fence, line_end(bytes, i))),
        None => None,
    }
}

/// A fence line that ends or closes the body of a block fenced in `fence`: an opening line in
/// either fence, a closing line in its own.
fn body_fence_line(bytes: &[u8], start: usize, fence: u8) -> Option<(FenceLine, usize)> {
    match fence_line(bytes, start)? {
        (FenceLine::Close, f, _) if f != fence => None,
        (kind, _, end) => Some((kind, end)),
    }
}

/// The end of the line (after its break) when only spaces and tabs come from `i` to it.
fn padding_to_line_end(bytes: &[u8], i: usize) -> Option<usize> {
    let i = skip_padding(bytes, i);
    if i == bytes.len() {
        return Some(i);
    }
    blank_line_end(bytes, i)
}

/// The end of the line break that blank space (spaces and tabs) from `i` runs to, if one does.
fn blank_line_end(bytes: &[u8], i: usize) -> Option<usize> {
    let i = skip_padding(bytes, i);
    matches!(bytes.get(i), Some(b'\n' | b'\r')).then(|| after_break(bytes, i))
}

fn skip_padding(bytes: &[u8], i: usize) -> usize {
    i + bytes[i..]
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t'))
        .count()
}

/// Where the fence of a closing line (`line`, from its start) ends: after `~~~` and its
/// padding, before the prose a closing line may carry (the whole line when it has none).
pub fn closing_fence_len(line: &[u8]) -> usize {
    let mut i = line
        .iter()
        .position(|b| FENCE_BYTES.contains(b))
        .map_or(0, |i| i + 3);
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
    (j == 0 || matches!(bytes[j - 1], b'\n' | b'\r')).then_some(j)
}

/// Tracks whether a position lies inside a Markdown code block, scanning forward only. A block
/// opens at a line of three or more backticks, or of three or more tildes that is not one of
/// the protocol's own fence lines (`~~~xml`, `~~~~`), and closes at a line of at least as many
/// of its own fence characters and nothing else (CommonMark; the stream's `CodeClose`).
struct CodeBlocks<'a> {
    bytes: &'a [u8],
    scanned_to: usize,
    /// The open block's fence character and run length.
    open: Option<(u8, usize)>,
}

impl<'a> CodeBlocks<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            scanned_to: 0,
            open: None,
        }
    }

    /// Whether `pos` (at or after every earlier query) is inside a code block.
    fn inside_at(&mut self, pos: usize) -> bool {
        let bytes = self.bytes;
        while self.scanned_to < pos {
            let Some(found) = find_either(b'`', b'~', &bytes[self.scanned_to..pos]) else {
                self.scanned_to = pos;
                break;
            };
            let at = self.scanned_to + found;
            let fence = bytes[at];
            let run = bytes[at..].iter().take_while(|&&b| b == fence).count();
            if let (true, Some(line_start)) = (run >= 3, at_line_start(bytes, at)) {
                self.open = match self.open {
                    None if fence == b'`' || fence_line(bytes, line_start).is_none() => {
                        Some((fence, run))
                    }
                    Some((open, need))
                        if open == fence
                            && run >= need
                            && padding_to_line_end(bytes, at + run).is_some() =>
                    {
                        None
                    }
                    open => open,
                };
            }
            self.scanned_to = line_end(bytes, at).min(pos).max(at + run);
        }
        self.open.is_some()
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
    find_blocks_with(text, |_, _| None)
}

/// [`find_blocks`], asking `known_close(body_start, fence)` first for each body: a caller that
/// has already decoded the body's JSON (and so knows where it ends) returns the closing line's
/// start and end, sparing the string-aware scan. Returning `None` falls back to the scan.
pub fn find_blocks_with(
    text: &str,
    mut known_close: impl FnMut(usize, u8) -> Option<(usize, usize)>,
) -> Blocks {
    let bytes = text.as_bytes();
    let mut code_blocks = CodeBlocks::new(bytes);
    let mut blocks = Blocks::new();
    let mut pos = 0;
    // Set once a body scan has run to the end of the text inside a string: any later scan that
    // reaches a fence line inside a string is then in the same state there and would also run
    // to the end, so it stops at once. This keeps the whole scan linear.
    let mut string_runs_to_end = false;
    while let Some(found) = TOOL_CALL.find(&bytes[pos..]) {
        let tag = pos + found;
        // The fence before the tag (`~~~tool_call`, or spaced: `~~~ tool_call`).
        let mut marker = tag;
        while marker > pos && matches!(bytes[marker - 1], b' ' | b'\t') {
            marker -= 1;
        }
        let fenced = marker >= pos + 3
            && FENCE_BYTES
                .iter()
                .any(|&f| bytes[marker - 3..marker] == [f; 3]);
        let Some(line_start) = fenced.then(|| at_line_start(bytes, marker - 3)).flatten() else {
            pos = tag + 1;
            continue;
        };
        let Some((FenceLine::Open, fence, body_start)) = fence_line(bytes, line_start) else {
            pos = tag + 1;
            continue;
        };
        if code_blocks.inside_at(line_start) {
            pos = body_start;
            continue;
        }
        let end = match known_close(body_start, fence) {
            Some((close_start, close_end)) => BodyEnd::Closed(close_start, close_end),
            None => match scan_body(bytes, body_start, fence, string_runs_to_end) {
                BodyEnd::EndOfText => {
                    string_runs_to_end = true;
                    first_fence_line(bytes, body_start, fence)
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

/// The closing line of a block fenced in `fence` that follows a complete JSON value ending at
/// `end`, with nothing but blank space between them: the line's start and end. A JSON value
/// cannot hold a bare fence line outside its strings, so this agrees with the string-aware scan
/// of [`find_blocks`].
pub fn closing_fence_after(text: &str, end: usize, fence: u8) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    // The rest of the value's own line must be blank, and so must every line before the fence.
    let mut line_start = blank_line_end(bytes, end)?;
    loop {
        if let Some((FenceLine::Close, line_end)) = body_fence_line(bytes, line_start, fence) {
            return Some((line_start, line_end));
        }
        line_start = blank_line_end(bytes, line_start)?;
    }
}

/// Walks a body from `start`, tracking JSON strings, to the first fence line outside a string.
fn scan_body(bytes: &[u8], start: usize, fence: u8, stop_at_fence_in_string: bool) -> BodyEnd {
    let mut i = start;
    let mut in_string = false;
    let mut line_start = Some(start);
    loop {
        if let Some(ls) = line_start.take() {
            if let Some((kind, end)) = body_fence_line(bytes, ls, fence) {
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
                    return first_fence_line(bytes, start, fence);
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
            // An escape only means something inside a string, and never escapes a line break
            // (JSON has no such escape): the line after it may be a fence line.
            b'\\' => {
                let escapes = in_string && !matches!(bytes.get(i + 1), Some(b'\n' | b'\r'));
                i += if escapes { 2 } else { 1 };
            }
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

/// The offset of the next `"`, `\\` or line break. In JSON bodies these are usually a few
/// bytes apart, closer than a SIMD search pays for its setup, so a short plain loop goes first;
/// long runs (big string arguments) go to the vector searches.
fn next_json_special(bytes: &[u8]) -> Option<usize> {
    const SHORT: usize = 32;
    let head = &bytes[..bytes.len().min(SHORT)];
    if let Some(found) = head
        .iter()
        .position(|&b| matches!(b, b'"' | b'\\' | b'\n' | b'\r'))
    {
        return Some(found);
    }
    find_any4(b'"', b'\\', b'\n', b'\r', &bytes[head.len()..]).map(|found| head.len() + found)
}

/// The first fence line of a block fenced in `fence` at or after `start`, ignoring strings
/// (the fallback for a body whose quotes never balance).
fn first_fence_line(bytes: &[u8], start: usize, fence: u8) -> BodyEnd {
    let mut search = start;
    while let Some(found) = find_either(b'~', b'`', &bytes[search..]) {
        let at = search + found;
        if let Some(ls) = at_line_start(bytes, at).filter(|&ls| ls >= start) {
            match body_fence_line(bytes, ls, fence) {
                Some((FenceLine::Close, end)) => return BodyEnd::Closed(ls, end),
                Some((FenceLine::Open, _)) => return BodyEnd::NextOpen(ls),
                None => {}
            }
        }
        search = at + 1;
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
    /// or tabs allowed before `tool_call`), then nothing but spaces and tabs up to the line's
    /// break (`\n`, `\r\n` or `\r`); or `~~~`, a space or tab, and any text (a closing line
    /// with prose). The same in backticks.
    fn fence_line_by_definition(bytes: &[u8], start: usize) -> Option<(FenceLine, u8, usize)> {
        let rest = &bytes[start..];
        let (line, end) = match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(i) if rest[i..].starts_with(b"\r\n") => (&rest[..i], start + i + 2),
            Some(i) => (&rest[..i], start + i + 1),
            None => (rest, bytes.len()),
        };
        let text = std::str::from_utf8(line)
            .ok()?
            .trim_start_matches([' ', '\t']);
        let padding = |s: &str| s.bytes().all(|b| matches!(b, b' ' | b'\t'));
        let (fence, rest) = ["~~~", "```"]
            .into_iter()
            .find_map(|f| Some((f.as_bytes()[0], text.strip_prefix(f)?)))?;
        let tag = rest.trim_start_matches([' ', '\t']);
        if tag.strip_prefix("tool_call").is_some_and(padding) {
            return Some((FenceLine::Open, fence, end));
        }
        (padding(rest) || tag.len() < rest.len()).then_some((FenceLine::Close, fence, end))
    }

    #[test]
    fn fence_lines_are_read_as_defined() {
        let parts = [
            "",
            " ",
            "\t",
            "~~~",
            "~",
            "```",
            "`",
            "tool_call",
            "tool_calls",
            "\r",
            "\r\n",
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
    fn cr_only_line_endings() {
        let text = "hi\r~~~tool_call\r{\"name\":\"a\"}\r~~~\rend\r\r  ~~~ tool_call\r\n[\r]\r~~~ x";
        assert_eq!(
            bodies(text),
            vec![("{\"name\":\"a\"}\r", true), ("[\r]\r", true)]
        );
        // A lone `\r` inside a string is a line break inside the string, as `\n` is.
        let text = "~~~tool_call\r{\"a\": \"x\r~~~\ry\"}\r~~~\r";
        assert_eq!(bodies(text), vec![("{\"a\": \"x\r~~~\ry\"}\r", true)]);
        assert_eq!(closing_fence_after("{}\r\r~~~\rx", 2, b'~'), Some((4, 8)));
        assert_eq!(closing_fence_after("{}\r\n~~~\r\nx", 2, b'~'), Some((4, 9)));
    }

    #[test]
    fn backtick_fences() {
        assert_eq!(
            bodies("Calling:\n```tool_call\n{}\n```\nDone."),
            vec![("{}\n", true)]
        );
        // Each block closes with its own fence; an opening line in either ends a body.
        assert_eq!(
            bodies("```tool_call\n{}\n~~~\n```\n~~~tool_call\n[]\n```\n~~~"),
            vec![("{}\n~~~\n", true), ("[]\n```\n", true)]
        );
        assert_eq!(
            bodies("~~~tool_call\n{\n```tool_call\n{}\n```"),
            vec![("{\n", false), ("{}\n", true)]
        );
        assert_eq!(closing_fence_after("{}\n```\n", 2, b'`'), Some((3, 7)));
        assert_eq!(closing_fence_after("{}\n```\n", 2, b'~'), None);
        // In a code block, it is a quoted example like a `~~~tool_call` block.
        assert!(find_blocks("```\n```tool_call\n{}\n```\n```\n").is_empty());
        assert!(find_blocks("````tool_call\n{}\n````\n").is_empty());
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
        assert_eq!(closing_fence_after(text, 8, b'~'), Some((13, 20)));
        assert_eq!(closing_fence_after("{} ~~~\n", 2, b'~'), None);
        assert_eq!(closing_fence_after("{}\nx\n~~~\n", 2, b'~'), None);
        assert_eq!(closing_fence_after("{}\n", 2, b'~'), None);
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
