//! The canonical call types (docs/parsing.md), as native classes: they are created on the hot path,
//! where a Python dataclass would cost more than the parse itself.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};
use pyo3::IntoPyObjectExt;
use toolwire_core::calls::{Call, Invalid};
use toolwire_core::ids::generate_id;
use toolwire_core::json::{JsonStr, ParseOptions};

use crate::builder::PyBuilder;
use crate::errors::arguments_error;
use crate::view::PyJson;

/// One tool call: `id`, `name` and `arguments` (always a `dict`).
///
/// >>> ToolCall("call_1", "get_weather", {"city": "Paris"})
/// ToolCall(id='call_1', name='get_weather', arguments={'city': 'Paris'})
#[pyclass(frozen, module = "toolwire", name = "ToolCall")]
pub struct ToolCall {
    #[pyo3(get)]
    pub(crate) id: Py<PyString>,
    #[pyo3(get)]
    pub(crate) name: Py<PyString>,
    #[pyo3(get)]
    pub(crate) arguments: Py<PyDict>,
}

impl ToolCall {
    /// A call from values already checked: a non-empty name, an id and the arguments dict.
    pub fn from_parts<'py>(
        id: Bound<'py, PyString>,
        name: Bound<'py, PyString>,
        arguments: Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, ToolCall>> {
        let py = id.py();
        Bound::new(
            py,
            ToolCall {
                id: id.unbind(),
                name: name.unbind(),
                arguments: arguments.unbind(),
            },
        )
    }

    /// A call from the core's outcome; generates the id if the outcome has none. The name
    /// comes from the builder's key cache.
    pub fn from_call<'py>(
        builder: &mut PyBuilder<'py>,
        call: Call<PyJson<'py>>,
    ) -> PyResult<Bound<'py, ToolCall>> {
        let py = builder.py();
        let id = call.id.unwrap_or_else(generate_id);
        let arguments = call
            .arguments
            .0
            .cast_into::<PyDict>()
            .map_err(PyErr::from)?;
        let name = builder.key(JsonStr::from_utf8(&call.name))?;
        Bound::new(
            py,
            ToolCall {
                id: PyString::new(py, &id).unbind(),
                name: name.cast_into::<PyString>()?.unbind(),
                arguments: arguments.unbind(),
            },
        )
    }
}

/// pydantic's hook (`__get_pydantic_core_schema__`) for the native classes: the schema is built
/// by `toolwire._pydantic`, which imports pydantic only when pydantic asks (no dependency).
pub(crate) fn pydantic_core_schema<'py>(
    cls: &Bound<'py, PyType>,
    handler: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    cls.py()
        .import("toolwire._pydantic")?
        .call_method1("core_schema", (cls, handler))
}

/// The arguments rule (docs/parsing.md) for a user-given arguments value (a `dict`, JSON text, or
/// None).
fn normalized_arguments<'py>(
    py: Python<'py>,
    arguments: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut builder = PyBuilder::new(py);
    let value = toolwire_core::calls::normalize_arguments(
        &mut builder,
        arguments.map(PyJson),
        ParseOptions::default(),
    );
    match value {
        Ok(value) => Ok(value.0.cast_into::<PyDict>().map_err(PyErr::from)?),
        Err(failure) => match failure.build {
            Some(e) => Err(e.into()),
            None => Err(arguments_error(py, &failure.detail, None)),
        },
    }
}

