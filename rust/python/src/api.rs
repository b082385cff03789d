//! The parsing functions exported to Python.

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};
use toolwire_core::body::{extract_body_as, BodyError, Shape};
use toolwire_core::calls::{apply_policy, parse_native as core_parse_native, ErrorPolicy, Outcome};
use toolwire_core::extract::{extract_text, TextOptions};
use toolwire_core::finish_outcomes;
use toolwire_core::formats::{FormatSet, ParamTypes};
use toolwire_core::json::{parse, ParseError, ParseOptions};
use toolwire_core::position::CharOffsets;

use crate::builder::PyBuilder;
use crate::errors::{
    arguments_error, invalid_call_error, json_decode_error, provider_format_error,
};
use crate::input::{error_policy, extract_text_options, guarded, raw_json_mode, with_text};
use crate::tool_defs::ToolDefs;
use crate::types::{InvalidToolCall, ToolCall};
use crate::view::PyJson;

/// Outcomes → the Python list the API returns, under the error policy. Call names come from
/// the builder's key cache: a response's tool names repeat across responses.
pub(crate) fn calls_list<'py>(
    builder: &mut PyBuilder<'py>,
    outcomes: Vec<Outcome<PyJson<'py>>>,
    policy: ErrorPolicy,
) -> PyResult<Bound<'py, PyList>> {
    let py = builder.py();
    let outcomes =
        apply_policy(outcomes, policy).map_err(|invalid| invalid_call_error(py, &invalid))?;
    let list = PyList::empty(py);
    for outcome in outcomes {
        match outcome {
            Outcome::Call(call) => list.append(ToolCall::from_call(builder, call)?)?,
            Outcome::Invalid(invalid) => {
                list.append(InvalidToolCall::from_invalid(py, &invalid)?)?
            }
        }
    }
    Ok(list)
}

/// Text-tier outcomes for `text`, finished (offsets, ids).
fn text_calls<'py>(
    py: Python<'py>,
    text: &str,
    options: &TextOptions<'_>,
    policy: ErrorPolicy,
) -> PyResult<Bound<'py, PyList>> {
    let mut builder = PyBuilder::new(py);
    let mut outcomes = extract_text(&mut builder, text, options)?;
    finish_outcomes(text, &mut outcomes);
    calls_list(&mut builder, outcomes, policy)
}

/// A fresh call id (§1): `call_` and 12 URL-safe base64 characters of OS randomness.
#[pyfunction]
pub fn new_call_id() -> String {
    toolwire_core::ids::generate_id()
}

/// Decode JSON text (str or bytes) into Python objects, exactly as `json.loads` does, but
/// strict RFC 8259 (no NaN/Infinity) and limited to 256 levels of nesting.
///
/// Raises `toolwire.JSONDecodeError` (a `json.JSONDecodeError` and a `ToolwireError`).
#[pyfunction]
#[pyo3(signature = (data, /))]
pub fn loads<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    guarded(py, || {
        with_text(data, "JSON input", |text| {
            let mut builder = PyBuilder::new(py);
            match parse(text, &mut builder, ParseOptions::default()) {
                Ok(value) => Ok(value.0),
                Err(ParseError::Build(e)) => Err(e),
                Err(ParseError::Syntax(e)) => {
                    let offset = CharOffsets::new(text).char_offset(e.offset);
                    Err(json_decode_error(py, e.kind.message(), text, offset))
                }
            }
        })
    })
}

/// Normalise one arguments value to a dict (§3): a dict is kept, JSON text is decoded
/// (double-encoded text once more), `None`/`""` give `{}`; anything else raises
/// `ArgumentsError`.
#[pyfunction]
#[pyo3(signature = (arguments, /, *, repair = false))]
pub fn decode_arguments<'py>(
    py: Python<'py>,
    arguments: Bound<'py, PyAny>,
    repair: bool,
) -> PyResult<Bound<'py, PyAny>> {
    guarded(py, || {
        let mut builder = PyBuilder::new(py);
        match toolwire_core::calls::normalize_arguments(
            &mut builder,
            Some(PyJson(arguments.clone())),
            ParseOptions { lenient: repair },
        ) {
            Ok(value) => Ok(value.0),
            Err(failure) => Err(failure.build.unwrap_or_else(|| {
                let raw = arguments.str().map(|s| s.to_string_lossy().into_owned());
                arguments_error(py, &failure.detail, raw.ok().as_deref())
            })),
        }
    })
}

fn native_list<'py>(py: Python<'py>, calls: &Bound<'py, PyAny>) -> PyResult<Vec<PyJson<'py>>> {
    let items: Vec<Bound<'py, PyAny>> = if let Ok(list) = calls.cast::<PyList>() {
        list.iter().collect()
    } else if let Ok(tuple) = calls.cast::<PyTuple>() {
        tuple.iter().collect()
    } else {
        return Err(provider_format_error(
            py,
            &format!(
                "tool calls must be a list, not {}",
                calls.get_type().name()?
            ),
            "",
        ));
    };
    items
        .into_iter()
        .map(|item| match item.cast::<ToolCall>() {
            // A ToolCall passes through (as its dict, so ids stay unique in the response).
            Ok(call) => Ok(PyJson(call.call_method0("to_dict")?)),
            Err(_) => Ok(PyJson(item)),
        })
        .collect()
}

