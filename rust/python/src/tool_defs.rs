//! `tools=` as the qwen3_coder and glm45 parsers read it: the user's tool definitions, read on
//! demand and never copied, so a later change to the list is seen by the next call.

use std::sync::{Mutex, PoisonError};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use toolwire_core::formats::{property_types, tool_properties, ParamTypes, ToolSchemas, Types};
use toolwire_core::json::{JsonKind, JsonView};

use crate::view::PyJson;

/// `tools=` as given: each tool a dict (a `Tool` object as its `to_dict()`), read on demand
/// for the parameters a qwen3_coder or glm45 call names (see `tool_properties`), so a call passing
/// many tools pays only for what its text calls.
#[derive(Debug)]
pub struct ToolDefs {
    tools: Vec<Py<PyAny>>,
    /// The last tool looked up and its `properties`: a call's parameters are looked up one
    /// after another. Lives for one parse only, so a later change to the list is always seen.
    last: Mutex<Option<(String, Option<Py<PyAny>>)>>,
}

impl ToolDefs {
    /// `tools=`, or `None` when absent.
    pub fn read(tools: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Self>> {
        let Some(tools) = tools.filter(|t| !t.is_none()) else {
            return Ok(None);
        };
        let mut defs = Vec::new();
        for tool in tools.try_iter()? {
            let tool = tool?;
            // Dicts first: `hasattr` on a dict raises (and discards) an AttributeError.
            let tool = if !tool.is_instance_of::<PyDict>() && tool.hasattr("to_dict")? {
                tool.call_method0("to_dict")?
            } else {
                tool
            };
            defs.push(tool.unbind());
        }
        Ok(Some(Self {
            tools: defs,
            last: Mutex::new(None),
        }))
    }

    fn views<'a, 'py>(
        &'a self,
        py: Python<'py>,
    ) -> impl DoubleEndedIterator<Item = Definition<'py>> + 'a
    where
        'py: 'a,
    {
        self.tools
            .iter()
            .map(move |tool| Definition(PyJson(tool.bind(py).clone())))
    }

    /// The parameter types of every tool, read at once (for a stream, which asks for them
    /// chunk after chunk).
    pub fn schemas(&self, py: Python<'_>) -> ToolSchemas {
        ToolSchemas::from_tools(&self.views(py).collect::<Vec<_>>())
    }
}

impl ParamTypes for ToolDefs {
    fn types(&self, tool: &str, parameter: &str) -> Types {
        Python::attach(|py| {
            let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
            let properties = match &*last {
                Some((name, properties)) if name == tool => properties
                    .as_ref()
                    .map(|p| Definition(PyJson(p.bind(py).clone()))),
                _ => {
                    let properties = tool_properties(self.views(py), tool);
                    let kept = properties.as_ref().map(|p| p.0 .0.clone().unbind());
                    *last = Some((tool.to_owned(), kept));
                    properties
                }
            };
            properties.map_or(Types::default(), |p| property_types(&p, parameter))
        })
    }
}

/// Dicts of at most this many members are searched by comparing key text: that is cheaper
/// than making a Python `str` for the key and hashing it, and definitions are small dicts.
const SCAN_MAX: usize = 12;

/// A tool definition (or a part of one) seen as JSON: [`PyJson`], except that a member of a
/// small dict is found by comparing key text rather than by a dict lookup.
#[derive(Clone, Debug)]
struct Definition<'py>(PyJson<'py>);

impl JsonView for Definition<'_> {
    fn kind(&self) -> JsonKind {
        self.0.kind()
    }

    fn get(&self, key: &str) -> Option<Self> {
        let found = match self.0 .0.cast::<PyDict>() {
            Ok(dict) if dict.len() <= SCAN_MAX => plain_key_value(dict, key),
            _ => None,
        };
        match found {
            Some(value) => value.map(|v| Definition(PyJson(v))),
            None => self.0.get(key).map(Definition),
        }
    }

    fn as_str(&self) -> Option<&str> {
        self.0.as_str()
    }

    fn as_bool(&self) -> Option<bool> {
        self.0.as_bool()
    }

    fn items(&self) -> Vec<Self> {
        self.0.items().into_iter().map(Definition).collect()
    }

    fn entries(&self) -> Vec<(String, Self)> {
        let entries = self.0.entries().into_iter();
        entries.map(|(k, v)| (k, Definition(v))).collect()
    }

    fn number_text(&self) -> Option<String> {
        self.0.number_text()
    }

    fn string_lossy(&self) -> Option<String> {
        self.0.string_lossy()
    }
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
