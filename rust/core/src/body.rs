//! §4.4: provider response bodies, recognised by shape, split into their text and their
//! structured calls.

use crate::calls::{parse_native, Outcome};
use crate::extract::{extract_text, TextOptions};
use crate::finish_outcomes;
use crate::json::{JsonBuilder, JsonKind, JsonView};

/// The text of a response: absent, one string value, or several text blocks joined.
pub enum BodyText<V> {
    Absent,
    Value(V),
    Joined(String),
}

pub struct BodyParts<V> {
    pub text: BodyText<V>,
    /// The structured calls, in order (OpenAI `tool_calls`, Anthropic `tool_use` blocks, …).
    pub calls: Vec<V>,
}

/// A body without the shape its keys promise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    /// Where, e.g. `choices[0].message.tool_calls`.
    pub path: String,
    pub message: String,
}

fn format_error(path: &str, message: String) -> FormatError {
    FormatError {
        path: path.to_owned(),
        message: if path.is_empty() {
            message
        } else {
            format!("{message} at {path}")
        },
    }
}

fn expect_kind<V: JsonView>(value: &V, kind: JsonKind, path: &str) -> Result<(), FormatError> {
    if value.kind() == kind {
        Ok(())
    } else {
        Err(format_error(
            path,
            format!("expected {}, got {}", kind.name(), value.kind().name()),
        ))
    }
}

fn joined<V>(parts: Vec<String>) -> BodyText<V> {
    if parts.is_empty() {
        BodyText::Absent
    } else {
        BodyText::Joined(parts.concat())
    }
}

/// Text of content given as a list of typed parts (`{"type": "text", "text": …}`).
fn text_parts<V: JsonView>(parts: &V, path: &str) -> Result<Vec<String>, FormatError> {
    let mut texts = Vec::new();
    for (i, part) in parts.items().iter().enumerate() {
        let kind = part.get("type");
        let kind = kind.as_ref().and_then(|k| k.as_str());
        if matches!(kind, Some("text" | "output_text"))
            || (kind.is_none() && part.get("text").is_some())
        {
            let Some(text) = part.get("text") else {
                return Err(format_error(
                    &format!("{path}[{i}].text"),
                    "missing text".to_owned(),
                ));
            };
            expect_kind(&text, JsonKind::String, &format!("{path}[{i}].text"))?;
            texts.push(text.string_lossy().unwrap_or_default());
        }
    }
    Ok(texts)
}

/// A chat message: `content` (string, null or parts) and `tool_calls`.
fn message_parts<V: JsonView>(message: &V, path: &str) -> Result<BodyParts<V>, FormatError> {
    expect_kind(message, JsonKind::Object, path)?;
    let text = match message.get("content").or_else(|| message.get("text")) {
        None => BodyText::Absent,
        Some(content) => match content.kind() {
            JsonKind::String => BodyText::Value(content),
            JsonKind::Null => BodyText::Absent,
            JsonKind::Array => joined(text_parts(&content, &format!("{path}.content"))?),
            other => {
                return Err(format_error(
                    &format!("{path}.content"),
                    format!(
                        "expected a string, null or a list of parts, got {}",
                        other.name()
                    ),
                ))
            }
        },
    };
    let calls = match message.get("tool_calls") {
        None => Vec::new(),
        Some(calls) => match calls.kind() {
            JsonKind::Null => Vec::new(),
            JsonKind::Array => calls.items(),
            other => {
                return Err(format_error(
                    &format!("{path}.tool_calls"),
                    format!("expected a list, got {}", other.name()),
                ))
            }
        },
    };
    Ok(BodyParts { text, calls })
}

