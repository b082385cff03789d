//! What every encoder shares: the stream objects being written (built by the caller's
//! builder, so the binding makes Python dicts directly), the response's header, the calls made
//! so far, and the order of blocks for providers that open one block at a time.

use std::collections::VecDeque;

use smallvec::SmallVec;
use std::time::{SystemTime, UNIX_EPOCH};

use super::{anthropic, gemini, ollama, openai, responses, FinishReason, Meta, Usage};
use crate::body::Shape;
use crate::ids::generate_id;
use crate::json::{to_compact_json, JsonBuilder, JsonStr, JsonView};
use crate::stream::Event;

/// A stream object being written; `V` leaves are values the caller already has (a call's
/// arguments).
pub(crate) enum Json<'a, V> {
    Null,
    Bool(bool),
    Int(i64),
    Str(&'a str),
    /// A string that recurs in object after object (a type tag, the response's id or model),
    /// which a builder may share between them.
    Tag(&'a str),
    Obj(Vec<(&'static str, Json<'a, V>)>),
    Arr(Vec<Json<'a, V>>),
    Value(V),
}

impl<'a, V> Json<'a, V> {
    pub(crate) fn count(n: Option<u64>) -> Self {
        Json::Int(n.map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX)))
    }

    pub(crate) fn build<B: JsonBuilder<Value = V>>(self, builder: &mut B) -> Result<V, B::Error> {
        match self {
            Json::Null => builder.null(),
            Json::Bool(b) => builder.boolean(b),
            Json::Int(n) => builder.int(n),
            Json::Str(s) => builder.string(JsonStr::from_utf8(s)),
            Json::Tag(s) => builder.recurring_string(s),
            Json::Obj(members) => {
                let mut object = builder.new_object()?;
                for (key, value) in members {
                    let value = value.build(builder)?;
                    builder.object_insert(&mut object, JsonStr::from_utf8(key), value)?;
                }
                builder.finish_object(object)
            }
            Json::Arr(items) => {
                let mut array = builder.new_array()?;
                for item in items {
                    let item = item.build(builder)?;
                    builder.array_push(&mut array, item)?;
                }
                builder.finish_array(array)
            }
            Json::Value(value) => Ok(value),
        }
    }
}

/// Where an encoder's objects go: built at once with the caller's builder.
pub(crate) struct Sink<'b, B: JsonBuilder> {
    pub(crate) builder: &'b mut B,
    pub(crate) out: &'b mut Vec<B::Value>,
}

impl<B: JsonBuilder> Sink<'_, B> {
    pub(crate) fn push(&mut self, object: Json<'_, B::Value>) -> Result<(), B::Error> {
        let value = object.build(self.builder)?;
        self.out.push(value);
        Ok(())
    }
}

/// The response's identity, written in its first object.
#[derive(Debug)]
pub(crate) struct Head {
    pub(crate) id: Option<String>,
    pub(crate) model: Option<String>,
    /// Unix seconds.
    pub(crate) created: u64,
    /// The source's usage when the first object is written (Anthropic's `message_start`
    /// carries the input tokens).
    pub(crate) usage: Usage,
    /// The first object has been written (id and model are fixed from then on).
    pub(crate) started: bool,
}

impl Head {
    /// The id, made once in the provider's style (`prefix` + random) when none was given.
    pub(crate) fn id(&mut self, prefix: &str) -> &str {
        self.id.get_or_insert_with(|| new_id(prefix))
    }

    pub(crate) fn model(&self) -> &str {
        self.model.as_deref().unwrap_or("")
    }
}

/// A fresh id in a provider's style: `prefix` and 12 random URL-safe characters.
pub(crate) fn new_id(prefix: &str) -> String {
    let id = generate_id();
    format!("{prefix}{}", &id["call_".len()..])
}

/// A call the encoder has seen start.
#[derive(Debug)]
pub(crate) struct Written {
    /// The event index it came with.
    pub(crate) input: usize,
    /// Its index in the output (calls are numbered in the order they start).
    pub(crate) output: usize,
    /// Arguments text sent so far.
    pub(crate) arguments: String,
}

/// The calls of the response.
#[derive(Debug, Default)]
pub(crate) struct Turn {
    pub(crate) calls: Vec<Written>,
    /// Calls that ended well (the stop reason is "tool calls" when there are any).
    pub(crate) ended: usize,
}

