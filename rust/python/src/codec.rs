//! The hot paths of the provider codecs (docs/codecs.md): decoding the structured calls of a body
//! (well-formed bodies in one pass by `wire_decode`, anything else by the core's body rules), and
//! compact JSON for OpenAI `arguments`. The other shapes live in `toolwire.codecs`.

use std::fmt::Write;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toolwire_core::body::{decode_body_calls, BodyError};
use toolwire_core::calls::{ErrorPolicy, Outcome};
use toolwire_core::json::{python_float_repr, write_json_string, ParseOptions};

use crate::api::calls_list;
use crate::builder::PyBuilder;
use crate::errors::provider_format_error;
use crate::input::{body_shape, error_policy, guarded, plain_data};
use crate::view::PyJson;
use crate::wire_decode::decode_well_formed;

/// The structured calls of `body`, a provider body or assistant message, read as `provider`
/// ("auto", "openai", "openai_responses", "anthropic", "ollama", "gemini"). Text is not
/// searched (`extract` does that). See docs/codecs.md.
///
/// A body of the wrong shape, or a call that cannot be decoded under `on_error="raise"` (the
/// default), raises `ProviderFormatError` naming the path; "skip" drops such a call and "keep"
/// returns an `InvalidToolCall` in its place. `repair=True` accepts the JSON mistakes models
/// make in argument text.
#[pyfunction]
#[pyo3(signature = (body, provider = "auto", *, repair = false, on_error = "raise"))]
pub fn decode_tool_calls<'py>(
    py: Python<'py>,
    body: &Bound<'py, PyAny>,
    provider: &str,
    repair: bool,
    on_error: &str,
) -> PyResult<Bound<'py, PyList>> {
    guarded(py, || {
        let policy = error_policy(on_error)?;
        let shape = body_shape(provider)?;
        let options = ParseOptions::json(repair);
        let body = &plain_data(body)?;
        if let Some(calls) = decode_well_formed(body, shape, options)? {
            return Ok(calls);
        }
        let body = if body.is_instance_of::<PyDict>()
            || body.is_instance_of::<PyList>()
            || body.is_instance_of::<PyTuple>()
        {
            body.clone()
        } else if body.hasattr("keys")? {
            PyDict::from_sequence(&body.call_method0("items")?)?.into_any()
        } else {
            return Err(provider_format_error(
                py,
                &format!(
                    "expected a response body or a message (a dict), got {}",
                    body.get_type().name()?
                ),
                "",
            ));
        };
        let mut builder = PyBuilder::new(py);
        let decoded = match decode_body_calls(&mut builder, &PyJson(body), shape, options) {
            Ok(decoded) => decoded,
            Err(BodyError::Build(e)) => return Err(e.into()),
            Err(BodyError::Format(e)) => {
                return Err(provider_format_error(py, &e.message, &e.path))
            }
        };
        if policy == ErrorPolicy::Raise {
            let first_failure = decoded.outcomes.iter().find_map(|o| match o {
                Outcome::Invalid(invalid) => Some(invalid),
                Outcome::Call(_) => None,
            });
            if let (Some(invalid), Some(path)) = (first_failure, decoded.failure_paths.first()) {
                return Err(provider_format_error(py, &invalid.message(), path));
            }
        }
        calls_list(&mut builder, decoded.outcomes, policy)
    })
}

/// Past this depth the value is taken for a circular structure (`json.dumps` would raise
/// `RecursionError` or `ValueError` there).
const MAX_DEPTH: usize = 512;

/// Compact JSON text of a Python value: what `json.dumps(value, separators=(",", ":"),
/// ensure_ascii=False)` returns, except that lone surrogates are written as `\udXXX` escapes
/// (the raw form cannot be sent as UTF-8). Raises `TypeError` for values JSON cannot hold and
/// `ValueError` for circular structures, like `json.dumps`.
#[pyfunction]
#[pyo3(signature = (value, /))]
pub fn dumps_compact(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    guarded(py, || compact_json(value))
}

/// [`dumps_compact`] without the panic guard, for callers that have their own.
pub fn compact_json(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut out = String::new();
    write_value(value, &mut out, 0)?;
    Ok(out)
}

