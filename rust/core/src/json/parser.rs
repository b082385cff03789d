//! A strict RFC 8259 JSON parser that drives a [`JsonBuilder`] in one pass.
//!
//! Strict mode accepts exactly what `json.loads` accepts, minus `NaN`/`Infinity` (which RFC 8259
//! forbids). Lenient mode (`repair=True` in the API) additionally accepts the mistakes models make:
//! trailing commas, single-quoted strings and keys, `True`/`False`/`None`, unquoted keys, raw
//! control characters in strings, and missing closing brackets at the very end of the input. It
//! never invents a value: a truncated literal or string stays an error.

use std::borrow::Cow;
use std::fmt;

use super::builder::{JsonBuilder, JsonStr, Refusal};
use super::plain_run::plain_run;
use super::skip::{deferrable_object, skip_value};
use super::view::JsonKind;

/// Bytes reserved for the first string with escapes a parser decodes (at most what is left).
const SCRATCH_START: usize = 256;

/// Deepest nesting of arrays and objects accepted; deeper input is an error, not a stack overflow.
pub const MAX_DEPTH: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    UnexpectedEnd,
    ExpectedValue,
    ExpectedColon,
    ExpectedCommaOrBrace,
    ExpectedCommaOrBracket,
    ExpectedKey,
    InvalidNumber,
    InvalidLiteral,
    InvalidEscape,
    InvalidUnicodeEscape,
    ControlCharacterInString,
    UnterminatedString,
    TrailingCharacters,
    TooDeep,
    /// Valid JSON, but a value the builder cannot make (see [`Refusal`]).
    Refused(Refusal),
}

impl SyntaxErrorKind {
    pub fn message(self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            Self::UnexpectedEnd => "unexpected end of input",
            Self::ExpectedValue => "expected a JSON value",
            Self::ExpectedColon => "expected ':'",
            Self::ExpectedCommaOrBrace => "expected ',' or '}'",
            Self::ExpectedCommaOrBracket => "expected ',' or ']'",
            Self::ExpectedKey => "expected a string key",
            Self::InvalidNumber => "invalid number",
            Self::InvalidLiteral => "invalid literal",
            Self::InvalidEscape => "invalid escape sequence",
            Self::InvalidUnicodeEscape => "invalid \\u escape",
            Self::ControlCharacterInString => "control character in string",
            Self::UnterminatedString => "unterminated string",
            Self::TrailingCharacters => "extra data after the JSON value",
            Self::TooDeep => "nesting deeper than 256 levels",
            Self::Refused(refusal) => return Cow::Owned(refusal.message()),
        })
    }

    /// Whether the text was valid JSON holding a value the builder refused.
    pub fn is_refusal(self) -> bool {
        matches!(self, Self::Refused(_))
    }
}

/// A syntax error at a byte offset of the parsed input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub kind: SyntaxErrorKind,
    pub offset: usize,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.message(), self.offset)
    }
}

#[derive(Debug)]
pub enum ParseError<E> {
    Syntax(SyntaxError),
    Build(E),
}

impl<E> From<SyntaxError> for ParseError<E> {
    fn from(error: SyntaxError) -> Self {
        Self::Syntax(error)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Accept the repairs listed in the module documentation.
    pub lenient: bool,
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

/// What [`parse_object_with`] does with one member's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberAction {
    /// Build it with the builder and hand it to [`ObjectVisitor::built`].
    Build,
    /// Read it as text (a string's content, a number's digits) for [`ObjectVisitor::text`].
    Text,
    /// Check it is valid JSON and drop it.
    Skip,
}

/// A member read as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemberText {
    String(String),
    /// A number's JSON text.
    Number(String),
    /// Any other value, of this kind.
    Other(JsonKind),
}

/// Receives the members of the object [`parse_object_with`] reads.
pub trait ObjectVisitor<B: JsonBuilder> {
    fn action(&mut self, key: &str) -> MemberAction;
    fn built(&mut self, key: &str, value: B::Value);
    fn text(&mut self, key: &str, value: MemberText);
}

