//! The provider stream accumulators (`OpenAIStreamAccumulator`, `AnthropicStreamAccumulator`,
//! `ResponsesStreamAccumulator`, `GeminiStreamAccumulator`, `OllamaStreamAccumulator`): the
//! core's accumulators and gate, with Python objects made at the edge.

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};
use toolwire_core::body::Shape;
use toolwire_core::calls::Protocol;
use toolwire_core::provider_stream::{Accumulator, FeedError, Meta, Usage};
use toolwire_core::stream::{Event, StreamParser as Engine};

use crate::builder::PyBuilder;
use crate::encoder::not_a_stream_provider;
use crate::errors::provider_format_error;
use crate::events::ToolCallEnd;
use crate::gateway::Gateway;
use crate::input::{guarded, plain_data, with_text};
use crate::stream::{event_object, stream_options, stream_tools};
use crate::types::{InvalidToolCall, ToolCall};
use crate::view::{PyJson, ScannedJson};

/// An accumulator and the gate after it: stream items in, gated events out.
pub struct Pipeline {
    accumulator: Accumulator,
    gateway: Gateway,
}

impl Pipeline {
    pub fn new(
        provider: Shape,
        text_formats: Option<&Bound<'_, PyAny>>,
        tools: Option<&Bound<'_, PyAny>>,
        release: &str,
        unknown_tools: &str,
    ) -> PyResult<Self> {
        let engine = match text_formats.filter(|f| !f.is_none()) {
            Some(formats) => {
                let options = stream_options(formats, true, true)?;
                Some(Engine::with_tools(options, stream_tools(tools)?))
            }
            None => None,
        };
        Ok(Self {
            accumulator: Accumulator::new(provider, engine)
                .ok_or_else(|| not_a_stream_provider("auto"))?,
            gateway: Gateway::new(release, unknown_tools, tools, Protocol::Native)?,
        })
    }

    pub fn meta(&self) -> &Meta {
        self.accumulator.meta()
    }

    /// Feeds one stream item (a dict, SSE/NDJSON text, or an SDK object); appends the events.
    pub fn feed<'py>(
        &mut self,
        item: &Bound<'py, PyAny>,
        builder: &mut PyBuilder<'py>,
        events: &mut Vec<Event<PyJson<'py>>>,
    ) -> PyResult<()> {
        let py = item.py();
        let chunk = if let Ok(dict) = item.cast::<PyDict>() {
            dict.clone()
        } else if item.is_instance_of::<PyString>()
            || item.is_instance_of::<PyBytes>()
            || item.is_instance_of::<PyByteArray>()
        {
            with_text(item, "a stream item", |text| {
                match self.accumulator.feed_text(text, builder, events) {
                    Ok(()) => Ok(()),
                    Err(FeedError::Build(e)) => Err(e.into()),
                    Err(FeedError::NotJson(message)) => {
                        Err(provider_format_error(py, &message, ""))
                    }
                }
            })?;
            self.gateway.filter(events);
            return Ok(());
        } else {
            let plain = plain_data(item)?;
            match plain.cast::<PyDict>() {
                Ok(dict) => dict.clone(),
                Err(_) if plain.hasattr("keys")? => {
                    PyDict::from_sequence(&plain.call_method0("items")?)?
                }
                Err(_) => {
                    return Err(PyTypeError::new_err(format!(
                        "a stream item must be a dict, SSE or NDJSON text, or an SDK object, \
                         not {}",
                        item.get_type().name()?
                    )))
                }
            }
        };
        // Chunks are small dicts whose members are read in one walk (see `ScannedJson`).
        let chunk = ScannedJson::<8>(PyJson(chunk.into_any()));
        self.accumulator.feed(&chunk, builder, events)?;
        self.gateway.filter(events);
        Ok(())
    }

    pub fn finish<'py>(
        &mut self,
        builder: &mut PyBuilder<'py>,
        events: &mut Vec<Event<PyJson<'py>>>,
    ) -> PyResult<()> {
        self.accumulator.finish(builder, events)?;
        self.gateway.filter(events);
        Ok(())
    }
}

/// What an accumulator has received: text, reasoning, the calls and the invalid calls.
#[derive(Default)]
struct Transcript {
    content: String,
    reasoning: Option<String>,
    calls: Vec<Py<ToolCall>>,
    invalid: Vec<Py<InvalidToolCall>>,
}

