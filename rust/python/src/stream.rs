//! `StreamParser` and `parse_text` (docs/streaming.md): the core stream engine with Python objects
//! built straight from it (arguments are decoded once, at a call's end, by [`PyBuilder`]).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString};
use std::mem;
use std::sync::Arc;
use toolwire_core::calls::{ErrorPolicy, Protocol};
use toolwire_core::extract::RawJsonMode;
use toolwire_core::json::ParseOptions;

use toolwire_core::formats::{Format, FormatSet, ToolSchemas};
use toolwire_core::stream::{Event, StreamError, StreamOptions, StreamParser as CoreStreamParser};

use crate::builder::PyBuilder;
use crate::errors::{invalid_call_error, parse_error};
use crate::events::{ReasoningDelta, TextDelta, ToolCallDelta, ToolCallEnd, ToolCallStart};
use crate::gateway::Gateway;
use crate::input::{error_policy, format_names, guarded, with_text};
use crate::tool_defs::ToolDefs;
use crate::types::{InvalidToolCall, ToolCall};
use crate::view::PyJson;

/// `formats=` (or `format=`) → the engine's options: `"auto"` is every format.
pub(crate) fn stream_options(
    formats: &Bound<'_, PyAny>,
    one_name: bool,
    calls_in_reasoning: bool,
) -> PyResult<StreamOptions> {
    let Some(names) = format_names(formats, one_name)? else {
        return Ok(StreamOptions {
            calls_in_reasoning,
            ..StreamOptions::default()
        });
    };
    let enabled = |name: &str| names.iter().any(|m| m == name);
    Ok(StreamOptions {
        text_tagged: enabled("text_tagged"),
        raw_json: (enabled("raw_json") || enabled("llamacpp_generic"))
            .then_some(RawJsonMode::Fenced),
        formats: names
            .iter()
            .filter_map(|n| Format::parse(n))
            .fold(FormatSet::NONE, FormatSet::with),
        calls_in_reasoning,
        starts_in_reasoning: false,
        json: ParseOptions::model_text(false),
        json_answers: enabled("llamacpp_generic"),
    })
}

/// The `protocol` of the invalid calls a gateway policy makes: the one protocol the stream
/// reads, or `text_tagged` when it reads several (an engine event does not say which format a
/// call came in).
pub(crate) fn policy_label(options: &StreamOptions) -> Protocol {
    let mut formats = options.formats.iter();
    match (
        options.text_tagged,
        options.raw_json,
        formats.next(),
        formats.next(),
    ) {
        (false, Some(_), None, _) => Protocol::RawJson,
        (false, None, Some(format), None) => Protocol::Format(format),
        _ => Protocol::TextTagged,
    }
}

/// `tools=` → the schemas that type qwen3_coder and glm45 values.
pub(crate) fn stream_tools(tools: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Arc<ToolSchemas>>> {
    let Some(tools) = tools else {
        return Ok(None);
    };
    let defs = ToolDefs::read(Some(tools))?;
    Ok(defs.map(|defs| Arc::new(defs.schemas(tools.py()))))
}

/// The `str` chunk just fed, when events may reuse it: an event whose text is the whole chunk
/// (the usual case when a stream is cut small) shares it instead of copying it.
pub(crate) type Chunk<'a, 'py> = Option<(&'a str, &'a Bound<'py, PyString>)>;

fn text_object<'py>(py: Python<'py>, text: &str, chunk: Chunk<'_, 'py>) -> Py<PyString> {
    match chunk {
        Some((chunk_text, object)) if chunk_text == text => object.clone().unbind(),
        _ => PyString::new(py, text).unbind(),
    }
}

/// One engine event as its Python object.
pub(crate) fn event_object<'py>(
    py: Python<'py>,
    event: Event<PyJson<'py>>,
    chunk: Chunk<'_, 'py>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match event {
        Event::Text(text) => Bound::new(
            py,
            TextDelta {
                text: text_object(py, &text, chunk),
            },
        )?
        .into_any(),
        Event::Reasoning(text) => Bound::new(
            py,
            ReasoningDelta {
                text: text_object(py, &text, chunk),
            },
        )?
        .into_any(),
        Event::CallStart { index, id, name } => Bound::new(
            py,
            ToolCallStart {
                index,
                id: PyString::new(py, &id).unbind(),
                name: PyString::new(py, &name).unbind(),
            },
        )?
        .into_any(),
        Event::CallDelta { index, arguments } => Bound::new(
            py,
            ToolCallDelta {
                index,
                arguments: text_object(py, &arguments, chunk),
            },
        )?
        .into_any(),
        Event::CallEnd { index, call } => Bound::new(
            py,
            ToolCallEnd {
                index,
                call: ToolCall::from_call(&mut PyBuilder::new(py), call)?.unbind(),
            },
        )?
        .into_any(),
        Event::Invalid(invalid) => InvalidToolCall::from_invalid(py, &invalid)?.into_any(),
    })
}

