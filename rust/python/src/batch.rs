//! Batch extraction (docs/batch.md): inputs are borrowed (or copied) while attached, parsed on
//! several threads with the interpreter detached, and turned into Python objects once re-attached.

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};
use toolwire_core::batch::{
    all_cores, locate, with_helpers, ArgumentsRef, LineError, LineErrorKind, LineOptions, Locate,
    OrderedLines, OutcomeRef, PackedCalls, PackedLines,
};
use toolwire_core::calls::ErrorPolicy;
use toolwire_core::ids::{generate_id, with_line_ids};
use toolwire_core::json::{parse, JsonStr, ParseError, ParseOptions};

use crate::api::{calls_list, response_outcomes, NotAResponse};
use crate::builder::{BuildError, PyBuilder};
use crate::errors::{invalid_call_error, json_decode_error, parse_error, provider_format_error};
use crate::gc_pause::GcPause;
use crate::input::{
    body_shape, error_policy, extract_text_options, guarded, honour_native_calls, quoted,
};
use crate::types::{InvalidToolCall, ToolCall};
use crate::view::PyJson;

/// The most threads a batch may ask for (a larger number is a mistake, not a machine).
const MAX_THREADS: usize = 1024;

/// `threads=`: `None` for all cores, else an int from 1 to [`MAX_THREADS`].
pub(crate) fn thread_count(threads: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    let Some(threads) = threads.filter(|t| !t.is_none()) else {
        return Ok(all_cores());
    };
    if !threads.is_instance_of::<PyInt>() || threads.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "threads must be an int or None, not {}",
            threads.get_type().name()?
        )));
    }
    match threads.extract::<i64>() {
        Ok(n) if (1..=MAX_THREADS as i64).contains(&n) => Ok(n as usize),
        _ => Err(PyValueError::new_err(format!(
            "threads must be from 1 to {MAX_THREADS}, not {threads}"
        ))),
    }
}

/// A thread that could not start (the message names how many were asked for).
pub(crate) fn thread_error(message: String) -> PyErr {
    PyRuntimeError::new_err(message)
}

/// `field=`: a dotted path of object keys to the response in each record; `unset` without.
fn field_locate(field: Option<&str>, unset: Locate) -> PyResult<Locate> {
    match field {
        None => Ok(unset),
        Some(path) if path.split('.').any(str::is_empty) => Err(PyValueError::new_err(format!(
            "field must be a dotted path of keys, like 'response.body', not {}",
            quoted(path)
        ))),
        Some(path) => Ok(Locate::log_field(Some(path))),
    }
}

/// The options every batch path takes, as given.
pub(crate) struct BatchArgs<'a, 'py> {
    pub field: Option<&'a str>,
    pub provider: &'a str,
    pub threads: Option<&'a Bound<'py, PyAny>>,
    pub formats: Option<&'a Bound<'py, PyAny>>,
    pub raw_json: &'a str,
    pub repair: bool,
    pub deterministic_ids: bool,
    pub native_tool_calls: Option<bool>,
}

impl BatchArgs<'_, '_> {
    /// The number of threads and the options of every line; without `field`, each line is
    /// read as `unset` says.
    pub fn read(&self, unset: Locate) -> PyResult<(usize, LineOptions<'static>)> {
        let mut text = extract_text_options(self.formats, self.raw_json, self.repair, None)?;
        honour_native_calls(&mut text, self.native_tool_calls);
        let options = LineOptions {
            text,
            shape: body_shape(self.provider)?,
            locate: field_locate(self.field, unset)?,
            deterministic_ids: self.deterministic_ids,
        };
        Ok((thread_count(self.threads)?, options))
    }
}

/// One input of `extract_batch`, as read while attached.
enum Slot<'a> {
    /// JSON text, parsed off the interpreter (borrowed from a `bytes`/`str`, or a copy).
    Json(std::borrow::Cow<'a, [u8]>),
    /// A Python mapping or list: extracted while attached, as `extract` would.
    Object(&'a Bound<'a, PyAny>),
    /// Neither: a bad input.
    Bad(LineError),
}

