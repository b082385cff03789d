//! [`JsonView`] over Python objects, so the core's call-shape rules read user dicts and
//! freshly decoded values alike.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toolwire_core::json::{JsonKind, JsonView};

/// The keys the core's shape rules look up, interned once: a lookup then costs no allocation
/// and the `str` hash is already known.
const KNOWN_KEYS: [&str; 45] = [
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
    // Stream chunks of the providers, read per chunk by the accumulators.
    "model",
    "usage",
    "reasoning_content",
    "reasoning",
    "finish_reason",
    "content_block",
    "thinking",
    "item",
    "item_id",
    "output_index",
    "done",
    "thought",
    "finishReason",
    "usageMetadata",
    "modelVersion",
    "responseId",
    "response",
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
        "model" => 28,
        "usage" => 29,
        "reasoning_content" => 30,
        "reasoning" => 31,
        "finish_reason" => 32,
        "content_block" => 33,
        "thinking" => 34,
        "item" => 35,
        "item_id" => 36,
        "output_index" => 37,
        "done" => 38,
        "thought" => 39,
        "finishReason" => 40,
        "usageMetadata" => 41,
        "modelVersion" => 42,
        "responseId" => 43,
        "response" => 44,
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

    fn as_i64(&self) -> Option<i64> {
        // `bool` is an `int` subclass, but not a number here.
        if self.0.is_instance_of::<PyBool>() {
            return None;
        }
        self.0.cast::<PyInt>().ok()?.extract().ok()
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

/// [`PyJson`], except that a member of a dict of at most `MAX` members is found by comparing key
/// text rather than by a dict lookup: cheaper than making a Python `str` for the key and hashing
/// it, or than a lookup that misses (tool definitions, stream deltas: small dicts whose members
/// are often absent).
#[derive(Clone, Debug)]
pub struct ScannedJson<'py, const MAX: usize = 12>(pub PyJson<'py>);

impl<const MAX: usize> JsonView for ScannedJson<'_, MAX> {
    fn kind(&self) -> JsonKind {
        self.0.kind()
    }

    fn get(&self, key: &str) -> Option<Self> {
        let found = match self.0 .0.cast::<PyDict>() {
            Ok(dict) if dict.len() <= MAX => plain_key_value(dict, key),
            _ => None,
        };
        match found {
            Some(value) => value.map(|v| ScannedJson(PyJson(v))),
            None => self.0.get(key).map(ScannedJson),
        }
    }

    fn as_str(&self) -> Option<&str> {
        self.0.as_str()
    }

    fn as_bool(&self) -> Option<bool> {
        self.0.as_bool()
    }

    fn items(&self) -> Vec<Self> {
        self.0.items().into_iter().map(ScannedJson).collect()
    }

    fn entries(&self) -> Vec<(String, Self)> {
        let entries = self.0.entries().into_iter();
        entries.map(|(k, v)| (k, ScannedJson(v))).collect()
    }

    fn number_text(&self) -> Option<String> {
        self.0.number_text()
    }

    fn string_lossy(&self) -> Option<String> {
        self.0.string_lossy()
    }

    fn as_i64(&self) -> Option<i64> {
        self.0.as_i64()
    }

    fn members<const N: usize>(&self, keys: [&str; N]) -> [Option<Self>; N] {
        if let Ok(dict) = self.0 .0.cast::<PyDict>() {
            if dict.len() <= MAX {
                if let Some(found) = plain_members(dict, keys) {
                    return found.map(|value| value.map(|v| ScannedJson(PyJson(v))));
                }
            }
        }
        keys.map(|key| self.get(key))
    }
}

/// The values under `keys`, in one walk over the dict while its keys are plain `str`; `None`
/// when a key of another kind comes first (the caller then looks the keys up).
fn plain_members<'py, const N: usize>(
    dict: &Bound<'py, PyDict>,
    keys: [&str; N],
) -> Option<[Option<Bound<'py, PyAny>>; N]> {
    let mut found = [const { None }; N];
    let (mut pos, mut k, mut v) = (0, std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: as in `plain_key_value`.
    unsafe {
        while ffi::PyDict_Next(dict.as_ptr(), &mut pos, &mut k, &mut v) != 0 {
            let text = plain_text(k)?;
            if let Some(at) = keys.iter().position(|key| key.as_bytes() == text) {
                found[at] = Some(Bound::from_borrowed_ptr(dict.py(), v));
            }
        }
    }
    Some(found)
}

/// The value under the key with `key`'s text while the keys walked are plain `str` (such a
/// key is the one a dict lookup finds); `Some(None)` when every key is a plain `str` and none
/// matches. `None` when a key of another kind (a `str` subclass, a number, lone surrogates)
/// comes first: the caller then does a dict lookup.
fn plain_key_value<'py>(dict: &Bound<'py, PyDict>, key: &str) -> Option<Option<Bound<'py, PyAny>>> {
    let (mut pos, mut k, mut v) = (0, std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: `dict` is a dict and no Python code runs during the walk, so the borrowed key
    // and value pointers stay valid.
    unsafe {
        while ffi::PyDict_Next(dict.as_ptr(), &mut pos, &mut k, &mut v) != 0 {
            if plain_text(k)? == key.as_bytes() {
                return Some(Some(Bound::from_borrowed_ptr(dict.py(), v)));
            }
        }
    }
    Some(None)
}

/// The UTF-8 text of `key` when it is a plain `str` without lone surrogates (an ASCII `str`
/// holds it inline, any other caches it on first use).
///
/// # Safety
/// `key` must be a valid object, kept alive while the text is used.
unsafe fn plain_text<'a>(key: *mut ffi::PyObject) -> Option<&'a [u8]> {
    if ffi::PyUnicode_CheckExact(key) == 0 {
        return None;
    }
    let mut len = 0;
    let data = ffi::PyUnicode_AsUTF8AndSize(key, &mut len);
    if data.is_null() {
        ffi::PyErr_Clear();
        return None;
    }
    Some(std::slice::from_raw_parts(data as *const u8, len as usize))
}
