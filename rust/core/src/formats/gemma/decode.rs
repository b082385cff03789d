//! Decoding a Gemma call region: the name, then the arguments object in Gemma's syntax.

use std::ops::Range;

use super::super::cx::{skip_ws, Cx, Failure};
use super::{name, tokens_of, Tokens, CALL};
use crate::json::{parse, JsonBuilder, JsonStr, JsonView, ParseError, ParseOptions};
use crate::scan::find::{find_byte, find_either};
use super::super::pythonic::python_call;

/// Nesting deeper than this is a failed call (the reader recurses).
const MAX_DEPTH: usize = 64;

pub(super) fn parse_region<B>(cx: &mut Cx<'_, '_, B>, range: Range<usize>) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let tokens = tokens_of(&text[range.clone()]);
    let (mut start, mut at) = (range.start, range.start + tokens.start.len());
    // The calls one start token holds: one, or several written one after another
    // (`call:f{…}call:g{…}`), each read up to where the next `call:` begins.
    loop {
        match call(cx, tokens, start..range.end, at)? {
            Some(next) => (start, at) = (next, next),
            None => return Ok(()),
        }
    }
}

/// The call whose name starts at `at`, in the region `range` (the region's start token, or the
/// previous call's end, to its end); returns where the next call of the region starts, if one
/// does.
fn call<B>(
    cx: &mut Cx<'_, '_, B>,
    tokens: &'static Tokens,
    range: Range<usize>,
    at: usize,
) -> Result<Option<usize>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let text = cx.text;
    let end = range.end;
    let brace = opener(text, tokens, at, end);
    let named = brace.and_then(|b| name(text, at, b).map(|n| (b, n)));
    let Some((brace, name_at, name)) = named.map(|(b, n)| (b, offset_in(text, n), n.to_owned()))
    else {
        let failure = Failure::parse("expected call:NAME{…}", at, None);
        cx.fail(tokens.format, range, failure);
        return Ok(None);
    };
    let mut reader = Reader {
        text,
        end,
        tokens,
        pos: brace,
        json: cx.options.json,
        paren: text.as_bytes()[brace] == b'(',
    };
    let read = match reader.paren {
        true => reader.paren_arguments(cx, name_at)?,
        false => reader.value(cx.builder, 0, b'}')?,
    };
    let arguments = match read {
        Ok(arguments) => arguments,
        Err(failure) => {
            let failure = Failure::parse(failure.0, failure.1, Some(name));
            cx.fail(tokens.format, range, failure);
            return Ok(None);
        }
    };
    let after = skip_ws(text, reader.pos, end);
    if after < end && text[after..end].starts_with(CALL) {
        cx.call(tokens.format, range.start..after, name, None, arguments)?;
        return Ok(Some(after));
    }
    // The end token, written whole or cut by the end of the text (a generation stopped in it,
    // Ollama's `TestFunctionGemmaParserFinalizesToolCallWithPartialCloseTagOnDone`).
    if after < end && !text[after..end].starts_with(tokens.end) && !tokens.end.starts_with(&text[after..end]) {
        let failure = Failure::parse(format!("expected {}", tokens.end), after, Some(name));
        cx.fail(tokens.format, range, failure);
        return Ok(None);
    }
    cx.call(tokens.format, range, name, None, arguments).map(|()| None)
}

/// Where the arguments of the call whose name starts at `at` open: its `{`, or the `(` of a
/// call written the Python way (`call:f(query="x")`, or Gemma's values between parentheses,
/// `call:f(query:<|"|>x<|"|>)`, as Gemma 4 writes under load), after the start token only.
pub(super) fn opener(text: &str, tokens: &Tokens, at: usize, end: usize) -> Option<usize> {
    let b = &text.as_bytes()[at..end];
    let found = match tokens.start == CALL {
        true => find_byte(b'{', b),
        false => find_either(b'{', b'(', b),
    };
    found.map(|i| at + i)
}

/// Why a value could not be read, and where.
struct Bad(String, usize);

/// Reads Gemma's value syntax from `pos`.
struct Reader<'t> {
    text: &'t str,
    end: usize,
    tokens: &'static Tokens,
    pos: usize,
    json: ParseOptions,
    /// The arguments are between parentheses: `)` closes them, and `=` may part a key from
    /// its value.
    paren: bool,
}

