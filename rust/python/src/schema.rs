//! Argument validation exported to Python (docs/tools.md): Python values become
//! `serde_json::Value`s here, at the edge, and the core's [`ArgumentValidator`] does the rest.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use toolwire_core::json::MAX_DEPTH;
use toolwire_core::validate::ArgumentValidator;

use crate::errors::tool_definition_error;
use crate::input::guarded;

/// Compiled schemas by their compact JSON, so tools that share a schema (or one tool re-read
/// from its wire form on every turn) compile once. Bounded: cleared when full.
static COMPILED: Mutex<Option<HashMap<String, Arc<ArgumentValidator>>>> = Mutex::new(None);
const COMPILED_MAX: usize = 4096;

/// A compiled argument schema. Made by `compile_schema`; `errors(tool, arguments)` validates.
#[pyclass(frozen, module = "toolwire._toolwire", name = "CompiledSchema")]
pub struct CompiledSchema {
    validator: Arc<ArgumentValidator>,
}

#[pymethods]
impl CompiledSchema {
    /// The messages for everything wrong with `arguments` (empty when valid), each naming
    /// `tool` and the property path and ending with a retry instruction.
    fn errors(
        &self,
        py: Python<'_>,
        tool: &str,
        arguments: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<String>> {
        guarded(py, || match to_value(arguments, 0) {
            Ok(value) => Ok(self.validator.errors(tool, &value)),
            Err(problem) => Ok(vec![format!(
                "Arguments for tool '{tool}' are not JSON: {problem}. Retry the tool call with \
                 JSON values only."
            )]),
        })
    }
}

/// Compile (or fetch from the cache) the validator of a parameters schema.
///
/// Raises `ToolDefinitionError` when the schema is not usable.
#[pyfunction]
#[pyo3(signature = (schema, /))]
pub fn compile_schema(py: Python<'_>, schema: &Bound<'_, PyAny>) -> PyResult<CompiledSchema> {
    guarded(py, || {
        compiled(schema).map(|validator| CompiledSchema { validator })
    })
}

/// The validator of a parameters schema, from the cache when it was compiled before.
pub(crate) fn compiled(schema: &Bound<'_, PyAny>) -> PyResult<Arc<ArgumentValidator>> {
    let py = schema.py();
    let schema = to_value(schema, 0).map_err(|problem| {
        tool_definition_error(py, &format!("the parameters schema is not JSON: {problem}"))
    })?;
    let key = schema.to_string();
    if let Some(validator) = cache_get(&key) {
        return Ok(validator);
    }
    let validator =
        Arc::new(ArgumentValidator::new(&schema).map_err(|e| tool_definition_error(py, &e))?);
    cache_put(key, validator.clone());
    Ok(validator)
}

fn cache_get(key: &str) -> Option<Arc<ArgumentValidator>> {
    let guard = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
    guard.as_ref()?.get(key).cloned()
}

fn cache_put(key: String, validator: Arc<ArgumentValidator>) {
    let mut guard = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
    let map = guard.get_or_insert_with(HashMap::new);
    if map.len() >= COMPILED_MAX {
        map.clear();
    }
    map.insert(key, validator);
}

/// A Python value as JSON, or what makes it not JSON (with where, for nested values).
pub(crate) fn to_value(obj: &Bound<'_, PyAny>, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nesting deeper than {MAX_DEPTH} levels"));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_string_lossy().into_owned()));
    }
    // bool before int: `bool` is a subclass of `int`.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        if let Ok(v) = i.extract::<i64>() {
            return Ok(Value::from(v));
        }
        if let Ok(v) = i.extract::<u64>() {
            return Ok(Value::from(v));
        }
        // Beyond 64 bits: a float keeps the magnitude, which is what the keywords compare.
        let v: f64 = i
            .extract()
            .map_err(|_| "an integer too large for JSON".to_owned())?;
        return Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| "an integer too large for JSON".to_owned());
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| format!("{} is not a JSON number", f.value()));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in dict.iter() {
            let key = k
                .cast::<PyString>()
                .map_err(|_| {
                    format!(
                        "the key {} is not a string",
                        k.repr().map(|r| r.to_string()).unwrap_or_default()
                    )
                })?
                .to_string_lossy()
                .into_owned();
            let value = to_value(&v, depth + 1).map_err(|e| format!("{e} (under key {key:?})"))?;
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(list) = obj.cast::<PyList>() {
        return list
            .iter()
            .map(|v| to_value(&v, depth + 1))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return tuple
            .iter()
            .map(|v| to_value(&v, depth + 1))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    let kind = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    Err(format!("a value of type {kind}"))
}