fn slot<'a>(item: &'a Bound<'a, PyAny>) -> PyResult<Slot<'a>> {
    if let Ok(bytes) = item.cast::<PyBytes>() {
        return Ok(Slot::Json(bytes.as_bytes().into()));
    }
    if let Ok(text) = item.cast::<PyString>() {
        return Ok(match text.to_str() {
            Ok(text) => Slot::Json(text.as_bytes().into()),
            Err(_) => Slot::Bad(LineError {
                kind: LineErrorKind::Encoding,
                message: "the text holds lone surrogates and cannot be read as UTF-8".to_owned(),
                path: String::new(),
                offset: None,
            }),
        });
    }
    if let Ok(array) = item.cast::<PyByteArray>() {
        // A copy: Python code may resize a bytearray while other threads read it.
        return Ok(Slot::Json(array.to_vec().into()));
    }
    if item.is_instance_of::<PyDict>()
        || item.is_instance_of::<PyList>()
        || item.is_instance_of::<PyTuple>()
        || item.hasattr("keys")?
    {
        return Ok(Slot::Object(item));
    }
    Ok(Slot::Bad(LineError {
        kind: LineErrorKind::Format,
        message: format!(
            "an item must be JSON text (str or bytes) or a mapping, not {}",
            item.get_type().name()?
        ),
        path: String::new(),
        offset: None,
    }))
}

/// A call extracted without the interpreter, as a `ToolCall`. Names repeat across a batch,
/// so they come from the builder's key cache. Arguments Python refuses (an integer over its
/// int-string limit) are an `Err(BuildError::Refused)`.
fn tool_call<'py>(
    py: Python<'py>,
    builder: &mut PyBuilder<'py>,
    id: Option<&str>,
    name: &str,
    arguments: ArgumentsRef<'_>,
) -> Result<Bound<'py, PyAny>, BuildError> {
    let id = match id {
        Some(id) => PyString::new(py, id),
        None => PyString::new(py, &generate_id()),
    };
    let name = builder.key(JsonStr::from_utf8(name))?;
    let arguments = arguments.build(builder)?.0;
    Ok(ToolCall::from_parts(
        id,
        name.cast_into::<PyString>().map_err(PyErr::from)?,
        arguments.cast_into::<PyDict>().map_err(PyErr::from)?,
    )?
    .into_any())
}

/// One line's outcomes as the list `extract` returns under `policy`; `None` when Python
/// refused a call's arguments (see [`refused_line`]).
fn line_calls<'py>(
    py: Python<'py>,
    builder: &mut PyBuilder<'py>,
    gc_pause: &mut GcPause<'py>,
    outcomes: PackedCalls<'_>,
    policy: ErrorPolicy,
) -> PyResult<Option<Bound<'py, PyList>>> {
    let mut calls = Vec::with_capacity(outcomes.len());
    for outcome in outcomes {
        match (outcome, policy) {
            (
                OutcomeRef::Call {
                    id,
                    name,
                    arguments,
                },
                _,
            ) => match tool_call(py, builder, id, name, arguments) {
                Ok(call) => calls.push(call),
                Err(BuildError::Refused(_)) => return Ok(None),
                Err(BuildError::Python(e)) => return Err(e),
            },
            (OutcomeRef::Invalid(invalid), ErrorPolicy::Keep) => {
                calls.push(InvalidToolCall::from_invalid(py, invalid)?.into_any())
            }
            (OutcomeRef::Invalid(_), ErrorPolicy::Skip) => {}
            (OutcomeRef::Invalid(invalid), ErrorPolicy::Raise) => {
                // The error classes are Python code.
                gc_pause.resume();
                return Err(invalid_call_error(py, invalid));
            }
        }
    }
    Ok(Some(PyList::new(py, calls)?))
}

