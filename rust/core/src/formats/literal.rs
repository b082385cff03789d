//! Python literals (what `ast.literal_eval` accepts, minus complex numbers and bytes), read
//! into a [`JsonBuilder`]. Nothing is ever evaluated: a name, a call, an operator is an error.
//! Tuples and sets become lists (a set's items in the order written: JSON has no set); dict
//! keys must be strings. A string may carry the prefix `u`, or `f` when it holds no `{` or `}`
//! (an f-string with nothing to format is a plain string; one with a placeholder is an
//! expression, an error).

use crate::json::{JsonBuilder, JsonStr, SkipBuilder, MAX_DEPTH};

/// Why a literal could not be read, at a byte offset of the text.
#[derive(Debug)]
pub(crate) struct LiteralError {
    pub offset: usize,
    pub detail: String,
}

pub(crate) enum LitErr<E> {
    Syntax(LiteralError),
    Build(E),
}

impl<E> From<LiteralError> for LitErr<E> {
    fn from(error: LiteralError) -> Self {
        LitErr::Syntax(error)
    }
}

pub(crate) type LitResult<T, E> = Result<T, LitErr<E>>;

/// A reader over `text[pos..end]`.
pub(crate) struct Literals<'t> {
    pub bytes: &'t [u8],
    pub text: &'t str,
    pub pos: usize,
    pub end: usize,
    depth: usize,
    scratch: String,
    /// Where the string being read must close (see [`Literals::string_closed_at`]).
    close_at: Option<usize>,
}

impl<'t> Literals<'t> {
    pub fn new(text: &'t str, pos: usize, end: usize) -> Self {
        Self {
            bytes: text.as_bytes(),
            text,
            pos,
            end,
            depth: 0,
            scratch: String::new(),
            close_at: None,
        }
    }

    pub fn error(&self, detail: impl Into<String>) -> LiteralError {
        LiteralError {
            offset: self.pos,
            detail: detail.into(),
        }
    }

