//! Anthropic Messages: stream events in and out (`message_start`, `content_block_start`,
//! `content_block_delta`, `content_block_stop`, `message_delta`, `message_stop`).
//!
//! A `tool_use` block's `input_json_delta` pieces are its arguments and its
//! `content_block_stop` ends it (an `input` sent whole in `content_block_start` is used when no
//! piece comes). Text blocks give text, thinking blocks reasoning. Written blocks follow one
//! another: a call's block stays open until it ends, and what comes meanwhile waits.

use super::ledger::{Ledger, Out};
use super::writer::{Head, Json, Sequencer, Sink, Step};
use super::{count, object, with_str, FinishReason, Usage};
use crate::json::{JsonBuilder, JsonKind, JsonView};

#[derive(Default)]
pub(super) struct Reader {
    /// The content block index → its call.
    blocks: Vec<(i64, usize)>,
    last: Option<usize>,
}

impl Reader {
    /// Reads one event; `message_stop` ends the stream.
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
        let [kind, index, delta, block, message, usage] = event.members([
            "type",
            "index",
            "delta",
            "content_block",
            "message",
            "usage",
        ]);
        let objects = |value: Option<I>| value.filter(|v| v.kind() == JsonKind::Object);
        let (delta, block, message, usage) = (
            objects(delta),
            objects(block),
            objects(message),
            objects(usage),
        );
        let index = index.and_then(|i| i.as_i64());
        let block_call = match index {
            Some(index) => self
                .blocks
                .iter()
                .rev()
                .find(|(i, _)| *i == index)
                .map(|(_, c)| *c),
            None => self.last,
        };
        match kind.as_ref().and_then(|k| k.as_str()).unwrap_or_default() {
            "content_block_delta" => {
                let Some(delta) = delta else {
                    return Ok(false);
                };
                let [delta_kind, piece] = delta.members(["type", "partial_json"]);
                if delta_kind.as_ref().and_then(|k| k.as_str()) == Some("input_json_delta") {
                    if let Some(call) = block_call {
                        ledger.update(call, None, piece.as_ref(), out);
                    }
                } else {
                    text_and_thinking(&delta, ledger, builder, out)?;
                }
            }
            "content_block_start" => {
                let Some(block) = block else {
                    return Ok(false);
                };
                let [block_kind, id, name, input] = block.members(["type", "id", "name", "input"]);
                let block_kind = block_kind.as_ref().and_then(|k| k.as_str());
                if matches!(block_kind, Some("tool_use" | "server_tool_use")) {
                    let Some(call) = ledger.new_call(id.as_ref().and_then(|i| i.as_str())) else {
                        return Ok(false);
                    };
                    if let Some(index) = index {
                        self.blocks.push((index, call));
                    }
                    self.last = Some(call);
                    let name = name.as_ref().and_then(|n| n.as_str());
                    ledger.update(call, name, input.as_ref(), out);
                } else {
                    text_and_thinking(&block, ledger, builder, out)?;
                }
            }
            "content_block_stop" => {
                if let Some(call) = block_call {
                    ledger.end(call, builder, out)?;
                }
            }
            "message_start" => {
                if let Some(message) = message {
                    let meta = &mut ledger.meta;
                    meta.id = meta
                        .id
                        .take()
                        .or_else(|| with_str(&message, "id", str::to_owned));
                    meta.model = meta
                        .model
                        .take()
                        .or_else(|| with_str(&message, "model", str::to_owned));
                    if let Some(usage) = object(&message, "usage") {
                        meta.usage.merge(read_usage(&usage));
                    }
                }
            }
            "message_delta" => {
                let reason = delta.and_then(|d| with_str(&d, "stop_reason", stop_reason));
                if reason.is_some() {
                    ledger.meta.finish_reason = reason;
                }
                if let Some(usage) = usage {
                    ledger.meta.usage.merge(read_usage(&usage));
                }
            }
            "message_stop" => return Ok(true),
            _ => {}
        }
        Ok(false)
    }
}