/// Reads the JSON object at the start of `text` (after whitespace) member by member, building
/// only what the visitor asks for: a caller that needs two members of an object does not pay
/// for the object. Returns `Ok(None)` when the value there is not an object, else the byte
/// offset just past it.
pub fn parse_object_with<B: JsonBuilder, V: ObjectVisitor<B>>(
    text: &str,
    builder: &mut B,
    options: ParseOptions,
    visitor: &mut V,
) -> Result<Option<usize>, ParseError<B::Error>> {
    let data = text.as_bytes();
    let mut parser = Parser::new(data, options);
    parser.skip_whitespace();
    if parser.peek() != Some(b'{') {
        return Ok(None);
    }
    parser.enter()?;
    parser.pos += 1;
    parser.skip_whitespace();
    if parser.peek() == Some(b'}') {
        parser.pos += 1;
        return Ok(Some(parser.pos));
    }
    loop {
        let key_ref = parser.key()?;
        let key: std::borrow::Cow<'_, str> = match key_ref {
            // SAFETY: a run of the UTF-8 input that `string` stopped at ASCII bytes.
            StrRef::Input { start, end, .. } => std::borrow::Cow::Borrowed(unsafe {
                std::str::from_utf8_unchecked(&data[start..end])
            }),
            StrRef::Scratch { .. } => key_ref
                .resolve(parser.data, &parser.scratch)
                .to_string_lossy()
                .into(),
        };
        parser.skip_whitespace();
        match parser.peek() {
            Some(b':') => parser.pos += 1,
            None => return Err(parser.error(SyntaxErrorKind::UnexpectedEnd).into()),
            _ => return Err(parser.error(SyntaxErrorKind::ExpectedColon).into()),
        }
        match visitor.action(&key) {
            MemberAction::Build => {
                parser.skip_whitespace();
                let value = match deferrable_object(builder, text, parser.pos, parser.depth) {
                    Some(end) => {
                        let (start, json) = (parser.pos, &text[parser.pos..end]);
                        parser.pos = end;
                        builder
                            .checked_object(json)
                            .map_err(|e| refused_at(builder, e, start))?
                    }
                    None => parser.value(builder)?,
                };
                visitor.built(&key, value);
            }
            MemberAction::Text => {
                parser.skip_whitespace();
                let value = match parser.peek() {
                    Some(b'"') => {
                        parser.pos += 1;
                        let s = parser.string(b'"')?;
                        MemberText::String(
                            s.resolve(parser.data, &parser.scratch).to_string_lossy(),
                        )
                    }
                    Some(b'-' | b'0'..=b'9') => {
                        let start = parser.pos;
                        syntax_only(parser.number(&mut SkipBuilder))?;
                        // SAFETY: ASCII digits and signs of the UTF-8 input.
                        MemberText::Number(
                            unsafe {
                                std::str::from_utf8_unchecked(&parser.data[start..parser.pos])
                            }
                            .to_owned(),
                        )
                    }
                    first => {
                        let kind = match first {
                            Some(b'{') => JsonKind::Object,
                            Some(b'[') => JsonKind::Array,
                            Some(b'n') => JsonKind::Null,
                            _ => JsonKind::Bool,
                        };
                        syntax_only(parser.value(&mut SkipBuilder))?;
                        MemberText::Other(kind)
                    }
                };
                visitor.text(&key, value);
            }
            MemberAction::Skip => {
                parser.skip_whitespace();
                match skip_value(data, parser.pos, parser.depth) {
                    Some(end) => parser.pos = end,
                    None => syntax_only(parser.value(&mut SkipBuilder))?,
                }
            }
        }
        parser.skip_whitespace();
        match parser.peek() {
            Some(b',') => {
                parser.pos += 1;
                parser.skip_whitespace();
                if parser.lenient && parser.peek() == Some(b'}') {
                    parser.pos += 1;
                    break;
                }
            }
            Some(b'}') => {
                parser.pos += 1;
                break;
            }
            None => return Err(parser.error(SyntaxErrorKind::UnexpectedEnd).into()),
            _ => return Err(parser.error(SyntaxErrorKind::ExpectedCommaOrBrace).into()),
        }
    }
    Ok(Some(parser.pos))
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

/// A builder's failure for the value at byte `at`: a [`Refusal`] becomes a syntax-like error
/// there; any other failure stops the parse.
fn refused_at<B: JsonBuilder>(b: &B, error: B::Error, at: usize) -> ParseError<B::Error> {
    match b.refusal(&error) {
        Some(refusal) => ParseError::Syntax(SyntaxError {
            kind: SyntaxErrorKind::Refused(refusal),
            offset: at,
        }),
        None => ParseError::Build(error),
    }
}

/// A skipped value cannot fail to build; only its syntax errors carry over.
fn syntax_only<T, E>(
    result: Result<T, ParseError<std::convert::Infallible>>,
) -> Result<T, ParseError<E>> {
    result.map_err(|error| match error {
        ParseError::Syntax(e) => ParseError::Syntax(e),
        ParseError::Build(never) => match never {},
    })
}