    pub fn peek(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.bytes[self.pos])
    }

    pub fn skip_ws(&mut self) {
        self.pos = super::cx::skip_ws(self.text, self.pos, self.end);
    }

    /// Consumes `byte` (after whitespace) if it is next.
    pub fn eat(&mut self, byte: u8) -> bool {
        self.skip_ws();
        if self.peek() == Some(byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// A Python identifier (ASCII letters, digits, `_`, and non-ASCII letters).
    pub fn identifier(&mut self) -> Option<&'t str> {
        let start = self.pos;
        let rest = &self.text[start..self.end];
        // Names are ASCII nearly always: bytes first, chars only from the first non-ASCII one.
        let mut len = rest
            .bytes()
            .position(|b| !(b == b'_' || b.is_ascii_alphanumeric()))
            .unwrap_or(rest.len());
        if !rest.as_bytes().get(len).is_none_or(u8::is_ascii) {
            len += rest[len..]
                .chars()
                .take_while(|&c| c == '_' || c.is_alphanumeric())
                .map(char::len_utf8)
                .sum::<usize>();
        }
        let first = rest.chars().next()?;
        if len == 0 || !(first == '_' || first.is_alphabetic()) {
            return None;
        }
        self.pos += len;
        Some(&self.text[start..start + len])
    }

    /// One literal value.
    pub fn value<B: JsonBuilder>(&mut self, b: &mut B) -> LitResult<B::Value, B::Error> {
        self.skip_ws();
        let Some(byte) = self.peek() else {
            return Err(self.error("expected a value, found the end").into());
        };
        match byte {
            b'\'' | b'"' => self.string(b),
            b'0'..=b'9' | b'-' | b'+' | b'.' => self.number(b),
            b'[' => self.sequence(b, b']'),
            b'(' => self.sequence(b, b')'),
            b'{' => self.dict(b),
            _ => {
                let start = self.pos;
                match self.identifier() {
                    Some(prefix @ ("u" | "U" | "f" | "F"))
                        if matches!(self.peek(), Some(b'\'' | b'"')) =>
                    {
                        self.prefixed_string(b, prefix, start)
                    }
                    // JSON's spellings too: models mix them into Python calls.
                    Some("True" | "true") => b.boolean(true).map_err(LitErr::Build),
                    Some("False" | "false") => b.boolean(false).map_err(LitErr::Build),
                    Some("None" | "null") => b.null().map_err(LitErr::Build),
                    Some(name) => {
                        self.pos = start;
                        Err(self
                            .error(format!(
                                "'{name}' is not a literal (only literal values are accepted)"
                            ))
                            .into())
                    }
                    None => Err(self.error("expected a literal value").into()),
                }
            }
        }
    }

    fn enter(&mut self) -> Result<(), LiteralError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nesting deeper than 256 levels"));
        }
        Ok(())
    }

    /// `[…]` or `(…)` (a tuple; `(x)` alone is just `x`).
    fn sequence<B: JsonBuilder>(&mut self, b: &mut B, close: u8) -> LitResult<B::Value, B::Error> {
        self.enter()?;
        self.pos += 1;
        let mut array = b.new_array().map_err(LitErr::Build)?;
        let mut count = 0;
        let mut trailing_comma = false;
        loop {
            if self.eat(close) {
                break;
            }
            if count > 0 && !trailing_comma {
                return Err(self
                    .error(format!("expected ',' or '{}'", close as char))
                    .into());
            }
            let item = self.value(b)?;
            if close == b')' && count == 0 && self.eat(b')') {
                // A parenthesised value, not a tuple.
                self.depth -= 1;
                return Ok(item);
            }
            b.array_push(&mut array, item).map_err(LitErr::Build)?;
            count += 1;
            trailing_comma = self.eat(b',');
        }
        self.depth -= 1;
        b.finish_array(array).map_err(LitErr::Build)
    }

    fn dict<B: JsonBuilder>(&mut self, b: &mut B) -> LitResult<B::Value, B::Error> {
        if self.opens_set() {
            return self.sequence(b, b'}');
        }
        self.enter()?;
        self.pos += 1;
        let mut object = b.new_object().map_err(LitErr::Build)?;
        let mut first = true;
        let mut trailing_comma = false;
        loop {
            if self.eat(b'}') {
                break;
            }
            if !first && !trailing_comma {
                return Err(self.error("expected ',' or '}'").into());
            }
            self.skip_ws();
            if !matches!(self.peek(), Some(b'\'' | b'"')) {
                return Err(self.error("dict keys must be strings").into());
            }
            let quote = self.bytes[self.pos];
            let (start, end, escaped) = self.string_span(quote)?;
            let key = if escaped {
                self.scratch.clone()
            } else {
                self.text[start..end].to_owned()
            };
            if !self.eat(b':') {
                return Err(self.error("expected ':'").into());
            }
            let value = self.value(b)?;
            b.object_insert(&mut object, JsonStr::from_utf8(&key), value)
                .map_err(LitErr::Build)?;
            first = false;
            trailing_comma = self.eat(b',');
        }
        self.depth -= 1;
        b.finish_object(object).map_err(LitErr::Build)
    }

    /// Whether the `{` at `pos` opens a set (`{'a', 'b'}`): it holds an item that no `:`
    /// follows.
    fn opens_set(&mut self) -> bool {
        let (open, depth) = (self.pos, self.depth);
        self.pos += 1;
        self.skip_ws();
        let set =
            self.peek() != Some(b'}') && self.value(&mut SkipBuilder).is_ok() && !self.eat(b':');
        (self.pos, self.depth) = (open, depth);
        set
    }

    /// A string after its prefix (`u'…'`, or `f'…'` with nothing to format), the prefix at
    /// `start`.
    fn prefixed_string<B: JsonBuilder>(
        &mut self,
        b: &mut B,
        prefix: &str,
        start: usize,
    ) -> LitResult<B::Value, B::Error> {
        let body = self.pos;
        let value = self.string(b)?;
        if prefix.eq_ignore_ascii_case("f") && self.text[body..self.pos].contains(['{', '}']) {
            self.pos = start;
            return Err(self
                .error("an f-string with placeholders is not a literal")
                .into());
        }
        Ok(value)
    }

    /// The one-quoted string at the reader, its body running to the quote at `close`: quotes
    /// of its kind before that are part of it (a model that left them unescaped).
    pub fn string_closed_at<B: JsonBuilder>(
        &mut self,
        b: &mut B,
        close: usize,
    ) -> LitResult<B::Value, B::Error> {
        self.close_at = Some(close);
        let value = self.string(b);
        self.close_at = None;
        value
    }

    /// A string, and those written right after it: adjacent literals are one string, as in
    /// Python (`'a' "b"` is `'ab'`).
    fn string<B: JsonBuilder>(&mut self, b: &mut B) -> LitResult<B::Value, B::Error> {
        let mut joined: Option<String> = None;
        loop {
            let quote = self.bytes[self.pos];
            let (start, end, escaped) = self.string_span(quote)?;
            let piece = if escaped {
                self.scratch.as_str()
            } else {
                &self.text[start..end]
            };
            let next = super::cx::skip_ws(self.text, self.pos, self.end);
            let adjacent = self.close_at.is_none()
                && next < self.end
                && matches!(self.bytes[next], b'\'' | b'"');
            match (adjacent, &mut joined) {
                (true, Some(text)) => text.push_str(piece),
                (true, None) => joined = Some(piece.to_owned()),
                (false, _) => {
                    let value = match joined {
                        Some(mut text) => {
                            text.push_str(piece);
                            b.string(JsonStr::from_utf8(&text))
                        }
                        None => b.string(JsonStr::from_utf8(piece)),
                    };
                    return value.map_err(LitErr::Build);
                }
            }
            self.pos = next;
        }
    }

    /// Reads a quoted string (single, double, or triple quoted). Returns the raw body's range
    /// and whether it had escapes, in which case the decoded text is in `scratch`.
    fn string_span(&mut self, quote: u8) -> Result<(usize, usize, bool), LiteralError> {
        let open = self.pos;
        let triple = self.bytes[self.pos..self.end].starts_with(&[quote; 3]);
        self.pos += if triple { 3 } else { 1 };
        let start = self.pos;
        let mut escaped = false;
        self.scratch.clear();
        loop {
            // A raw newline in a one-line string is read as a newline, as the model meant it
            // (a multi-line shell command), not as the end of the text.
            let Some(i) = memchr::memchr2(quote, b'\\', &self.bytes[self.pos..self.end]) else {
                self.pos = open;
                return Err(self.error("unterminated string"));
            };
            let at = self.pos + i;
            if escaped {
                self.scratch.push_str(&self.text[self.pos..at]);
            }
            match self.bytes[at] {
                b'\\' => {
                    if !escaped {
                        escaped = true;
                        self.scratch.push_str(&self.text[start..at]);
                    }
                    self.pos = at + 1;
                    self.escape()?;
                }
                _ => {
                    let closes = (!triple || self.bytes[at..self.end].starts_with(&[quote; 3]))
                        && self.close_at.is_none_or(|close| close == at);
                    if closes {
                        self.pos = at + if triple { 3 } else { 1 };
                        return Ok((start, at, escaped));
                    }
                    if escaped {
                        self.scratch.push(quote as char);
                    }
                    self.pos = at + 1;
                }
            }
        }
    }

    /// One escape sequence (after the backslash), appended to `scratch`.
    fn escape(&mut self) -> Result<(), LiteralError> {
        let Some(c) = self.text[self.pos..self.end].chars().next() else {
            return Err(self.error("unterminated string"));
        };
        self.pos += c.len_utf8();
        let simple = match c {
            '\n' => Some(None),
            '\\' => Some(Some('\\')),
            '\'' => Some(Some('\'')),
            '"' => Some(Some('"')),
            'n' => Some(Some('\n')),
            't' => Some(Some('\t')),
            'r' => Some(Some('\r')),
            'b' => Some(Some('\u{8}')),
            'f' => Some(Some('\u{c}')),
            'v' => Some(Some('\u{b}')),
            'a' => Some(Some('\u{7}')),
            _ => None,
        };
        if let Some(decoded) = simple {
            self.scratch.extend(decoded);
            return Ok(());
        }
        let digits = match c {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            '0'..='7' => {
                // Octal: up to three digits, the first already read.
                let mut value = c as u32 - '0' as u32;
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            value = value * 8 + (d - b'0') as u32;
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                self.scratch
                    .push(char::from_u32(value).unwrap_or('\u{fffd}'));
                return Ok(());
            }
            other => {
                // Python keeps unknown escapes as written.
                self.scratch.push('\\');
                self.scratch.push(other);
                return Ok(());
            }
        };
        let hex = self
            .text
            .get(self.pos..self.pos + digits)
            .filter(|_| self.pos + digits <= self.end);
        let code = hex.and_then(|h| {
            u32::from_str_radix(h, 16)
                .ok()
                .filter(|_| h.bytes().all(|b| b.is_ascii_hexdigit()))
        });
        match code.and_then(char::from_u32) {
            Some(ch) => {
                self.scratch.push(ch);
                self.pos += digits;
                Ok(())
            }
            None => Err(self.error(format!("invalid \\{c} escape"))),
        }
    }

    /// An int (decimal, hex, octal, binary; `_` separators) or a float, with an optional sign.
    fn number<B: JsonBuilder>(&mut self, b: &mut B) -> LitResult<B::Value, B::Error> {
        let start = self.pos;
        let mut negative = false;
        if let Some(sign @ (b'-' | b'+')) = self.peek() {
            negative = sign == b'-';
            self.pos += 1;
            self.skip_ws();
        }
        let body_start = self.pos;
        while self.pos < self.end
            && (self.bytes[self.pos].is_ascii_alphanumeric()
                || matches!(self.bytes[self.pos], b'_' | b'.'))
        {
            // An exponent sign belongs to the number.
            if matches!(self.bytes[self.pos], b'e' | b'E')
                && !self.bytes[body_start..self.pos].starts_with(b"0x")
                && matches!(self.bytes.get(self.pos + 1), Some(b'+' | b'-'))
            {
                self.pos += 1;
            }
            self.pos += 1;
        }
        let raw: String = self.text[body_start..self.pos]
            .chars()
            .filter(|&c| c != '_')
            .collect();
        let invalid = |s: &Self| LiteralError {
            offset: start,
            detail: format!("invalid number '{}'", &s.text[start..s.pos]),
        };
        if raw.is_empty() || self.text[body_start..self.pos].contains("__") {
            return Err(invalid(self).into());
        }
        let radix = match raw.get(..2).map(str::to_ascii_lowercase).as_deref() {
            Some("0x") => Some(16),
            Some("0o") => Some(8),
            Some("0b") => Some(2),
            _ => None,
        };
        if let Some(radix) = radix {
            let digits = &raw[2..];
            return match i64::from_str_radix(digits, radix) {
                Ok(v) if !digits.is_empty() => {
                    b.int(if negative { -v } else { v }).map_err(LitErr::Build)
                }
                _ => Err(invalid(self).into()),
            };
        }
        let is_int = raw.bytes().all(|c| c.is_ascii_digit());
        if is_int {
            if raw.len() > 1 && raw.starts_with('0') && raw.bytes().any(|c| c != b'0') {
                return Err(invalid(self).into());
            }
            let digits = raw.trim_start_matches('0');
            let signed = format!(
                "{}{}",
                if negative { "-" } else { "" },
                if digits.is_empty() { "0" } else { digits }
            );
            return match signed.parse::<i64>() {
                Ok(v) => b.int(v).map_err(LitErr::Build),
                Err(_) => b.big_int(&signed).map_err(|e| match b.refusal(&e) {
                    // A value the builder refuses fails this literal alone, like a bad one.
                    Some(refusal) => LitErr::Syntax(LiteralError {
                        offset: start,
                        detail: refusal.message(),
                    }),
                    None => LitErr::Build(e),
                }),
            };
        }
        let valid_float = raw
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
            && raw.bytes().any(|c| c.is_ascii_digit());
        match raw.parse::<f64>() {
            Ok(v) if valid_float && v.is_finite() => b
                .float(if negative { -v } else { v })
                .map_err(LitErr::Build),
            _ => Err(invalid(self).into()),
        }
    }
}