/// Parse structured provider calls (§4.1): OpenAI/Ollama `{"function": …}`, Anthropic
/// `tool_use` blocks, pre-parsed `{"name", "arguments"}`, or `ToolCall`s.
#[pyfunction]
#[pyo3(signature = (calls, /, *, repair = false, on_error = "raise"))]
pub fn parse_native<'py>(
    py: Python<'py>,
    calls: &Bound<'py, PyAny>,
    repair: bool,
    on_error: &str,
) -> PyResult<Bound<'py, PyList>> {
    guarded(py, || {
        let policy = error_policy(on_error)?;
        let elements = native_list(py, calls)?;
        let mut builder = PyBuilder::new(py);
        let mut outcomes =
            core_parse_native(&mut builder, &elements, ParseOptions { lenient: repair })?;
        finish_outcomes("", &mut outcomes);
        calls_list(&mut builder, outcomes, policy)
    })
}

/// Parse `~~~tool_call` fenced blocks (§4.2).
#[pyfunction]
#[pyo3(signature = (text, /, *, repair = false, on_error = "raise"))]
pub fn parse_text_tagged<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    repair: bool,
    on_error: &str,
) -> PyResult<Bound<'py, PyList>> {
    guarded(py, || {
        let policy = error_policy(on_error)?;
        let options = TextOptions {
            text_tagged: true,
            raw_json: None,
            formats: FormatSet::NONE,
            json: ParseOptions { lenient: repair },
            tools: None,
        };
        with_text(text, "text", |text| text_calls(py, text, &options, policy))
    })
}

/// Parse bare JSON calls from weak models (§4.3); `mode` is "whole", "fenced" or "anywhere".
#[pyfunction]
#[pyo3(signature = (text, /, *, mode = "fenced", repair = false, on_error = "raise"))]
pub fn parse_raw_json<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    mode: &str,
    repair: bool,
    on_error: &str,
) -> PyResult<Bound<'py, PyList>> {
    guarded(py, || {
        let policy = error_policy(on_error)?;
        let options = TextOptions {
            text_tagged: false,
            raw_json: Some(raw_json_mode(mode)?),
            formats: FormatSet::NONE,
            json: ParseOptions { lenient: repair },
            tools: None,
        };
        with_text(text, "text", |text| text_calls(py, text, &options, policy))
    })
}

/// Extract the tool calls of any response (§4.4): model text, a `{"text", "tool_calls"}`
/// mapping, a list of structured calls, or a full OpenAI Chat / Responses, Anthropic, Ollama or
/// Gemini body. Always a list.
#[pyfunction]
#[pyo3(signature = (
    response, /, *, native_tool_calls = None, formats = None, raw_json = "fenced",
    repair = false, on_error = "raise", tools = None
))]
#[allow(clippy::too_many_arguments)]
pub fn extract<'py>(
    py: Python<'py>,
    response: &Bound<'py, PyAny>,
    native_tool_calls: Option<bool>,
    formats: Option<&Bound<'py, PyAny>>,
    raw_json: &str,
    repair: bool,
    on_error: &str,
    tools: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    guarded(py, || {
        let policy = error_policy(on_error)?;
        let tools = ToolDefs::read(tools)?;
        let tools = tools.as_ref().map(|t| t as &dyn ParamTypes);
        let mut options = extract_text_options(formats, raw_json, repair, tools)?;
        if native_tool_calls == Some(true) {
            // The provider calls natively: the text of a response that has no structured calls
            // is read for `~~~tool_call` fences only (the seed's fallback for models that ignore
            // the native API); other markup and JSON in it are prose, maybe quoted, never run.
            options.formats = FormatSet::NONE;
            options.raw_json = None;
        }
        extract_any(py, response, &options, Shape::Auto, policy)
    })
}

/// §4.4 dispatch on a Python response: model text, a list of structured calls, or a mapping
/// (a body, read as `shape`: any known shape for `Shape::Auto`).
pub fn extract_any<'py>(
    py: Python<'py>,
    response: &Bound<'py, PyAny>,
    options: &TextOptions,
    shape: Shape,
    policy: ErrorPolicy,
) -> PyResult<Bound<'py, PyList>> {
    let is_text = response.is_instance_of::<PyString>()
        || response.is_instance_of::<PyBytes>()
        || response.is_instance_of::<PyByteArray>();
    if is_text && shape == Shape::Auto {
        return with_text(response, "response", |text| {
            text_calls(py, text, options, policy)
        });
    }
    if shape == Shape::Auto
        && (response.is_instance_of::<PyList>() || response.is_instance_of::<PyTuple>())
    {
        let elements = native_list(py, response)?;
        let mut builder = PyBuilder::new(py);
        let mut outcomes = core_parse_native(&mut builder, &elements, options.json)?;
        finish_outcomes("", &mut outcomes);
        return calls_list(&mut builder, outcomes, policy);
    }
    if shape != Shape::Auto || response.is_instance_of::<PyDict>() || response.hasattr("keys")? {
        let body = if response.is_instance_of::<PyDict>() || !response.hasattr("keys")? {
            response.clone()
        } else {
            PyDict::from_sequence(&response.call_method0("items")?)?.into_any()
        };
        let mut builder = PyBuilder::new(py);
        return match extract_body_as(&mut builder, &PyJson(body), options, shape) {
            Ok(outcomes) => calls_list(&mut builder, outcomes, policy),
            Err(BodyError::Build(e)) => Err(e),
            Err(BodyError::Format(e)) => Err(provider_format_error(py, &e.message, &e.path)),
        };
    }
    let kind = response.get_type().name()?;
    Err(provider_format_error(
        py,
        &format!("a response must be text, a mapping or a list of calls, not {kind}"),
        "",
    ))
}
