//! The parsing functions exported to Python.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};
use toolwire_core::body::{extract_body_as, is_content_block_list, BodyError, FormatError, Shape};
use toolwire_core::calls::{
    apply_policy, parse_native as core_parse_native, ErrorPolicy, Outcome, Protocol,
};
use toolwire_core::extract::{extract_text, TextOptions};
use toolwire_core::finish_outcomes;
use toolwire_core::formats::{FormatSet, ParamTypes};
use toolwire_core::json::{parse, ParseError, ParseOptions};
use toolwire_core::position::CharOffsets;
use toolwire_core::text_body::body_in_text;

use crate::builder::PyBuilder;
use crate::errors::{
    arguments_error, invalid_call_error, json_decode_error, provider_format_error,
};
use crate::gateway::Gateway;
use crate::input::{
    error_policy, extract_text_options, guarded, honour_native_calls, plain_data, raw_json_mode,
    with_text,
};
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

/// A fresh call id (docs/parsing.md): `call_` and 12 URL-safe base64 characters of OS randomness.
#[pyfunction]
pub fn new_call_id() -> String {
    toolwire_core::ids::generate_id()
}

/// Decode `data`, JSON text (str or UTF-8 bytes), into Python objects, exactly as
/// `json.loads` does, but strict RFC 8259 (no NaN/Infinity) and limited to 256 levels of
/// nesting.
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
                Err(ParseError::Build(e)) => Err(e.into()),
                Err(ParseError::Syntax(e)) => {
                    let offset = CharOffsets::new(text).char_offset(e.offset);
                    Err(json_decode_error(py, &e.kind.message(), text, offset))
                }
            }
        })
    })
}

/// Normalise `arguments`, one call's arguments value, to a dict: a dict is kept, JSON text is
/// decoded (double-encoded text once more), `None`/`""` give `{}`; anything else raises
/// `ArgumentsError`. `repair=True` accepts the JSON mistakes models make (trailing commas,
/// single quotes, Python literals, unquoted keys, missing closing brackets at the end).
/// See docs/parsing.md.
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
            ParseOptions::json(repair),
        ) {
            Ok(value) => Ok(value.0),
            Err(failure) => Err(match failure.build {
                Some(e) => e.into(),
                None => {
                    let raw = arguments.str().map(|s| s.to_string_lossy().into_owned());
                    arguments_error(py, &failure.detail, raw.ok().as_deref())
                }
            }),
        }
    })
}

fn native_list<'py>(calls: &Bound<'py, PyAny>) -> PyResult<Vec<PyJson<'py>>> {
    let items: Vec<Bound<'py, PyAny>> = if let Ok(list) = calls.cast::<PyList>() {
        list.iter().collect()
    } else if let Ok(tuple) = calls.cast::<PyTuple>() {
        tuple.iter().collect()
    } else {
        return Err(PyTypeError::new_err(format!(
            "tool calls must be a list, not {}",
            calls.get_type().name()?
        )));
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

/// Parse `calls`, a list of structured provider calls: OpenAI/Ollama `{"function": …}`,
/// Anthropic `tool_use` blocks, OpenAI Responses `function_call` items, Gemini `functionCall`
/// parts, pre-parsed `{"name", "arguments"}`, or `ToolCall`s.
///
/// `repair=True` accepts the JSON mistakes models make in argument text. `on_error` says what
/// a call that cannot be read becomes: "raise" (the default) raises `ToolCallParseError`,
/// "skip" drops it, "keep" returns an `InvalidToolCall` in its place. See docs/parsing.md.
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
        let elements = native_list(&plain_data(calls)?)?;
        let mut builder = PyBuilder::new(py);
        let mut outcomes = core_parse_native(&mut builder, &elements, ParseOptions::json(repair))?;
        finish_outcomes("", &mut outcomes);
        calls_list(&mut builder, outcomes, policy)
    })
}