/// Reads the whole of `text` as one literal (surrounding whitespace allowed).
pub(crate) fn parse_literal<B: JsonBuilder>(
    b: &mut B,
    text: &str,
) -> LitResult<B::Value, B::Error> {
    let mut reader = Literals::new(text, 0, text.len());
    let value = reader.value(b)?;
    reader.skip_ws();
    if reader.pos < reader.end {
        return Err(reader.error("extra text after the literal").into());
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Value, ValueBuilder};

    fn lit(text: &str) -> Result<Value, String> {
        parse_literal(&mut ValueBuilder, text).map_err(|e| match e {
            LitErr::Syntax(e) => format!("{}@{}", e.detail, e.offset),
            LitErr::Build(never) => match never {},
        })
    }

    #[test]
    fn identifiers_are_ascii_or_unicode_words_not_starting_with_a_digit() {
        fn read(text: &str, end: usize) -> Option<(&str, usize)> {
            let mut reader = Literals::new(text, 0, end);
            let name = reader.identifier()?;
            Some((name, reader.pos))
        }
        assert_eq!(read("get_weather(", 12), Some(("get_weather", 11)));
        assert_eq!(read("_x1 =", 5), Some(("_x1", 3)));
        assert_eq!(read("météo2_x(", 10), Some(("météo2_x", 10)));
        assert_eq!(read("été", 5), Some(("été", 5)));
        assert_eq!(read("ab_cd", 3), Some(("ab_", 3)));
        assert_eq!(read("1abc", 4), None);
        assert_eq!(read("²x", 3), None);
        assert_eq!(read("x²", 3), Some(("x²", 3)));
        assert_eq!(read("(a", 2), None);
        assert_eq!(read("", 0), None);
    }

    #[test]
    fn literals() {
        assert_eq!(lit("'a\\'b\\n'").unwrap(), Value::str("a'b\n"));
        assert_eq!(lit("\"x\\u00e9\\x41\"").unwrap(), Value::str("xéA"));
        assert_eq!(lit("'''a\n'b'''").unwrap(), Value::str("a\n'b"));
        assert_eq!(lit("'a\nb'").unwrap(), Value::str("a\nb"));
        assert_eq!(lit("'a\\'\nb'").unwrap(), Value::str("a'\nb"));
        assert_eq!(lit("'C:\\d'").unwrap(), Value::str("C:\\d"));
        // Adjacent literals are one string, escapes and all.
        assert_eq!(lit("'a' \"b\\n\"\n'c'").unwrap(), Value::str("ab\nc"));
        assert_eq!(lit("['a' 'b', 'c']").unwrap(), lit("['ab', 'c']").unwrap());
        assert_eq!(lit("-12").unwrap(), Value::Int(-12));
        assert_eq!(lit("1_000").unwrap(), Value::Int(1000));
        assert_eq!(lit("0x1F").unwrap(), Value::Int(31));
        assert_eq!(
            lit("99999999999999999999").unwrap(),
            Value::BigInt("99999999999999999999".into())
        );
        assert_eq!(lit("1.5e-3").unwrap(), Value::Float(0.0015));
        assert_eq!(lit(".5").unwrap(), Value::Float(0.5));
        assert_eq!(lit("4.0").unwrap(), Value::Float(4.0));
        assert_eq!(lit("[true, null]").unwrap(), lit("[True, None]").unwrap());
        // A set is a list in the order written; `{}` is still a dict.
        assert_eq!(lit("{'b', 'a'}").unwrap(), lit("['b', 'a']").unwrap());
        assert_eq!(lit("{1, (2, 3),}").unwrap(), lit("[1, [2, 3]]").unwrap());
        assert_eq!(lit("{'a'}").unwrap(), lit("['a']").unwrap());
        assert_eq!(lit("{}").unwrap(), Value::object([]));
        // A string prefixed with u, or with f and nothing to format.
        assert_eq!(lit("f'hello'").unwrap(), Value::str("hello"));
        assert_eq!(lit("F\"a b\"").unwrap(), Value::str("a b"));
        assert_eq!(lit("u'x'").unwrap(), Value::str("x"));
        assert_eq!(
            lit("[True, False, None, (1, 2), (3), (), {'k': [1,]},]").unwrap(),
            Value::array(vec![
                Value::Bool(true),
                Value::Bool(false),
                Value::Null,
                Value::array(vec![Value::Int(1), Value::Int(2)]),
                Value::Int(3),
                Value::array(vec![]),
                Value::object([("k", Value::array(vec![Value::Int(1)]))]),
            ])
        );
    }

    #[test]
    fn non_literals_are_errors() {
        assert!(lit("x").unwrap_err().starts_with("'x' is not a literal"));
        assert!(lit("f(1)").is_err());
        assert!(lit("1 + 2").is_err());
        assert!(lit("{1: 2}")
            .unwrap_err()
            .starts_with("dict keys must be strings"));
        assert!(lit("f'{x}'").unwrap_err().starts_with("an f-string with"));
        assert!(lit("f'{{x}}'").is_err());
        assert!(lit("r'x'").unwrap_err().starts_with("'r' is not a literal"));
        assert!(lit("{'a', x}").is_err());
        assert!(lit("'abc").unwrap_err().starts_with("unterminated string"));
        assert!(lit("007").is_err());
        assert!(lit("1e999").is_err());
        assert!(lit("nil").is_err());
        let deep = "[".repeat(10_000);
        assert!(lit(&deep).unwrap_err().starts_with("nesting deeper"));
    }
}
