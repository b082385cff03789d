//! Provider response bodies, recognised by shape, split into their text and their
//! structured calls.

use crate::calls::{assign_ids, native_call, native_invalid, parse_native, Outcome, ShapeFailure};
use crate::extract::{extract_text, TextOptions};
use crate::finish_outcomes;
use crate::json::{JsonBuilder, JsonKind, JsonView, ParseOptions};

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
    /// Path of the list the calls come from, e.g. `choices[0].message.tool_calls`.
    pub calls_at: String,
    /// Index of each call within that list (Anthropic and Gemini lists mix calls with text).
    pub positions: Vec<usize>,
}

impl<V> BodyParts<V> {
    fn empty() -> Self {
        BodyParts {
            text: BodyText::Absent,
            calls: Vec::new(),
            calls_at: String::new(),
            positions: Vec::new(),
        }
    }

    /// The path of call `i`, e.g. `content[2]`.
    pub fn call_path(&self, i: usize) -> String {
        format!(
            "{}[{}]",
            self.calls_at,
            self.positions.get(i).copied().unwrap_or(i)
        )
    }
}

/// `path.key`; `key` at the top, `path` for an empty key.
fn member_path(path: &str, key: &str) -> String {
    match (path.is_empty(), key.is_empty()) {
        (true, _) => key.to_owned(),
        (false, true) => path.to_owned(),
        // Not `format!`: every message read makes one, and the formatting machinery costs
        // several times the copy.
        (false, false) => [path, ".", key].concat(),
    }
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

/// `path` is written out only on failure (callers pass `format_args!`).
fn expect_kind<V: JsonView>(
    value: &V,
    kind: JsonKind,
    path: impl std::fmt::Display,
) -> Result<(), FormatError> {
    if value.kind() == kind {
        Ok(())
    } else {
        Err(format_error(
            &path.to_string(),
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
            expect_kind(&text, JsonKind::String, format_args!("{path}[{i}].text"))?;
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
            JsonKind::Array => joined(text_parts(&content, &member_path(path, "content"))?),
            other => {
                return Err(format_error(
                    &member_path(path, "content"),
                    format!(
                        "expected a string, null or a list of parts, got {}",
                        other.name()
                    ),
                ))
            }
        },
    };
    let calls_at = member_path(path, "tool_calls");
    let calls = match message.get("tool_calls") {
        None => Vec::new(),
        Some(calls) => match calls.kind() {
            JsonKind::Null => Vec::new(),
            JsonKind::Array => calls.items(),
            other => {
                return Err(format_error(
                    &calls_at,
                    format!("expected a list, got {}", other.name()),
                ))
            }
        },
    };
    Ok(BodyParts {
        text,
        positions: (0..calls.len()).collect(),
        calls,
        calls_at,
    })
}

/// Anthropic content blocks: `text` blocks joined, `tool_use` blocks as calls.
fn content_blocks<V: JsonView>(blocks: &V, path: &str) -> Result<BodyParts<V>, FormatError> {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    let mut positions = Vec::new();
    for (i, block) in blocks.items().into_iter().enumerate() {
        expect_kind(&block, JsonKind::Object, format_args!("{path}[{i}]"))?;
        let kind = block.get("type");
        match kind.as_ref().and_then(|k| k.as_str()) {
            Some("text") => {
                let Some(text) = block.get("text") else {
                    return Err(format_error(
                        &format!("{path}[{i}].text"),
                        "missing text".to_owned(),
                    ));
                };
                expect_kind(&text, JsonKind::String, format_args!("{path}[{i}].text"))?;
                texts.push(text.string_lossy().unwrap_or_default());
            }
            Some("tool_use") => {
                calls.push(block);
                positions.push(i);
            }
            _ => {}
        }
    }
    Ok(BodyParts {
        text: joined(texts),
        calls,
        calls_at: path.to_owned(),
        positions,
    })
}

/// OpenAI Responses `output` items: `function_call` items and `message` text.
fn response_items<V: JsonView>(items: &V, path: &str) -> Result<BodyParts<V>, FormatError> {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    let mut positions = Vec::new();
    for (i, item) in items.items().into_iter().enumerate() {
        expect_kind(&item, JsonKind::Object, format_args!("{path}[{i}]"))?;
        let kind = item.get("type");
        match kind.as_ref().and_then(|k| k.as_str()) {
            Some("function_call") => {
                calls.push(item);
                positions.push(i);
            }
            // An output message holds typed parts; an input message may hold a plain string.
            Some("message") => match item.get("content") {
                Some(content) if content.kind() == JsonKind::String => {
                    texts.push(content.string_lossy().unwrap_or_default());
                }
                Some(content) => {
                    expect_kind(
                        &content,
                        JsonKind::Array,
                        format_args!("{path}[{i}].content"),
                    )?;
                    texts.extend(text_parts(&content, &format!("{path}[{i}].content"))?);
                }
                None => {}
            },
            _ => {}
        }
    }
    Ok(BodyParts {
        text: joined(texts),
        calls,
        calls_at: path.to_owned(),
        positions,
    })
}

/// Gemini `candidates[0].content`: absent content (a blocked answer) has no calls.
fn gemini_candidates<V: JsonView>(candidates: &V) -> Result<BodyParts<V>, FormatError> {
    let Some(first) = candidates.items().into_iter().next() else {
        return Ok(BodyParts::empty());
    };
    expect_kind(&first, JsonKind::Object, "candidates[0]")?;
    match first.get("content") {
        None => Ok(BodyParts::empty()),
        Some(content) => gemini_content(&content, "candidates[0].content"),
    }
}

/// A Gemini `Content` (`{"role", "parts"}`): text parts and `functionCall` parts.
fn gemini_content<V: JsonView>(content: &V, path: &str) -> Result<BodyParts<V>, FormatError> {
    expect_kind(content, JsonKind::Object, path)?;
    let Some(parts) = content.get("parts") else {
        return Ok(BodyParts::empty());
    };
    let calls_at = member_path(path, "parts");
    expect_kind(&parts, JsonKind::Array, &calls_at)?;
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    let mut positions = Vec::new();
    for (i, part) in parts.items().into_iter().enumerate() {
        if part.get("functionCall").is_some() {
            calls.push(part);
            positions.push(i);
        } else if let Some(text) = part.get("text").and_then(|t| t.string_lossy()) {
            texts.push(text);
        }
    }
    Ok(BodyParts {
        text: joined(texts),
        calls,
        calls_at,
        positions,
    })
}

/// OpenAI Chat `choices[0].message`; no choices (a usage-only chunk) has no calls.
fn chat_choices<V: JsonView>(choices: &V) -> Result<BodyParts<V>, FormatError> {
    let Some(first) = choices.items().into_iter().next() else {
        return Ok(BodyParts::empty());
    };
    expect_kind(&first, JsonKind::Object, "choices[0]")?;
    let Some(message) = first.get("message") else {
        return Err(format_error(
            "choices[0].message",
            "missing message".to_owned(),
        ));
    };
    message_parts(&message, "choices[0].message")
}

/// Recognises a response body by its keys and splits it.
pub fn split_body<V: JsonView>(body: &V) -> Result<BodyParts<V>, FormatError> {
    expect_kind(body, JsonKind::Object, "")?;
    if let Some(choices) = body.get("choices") {
        expect_kind(&choices, JsonKind::Array, "choices")?;
        return chat_choices(&choices);
    }
    if let Some(output) = body.get("output").filter(|o| o.kind() == JsonKind::Array) {
        return response_items(&output, "output");
    }
    if let Some(candidates) = body.get("candidates") {
        expect_kind(&candidates, JsonKind::Array, "candidates")?;
        return gemini_candidates(&candidates);
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

/// `extract` for a body: structured calls win; otherwise the text tiers run on its text.
pub fn extract_body<B>(
    builder: &mut B,
    body: &B::Value,
    options: &TextOptions<'_>,
) -> Result<Vec<Outcome<B::Value>>, BodyError<B::Error>>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    extract_body_as(builder, body, options, Shape::Auto)
}

/// [`extract_body`] for a body read as `shape` (`provider=` of the batch API and the CLI).
pub fn extract_body_as<B>(
    builder: &mut B,
    body: &B::Value,
    options: &TextOptions,
    shape: Shape,
) -> Result<Vec<Outcome<B::Value>>, BodyError<B::Error>>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let parts = split_body_as(body, shape).map_err(BodyError::Format)?;
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

/// Which provider's shape a body must have (`decode_tool_calls`); `Auto` recognises it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Auto,
    OpenAIChat,
    OpenAIResponses,
    Anthropic,
    Ollama,
    Gemini,
}

impl Shape {
    /// The provider names, plus `auto`, with their shapes.
    pub const NAMES: [(&'static str, Shape); 6] = [
        ("auto", Self::Auto),
        ("openai", Self::OpenAIChat),
        ("openai_responses", Self::OpenAIResponses),
        ("anthropic", Self::Anthropic),
        ("ollama", Self::Ollama),
        ("gemini", Self::Gemini),
    ];

    pub fn parse(name: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, shape)| *shape)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::OpenAIChat => "openai",
            Self::OpenAIResponses => "openai_responses",
            Self::Anthropic => "anthropic",
            Self::Ollama => "ollama",
            Self::Gemini => "gemini",
        }
    }
}

