//! `decode_tool_calls` for the bodies providers actually send: one pass over a well-formed
//! OpenAI Chat, Ollama or Anthropic body or message, straight to `ToolCall`s. Names and ids are
//! the body's own `str` objects, argument strings are parsed straight into Python objects.
//!
//! The rules are those of `toolwire_core::body` and `calls::native_call`, restricted to inputs
//! that give calls without any question: at the first thing that is not plainly well formed
//! (a wrong type, a missing name, bad argument JSON, a numeric id, a tuple, a `str` subclass,
//! lone surrogates) this path gives up (`None`) and the general path decides, so every error,
//! message and path is the general path's.

use std::collections::HashSet;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use toolwire_core::body::Shape;
use toolwire_core::calls::{decode_arguments_text, IDS_COMPARED_ONE_BY_ONE};
use toolwire_core::ids::generate_id;
use toolwire_core::json::ParseOptions;

use crate::builder::PyBuilder;
use crate::types::ToolCall;

/// `None`: not plainly well formed, left to the general path.
type Plain<T> = Option<T>;

/// One decoded call: the id the body gave (if any), the name and the arguments.
struct Decoded<'py> {
    id: Option<Bound<'py, PyString>>,
    name: Bound<'py, PyString>,
    arguments: Bound<'py, PyDict>,
}

/// The calls of a well-formed `body` read as `shape`, or `Ok(None)` for the general path.
/// Only `OpenAIChat`, `Ollama` and `Anthropic` are read here.
pub fn decode_well_formed<'py>(
    body: &Bound<'py, PyAny>,
    shape: Shape,
    options: ParseOptions,
) -> PyResult<Option<Bound<'py, PyList>>> {
    let py = body.py();
    let Ok(body) = body.cast::<PyDict>() else {
        return Ok(None);
    };
    let elements = match shape {
        Shape::OpenAIChat => openai_elements(body),
        Shape::Ollama => ollama_elements(body),
        Shape::Anthropic => anthropic_elements(body),
        _ => None,
    };
    let Some(elements) = elements else {
        return Ok(None);
    };
    if elements.is_empty() {
        return Ok(Some(PyList::empty(py)));
    }
    let mut builder = PyBuilder::new(py);
    let mut decoded = Vec::with_capacity(elements.len());
    for element in &elements {
        match element_call(&mut builder, element, options) {
            Some(call) => decoded.push(call),
            None => return Ok(None),
        }
    }
    drop(builder); // gives the key cache back before any other parse can start
    let ids = assigned_ids(py, &decoded);
    let calls = decoded
        .into_iter()
        .zip(ids)
        .map(|(call, id)| ToolCall::from_parts(id, call.name, call.arguments))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, calls).map(Some)
}

fn member<'py>(dict: &Bound<'py, PyDict>, key: &Bound<'py, PyString>) -> Plain<Bound<'py, PyAny>> {
    // A lookup error (a key whose `__eq__` raises) is left to the general path.
    dict.get_item(key).ok().flatten()
}

fn has(dict: &Bound<'_, PyDict>, key: &Bound<'_, PyString>) -> bool {
    member(dict, key).is_some()
}

/// `body_parts::split_body_as` for OpenAI Chat: `choices[0].message`, or a message.
fn openai_elements<'py>(body: &Bound<'py, PyDict>) -> Plain<Vec<Bound<'py, PyAny>>> {
    let py = body.py();
    match member(body, intern!(py, "choices")) {
        Some(choices) => {
            let choices = choices.cast_exact::<PyList>().ok()?;
            if choices.is_empty() {
                return Some(Vec::new());
            }
            let first = choices.get_item(0).ok()?;
            let message = member(first.cast::<PyDict>().ok()?, intern!(py, "message"))?;
            message_elements(&message)
        }
        None if is_message(body) => message_elements(body),
        None => None,
    }
}

/// Ollama: `message`, or a message.
fn ollama_elements<'py>(body: &Bound<'py, PyDict>) -> Plain<Vec<Bound<'py, PyAny>>> {
    let py = body.py();
    match member(body, intern!(py, "message")) {
        Some(message) => message_elements(&message),
        None if is_message(body) => message_elements(body),
        None => None,
    }
}

fn is_message(body: &Bound<'_, PyDict>) -> bool {
    let py = body.py();
    has(body, intern!(py, "role")) || has(body, intern!(py, "tool_calls"))
}

/// A chat message whose text is a string or null, and its `tool_calls` list.
fn message_elements<'py>(message: &Bound<'py, PyAny>) -> Plain<Vec<Bound<'py, PyAny>>> {
    let py = message.py();
    let message = message.cast::<PyDict>().ok()?;
    let text =
        member(message, intern!(py, "content")).or_else(|| member(message, intern!(py, "text")));
    if let Some(text) = text {
        // Lists of parts have rules of their own: the general path reads them.
        if !(text.is_none() || text.is_instance_of::<PyString>()) {
            return None;
        }
    }
    match member(message, intern!(py, "tool_calls")) {
        None => Some(Vec::new()),
        Some(calls) if calls.is_none() => Some(Vec::new()),
        Some(calls) => Some(calls.cast_exact::<PyList>().ok()?.iter().collect()),
    }
}

