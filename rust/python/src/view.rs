//! [`JsonView`] over Python objects, so the core's call-shape rules read user dicts and
//! freshly decoded values alike.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toolwire_core::json::{JsonKind, JsonView};

/// A Python object seen as JSON.
#[derive(Clone, Debug)]
pub struct PyJson<'py>(pub Bound<'py, PyAny>);

impl<'py> JsonView for PyJson<'py> {
    fn kind(&self) -> JsonKind {
        let obj = &self.0;
        if obj.is_none() {
            JsonKind::Null
        } else if obj.is_instance_of::<PyString>() {
            JsonKind::String
        } else if obj.is_instance_of::<PyDict>() {
            JsonKind::Object
        } else if obj.is_instance_of::<PyBool>() {
            JsonKind::Bool
        } else if obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyFloat>() {
            JsonKind::Number
        } else if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
            JsonKind::Array
        } else {
            JsonKind::Other
        }
    }

    fn get(&self, key: &str) -> Option<Self> {
        let dict = self.0.cast::<PyDict>().ok()?;
        dict.get_item(key).ok().flatten().map(PyJson)
    }

    fn as_str(&self) -> Option<&str> {
        self.0.cast::<PyString>().ok()?.to_str().ok()
    }

    fn as_bool(&self) -> Option<bool> {
        self.0.cast::<PyBool>().ok().map(|b| b.is_true())
    }

    fn items(&self) -> Vec<Self> {
        if let Ok(list) = self.0.cast::<PyList>() {
            list.iter().map(PyJson).collect()
        } else if let Ok(tuple) = self.0.cast::<PyTuple>() {
            tuple.iter().map(PyJson).collect()
        } else {
            Vec::new()
        }
    }

    fn entries(&self) -> Vec<(String, Self)> {
        let Ok(dict) = self.0.cast::<PyDict>() else {
            return Vec::new();
        };
        dict.iter()
            .map(|(k, v)| {
                let key = match k.cast::<PyString>() {
                    Ok(s) => s.to_string_lossy().into_owned(),
                    Err(_) => k
                        .str()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                };
                (key, PyJson(v))
            })
            .collect()
    }

    fn number_text(&self) -> String {
        // `json.dumps` writes ints with `int.__repr__` and floats with `float.__repr__`.
        let text = if self.0.is_instance_of::<PyFloat>() {
            let value: f64 = self.0.extract().unwrap_or(f64::NAN);
            return toolwire_core::json::python_float_repr(value);
        } else {
            self.0.repr()
        };
        text.map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    fn string_lossy(&self) -> Option<String> {
        let s = self.0.cast::<PyString>().ok()?;
        Some(s.to_string_lossy().into_owned())
    }
}
