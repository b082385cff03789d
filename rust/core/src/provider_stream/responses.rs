//! OpenAI Responses: stream events in and out (`response.created`, `response.output_item.added`,
//! `response.output_text.delta`, `response.function_call_arguments.delta`/`.done`,
//! `response.output_item.done`, `response.completed`, …).
//!
//! Reading accepts servers that send a call's arguments only in `.done` or only in
//! `response.output_item.done`. Writing opens one output item at a time (a message, a reasoning
//! item or a function call), as the other writers that open blocks do, and ends with the whole
//! response (every item, the usage) in `response.completed`.

use super::ledger::{Ledger, Out};
use super::writer::{new_id, Head, Json, Sequencer, Sink, Step};
use super::{count, object, with_str, FinishReason, Usage};
use crate::json::{JsonBuilder, JsonView};

/// A function call item being read.
struct ItemCall {
    item_id: Option<String>,
    output_index: Option<i64>,
    call: usize,
}

#[derive(Default)]
pub(super) struct Reader {
    items: Vec<ItemCall>,
}

impl Reader {
    fn find(&self, item_id: Option<&str>, output_index: Option<i64>) -> Option<usize> {
        let by_id = item_id.and_then(|id| {
            let found = self
                .items
                .iter()
                .rev()
                .find(|i| i.item_id.as_deref() == Some(id));
            found.map(|item| item.call)
        });
        by_id.or_else(|| {
            let index = output_index?;
            let found = self
                .items
                .iter()
                .rev()
                .find(|i| i.output_index == Some(index));
            found.map(|item| item.call)
        })
    }