/// Anthropic: the `tool_use` blocks of `content`, every `text` block holding a string.
fn anthropic_elements<'py>(body: &Bound<'py, PyDict>) -> Plain<Vec<Bound<'py, PyAny>>> {
    let py = body.py();
    let content = member(body, intern!(py, "content"))?;
    if content.is_none() || content.is_instance_of::<PyString>() {
        return Some(Vec::new());
    }
    let mut calls = Vec::new();
    for block in content.cast_exact::<PyList>().ok()?.iter() {
        let object = block.cast::<PyDict>().ok()?;
        let kind = member(object, intern!(py, "type"));
        match kind
            .as_ref()
            .and_then(|k| k.cast::<PyString>().ok()?.to_str().ok())
        {
            Some("text") if !member(object, intern!(py, "text"))?.is_instance_of::<PyString>() => {
                return None;
            }
            Some("tool_use") => calls.push(block),
            _ => {}
        }
    }
    Some(calls)
}

/// `calls::native_call` for the OpenAI/Ollama shape (`function` beside the id) and for
/// Anthropic `tool_use` blocks.
fn element_call<'py>(
    builder: &mut PyBuilder<'py>,
    element: &Bound<'py, PyAny>,
    options: ParseOptions,
) -> Plain<Decoded<'py>> {
    let py = element.py();
    let element = element.cast::<PyDict>().ok()?;
    if let Some(function) = member(element, intern!(py, "function")) {
        let function = function.cast::<PyDict>().ok()?;
        // The id beside `function` wins over one inside it.
        let id = plain_id(member(element, intern!(py, "id")))?;
        return object_call(builder, function, id, options);
    }
    if let Some(kind) = member(element, intern!(py, "type")) {
        if kind.cast::<PyString>().ok().and_then(|k| k.to_str().ok()) == Some("function_call") {
            return None; // a Responses item: its id is `call_id`
        }
    }
    object_call(builder, element, None, options)
}

/// The keys a call's arguments may be under, in order of preference (`calls::ARGUMENT_KEYS`).
fn argument_keys(py: Python<'_>) -> [&Bound<'_, PyString>; 4] {
    [
        intern!(py, "arguments"),
        intern!(py, "parameters"),
        intern!(py, "input"),
        intern!(py, "args"),
    ]
}

/// `calls::call_from_object`: name, arguments (docs/parsing.md) and id (unless `id` is already
/// known) of a call object.
fn object_call<'py>(
    builder: &mut PyBuilder<'py>,
    object: &Bound<'py, PyDict>,
    id: Option<Bound<'py, PyString>>,
    options: ParseOptions,
) -> Plain<Decoded<'py>> {
    let py = object.py();
    let name = plain_str(member(object, intern!(py, "name"))?)??; // empty: a failure
    let arguments = argument_keys(py)
        .into_iter()
        .find_map(|key| member(object, key));
    let arguments = match arguments {
        None => PyDict::new(py),
        Some(value) if value.is_none() => PyDict::new(py),
        Some(value) => match value.cast_into::<PyDict>() {
            Ok(dict) => dict,
            Err(error) => {
                let text = error.into_inner().cast_into::<PyString>().ok()?;
                let decoded = decode_arguments_text(builder, text.to_str().ok()?, options).ok()?;
                decoded.0.cast_into::<PyDict>().ok()?
            }
        },
    };
    let id = match id {
        Some(id) => Some(id),
        None => plain_id(member(object, intern!(py, "id")))?,
    };
    Some(Decoded {
        id,
        name,
        arguments,
    })
}

/// An exact `str` without lone surrogates, kept as it is (no copy); `Some(None)` when empty.
fn plain_str(value: Bound<'_, PyAny>) -> Plain<Option<Bound<'_, PyString>>> {
    let text = value.cast_into_exact::<PyString>().ok()?;
    let empty = text.to_str().ok()?.is_empty();
    Some((!empty).then_some(text))
}

/// An id member: absent, null and `""` give no id (`Some(None)`); a plain string is the id.
fn plain_id(value: Option<Bound<'_, PyAny>>) -> Plain<Option<Bound<'_, PyString>>> {
    match value {
        None => Some(None),
        Some(value) if value.is_none() => Some(None),
        Some(value) => plain_str(value),
    }
}

/// `calls::assign_ids`: a generated id for each call without one and for each repeat.
fn assigned_ids<'py>(py: Python<'py>, calls: &[Decoded<'py>]) -> Vec<Bound<'py, PyString>> {
    let mut ids: Vec<Bound<'py, PyString>> = Vec::with_capacity(calls.len());
    // Ids are compared as text, one by one and then through a set, as `calls::assign_ids` does.
    let mut seen: Option<HashSet<String>> = None;
    for call in calls {
        let given = call.id.as_ref().filter(|id| {
            let text = id.to_str().unwrap_or_default();
            match &mut seen {
                Some(seen) => seen.insert(text.to_owned()),
                None => !ids.iter().any(|before| before.to_str().ok() == Some(text)),
            }
        });
        let id = match given {
            Some(id) => id.clone(),
            None => {
                let id = generate_id();
                if let Some(seen) = &mut seen {
                    seen.insert(id.clone());
                }
                PyString::new(py, &id)
            }
        };
        ids.push(id);
        if seen.is_none() && ids.len() == IDS_COMPARED_ONE_BY_ONE {
            seen = Some(
                ids.iter()
                    .filter_map(|id| Some(id.to_str().ok()?.to_owned()))
                    .collect(),
            );
        }
    }
    ids
}
