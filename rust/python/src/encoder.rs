//! `StreamEncoder` (events → one provider's stream objects), `StreamTranslator` (any provider's
//! stream → any other's, through an accumulator, the gate and an encoder, without a Python
//! event in between) and `frame_chunk` (a stream object as the provider sends it on the wire).

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use toolwire_core::body::Shape;
use toolwire_core::calls::{Call, FailureKind, Invalid, Protocol};
use toolwire_core::provider_stream::{frame, Encoder, FinishReason, Usage};
use toolwire_core::stream::Event;

use crate::accumulators::Pipeline;
use crate::builder::PyBuilder;
use crate::codec::compact_json;
use crate::events::{ReasoningDelta, TextDelta, ToolCallDelta, ToolCallEnd, ToolCallStart};
use crate::input::{body_shape, guarded};
use crate::types::InvalidToolCall;
use crate::view::PyJson;

/// `provider=` for a stream: one of the five providers ("auto" is not a stream).
fn stream_provider(provider: &str) -> PyResult<Shape> {
    match body_shape(provider) {
        Ok(Shape::Auto) | Err(_) => Err(not_a_stream_provider(provider)),
        Ok(shape) => Ok(shape),
    }
}

/// The error for a `provider=` that is not one of the five stream providers.
pub(crate) fn not_a_stream_provider(provider: &str) -> PyErr {
    PyValueError::new_err(format!(
        "provider must be 'openai', 'openai_responses', 'anthropic', 'ollama' or 'gemini', \
         not {provider:?}"
    ))
}

/// A stream event object as the core's event.
fn core_event<'py>(event: &Bound<'py, PyAny>) -> PyResult<Event<PyJson<'py>>> {
    let text =
        |s: &Py<PyString>| -> PyResult<String> { Ok(s.bind(event.py()).to_str()?.to_owned()) };
    Ok(if let Ok(e) = event.cast::<TextDelta>() {
        Event::Text(text(&e.get().text)?)
    } else if let Ok(e) = event.cast::<ReasoningDelta>() {
        Event::Reasoning(text(&e.get().text)?)
    } else if let Ok(e) = event.cast::<ToolCallStart>() {
        let e = e.get();
        Event::CallStart {
            index: e.index,
            id: text(&e.id)?,
            name: text(&e.name)?,
        }
    } else if let Ok(e) = event.cast::<ToolCallDelta>() {
        let e = e.get();
        Event::CallDelta {
            index: e.index,
            arguments: text(&e.arguments)?,
        }
    } else if let Ok(e) = event.cast::<ToolCallEnd>() {
        let e = e.get();
        let call = e.call.bind(event.py()).get();
        Event::CallEnd {
            index: e.index,
            call: Call {
                id: Some(text(&call.id)?),
                name: text(&call.name)?,
                arguments: PyJson(call.arguments.bind(event.py()).clone().into_any()),
            },
        }
    } else if let Ok(e) = event.cast::<InvalidToolCall>() {
        // Only its index matters to an encoder: the wire has no place for a failed call.
        Event::Invalid(Invalid {
            kind: FailureKind::Parse,
            protocol: Protocol::Native,
            index: e.get().index,
            raw: String::new(),
            name: None,
            subject: String::new(),
            detail: String::new(),
            byte_offset: None,
            line_column: None,
            offset: None,
        })
    } else {
        return Err(PyTypeError::new_err(format!(
            "events must be toolwire stream events (TextDelta, ToolCallStart, …), not {}",
            event.get_type().name()?
        )));
    })
}

/// `usage=`: the accumulators' dict (`input_tokens`, `output_tokens`, `cached_input_tokens`,
/// `reasoning_tokens`), or None.
fn read_usage(usage: Option<&Bound<'_, PyAny>>) -> PyResult<Usage> {
    let Some(usage) = usage.filter(|u| !u.is_none()) else {
        return Ok(Usage::default());
    };
    let dict = usage.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "usage must be a dict of token counts, not {}",
            usage
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let mut read = Usage::default();
    for (key, value) in dict.iter() {
        let key: String = key.extract()?;
        let count = Some(value.extract::<u64>().map_err(|_| {
            PyValueError::new_err(format!("usage[{key:?}] must be a count (an int >= 0)"))
        })?);
        match key.as_str() {
            "input_tokens" => read.input_tokens = count,
            "output_tokens" => read.output_tokens = count,
            "cached_input_tokens" => read.cached_input_tokens = count,
            "reasoning_tokens" => read.reasoning_tokens = count,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "unknown usage key {key:?}; known: input_tokens, output_tokens, \
                     cached_input_tokens, reasoning_tokens"
                )))
            }
        }
    }
    Ok(read)
}

