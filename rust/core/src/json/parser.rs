//! A strict RFC 8259 JSON parser that drives a [`JsonBuilder`] in one pass.
//!
//! Strict mode accepts exactly what `json.loads` accepts, minus `NaN`/`Infinity` (which RFC 8259
//! forbids). Lenient mode (`repair=True` in the API) additionally accepts the mistakes models make:
//! trailing commas, single-quoted strings and keys, `True`/`False`/`None`, unquoted keys, raw
//! control characters in strings, and missing closing brackets at the very end of the input. It
//! never invents a value: a truncated literal or string stays an error. The JSON of model text
//! ([`ParseOptions::model_text`]) also accepts, without repair, a raw tab, line feed or carriage
//! return in a string, which can only mean the character itself. Strings, numbers and
//! errors have their own modules; [`super::members`] reads an object member by member with the
//! same parser.

use super::builder::{JsonBuilder, JsonStr};
use super::error::{refused_at, ParseError, SyntaxError, SyntaxErrorKind};
use super::number::number;
use super::string::{read_string, StrRef};

/// Deepest nesting of arrays and objects accepted; deeper input is an error, not a stack overflow.
pub const MAX_DEPTH: usize = 256;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Accept the repairs listed in the module documentation.
    pub lenient: bool,
    /// Accept a raw tab, line feed or carriage return in a string, as the character itself
    /// (lenient mode accepts every raw control character).
    pub raw_whitespace: bool,
    /// Refuse a number beyond any float (`1e309`), as tool arguments do: it would be
    /// infinity, which JSON cannot write, so the call could not be sent on. `json.loads` (and
    /// `toolwire.loads`, the default options) reads it as infinity.
    pub finite: bool,
}

impl ParseOptions {
    /// Strict JSON, or the repairs of `repair=True`, as tool arguments are read (finite
    /// numbers only).
    pub const fn json(lenient: bool) -> Self {
        Self {
            lenient,
            raw_whitespace: false,
            finite: true,
        }
    }

    /// The JSON a model writes in its text: a raw tab, line feed or carriage return in a
    /// string has one meaning (the character itself), so it is read without repair.
    pub const fn model_text(lenient: bool) -> Self {
        Self {
            lenient,
            raw_whitespace: true,
            finite: true,
        }
    }

    /// Whether the raw control character `byte` (0x00-0x1F) may stand in a string.
    #[inline]
    pub(super) fn accepts_raw_control(self, byte: u8) -> bool {
        self.lenient || (self.raw_whitespace && matches!(byte, b'\t' | b'\n' | b'\r'))
    }
}

/// Parses `data` as one JSON value with only whitespace around it.
pub fn parse<B: JsonBuilder>(
    text: &str,
    builder: &mut B,
    options: ParseOptions,
) -> Result<B::Value, ParseError<B::Error>> {
    let mut parser = Parser::new(text.as_bytes(), options);
    let value = parser.value(builder)?;
    parser.skip_whitespace();
    if parser.pos < text.len() {
        return Err(parser.error(SyntaxErrorKind::TrailingCharacters).into());
    }
    Ok(value)
}

/// Parses one JSON value at the start of `data` (after whitespace), returning it with the byte
/// offset just past it.
pub fn parse_prefix<B: JsonBuilder>(
    text: &str,
    builder: &mut B,
    options: ParseOptions,
) -> Result<(B::Value, usize), ParseError<B::Error>> {
    let mut parser = Parser::new(text.as_bytes(), options);
    let value = parser.value(builder)?;
    Ok((value, parser.pos))
}

/// The cursor of one parse: the position, the nesting depth, and the buffer escaped strings
/// are decoded into.
pub(super) struct Parser<'a> {
    /// The UTF-8 bytes of a `&str`.
    pub(super) data: &'a [u8],
    pub(super) pos: usize,
    pub(super) depth: usize,
    pub(super) lenient: bool,
    options: ParseOptions,
    pub(super) scratch: Vec<u8>,
}