fn write_value(value: &Bound<'_, PyAny>, out: &mut String, depth: usize) -> PyResult<()> {
    if let Ok(s) = value.cast::<PyString>() {
        write_py_string(s, out)
    } else if value.is_none() {
        out.push_str("null");
        Ok(())
    } else if let Ok(b) = value.cast::<PyBool>() {
        out.push_str(if b.is_true() { "true" } else { "false" });
        Ok(())
    } else if let Ok(i) = value.cast::<PyInt>() {
        write_int(i, out)
    } else if let Ok(f) = value.cast::<PyFloat>() {
        write_float(f.value(), out)
    } else if let Ok(list) = value.cast::<PyList>() {
        enter(depth)?;
        out.push('[');
        for (i, item) in list.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_value(&item, out, depth + 1)?;
        }
        out.push(']');
        Ok(())
    } else if let Ok(tuple) = value.cast::<PyTuple>() {
        enter(depth)?;
        out.push('[');
        for (i, item) in tuple.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_value(&item, out, depth + 1)?;
        }
        out.push(']');
        Ok(())
    } else if let Ok(dict) = value.cast::<PyDict>() {
        enter(depth)?;
        out.push('{');
        for (i, (key, item)) in dict.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_key(&key, out)?;
            out.push(':');
            write_value(&item, out, depth + 1)?;
        }
        out.push('}');
        Ok(())
    } else {
        Err(PyTypeError::new_err(format!(
            "Object of type {} is not JSON serializable",
            value.get_type().name()?
        )))
    }
}

/// A finite float as `json.dumps` writes it; NaN and infinity are refused, as
/// `json.dumps(allow_nan=False)` refuses them: JSON has no such numbers, and the text must be
/// JSON a provider reads.
fn write_float(value: f64, out: &mut String) -> PyResult<()> {
    if !value.is_finite() {
        return Err(PyValueError::new_err(format!(
            "Out of range float values are not JSON compliant: {}",
            python_float_repr(value)
        )));
    }
    out.push_str(&python_float_repr(value));
    Ok(())
}

fn enter(depth: usize) -> PyResult<()> {
    if depth >= MAX_DEPTH {
        Err(PyValueError::new_err(format!(
            "Circular reference detected (or nesting deeper than {MAX_DEPTH} levels)"
        )))
    } else {
        Ok(())
    }
}

/// Keys as `json.dumps` writes them: strings as they are, numbers, booleans and None as text.
fn write_key(key: &Bound<'_, PyAny>, out: &mut String) -> PyResult<()> {
    if let Ok(s) = key.cast::<PyString>() {
        return write_py_string(s, out);
    }
    let mut text = String::new();
    if let Ok(f) = key.cast::<PyFloat>() {
        text = python_float_repr(f.value());
    } else if let Ok(b) = key.cast::<PyBool>() {
        text.push_str(if b.is_true() { "true" } else { "false" });
    } else if key.is_none() {
        text.push_str("null");
    } else if let Ok(i) = key.cast::<PyInt>() {
        write_int(i, &mut text)?;
    } else {
        return Err(PyTypeError::new_err(format!(
            "keys must be str, int, float, bool or None, not {}",
            key.get_type().name()?
        )));
    }
    write_json_string(&text, out);
    Ok(())
}

/// Ints as `int.__repr__` writes them (also for subclasses such as `IntEnum`).
fn write_int(i: &Bound<'_, PyInt>, out: &mut String) -> PyResult<()> {
    match i.extract::<i64>() {
        Ok(n) => {
            let _ = write!(out, "{n}");
        }
        Err(_) => {
            let text = i.py().get_type::<PyInt>().call_method1("__repr__", (i,))?;
            out.push_str(text.cast::<PyString>()?.to_str()?);
        }
    }
    Ok(())
}

fn write_py_string(s: &Bound<'_, PyString>, out: &mut String) -> PyResult<()> {
    if let Ok(text) = s.to_str() {
        write_json_string(text, out);
        return Ok(());
    }
    // Lone surrogates: decode UTF-16 ourselves and escape the unpaired halves.
    let utf16 = s.call_method1("encode", ("utf-16-le", "surrogatepass"))?;
    let bytes = utf16.cast::<PyBytes>()?.as_bytes();
    let units = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]));
    out.push('"');
    let mut run = String::new();
    for unit in char::decode_utf16(units) {
        match unit {
            Ok(c) => run.push(c),
            Err(lone) => {
                push_escaped_run(&run, out);
                run.clear();
                let _ = write!(out, "\\u{:04x}", lone.unpaired_surrogate());
            }
        }
    }
    push_escaped_run(&run, out);
    out.push('"');
    Ok(())
}

/// The JSON escaping of `run`, without the quotes.
fn push_escaped_run(run: &str, out: &mut String) {
    let mut quoted = String::with_capacity(run.len() + 2);
    write_json_string(run, &mut quoted);
    out.push_str(&quoted[1..quoted.len() - 1]);
}
