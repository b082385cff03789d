//! Batch extraction (§10): inputs are borrowed (or copied) while attached, parsed on several
//! threads with the interpreter detached, and turned into Python objects once re-attached.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyRuntimeError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};
use toolwire_core::batch::{
    all_cores, extract_jsonl, extract_lines, with_helpers, ArgumentsRef, Line, LineError,
    LineErrorKind, LineOptions, Locate, OrderedLines, OutcomeRef, PackedCalls, PackedLines,
};
use toolwire_core::calls::ErrorPolicy;
use toolwire_core::columns::{CallColumns, StringColumn};
use toolwire_core::ids::generate_id;
use toolwire_core::json::JsonStr;

use crate::api::extract_any;
use crate::builder::PyBuilder;
use crate::errors::{invalid_call_error, json_decode_error, parse_error, provider_format_error};
use crate::gc_pause::GcPause;
use crate::input::{body_shape, error_policy, extract_text_options, guarded};
use crate::types::{InvalidToolCall, ToolCall};

fn thread_count(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        None => Ok(all_cores()),
        Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
        Some(n) => Ok(n),
    }
}

/// A thread that could not start (the message names how many were asked for).
fn thread_error(message: String) -> PyErr {
    PyRuntimeError::new_err(message)
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
/// so they come from the builder's key cache.
fn tool_call<'py>(
    py: Python<'py>,
    builder: &mut PyBuilder<'py>,
    id: Option<&str>,
    name: &str,
    arguments: ArgumentsRef<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let id = match id {
        Some(id) => PyString::new(py, id),
        None => PyString::new(py, &generate_id()),
    };
    let name = builder.key(JsonStr::from_utf8(name))?;
    let arguments = arguments.build(builder)?.0;
    ToolCall::from_parts(
        id,
        name.cast_into::<PyString>()?,
        arguments.cast_into::<PyDict>()?,
    )
    .map(Bound::into_any)
}

/// One line's outcomes as the list `extract` returns under `policy`.
fn line_calls<'py>(
    py: Python<'py>,
    builder: &mut PyBuilder<'py>,
    gc_pause: &mut GcPause<'py>,
    outcomes: PackedCalls<'_>,
    policy: ErrorPolicy,
) -> PyResult<Bound<'py, PyList>> {
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
            ) => calls.push(tool_call(py, builder, id, name, arguments)?),
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
    PyList::new(py, calls)
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

fn line_options(
    provider: &str,
    locate: Locate,
    formats: Option<&Bound<'_, PyAny>>,
    raw_json: &str,
    repair: bool,
) -> PyResult<LineOptions<'static>> {
    Ok(LineOptions {
        text: extract_text_options(formats, raw_json, repair, None)?,
        shape: body_shape(provider)?,
        locate,
    })
}