type Res<T, B> = Result<T, ParseError<<B as JsonBuilder>::Error>>;

impl<'a> Parser<'a> {
    pub(super) fn new(data: &'a [u8], options: ParseOptions) -> Self {
        Self {
            data,
            pos: 0,
            depth: 0,
            lenient: options.lenient,
            options,
            scratch: Vec::new(),
        }
    }

    #[inline]
    pub(super) fn error(&self, kind: SyntaxErrorKind) -> SyntaxError {
        SyntaxError {
            kind,
            offset: self.pos,
        }
    }

    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    #[inline]
    pub(super) fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// The JSON value at the current position (after whitespace). A value the builder refuses
    /// is reported at its start, like a syntax error.
    pub(super) fn value<B: JsonBuilder>(&mut self, b: &mut B) -> Res<B::Value, B> {
        self.skip_whitespace();
        let start = self.pos;
        self.value_here(b).map_err(|error| match error {
            ParseError::Build(e) => refused_at(b, e, start),
            syntax => syntax,
        })
    }

    fn value_here<B: JsonBuilder>(&mut self, b: &mut B) -> Res<B::Value, B> {
        let Some(byte) = self.peek() else {
            return Err(self.error(SyntaxErrorKind::UnexpectedEnd).into());
        };
        match byte {
            b'"' | b'\'' if byte == b'"' || self.lenient => {
                self.pos += 1;
                let s = self.string(byte)?;
                b.string(s.resolve(self.data, &self.scratch))
                    .map_err(ParseError::Build)
            }
            b'{' => self.object(b),
            b'[' => self.array(b),
            b'-' | b'0'..=b'9' => self.number(b),
            b't' => self.literal(b"true", b, |b| b.boolean(true)),
            b'f' => self.literal(b"false", b, |b| b.boolean(false)),
            b'n' => self.literal(b"null", b, |b| b.null()),
            b'T' if self.lenient => self.literal(b"True", b, |b| b.boolean(true)),
            b'F' if self.lenient => self.literal(b"False", b, |b| b.boolean(false)),
            b'N' if self.lenient => self.literal(b"None", b, |b| b.null()),
            _ => Err(self.error(SyntaxErrorKind::ExpectedValue).into()),
        }
    }

    fn literal<B: JsonBuilder>(
        &mut self,
        word: &[u8],
        b: &mut B,
        make: impl FnOnce(&mut B) -> Result<B::Value, B::Error>,
    ) -> Res<B::Value, B> {
        let rest = &self.data[self.pos..];
        if rest.len() < word.len() {
            let kind = if word.starts_with(rest) {
                SyntaxErrorKind::UnexpectedEnd
            } else {
                SyntaxErrorKind::InvalidLiteral
            };
            return Err(self.error(kind).into());
        }
        if &rest[..word.len()] != word {
            return Err(self.error(SyntaxErrorKind::InvalidLiteral).into());
        }
        self.pos += word.len();
        make(b).map_err(ParseError::Build)
    }