    /// Reads one event; `response.completed` (or `.incomplete`, `.failed`) ends the stream.
    pub(super) fn read<I, B>(
        &mut self,
        event: &I,
        ledger: &mut Ledger,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<bool, B::Error>
    where
        I: JsonView,
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let kind = event.get("type");
        let kind = kind.as_ref().and_then(|k| k.as_str()).unwrap_or_default();
        let output_index = event.get("output_index").and_then(|i| i.as_i64());
        match kind {
            "response.output_text.delta" => {
                if let Some(delta) = event.get("delta") {
                    ledger.text(delta.as_str().unwrap_or_default(), builder, out)?;
                }
            }
            "response.reasoning_text.delta" | "response.reasoning_summary_text.delta" => {
                if let Some(delta) = event.get("delta") {
                    ledger.reasoning(delta.as_str().unwrap_or_default(), out);
                }
            }
            "response.function_call_arguments.delta" | "response.function_call_arguments.done" => {
                let item_id = event.get("item_id");
                let item_id = item_id.as_ref().and_then(|i| i.as_str());
                let Some(call) = self.find(item_id, output_index) else {
                    return Ok(false);
                };
                let name = event.get("name");
                let name = name.as_ref().and_then(|n| n.as_str());
                if kind.ends_with(".delta") {
                    ledger.update(call, name, event.get("delta").as_ref(), out);
                } else if !ledger.has_arguments(call) {
                    // A server that sends the arguments only once they are complete.
                    ledger.update(call, name, event.get("arguments").as_ref(), out);
                } else {
                    ledger.update::<_, I>(call, name, None, out);
                }
            }
            "response.output_item.added" | "response.output_item.done" => {
                let Some(item) = object(event, "item") else {
                    return Ok(false);
                };
                if with_str(&item, "type", |t| t == "function_call") != Some(true) {
                    return Ok(false);
                }
                let item_id = item.get("id");
                let item_id = item_id.as_ref().and_then(|i| i.as_str());
                let call = match self.find(item_id, output_index) {
                    Some(call) => call,
                    None => {
                        let call_id = item.get("call_id");
                        let Some(call) = ledger.new_call(call_id.as_ref().and_then(|i| i.as_str()))
                        else {
                            return Ok(false);
                        };
                        self.items.push(ItemCall {
                            item_id: item_id.map(str::to_owned),
                            output_index,
                            call,
                        });
                        call
                    }
                };
                let name = item.get("name");
                let name = name.as_ref().and_then(|n| n.as_str());
                if ledger.has_arguments(call) {
                    ledger.update::<_, I>(call, name, None, out);
                } else {
                    ledger.update(call, name, item.get("arguments").as_ref(), out);
                }
                if kind.ends_with(".done") {
                    ledger.end(call, builder, out)?;
                }
            }
            "response.created" | "response.in_progress" => {
                if let Some(response) = object(event, "response") {
                    read_response(&response, ledger);
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                if let Some(response) = object(event, "response") {
                    read_response(&response, ledger);
                    let reason = object(&response, "incomplete_details")
                        .and_then(|d| with_str(&d, "reason", incomplete_reason));
                    ledger.meta.finish_reason = Some(reason.unwrap_or(FinishReason::Stop));
                }
                return Ok(true);
            }
            _ => {}
        }
        Ok(false)
    }
}

fn read_response<I: JsonView>(response: &I, ledger: &mut Ledger) {
    let meta = &mut ledger.meta;
    meta.id = meta
        .id
        .take()
        .or_else(|| with_str(response, "id", str::to_owned));
    meta.model = meta
        .model
        .take()
        .or_else(|| with_str(response, "model", str::to_owned));
    if let Some(usage) = object(response, "usage") {
        meta.usage.merge(Usage {
            input_tokens: count(&usage, "input_tokens"),
            output_tokens: count(&usage, "output_tokens"),
            cached_input_tokens: object(&usage, "input_tokens_details")
                .and_then(|d| count(&d, "cached_tokens")),
            reasoning_tokens: object(&usage, "output_tokens_details")
                .and_then(|d| count(&d, "reasoning_tokens")),
        });
    }
}

fn incomplete_reason(reason: &str) -> FinishReason {
    match reason {
        "content_filter" => FinishReason::ContentFilter,
        _ => FinishReason::Length,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Message,
    Reasoning,
    Call(usize),
}

/// An output item written (or being written), kept for `response.completed`.
struct Item {
    id: String,
    kind: Kind,
    /// The text of a message or reasoning item.
    text: String,
    /// A call's `call_id`, name and arguments.
    call: Option<(String, String, String)>,
    complete: bool,
}

#[derive(Default)]
pub(super) struct Writer {
    sequencer: Sequencer,
    sequence_number: u64,
    items: Vec<Item>,
    /// Whether the last item is still open.
    open: bool,
}

impl Writer {
    pub(super) fn write<B: JsonBuilder>(
        &mut self,
        step: Step,
        head: &mut Head,
        sink: &mut Sink<B>,
    ) -> Result<(), B::Error> {
        self.begin(head, sink)?;
        for step in self.sequencer.order(step) {
            self.write_step(step, sink)?;
        }
        Ok(())
    }

    fn begin<B: JsonBuilder>(
        &mut self,
        head: &mut Head,
        sink: &mut Sink<B>,
    ) -> Result<(), B::Error> {
        if head.started {
            return Ok(());
        }
        head.started = true;
        head.id("resp_");
        for kind in ["response.created", "response.in_progress"] {
            let response = response(head, "in_progress", None, Vec::new(), None);
            let event = numbered(
                &mut self.sequence_number,
                kind,
                vec![("response", response)],
            );
            sink.push(event)?;
        }
        Ok(())
    }

    fn open_index(&self, kind: Kind) -> Option<usize> {
        let last = self.items.len().checked_sub(1)?;
        (self.open && self.items[last].kind == kind).then_some(last)
    }

    fn write_step<B: JsonBuilder>(
        &mut self,
        step: Step,
        sink: &mut Sink<B>,
    ) -> Result<(), B::Error> {
        match step {
            Step::Text(text) => self.write_text(Kind::Message, &text, sink),
            Step::Reasoning(text) => self.write_text(Kind::Reasoning, &text, sink),
            Step::Start { call, id, name } => {
                self.open_item(Kind::Call(call), Some((id, name, String::new())), sink)?;
                Ok(())
            }
            Step::Delta { call, text } => {
                let Some(index) = self.open_index(Kind::Call(call)) else {
                    return Ok(());
                };
                if let Some((_, _, arguments)) = &mut self.items[index].call {
                    arguments.push_str(&text);
                }
                let id = self.items[index].id.clone();
                let event = numbered(
                    &mut self.sequence_number,
                    "response.function_call_arguments.delta",
                    vec![
                        ("item_id", Json::Str(&id)),
                        ("output_index", Json::count(Some(index as u64))),
                        ("delta", Json::Str(&text)),
                    ],
                );
                sink.push(event)
            }
            Step::End { call, arguments } => {
                if let Some(text) = arguments {
                    self.write_step(Step::Delta { call, text }, sink)?;
                }
                if self.open_index(Kind::Call(call)).is_some() {
                    self.close(true, sink)?;
                }
                Ok(())
            }
            Step::Invalid { call } => {
                if self.open_index(Kind::Call(call)).is_some() {
                    self.close(false, sink)?;
                }
                Ok(())
            }
        }
    }

    /// A piece of a message's or reasoning item's text (opening the item when needed).
    fn write_text<B: JsonBuilder>(
        &mut self,
        kind: Kind,
        text: &str,
        sink: &mut Sink<B>,
    ) -> Result<(), B::Error> {
        let index = match self.open_index(kind) {
            Some(index) => index,
            None => self.open_item(kind, None, sink)?,
        };
        self.items[index].text.push_str(text);
        let id = self.items[index].id.clone();
        let mut members = part_address(&id, index);
        members.push(("delta", Json::Str(text)));
        let kind = if kind == Kind::Message {
            members.push(("logprobs", Json::Arr(Vec::new())));
            "response.output_text.delta"
        } else {
            "response.reasoning_text.delta"
        };
        let event = numbered(&mut self.sequence_number, kind, members);
        sink.push(event)
    }

    /// Closes the open item, then adds one: `output_item.added` (and `content_part.added` for
    /// text). Returns its output index.
    fn open_item<B: JsonBuilder>(
        &mut self,
        kind: Kind,
        call: Option<(String, String, String)>,
        sink: &mut Sink<B>,
    ) -> Result<usize, B::Error> {
        self.close(true, sink)?;
        let prefix = match kind {
            Kind::Message => "msg_",
            Kind::Reasoning => "rs_",
            Kind::Call(_) => "fc_",
        };
        self.items.push(Item {
            id: new_id(prefix),
            kind,
            text: String::new(),
            call,
            complete: false,
        });
        self.open = true;
        let index = self.items.len() - 1;
        let item = item_json(&self.items[index]);
        let event = numbered(
            &mut self.sequence_number,
            "response.output_item.added",
            vec![
                ("output_index", Json::count(Some(index as u64))),
                ("item", item),
            ],
        );
        sink.push(event)?;
        if let Some(part) = part_type(kind) {
            let id = self.items[index].id.clone();
            let mut members = part_address(&id, index);
            members.push(("part", part_json(part, "")));
            let event = numbered(
                &mut self.sequence_number,
                "response.content_part.added",
                members,
            );
            sink.push(event)?;
        }
        Ok(index)
    }

    /// Ends the open item: its `.done` events, with the whole text or arguments.
    fn close<B: JsonBuilder>(
        &mut self,
        complete: bool,
        sink: &mut Sink<B>,
    ) -> Result<(), B::Error> {
        if !std::mem::take(&mut self.open) {
            return Ok(());
        }
        let index = self.items.len() - 1;
        self.items[index].complete = complete;
        let (id, kind) = (self.items[index].id.clone(), self.items[index].kind);
        if let Some(part) = part_type(kind) {
            let text = self.items[index].text.clone();
            let done = if kind == Kind::Message {
                "response.output_text.done"
            } else {
                "response.reasoning_text.done"
            };
            let mut members = part_address(&id, index);
            members.push(("text", Json::Str(&text)));
            let event = numbered(&mut self.sequence_number, done, members);
            sink.push(event)?;
            let mut members = part_address(&id, index);
            members.push(("part", part_json(part, &text)));
            let event = numbered(
                &mut self.sequence_number,
                "response.content_part.done",
                members,
            );
            sink.push(event)?;
        }
        if let Some((_, name, arguments)) = self.items[index].call.clone() {
            let event = numbered(
                &mut self.sequence_number,
                "response.function_call_arguments.done",
                vec![
                    ("item_id", Json::Str(&id)),
                    ("output_index", Json::count(Some(index as u64))),
                    ("name", Json::Str(&name)),
                    ("arguments", Json::Str(&arguments)),
                ],
            );
            sink.push(event)?;
        }
        let item = item_json(&self.items[index]);
        let event = numbered(
            &mut self.sequence_number,
            "response.output_item.done",
            vec![
                ("output_index", Json::count(Some(index as u64))),
                ("item", item),
            ],
        );
        sink.push(event)
    }

    pub(super) fn finish<B: JsonBuilder>(
        &mut self,
        reason: FinishReason,
        usage: Usage,
        head: &mut Head,
        sink: &mut Sink<B>,
    ) -> Result<(), B::Error> {
        self.begin(head, sink)?;
        for step in self.sequencer.drain() {
            self.write_step(step, sink)?;
        }
        self.close(true, sink)?;
        let incomplete = match reason {
            FinishReason::Length => Some("max_output_tokens"),
            FinishReason::ContentFilter => Some("content_filter"),
            FinishReason::Stop | FinishReason::ToolCalls => None,
        };
        let output = self.items.iter().map(item_json).collect();
        let (kind, status) = match incomplete {
            Some(_) => ("response.incomplete", "incomplete"),
            None => ("response.completed", "completed"),
        };
        let response = response(head, status, incomplete, output, Some(usage));
        let event = numbered(
            &mut self.sequence_number,
            kind,
            vec![("response", response)],
        );
        sink.push(event)
    }
}

/// An event: its type, its sequence number (counted in `sequence`) and `members`.
fn numbered<'a, V>(
    sequence: &mut u64,
    kind: &'static str,
    members: Vec<(&'static str, Json<'a, V>)>,
) -> Json<'a, V> {
    let mut fields = vec![
        ("type", Json::Str(kind)),
        ("sequence_number", Json::count(Some(*sequence))),
    ];
    *sequence += 1;
    fields.extend(members);
    Json::Obj(fields)
}