impl Turn {
    fn start(&mut self, input: usize) {
        let output = self.calls.len();
        self.calls.push(Written {
            input,
            output,
            arguments: String::new(),
        });
    }

    pub(crate) fn get(&mut self, input: usize) -> Option<&mut Written> {
        self.calls.iter_mut().rev().find(|call| call.input == input)
    }

    /// The arguments to send when a call ends with none sent: the compact JSON of the
    /// decoded arguments (a call given whole, with no text of its own).
    pub(crate) fn missing_arguments<V: JsonView>(
        &mut self,
        input: usize,
        arguments: &V,
    ) -> Option<String> {
        let call = self.get(input)?;
        if !call.arguments.is_empty() {
            return None;
        }
        let text = to_compact_json(arguments);
        if text == "{}" {
            return None;
        }
        call.arguments.clone_from(&text);
        Some(text)
    }

    /// The stop reason to write: "tool calls" exactly when calls were written (a gateway
    /// policy may have dropped the source's calls), else the source's reason.
    pub(crate) fn stop_reason(&self, reason: Option<FinishReason>) -> FinishReason {
        match reason {
            None | Some(FinishReason::Stop | FinishReason::ToolCalls) if self.ended > 0 => {
                FinishReason::ToolCalls
            }
            None | Some(FinishReason::Stop | FinishReason::ToolCalls) => FinishReason::Stop,
            Some(reason) => reason,
        }
    }
}

/// An event without its decoded value: what a provider that writes one block at a time holds
/// while another block is open.
#[derive(Debug)]
pub(crate) enum Step {
    Text(String),
    Reasoning(String),
    Start {
        call: usize,
        id: String,
        name: String,
    },
    Delta {
        call: usize,
        text: String,
    },
    /// `arguments`: what to send first when no argument text came (see
    /// [`Turn::missing_arguments`]).
    End {
        call: usize,
        arguments: Option<String>,
    },
    Invalid {
        call: usize,
    },
}

impl Step {
    pub(crate) fn of<V: JsonView>(event: Event<V>, turn: &mut Turn) -> Self {
        match event {
            Event::Text(text) => Step::Text(text),
            Event::Reasoning(text) => Step::Reasoning(text),
            Event::CallStart { index, id, name } => Step::Start {
                call: index,
                id,
                name,
            },
            Event::CallDelta { index, arguments } => Step::Delta {
                call: index,
                text: arguments,
            },
            Event::CallEnd { index, call } => Step::End {
                call: index,
                arguments: turn.missing_arguments(index, &call.arguments),
            },
            Event::Invalid(invalid) => Step::Invalid {
                call: invalid.index,
            },
        }
    }

    fn call(&self) -> Option<usize> {
        match self {
            Step::Text(_) | Step::Reasoning(_) => None,
            Step::Start { call, .. }
            | Step::Delta { call, .. }
            | Step::End { call, .. }
            | Step::Invalid { call } => Some(*call),
        }
    }
}

/// One call's block open at a time (Anthropic content blocks, Responses output items): while a
/// call is open, text and the events of other calls wait, in order, until it ends.
#[derive(Debug, Default)]
pub(crate) struct Sequencer {
    open_call: Option<usize>,
    pending: VecDeque<Step>,
}

impl Sequencer {
    /// The steps that can be written now, in order: `step` itself, or nothing while it waits,
    /// or (when it ends the open call) it and the waiting steps it frees.
    pub(crate) fn order(&mut self, step: Step) -> SmallVec<[Step; 1]> {
        let mut ready = SmallVec::new();
        if self.pending.is_empty() && (self.open_call.is_none() || step.call() == self.open_call) {
            // The usual case: nothing waits, and this step may pass.
            self.note(&step);
            ready.push(step);
            return ready;
        }
        if let Step::Invalid { call } = step {
            if self.open_call != Some(call) {
                // A call that failed before its block could open is never announced.
                self.pending.retain(|waiting| waiting.call() != Some(call));
                return ready;
            }
        }
        self.pending.push_back(step);
        while let Some(next) = self.pending.front() {
            let call = next.call();
            if self.open_call.is_some() && call != self.open_call {
                // Blocked by the open call: only its own steps may pass.
                let Some(at) = self.pending.iter().position(|s| s.call() == self.open_call) else {
                    break;
                };
                let own = self.pending.remove(at).expect("found");
                self.note(&own);
                ready.push(own);
                continue;
            }
            let next = self.pending.pop_front().expect("peeked");
            self.note(&next);
            ready.push(next);
        }
        ready
    }

