//! Gemini `streamGenerateContent`: `GenerateContentResponse` chunks in and out.
//!
//! Calls arrive and leave whole (`functionCall` parts): a call's start, arguments and end come
//! together. Parts with `thought: true` are reasoning. Both spellings of the field names are
//! read: the REST API's camelCase and the snake_case of the SDK's `model_dump()`.

use super::ledger::{Ledger, Out};
use super::writer::{Head, Json, Sink, Turn};
use super::{count, FinishReason, Usage};
use crate::json::{JsonBuilder, JsonKind, JsonView};
use crate::stream::Event;

/// `value[camel]`, else `value[snake]`.
fn member<I: JsonView>(value: &I, camel: &str, snake: &str) -> Option<I> {
    value
        .get(camel)
        .or_else(|| value.get(snake))
        .filter(|v| v.kind() != JsonKind::Null)
}

fn text_of<I: JsonView>(value: &I, camel: &str, snake: &str) -> Option<String> {
    member(value, camel, snake).and_then(|v| v.as_str().map(str::to_owned))
}

pub(super) struct Reader;

impl Reader {
    /// Reads one chunk; the stream ends when its text ends (a finish reason closes the message).
    pub(super) fn read<I, B>(
        &mut self,
        chunk: &I,
        ledger: &mut Ledger,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<bool, B::Error>
    where
        I: JsonView,
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let meta = &mut ledger.meta;
        if meta.id.is_none() {
            meta.id = text_of(chunk, "responseId", "response_id");
        }
        if meta.model.is_none() {
            meta.model = text_of(chunk, "modelVersion", "model_version");
        }
        if let Some(usage) = member(chunk, "usageMetadata", "usage_metadata") {
            meta.usage.merge(read_usage(&usage));
        }
        let candidates = chunk
            .get("candidates")
            .map(|c| c.items())
            .unwrap_or_default();
        let first = candidates
            .into_iter()
            .find(|candidate| candidate.get("index").is_none_or(|i| i.as_i64() == Some(0)));
        let Some(candidate) = first else {
            return Ok(false);
        };
        let parts = member(&candidate, "content", "content")
            .and_then(|content| content.get("parts"))
            .map(|parts| parts.items())
            .unwrap_or_default();
        for part in parts {
            if let Some(function) = member(&part, "functionCall", "function_call") {
                let id = function.get("id");
                let Some(call) = ledger.new_call(id.as_ref().and_then(|i| i.as_str())) else {
                    continue;
                };
                let name = function.get("name");
                let args = function.get("args");
                ledger.update(
                    call,
                    name.as_ref().and_then(|n| n.as_str()),
                    args.as_ref(),
                    out,
                );
                ledger.end(call, builder, out)?;
            } else if let Some(text) = part.get("text") {
                let text = text.as_str().unwrap_or_default();
                if part.get("thought").and_then(|t| t.as_bool()) == Some(true) {
                    ledger.reasoning(text, out);
                } else {
                    ledger.text(text, builder, out)?;
                }
            }
        }
        if let Some(reason) = text_of(&candidate, "finishReason", "finish_reason") {
            ledger.meta.finish_reason = Some(finish_reason(&reason));
            ledger.close(builder, out)?;
        }
        Ok(false)
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "MAX_TOKENS" => FinishReason::Length,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            FinishReason::ContentFilter
        }
        _ => FinishReason::Stop,
    }
}

/// Gemini counts thoughts apart from the candidates' tokens; the common output count holds both.
fn read_usage<I: JsonView>(usage: &I) -> Usage {
    let counted = |camel: &str, snake: &str| count(usage, camel).or_else(|| count(usage, snake));
    let thoughts = counted("thoughtsTokenCount", "thoughts_token_count");
    let candidates = counted("candidatesTokenCount", "candidates_token_count");
    Usage {
        input_tokens: counted("promptTokenCount", "prompt_token_count"),
        output_tokens: candidates.map(|n| n + thoughts.unwrap_or(0)),
        cached_input_tokens: counted("cachedContentTokenCount", "cached_content_token_count"),
        reasoning_tokens: thoughts,
    }
}

/// A chunk of candidate 0 holding `parts`.
fn chunk<'a, V>(head: &'a Head, candidate: Vec<(&'static str, Json<'a, V>)>) -> Json<'a, V> {
    let mut candidate = candidate;
    candidate.push(("index", Json::Int(0)));
    Json::Obj(vec![
        ("candidates", Json::Arr(vec![Json::Obj(candidate)])),
        ("modelVersion", Json::Tag(head.model())),
        (
            "responseId",
            Json::Tag(head.id.as_deref().unwrap_or_default()),
        ),
    ])
}

fn content<'a, V>(part: Json<'a, V>) -> Vec<(&'static str, Json<'a, V>)> {
    let content = Json::Obj(vec![
        ("role", Json::Tag("model")),
        ("parts", Json::Arr(vec![part])),
    ]);
    vec![("content", content)]
}

pub(super) fn write<B>(
    event: Event<B::Value>,
    head: &mut Head,
    _turn: &mut Turn,
    sink: &mut Sink<B>,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
{
    head.started = true;
    head.id("");
    let part = match event {
        Event::Text(text) => {
            return sink.push(chunk(
                head,
                content(Json::Obj(vec![("text", Json::Str(&text))])),
            ))
        }
        Event::Reasoning(text) => {
            let part = Json::Obj(vec![
                ("text", Json::Str(&text)),
                ("thought", Json::Bool(true)),
            ]);
            return sink.push(chunk(head, content(part)));
        }
        Event::CallEnd { call, .. } => call,
        _ => return Ok(()),
    };
    let id = part.id.unwrap_or_default();
    let function = Json::Obj(vec![
        ("id", Json::Str(&id)),
        ("name", Json::Str(&part.name)),
        ("args", Json::Value(part.arguments)),
    ]);
    sink.push(chunk(
        head,
        content(Json::Obj(vec![("functionCall", function)])),
    ))
}

pub(super) fn finish<B: JsonBuilder>(
    reason: FinishReason,
    usage: Usage,
    head: &mut Head,
    sink: &mut Sink<B>,
) -> Result<(), B::Error> {
    head.started = true;
    head.id("");
    let reason = match reason {
        FinishReason::Length => "MAX_TOKENS",
        FinishReason::ContentFilter => "SAFETY",
        FinishReason::Stop | FinishReason::ToolCalls => "STOP",
    };
    let mut last = chunk(head, vec![("finishReason", Json::Str(reason))]);
    if !usage.is_empty() {
        let input = usage.input_tokens.unwrap_or(0);
        let output = usage.output_tokens.unwrap_or(0);
        let thoughts = usage.reasoning_tokens;
        let mut counts = vec![
            ("promptTokenCount", Json::count(Some(input))),
            (
                "candidatesTokenCount",
                Json::count(Some(output.saturating_sub(thoughts.unwrap_or(0)))),
            ),
            ("totalTokenCount", Json::count(Some(input + output))),
        ];
        if thoughts.is_some() {
            counts.push(("thoughtsTokenCount", Json::count(thoughts)));
        }
        if usage.cached_input_tokens.is_some() {
            counts.push((
                "cachedContentTokenCount",
                Json::count(usage.cached_input_tokens),
            ));
        }
        if let Json::Obj(members) = &mut last {
            members.push(("usageMetadata", Json::Obj(counts)));
        }
    }
    sink.push(last)
}
