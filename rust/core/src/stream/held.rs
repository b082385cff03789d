//! Calls read inside think spans (`calls_in_reasoning`). Models draft a call in their reasoning
//! and write it again after it, so a call read inside a think span counts only when the message
//! makes no call outside reasoning (valid or invalid); a message whose calls are all inside
//! reasoning keeps them.
//!
//! A body (`~~~tool_call` block, raw JSON, format region) opened inside a think span is read by
//! [`Ctx::in_reasoning`] with a [`ValueBuilder`] (its calls may outlive the caller's builder,
//! which makes Python objects bound to one feed): its text goes out as usual, and its call events
//! wait in [`Held`]. The first call outside reasoning drops them and gives their indices back
//! ([`Shared::take_index`](super::shared::Shared::take_index)); the calls inside reasoning after
//! it are dropped at once. At the end of the text the held events go out, built with the
//! caller's builder. Either way the markup of a call read inside reasoning is not reasoning text.

use std::convert::Infallible;
use std::mem;

use crate::calls::{Call, FailureKind, Invalid, Protocol};
use crate::json::{to_compact_json, JsonBuilder, JsonView, Value, ValueBuilder};

use super::{Ctx, Event};

/// The call events read inside reasoning, not sent yet.
#[derive(Debug, Default)]
pub(super) struct Held {
    events: Vec<Event<Value>>,
    /// The index of the first call held.
    from: Option<usize>,
    /// A call started outside reasoning: calls inside it are dropped from now on.
    pub outside: bool,
    /// Held calls were sent at the end of the text: the message's calls are all in reasoning.
    pub released: bool,
}

impl Held {
    /// The index of the first call held, while calls are held.
    pub fn first_index(&self) -> Option<usize> {
        self.from
    }

    /// The first call outside reasoning: takes the held events, and the index they began at
    /// (the outside calls are numbered from there).
    pub fn drop_for_outside(&mut self) -> (Vec<Event<Value>>, Option<usize>) {
        self.outside = true;
        (mem::take(&mut self.events), self.from.take())
    }
}

impl<B> Ctx<'_, B>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    /// Runs `read` (a body's feed or finish) on a body opened inside a think span: its text
    /// goes out, its call events are held (or dropped, after a call outside reasoning).
    pub(super) fn in_reasoning<R>(
        &mut self,
        read: impl FnOnce(&mut Ctx<'_, ValueBuilder>) -> Result<R, Infallible>,
    ) -> R {
        let mut events = Vec::new();
        let before = self.shared.peek_index();
        let Ok(result) = read(&mut Ctx {
            shared: &mut *self.shared,
            options: self.options,
            tools: self.tools,
            builder: &mut ValueBuilder,
            out: &mut events,
            starts: self.starts,
            bare_formats: self.bare_formats,
        });
        let shared = &mut *self.shared;
        let mut dropped = Vec::new();
        for event in events {
            match event {
                Event::Text(text) => self.out.push(Event::Text(text)),
                Event::Reasoning(text) => self.out.push(Event::Reasoning(text)),
                call if shared.held.outside => dropped.push(call),
                call => shared.held.events.push(call),
            }
        }
        if shared.held.outside {
            shared.drop_calls(dropped, Some(before));
        } else if shared.peek_index() > before {
            shared.held.from.get_or_insert(before);
        }
        result
    }

    /// The text ended: the held call events go out, built with the caller's builder.
    pub(super) fn release_held(&mut self) -> Result<(), B::Error> {
        let held = &mut self.shared.held;
        if held.outside || held.events.is_empty() {
            return Ok(());
        }
        held.released = true;
        for event in mem::take(&mut held.events) {
            let event = built(event, self.builder)?;
            self.shared.event(event, self.out);
        }
        Ok(())
    }
}

/// A held event, its call's arguments built with `builder`. Arguments the builder refuses (an
/// integer too long for Python) make the call invalid, as they do when read outside reasoning.
fn built<B: JsonBuilder>(
    event: Event<Value>,
    builder: &mut B,
) -> Result<Event<B::Value>, B::Error> {
    Ok(match event {
        Event::CallEnd { index, call } => match call.arguments.build(builder) {
            Ok(arguments) => Event::CallEnd {
                index,
                call: Call {
                    id: call.id,
                    name: call.name,
                    arguments,
                },
            },
            Err(error) => match builder.refusal(&error) {
                Some(refusal) => Event::Invalid(Invalid {
                    kind: FailureKind::Arguments,
                    protocol: Protocol::TextTagged,
                    index,
                    raw: to_compact_json(&call.arguments),
                    subject: format!("invalid arguments in tool call {index} ('{}')", call.name),
                    name: Some(call.name),
                    detail: refusal.message(),
                    byte_offset: None,
                    line_column: None,
                    offset: None,
                }),
                None => return Err(error),
            },
        },
        Event::Text(text) => Event::Text(text),
        Event::Reasoning(text) => Event::Reasoning(text),
        Event::CallStart { index, id, name } => Event::CallStart { index, id, name },
        Event::CallDelta { index, arguments } => Event::CallDelta { index, arguments },
        Event::Invalid(invalid) => Event::Invalid(invalid),
    })
}