/// `item_id`, `output_index` and `content_index` of an item's one content part.
fn part_address<V>(id: &str, index: usize) -> Vec<(&'static str, Json<'_, V>)> {
    vec![
        ("item_id", Json::Str(id)),
        ("output_index", Json::count(Some(index as u64))),
        ("content_index", Json::Int(0)),
    ]
}

fn part_type(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::Message => Some("output_text"),
        Kind::Reasoning => Some("reasoning_text"),
        Kind::Call(_) => None,
    }
}

fn part_json<'a, V>(part: &'static str, text: &'a str) -> Json<'a, V> {
    let mut members = vec![("type", Json::Str(part)), ("text", Json::Str(text))];
    if part == "output_text" {
        members.push(("annotations", Json::Arr(Vec::new())));
    }
    Json::Obj(members)
}

fn item_json<V>(item: &Item) -> Json<'_, V> {
    let status = Json::Str(if item.complete {
        "completed"
    } else {
        "in_progress"
    });
    match (&item.call, item.kind) {
        (Some((call_id, name, arguments)), _) => Json::Obj(vec![
            ("id", Json::Str(&item.id)),
            ("type", Json::Tag("function_call")),
            ("status", status),
            ("call_id", Json::Str(call_id)),
            ("name", Json::Str(name)),
            ("arguments", Json::Str(arguments)),
        ]),
        (None, Kind::Reasoning) => {
            let content = if item.text.is_empty() && !item.complete {
                Vec::new()
            } else {
                vec![part_json("reasoning_text", &item.text)]
            };
            Json::Obj(vec![
                ("id", Json::Str(&item.id)),
                ("type", Json::Tag("reasoning")),
                ("summary", Json::Arr(Vec::new())),
                ("content", Json::Arr(content)),
            ])
        }
        (None, _) => {
            let content = if item.text.is_empty() && !item.complete {
                Vec::new()
            } else {
                vec![part_json("output_text", &item.text)]
            };
            Json::Obj(vec![
                ("id", Json::Str(&item.id)),
                ("type", Json::Tag("message")),
                ("status", status),
                ("role", Json::Tag("assistant")),
                ("content", Json::Arr(content)),
            ])
        }
    }
}