/// The engine's events (drained) as a Python list, under the error policy: invalid calls are
/// kept as `InvalidToolCall`, dropped, or raised (the first one). The list is made at its final
/// size (a chunk usually completes one event).
fn event_list<'py>(
    py: Python<'py>,
    events: &mut Vec<Event<PyJson<'py>>>,
    policy: ErrorPolicy,
    chunk: Chunk<'_, 'py>,
) -> PyResult<Bound<'py, PyList>> {
    let is_invalid = |event: &Event<PyJson<'py>>| matches!(event, Event::Invalid(_));
    match policy {
        ErrorPolicy::Keep => {}
        ErrorPolicy::Skip => events.retain(|event| !is_invalid(event)),
        ErrorPolicy::Raise => {
            if let Some(Event::Invalid(invalid)) = events.iter().find(|event| is_invalid(event)) {
                return Err(invalid_call_error(py, invalid));
            }
        }
    }
    let mut failure = None;
    let objects = events
        .drain(..)
        .map(|event| match event_object(py, event, chunk) {
            Ok(object) => object,
            Err(error) => {
                failure.get_or_insert(error);
                py.None().into_bound(py)
            }
        });
    let list = PyList::new(py, objects)?;
    match failure {
        Some(error) => Err(error),
        None => Ok(list),
    }
}

/// An empty vector of another element type that reuses `vec`'s allocation: the standard library
/// collects a `vec::IntoIter` in place when both types have the same size and alignment (here
/// the same events under another lifetime), so a stream's feeds share one events buffer.
fn recycled<T, U>(mut vec: Vec<T>) -> Vec<U> {
    vec.clear();
    vec.into_iter()
        .map(|_| unreachable!("the vector is empty"))
        .collect()
}

fn utf8_error(py: Python<'_>, offset: usize) -> PyErr {
    parse_error(
        py,
        &format!("stream input is not valid UTF-8: invalid byte at byte offset {offset}"),
        "input",
        0,
        None,
        "",
    )
}

/// Incremental parser of model text: feed chunks as they arrive, get events. See
/// docs/streaming.md.
///
/// `formats` is "auto" (the default: every protocol and format), one name or a list of names
/// and aliases. `tools` (tool definitions) types the raw-text values of the XML-style formats
/// and serves the policies. `on_error` is "keep" (the default: a failed call is an
/// `InvalidToolCall` event), "skip" (dropped) or "raise" (`feed`/`finish` raise
/// `ToolCallParseError`). `calls_in_reasoning` (the default) reads calls written inside think
/// spans: their events are held until a call starts outside reasoning (then they are dropped)
/// or `finish` (then they are sent), so a draft followed by the call gives the call once.
/// `starts_in_reasoning=True` says the prompt opened a think span (a chat template that ends
/// with `<think>`): the text is reasoning up to its first closing think tag. The
/// gateway policies: `release` is "eager" (the default: a call's pieces as they arrive),
/// "complete" (each call whole once it ends) or "valid" (whole, once its arguments validate
/// against `tools`); `unknown_tools` is "keep" (the default), "invalid" or "drop" for a call to
/// a tool not in `tools`. `repair=True` accepts the JSON mistakes models make, as
/// `extract(repair=True)` does.
///
/// >>> parser = StreamParser()
/// >>> events = parser.feed('Hi\n~~~tool_call\n{"name": "f", "arguments": {"a"')
/// >>> [e.kind for e in events]
/// ['text_delta', 'tool_call_start', 'tool_call_delta']
/// >>> [e.kind for e in parser.feed(': 1}}\n~~~\n') + parser.finish()]
/// ['tool_call_delta', 'tool_call_end']
///
/// One parser serves one message at a time and one thread at a time: using it from two threads
/// at once raises `RuntimeError`.
#[pyclass(module = "toolwire", name = "StreamParser")]
pub struct StreamParser {
    engine: CoreStreamParser,
    policy: ErrorPolicy,
    /// The gateway policies (`release`, `unknown_tools`) on the engine's events.
    gateway: Gateway,
    /// The events buffer, empty between calls: kept so that a feed allocates no vector.
    spare: Vec<Event<Py<PyAny>>>,
    #[pyo3(get)]
    tools: Option<Py<PyAny>>,
}

impl StreamParser {
    /// The parser, mutably; a clear error when another thread (or a re-entrant call) has it.
    fn engine<'py>(slf: &Bound<'py, Self>) -> PyResult<PyRefMut<'py, Self>> {
        slf.try_borrow_mut().map_err(|_| {
            PyRuntimeError::new_err(
                "StreamParser is already in use: one parser must not be used from two threads \
                 at once (give each thread or request its own StreamParser)",
            )
        })
    }
}

