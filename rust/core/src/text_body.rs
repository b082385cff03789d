//! A provider body given as JSON text (a logged `model_dump_json()`, `json.dumps(body)`, a
//! log field that holds the body as a string) is read as that body, not as model text: no
//! model writes a whole provider response as its answer, and read as text it would give no
//! calls at all.
//!
//! Only an object whose top-level members have a provider body's shape counts (see
//! [`is_body`]); any other JSON, a call written as bare JSON above all, stays model text for
//! the text tiers.

use crate::body::Shape;
use crate::json::{
    parse, parse_object_with, JsonBuilder, JsonKind, JsonView, MemberAction, MemberText,
    ObjectVisitor, ParseError, ParseOptions, SkipBuilder,
};

/// The keys that mark a body ([`is_body`] checks their values).
const MARKERS: [&str; 7] = [
    "choices",
    "candidates",
    "output",
    "message",
    "role",
    "type",
    "tool_calls",
];

/// The body `text` is, parsed with `builder`, when it is exactly (whitespace aside) a JSON
/// object with a provider body's shape; `None` for anything else. Read as a given provider's
/// (`shape` other than `Auto`), text can only be a body: any JSON object is one.
pub fn body_in_text<B>(
    builder: &mut B,
    text: &str,
    shape: Shape,
) -> Result<Option<B::Value>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let trimmed = text.trim_matches([' ', '\t', '\n', '\r']);
    if !trimmed.starts_with('{') || !trimmed.ends_with('}') {
        return Ok(None);
    }
    if shape != Shape::Auto {
        return match parse(trimmed, builder, ParseOptions::default()) {
            Ok(value) => Ok(Some(value)),
            Err(ParseError::Syntax(_)) => Ok(None),
            Err(ParseError::Build(e)) => Err(e),
        };
    }
    // The top-level members first, checked without building anything: most JSON that models
    // write is not a body, and is then left to the text tiers unbuilt.
    let mut keys = TopKeys::default();
    match parse_object_with(
        trimmed,
        &mut SkipBuilder,
        ParseOptions::default(),
        &mut keys,
    ) {
        Ok(Some(end)) if end == trimmed.len() && keys.may_be_body() => {}
        _ => return Ok(None),
    }
    match parse(trimmed, builder, ParseOptions::default()) {
        Ok(value) if is_body(&value) => Ok(Some(value)),
        Ok(_) | Err(ParseError::Syntax(_)) => Ok(None),
        Err(ParseError::Build(e)) => Err(e),
    }
}

/// Whether a decoded object is a provider body: an OpenAI Chat completion (`choices` whose
/// first element holds a `message`), a Gemini response (`candidates` whose first element
/// holds `content`), an OpenAI Responses response (`output` items with a `type`), an Ollama
/// chat response (a `message` object), a message of any provider (a `role` string, or
/// Anthropic's `"type": "message"`), or the seed's `{"text", "tool_calls"}` mapping.
pub fn is_body<V: JsonView>(value: &V) -> bool {
    let first_has = |key: &str, inner: &str| {
        value.get(key).is_some_and(|list| {
            list.kind() == JsonKind::Array
                && list
                    .items()
                    .first()
                    .is_some_and(|first| first.get(inner).is_some())
        })
    };
    let kind_of = |key: &str| value.get(key).map(|v| v.kind());
    value.kind() == JsonKind::Object
        && (first_has("choices", "message")
            || first_has("candidates", "content")
            || first_has("output", "type")
            || kind_of("message") == Some(JsonKind::Object)
            || kind_of("role") == Some(JsonKind::String)
            || value
                .get("type")
                .and_then(|t| t.as_str().map(|t| t == "message"))
                == Some(true)
            || (kind_of("tool_calls") == Some(JsonKind::Array)
                && (value.get("text").is_some() || value.get("content").is_some())))
}

/// The kinds of an object's top-level members that [`is_body`] looks at.
#[derive(Default)]
struct TopKeys {
    containers: Vec<(String, JsonKind)>,
    type_is_message: bool,
    role_is_string: bool,
    has_text: bool,
}

impl TopKeys {
    /// Whether the members' kinds allow a body (the values inside are checked once built).
    fn may_be_body(&self) -> bool {
        let kind = |key: &str| {
            self.containers
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, kind)| *kind)
        };
        let array = |key: &str| kind(key) == Some(JsonKind::Array);
        array("choices")
            || array("candidates")
            || array("output")
            || kind("message") == Some(JsonKind::Object)
            || self.role_is_string
            || self.type_is_message
            || (array("tool_calls") && self.has_text)
    }
}

impl ObjectVisitor<SkipBuilder> for TopKeys {
    fn action(&mut self, key: &str) -> MemberAction {
        if MARKERS.contains(&key) {
            MemberAction::Text
        } else {
            // Text and content are only looked for (and may be long).
            self.has_text |= matches!(key, "text" | "content");
            MemberAction::Skip
        }
    }
    fn built(&mut self, _: &str, _: ()) {}
    fn text(&mut self, key: &str, value: MemberText) {
        match (key, value) {
            ("type", MemberText::String(kind)) => self.type_is_message = kind == "message",
            ("role", MemberText::String(_)) => self.role_is_string = true,
            (key, MemberText::Other(kind)) => self.containers.push((key.to_owned(), kind)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{to_compact_json, ValueBuilder};

    fn body(text: &str) -> Option<String> {
        let Ok(found) = body_in_text(&mut ValueBuilder, text, Shape::Auto);
        found.map(|value| to_compact_json(&value))
    }

    #[test]
    fn provider_bodies_written_as_json_are_bodies() {
        let bodies = [
            r#"{"id": "x", "choices": [{"index": 0, "message": {"role": "assistant"}}]}"#,
            r#"{"candidates": [{"content": {"parts": []}}]}"#,
            r#"{"object": "response", "output": [{"type": "message", "content": []}]}"#,
            r#"{"model": "m", "message": {"role": "assistant", "content": "hi"}}"#,
            r#"{"type": "message", "content": [{"type": "text", "text": "hi"}]}"#,
            r#"{"role": "assistant", "content": null, "tool_calls": []}"#,
            r#"{"text": "hi", "tool_calls": [{"name": "f", "arguments": {}}]}"#,
            " \n{\"choices\": [{\"message\": {}}]}\n",
        ];
        for text in bodies {
            assert!(body(text).is_some(), "{text}");
        }
    }

    #[test]
    fn other_json_and_text_stay_model_text() {
        let texts = [
            r#"{"name": "f", "arguments": {"message": {"role": "x"}}}"#,
            r#"{"tool_calls": [{"name": "f", "arguments": {}}]}"#,
            r#"{"choices": ["yes", "no"]}"#,
            r#"{"message": "Done"}"#,
            r#"{"output": [1, 2]}"#,
            r#"{"type": "function", "function": {"name": "f"}}"#,
            r#"{"choices": [{"message": {}}]} and more"#,
            r#"[{"choices": [{"message": {}}]}]"#,
            r#"{"choices": [{"message": {}}]"#,
            "Sure, here is the answer.",
        ];
        for text in texts {
            assert_eq!(body(text), None, "{text}");
        }
    }

    #[test]
    fn read_as_a_given_provider_any_object_is_a_body() {
        let Ok(found) = body_in_text(&mut ValueBuilder, r#"{"odd": 1}"#, Shape::Anthropic);
        assert_eq!(
            found.map(|v| to_compact_json(&v)).as_deref(),
            Some(r#"{"odd":1}"#)
        );
        let Ok(found) = body_in_text(&mut ValueBuilder, "not json", Shape::Anthropic);
        assert!(found.is_none());
    }
}
