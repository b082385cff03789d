//! What a JSON parse reports: a syntax error at a byte offset, or the builder's own failure.

use std::borrow::Cow;
use std::fmt;

use super::builder::{JsonBuilder, Refusal};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    UnexpectedEnd,
    ExpectedValue,
    ExpectedColon,
    ExpectedCommaOrBrace,
    ExpectedCommaOrBracket,
    ExpectedKey,
    InvalidNumber,
    /// A number beyond any float, where only finite numbers are read.
    NumberOutOfRange,
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
            Self::NumberOutOfRange => "a number beyond any float (JSON cannot write infinity)",
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

/// A builder's failure for the value at byte `at`: a [`Refusal`] becomes a syntax-like error
/// there; any other failure stops the parse.
pub(super) fn refused_at<B: JsonBuilder>(
    b: &B,
    error: B::Error,
    at: usize,
) -> ParseError<B::Error> {
    match b.refusal(&error) {
        Some(refusal) => ParseError::Syntax(SyntaxError {
            kind: SyntaxErrorKind::Refused(refusal),
            offset: at,
        }),
        None => ParseError::Build(error),
    }
}

/// A skipped value cannot fail to build; only its syntax errors carry over.
pub(super) fn syntax_only<T, E>(
    result: Result<T, ParseError<std::convert::Infallible>>,
) -> Result<T, ParseError<E>> {
    result.map_err(|error| match error {
        ParseError::Syntax(e) => ParseError::Syntax(e),
        ParseError::Build(never) => match never {},
    })
}