/// Parse the `~~~tool_call` fenced blocks of `text` (str or UTF-8 bytes).
///
/// `repair=True` accepts the JSON mistakes models make. `on_error` says what a call that
/// cannot be read becomes: "raise" (the default) raises `ToolCallParseError`, "skip" drops
/// it, "keep" returns an `InvalidToolCall` in its place. See docs/parsing.md.
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
            json: ParseOptions::model_text(repair),
            tools: None,
            starts_in_reasoning: false,
        };
        with_text(text, "text", |text| text_calls(py, text, &options, policy))
    })
}

/// Parse the calls written as bare JSON in `text` (str or UTF-8 bytes), as weak models do.
///
/// `mode` says where a call may be: "whole" (the whole message), "fenced" (the default: the
/// whole message or a ```json fence) or "anywhere" (every balanced `{…}`/`[…]` span).
/// `repair=True` accepts the JSON mistakes models make. `on_error` says what a call that
/// cannot be read becomes: "raise" (the default), "skip" or "keep". See docs/parsing.md.
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
            json: ParseOptions::model_text(repair),
            tools: None,
            starts_in_reasoning: false,
        };
        with_text(text, "text", |text| text_calls(py, text, &options, policy))
    })
}

/// Extract the tool calls of any `response`: model text (str or UTF-8 bytes), a
/// `{"text", "tool_calls"}` mapping, a list of structured calls, a full OpenAI Chat /
/// Responses, Anthropic, Ollama or Gemini body, or an SDK object. Always a list.
///
/// Structured calls win; otherwise the text tiers run in order (`~~~tool_call` blocks, the
/// open-weight formats, bare JSON) and the first that finds a call wins.
/// `native_tool_calls=True` says the provider calls tools natively: the text of a response
/// without structured calls is read for `~~~tool_call` fences only, and other markup in it is
/// prose; None (the default) and False read every tier. `formats` restricts the open-weight
/// tier ("auto", the default, or a list of names and aliases); `raw_json` is the bare-JSON
/// mode ("whole", "fenced", "anywhere"); `repair=True` accepts the JSON mistakes models make;
/// `on_error` is "raise" (the default), "skip" or "keep"; `tools` (tool definitions) types the
/// raw-text values of the XML-style formats; `unknown_tools` says what a call to a name not
/// among `tools` becomes: "keep" (the default), "invalid" (an `InvalidToolCall` saying so) or
/// "drop"; `starts_in_reasoning=True` says the prompt opened a think span (a chat template that
/// ends with `<think>`): the text is reasoning up to its first closing think tag. See
/// docs/parsing.md.
#[pyfunction]
#[pyo3(signature = (
    response, /, *, native_tool_calls = None, formats = None, raw_json = "fenced",
    repair = false, on_error = "raise", tools = None, unknown_tools = "keep",
    starts_in_reasoning = false
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
    unknown_tools: &str,
    starts_in_reasoning: bool,
) -> PyResult<Bound<'py, PyList>> {
    guarded(py, || {
        let policy = error_policy(on_error)?;
        let mut gateway = Gateway::new("eager", unknown_tools, tools, Protocol::Native)?;
        let tools = ToolDefs::read(tools)?;
        let tools = tools.as_ref().map(|t| t as &dyn ParamTypes);
        let mut options = extract_text_options(formats, raw_json, repair, tools)?;
        honour_native_calls(&mut options, native_tool_calls);
        options.starts_in_reasoning = starts_in_reasoning;
        extract_any(
            py,
            &plain_data(response)?,
            &options,
            Shape::Auto,
            policy,
            &mut gateway,
        )
    })
}