/// Appends `data[start..end]` to `out`. Runs between escapes are mostly a few bytes: one that
/// fits in 16 is copied as a whole 16-byte block, which compiles to two vector moves instead
/// of a call to `memcpy`, and the bytes past `end` are cut off again.
#[inline]
fn push_run(out: &mut Vec<u8>, data: &[u8], start: usize, end: usize) {
    let kept = out.len() + (end - start);
    match data[start..].first_chunk::<16>() {
        Some(block) if end - start <= 16 => {
            out.extend_from_slice(block);
            out.truncate(kept);
        }
        _ => out.extend_from_slice(&data[start..end]),
    }
}

struct Parser<'a> {
    /// The UTF-8 bytes of a `&str`.
    data: &'a [u8],
    pos: usize,
    depth: usize,
    lenient: bool,
    scratch: Vec<u8>,
}

/// Where a decoded string lives: a slice of the input, or the scratch buffer (when it had
/// escapes). Positions rather than borrows, so the parser stays free to continue.
#[derive(Clone, Copy)]
enum StrRef {
    Input {
        start: usize,
        end: usize,
        ascii: bool,
    },
    Scratch {
        ascii: bool,
        surrogates: bool,
    },
}

impl StrRef {
    fn resolve<'s>(self, data: &'s [u8], scratch: &'s [u8]) -> JsonStr<'s> {
        match self {
            // SAFETY: `string` only stops a run at an ASCII byte of the UTF-8 input.
            StrRef::Input { start, end, ascii } => unsafe {
                JsonStr::new_unchecked(&data[start..end], ascii, false)
            },
            // SAFETY: the scratch buffer holds input bytes and escapes encoded as UTF-8, or
            // WTF-8 where `surrogates` says so.
            StrRef::Scratch { ascii, surrogates } => unsafe {
                JsonStr::new_unchecked(scratch, ascii, surrogates)
            },
        }
    }
}

type Res<T, B> = Result<T, ParseError<<B as JsonBuilder>::Error>>;

impl<'a> Parser<'a> {
    fn new(data: &'a [u8], options: ParseOptions) -> Self {
        Self {
            data,
            pos: 0,
            depth: 0,
            lenient: options.lenient,
            scratch: Vec::new(),
        }
    }

