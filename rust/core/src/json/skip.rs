//! Checking JSON without building or decoding it: the strict grammar of the parser, without
//! its error reports. Where the skipper gives up (`None`: a syntax error, or nesting near the
//! limit) the caller lets the parser judge, so errors and their offsets are the parser's.
//! Whatever the skipper accepts, the parser accepts too, ending at the same byte.

use super::{plain_run, JsonBuilder, JsonStr, MAX_DEPTH};

/// The end of the JSON value at `pos` (no whitespace before it), inside `depth` open
/// containers, or `None` for the parser to judge.
pub(crate) fn skip_value(bytes: &[u8], pos: usize, depth: usize) -> Option<usize> {
    let mut skipper = Skipper { bytes, pos };
    skipper.value(depth)?;
    Some(skipper.pos)
}

/// Where the object at `pos` of `text` (its `{`, inside `depth` open containers) ends, when
/// `builder` takes objects as checked text and the skipper accepts this one; `None` when the
/// caller should build it as usual.
pub fn deferrable_object<B: JsonBuilder>(
    builder: &B,
    text: &str,
    pos: usize,
    depth: usize,
) -> Option<usize> {
    if !builder.defers_objects() || text.as_bytes().get(pos) != Some(&b'{') {
        return None;
    }
    skip_value(text.as_bytes(), pos, depth)
}

/// Builds nothing: validates JSON that nobody needs.
pub(crate) struct SkipBuilder;

impl JsonBuilder for SkipBuilder {
    type Value = ();
    type Object = ();
    type Array = ();
    type Error = std::convert::Infallible;

    fn null(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
    fn boolean(&mut self, _: bool) -> Result<(), Self::Error> {
        Ok(())
    }
    fn int(&mut self, _: i64) -> Result<(), Self::Error> {
        Ok(())
    }
    fn big_int(&mut self, _: &str) -> Result<(), Self::Error> {
        Ok(())
    }
    fn float(&mut self, _: f64) -> Result<(), Self::Error> {
        Ok(())
    }
    fn string(&mut self, _: JsonStr<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
    fn new_object(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
    fn object_insert(&mut self, _: &mut (), _: JsonStr<'_>, _: ()) -> Result<(), Self::Error> {
        Ok(())
    }
    fn finish_object(&mut self, _: ()) -> Result<(), Self::Error> {
        Ok(())
    }
    fn new_array(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
    fn array_push(&mut self, _: &mut (), _: ()) -> Result<(), Self::Error> {
        Ok(())
    }
    fn finish_array(&mut self, _: ()) -> Result<(), Self::Error> {
        Ok(())
    }
}

struct Skipper<'b> {
    bytes: &'b [u8],
    pos: usize,
}

impl Skipper<'_> {
    fn peek(&self) -> Option<u8> {
        self.peek_at(self.pos)
    }

    fn peek_at(&self, pos: usize) -> Option<u8> {
        self.bytes.get(pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => self.string(),
            b'{' => self.container(depth + 1, b'}'),
            b'[' => self.container(depth + 1, b']'),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// The object or list at `pos` (its opening bracket), the `depth`-th open container.
    fn container(&mut self, depth: usize, close: u8) -> Option<()> {
        if depth >= MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        self.skip_whitespace();
        if self.peek()? == close {
            self.pos += 1;
            return Some(());
        }
        loop {
            self.skip_whitespace();
            if close == b'}' {
                if self.peek()? != b'"' {
                    return None;
                }
                self.string()?;
                self.skip_whitespace();
                if self.peek()? != b':' {
                    return None;
                }
                self.pos += 1;
                self.skip_whitespace();
            }
            self.value(depth)?;
            self.skip_whitespace();
            match self.peek()? {
                b',' => self.pos += 1,
                c if c == close => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The string at `pos` (its opening quote): runs of plain bytes, checked escapes.
    fn string(&mut self) -> Option<()> {
        let mut at = self.pos + 1;
        loop {
            let (end, _) = plain_run(self.bytes, at, b'"');
            match self.peek_at(end)? {
                b'"' => {
                    self.pos = end + 1;
                    return Some(());
                }
                b'\\' => {
                    at = match self.peek_at(end + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => end + 2,
                        b'u' if self
                            .bytes
                            .get(end + 2..end + 6)?
                            .iter()
                            .all(u8::is_ascii_hexdigit) =>
                        {
                            end + 6
                        }
                        _ => return None,
                    }
                }
                // A control character.
                _ => return None,
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.pos + word.len();
        (self.bytes.get(self.pos..end)? == word).then(|| self.pos = end)
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. One that may be
    /// beyond any float (a float with 300 or more integer digits, or an exponent of three or
    /// more digits) is read as a float here: one beyond it is left to the parser, which may
    /// refuse it (`ParseOptions::finite`).
    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        if self.peek()? == b'-' {
            self.pos += 1;
        }
        let int_start = self.pos;
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        let int_digits = self.pos - int_start;
        let mut float = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.peek().filter(u8::is_ascii_digit)?;
            self.digits();
            float = true;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            self.peek().filter(u8::is_ascii_digit)?;
            let exponent = self.pos;
            self.digits();
            if self.pos - exponent >= 3 {
                return self.finite(start);
            }
            float = true;
        }
        match float && int_digits >= 300 {
            true => self.finite(start),
            false => Some(()),
        }
    }

    /// Whether the number from `start` to here is a finite float (the rare long ones only).
    fn finite(&self, start: usize) -> Option<()> {
        let text = std::str::from_utf8(&self.bytes[start..self.pos]).ok()?;
        text.parse::<f64>().ok()?.is_finite().then_some(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse_prefix, ParseOptions, ValueBuilder};

    /// Away from the nesting limit the skipper accepts exactly what the strict parser accepts,
    /// ending at the same byte, whatever follows the value.
    #[test]
    fn accepts_what_the_parser_accepts_and_ends_where_it_ends() {
        let values = [
            r#""""#,
            r#""a\"b\\c\/\b\f\n\r\t\u00e9\ud800""#,
            r#""é ✓ 🚀""#,
            "\"a\u{1}\"",
            r#""\x""#,
            r#""\u12g4""#,
            r#""open"#,
            "0",
            "-0",
            "-",
            "01",
            "1.",
            "1.5",
            "1e",
            "1e+9",
            "-2.5E-3",
            "12345678901234567890123",
            "1e+100",
            "-2.5e-300",
            "true",
            "tru",
            "false",
            "null",
            "nul",
            "True",
            "{}",
            "[]",
            "[1, 2 ,3]",
            "[1,]",
            r#"{"a": [1, {"b": null}], "c": "d"}"#,
            r#"{"a" 1}"#,
            r#"{"a": 1,}"#,
            "{1: 2}",
            "[1 2]",
            "[",
            "'x'",
            "",
        ];
        for value in values {
            for text in [value.to_owned(), format!("{value}, 7"), format!("{value}]")] {
                let skipped = skip_value(text.as_bytes(), 0, 0);
                let parsed = parse_prefix(&text, &mut ValueBuilder, ParseOptions::default());
                assert_eq!(skipped, parsed.map(|(_, end)| end).ok(), "{text}");
            }
        }
        // A number beyond any float is the parser's to judge (it may refuse it).
        for text in ["1e400", "-1e999"] {
            assert_eq!(skip_value(text.as_bytes(), 0, 0), None, "{text}");
        }
        assert_eq!(
            skip_value(b"[[[]]]", 0, MAX_DEPTH - 3),
            None,
            "near the limit"
        );
        assert_eq!(skip_value(b"[[[]]]", 0, MAX_DEPTH - 4), Some(6));
    }
}