/// A line one of whose calls Python cannot hold (an integer longer than its int-string
/// limit in the arguments): read again as `extract(loads(line))` reads it, so that call is an
/// `InvalidToolCall` in its place, with its protocol and offset. When the line itself cannot be
/// loaded (the integer is one of its own numbers: a call's arguments object), the calls read
/// off the interpreter are kept and each refused one is an `InvalidToolCall` saying why.
#[allow(clippy::too_many_arguments)]
fn refused_line<'py>(
    py: Python<'py>,
    gc_pause: &mut GcPause<'py>,
    item: usize,
    text: &[u8],
    outcomes: PackedCalls<'_>,
    options: &LineOptions,
    policy: ErrorPolicy,
) -> PyResult<Bound<'py, PyList>> {
    let mut builder = PyBuilder::new(py);
    // The skim accepted the line: it is UTF-8 JSON.
    let text = String::from_utf8_lossy(text);
    match parse(&text, &mut builder, ParseOptions::default()) {
        Ok(record) => {
            drop(builder);
            let raw = || text.clone().into_owned();
            item_calls(py, gc_pause, item, &raw, &record, options, policy)
        }
        Err(ParseError::Syntax(_)) => {
            let mut calls = Vec::with_capacity(outcomes.len());
            for (index, outcome) in outcomes.enumerate() {
                let (id, name, arguments) = match outcome {
                    OutcomeRef::Call {
                        id,
                        name,
                        arguments,
                    } => (id, name, arguments),
                    OutcomeRef::Invalid(invalid) => match policy {
                        ErrorPolicy::Keep => {
                            calls.push(InvalidToolCall::from_invalid(py, invalid)?.into_any());
                            continue;
                        }
                        ErrorPolicy::Skip => continue,
                        ErrorPolicy::Raise => {
                            gc_pause.resume();
                            return Err(invalid_call_error(py, invalid));
                        }
                    },
                };
                let refusal = match tool_call(py, &mut builder, id, name, arguments) {
                    Ok(call) => {
                        calls.push(call);
                        continue;
                    }
                    Err(BuildError::Refused(refusal)) => refusal,
                    Err(BuildError::Python(e)) => return Err(e),
                };
                let message = format!(
                    "invalid arguments in tool call {index} ({}): {}",
                    quoted(name),
                    refusal.message()
                );
                match policy {
                    ErrorPolicy::Keep => calls.push(
                        InvalidToolCall::refused(py, &arguments.json(), &message, index, name)?
                            .into_any(),
                    ),
                    ErrorPolicy::Skip => {}
                    ErrorPolicy::Raise => {
                        gc_pause.resume();
                        return Err(crate::errors::arguments_error(
                            py,
                            &format!("item {item}: {message}"),
                            Some(&arguments.json()),
                        ));
                    }
                }
            }
            PyList::new(py, calls)
        }
        Err(ParseError::Build(e)) => Err(e.into()),
    }
}

/// An item read while attached (a mapping, or a line read again): `extract`'s outcomes for
/// the response it holds where `options` says, or the bad input it is (shown as `raw()`).
#[allow(clippy::too_many_arguments)]
fn item_calls<'py>(
    py: Python<'py>,
    gc_pause: &mut GcPause<'py>,
    item: usize,
    raw: &dyn Fn() -> String,
    record: &PyJson<'py>,
    options: &LineOptions,
    policy: ErrorPolicy,
) -> PyResult<Bound<'py, PyList>> {
    let response = match locate(record, &options.locate) {
        Ok(response) => response,
        Err(error) => return bad_input(py, gc_pause, item, raw().as_bytes(), &error, policy),
    };
    // Reading a mapping may run its Python code.
    gc_pause.resume();
    let mut builder = PyBuilder::new(py);
    let line_ids = options.deterministic_ids.then_some(item as u64 + 1);
    let read = with_line_ids(line_ids, || {
        response_outcomes(&mut builder, &response.0, &options.text, options.shape)
    })?;
    let calls = match read {
        Ok(outcomes) => calls_list(&mut builder, outcomes, policy),
        Err(NotAResponse { error, .. }) => {
            drop(builder);
            let error = LineError {
                kind: LineErrorKind::Format,
                message: error.message,
                path: error.path,
                offset: None,
            };
            bad_input(py, gc_pause, item, raw().as_bytes(), &error, policy)
        }
    };
    gc_pause.hold();
    calls
}