    /// Everything still waiting (at the end of the stream).
    pub(crate) fn drain(&mut self) -> Vec<Step> {
        self.open_call = None;
        self.pending.drain(..).collect()
    }

    fn note(&mut self, step: &Step) {
        match step {
            Step::Start { call, .. } => self.open_call = Some(*call),
            Step::End { call, .. } | Step::Invalid { call } if self.open_call == Some(*call) => {
                self.open_call = None
            }
            _ => {}
        }
    }
}

enum Writer {
    OpenAI,
    Anthropic(anthropic::Writer),
    Responses(responses::Writer),
    Gemini,
    Ollama,
}

/// Events → one provider's stream objects.
pub struct Encoder {
    writer: Writer,
    head: Head,
    turn: Turn,
    finished: bool,
}

impl Encoder {
    /// An encoder for `provider` (`None` for `Shape::Auto`). `model` and `id` name the
    /// response; without them the source's ([`Encoder::adopt`]) or a generated id are used.
    pub fn new(provider: Shape, model: Option<String>, id: Option<String>) -> Option<Self> {
        let writer = match provider {
            Shape::Auto => return None,
            Shape::OpenAIChat => Writer::OpenAI,
            Shape::Anthropic => Writer::Anthropic(anthropic::Writer::default()),
            Shape::OpenAIResponses => Writer::Responses(responses::Writer::default()),
            Shape::Gemini => Writer::Gemini,
            Shape::Ollama => Writer::Ollama,
        };
        let created = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Some(Self {
            writer,
            head: Head {
                id,
                model,
                created,
                usage: Usage::default(),
                started: false,
            },
            turn: Turn::default(),
            finished: false,
        })
    }

    /// Takes the source stream's id and model where none was given, until the first object.
    pub fn adopt(&mut self, meta: &Meta) {
        if self.head.started {
            return;
        }
        if self.head.id.is_none() {
            self.head.id.clone_from(&meta.id);
        }
        if self.head.model.is_none() {
            self.head.model.clone_from(&meta.model);
        }
        self.head.usage = meta.usage;
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Writes one event; appends the objects it makes (often one, none while a block waits).
    pub fn encode<B>(
        &mut self,
        event: Event<B::Value>,
        builder: &mut B,
        out: &mut Vec<B::Value>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        if self.finished {
            return Ok(());
        }
        match &event {
            Event::CallStart { index, .. } => self.turn.start(*index),
            Event::CallDelta { index, arguments } => {
                if let Some(call) = self.turn.get(*index) {
                    call.arguments.push_str(arguments);
                }
            }
            Event::CallEnd { .. } => self.turn.ended += 1,
            _ => {}
        }
        let mut sink = Sink { builder, out };
        let (head, turn) = (&mut self.head, &mut self.turn);
        match &mut self.writer {
            Writer::OpenAI => openai::write(event, head, turn, &mut sink),
            Writer::Anthropic(w) => w.write(Step::of(event, turn), head, &mut sink),
            Writer::Responses(w) => w.write(Step::of(event, turn), head, &mut sink),
            Writer::Gemini => gemini::write(event, head, turn, &mut sink),
            Writer::Ollama => ollama::write(event, head, turn, &mut sink),
        }
    }

    /// Ends the response: closes what is open and writes the stop reason and usage.
    pub fn finish<B>(
        &mut self,
        reason: Option<FinishReason>,
        usage: Usage,
        builder: &mut B,
        out: &mut Vec<B::Value>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let mut sink = Sink { builder, out };
        let (head, turn) = (&mut self.head, &mut self.turn);
        let reason = turn.stop_reason(reason);
        match &mut self.writer {
            Writer::OpenAI => openai::finish(reason, usage, head, &mut sink),
            Writer::Anthropic(w) => w.finish(reason, usage, head, &mut sink),
            Writer::Responses(w) => w.finish(reason, usage, head, &mut sink),
            Writer::Gemini => gemini::finish(reason, usage, head, &mut sink),
            Writer::Ollama => ollama::finish(reason, usage, head, &mut sink),
        }
    }
}
