//! Raising the `toolwire` exceptions, which are defined in Python (`toolwire._errors`) so that
//! users can subclass and pickle them like any exception.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};
use pyo3::IntoPyObjectExt;
use toolwire_core::calls::{FailureKind, Invalid};

static ERRORS_MODULE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn error_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyType>> {
    let module = ERRORS_MODULE.get_or_try_init(py, || {
        py.import("toolwire._errors").map(|m| m.into_any().unbind())
    })?;
    Ok(module.bind(py).getattr(name)?.cast_into::<PyType>()?)
}

/// An instance of `toolwire._errors.<class>(message, **fields)` as a `PyErr`; if even that
/// fails, the failure itself is returned.
fn raise(
    py: Python<'_>,
    class: &str,
    message: &str,
    fields: impl FnOnce(&Bound<'_, PyDict>) -> PyResult<()>,
) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let kwargs = PyDict::new(py);
        fields(&kwargs)?;
        let instance = error_class(py, class)?.call((message,), Some(&kwargs))?;
        Ok(PyErr::from_value(instance))
    };
    build().unwrap_or_else(|e| e)
}

/// A `ToolCallParseError` (or `ArgumentsError`) for a failed call under `on_error="raise"`.
pub fn invalid_call_error(py: Python<'_>, invalid: &Invalid) -> PyErr {
    let class = match invalid.kind {
        FailureKind::Parse => "ToolCallParseError",
        FailureKind::Arguments => "ArgumentsError",
    };
    raise(py, class, &invalid.message(), |kwargs| {
        kwargs.set_item("protocol", invalid.protocol.as_str())?;
        kwargs.set_item("index", invalid.index)?;
        kwargs.set_item("offset", invalid.offset)?;
        kwargs.set_item("raw", &invalid.raw)?;
        kwargs.set_item("name", invalid.name.as_deref())
    })
}

/// A `ToolCallParseError` that is not tied to a decoded call (bad input as a whole).
pub fn parse_error(
    py: Python<'_>,
    message: &str,
    protocol: &str,
    index: usize,
    offset: Option<usize>,
    raw: &str,
) -> PyErr {
    raise(py, "ToolCallParseError", message, |kwargs| {
        kwargs.set_item("protocol", protocol)?;
        kwargs.set_item("index", index)?;
        kwargs.set_item("offset", offset)?;
        kwargs.set_item("raw", raw)
    })
}

/// An `ArgumentsError` for arguments given directly (not found in a response).
pub fn arguments_error(py: Python<'_>, detail: &str, raw: Option<&str>) -> PyErr {
    raise(py, "ArgumentsError", detail, |kwargs| {
        kwargs.set_item("protocol", "native")?;
        kwargs.set_item("index", 0)?;
        kwargs.set_item("raw", raw.unwrap_or_default())
    })
}

/// A `ProviderFormatError` naming the path of what was missing or of the wrong type.
pub fn provider_format_error(py: Python<'_>, message: &str, path: &str) -> PyErr {
    raise(py, "ProviderFormatError", message, |kwargs| {
        kwargs.set_item("path", path)
    })
}

/// A `JSONDecodeError` (a `ToolwireError` and a `json.JSONDecodeError`) for `toolwire.loads`.
pub fn json_decode_error(py: Python<'_>, message: &str, doc: &str, char_offset: usize) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let args = (message, doc, char_offset).into_py_any(py)?;
        let instance = error_class(py, "JSONDecodeError")?
            .call1(args.bind(py).cast::<pyo3::types::PyTuple>()?)?;
        Ok(PyErr::from_value(instance))
    };
    build().unwrap_or_else(|e| e)
}

/// A `ToolDefinitionError`: a tool definition (e.g. its parameters schema) is unusable.
pub fn tool_definition_error(py: Python<'_>, message: &str) -> PyErr {
    raise(py, "ToolDefinitionError", message, |_| Ok(()))
}