/// Whether a list is an Anthropic message's `content` given on its own: every item a block
/// whose `type` is one an assistant message holds.
pub fn is_content_block_list<V: JsonView>(list: &V) -> bool {
    let items = list.items();
    !items.is_empty()
        && items.iter().all(|item| {
            let kind = item.get("type");
            matches!(
                kind.as_ref().and_then(|k| k.as_str()),
                Some("text" | "thinking" | "redacted_thinking" | "tool_use" | "server_tool_use")
            )
        })
}

/// An assistant message given instead of a whole response (what `encode_calls` writes).
fn is_message<V: JsonView>(body: &V) -> bool {
    body.get("role").is_some() || body.get("tool_calls").is_some()
}

fn missing<V>(key: &str, what: &str) -> Result<BodyParts<V>, FormatError> {
    Err(format_error(key, format!("missing '{key}': not {what}")))
}

/// Splits `body` as `shape` prescribes: a full response body or one message of that provider.
/// `Auto` takes a list as a list of calls (docs/parsing.md) and recognises anything else by its
/// keys.
pub fn split_body_as<V: JsonView>(body: &V, shape: Shape) -> Result<BodyParts<V>, FormatError> {
    if body.kind() == JsonKind::Array {
        return match shape {
            // An Anthropic message's `content` given on its own.
            Shape::Anthropic | Shape::Auto if is_content_block_list(body) => {
                content_blocks(body, "")
            }
            Shape::Auto => Ok(BodyParts {
                text: BodyText::Absent,
                positions: (0..body.items().len()).collect(),
                calls: body.items(),
                calls_at: String::new(),
            }),
            Shape::OpenAIResponses => response_items(body, ""),
            _ => Err(format_error(
                "",
                "expected a response body or a message (an object), got an array".to_owned(),
            )),
        };
    }
    expect_kind(body, JsonKind::Object, "")?;
    match shape {
        Shape::Auto => split_body(body),
        Shape::OpenAIChat => match body.get("choices") {
            Some(choices) => {
                expect_kind(&choices, JsonKind::Array, "choices")?;
                chat_choices(&choices)
            }
            None if is_message(body) => message_parts(body, ""),
            None => missing(
                "choices",
                "an OpenAI Chat Completions body or assistant message",
            ),
        },
        Shape::Ollama => match body.get("message") {
            Some(message) => message_parts(&message, "message"),
            None if is_message(body) => message_parts(body, ""),
            None => missing("message", "an Ollama /api/chat body or assistant message"),
        },
        Shape::Anthropic => match body.get("content") {
            Some(content) => match content.kind() {
                JsonKind::Array => content_blocks(&content, "content"),
                JsonKind::String => Ok(BodyParts {
                    text: BodyText::Value(content),
                    ..BodyParts::empty()
                }),
                JsonKind::Null => Ok(BodyParts::empty()),
                other => Err(format_error(
                    "content",
                    format!(
                        "expected a list of blocks or a string, got {}",
                        other.name()
                    ),
                )),
            },
            None => missing("content", "an Anthropic Messages body or message"),
        },
        Shape::OpenAIResponses => match body.get("output") {
            Some(output) => {
                expect_kind(&output, JsonKind::Array, "output")?;
                response_items(&output, "output")
            }
            None => missing("output", "an OpenAI Responses body or a list of items"),
        },
        Shape::Gemini => match (body.get("candidates"), body.get("parts")) {
            (Some(candidates), _) => {
                expect_kind(&candidates, JsonKind::Array, "candidates")?;
                gemini_candidates(&candidates)
            }
            (None, Some(_)) => gemini_content(body, ""),
            (None, None) => missing("candidates", "a Gemini generateContent body or Content"),
        },
    }
}

