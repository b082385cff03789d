//! OpenAI Chat Completions: `chat.completion.chunk` objects in and out.
//!
//! Reading copes with what servers actually send: calls told apart by `index`, fragments
//! without `index` (they go to the latest call, or start one when they bring a new `id` or a
//! second name), index 0 reused for every call (a new `id` there starts a new call), a whole
//! call in one fragment, and `reasoning_content` / `reasoning` text. Only choice 0 is read.

use super::ledger::{Ledger, Out};
use super::writer::{Head, Json, Sink, Turn};
use super::{count, object, FinishReason, Usage};
use crate::json::{JsonBuilder, JsonKind, JsonView};
use crate::stream::Event;

#[derive(Default)]
pub(super) struct Reader {
    /// The server's index → the call it currently names.
    by_index: Vec<(i64, usize)>,
    last: Option<usize>,
}

impl Reader {
    /// Reads one chunk; never ends the stream by itself (`[DONE]` does).
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
        let [id, model, usage, choices] = chunk.members(["id", "model", "usage", "choices"]);
        let meta = &mut ledger.meta;
        if meta.id.is_none() {
            meta.id = id.as_ref().and_then(|i| i.as_str()).map(str::to_owned);
        }
        if meta.model.is_none() {
            meta.model = model.as_ref().and_then(|m| m.as_str()).map(str::to_owned);
        }
        if let Some(usage) = usage.filter(|u| u.kind() == JsonKind::Object) {
            meta.usage.merge(read_usage(&usage));
        }
        for choice in choices.map(|c| c.items()).unwrap_or_default() {
            let [index, delta, finish] = choice.members(["index", "delta", "finish_reason"]);
            if choice.kind() != JsonKind::Object || index.is_some_and(|i| i.as_i64() != Some(0)) {
                continue;
            }
            if let Some(delta) = delta.filter(|d| d.kind() == JsonKind::Object) {
                let [reasoning_content, reasoning, content, fragments] =
                    delta.members(["reasoning_content", "reasoning", "content", "tool_calls"]);
                let reasoning = [reasoning_content, reasoning]
                    .into_iter()
                    .flatten()
                    .find(|r| r.as_str().is_some_and(|text| !text.is_empty()));
                if let Some(reasoning) = reasoning {
                    ledger.reasoning(reasoning.as_str().unwrap_or_default(), out);
                }
                if let Some(text) = content.as_ref().and_then(|c| c.as_str()) {
                    ledger.text(text, builder, out)?;
                }
                for fragment in fragments.map(|f| f.items()).unwrap_or_default() {
                    if fragment.kind() == JsonKind::Object {
                        self.fragment(&fragment, ledger, builder, out)?;
                    }
                }
            }
            if let Some(reason) = finish.as_ref().and_then(|f| f.as_str()) {
                if !reason.is_empty() {
                    ledger.meta.finish_reason = Some(finish_reason(reason));
                    ledger.close(builder, out)?;
                }
            }
        }
        Ok(false)
    }

    fn fragment<I, B>(
        &mut self,
        fragment: &I,
        ledger: &mut Ledger,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        I: JsonView,
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let [function, id, index] = fragment.members(["function", "id", "index"]);
        let [name, arguments] = match function.filter(|f| f.kind() == JsonKind::Object) {
            Some(function) => function.members(["name", "arguments"]),
            None => [None, None],
        };
        let name = name
            .as_ref()
            .and_then(|n| n.as_str())
            .filter(|n| !n.is_empty());
        let id = id
            .as_ref()
            .and_then(|i| i.as_str())
            .filter(|i| !i.is_empty());
        let index = index.and_then(|i| i.as_i64());
        let found = match index {
            Some(index) => self
                .by_index
                .iter()
                .find(|(i, _)| *i == index)
                .map(|(_, c)| *c),
            None => self.last,
        };
        let current_id = found.and_then(|call| ledger.id(call));
        let has_id = current_id.is_some();
        let new_id = id.is_some_and(|id| Some(id) != current_id);
        // Without an index, a second name is the only sign of a new call from a server that
        // sends no ids either.
        let second_name =
            index.is_none() && name.is_some() && found.is_some_and(|call| ledger.has_name(call));
        let starts_new = (new_id && has_id) || (second_name && !new_id);
        let call = match found {
            Some(call) if !starts_new => {
                if new_id {
                    ledger.set_id(call, id.unwrap_or_default());
                }
                call
            }
            previous => {
                if let Some(previous) = previous {
                    // The server moved on to a new call (reusing the index, or sending none).
                    ledger.end(previous, builder, out)?;
                }
                let Some(call) = ledger.new_call(id) else {
                    return Ok(());
                };
                call
            }
        };
        if let Some(index) = index {
            match self.by_index.iter_mut().find(|(i, _)| *i == index) {
                Some(entry) => entry.1 = call,
                None => self.by_index.push((index, call)),
            }
        }
        self.last = Some(call);
        ledger.update(call, name, arguments.as_ref(), out);
        Ok(())
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "length" => FinishReason::Length,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "content_filter" => FinishReason::ContentFilter,
        _ => FinishReason::Stop,
    }
}