impl Transcript {
    /// The events as Python objects, noted on the way.
    fn objects<'py>(
        &mut self,
        py: Python<'py>,
        events: Vec<Event<PyJson<'py>>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut objects = Vec::with_capacity(events.len());
        for event in events {
            match &event {
                Event::Text(text) => self.content.push_str(text),
                Event::Reasoning(text) => self
                    .reasoning
                    .get_or_insert_with(String::new)
                    .push_str(text),
                _ => {}
            }
            let object = event_object(py, event, None)?;
            if let Ok(end) = object.cast::<ToolCallEnd>() {
                self.calls.push(end.get().call.clone_ref(py));
            } else if let Ok(invalid) = object.cast::<InvalidToolCall>() {
                self.invalid.push(invalid.clone().unbind());
            }
            objects.push(object);
        }
        PyList::new(py, objects)
    }
}

/// `usage` as the dict the accumulators and encoders share (only the counts given).
pub fn usage_dict<'py>(py: Python<'py>, usage: &Usage) -> PyResult<Option<Bound<'py, PyDict>>> {
    if usage.is_empty() {
        return Ok(None);
    }
    let dict = PyDict::new(py);
    for (key, count) in [
        ("input_tokens", usage.input_tokens),
        ("output_tokens", usage.output_tokens),
        ("cached_input_tokens", usage.cached_input_tokens),
        ("reasoning_tokens", usage.reasoning_tokens),
    ] {
        if let Some(count) = count {
            dict.set_item(key, count)?;
        }
    }
    Ok(Some(dict))
}

/// The state every accumulator class holds.
pub struct State {
    pipeline: Pipeline,
    transcript: Transcript,
}

impl State {
    fn feed<'py>(&mut self, item: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let py = item.py();
        let mut builder = PyBuilder::new(py);
        let mut events = Vec::new();
        self.pipeline.feed(item, &mut builder, &mut events)?;
        self.transcript.objects(py, events)
    }

    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut builder = PyBuilder::new(py);
        let mut events = Vec::new();
        self.pipeline.finish(&mut builder, &mut events)?;
        self.transcript.objects(py, events)
    }
}

/// The class's state, mutably; a clear error when another thread (or a re-entrant call) has it.
fn in_use<'py, T: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::False>>(
    slf: &Bound<'py, T>,
) -> PyResult<PyRefMut<'py, T>> {
    slf.try_borrow_mut().map_err(|_| {
        PyRuntimeError::new_err(format!(
            "{} is already in use: one accumulator must not be used from two threads at once",
            slf.as_any()
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })
}

/// Defines one accumulator class over [`State`].
macro_rules! accumulator_class {
    ($(#[$doc:meta])* $class:ident, $provider:expr) => {
        $(#[$doc])*
        #[pyclass(module = "toolwire")]
        pub struct $class {
            state: State,
            #[pyo3(get)]
            tools: Option<Py<PyAny>>,
        }

        #[pymethods]
        impl $class {
            #[new]
            #[pyo3(signature = (*, text_formats = None, tools = None, release = "eager", unknown_tools = "keep"))]
            fn new(
                py: Python<'_>,
                text_formats: Option<&Bound<'_, PyAny>>,
                tools: Option<Py<PyAny>>,
                release: &str,
                unknown_tools: &str,
            ) -> PyResult<Self> {
                let given = tools.as_ref().map(|t| t.bind(py));
                let pipeline = Pipeline::new($provider, text_formats, given, release, unknown_tools)?;
                let transcript = Transcript::default();
                Ok(Self { state: State { pipeline, transcript }, tools })
            }

            /// Feed `item`, one stream item (a dict, SSE or NDJSON text, or an SDK object);
            /// returns the events it completes. Never raises for bad model output: a call that cannot
            /// be read is an `InvalidToolCall` event.
            fn feed<'py>(slf: &Bound<'py, Self>, item: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
                guarded(slf.py(), || in_use(slf)?.state.feed(item))
            }

            /// End the stream: releases held text, ends every open call; returns the events.
            fn finish<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyList>> {
                guarded(slf.py(), || in_use(slf)?.state.finish(slf.py()))
            }

            /// The text received so far.
            #[getter]
            fn content(&self) -> &str {
                &self.state.transcript.content
            }

            /// The reasoning (thinking) text received so far, or None if there was none.
            #[getter]
            fn reasoning(&self) -> Option<&str> {
                self.state.transcript.reasoning.as_deref()
            }

            /// The calls ended so far (all of them after `finish()`), in order.
            #[getter]
            fn calls(&self, py: Python<'_>) -> Vec<Py<ToolCall>> {
                self.state.transcript.calls.iter().map(|c| c.clone_ref(py)).collect()
            }

            /// The calls that could not be read, or that a policy turned down.
            #[getter]
            fn invalid_calls(&self, py: Python<'_>) -> Vec<Py<InvalidToolCall>> {
                self.state.transcript.invalid.iter().map(|c| c.clone_ref(py)).collect()
            }

            /// The response's id, as the stream gave it.
            #[getter]
            fn response_id(&self) -> Option<&str> {
                self.state.pipeline.meta().id.as_deref()
            }

            /// The model, as the stream named it.
            #[getter]
            fn model(&self) -> Option<&str> {
                self.state.pipeline.meta().model.as_deref()
            }

            /// Why the response ended: "stop", "tool_calls", "length" or "content_filter" (in
            /// Chat Completions' words, whatever the provider), or None if the stream did not
            /// say.
            #[getter]
            fn finish_reason(&self) -> Option<&'static str> {
                self.state.pipeline.meta().finish_reason.map(|r| r.as_str())
            }

            /// Token counts the stream gave: `input_tokens`, `output_tokens`, and where given
            /// `cached_input_tokens` and `reasoning_tokens`; None when it gave none.
            #[getter]
            fn usage<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
                usage_dict(py, &self.state.pipeline.meta().usage)
            }
        }
    };
}