#[pymethods]
impl StreamParser {
    #[new]
    #[pyo3(signature = (
        *, formats = None, tools = None, on_error = "keep", calls_in_reasoning = true,
        release = "eager", unknown_tools = "keep", starts_in_reasoning = false, repair = false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        formats: Option<&Bound<'_, PyAny>>,
        tools: Option<Py<PyAny>>,
        on_error: &str,
        calls_in_reasoning: bool,
        release: &str,
        unknown_tools: &str,
        starts_in_reasoning: bool,
        repair: bool,
    ) -> PyResult<Self> {
        let options = match formats {
            Some(formats) => stream_options(formats, true, calls_in_reasoning)?,
            None => StreamOptions {
                calls_in_reasoning,
                ..StreamOptions::default()
            },
        };
        let options = StreamOptions {
            starts_in_reasoning,
            json: ParseOptions::model_text(repair),
            ..options
        };
        let tools_given = tools.as_ref().map(|t| t.bind(py));
        let schemas = stream_tools(tools_given)?;
        let gateway = Gateway::new(release, unknown_tools, tools_given, policy_label(&options))?;
        Ok(Self {
            engine: CoreStreamParser::with_tools(options, schemas),
            policy: error_policy(on_error)?,
            gateway,
            spare: Vec::new(),
            tools,
        })
    }

    /// Feed `chunk`, the next piece of the text (`str`, or `bytes` that may end inside a UTF-8
    /// sequence); returns the events it completes.
    fn feed<'py>(
        slf: &Bound<'py, Self>,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        guarded(py, || {
            let mut this = Self::engine(slf)?;
            let this = &mut *this;
            if this.engine.is_finished() {
                return Err(PyRuntimeError::new_err(
                    "StreamParser.feed after finish(): call reset() to parse a new message",
                ));
            }
            let mut builder = PyBuilder::new(py);
            let mut events = recycled(mem::take(&mut this.spare));
            let policy = this.policy;
            let engine = &mut this.engine;
            let gateway = &mut this.gateway;
            // `str` first: the usual chunk, and the cheapest type checks.
            let list = if chunk.is_instance_of::<PyString>() {
                with_text(chunk, "a chunk", |text| {
                    if engine.holds_partial_utf8() {
                        return Err(parse_error(
                            py,
                            "a str chunk came while bytes fed before it end inside a UTF-8 \
                             sequence",
                            "input",
                            0,
                            None,
                            "",
                        ));
                    }
                    // Only an exact `str` is shared (a subclass must not leak into events).
                    let shared = chunk
                        .cast_exact::<PyString>()
                        .ok()
                        .map(|object| (text, object));
                    // The usual chunk of a long call is its next argument delta, whole (a
                    // policy that holds calls back sees every event).
                    let fast = gateway.is_transparent();
                    if let Some(index) = fast.then(|| engine.feed_argument_piece(text)).flatten() {
                        let arguments = match shared {
                            Some((_, object)) => object.clone().unbind(),
                            None => PyString::new(py, text).unbind(),
                        };
                        let delta = ToolCallDelta { index, arguments };
                        return PyList::new(py, [Bound::new(py, delta)?]);
                    }
                    if fast {
                        engine.feed_full(text, &mut builder, &mut events)?;
                    } else {
                        engine.feed(text, &mut builder, &mut events)?;
                    }
                    gateway.filter(&mut events);
                    event_list(py, &mut events, policy, shared)
                })
            } else {
                let fed = if let Ok(b) = chunk.cast::<PyBytes>() {
                    engine.feed_bytes(b.as_bytes(), &mut builder, &mut events)
                } else if let Ok(b) = chunk.cast::<PyByteArray>() {
                    // A copy: a bytearray may be resized by Python code while borrowed.
                    let owned = b.to_vec();
                    engine.feed_bytes(&owned, &mut builder, &mut events)
                } else {
                    // Neither text nor bytes: `with_text` names the type in its error.
                    return with_text(chunk, "a chunk", |_| Ok(PyList::empty(py)));
                };
                match fed {
                    Ok(()) => {
                        gateway.filter(&mut events);
                        event_list(py, &mut events, policy, None)
                    }
                    Err(StreamError::Build(e)) => Err(e.into()),
                    Err(StreamError::Utf8 { offset }) => Err(utf8_error(py, offset)),
                }
            };
            this.spare = recycled(events);
            list
        })
    }

    /// End the message: releases held text, ends or invalidates an open call.
    fn finish<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        guarded(py, || {
            let mut this = Self::engine(slf)?;
            let this = &mut *this;
            let mut builder = PyBuilder::new(py);
            let mut events = Vec::new();
            match this.engine.finish(&mut builder, &mut events) {
                Ok(()) => {}
                Err(StreamError::Build(e)) => return Err(e.into()),
                Err(StreamError::Utf8 { offset }) => return Err(utf8_error(py, offset)),
            }
            this.gateway.filter(&mut events);
            event_list(py, &mut events, this.policy, None)
        })
    }

    /// Forget everything fed so far, to parse a new message with the same options.
    fn reset(slf: &Bound<'_, Self>) -> PyResult<()> {
        let mut this = Self::engine(slf)?;
        this.engine.reset();
        this.gateway.reset();
        Ok(())
    }
}