/// Anthropic content blocks: `text` blocks joined, `tool_use` blocks as calls.
fn content_blocks<V: JsonView>(blocks: &V, path: &str) -> Result<BodyParts<V>, FormatError> {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for (i, block) in blocks.items().into_iter().enumerate() {
        expect_kind(&block, JsonKind::Object, &format!("{path}[{i}]"))?;
        let kind = block.get("type");
        match kind.as_ref().and_then(|k| k.as_str()) {
            Some("text") => {
                let Some(text) = block.get("text") else {
                    return Err(format_error(
                        &format!("{path}[{i}].text"),
                        "missing text".to_owned(),
                    ));
                };
                expect_kind(&text, JsonKind::String, &format!("{path}[{i}].text"))?;
                texts.push(text.string_lossy().unwrap_or_default());
            }
            Some("tool_use") => calls.push(block),
            _ => {}
        }
    }
    Ok(BodyParts {
        text: joined(texts),
        calls,
    })
}

/// OpenAI Responses `output` items: `function_call` items and `message` text.
fn response_items<V: JsonView>(items: &V, path: &str) -> Result<BodyParts<V>, FormatError> {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for (i, item) in items.items().into_iter().enumerate() {
        expect_kind(&item, JsonKind::Object, &format!("{path}[{i}]"))?;
        let kind = item.get("type");
        match kind.as_ref().and_then(|k| k.as_str()) {
            Some("function_call") => calls.push(item),
            Some("message") => {
                if let Some(content) = item.get("content") {
                    expect_kind(&content, JsonKind::Array, &format!("{path}[{i}].content"))?;
                    texts.extend(text_parts(&content, &format!("{path}[{i}].content"))?);
                }
            }
            _ => {}
        }
    }
    Ok(BodyParts {
        text: joined(texts),
        calls,
    })
}

/// Gemini `candidates[0].content.parts`: text parts and `functionCall` parts.
fn gemini_parts<V: JsonView>(candidates: &V) -> Result<BodyParts<V>, FormatError> {
    let Some(first) = candidates.items().into_iter().next() else {
        return Ok(BodyParts {
            text: BodyText::Absent,
            calls: Vec::new(),
        });
    };
    expect_kind(&first, JsonKind::Object, "candidates[0]")?;
    let Some(content) = first.get("content") else {
        return Ok(BodyParts {
            text: BodyText::Absent,
            calls: Vec::new(),
        });
    };
    expect_kind(&content, JsonKind::Object, "candidates[0].content")?;
    let parts = content.get("parts");
    let Some(parts) = parts else {
        return Ok(BodyParts {
            text: BodyText::Absent,
            calls: Vec::new(),
        });
    };
    expect_kind(&parts, JsonKind::Array, "candidates[0].content.parts")?;
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for part in parts.items() {
        if part.get("functionCall").is_some() {
            calls.push(part);
        } else if let Some(text) = part.get("text").and_then(|t| t.string_lossy()) {
            texts.push(text);
        }
    }
    Ok(BodyParts {
        text: joined(texts),
        calls,
    })
}

/// Recognises a response body by its keys and splits it.
pub fn split_body<V: JsonView>(body: &V) -> Result<BodyParts<V>, FormatError> {
    expect_kind(body, JsonKind::Object, "")?;
    if let Some(choices) = body.get("choices") {
        expect_kind(&choices, JsonKind::Array, "choices")?;
        let Some(first) = choices.items().into_iter().next() else {
            return Ok(BodyParts {
                text: BodyText::Absent,
                calls: Vec::new(),
            });
        };
        expect_kind(&first, JsonKind::Object, "choices[0]")?;
        let Some(message) = first.get("message") else {
            return Err(format_error(
                "choices[0].message",
                "missing message".to_owned(),
            ));
        };
        return message_parts(&message, "choices[0].message");
    }
    if let Some(output) = body.get("output").filter(|o| o.kind() == JsonKind::Array) {
        return response_items(&output, "output");
    }
    if let Some(candidates) = body.get("candidates") {
        expect_kind(&candidates, JsonKind::Array, "candidates")?;
        return gemini_parts(&candidates);
    }
    if let Some(content) = body.get("content").filter(|c| c.kind() == JsonKind::Array) {
        let has_typed_blocks = content
            .items()
            .first()
            .is_none_or(|b| b.get("type").is_some());
        if has_typed_blocks && body.get("tool_calls").is_none() {
            return content_blocks(&content, "content");
        }
    }
    if let Some(message) = body.get("message") {
        return message_parts(&message, "message");
    }
    // The seed's `{"text"?, "tool_calls"?}` (both optional, so `{}` too) or a bare message.
    let seed_shape = body.get("text").is_some() || body.get("tool_calls").is_some();
    if seed_shape || body.get("content").is_some() || body.entries().is_empty() {
        return message_parts(body, "");
    }
    Err(format_error(
        "",
        "unrecognised response shape: expected an OpenAI, OpenAI Responses, Anthropic, Ollama \
         or Gemini body, or a mapping with 'text' and/or 'tool_calls'"
            .to_owned(),
    ))
}