/// A bad input under the error policy: kept as an `InvalidToolCall`, skipped, or raised as
/// the error `extract` would raise for it.
fn bad_input<'py>(
    py: Python<'py>,
    gc_pause: &mut GcPause<'py>,
    index: usize,
    raw: &[u8],
    error: &LineError,
    policy: ErrorPolicy,
) -> PyResult<Bound<'py, PyList>> {
    let raw = String::from_utf8_lossy(raw);
    match policy {
        ErrorPolicy::Skip => Ok(PyList::empty(py)),
        ErrorPolicy::Keep => PyList::new(
            py,
            [InvalidToolCall::bad_input(
                py,
                &raw,
                &error.message,
                error.offset,
            )?],
        ),
        ErrorPolicy::Raise => {
            // The error classes are Python code.
            gc_pause.resume();
            let message = format!("item {index}: {}", error.message);
            Err(match error.kind {
                LineErrorKind::Syntax => {
                    json_decode_error(py, &message, &raw, error.offset.unwrap_or(0))
                }
                LineErrorKind::Format => provider_format_error(py, &message, &error.path),
                LineErrorKind::Encoding => parse_error(py, &message, "input", 0, error.offset, ""),
            })
        }
    }
}

/// The raw text a mapping item is shown as in its `InvalidToolCall`.
fn item_text(item: &Bound<'_, PyAny>) -> String {
    crate::codec::compact_json(item)
        .or_else(|_| item.repr().map(|r| r.to_string_lossy().into_owned()))
        .unwrap_or_default()
}

/// Items read between checks for a signal (Ctrl-C) while the batch's items are collected.
const ITEMS_BETWEEN_SIGNAL_CHECKS: usize = 1 << 16;