/// `extract`'s dispatch on a Python response: model text, a list of structured calls, or a mapping
/// (a body, read as `shape`: any known shape for `Shape::Auto`). A body of the wrong shape
/// raises `ProviderFormatError`, except one given as JSON text, which `policy` treats as a
/// bad call (kept as an `InvalidToolCall` with protocol `"body"`, skipped, or raised).
pub fn extract_any<'py>(
    py: Python<'py>,
    response: &Bound<'py, PyAny>,
    options: &TextOptions,
    shape: Shape,
    policy: ErrorPolicy,
    gateway: &mut Gateway,
) -> PyResult<Bound<'py, PyList>> {
    let mut builder = PyBuilder::new(py);
    match response_outcomes(&mut builder, response, options, shape)? {
        Ok(outcomes) => {
            let outcomes = gateway.filter_outcomes(outcomes);
            calls_list(&mut builder, outcomes, policy)
        }
        Err(NotAResponse {
            error,
            text: Some(text),
        }) if policy != ErrorPolicy::Raise => {
            drop(builder);
            let kept = InvalidToolCall::bad_input(py, &text, &error.message, None)?;
            PyList::new(py, (policy == ErrorPolicy::Keep).then_some(kept))
        }
        Err(NotAResponse { error, .. }) => {
            Err(provider_format_error(py, &error.message, &error.path))
        }
    }
}

/// A response that is not one: a body of the wrong shape, and its text when it was given as
/// JSON text.
pub(crate) struct NotAResponse {
    pub error: FormatError,
    pub text: Option<String>,
}

/// The outcomes of a Python response (see [`extract_any`]), finished (offsets, ids).
pub(crate) fn response_outcomes<'py>(
    builder: &mut PyBuilder<'py>,
    response: &Bound<'py, PyAny>,
    options: &TextOptions,
    shape: Shape,
) -> PyResult<Result<Vec<Outcome<PyJson<'py>>>, NotAResponse>> {
    let is_text = response.is_instance_of::<PyString>()
        || response.is_instance_of::<PyBytes>()
        || response.is_instance_of::<PyByteArray>();
    if is_text {
        let read = with_text(response, "response", |text| {
            // A body written as JSON text is read as that body.
            let Some(body) = body_in_text(builder, text, shape)? else {
                if shape != Shape::Auto {
                    return Ok(None);
                }
                let mut outcomes = extract_text(builder, text, options)?;
                finish_outcomes(text, &mut outcomes);
                return Ok(Some(Ok(outcomes)));
            };
            Ok(Some(
                body_outcomes(builder, &body, options, shape)?.map_err(|error| NotAResponse {
                    error,
                    text: Some(text.to_owned()),
                }),
            ))
        })?;
        if let Some(read) = read {
            return Ok(read);
        }
    }
    if shape == Shape::Auto
        && (response.is_instance_of::<PyList>() || response.is_instance_of::<PyTuple>())
        && !is_content_block_list(&PyJson(response.clone()))
    {
        let elements = native_list(response)?;
        let mut outcomes = core_parse_native(builder, &elements, options.json)?;
        finish_outcomes("", &mut outcomes);
        return Ok(Ok(outcomes));
    }
    let is_list = response.is_instance_of::<PyList>() || response.is_instance_of::<PyTuple>();
    if is_text || is_list || response.is_instance_of::<PyDict>() || response.hasattr("keys")? {
        // A list here is an Anthropic block list, or a list `shape` reads (Responses items).
        let body = if is_text || is_list || response.is_instance_of::<PyDict>() {
            response.clone()
        } else {
            PyDict::from_sequence(&response.call_method0("items")?)?.into_any()
        };
        return Ok(body_outcomes(builder, &PyJson(body), options, shape)?
            .map_err(|error| NotAResponse { error, text: None }));
    }
    Err(PyTypeError::new_err(format!(
        "a response must be text, a mapping or a list of calls, not {}",
        response.get_type().name()?
    )))
}

/// A body's outcomes, or why it is not a body of `shape`.
fn body_outcomes<'py>(
    builder: &mut PyBuilder<'py>,
    body: &PyJson<'py>,
    options: &TextOptions,
    shape: Shape,
) -> PyResult<Result<Vec<Outcome<PyJson<'py>>>, FormatError>> {
    match extract_body_as(builder, body, options, shape) {
        Ok(outcomes) => Ok(Ok(outcomes)),
        Err(BodyError::Build(e)) => Err(e.into()),
        Err(BodyError::Format(e)) => Ok(Err(e)),
    }
}