/// Failures of [`extract_body`].
pub enum BodyError<E> {
    Format(FormatError),
    Build(E),
}

/// §4.4 for a body: structured calls win; otherwise the text tiers run on its text.
pub fn extract_body<B>(
    builder: &mut B,
    body: &B::Value,
    options: &TextOptions,
) -> Result<Vec<Outcome<B::Value>>, BodyError<B::Error>>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let parts = split_body(body).map_err(BodyError::Format)?;
    if !parts.calls.is_empty() {
        let mut outcomes =
            parse_native(builder, &parts.calls, options.json).map_err(BodyError::Build)?;
        finish_outcomes("", &mut outcomes);
        return Ok(outcomes);
    }
    let owned;
    let text: &str = match &parts.text {
        BodyText::Absent => return Ok(Vec::new()),
        BodyText::Joined(s) => s,
        BodyText::Value(v) => match v.as_str() {
            Some(s) => s,
            None => {
                owned = v.string_lossy().unwrap_or_default();
                &owned
            }
        },
    };
    let mut outcomes = extract_text(builder, text, options).map_err(BodyError::Build)?;
    finish_outcomes(text, &mut outcomes);
    Ok(outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::RawJsonMode;
    use crate::json::{parse, ParseOptions, Value, ValueBuilder};

    fn body(text: &str) -> Value {
        parse(text, &mut ValueBuilder, ParseOptions::default()).unwrap()
    }

    fn names(text: &str) -> Result<Vec<String>, String> {
        let options = TextOptions {
            text_tagged: true,
            raw_json: Some(RawJsonMode::Fenced),
            json: ParseOptions::default(),
        };
        match extract_body(&mut ValueBuilder, &body(text), &options) {
            Ok(outcomes) => Ok(outcomes
                .into_iter()
                .map(|o| match o {
                    Outcome::Call(c) => c.name,
                    Outcome::Invalid(i) => format!("invalid: {}", i.detail),
                })
                .collect()),
            Err(BodyError::Format(e)) => Err(e.path),
            Err(BodyError::Build(never)) => match never {},
        }
    }

    #[test]
    fn provider_shapes() {
        let openai = r#"{"choices": [{"message": {"tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]}}]}"#;
        assert_eq!(names(openai).unwrap(), ["f"]);
        let anthropic = r#"{"content": [{"type": "text", "text": "hi"}, {"type": "tool_use", "id": "t", "name": "g", "input": {}}]}"#;
        assert_eq!(names(anthropic).unwrap(), ["g"]);
        let ollama = r#"{"message": {"content": "", "tool_calls": [{"function": {"name": "h", "arguments": {}}}]}}"#;
        assert_eq!(names(ollama).unwrap(), ["h"]);
        let text = r#"{"text": "~~~tool_call\n{\"name\": \"i\"}\n~~~", "tool_calls": []}"#;
        assert_eq!(names(text).unwrap(), ["i"]);
    }

    #[test]
    fn wrong_shapes_name_the_path() {
        assert_eq!(
            names(r#"{"choices": [{}]}"#).unwrap_err(),
            "choices[0].message"
        );
        assert_eq!(
            names(r#"{"choices": [{"message": {"tool_calls": 1}}]}"#).unwrap_err(),
            "choices[0].message.tool_calls"
        );
        assert_eq!(names(r#"{"x": 1}"#).unwrap_err(), "");
    }
}