    pub(super) fn enter(&mut self) -> Result<(), SyntaxError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(SyntaxErrorKind::TooDeep));
        }
        self.depth += 1;
        Ok(())
    }

    fn array<B: JsonBuilder>(&mut self, b: &mut B) -> Res<B::Value, B> {
        self.enter()?;
        self.pos += 1; // '['
        let mut array = b.new_array().map_err(ParseError::Build)?;
        self.skip_whitespace();
        match self.peek() {
            Some(b']') => {
                self.pos += 1;
                self.depth -= 1;
                return b.finish_array(array).map_err(ParseError::Build);
            }
            None if self.lenient => {
                self.depth -= 1;
                return b.finish_array(array).map_err(ParseError::Build);
            }
            _ => {}
        }
        loop {
            let item = self.value(b)?;
            b.array_push(&mut array, item).map_err(ParseError::Build)?;
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    if self.lenient {
                        self.skip_whitespace();
                        match self.peek() {
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            None => break,
                            _ => {}
                        }
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                None if self.lenient => break,
                None => return Err(self.error(SyntaxErrorKind::UnexpectedEnd).into()),
                _ => return Err(self.error(SyntaxErrorKind::ExpectedCommaOrBracket).into()),
            }
        }
        self.depth -= 1;
        b.finish_array(array).map_err(ParseError::Build)
    }

    fn object<B: JsonBuilder>(&mut self, b: &mut B) -> Res<B::Value, B> {
        self.enter()?;
        self.pos += 1; // '{'
        let mut object = b.new_object().map_err(ParseError::Build)?;
        self.skip_whitespace();
        match self.peek() {
            Some(b'}') => {
                self.pos += 1;
                self.depth -= 1;
                return b.finish_object(object).map_err(ParseError::Build);
            }
            None if self.lenient => {
                self.depth -= 1;
                return b.finish_object(object).map_err(ParseError::Build);
            }
            _ => {}
        }
        loop {
            // An escaped key lives in the scratch buffer, which the value's own strings reuse:
            // such (rare) keys are copied out first.
            let key_ref = self.key()?;
            let owned_key = match key_ref {
                StrRef::Input { .. } => None,
                StrRef::Scratch { .. } => Some(self.scratch.clone()),
            };
            let data = self.data;
            self.skip_whitespace();
            match self.peek() {
                Some(b':') => self.pos += 1,
                None => return Err(self.error(SyntaxErrorKind::UnexpectedEnd).into()),
                _ => return Err(self.error(SyntaxErrorKind::ExpectedColon).into()),
            }
            let value = self.value(b)?;
            let key = match (key_ref, &owned_key) {
                (StrRef::Scratch { ascii, surrogates }, Some(bytes)) => {
                    // SAFETY: the bytes `string` decoded, with the flags it reported.
                    unsafe { JsonStr::new_unchecked(bytes, ascii, surrogates) }
                }
                _ => key_ref.resolve(data, &[]),
            };
            b.object_insert(&mut object, key, value)
                .map_err(ParseError::Build)?;
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_whitespace();
                    if self.lenient {
                        match self.peek() {
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            None => break,
                            _ => {}
                        }
                    }
                }
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                None if self.lenient => break,
                None => return Err(self.error(SyntaxErrorKind::UnexpectedEnd).into()),
                _ => return Err(self.error(SyntaxErrorKind::ExpectedCommaOrBrace).into()),
            }
        }
        self.depth -= 1;
        b.finish_object(object).map_err(ParseError::Build)
    }

    pub(super) fn key(&mut self) -> Result<StrRef, SyntaxError> {
        self.skip_whitespace();
        match self.peek() {
            Some(b'"') => {
                self.pos += 1;
                self.string(b'"')
            }
            Some(b'\'') if self.lenient => {
                self.pos += 1;
                self.string(b'\'')
            }
            Some(c) if self.lenient && (c.is_ascii_alphabetic() || c == b'_' || c == b'$') => {
                let start = self.pos;
                while let Some(c) = self.peek() {
                    if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'-' {
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                Ok(StrRef::Input {
                    start,
                    end: self.pos,
                    ascii: true,
                })
            }
            None => Err(self.error(SyntaxErrorKind::UnexpectedEnd)),
            _ => Err(self.error(SyntaxErrorKind::ExpectedKey)),
        }
    }

    /// Reads a string whose opening quote has been consumed.
    pub(super) fn string(&mut self, quote: u8) -> Result<StrRef, SyntaxError> {
        let (string, end) =
            read_string(self.data, self.pos, quote, self.options, &mut self.scratch)?;
        self.pos = end;
        Ok(string)
    }

    pub(super) fn number<B: JsonBuilder>(&mut self, b: &mut B) -> Res<B::Value, B> {
        let (value, end) = number(self.data, self.pos, b, self.options.finite)?;
        self.pos = end;
        Ok(value)
    }
}