/// Extract the tool calls of many responses on all cores (§10).
///
/// Each item is a response body as JSON text (`str` or `bytes`, e.g. a line of a log), or a
/// mapping/list as `extract` takes. The JSON is parsed in Rust on `threads` threads (default:
/// all cores) with the GIL released; Python objects are built afterwards. `on_error` defaults
/// to "keep": a bad item gives `[InvalidToolCall(protocol="body", …)]` and never fails the
/// batch. Output order = input order.
#[pyfunction]
#[pyo3(signature = (
    items, /, *, provider = "auto", threads = None, native_tool_calls = None, formats = None,
    raw_json = "fenced", repair = false, on_error = "keep"
))]
#[allow(clippy::too_many_arguments)]
pub fn extract_batch<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    provider: &str,
    threads: Option<usize>,
    native_tool_calls: Option<bool>,
    formats: Option<&Bound<'py, PyAny>>,
    raw_json: &str,
    repair: bool,
    on_error: &str,
) -> PyResult<Bound<'py, PyList>> {
    let _ = native_tool_calls;
    guarded(py, || {
        let policy = error_policy(on_error)?;
        let threads = thread_count(threads)?;
        let options = line_options(provider, Locate::Whole, formats, raw_json, repair)?;
        let items: Vec<Bound<'py, PyAny>> = items.try_iter()?.collect::<PyResult<_>>()?;
        let slots: Vec<Slot<'_>> = items.iter().map(slot).collect::<PyResult<_>>()?;
        let json: Vec<&[u8]> = slots
            .iter()
            .filter_map(|s| match s {
                Slot::Json(text) => Some(&**text),
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
                            // threads may run.
                            drop(builder);
                            gc_pause.resume();
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
                                line_calls(py, &mut builder, &mut gc_pause, outcomes, policy)?
                            }
                            Err(error) => bad_input(py, &mut gc_pause, index, text, error, policy)?,
                        }
                    }
                    Slot::Object(item) => {
                        // Reading a mapping may run its Python code.
                        gc_pause.resume();
                        let calls = extract_any(py, item, &options.text, options.shape, policy)?;
                        gc_pause.hold();
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

/// The CLI's inner loop (`toolwire extract`): a chunk of whole JSONL lines → its output
/// records as bytes, and the counts (lines, calls, invalid calls, bad lines).
#[pyfunction]
#[pyo3(signature = (
    chunk, first_line, /, *, field = None, provider = "auto", threads = None, formats = None,
    raw_json = "fenced", repair = false
))]
#[allow(clippy::too_many_arguments)]
pub fn extract_jsonl_chunk<'py>(
    py: Python<'py>,
    chunk: &Bound<'py, PyBytes>,
    first_line: u64,
    field: Option<&str>,
    provider: &str,
    threads: Option<usize>,
    formats: Option<&Bound<'py, PyAny>>,
    raw_json: &str,
    repair: bool,
) -> PyResult<(Bound<'py, PyBytes>, u64, u64, u64, u64)> {
    guarded(py, || {
        let threads = thread_count(threads)?;
        let options = line_options(
            provider,
            Locate::log_field(field),
            formats,
            raw_json,
            repair,
        )?;
        let chunk = chunk.as_bytes();
        let (output, tally) = py
            .detach(|| extract_jsonl(chunk, first_line, &options, threads))
            .map_err(thread_error)?;
        Ok((
            PyBytes::new(py, &output),
            tally.lines,
            tally.calls,
            tally.invalid_calls,
            tally.bad_lines,
        ))
    })
}

/// The bytes of a contiguous buffer (a `memoryview` of format "B"), borrowed: read them only
/// while attached, unless the buffer is read-only (see [`detached_text`]).
fn buffer_bytes(buffer: &PyBuffer<u8>) -> PyResult<&[u8]> {
    if !buffer.is_c_contiguous() {
        return Err(PyValueError::new_err("expected a contiguous buffer"));
    }
    // SAFETY: a contiguous buffer of `len_bytes` bytes, kept alive for as long as `buffer` is
    // held; Python code cannot write to it while this thread is attached.
    Ok(unsafe { std::slice::from_raw_parts(buffer.buf_ptr() as *const u8, buffer.len_bytes()) })
}

/// The part `span` of `bytes` (the contents of `buffer`) that threads may read while the
/// interpreter is detached, and where it starts in `bytes`: borrowed when the buffer is
/// read-only, else copied now, while attached (Python code could otherwise write to it while
/// those threads read it). pyarrow exports the buffers of arrays it built (`pa.array`,
/// Parquet) as writable, those of IPC and memory-mapped data as read-only.
fn detached_text<'a>(
    buffer: &PyBuffer<u8>,
    bytes: &'a [u8],
    span: std::ops::Range<usize>,
) -> (std::borrow::Cow<'a, [u8]>, usize) {
    if buffer.readonly() {
        (bytes.into(), 0)
    } else {
        let start = span.start;
        (bytes[span].to_vec().into(), start)
    }
}

fn is_valid(validity: Option<&[u8]>, index: usize) -> bool {
    validity.is_none_or(|bits| {
        bits.get(index / 8)
            .is_some_and(|b| b & (1 << (index % 8)) != 0)
    })
}

type ColumnBuffers<'py> = (
    Option<Bound<'py, PyBytes>>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    usize,
);

fn column_buffers<'py>(py: Python<'py>, column: &StringColumn) -> ColumnBuffers<'py> {
    let validity = (column.nulls > 0).then(|| PyBytes::new(py, &column.validity));
    let offsets: Vec<u8> = column
        .offsets
        .iter()
        .flat_map(|o| o.to_le_bytes())
        .collect();
    (
        validity,
        PyBytes::new(py, &offsets),
        PyBytes::new(py, &column.data),
        column.nulls,
    )
}