accumulator_class!(
    /// Accumulates an OpenAI Chat Completions stream (`chat.completion.chunk` objects) into the
    /// stream events, the final calls and the text.
    ///
    /// Feed each chunk as a dict, the text of its SSE `data:` line (`[DONE]` ends the stream)
    /// or an SDK object; each `feed` returns the events the chunk completes. Calls are told
    /// apart by `index`; a new `id` at an index already in use starts a new call (servers that
    /// reuse index 0), fragments without `index` go to the latest call (or start one when they
    /// bring a new `id` or a second name), and a call may come whole in one fragment. Calls end
    /// when the choice reports a `finish_reason`, at `[DONE]` or at `finish()`. Only choice 0 is
    /// read.
    ///
    /// `text_formats` ("auto", a format name or a list of them; default None) looks for calls
    /// written in the text (`content` with Hermes markup from a raw model, …) and makes them
    /// call events. `release` ("eager", "complete", "valid") and `unknown_tools` ("keep",
    /// "invalid", "drop"), with `tools` (tool definitions), are the gateway policies.
    ///
    /// >>> acc = OpenAIStreamAccumulator()
    /// >>> chunks = [
    /// ...     {"choices": [{"index": 0, "delta": {"content": "Let me check."}}]},
    /// ...     {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1",
    /// ...         "function": {"name": "get_weather", "arguments": ""}}]}}]},
    /// ...     {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
    /// ...         "function": {"arguments": '{"city": "Oslo"}'}}]}}]},
    /// ...     'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}',
    /// ...     "data: [DONE]",
    /// ... ]
    /// >>> events = [event for chunk in chunks for event in acc.feed(chunk)]
    /// >>> [event.kind for event in events]
    /// ['text_delta', 'tool_call_start', 'tool_call_delta', 'tool_call_end']
    /// >>> acc.calls, acc.content
    /// ([ToolCall(id='call_1', name='get_weather', arguments={'city': 'Oslo'})], 'Let me check.')
    OpenAIStreamAccumulator,
    Shape::OpenAIChat
);

