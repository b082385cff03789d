//! What every accumulator shares: the calls being received, their ids, the events they make,
//! the one decode of each call's arguments when it ends, and the route of text through the
//! format engine when text-written calls are looked for.
//!
//! A provider already separates text from calls, so this is bookkeeping, not parsing: argument
//! pieces are appended and decoded once, when the call ends (linear in the stream's size).

use std::collections::HashSet;

use super::{FinishReason, Meta};
use crate::calls::{decode_arguments_text, FailureKind, Invalid, Protocol};
use crate::ids::generate_id;
use crate::json::{to_compact_json, JsonBuilder, JsonKind, JsonView, ParseOptions};
use crate::stream::{Event, StreamError, StreamParser};

pub(crate) type Out<B> = Vec<Event<<B as JsonBuilder>::Value>>;

/// One call being received.
#[derive(Debug)]
struct Open {
    index: usize,
    /// The id the provider gave (before the start), then the id the call was announced with.
    id: Option<String>,
    name: Option<String>,
    pieces: String,
    /// An arguments object sent whole, as compact JSON: the arguments when no text comes.
    whole: Option<String>,
    started: bool,
}

/// A call of the format engine, as renumbered among the stream's calls.
#[derive(Debug)]
struct TextCall {
    engine_index: usize,
    index: usize,
    id: String,
}

/// The format engine reading the provider's text, and its calls.
struct TextEngine {
    parser: StreamParser,
    calls: Vec<TextCall>,
}

/// Calls, ids and metadata of one streamed response.
pub(crate) struct Ledger {
    next_index: usize,
    open: Vec<Open>,
    ids: HashSet<String>,
    engine: Option<TextEngine>,
    pub(crate) meta: Meta,
    /// Calls that ended well (a plain stop with calls is reported as "tool calls").
    ended: usize,
    /// The message has ended (`finish_reason`, `message_stop`, …): later text and calls are
    /// ignored, metadata (a trailing usage chunk) is still read.
    closed: bool,
}

impl Ledger {
    pub(crate) fn new(engine: Option<StreamParser>) -> Self {
        Self {
            next_index: 0,
            open: Vec::new(),
            ids: HashSet::new(),
            engine: engine.map(|parser| TextEngine {
                parser,
                calls: Vec::new(),
            }),
            meta: Meta::default(),
            ended: 0,
            closed: false,
        }
    }

    /// A new call (not announced until it has a name); `None` once the message has ended.
    pub(crate) fn new_call(&mut self, id: Option<&str>) -> Option<usize> {
        if self.closed {
            return None;
        }
        let index = self.next_index;
        self.next_index += 1;
        self.open.push(Open {
            index,
            id: id.filter(|id| !id.is_empty()).map(str::to_owned),
            name: None,
            pieces: String::new(),
            whole: None,
            started: false,
        });
        Some(index)
    }

    fn find(&self, call: usize) -> Option<usize> {
        self.open.iter().rposition(|open| open.index == call)
    }

    /// The call's id: the provider's until it starts, then the one it was announced with.
    pub(crate) fn id(&self, call: usize) -> Option<&str> {
        self.find(call).and_then(|at| self.open[at].id.as_deref())
    }

    pub(crate) fn has_name(&self, call: usize) -> bool {
        self.find(call)
            .is_some_and(|at| self.open[at].name.is_some())
    }

    pub(crate) fn has_arguments(&self, call: usize) -> bool {
        self.find(call).is_some_and(|at| {
            let open = &self.open[at];
            !open.pieces.is_empty() || open.whole.is_some()
        })
    }

    /// Gives a call its id while it has not started (a later fragment brought it).
    pub(crate) fn set_id(&mut self, call: usize, id: &str) {
        if let Some(at) = self.find(call) {
            if !self.open[at].started && !id.is_empty() {
                self.open[at].id = Some(id.to_owned());
            }
        }
    }

    /// Applies a fragment: a name (the first one counts), then an arguments piece: text, or an
    /// object sent whole. The call starts once it has a name; pieces before that go out with
    /// its start, as one delta.
    pub(crate) fn update<V, A: JsonView>(
        &mut self,
        call: usize,
        name: Option<&str>,
        arguments: Option<&A>,
        out: &mut Vec<Event<V>>,
    ) {
        let Some(at) = self.find(call) else {
            return;
        };
        let open = &mut self.open[at];
        if open.name.is_none() {
            open.name = name.filter(|name| !name.is_empty()).map(str::to_owned);
        }
        if let Some(arguments) = arguments {
            match arguments.kind() {
                JsonKind::String => {
                    let piece = arguments.as_str().unwrap_or_default();
                    if !piece.is_empty() {
                        open.pieces.push_str(piece);
                        if open.started {
                            out.push(Event::CallDelta {
                                index: open.index,
                                arguments: piece.to_owned(),
                            });
                        }
                    }
                }
                JsonKind::Object if !arguments.entries().is_empty() => {
                    open.whole = Some(to_compact_json(arguments));
                }
                _ => {}
            }
        }
        if !open.started && open.name.is_some() {
            open.started = true;
            let id = claim(&mut self.ids, open.id.take());
            let open = &mut self.open[at];
            open.id = Some(id.clone());
            out.push(Event::CallStart {
                index: open.index,
                id,
                name: open.name.clone().unwrap_or_default(),
            });
            if !open.pieces.is_empty() {
                out.push(Event::CallDelta {
                    index: open.index,
                    arguments: open.pieces.clone(),
                });
            }
        }
    }