#[pymethods]
impl ToolCall {
    #[new]
    #[pyo3(signature = (id=None, name=None, arguments=None))]
    fn new<'py>(
        py: Python<'py>,
        id: Option<Bound<'py, PyAny>>,
        name: Option<Bound<'py, PyString>>,
        arguments: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Self> {
        let Some(name) = name.filter(|n| n.to_str().is_ok_and(|s| !s.is_empty())) else {
            return Err(crate::errors::parse_error(
                py,
                "ToolCall needs a non-empty string name",
                "native",
                0,
                None,
                "",
            ));
        };
        let id = match id {
            Some(id) if !id.is_none() => {
                let text = if id.is_instance_of::<PyString>() {
                    id.cast_into::<PyString>().map_err(PyErr::from)?
                } else {
                    id.str()?
                };
                if text.to_str().is_ok_and(str::is_empty) {
                    PyString::new(py, &generate_id())
                } else {
                    text
                }
            }
            _ => PyString::new(py, &generate_id()),
        };
        Ok(ToolCall {
            id: id.unbind(),
            name: name.unbind(),
            arguments: normalized_arguments(py, arguments)?.unbind(),
        })
    }

    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("id", "name", "arguments")
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "ToolCall(id={}, name={}, arguments={})",
            self.id.bind(py).repr()?,
            self.name.bind(py).repr()?,
            self.arguments.bind(py).repr()?
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = other.cast::<ToolCall>() else {
            return Ok(py.NotImplemented());
        };
        let other = other.get();
        let equal = self.id.bind(py).as_any().eq(other.id.bind(py))?
            && self.name.bind(py).as_any().eq(other.name.bind(py))?
            && self
                .arguments
                .bind(py)
                .as_any()
                .eq(other.arguments.bind(py))?;
        equal.into_py_any(py)
    }

    #[classattr]
    fn __hash__(py: Python<'_>) -> Py<PyAny> {
        // Equal by value but holding a dict: unhashable, like a frozen dataclass with a dict.
        py.None()
    }

    /// A plain JSON-ready dict: `{"id", "name", "arguments"}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("id", self.id.bind(py))?;
        dict.set_item("name", self.name.bind(py))?;
        dict.set_item("arguments", self.arguments.bind(py).copy()?)?;
        Ok(dict)
    }

    /// The inverse of `to_dict`: the call `data` holds; its `arguments` may also be JSON text.
    #[classmethod]
    fn from_dict<'py>(
        cls: &Bound<'py, PyType>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = cls.py();
        let dict = data.cast::<PyDict>().map_err(|_| {
            crate::errors::parse_error(py, "ToolCall.from_dict needs a dict", "native", 0, None, "")
        })?;
        let id = dict.get_item("id")?;
        let name = dict
            .get_item("name")?
            .and_then(|n| n.cast_into::<PyString>().ok());
        let arguments = dict.get_item("arguments")?;
        let call = ToolCall::new(py, id, name, arguments)?;
        Ok(Bound::new(py, call)?.into_any())
    }

    /// The pydantic core schema: validated from a `ToolCall` or its `to_dict()` form,
    /// serialised as `to_dict()`.
    #[classmethod]
    fn __get_pydantic_core_schema__<'py>(
        cls: &Bound<'py, PyType>,
        _source: &Bound<'py, PyAny>,
        handler: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        pydantic_core_schema(cls, handler)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let cls = py.get_type::<ToolCall>();
        let args = PyTuple::new(
            py,
            [
                self.id.bind(py).clone().into_any(),
                self.name.bind(py).clone().into_any(),
                self.arguments.bind(py).clone().into_any(),
            ],
        )?;
        PyTuple::new(py, [cls.into_any(), args.into_any()])
    }
}

/// A call that could not be parsed, kept in place under `on_error="keep"` so nothing is lost.
///
/// `raw` is the text of the call as written, `error` says what was wrong and where,
/// `protocol` names what it was read as ("text_tagged", "raw_json", "native", "body" or a
/// format name), `index` is its position among the response's calls, `offset` the character
/// offset of the fault in the text (None for structured input), and `name` the tool's name
/// when it could be read.
#[pyclass(frozen, module = "toolwire", name = "InvalidToolCall")]
pub struct InvalidToolCall {
    #[pyo3(get)]
    raw: Py<PyString>,
    #[pyo3(get)]
    error: Py<PyString>,
    #[pyo3(get)]
    protocol: Py<PyString>,
    #[pyo3(get)]
    pub(crate) index: usize,
    #[pyo3(get)]
    offset: Option<usize>,
    #[pyo3(get)]
    name: Option<Py<PyString>>,
}