fn read_finish_reason(reason: Option<&str>) -> PyResult<Option<FinishReason>> {
    reason
        .map(|name| {
            FinishReason::parse(name).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "finish_reason must be {} or None, not {name:?}",
                    FinishReason::NAMES
                ))
            })
        })
        .transpose()
}

fn busy(what: &str) -> PyErr {
    PyRuntimeError::new_err(format!(
        "{what} is already in use: one must not be used from two threads at once"
    ))
}

/// Writes the stream events as `provider`'s stream objects: `openai` `chat.completion.chunk`
/// objects, `anthropic` Messages events, `openai_responses` events, `gemini`
/// `GenerateContentResponse` chunks or `ollama` `/api/chat` chunks. `model` and `response_id`
/// are written where the provider's objects carry them (a response id is generated when none
/// is given).
///
/// `encode(events)` returns the objects the events make (the response's opening objects come
/// with the first); `finish(finish_reason=None, usage=None)` closes what is open and writes the
/// stop reason ("tool_calls"/`tool_use` when calls were written) and the usage. Argument
/// fragments are the model's own bytes; a call that comes whole is written as the compact JSON
/// of its arguments. Calls are written one block at a time where the provider requires it
/// (Anthropic, Responses): what comes while a call is open waits until it ends. An
/// `InvalidToolCall` has no place on the wire: a call that failed before its block opened is
/// not written at all.
///
/// >>> from toolwire import TextDelta
/// >>> encoder = StreamEncoder("anthropic", model="m", response_id="msg_1")
/// >>> [chunk["type"] for chunk in encoder.encode([TextDelta("Hi")]) + encoder.finish()]
/// ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']
#[pyclass(module = "toolwire", name = "StreamEncoder")]
pub struct StreamEncoder {
    encoder: Encoder,
    #[pyo3(get)]
    provider: Py<PyString>,
}

#[pymethods]
impl StreamEncoder {
    #[new]
    #[pyo3(signature = (provider, *, model = None, response_id = None))]
    fn new(
        provider: Bound<'_, PyString>,
        model: Option<String>,
        response_id: Option<String>,
    ) -> PyResult<Self> {
        let name = provider.to_str()?;
        let encoder = Encoder::new(stream_provider(name)?, model, response_id)
            .ok_or_else(|| not_a_stream_provider(name))?;
        Ok(Self {
            encoder,
            provider: provider.unbind(),
        })
    }

    /// The stream objects (dicts) that `events` make.
    fn encode<'py>(
        slf: &Bound<'py, Self>,
        events: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        guarded(py, || {
            let mut this = slf.try_borrow_mut().map_err(|_| busy("StreamEncoder"))?;
            let mut builder = PyBuilder::new(py);
            let mut out = Vec::new();
            for event in events.try_iter()? {
                let event = core_event(&event?)?;
                this.encoder.encode(event, &mut builder, &mut out)?;
            }
            PyList::new(py, out.into_iter().map(|v| v.0))
        })
    }

    /// End the response: the closing objects, with the stop reason `finish_reason` ("stop",
    /// "tool_calls", "length" or "content_filter", as the accumulators report it; "tool_calls"
    /// is implied when calls were written) and the `usage` (the accumulators' dict).
    #[pyo3(signature = (*, finish_reason = None, usage = None))]
    fn finish<'py>(
        slf: &Bound<'py, Self>,
        finish_reason: Option<&str>,
        usage: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        guarded(py, || {
            let reason = read_finish_reason(finish_reason)?;
            let usage = read_usage(usage)?;
            let mut this = slf.try_borrow_mut().map_err(|_| busy("StreamEncoder"))?;
            let mut builder = PyBuilder::new(py);
            let mut out = Vec::new();
            this.encoder.finish(reason, usage, &mut builder, &mut out)?;
            PyList::new(py, out.into_iter().map(|v| v.0))
        })
    }
}

/// Translates the `source` provider's stream into the `target` provider's: each `feed(item)`
/// returns the target's stream objects (dicts) the item makes, `finish()` the closing ones.
/// The source's id, model, stop reason and usage pass through unless `model`/`response_id`
/// are given. Options
/// (`text_formats`, `tools`, `release`, `unknown_tools`) as for the accumulators; calls the
/// target does not get (invalid, or turned down by a policy) are in `invalid_calls`.
/// `toolwire.translate_stream` runs one over an iterable.
#[pyclass(module = "toolwire", name = "StreamTranslator")]
pub struct StreamTranslator {
    pipeline: Pipeline,
    encoder: Encoder,
    invalid: Vec<Py<InvalidToolCall>>,
}