accumulator_class!(
    /// Accumulates an Anthropic Messages stream (`message_start`, `content_block_start`,
    /// `content_block_delta`, `content_block_stop`, `message_delta`, `message_stop`, …).
    ///
    /// Feed each event as a dict, its SSE text (`event:`/`data:` lines) or an SDK object; each
    /// `feed` returns the stream events it completes. A `tool_use` block's `input_json_delta`
    /// pieces are its arguments; its `content_block_stop` ends it (an empty input is `{}`, an
    /// `input` sent whole in `content_block_start` is used as is). Text blocks give
    /// `TextDelta`, thinking blocks `ReasoningDelta`. Options (`text_formats`, `tools`, `release`,
    /// `unknown_tools`) as for `OpenAIStreamAccumulator`.
    ///
    /// >>> acc = AnthropicStreamAccumulator()
    /// >>> events = [
    /// ...     {"type": "content_block_start", "index": 0,
    /// ...      "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}},
    /// ...     {"type": "content_block_delta", "index": 0,
    /// ...      "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'}},
    /// ...     {"type": "content_block_stop", "index": 0},
    /// ...     {"type": "message_stop"},
    /// ... ]
    /// >>> [e.kind for event in events for e in acc.feed(event)]
    /// ['tool_call_start', 'tool_call_delta', 'tool_call_end']
    /// >>> acc.calls
    /// [ToolCall(id='toolu_1', name='f', arguments={'a': 1})]
    AnthropicStreamAccumulator,
    Shape::Anthropic
);

accumulator_class!(
    /// Accumulates an OpenAI Responses stream (`response.output_item.added`,
    /// `response.function_call_arguments.delta`/`.done`, `response.output_text.delta`,
    /// `response.reasoning_text.delta`, `response.completed`, …).
    ///
    /// A function call item's arguments come from its deltas, or, from servers that send none,
    /// from `.done` or `response.output_item.done`; the call's id is its `call_id`. Options
    /// (`text_formats`, `tools`, `release`, `unknown_tools`) as for `OpenAIStreamAccumulator`.
    ///
    /// >>> acc = ResponsesStreamAccumulator()
    /// >>> _ = acc.feed({"type": "response.output_item.done", "output_index": 0, "item": {
    /// ...     "type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f",
    /// ...     "arguments": '{"a": 1}'}})
    /// >>> acc.calls
    /// [ToolCall(id='call_1', name='f', arguments={'a': 1})]
    ResponsesStreamAccumulator,
    Shape::OpenAIResponses
);

accumulator_class!(
    /// Accumulates a Gemini `streamGenerateContent` stream (`GenerateContentResponse` chunks,
    /// as dicts, SSE `data:` lines or SDK objects; camelCase or snake_case fields).
    ///
    /// Calls arrive whole (`functionCall` parts): each gives its start, its arguments and its
    /// end at once. Parts with `thought: true` are reasoning. Options
    /// (`text_formats`, `tools`, `release`, `unknown_tools`) as for `OpenAIStreamAccumulator`.
    ///
    /// >>> acc = GeminiStreamAccumulator()
    /// >>> _ = acc.feed({"candidates": [{"content": {"role": "model", "parts": [
    /// ...     {"functionCall": {"name": "f", "args": {"a": 1}}}]}, "finishReason": "STOP"}]})
    /// >>> [(c.name, c.arguments) for c in acc.calls], acc.finish_reason
    /// ([('f', {'a': 1})], 'tool_calls')
    GeminiStreamAccumulator,
    Shape::Gemini
);

accumulator_class!(
    /// Accumulates an Ollama `/api/chat` stream (NDJSON lines, dicts or SDK objects:
    /// `message.content`, `message.thinking`, `message.tool_calls`, then `done: true`).
    ///
    /// Calls arrive whole. Options (`text_formats`, `tools`, `release`, `unknown_tools`) as for
    /// `OpenAIStreamAccumulator`.
    ///
    /// >>> acc = OllamaStreamAccumulator()
    /// >>> _ = acc.feed('{"message": {"role": "assistant", "content": "", "tool_calls": '
    /// ...              '[{"function": {"name": "f", "arguments": {"a": 1}}}]}, "done": false}')
    /// >>> [(c.name, c.arguments) for c in acc.calls]
    /// [('f', {'a': 1})]
    OllamaStreamAccumulator,
    Shape::Ollama
);

pub fn add_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<OpenAIStreamAccumulator>()?;
    m.add_class::<AnthropicStreamAccumulator>()?;
    m.add_class::<ResponsesStreamAccumulator>()?;
    m.add_class::<GeminiStreamAccumulator>()?;
    m.add_class::<OllamaStreamAccumulator>()?;
    Ok(())
}