impl InvalidToolCall {
    pub fn from_invalid<'py>(
        py: Python<'py>,
        invalid: &Invalid,
    ) -> PyResult<Bound<'py, InvalidToolCall>> {
        Bound::new(
            py,
            InvalidToolCall {
                raw: PyString::new(py, &invalid.raw).unbind(),
                error: PyString::new(py, &invalid.message()).unbind(),
                protocol: PyString::new(py, invalid.protocol.as_str()).unbind(),
                index: invalid.index,
                offset: invalid.offset,
                name: invalid
                    .name
                    .as_deref()
                    .map(|n| PyString::new(py, n).unbind()),
            },
        )
    }

    /// A whole input that held no readable response (batch work, `on_error="keep"`): protocol
    /// `"body"`, index 0, `raw` the input itself.
    pub fn bad_input<'py>(
        py: Python<'py>,
        raw: &str,
        error: &str,
        offset: Option<usize>,
    ) -> PyResult<Bound<'py, InvalidToolCall>> {
        Self::made(py, [raw, error, "body"], 0, offset, None)
    }

    /// A structured call whose arguments Python cannot hold (batch work, when the item cannot
    /// be read again as Python objects): protocol `"native"`, `raw` the arguments' JSON.
    pub fn refused<'py>(
        py: Python<'py>,
        raw: &str,
        error: &str,
        index: usize,
        name: &str,
    ) -> PyResult<Bound<'py, InvalidToolCall>> {
        Self::made(py, [raw, error, "native"], index, None, Some(name))
    }

    /// One from its `raw`, `error` and `protocol` texts and the rest.
    fn made<'py>(
        py: Python<'py>,
        [raw, error, protocol]: [&str; 3],
        index: usize,
        offset: Option<usize>,
        name: Option<&str>,
    ) -> PyResult<Bound<'py, InvalidToolCall>> {
        Bound::new(
            py,
            InvalidToolCall {
                raw: PyString::new(py, raw).unbind(),
                error: PyString::new(py, error).unbind(),
                protocol: PyString::new(py, protocol).unbind(),
                index,
                offset,
                name: name.map(|n| PyString::new(py, n).unbind()),
            },
        )
    }

    fn fields<'py>(&self, py: Python<'py>) -> PyResult<[Bound<'py, PyAny>; 6]> {
        Ok([
            self.raw.bind(py).clone().into_any(),
            self.error.bind(py).clone().into_any(),
            self.protocol.bind(py).clone().into_any(),
            self.index.into_bound_py_any(py)?,
            self.offset.into_bound_py_any(py)?,
            self.name
                .as_ref()
                .map(|n| n.bind(py).clone())
                .into_bound_py_any(py)?,
        ])
    }
}

#[pymethods]
impl InvalidToolCall {
    #[new]
    #[pyo3(signature = (raw, error, protocol, index=0, offset=None, name=None))]
    fn new(
        raw: Py<PyString>,
        error: Py<PyString>,
        protocol: Py<PyString>,
        index: usize,
        offset: Option<usize>,
        name: Option<Py<PyString>>,
    ) -> Self {
        InvalidToolCall {
            raw,
            error,
            protocol,
            index,
            offset,
            name,
        }
    }

    /// The event kind when it comes from a stream (docs/streaming.md).
    #[getter]
    fn kind(&self) -> &'static str {
        "invalid_tool_call"
    }

    #[classattr]
    fn __match_args__() -> (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ) {
        ("raw", "error", "protocol", "index", "offset", "name")
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let [raw, error, protocol, index, offset, name] = self.fields(py)?;
        Ok(format!(
            "InvalidToolCall(raw={}, error={}, protocol={}, index={}, offset={}, name={})",
            raw.repr()?,
            error.repr()?,
            protocol.repr()?,
            index.repr()?,
            offset.repr()?,
            name.repr()?
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = other.cast::<InvalidToolCall>() else {
            return Ok(py.NotImplemented());
        };
        let mine = self.fields(py)?;
        let theirs = other.get().fields(py)?;
        for (a, b) in mine.iter().zip(theirs.iter()) {
            if !a.eq(b)? {
                return false.into_py_any(py);
            }
        }
        true.into_py_any(py)
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        PyTuple::new(py, self.fields(py)?)?.hash()
    }

    /// A plain JSON-ready dict of the six fields.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        let names = ["raw", "error", "protocol", "index", "offset", "name"];
        for (key, value) in names.iter().zip(self.fields(py)?) {
            dict.set_item(key, value)?;
        }
        Ok(dict)
    }

    /// The inverse of `to_dict`: the invalid call `data` holds.
    #[classmethod]
    fn from_dict<'py>(
        cls: &Bound<'py, PyType>,
        data: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyAny>> {
        cls.call((), Some(data))
    }

    /// The pydantic core schema: validated from an `InvalidToolCall` or its `to_dict()` form,
    /// serialised as `to_dict()`.
    #[classmethod]
    fn __get_pydantic_core_schema__<'py>(
        cls: &Bound<'py, PyType>,
        _source: &Bound<'py, PyAny>,
        handler: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        pydantic_core_schema(cls, handler)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let cls = py.get_type::<InvalidToolCall>();
        let args = PyTuple::new(py, self.fields(py)?)?;
        PyTuple::new(py, [cls.into_any(), args.into_any()])
    }
}