    #[inline]
    fn error(&self, kind: SyntaxErrorKind) -> SyntaxError {
        SyntaxError {
            kind,
            offset: self.pos,
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    #[inline]
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// The JSON value at the current position (after whitespace). A value the builder refuses
    /// is reported at its start, like a syntax error.
    fn value<B: JsonBuilder>(&mut self, b: &mut B) -> Res<B::Value, B> {
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

    fn enter(&mut self) -> Result<(), SyntaxError> {
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

    fn key(&mut self) -> Result<StrRef, SyntaxError> {
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
    fn string(&mut self, quote: u8) -> Result<StrRef, SyntaxError> {
        let data = self.data;
        let start = self.pos;
        // Fast path: a run with no escape is borrowed from the input.
        let (mut i, mut ascii) = plain_run(data, start, quote);
        match data.get(i) {
            Some(&c) if c == quote => {
                self.pos = i + 1;
                return Ok(StrRef::Input {
                    start,
                    end: i,
                    ascii,
                });
            }
            None => {
                self.pos = data.len();
                return Err(self.error(SyntaxErrorKind::UnterminatedString));
            }
            _ => {}
        }
        self.scratch.clear();
        // Room for the common escaped string up front (arguments, texts with quotes): grown
        // piece by piece, it is reallocated at every doubling.
        self.scratch
            .reserve((data.len() - start).min(SCRATCH_START));
        self.scratch.extend_from_slice(&data[start..i]);
        let mut has_surrogates = false;
        loop {
            let Some(&c) = data.get(i) else {
                self.pos = data.len();
                return Err(self.error(SyntaxErrorKind::UnterminatedString));
            };
            if c == quote {
                self.pos = i + 1;
                break;
            }
            match c {
                b'\\' => {
                    self.pos = i;
                    i = self.escape(i + 1, &mut has_surrogates)?;
                }
                0..=0x1F if !self.lenient => {
                    self.pos = i;
                    return Err(self.error(SyntaxErrorKind::ControlCharacterInString));
                }
                _ => {
                    // The run up to the next escape is copied whole, as the fast path reads it.
                    let (end, run_ascii) = plain_run(data, i + 1, quote);
                    ascii &= c.is_ascii() && run_ascii;
                    push_run(&mut self.scratch, data, i, end);
                    i = end;
                }
            }
        }
        Ok(StrRef::Scratch {
            ascii: ascii && self.scratch.is_ascii(),
            surrogates: has_surrogates,
        })
    }

    /// Decodes the escape whose backslash is at `i - 1` into the scratch buffer; returns the
    /// index after it.
    fn escape(&mut self, i: usize, has_surrogates: &mut bool) -> Result<usize, SyntaxError> {
        let data = self.data;
        let Some(&c) = data.get(i) else {
            self.pos = data.len();
            return Err(self.error(SyntaxErrorKind::UnterminatedString));
        };
        let simple = match c {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0C,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'\'' if self.lenient => b'\'',
            b'u' => {
                let first = self.hex4(i + 1)?;
                let mut next = i + 5;
                let code = if (0xD800..0xDC00).contains(&first)
                    && data.get(next) == Some(&b'\\')
                    && data.get(next + 1) == Some(&b'u')
                {
                    let second = self.hex4(next + 2)?;
                    if (0xDC00..0xE000).contains(&second) {
                        next += 6;
                        0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    } else {
                        first
                    }
                } else {
                    first
                };
                push_code_point(&mut self.scratch, code, has_surrogates);
                return Ok(next);
            }
            _ => {
                return Err(SyntaxError {
                    kind: SyntaxErrorKind::InvalidEscape,
                    offset: i - 1,
                })
            }
        };
        self.scratch.push(simple);
        Ok(i + 1)
    }

    fn hex4(&self, i: usize) -> Result<u32, SyntaxError> {
        let error = SyntaxError {
            kind: SyntaxErrorKind::InvalidUnicodeEscape,
            offset: i.saturating_sub(2),
        };
        let digits = self.data.get(i..i + 4).ok_or(error)?;
        let mut value = 0u32;
        for &d in digits {
            let nibble = (d as char).to_digit(16).ok_or(error)?;
            value = (value << 4) | nibble;
        }
        Ok(value)
    }

    fn number<B: JsonBuilder>(&mut self, b: &mut B) -> Res<B::Value, B> {
        let data = self.data;
        let start = self.pos;
        let mut i = start;
        let negative = data[i] == b'-';
        if negative {
            i += 1;
        }
        let invalid = |at: usize| SyntaxError {
            kind: if at >= data.len() {
                SyntaxErrorKind::UnexpectedEnd
            } else {
                SyntaxErrorKind::InvalidNumber
            },
            offset: at,
        };
        let int_start = i;
        match data.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while let Some(b'0'..=b'9') = data.get(i) {
                    i += 1;
                }
            }
            _ => return Err(invalid(i).into()),
        }
        let int_end = i;
        let mut is_float = false;
        if data.get(i) == Some(&b'.') {
            is_float = true;
            i += 1;
            if !matches!(data.get(i), Some(b'0'..=b'9')) {
                return Err(invalid(i).into());
            }
            while let Some(b'0'..=b'9') = data.get(i) {
                i += 1;
            }
        }
        if let Some(b'e' | b'E') = data.get(i) {
            is_float = true;
            i += 1;
            if let Some(b'+' | b'-') = data.get(i) {
                i += 1;
            }
            if !matches!(data.get(i), Some(b'0'..=b'9')) {
                return Err(invalid(i).into());
            }
            while let Some(b'0'..=b'9') = data.get(i) {
                i += 1;
            }
        }
        self.pos = i;
        // SAFETY: ASCII digits and signs.
        let text = unsafe { std::str::from_utf8_unchecked(&data[start..i]) };
        if is_float {
            // Rust's parser is correctly rounded, like CPython's; overflow gives ±inf as in
            // `json.loads`.
            let value: f64 = text.parse().map_err(|_| invalid(start))?;
            return b.float(value).map_err(ParseError::Build);
        }
        if int_end - int_start <= 18 {
            let mut value: i64 = 0;
            for &d in &data[int_start..int_end] {
                value = value * 10 + (d - b'0') as i64;
            }
            return b
                .int(if negative { -value } else { value })
                .map_err(ParseError::Build);
        }
        match text.parse::<i64>() {
            Ok(value) => b.int(value),
            Err(_) => b.big_int(text),
        }
        .map_err(ParseError::Build)
    }
}

fn push_code_point(out: &mut Vec<u8>, code: u32, has_surrogates: &mut bool) {
    match char::from_u32(code) {
        Some(c) => {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        None => {
            // A lone surrogate: keep it in WTF-8 form.
            *has_surrogates = true;
            out.extend_from_slice(&[
                0xE0 | (code >> 12) as u8,
                0x80 | ((code >> 6) & 0x3F) as u8,
                0x80 | (code & 0x3F) as u8,
            ]);
        }
    }
}