impl StreamTranslator {
    fn encode<'py>(
        &mut self,
        py: Python<'py>,
        builder: &mut PyBuilder<'py>,
        events: Vec<Event<PyJson<'py>>>,
        out: &mut Vec<PyJson<'py>>,
    ) -> PyResult<()> {
        self.encoder.adopt(self.pipeline.meta());
        for event in events {
            if let Event::Invalid(invalid) = &event {
                self.invalid
                    .push(InvalidToolCall::from_invalid(py, invalid)?.unbind());
            }
            self.encoder.encode(event, builder, out)?;
        }
        Ok(())
    }
}

#[pymethods]
impl StreamTranslator {
    #[new]
    #[pyo3(signature = (
        *, source, target, model = None, response_id = None, text_formats = None, tools = None,
        release = "eager", unknown_tools = "keep"
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        source: &str,
        target: &str,
        model: Option<String>,
        response_id: Option<String>,
        text_formats: Option<&Bound<'_, PyAny>>,
        tools: Option<&Bound<'_, PyAny>>,
        release: &str,
        unknown_tools: &str,
    ) -> PyResult<Self> {
        let source = stream_provider(source)?;
        Ok(Self {
            pipeline: Pipeline::new(source, text_formats, tools, release, unknown_tools)?,
            encoder: Encoder::new(stream_provider(target)?, model, response_id)
                .ok_or_else(|| not_a_stream_provider(target))?,
            invalid: Vec::new(),
        })
    }

    /// The target's stream objects for one source item (a dict, SSE/NDJSON text or an SDK
    /// object).
    fn feed<'py>(slf: &Bound<'py, Self>, item: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        guarded(py, || {
            let mut this = slf.try_borrow_mut().map_err(|_| busy("StreamTranslator"))?;
            let mut builder = PyBuilder::new(py);
            let mut events = Vec::new();
            this.pipeline.feed(item, &mut builder, &mut events)?;
            let mut out = Vec::new();
            this.encode(py, &mut builder, events, &mut out)?;
            PyList::new(py, out.into_iter().map(|v| v.0))
        })
    }

    /// The target's closing objects: what the source still held, the stop reason, the usage.
    fn finish<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        guarded(py, || {
            let mut this = slf.try_borrow_mut().map_err(|_| busy("StreamTranslator"))?;
            let this = &mut *this;
            let mut builder = PyBuilder::new(py);
            let mut events = Vec::new();
            this.pipeline.finish(&mut builder, &mut events)?;
            let mut out = Vec::new();
            this.encode(py, &mut builder, events, &mut out)?;
            let meta = this.pipeline.meta();
            this.encoder
                .finish(meta.finish_reason, meta.usage, &mut builder, &mut out)?;
            PyList::new(py, out.into_iter().map(|v| v.0))
        })
    }

    /// The source's calls the target did not get: calls that could not be read, or that a
    /// policy turned down.
    #[getter]
    fn invalid_calls(&self, py: Python<'_>) -> Vec<Py<InvalidToolCall>> {
        self.invalid.iter().map(|c| c.clone_ref(py)).collect()
    }
}

/// `chunk`, one stream object, as `provider` sends it on the wire: an SSE event (`data: …`
/// and, for Anthropic and Responses, its `event:` line) or, for Ollama, an NDJSON line.
///
/// >>> frame_chunk({"type": "message_stop"}, "anthropic")
/// 'event: message_stop\ndata: {"type":"message_stop"}\n\n'
#[pyfunction]
#[pyo3(signature = (chunk, provider))]
pub fn frame_chunk(py: Python<'_>, chunk: &Bound<'_, PyAny>, provider: &str) -> PyResult<String> {
    guarded(py, || {
        let shape = stream_provider(provider)?;
        let dict = chunk.cast::<PyDict>().map_err(|_| {
            PyTypeError::new_err(format!(
                "a stream object must be a dict, not {}",
                chunk
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
        let kind = dict.get_item("type")?;
        let kind = kind
            .as_ref()
            .and_then(|k| k.cast::<PyString>().ok())
            .map(|k| k.to_str())
            .transpose()?;
        Ok(frame(shape, kind, &compact_json(chunk)?))
    })
}