fn read_usage<I: JsonView>(usage: &I) -> Usage {
    Usage {
        input_tokens: count(usage, "prompt_tokens"),
        output_tokens: count(usage, "completion_tokens"),
        cached_input_tokens: object(usage, "prompt_tokens_details")
            .and_then(|d| count(&d, "cached_tokens")),
        reasoning_tokens: object(usage, "completion_tokens_details")
            .and_then(|d| count(&d, "reasoning_tokens")),
    }
}

/// A `chat.completion.chunk` holding one delta of choice 0.
fn chunk<'a, V>(head: &'a Head, delta: Json<'a, V>, finish: Option<FinishReason>) -> Json<'a, V> {
    let finish = finish.map_or(Json::Null, |reason| Json::Tag(reason.as_str()));
    let choice = Json::Obj(vec![
        ("index", Json::Int(0)),
        ("delta", delta),
        ("finish_reason", finish),
    ]);
    envelope(head, Json::Arr(vec![choice]))
}

fn envelope<'a, V>(head: &'a Head, choices: Json<'a, V>) -> Json<'a, V> {
    Json::Obj(vec![
        ("id", Json::Tag(head.id.as_deref().unwrap_or_default())),
        ("object", Json::Tag("chat.completion.chunk")),
        ("created", Json::count(Some(head.created))),
        ("model", Json::Tag(head.model())),
        ("choices", choices),
    ])
}

/// The first chunk: the assistant's role.
fn begin<B: JsonBuilder>(head: &mut Head, sink: &mut Sink<B>) -> Result<(), B::Error> {
    if head.started {
        return Ok(());
    }
    head.started = true;
    head.id("chatcmpl-");
    // `content` null, as OpenAI sends it when the message may hold only calls: text, if any,
    // comes in the deltas after it.
    let delta = Json::Obj(vec![
        ("role", Json::Tag("assistant")),
        ("content", Json::Null),
    ]);
    sink.push(chunk(head, delta, None))
}

fn tool_call<'a, V>(index: usize, members: Vec<(&'static str, Json<'a, V>)>) -> Json<'a, V> {
    let mut fields = vec![("index", Json::count(Some(index as u64)))];
    fields.extend(members);
    Json::Obj(vec![("tool_calls", Json::Arr(vec![Json::Obj(fields)]))])
}

pub(super) fn write<B>(
    event: Event<B::Value>,
    head: &mut Head,
    turn: &mut Turn,
    sink: &mut Sink<B>,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    begin(head, sink)?;
    let output = |turn: &mut Turn, index| turn.get(index).map_or(index, |call| call.output);
    let missing;
    let delta = match &event {
        Event::Text(text) => Json::Obj(vec![("content", Json::Str(text))]),
        Event::Reasoning(text) => Json::Obj(vec![("reasoning_content", Json::Str(text))]),
        Event::CallStart { index, id, name } => {
            let function = Json::Obj(vec![
                ("name", Json::Str(name)),
                ("arguments", Json::Tag("")),
            ]);
            tool_call(
                output(turn, *index),
                vec![
                    ("id", Json::Str(id)),
                    ("type", Json::Tag("function")),
                    ("function", function),
                ],
            )
        }
        Event::CallDelta { index, arguments } => {
            let function = Json::Obj(vec![("arguments", Json::Str(arguments))]);
            tool_call(output(turn, *index), vec![("function", function)])
        }
        Event::CallEnd { index, call } => {
            missing = turn.missing_arguments(*index, &call.arguments);
            let Some(text) = &missing else {
                return Ok(());
            };
            let function = Json::Obj(vec![("arguments", Json::Str(text))]);
            tool_call(output(turn, *index), vec![("function", function)])
        }
        // The wire has no place for a call that failed: its start and pieces (if any were
        // released) are all the client gets.
        Event::Invalid(_) => return Ok(()),
    };
    sink.push(chunk(head, delta, None))
}

pub(super) fn finish<B>(
    reason: FinishReason,
    usage: Usage,
    head: &mut Head,
    sink: &mut Sink<B>,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
{
    begin(head, sink)?;
    sink.push(chunk(head, Json::Obj(Vec::new()), Some(reason)))?;
    if usage.is_empty() {
        return Ok(());
    }
    let input = usage.input_tokens.unwrap_or(0);
    let output = usage.output_tokens.unwrap_or(0);
    let mut counts = vec![
        ("prompt_tokens", Json::count(Some(input))),
        ("completion_tokens", Json::count(Some(output))),
        ("total_tokens", Json::count(Some(input + output))),
    ];
    if let Some(cached) = usage.cached_input_tokens {
        let details = Json::Obj(vec![("cached_tokens", Json::count(Some(cached)))]);
        counts.push(("prompt_tokens_details", details));
    }
    if let Some(reasoning) = usage.reasoning_tokens {
        let details = Json::Obj(vec![("reasoning_tokens", Json::count(Some(reasoning)))]);
        counts.push(("completion_tokens_details", details));
    }
    let mut last = envelope(head, Json::Arr(Vec::new()));
    if let Json::Obj(members) = &mut last {
        members.push(("usage", Json::Obj(counts)));
    }
    sink.push(last)
}