/// The `text` and `thinking` of a block or delta.
fn text_and_thinking<I, B>(
    part: &I,
    ledger: &mut Ledger,
    builder: &mut B,
    out: &mut Out<B>,
) -> Result<(), B::Error>
where
    I: JsonView,
    B: JsonBuilder,
    B::Value: JsonView,
{
    let [text, thinking] = part.members(["text", "thinking"]);
    if let Some(text) = text.as_ref().and_then(|t| t.as_str()) {
        ledger.text(text, builder, out)?;
    }
    if let Some(thinking) = thinking.as_ref().and_then(|t| t.as_str()) {
        ledger.reasoning(thinking, out);
    }
    Ok(())
}

fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "tool_use" => FinishReason::ToolCalls,
        "refusal" => FinishReason::ContentFilter,
        _ => FinishReason::Stop,
    }
}

/// Anthropic's `input_tokens` leave out the tokens read from or written to the cache; the
/// common count holds them.
fn read_usage<I: JsonView>(usage: &I) -> Usage {
    let cached = count(usage, "cache_read_input_tokens");
    let created = count(usage, "cache_creation_input_tokens");
    let input =
        count(usage, "input_tokens").map(|n| n + cached.unwrap_or(0) + created.unwrap_or(0));
    Usage {
        input_tokens: input,
        output_tokens: count(usage, "output_tokens"),
        cached_input_tokens: cached,
        reasoning_tokens: None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    Tool(usize),
}

#[derive(Default)]
pub(super) struct Writer {
    sequencer: Sequencer,
    /// The open content block: its index and what it holds.
    open: Option<(usize, Block)>,
    blocks: usize,
}

impl Writer {
    pub(super) fn write<B>(
        &mut self,
        step: Step,
        head: &mut Head,
        sink: &mut Sink<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
    {
        begin(head, sink)?;
        for step in self.sequencer.order(step) {
            self.write_step(step, sink)?;
        }
        Ok(())
    }

    fn write_step<B: JsonBuilder>(
        &mut self,
        step: Step,
        sink: &mut Sink<B>,
    ) -> Result<(), B::Error> {
        match step {
            Step::Text(text) => {
                let index = self.open_block(Block::Text, sink)?;
                let delta = Json::Obj(vec![
                    ("type", Json::Tag("text_delta")),
                    ("text", Json::Str(&text)),
                ]);
                sink.push(block_delta(index, delta))
            }
            Step::Reasoning(text) => {
                let index = self.open_block(Block::Thinking, sink)?;
                let delta = Json::Obj(vec![
                    ("type", Json::Tag("thinking_delta")),
                    ("thinking", Json::Str(&text)),
                ]);
                sink.push(block_delta(index, delta))
            }
            Step::Start { call, id, name } => {
                self.close(sink)?;
                let index = self.next_block(Block::Tool(call));
                let block = Json::Obj(vec![
                    ("type", Json::Tag("tool_use")),
                    ("id", Json::Str(&id)),
                    ("name", Json::Str(&name)),
                    ("input", Json::Obj(Vec::new())),
                ]);
                sink.push(block_start(index, block))
            }
            Step::Delta { call, text } => match self.open {
                Some((index, Block::Tool(open))) if open == call => {
                    sink.push(json_delta(index, &text))
                }
                _ => Ok(()),
            },
            Step::End { call, arguments } => match self.open {
                Some((index, Block::Tool(open))) if open == call => {
                    if let Some(text) = arguments {
                        sink.push(json_delta(index, &text))?;
                    }
                    self.close(sink)
                }
                _ => Ok(()),
            },
            Step::Invalid { call } => match self.open {
                Some((_, Block::Tool(open))) if open == call => self.close(sink),
                _ => Ok(()),
            },
        }
    }

    fn next_block(&mut self, block: Block) -> usize {
        let index = self.blocks;
        self.blocks += 1;
        self.open = Some((index, block));
        index
    }

    /// The index of an open block of this kind, opening one (and closing another) if needed.
    fn open_block<B: JsonBuilder>(
        &mut self,
        block: Block,
        sink: &mut Sink<B>,
    ) -> Result<usize, B::Error> {
        if let Some((index, open)) = self.open {
            if open == block {
                return Ok(index);
            }
        }
        self.close(sink)?;
        let index = self.next_block(block);
        let content = match block {
            Block::Thinking => Json::Obj(vec![
                ("type", Json::Tag("thinking")),
                ("thinking", Json::Tag("")),
                ("signature", Json::Tag("")),
            ]),
            _ => Json::Obj(vec![("type", Json::Tag("text")), ("text", Json::Tag(""))]),
        };
        sink.push(block_start(index, content))?;
        Ok(index)
    }

    fn close<B: JsonBuilder>(&mut self, sink: &mut Sink<B>) -> Result<(), B::Error> {
        let Some((index, _)) = self.open.take() else {
            return Ok(());
        };
        sink.push(Json::Obj(vec![
            ("type", Json::Tag("content_block_stop")),
            ("index", Json::count(Some(index as u64))),
        ]))
    }

    pub(super) fn finish<B: JsonBuilder>(
        &mut self,
        reason: FinishReason,
        usage: Usage,
        head: &mut Head,
        sink: &mut Sink<B>,
    ) -> Result<(), B::Error> {
        begin(head, sink)?;
        for step in self.sequencer.drain() {
            self.write_step(step, sink)?;
        }
        self.close(sink)?;
        let stop = match reason {
            FinishReason::Stop => "end_turn",
            FinishReason::ToolCalls => "tool_use",
            FinishReason::Length => "max_tokens",
            FinishReason::ContentFilter => "refusal",
        };
        let mut counts = vec![("output_tokens", Json::count(usage.output_tokens))];
        if usage.input_tokens.is_some() {
            counts.extend(input_counts(usage));
        }
        sink.push(Json::Obj(vec![
            ("type", Json::Tag("message_delta")),
            (
                "delta",
                Json::Obj(vec![
                    ("stop_reason", Json::Str(stop)),
                    ("stop_sequence", Json::Null),
                ]),
            ),
            ("usage", Json::Obj(counts)),
        ]))?;
        sink.push(Json::Obj(vec![("type", Json::Tag("message_stop"))]))
    }
}

/// `input_tokens` (without the cached ones) and `cache_read_input_tokens`.
fn input_counts<'a, V>(usage: Usage) -> Vec<(&'static str, Json<'a, V>)> {
    let cached = usage.cached_input_tokens;
    let input = usage
        .input_tokens
        .map(|n| n.saturating_sub(cached.unwrap_or(0)));
    let mut counts = vec![("input_tokens", Json::count(input))];
    if cached.is_some() {
        counts.push(("cache_read_input_tokens", Json::count(cached)));
    }
    counts
}

/// `message_start`, once.
fn begin<B: JsonBuilder>(head: &mut Head, sink: &mut Sink<B>) -> Result<(), B::Error> {
    if head.started {
        return Ok(());
    }
    head.started = true;
    head.id("msg_");
    let mut counts = input_counts(head.usage);
    counts.push(("output_tokens", Json::Int(0)));
    let message = Json::Obj(vec![
        ("id", Json::Tag(head.id.as_deref().unwrap_or_default())),
        ("type", Json::Tag("message")),
        ("role", Json::Tag("assistant")),
        ("model", Json::Tag(head.model())),
        ("content", Json::Arr(Vec::new())),
        ("stop_reason", Json::Null),
        ("stop_sequence", Json::Null),
        ("usage", Json::Obj(counts)),
    ]);
    sink.push(Json::Obj(vec![
        ("type", Json::Tag("message_start")),
        ("message", message),
    ]))
}

fn block_start<'a, V>(index: usize, block: Json<'a, V>) -> Json<'a, V> {
    Json::Obj(vec![
        ("type", Json::Tag("content_block_start")),
        ("index", Json::count(Some(index as u64))),
        ("content_block", block),
    ])
}

fn block_delta<'a, V>(index: usize, delta: Json<'a, V>) -> Json<'a, V> {
    Json::Obj(vec![
        ("type", Json::Tag("content_block_delta")),
        ("index", Json::count(Some(index as u64))),
        ("delta", delta),
    ])
}

fn json_delta<V>(index: usize, text: &str) -> Json<'_, V> {
    let delta = Json::Obj(vec![
        ("type", Json::Tag("input_json_delta")),
        ("partial_json", Json::Str(text)),
    ]);
    block_delta(index, delta)
}
