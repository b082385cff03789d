//! Ollama `/api/chat`: NDJSON chunks in and out (`message.content`, `message.thinking`,
//! `message.tool_calls`, then `done: true` with the counts). Calls arrive and leave whole.
//! `/api/generate` chunks (`response`) are read as text too.

use std::time::SystemTime;

use super::ledger::{Ledger, Out};
use super::writer::{Head, Json, Sink, Turn};
use super::{count, object, with_str, FinishReason, Usage};
use crate::json::{JsonBuilder, JsonKind, JsonView};
use crate::stream::Event;

pub(super) struct Reader;

impl Reader {
    /// Reads one chunk; `done: true` ends the stream.
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
        if ledger.meta.model.is_none() {
            ledger.meta.model = with_str(chunk, "model", str::to_owned);
        }
        let message = object(chunk, "message");
        // `/api/generate` chunks hold their text at the top, under `response`.
        let (part, text_key) = match &message {
            Some(message) => (message.clone(), "content"),
            None => (chunk.clone(), "response"),
        };
        if let Some(thinking) = part.get("thinking") {
            ledger.reasoning(thinking.as_str().unwrap_or_default(), out);
        }
        if let Some(text) = part.get(text_key) {
            ledger.text(text.as_str().unwrap_or_default(), builder, out)?;
        }
        let tool_calls = message.as_ref().and_then(|m| m.get("tool_calls"));
        for tool_call in tool_calls.map(|t| t.items()).unwrap_or_default() {
            if tool_call.kind() != JsonKind::Object {
                continue;
            }
            let id = tool_call.get("id");
            let Some(call) = ledger.new_call(id.as_ref().and_then(|i| i.as_str())) else {
                continue;
            };
            let function = object(&tool_call, "function");
            let name = function.as_ref().and_then(|f| f.get("name"));
            let arguments = function.as_ref().and_then(|f| f.get("arguments"));
            ledger.update(
                call,
                name.as_ref().and_then(|n| n.as_str()),
                arguments.as_ref(),
                out,
            );
            ledger.end(call, builder, out)?;
        }
        if chunk.get("done").and_then(|d| d.as_bool()) != Some(true) {
            return Ok(false);
        }
        let length = with_str(chunk, "done_reason", |r| r == "length") == Some(true);
        ledger.meta.finish_reason = Some(if length {
            FinishReason::Length
        } else {
            FinishReason::Stop
        });
        ledger.meta.usage.merge(Usage {
            input_tokens: count(chunk, "prompt_eval_count"),
            output_tokens: count(chunk, "eval_count"),
            ..Usage::default()
        });
        Ok(true)
    }
}

/// A chunk: the model, the time, the assistant message and `done`.
fn chunk<'a, V>(
    head: &'a Head,
    now: &'a str,
    message: Vec<(&'static str, Json<'a, V>)>,
    done: bool,
) -> Json<'a, V> {
    let mut fields = vec![("role", Json::Tag("assistant"))];
    fields.extend(message);
    Json::Obj(vec![
        ("model", Json::Tag(head.model())),
        ("created_at", Json::Str(now)),
        ("message", Json::Obj(fields)),
        ("done", Json::Bool(done)),
    ])
}

fn now() -> String {
    humantime::format_rfc3339_micros(SystemTime::now()).to_string()
}

pub(super) fn write<B>(
    event: Event<B::Value>,
    head: &mut Head,
    turn: &mut Turn,
    sink: &mut Sink<B>,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
{
    head.started = true;
    let now = now();
    let message = match event {
        Event::Text(text) => {
            return sink.push(chunk(
                head,
                &now,
                vec![("content", Json::Str(&text))],
                false,
            ))
        }
        Event::Reasoning(text) => {
            let message = vec![("content", Json::Tag("")), ("thinking", Json::Str(&text))];
            return sink.push(chunk(head, &now, message, false));
        }
        Event::CallEnd { index, call } => (turn.get(index).map_or(index, |c| c.output), call),
        _ => return Ok(()),
    };
    let (output, call) = message;
    let id = call.id.unwrap_or_default();
    let function = Json::Obj(vec![
        ("index", Json::count(Some(output as u64))),
        ("name", Json::Str(&call.name)),
        ("arguments", Json::Value(call.arguments)),
    ]);
    let tool_call = Json::Obj(vec![("id", Json::Str(&id)), ("function", function)]);
    let message = vec![
        ("content", Json::Tag("")),
        ("tool_calls", Json::Arr(vec![tool_call])),
    ];
    sink.push(chunk(head, &now, message, false))
}

pub(super) fn finish<B: JsonBuilder>(
    reason: FinishReason,
    usage: Usage,
    head: &mut Head,
    sink: &mut Sink<B>,
) -> Result<(), B::Error> {
    head.started = true;
    let now = now();
    let mut last = chunk(head, &now, vec![("content", Json::Tag(""))], true);
    if let Json::Obj(fields) = &mut last {
        let reason = if reason == FinishReason::Length {
            "length"
        } else {
            "stop"
        };
        fields.push(("done_reason", Json::Str(reason)));
        if let Some(input) = usage.input_tokens {
            fields.push(("prompt_eval_count", Json::count(Some(input))));
        }
        if let Some(output) = usage.output_tokens {
            fields.push(("eval_count", Json::count(Some(output))));
        }
    }
    sink.push(last)
}
