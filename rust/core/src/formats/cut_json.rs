//! JSON that the end of the text cut right after a complete call: a stop sequence or
//! `max_tokens` ended `[{"f": {"a": 1}}` or `{"name": "f", "arguments": {"a": 1}` before its
//! closing brackets. The call-list formats and hermes's `<tool_call>` read it with those
//! brackets closed, as the XML-style formats read a call missing its closing tags at the end.

use super::cx::Cx;
use crate::json::{parse, JsonBuilder, JsonView, ParseError, SyntaxError, SyntaxErrorKind};

/// The list at `body` cut off by the end of the text (`error` says the JSON ran into it) right
/// after a complete object or list, read with the brackets it left open closed: a stop sequence
/// or `max_tokens` cut `[{"f": {"a": 1}}` or `[{"f": {"a": 1}` after the call's arguments, and
/// the call is read, as a call missing its closing tags at the end of the text is in the
/// XML-style formats. Only the list and one call object may be open: a value cut in its middle
/// (an arguments object, a string, a number) is never completed. `None` when it cannot be.
pub(crate) fn closed_at_end<B>(
    cx: &mut Cx<'_, '_, B>,
    error: &SyntaxError,
    body: usize,
    end: usize,
) -> Result<Option<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let json = &cx.text[body..end];
    let closers = match error.kind {
        SyntaxErrorKind::UnexpectedEnd => closers_at_end(json.as_bytes()),
        _ => None,
    };
    let Some(closers) = closers else {
        return Ok(None);
    };
    match parse(&format!("{json}{closers}"), cx.builder, cx.options.json) {
        Ok(value) => Ok(Some(value)),
        Err(ParseError::Build(e)) => Err(e),
        Err(ParseError::Syntax(_)) => Ok(None),
    }
}

/// The brackets that close `json` (a list, or one call object) when it ends right after a
/// complete object or list with at most the list and one call object open.
fn closers_at_end(json: &[u8]) -> Option<String> {
    let (mut open, mut scan) = (Vec::new(), OutsideStrings::default());
    for &byte in json {
        match scan.bracket(byte) {
            Some(b'[' | b'{') => open.push(byte),
            Some(_) => {
                open.pop()?;
            }
            None => {}
        }
    }
    let in_string = scan.in_string;
    let last = json.iter().rev().find(|b| !b.is_ascii_whitespace())?;
    let most = if json.first() == Some(&b'[') { 2 } else { 1 };
    if in_string || open.is_empty() || open.len() > most || !matches!(last, b'}' | b']') {
        return None;
    }
    Some(
        open.iter()
            .rev()
            .map(|&b| if b == b'[' { ']' } else { '}' })
            .collect(),
    )
}

/// Tells the brackets of JSON text from the bytes of its strings, a byte at a time.
#[derive(Default)]
pub(crate) struct OutsideStrings {
    in_string: bool,
    escaped: bool,
}

impl OutsideStrings {
    /// `byte` when it is a bracket outside a string.
    pub(crate) fn bracket(&mut self, byte: u8) -> Option<u8> {
        if self.in_string {
            match byte {
                _ if self.escaped => self.escaped = false,
                b'\\' => self.escaped = true,
                b'"' => self.in_string = false,
                _ => {}
            }
            return None;
        }
        match byte {
            b'"' => {
                self.in_string = true;
                None
            }
            b'[' | b'{' | b']' | b'}' => Some(byte),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::closers_at_end;

    #[test]
    fn a_list_cut_after_a_complete_object_is_closed() {
        let closers = |json: &str| closers_at_end(json.as_bytes());
        assert_eq!(closers(r#"[{"f": {"a": 1}"#).as_deref(), Some("}]"));
        assert_eq!(closers(r#"[{"f": {"a": "}"}} "#).as_deref(), Some("]"));
        assert_eq!(closers(r#"{"f": {"a": [1]}"#).as_deref(), Some("}"));
        assert_eq!(closers(r#"[{"f": {"a": "x\"}"}"#).as_deref(), Some("}]"));
        // Cut inside a value, after a comma, or deeper than the list and one call object.
        for json in [
            r#"[{"f": {"a": 1"#,
            r#"[{"f": {"a": "}"#,
            r#"[{"f": {}},"#,
            r#"[{"f": {"a": [1]"#,
            r#"{"f": {"a": [1]"#,
            r#"[{"f": {}}]"#,
            "[",
        ] {
            assert_eq!(closers(json), None, "{json}");
        }
    }
}