/// The response object of `response.created` and `response.completed`.
fn response<'a, V>(
    head: &'a Head,
    status: &'static str,
    incomplete: Option<&'static str>,
    output: Vec<Json<'a, V>>,
    usage: Option<Usage>,
) -> Json<'a, V> {
    let incomplete = incomplete.map_or(Json::Null, |reason| {
        Json::Obj(vec![("reason", Json::Str(reason))])
    });
    let usage = usage.filter(|u| !u.is_empty()).map_or(Json::Null, |usage| {
        let input = usage.input_tokens.unwrap_or(0);
        let output = usage.output_tokens.unwrap_or(0);
        Json::Obj(vec![
            ("input_tokens", Json::count(Some(input))),
            (
                "input_tokens_details",
                Json::Obj(vec![(
                    "cached_tokens",
                    Json::count(usage.cached_input_tokens),
                )]),
            ),
            ("output_tokens", Json::count(Some(output))),
            (
                "output_tokens_details",
                Json::Obj(vec![(
                    "reasoning_tokens",
                    Json::count(usage.reasoning_tokens),
                )]),
            ),
            ("total_tokens", Json::count(Some(input + output))),
        ])
    });
    Json::Obj(vec![
        ("id", Json::Tag(head.id.as_deref().unwrap_or_default())),
        ("object", Json::Tag("response")),
        ("created_at", Json::count(Some(head.created))),
        ("status", Json::Str(status)),
        ("error", Json::Null),
        ("incomplete_details", incomplete),
        ("model", Json::Tag(head.model())),
        ("output", Json::Arr(output)),
        ("parallel_tool_calls", Json::Bool(true)),
        ("tool_choice", Json::Tag("auto")),
        ("tools", Json::Arr(Vec::new())),
        ("usage", usage),
    ])
}
