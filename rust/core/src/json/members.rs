//! Reading one object member by member, building only the members a visitor asks for.

use std::borrow::Cow;

use super::builder::JsonBuilder;
use super::error::{refused_at, syntax_only, ParseError, SyntaxErrorKind};
use super::parser::{ParseOptions, Parser};
use super::skip::{deferrable_object, skip_value, SkipBuilder};
use super::string::StrRef;
use super::view::JsonKind;

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

impl MemberText {
    /// The text of a string member; `None` for any other value.
    pub fn into_string(self) -> Option<String> {
        match self {
            Self::String(text) => Some(text),
            _ => None,
        }
    }
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
        let key: Cow<'_, str> = match key_ref {
            // SAFETY: a run of the UTF-8 input that `string` stopped at ASCII bytes.
            StrRef::Input { start, end, .. } => {
                Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(&data[start..end]) })
            }
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