/// `extract_arrow`'s core: an Arrow string/binary array given by its buffers → the buffers of
/// a `list<struct<id, name, arguments, error>>` array. `wide` means 64-bit offsets.
#[pyfunction]
#[pyo3(signature = (
    data, offsets, validity, wide, offset, length, /, *, field = None, provider = "auto",
    threads = None, formats = None, raw_json = "fenced", repair = false
))]
#[allow(clippy::too_many_arguments)]
pub fn extract_arrow_buffers<'py>(
    py: Python<'py>,
    data: PyBuffer<u8>,
    offsets: PyBuffer<u8>,
    validity: Option<PyBuffer<u8>>,
    wide: bool,
    offset: usize,
    length: usize,
    field: Option<&str>,
    provider: &str,
    threads: Option<usize>,
    formats: Option<&Bound<'py, PyAny>>,
    raw_json: &str,
    repair: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    guarded(py, || {
        let threads = thread_count(threads)?;
        let locate = field.map_or(Locate::Whole, |f| Locate::log_field(Some(f)));
        let options = line_options(provider, locate, formats, raw_json, repair)?;
        let bytes = buffer_bytes(&data)?;
        let offsets = buffer_bytes(&offsets)?;
        let validity = validity.as_ref().map(buffer_bytes).transpose()?;
        let width = if wide { 8 } else { 4 };
        let bound = |i: usize| -> Option<usize> {
            let at = offsets.get(i * width..(i + 1) * width)?;
            let value = if wide {
                i64::from_le_bytes(at.try_into().ok()?)
            } else {
                i64::from(i32::from_le_bytes(at.try_into().ok()?))
            };
            usize::try_from(value).ok()
        };
        let spans = (offset..offset + length)
            .map(|row| match (bound(row), bound(row + 1)) {
                (Some(start), Some(end)) if start <= end && end <= bytes.len() => {
                    Ok(is_valid(validity, row).then_some(start..end))
                }
                _ => Err(PyValueError::new_err("malformed Arrow offsets buffer")),
            })
            .collect::<PyResult<Vec<_>>>()?;
        let start = spans.iter().flatten().map(|s| s.start).min().unwrap_or(0);
        let end = spans.iter().flatten().map(|s| s.end).max().unwrap_or(start);
        let (text, base) = detached_text(&data, bytes, start..end);
        let rows: Vec<Option<&[u8]>> = spans
            .into_iter()
            .map(|span| span.map(|span| &text[span.start - base..span.end - base]))
            .collect();
        let columns = py
            .detach(|| -> Result<CallColumns, String> {
                let present: Vec<&[u8]> = rows.iter().flatten().copied().collect();
                let mut lines = extract_lines(&present, &options, threads)?.into_iter();
                let lines: Vec<Option<Line>> = rows
                    .iter()
                    .map(|row| row.and_then(|_| lines.next()))
                    .collect();
                CallColumns::from_lines(&lines)
            })
            .map_err(PyValueError::new_err)?;
        let list_offsets: Vec<u8> = columns
            .list_offsets
            .iter()
            .flat_map(|o| o.to_le_bytes())
            .collect();
        let row_validity = (columns.row_nulls > 0).then(|| PyBytes::new(py, &columns.row_validity));
        PyTuple::new(
            py,
            [
                row_validity.into_pyobject(py)?.into_any(),
                PyBytes::new(py, &list_offsets).into_any(),
                columns.row_nulls.into_pyobject(py)?.into_any(),
                columns.entries().into_pyobject(py)?.into_any(),
                column_buffers(py, &columns.id)
                    .into_pyobject(py)?
                    .into_any(),
                column_buffers(py, &columns.name)
                    .into_pyobject(py)?
                    .into_any(),
                column_buffers(py, &columns.arguments)
                    .into_pyobject(py)?
                    .into_any(),
                column_buffers(py, &columns.error)
                    .into_pyobject(py)?
                    .into_any(),
            ],
        )
    })
}
