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
}
