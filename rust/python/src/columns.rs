//! The batch paths that write no Python object per call: the CLI's JSONL records and Arrow
//! columns, made in Rust on all cores with the interpreter detached.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use toolwire_core::batch::{extract_jsonl, extract_lines, unread_line_record, Line, Locate};
use toolwire_core::columns::{CallColumns, StringColumn};

use crate::batch::{thread_error, BatchArgs};
use crate::input::guarded;

/// The CLI's inner loop (`toolwire extract`): the lines of a chunk of whole JSONL lines from
/// byte `start` on (line `first_line` first), a bounded piece at a time → `(records, end,
/// lines, calls, invalid calls, bad lines, blank lines)`, where `end` is the byte just past
/// the last line read (call again from there until the chunk is read) and `lines` counts the
/// records (blank lines are skipped).
#[pyfunction]
#[pyo3(signature = (
    chunk, start, first_line, /, *, field = None, provider = "auto", threads = None,
    formats = None, raw_json = "fenced", repair = false, deterministic_ids = false
))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn extract_jsonl_chunk<'py>(
    py: Python<'py>,
    chunk: &Bound<'py, PyBytes>,
    start: usize,
    first_line: u64,
    field: Option<&str>,
    provider: &str,
    threads: Option<&Bound<'py, PyAny>>,
    formats: Option<&Bound<'py, PyAny>>,
    raw_json: &str,
    repair: bool,
    deterministic_ids: bool,
) -> PyResult<(Bound<'py, PyBytes>, usize, u64, u64, u64, u64, u64)> {
    guarded(py, || {
        let (threads, options) = BatchArgs {
            field,
            provider,
            threads,
            formats,
            raw_json,
            repair,
            deterministic_ids,
            native_tool_calls: None,
        }
        .read(Locate::LogRecord)?;
        let chunk = chunk.as_bytes();
        let piece = py
            .detach(|| extract_jsonl(chunk, start, first_line, &options, threads))
            .map_err(thread_error)?;
        let tally = piece.tally;
        Ok((
            PyBytes::new(py, &piece.output),
            piece.end,
            tally.lines,
            tally.calls,
            tally.invalid_calls,
            tally.bad_lines,
            tally.blank_lines,
        ))
    })
}

/// The CLI's record for a line it did not read (longer than it reads): `raw` is what it shows
/// of the line, `message` why.
#[pyfunction]
#[pyo3(signature = (number, raw, message, /))]
pub fn unread_jsonl_record<'py>(
    py: Python<'py>,
    number: u64,
    raw: &[u8],
    message: &str,
) -> Bound<'py, PyBytes> {
    PyBytes::new(py, unread_line_record(number, raw, message).as_bytes())
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
/// a `list<struct<id, name, arguments, error>>` array. `wide` means 64-bit offsets; row `i`
/// is line `first_line + i` for deterministic ids.
#[pyfunction]
#[pyo3(signature = (
    data, offsets, validity, wide, offset, length, /, *, field = None, provider = "auto",
    threads = None, formats = None, raw_json = "fenced", repair = false,
    deterministic_ids = false, first_line = 1
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
    threads: Option<&Bound<'py, PyAny>>,
    formats: Option<&Bound<'py, PyAny>>,
    raw_json: &str,
    repair: bool,
    deterministic_ids: bool,
    first_line: u64,
) -> PyResult<Bound<'py, PyTuple>> {
    guarded(py, || {
        let (threads, options) = BatchArgs {
            field,
            provider,
            threads,
            formats,
            raw_json,
            repair,
            deterministic_ids,
            native_tool_calls: None,
        }
        .read(Locate::Whole)?;
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
                let present: Vec<(u64, &[u8])> = (first_line..)
                    .zip(&rows)
                    .filter_map(|(number, row)| row.map(|text| (number, text)))
                    .collect();
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
