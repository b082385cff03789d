//! Byte offsets into character offsets, lines and columns, for error messages. Python users
//! index `str` by code point, so that is what toolwire reports.

/// Converts increasing byte offsets of one text to character offsets in amortised linear time.
pub struct CharOffsets<'a> {
    text: &'a str,
    byte: usize,
    chars: usize,
}

impl<'a> CharOffsets<'a> {
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            byte: 0,
            chars: 0,
        }
    }

    /// The character offset of `byte` (clamped to the text; rounded down to a char boundary).
    pub fn char_offset(&mut self, byte: usize) -> usize {
        let mut byte = byte.min(self.text.len());
        while !self.text.is_char_boundary(byte) {
            byte -= 1;
        }
        if byte < self.byte {
            self.byte = 0;
            self.chars = 0;
        }
        self.chars += count_chars(&self.text.as_bytes()[self.byte..byte]);
        self.byte = byte;
        self.chars
    }
}

fn count_chars(bytes: &[u8]) -> usize {
    // Every byte that is not a UTF-8 continuation byte starts a character.
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// 1-based line and character column of `byte` within `text`.
pub fn line_column(text: &str, byte: usize) -> (usize, usize) {
    let byte = byte.min(text.len());
    let before = &text.as_bytes()[..byte];
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    (line, count_chars(&before[line_start..]) + 1)
}

/// Where each item of a top-level JSON array begins: the byte offset of its first byte in
/// `text`, in one string-aware pass (`'` quotes strings too when `lenient`). Empty when `text`
/// is not an array. Used only to place errors, so a text the parser rejected never gets here.
///
/// ```
/// use toolwire_core::position::array_item_starts;
/// assert_eq!(array_item_starts(r#" [1, "a,]", {"b": [2, 3]}]"#, false), vec![2, 5, 12]);
/// ```
pub fn array_item_starts(text: &str, lenient: bool) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = Vec::new();
    let first = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let Some(open) = first.filter(|&i| bytes[i] == b'[') else {
        return starts;
    };
    let mut depth = 0usize;
    let mut expect_item = true;
    let mut i = open + 1;
    while i < bytes.len() {
        let b = bytes[i];
        if depth == 0 && expect_item && !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b']' | b',') {
            starts.push(i);
            expect_item = false;
        }
        match b {
            b'"' | b'\'' if b == b'"' || lenient => {
                // To the closing quote (escapes skipped), or the end.
                let mut j = i + 1;
                i = loop {
                    match memchr::memchr2(b, b'\\', bytes.get(j..).unwrap_or_default()) {
                        Some(k) if bytes[j + k] == b'\\' => j += k + 2,
                        Some(k) => break j + k,
                        None => break bytes.len(),
                    }
                };
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth == 0 => break,
            b'}' | b']' => depth -= 1,
            b',' if depth == 0 => expect_item = true,
            _ => {}
        }
        i += 1;
    }
    starts
}

/// 1-based lines and columns of increasing byte offsets of one text, in amortised linear
/// time (see [`line_column`]).
pub struct LineColumns<'a> {
    text: &'a str,
    byte: usize,
    line: usize,
    column: usize,
}

impl<'a> LineColumns<'a> {
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            byte: 0,
            line: 1,
            column: 1,
        }
    }

    /// The line and column of `byte`, at or after every earlier query.
    pub fn at(&mut self, byte: usize) -> (usize, usize) {
        let byte = byte.min(self.text.len());
        if byte < self.byte {
            return line_column(self.text, byte);
        }
        let piece = &self.text.as_bytes()[self.byte..byte];
        match memchr::memrchr(b'\n', piece) {
            Some(last) => {
                self.line += memchr::memchr_iter(b'\n', piece).count();
                self.column = count_chars(&piece[last + 1..]) + 1;
            }
            None => self.column += count_chars(piece),
        }
        self.byte = byte;
        (self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_offsets_count_code_points() {
        let text = "aé😀b\nc";
        let mut offsets = CharOffsets::new(text);
        assert_eq!(offsets.char_offset(1), 1);
        assert_eq!(offsets.char_offset(3), 2);
        assert_eq!(offsets.char_offset(7), 3);
        assert_eq!(offsets.char_offset(8), 4);
        assert_eq!(offsets.char_offset(2), 1);
        assert_eq!(line_column(text, 10), (2, 2));
        assert_eq!(line_column(text, 3), (1, 3));
    }

    #[test]
    fn array_items_and_their_lines() {
        let text = "[\n {\"a\": \"]\\\"\"},\n 'x', [1, [2]] ]";
        let starts = array_item_starts(text, true);
        let items: Vec<&str> = starts.iter().map(|&s| &text[s..s + 1]).collect();
        assert_eq!(items, vec!["{", "'", "["]);
        assert_eq!(array_item_starts(text, false), starts);
        assert_eq!(array_item_starts("[\"a\\", false), vec![1]);
        assert!(array_item_starts("{\"a\": [1, 2]}", false).is_empty());
        let mut lines = LineColumns::new(text);
        for &s in &starts {
            assert_eq!(lines.at(s), line_column(text, s));
        }
    }
}
