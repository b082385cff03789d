//! `encode_calls` for OpenAI Chat, Anthropic and Ollama (docs/codecs.md): the assistant message
//! holding a list of `ToolCall`s, built in one pass with the calls' own `str` and `dict` objects
//! and the arguments JSON written in Rust.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::codec::compact_json;
use crate::errors::arguments_error;
use crate::input::guarded;
use crate::types::ToolCall;

/// The assistant message holding `calls` (a list or tuple of `ToolCall`) and the text
/// `content`, in the wire format of `provider` ("openai", "anthropic" or "ollama"); `None` for
/// other providers and other kinds of `calls` (the Python codecs take those).
///
/// Raises `ArgumentsError` when OpenAI arguments cannot be written as JSON.
#[pyfunction]
#[pyo3(signature = (calls, provider, content))]
pub fn assistant_message<'py>(
    py: Python<'py>,
    calls: &Bound<'py, PyAny>,
    provider: &str,
    content: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    guarded(py, || {
        let elements: Vec<Bound<'py, PyAny>> = if let Ok(list) = calls.cast_exact::<PyList>() {
            list.iter().collect()
        } else if let Ok(tuple) = calls.cast_exact::<PyTuple>() {
            tuple.iter().collect()
        } else {
            return Ok(None);
        };
        let Some(calls) = elements
            .into_iter()
            .map(|call| call.cast_into::<ToolCall>().ok())
            .collect::<Option<Vec<_>>>()
        else {
            return Ok(None);
        };
        match provider {
            "openai" => openai(py, &calls, content).map(Some),
            "anthropic" => anthropic(py, &calls, content).map(Some),
            "ollama" => ollama(py, &calls, content).map(Some),
            _ => Ok(None),
        }
    })
}

/// `{"role": "assistant", "content": content, "tool_calls"?: [{"id", "type": "function",
/// "function": {"name", "arguments": JSON text}}]}`; no `tool_calls` without calls (the API
/// refuses an empty list).
fn openai<'py>(
    py: Python<'py>,
    calls: &[Bound<'py, ToolCall>],
    content: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let message = assistant(py, content)?;
    if !calls.is_empty() {
        let items = calls
            .iter()
            .map(|call| {
                let call = call.get();
                let name = call.name.bind(py);
                let arguments =
                    compact_json(call.arguments.bind(py)).map_err(|e| unwritable(name, e))?;
                let function = PyDict::new(py);
                function.set_item(intern!(py, "name"), name)?;
                function.set_item(intern!(py, "arguments"), arguments)?;
                let item = PyDict::new(py);
                item.set_item(intern!(py, "id"), call.id.bind(py))?;
                item.set_item(intern!(py, "type"), intern!(py, "function"))?;
                item.set_item(intern!(py, "function"), function)?;
                Ok(item)
            })
            .collect::<PyResult<Vec<_>>>()?;
        message.set_item(intern!(py, "tool_calls"), PyList::new(py, items)?)?;
    }
    Ok(message)
}

/// `{"role": "assistant", "content": [{"type": "text", "text": content}?, {"type":
/// "tool_use", "id", "name", "input"}...]}`; the text block only for non-empty text.
fn anthropic<'py>(
    py: Python<'py>,
    calls: &[Bound<'py, ToolCall>],
    content: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let blocks = PyList::empty(py);
    if content.is_truthy()? {
        let text = PyDict::new(py);
        text.set_item(intern!(py, "type"), intern!(py, "text"))?;
        text.set_item(intern!(py, "text"), content)?;
        blocks.append(text)?;
    }
    for call in calls {
        let call = call.get();
        let block = PyDict::new(py);
        block.set_item(intern!(py, "type"), intern!(py, "tool_use"))?;
        block.set_item(intern!(py, "id"), call.id.bind(py))?;
        block.set_item(intern!(py, "name"), call.name.bind(py))?;
        block.set_item(intern!(py, "input"), call.arguments.bind(py))?;
        blocks.append(block)?;
    }
    let message = PyDict::new(py);
    message.set_item(intern!(py, "role"), intern!(py, "assistant"))?;
    message.set_item(intern!(py, "content"), blocks)?;
    Ok(message)
}

/// `{"role": "assistant", "content": content or "", "tool_calls"?: [{"function": {"name",
/// "arguments": dict}}]}`.
fn ollama<'py>(
    py: Python<'py>,
    calls: &[Bound<'py, ToolCall>],
    content: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let text = if content.is_truthy()? {
        content.clone()
    } else {
        intern!(py, "").clone().into_any()
    };
    let message = assistant(py, &text)?;
    if !calls.is_empty() {
        let items = calls
            .iter()
            .map(|call| {
                let call = call.get();
                let function = PyDict::new(py);
                function.set_item(intern!(py, "name"), call.name.bind(py))?;
                function.set_item(intern!(py, "arguments"), call.arguments.bind(py))?;
                let item = PyDict::new(py);
                item.set_item(intern!(py, "function"), function)?;
                Ok(item)
            })
            .collect::<PyResult<Vec<_>>>()?;
        message.set_item(intern!(py, "tool_calls"), PyList::new(py, items)?)?;
    }
    Ok(message)
}

/// The `ArgumentsError` for arguments `json.dumps` would refuse (`error`: its TypeError or
/// ValueError).
fn unwritable(name: &Bound<'_, PyString>, error: PyErr) -> PyErr {
    let py = name.py();
    match (name.repr(), error.value(py).str()) {
        (Ok(name), Ok(error)) => arguments_error(
            py,
            &format!("the arguments of {name} cannot be written as JSON: {error}"),
            None,
        ),
        _ => error,
    }
}

/// `{"role": "assistant", "content": content}`.
fn assistant<'py>(py: Python<'py>, content: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let message = PyDict::new(py);
    message.set_item(intern!(py, "role"), intern!(py, "assistant"))?;
    message.set_item(intern!(py, "content"), content)?;
    Ok(message)
}