/// The structured calls of a body, decoded; `failure_paths` gives, in order, the path of each
/// `Invalid` among the outcomes (e.g. `choices[0].message.tool_calls[2].function.arguments`).
pub struct BodyCalls<V> {
    pub outcomes: Vec<Outcome<V>>,
    pub failure_paths: Vec<String>,
}

/// `decode_tool_calls`: the structured calls of `body` read as `shape`, ids assigned
/// (docs/parsing.md). The text of the body is not searched for calls.
pub fn decode_body_calls<B>(
    builder: &mut B,
    body: &B::Value,
    shape: Shape,
    options: ParseOptions,
) -> Result<BodyCalls<B::Value>, BodyError<B::Error>>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let parts = split_body_as(body, shape).map_err(BodyError::Format)?;
    let mut outcomes = Vec::with_capacity(parts.calls.len());
    let mut failure_paths = Vec::new();
    for (index, element) in parts.calls.iter().enumerate() {
        match native_call(builder, element, options) {
            Ok(call) => outcomes.push(Outcome::Call(call)),
            Err(ShapeFailure { build: Some(e), .. }) => return Err(BodyError::Build(e)),
            Err(failure) => {
                let path = member_path(&parts.call_path(index), &failure.field);
                let subject = format!("tool call {index} at {path}");
                outcomes.push(Outcome::invalid(native_invalid(
                    index, element, failure, subject,
                )));
                failure_paths.push(path);
            }
        }
    }
    assign_ids(&mut outcomes);
    Ok(BodyCalls {
        outcomes,
        failure_paths,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{RawJsonMode, TextOptions};
    use crate::formats::FormatSet;
    use crate::json::{parse, ParseOptions, Value, ValueBuilder};

    fn value(text: &str) -> Value {
        parse(text, &mut ValueBuilder, ParseOptions::default()).unwrap()
    }

    fn names(text: &str) -> Result<Vec<String>, String> {
        let options = TextOptions {
            text_tagged: true,
            formats: FormatSet::ALL,
            raw_json: Some(RawJsonMode::Fenced),
            json: ParseOptions::default(),
            tools: None,
            starts_in_reasoning: false,
        };
        match extract_body(&mut ValueBuilder, &value(text), &options) {
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
        // An Anthropic message's content on its own: its text is read too.
        let blocks = r#"[{"type": "text", "text": "~~~tool_call\n{\"name\": \"j\"}\n~~~"}, {"type": "tool_use", "id": "t", "name": "g", "input": {}}]"#;
        assert_eq!(names(blocks).unwrap(), ["g"]);
        let text_only = r#"[{"type": "text", "text": "~~~tool_call\n{\"name\": \"j\"}\n~~~"}]"#;
        assert_eq!(names(text_only).unwrap(), ["j"]);
    }

    #[test]
    fn extract_body_names_the_path_of_a_wrong_shape() {
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

    #[test]
    fn provider_shapes_locate_their_calls() {
        let anthropic = value(
            r#"{"content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"f","input":{}}]}"#,
        );
        let parts = split_body_as(&anthropic, Shape::Anthropic).unwrap();
        assert_eq!(parts.calls.len(), 1);
        assert_eq!(parts.call_path(0), "content[1]");

        let message =
            value(r#"{"role":"assistant","content":null,"tool_calls":[{"function":{}}]}"#);
        let parts = split_body_as(&message, Shape::OpenAIChat).unwrap();
        assert_eq!(parts.call_path(0), "tool_calls[0]");

        let gemini =
            value(r#"{"role":"model","parts":[{"text":"x"},{"functionCall":{"name":"f"}}]}"#);
        let parts = split_body_as(&gemini, Shape::Gemini).unwrap();
        assert_eq!(parts.call_path(0), "parts[1]");

        let items =
            value(r#"[{"type":"message","content":[]},{"type":"function_call","name":"f"}]"#);
        let parts = split_body_as(&items, Shape::OpenAIResponses).unwrap();
        assert_eq!(parts.call_path(0), "[1]");
    }

    #[test]
    fn responses_message_content_is_parts_or_a_string() {
        let text = |body: &str| match split_body_as(&value(body), Shape::OpenAIResponses)
            .unwrap()
            .text
        {
            BodyText::Joined(text) => text,
            _ => String::new(),
        };
        let input = r#"[{"type":"message","role":"assistant","content":"Hi."}]"#;
        let output = r#"[{"type":"message","content":[{"type":"output_text","text":"Hi."}]}]"#;
        assert_eq!(text(input), "Hi.");
        assert_eq!(text(output), "Hi.");
    }

    #[test]
    fn wrong_shapes_name_the_path() {
        let error = |text: &str, shape| split_body_as(&value(text), shape).err().map(|e| e.path);
        assert_eq!(
            error(r#"{"id":"x"}"#, Shape::OpenAIChat).as_deref(),
            Some("choices")
        );
        assert_eq!(
            error(
                r#"{"choices":[{"message":{"tool_calls":{}}}]}"#,
                Shape::OpenAIChat
            )
            .as_deref(),
            Some("choices[0].message.tool_calls")
        );
        assert_eq!(
            error(r#"{"content":5}"#, Shape::Anthropic).as_deref(),
            Some("content")
        );
        assert_eq!(
            error(r#"{"model":"m"}"#, Shape::Ollama).as_deref(),
            Some("message")
        );
        assert_eq!(
            error(
                r#"{"candidates":[{"content":{"parts":{}}}]}"#,
                Shape::Gemini
            )
            .as_deref(),
            Some("candidates[0].content.parts")
        );
        assert_eq!(error("[]", Shape::Anthropic).as_deref(), Some(""));
    }

    #[test]
    fn decoded_call_failures_carry_the_path_of_the_field() {
        let body = value(
            r#"{"content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"f","input":"{"},{"type":"tool_use","name":7}]}"#,
        );
        let decoded = match decode_body_calls(
            &mut ValueBuilder,
            &body,
            Shape::Anthropic,
            ParseOptions::default(),
        ) {
            Ok(decoded) => decoded,
            Err(BodyError::Format(e)) => panic!("{}", e.message),
            Err(BodyError::Build(never)) => match never {},
        };
        assert_eq!(
            decoded.failure_paths,
            ["content[1].input", "content[2].name"]
        );
        assert_eq!(decoded.outcomes.len(), 2);
    }

    #[test]
    fn absent_or_empty_call_lists_are_no_calls() {
        for (text, shape) in [
            (r#"{"choices":[]}"#, Shape::OpenAIChat),
            (
                r#"{"choices":[{"message":{"content":"hi"}}]}"#,
                Shape::OpenAIChat,
            ),
            (
                r#"{"message":{"content":"","tool_calls":null}}"#,
                Shape::Ollama,
            ),
            (r#"{"content":"hi"}"#, Shape::Anthropic),
            (r#"{"output":[]}"#, Shape::OpenAIResponses),
            (
                r#"{"candidates":[{"finishReason":"SAFETY"}]}"#,
                Shape::Gemini,
            ),
        ] {
            assert!(
                split_body_as(&value(text), shape).unwrap().calls.is_empty(),
                "{text}"
            );
        }
    }
}