    /// Ends a call: decodes its arguments once → `CallEnd`, or an `Invalid` that keeps them.
    pub(crate) fn end<B>(
        &mut self,
        call: usize,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        let Some(at) = self.find(call) else {
            return Ok(());
        };
        let open = self.open.remove(at);
        let mut text = open.pieces;
        if text.is_empty() {
            if let Some(whole) = open.whole {
                text = whole;
                if open.started {
                    out.push(Event::CallDelta {
                        index: open.index,
                        arguments: text.clone(),
                    });
                }
            }
        }
        let Some(name) = open.name else {
            let subject = format!("tool call {}", open.index);
            let invalid = native_invalid(open.index, text, None, subject, "it has no name");
            out.push(Event::Invalid(invalid));
            return Ok(());
        };
        match decode_arguments_text(builder, &text, ParseOptions::json(false)) {
            Ok(arguments) => {
                self.ended += 1;
                out.push(Event::CallEnd {
                    index: open.index,
                    call: crate::calls::Call {
                        id: open.id,
                        name,
                        arguments,
                    },
                });
            }
            Err(failure) => {
                if let Some(e) = failure.build {
                    return Err(e);
                }
                let subject = format!("invalid arguments of tool call {}", open.index);
                let mut invalid =
                    native_invalid(open.index, text, Some(name), subject, &failure.detail);
                invalid.kind = failure.kind;
                out.push(Event::Invalid(invalid));
            }
        }
        Ok(())
    }

    /// Ends every open call, in the order they began.
    pub(crate) fn end_all<B>(&mut self, builder: &mut B, out: &mut Out<B>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        while let Some(first) = self.open.first() {
            let index = first.index;
            self.end(index, builder, out)?;
        }
        Ok(())
    }

    /// The end of the message: held text released (through the format engine), every open
    /// call ended.
    pub(crate) fn close<B>(&mut self, builder: &mut B, out: &mut Out<B>) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        if self.closed {
            return Ok(());
        }
        if let Some(engine) = &mut self.engine {
            let mut events = Vec::new();
            match engine.parser.finish(builder, &mut events) {
                Ok(()) | Err(StreamError::Utf8 { .. }) => {}
                Err(StreamError::Build(e)) => return Err(e),
            }
            self.renumber(events, out);
        }
        self.end_all(builder, out)?;
        if self.ended > 0 && self.meta.finish_reason == Some(FinishReason::Stop) {
            // Gemini, Ollama and Responses say "stop" when the model called tools.
            self.meta.finish_reason = Some(FinishReason::ToolCalls);
        }
        self.closed = true;
        Ok(())
    }

    /// Text of the response: an event, or input of the format engine.
    pub(crate) fn text<B>(
        &mut self,
        text: &str,
        builder: &mut B,
        out: &mut Out<B>,
    ) -> Result<(), B::Error>
    where
        B: JsonBuilder,
        B::Value: JsonView,
    {
        if text.is_empty() || self.closed {
            return Ok(());
        }
        match &mut self.engine {
            None => out.push(Event::Text(text.to_owned())),
            Some(engine) => {
                let mut events = Vec::new();
                engine.parser.feed(text, builder, &mut events)?;
                self.renumber(events, out);
            }
        }
        Ok(())
    }

    pub(crate) fn reasoning<V>(&mut self, text: &str, out: &mut Vec<Event<V>>) {
        if !text.is_empty() && !self.closed {
            out.push(Event::Reasoning(text.to_owned()));
        }
    }

    /// The engine's events, its calls numbered among the stream's and their ids unique in it.
    fn renumber<V>(&mut self, events: Vec<Event<V>>, out: &mut Vec<Event<V>>) {
        let Some(engine) = &mut self.engine else {
            return;
        };
        let position = |calls: &[TextCall], engine_index: usize| {
            calls.iter().position(|c| c.engine_index == engine_index)
        };
        for event in events {
            out.push(match event {
                Event::CallStart { index, id, name } => {
                    let id = claim(&mut self.ids, Some(id));
                    let renumbered = self.next_index;
                    self.next_index += 1;
                    engine.calls.push(TextCall {
                        engine_index: index,
                        index: renumbered,
                        id: id.clone(),
                    });
                    Event::CallStart {
                        index: renumbered,
                        id,
                        name,
                    }
                }
                Event::CallDelta { index, arguments } => match position(&engine.calls, index) {
                    Some(at) => Event::CallDelta {
                        index: engine.calls[at].index,
                        arguments,
                    },
                    None => continue,
                },
                Event::CallEnd { index, mut call } => match position(&engine.calls, index) {
                    Some(at) => {
                        let text_call = engine.calls.remove(at);
                        call.id = Some(text_call.id);
                        self.ended += 1;
                        Event::CallEnd {
                            index: text_call.index,
                            call,
                        }
                    }
                    None => continue,
                },
                Event::Invalid(mut invalid) => {
                    invalid.index = match position(&engine.calls, invalid.index) {
                        Some(at) => engine.calls.remove(at).index,
                        None => {
                            self.next_index += 1;
                            self.next_index - 1
                        }
                    };
                    Event::Invalid(invalid)
                }
                text => text,
            });
        }
    }
}

/// The call's id: its own, unless absent or already used in this response (docs/parsing.md).
fn claim(ids: &mut HashSet<String>, id: Option<String>) -> String {
    let id = match id {
        Some(id) if !ids.contains(&id) => id,
        _ => generate_id(),
    };
    ids.insert(id.clone());
    id
}

fn native_invalid(
    index: usize,
    raw: String,
    name: Option<String>,
    subject: String,
    detail: &str,
) -> Invalid {
    Invalid {
        kind: FailureKind::Parse,
        protocol: Protocol::Native,
        index,
        raw,
        name,
        subject,
        detail: detail.to_owned(),
        byte_offset: None,
        line_column: None,
        offset: None,
    }
}