/// Extract the tool calls of many responses on all cores; one list of calls per item, in input
/// order. See docs/batch.md.
///
/// Each of `items` is a response body as JSON text (`str` or `bytes`, e.g. a line of a log),
/// or a mapping/list as `extract` takes; with `field`, each item is a record and the response
/// sits at that dotted path in it. `provider` ("auto", the default, or a provider name) reads
/// every body as that provider's shape. The JSON is parsed in Rust on `threads` threads
/// (default: all cores) with the GIL released. `formats`, `raw_json` and `repair` are
/// `extract`'s; `native_tool_calls` is accepted for `extract`'s signature and not applied
/// (every text tier is read). `on_error` defaults to "keep": a bad item gives
/// `[InvalidToolCall(protocol="body", …)]` and never fails the batch. With
/// `deterministic_ids`, a call without an id gets `call_{n}_{k}` (item `n`, counted from 1,
/// and the call's index `k`) instead of a random id.
#[pyfunction]
#[pyo3(signature = (
    items, /, *, field = None, provider = "auto", threads = None, native_tool_calls = None,
    formats = None, raw_json = "fenced", repair = false, on_error = "keep",
    deterministic_ids = false
))]
#[allow(clippy::too_many_arguments)]
pub fn extract_batch<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    field: Option<&str>,
    provider: &str,
    threads: Option<&Bound<'py, PyAny>>,
    native_tool_calls: Option<bool>,
    formats: Option<&Bound<'py, PyAny>>,
    raw_json: &str,
    repair: bool,
    on_error: &str,
    deterministic_ids: bool,
) -> PyResult<Bound<'py, PyList>> {
    guarded(py, || {
        let policy = error_policy(on_error)?;
        let (threads, options) = BatchArgs {
            field,
            provider,
            threads,
            formats,
            raw_json,
            repair,
            deterministic_ids,
            native_tool_calls,
        }
        .read(Locate::Whole)?;
        // Iterated, text would give its characters and a mapping its keys.
        if items.is_instance_of::<PyString>()
            || items.is_instance_of::<PyBytes>()
            || items.is_instance_of::<PyByteArray>()
            || items.is_instance_of::<PyDict>()
        {
            return Err(PyTypeError::new_err(format!(
                "items must be an iterable of responses (a list of JSON lines, say), not {}",
                items.get_type().name()?
            )));
        }
        let mut collected: Vec<Bound<'py, PyAny>> = Vec::new();
        for (k, item) in items.try_iter()?.enumerate() {
            if k % ITEMS_BETWEEN_SIGNAL_CHECKS == 0 {
                py.check_signals()?;
            }
            collected.push(item?);
        }
        let items = collected;
        let slots: Vec<Slot<'_>> = items.iter().map(slot).collect::<PyResult<_>>()?;
        let json: Vec<(u64, &[u8])> = slots
            .iter()
            .enumerate()
            .filter_map(|(k, s)| match s {
                Slot::Json(text) => Some((k as u64 + 1, &**text)),
                _ => None,
            })
            .collect();
        let work = OrderedLines::new(&json, &options);
        let results = with_helpers(&work, threads, || {
            let mut results = Vec::with_capacity(slots.len());
            let mut chunk = PackedLines::default();
            let mut in_chunk = 0;
            let mut next_chunk = 0;
            let mut builder = PyBuilder::new(py);
            let mut gc_pause = GcPause::new(py);
            for (index, slot) in slots.iter().enumerate() {
                let calls = match slot {
                    Slot::Json(text) => {
                        if in_chunk == chunk.len() {
                            // Neither the key cache nor the collector is held while other
                            // threads may run, or while a signal handler (Ctrl-C) runs.
                            drop(builder);
                            gc_pause.resume();
                            py.check_signals()?;
                            let spent = std::mem::take(&mut chunk);
                            chunk = py.detach(|| {
                                drop(spent);
                                work.take(next_chunk)
                            });
                            gc_pause.hold();
                            builder = PyBuilder::new(py);
                            next_chunk += 1;
                            in_chunk = 0;
                        }
                        let line = chunk.line(in_chunk).ok_or_else(|| {
                            PyRuntimeError::new_err(
                                "internal error in toolwire: a batch result is missing",
                            )
                        })?;
                        in_chunk += 1;
                        match line {
                            Ok(outcomes) => {
                                let read = outcomes.clone();
                                match line_calls(py, &mut builder, &mut gc_pause, read, policy)? {
                                    Some(calls) => calls,
                                    None => {
                                        drop(builder);
                                        let calls = refused_line(
                                            py,
                                            &mut gc_pause,
                                            index,
                                            text,
                                            outcomes,
                                            &options,
                                            policy,
                                        )?;
                                        builder = PyBuilder::new(py);
                                        calls
                                    }
                                }
                            }
                            Err(error) => bad_input(py, &mut gc_pause, index, text, error, policy)?,
                        }
                    }
                    Slot::Object(item) => {
                        drop(builder);
                        let raw = || item_text(item);
                        let record = PyJson((*item).clone());
                        let calls =
                            item_calls(py, &mut gc_pause, index, &raw, &record, &options, policy)?;
                        builder = PyBuilder::new(py);
                        calls
                    }
                    Slot::Bad(error) => bad_input(py, &mut gc_pause, index, b"", error, policy)?,
                };
                // `calls` may borrow an item's lifetime; the list outlives the items.
                results.push(calls.unbind().into_bound(py));
            }
            drop(builder);
            // Made while the collector is still held off: it would otherwise start a
            // collection that walks every result just built.
            let results = PyList::new(py, results)?;
            drop(gc_pause);
            py.detach(|| drop(chunk));
            PyResult::Ok(results)
        })
        .map_err(thread_error)??;
        Ok(results)
    })
}
