//! [`JsonView`] over Python objects, so the core's call-shape rules read user dicts and
//! freshly decoded values alike.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toolwire_core::json::{JsonKind, JsonView};

/// The keys the core's shape rules look up, interned once: a lookup then costs no allocation
/// and the `str` hash is already known.
const KNOWN_KEYS: [&str; 28] = [
    "name",
    "arguments",
    "parameters",
    "input",
    "args",
    "id",
    "call_id",
    "type",
    "function",
    "functionCall",
    "tool_call",
    "tool_calls",
    "choices",
    "message",
    "content",
    "text",
    "output",
    "candidates",
    "parts",
    "delta",
    "index",
    "partial_json",
    "role",
    // Tool definitions, read per typed qwen3_coder / glm45 parameter.
    "properties",
    "input_schema",
    "schema",
    "anyOf",
    "oneOf",
];

fn known_key_index(key: &str) -> Option<usize> {
    Some(match key {
        "name" => 0,
        "arguments" => 1,
        "parameters" => 2,
        "input" => 3,
        "args" => 4,
        "id" => 5,
        "call_id" => 6,
        "type" => 7,
        "function" => 8,
        "functionCall" => 9,
        "tool_call" => 10,
        "tool_calls" => 11,
        "choices" => 12,
        "message" => 13,
        "content" => 14,
        "text" => 15,
        "output" => 16,
        "candidates" => 17,
        "parts" => 18,
        "delta" => 19,
        "index" => 20,
        "partial_json" => 21,
        "role" => 22,
        "properties" => 23,
        "input_schema" => 24,
        "schema" => 25,
        "anyOf" => 26,
        "oneOf" => 27,
        _ => return None,
    })
}

static INTERNED_KEYS: PyOnceLock<Vec<Py<PyString>>> = PyOnceLock::new();

fn known_key<'a, 'py>(py: Python<'py>, key: &str) -> Option<&'a Bound<'py, PyString>>
where
    'py: 'a,
{
    let index = known_key_index(key)?;
    let keys = INTERNED_KEYS.get_or_init(py, || {
        KNOWN_KEYS
            .iter()
            .map(|k| PyString::intern(py, k).unbind())
            .collect()
    });
    Some(keys[index].bind(py))
}

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
        let py = dict.py();
        match known_key(py, key) {
            Some(key) => dict.get_item(key),
            None => dict.get_item(key),
        }
        .ok()
        .flatten()
        .map(PyJson)
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
                    Ok(s) => lossy(s),
                    Err(_) => k
                        .str()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                };
                (key, PyJson(v))
            })
            .collect()
    }

    fn number_text(&self) -> Option<String> {
        // `json.dumps` writes ints with `int.__repr__` and floats with `float.__repr__`.
        if self.0.is_instance_of::<PyFloat>() {
            let value: f64 = self.0.extract().unwrap_or(f64::NAN);
            return Some(toolwire_core::json::python_float_repr(value));
        }
        // An int over the int-string limit has no text Python will write.
        let text = self.0.repr().ok()?;
        Some(text.to_string_lossy().into_owned())
    }

    fn string_lossy(&self) -> Option<String> {
        Some(lossy(self.0.cast::<PyString>().ok()?))
    }
}

/// The text of a `str`, each lone surrogate replaced by one U+FFFD (as the core's own lossy
/// strings read; PyO3's replaces each of its three UTF-8 bytes).
fn lossy(s: &Bound<'_, PyString>) -> String {
    if let Ok(text) = s.to_str() {
        return text.to_owned();
    }
    let units = s
        .call_method1("encode", ("utf-16-le", "surrogatepass"))
        .ok()
        .and_then(|b| b.cast_into::<pyo3::types::PyBytes>().ok());
    match units {
        Some(bytes) => {
            let units: Vec<u16> = bytes
                .as_bytes()
                .chunks_exact(2)
                .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
                .collect();
            String::from_utf16_lossy(&units)
        }
        None => s.to_string_lossy().into_owned(),
    }
}
