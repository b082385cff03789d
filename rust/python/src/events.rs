//! The stream events as native frozen classes: a stream makes one per chunk, and a
//! native object costs a fraction of a Python dataclass (see the README's "Streaming").
//!
//! Each class has a `kind` string, value equality, a `repr`, `to_dict()` (with `kind`), pickling,
//! `__match_args__` and pydantic's schema hook. `InvalidToolCall` (in [`crate::types`]) is the sixth event.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};
use pyo3::IntoPyObjectExt;

use crate::types::{pydantic_core_schema, ToolCall};

/// A field of an event: its Python value, and its plain JSON-ready form for `to_dict`.
trait Field {
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>;
    fn plain<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py)
    }
}

impl Field for usize {
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.into_bound_py_any(py)
    }
}

impl Field for Py<PyString> {
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.bind(py).clone().into_any())
    }
}

impl Field for Py<ToolCall> {
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.bind(py).clone().into_any())
    }
    fn plain<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.bind(py).call_method0("to_dict")
    }
}

/// Defines one event class: the struct, its constructor and the shared protocol methods.
macro_rules! event_class {
    ($(#[$doc:meta])* $class:ident, $kind:literal, $($field:ident: $ty:ty),+) => {
        $(#[$doc])*
        #[pyclass(frozen, module = "toolwire")]
        pub struct $class {
            $(#[pyo3(get)] pub $field: $ty,)+
        }

        impl $class {
            const FIELDS: &'static [&'static str] = &[$(stringify!($field)),+];

            fn values<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
                Ok(vec![$(self.$field.value(py)?),+])
            }
        }

        #[pymethods]
        impl $class {
            #[new]
            fn new($($field: $ty),+) -> Self {
                Self { $($field),+ }
            }

            /// The event kind.
            #[classattr]
            fn kind() -> &'static str {
                $kind
            }

            #[classattr]
            fn __match_args__<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
                PyTuple::new(py, Self::FIELDS)
            }

            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                let mut parts = Vec::new();
                for (name, value) in Self::FIELDS.iter().zip(self.values(py)?) {
                    parts.push(format!("{name}={}", value.repr()?));
                }
                Ok(format!("{}({})", stringify!($class), parts.join(", ")))
            }

            fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let Ok(other) = other.cast::<$class>() else {
                    return Ok(py.NotImplemented());
                };
                let theirs = other.get().values(py)?;
                for (a, b) in self.values(py)?.iter().zip(theirs.iter()) {
                    if !a.eq(b)? {
                        return false.into_py_any(py);
                    }
                }
                true.into_py_any(py)
            }

            /// Hashable when every field is (a `ToolCallEnd` holds an unhashable `ToolCall`).
            fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
                PyTuple::new(py, self.values(py)?)?.hash()
            }

            /// A plain JSON-ready dict: `kind` and the fields.
            fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
                let dict = PyDict::new(py);
                dict.set_item("kind", $kind)?;
                $(dict.set_item(stringify!($field), self.$field.plain(py)?)?;)+
                Ok(dict)
            }

            /// The pydantic core schema: validated from the event or its `to_dict()` form,
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
                let args = PyTuple::new(py, self.values(py)?)?;
                PyTuple::new(py, [py.get_type::<$class>().into_any(), args.into_any()])
            }
        }
    };
}

event_class!(
    /// Plain `text` that can no longer be part of a marker.
    ///
    /// >>> TextDelta("Hello").to_dict()
    /// {'kind': 'text_delta', 'text': 'Hello'}
    TextDelta, "text_delta", text: Py<PyString>
);

event_class!(
    /// `text` inside a `<think>` span (or an analysis channel).
    ReasoningDelta, "reasoning_delta", text: Py<PyString>
);

event_class!(
    /// A call begins: its `name` is known, and its `id` (the model's, or a generated one);
    /// `index` counts the calls of the response from 0.
    ToolCallStart, "tool_call_start", index: usize, id: Py<PyString>, name: Py<PyString>
);

event_class!(
    /// The next piece of the `arguments` text of call `index`, exactly as the model wrote it.
    ToolCallDelta, "tool_call_delta", index: usize, arguments: Py<PyString>
);

event_class!(
    /// Call `index` is complete and decoded: `call` is its `ToolCall`.
    ToolCallEnd, "tool_call_end", index: usize, call: Py<ToolCall>
);

pub fn add_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TextDelta>()?;
    m.add_class::<ReasoningDelta>()?;
    m.add_class::<ToolCallStart>()?;
    m.add_class::<ToolCallDelta>()?;
    m.add_class::<ToolCallEnd>()?;
    Ok(())
}