impl<'t> Reader<'t> {
    fn rest(&self) -> &'t str {
        &self.text[self.pos..self.end]
    }

    fn skip_ws(&mut self) {
        self.pos = skip_ws(self.text, self.pos, self.end);
    }

    fn bad<V>(&self, what: &str) -> Result<V, Bad> {
        Err(Bad(what.to_owned(), self.pos))
    }

    /// The value at `pos`, a member's (`closer` `}`) or a list item's (`]`).
    fn value<B: JsonBuilder>(
        &mut self,
        builder: &mut B,
        depth: usize,
        closer: u8,
    ) -> Result<Result<B::Value, Bad>, B::Error> {
        if depth > MAX_DEPTH {
            return Ok(self.bad("nesting too deep"));
        }
        self.skip_ws();
        if let Some(string) = self.string() {
            return match string {
                Ok(s) => builder.string(JsonStr::from_utf8(s)).map(Ok),
                Err(bad) => Ok(Err(bad)),
            };
        }
        if let Some(s) = self.unopened_string(closer) {
            return builder.string(JsonStr::from_utf8(s)).map(Ok);
        }
        match self.rest().as_bytes().first() {
            Some(b'{') => self.object(builder, depth),
            Some(b'[') => self.array(builder, depth),
            Some(_) => self.literal(builder),
            None => Ok(self.bad("expected a value")),
        }
    }

    /// A string between two string tokens, or a JSON string; `None` when neither starts here.
    fn string(&mut self) -> Option<Result<&'t str, Bad>> {
        let quote = self.tokens.quote;
        if self.rest().starts_with(quote) {
            let start = self.pos + quote.len();
            let Some(len) = self.text[start..self.end].find(quote) else {
                return Some(self.bad("unterminated string"));
            };
            self.pos = start + len + quote.len();
            return Some(Ok(&self.text[start..start + len]));
        }
        None
    }

    /// A string whose opening token the model left out (`query:weather in Tokyo<|"|>`, a Gemma
    /// 4 habit): the text up to the next string token, when nothing else could be meant. That
    /// text holds no `:`, bracket, brace or quote (so it ends no member and opens no value), nor,
    /// in a list, a comma (which would part two items); and the token is followed by what
    /// follows a value (`,` or the closer). Anything else stays a token that closes no string.
    fn unopened_string(&mut self, closer: u8) -> Option<&'t str> {
        let rest = self.rest();
        let at = rest.find(self.tokens.quote)?;
        let text = &rest[..at];
        let inside_a_value = |c: char| {
            !matches!(c, ':' | '{' | '}' | '[' | ']' | '"' | '\'') && (closer != b']' || c != ',')
        };
        let after = self.pos + at + self.tokens.quote.len();
        let next = self.text.as_bytes()[skip_ws(self.text, after, self.end)..self.end].first();
        if text.trim().is_empty() || !text.chars().all(inside_a_value) {
            return None;
        }
        if !matches!(next, Some(&b) if b == b',' || b == closer) {
            return None;
        }
        self.pos = after;
        Some(text)
    }

    /// The arguments between parentheses at `pos`: Gemma's members when a string token is
    /// written in them, else one Python call (`f(query="x", n=2)`, read as `pythonic` reads it).
    fn paren_arguments<B>(
        &mut self,
        cx: &mut Cx<'_, '_, B>,
        name_at: usize,
    ) -> Result<Result<B::Value, Bad>, B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        if self.rest().contains(self.tokens.quote) {
            return self.members(cx.builder, 0, b')');
        }
        let (read, pos) = python_call(cx, name_at, self.end)?;
        self.pos = pos;
        let bad = |(failure, _): (Failure, _)| Bad(failure.detail, failure.at.unwrap_or(pos));
        Ok(read.map(|(_, arguments)| arguments).map_err(bad))
    }

    fn object<B: JsonBuilder>(
        &mut self,
        builder: &mut B,
        depth: usize,
    ) -> Result<Result<B::Value, Bad>, B::Error> {
        self.members(builder, depth, b'}')
    }

    /// The members after the opening byte at `pos`, up to `close`.
    fn members<B: JsonBuilder>(
        &mut self,
        builder: &mut B,
        depth: usize,
        close: u8,
    ) -> Result<Result<B::Value, Bad>, B::Error> {
        self.pos += 1;
        let mut object = builder.new_object()?;
        loop {
            self.skip_ws();
            if self.rest().is_empty() {
                return Ok(self.bad(if close == b')' { "expected )" } else { "expected }" }));
            }
            if self.rest().as_bytes()[0] == close {
                self.pos += 1;
                return builder.finish_object(object).map(Ok);
            }
            let key = match self.key() {
                Ok(key) => key,
                Err(bad) => return Ok(Err(bad)),
            };
            let value = match self.value(builder, depth + 1, close)? {
                Ok(value) => value,
                Err(bad) => return Ok(Err(bad)),
            };
            builder.object_insert(&mut object, JsonStr::from_utf8(key), value)?;
            // Commas between members (models leave them out at times).
            self.skip_ws();
            if self.rest().starts_with(',') {
                self.pos += 1;
            }
        }
    }

    /// `key:` (bare, or between string tokens, or a JSON string).
    fn key(&mut self) -> Result<&'t str, Bad> {
        let key = match self.string() {
            Some(key) => key?,
            None => {
                let start = self.pos;
                let ends: &[char] = match self.paren {
                    true => &[':', '=', ')', ','],
                    false => &[':', '}', ','],
                };
                let len = self.rest().find(ends).unwrap_or(self.rest().len());
                self.pos += len;
                let key = self.text[start..start + len].trim();
                key.strip_prefix('"').and_then(|k| k.strip_suffix('"')).unwrap_or(key)
            }
        };
        self.skip_ws();
        let parted = self.rest().starts_with(':') || (self.paren && self.rest().starts_with('='));
        if !parted || key.is_empty() {
            return self.bad("expected key:value");
        }
        self.pos += 1;
        Ok(key)
    }

    fn array<B: JsonBuilder>(
        &mut self,
        builder: &mut B,
        depth: usize,
    ) -> Result<Result<B::Value, Bad>, B::Error> {
        self.pos += 1;
        let mut array = builder.new_array()?;
        loop {
            self.skip_ws();
            if self.rest().starts_with(']') {
                self.pos += 1;
                return builder.finish_array(array).map(Ok);
            }
            let value = match self.value(builder, depth + 1, b']')? {
                Ok(value) => value,
                Err(bad) => return Ok(Err(bad)),
            };
            builder.array_push(&mut array, value)?;
            self.skip_ws();
            if self.rest().starts_with(',') {
                self.pos += 1;
            } else if !self.rest().starts_with(']') {
                return Ok(self.bad("expected , or ]"));
            }
        }
    }

    /// A JSON literal (number, `true`, `false`, `null`, a JSON string) up to the next `,`, `}`
    /// or `]`; a bare word that is not JSON is kept as text, unless it holds a string token
    /// that [`Self::unopened_string`] does not read (`':\s*'<|"|>`): a delimiter with no string
    /// to close is then broken markup, never a value's text.
    fn literal<B: JsonBuilder>(&mut self, builder: &mut B) -> Result<Result<B::Value, Bad>, B::Error> {
        let rest = self.rest();
        let len = if rest.starts_with('"') {
            json_string_len(rest).unwrap_or(rest.len())
        } else {
            let ends: &[char] = if self.paren { &[',', '}', ']', ')'] } else { &[',', '}', ']'] };
            rest.find(ends).unwrap_or(rest.len())
        };
        let start = self.pos;
        self.pos += len;
        let literal = self.text[start..start + len].trim_end();
        if literal.is_empty() {
            return Ok(self.bad("expected a value"));
        }
        if let Some(at) = literal.find(self.tokens.quote) {
            self.pos = start + at;
            return Ok(self.bad("a string token that closes no string"));
        }
        match parse(literal, builder, self.json) {
            Ok(value) => Ok(Ok(value)),
            Err(ParseError::Build(e)) => Err(e),
            Err(ParseError::Syntax(_)) => {
                builder.string(JsonStr::from_utf8(literal)).map(Ok)
            }
        }
    }
}

/// Where `part`, a slice of `text`, starts in it.
fn offset_in(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

/// The length of the JSON string at the start of `text`, quotes included.
fn json_string_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}
