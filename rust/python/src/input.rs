//! Reading the arguments of the API functions: text inputs and options.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};
use toolwire_core::body::Shape;
use toolwire_core::calls::ErrorPolicy;
use toolwire_core::extract::{RawJsonMode, TextOptions};
use toolwire_core::formats::{Format, FormatSet, ParamTypes};
use toolwire_core::json::ParseOptions;
use toolwire_core::protocol::Protocol;
use toolwire_core::utf8::decode_utf8;

use crate::errors::parse_error;

/// Text given as `str`, `bytes` or `bytearray` (which must be UTF-8), borrowed, not copied.
pub fn with_text<R>(
    input: &Bound<'_, PyAny>,
    what: &str,
    f: impl FnOnce(&str) -> PyResult<R>,
) -> PyResult<R> {
    let py = input.py();
    if let Ok(s) = input.cast::<PyString>() {
        return match s.to_str() {
            Ok(text) => f(text),
            Err(_) => Err(parse_error(
                py,
                &format!("{what} holds lone surrogates and cannot be read as UTF-8"),
                "input",
                0,
                None,
                "",
            )),
        };
    }
    // Bytes are read as `json.loads` reads them: UTF-8, a leading byte order mark skipped.
    let bytes_error = |offset: usize| {
        parse_error(
            py,
            &format!("{what} is not valid UTF-8: invalid byte at byte offset {offset}"),
            "input",
            0,
            None,
            "",
        )
    };
    if let Ok(b) = input.cast::<PyBytes>() {
        return f(decode_utf8(b.as_bytes()).map_err(bytes_error)?);
    }
    if let Ok(b) = input.cast::<PyByteArray>() {
        // A copy: a bytearray may be resized by Python code while borrowed.
        let owned = b.to_vec();
        return f(decode_utf8(&owned).map_err(bytes_error)?);
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be str or bytes, not {}",
        input.get_type().name()?
    )))
}

/// The one wording of a value that is not among its choices (quoted as Python quotes text).
pub fn not_one_of<'a>(
    what: &str,
    choices: impl IntoIterator<Item = &'a str>,
    value: &str,
) -> PyErr {
    let choices: Vec<String> = choices.into_iter().map(quoted).collect();
    PyValueError::new_err(format!(
        "{what} must be one of {}, not {}",
        choices.join(", "),
        quoted(value)
    ))
}

/// `'text'`, escaped for a message.
pub fn quoted(text: &str) -> String {
    format!("'{}'", text.escape_debug())
}

pub fn error_policy(on_error: &str) -> PyResult<ErrorPolicy> {
    ErrorPolicy::parse(on_error)
        .ok_or_else(|| not_one_of("on_error", ["raise", "skip", "keep"], on_error))
}

pub fn raw_json_mode(mode: &str) -> PyResult<RawJsonMode> {
    RawJsonMode::parse(mode)
        .ok_or_else(|| not_one_of("raw_json", ["whole", "fenced", "anywhere"], mode))
}

/// Every name `formats=` accepts (aliases apart): the protocols, then the open-weight formats.
fn all_names() -> impl Iterator<Item = &'static str> {
    Protocol::TEXT
        .into_iter()
        .map(Protocol::as_str)
        .chain(Format::ALL.iter().map(|f| f.as_str()))
}

/// `FORMATS` (the open-weight formats' names, in registry order), `FORMAT_NAMES` (every name
/// `formats=` accepts) and `FORMAT_ALIASES` (each other project's name for a format →
/// toolwire's, or the tuple of toolwire's names an alias of several stands for), all
/// from the core's registry.
pub fn add_format_names(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let names = Format::ALL.iter().map(|f| f.as_str());
    m.add("FORMATS", PyTuple::new(py, names)?)?;
    m.add(
        "FORMAT_NAMES",
        PyTuple::new(py, all_names().collect::<Vec<_>>())?,
    )?;
    let aliases = PyDict::new(py);
    for format in Format::ALL {
        for alias in format.aliases() {
            aliases.set_item(alias, format.as_str())?;
        }
    }
    for (alias, name) in Protocol::text_aliases() {
        aliases.set_item(alias, name)?;
    }
    for (alias, names) in Protocol::alias_sets() {
        aliases.set_item(alias, PyTuple::new(py, names.iter())?)?;
    }
    m.add("FORMAT_ALIASES", aliases)?;
    Ok(())
}

/// Adds the canonical names a protocol or format name stands for to `names`: one, or the set an
/// alias of several names (`xlam`).
fn push_format_names(name: &str, names: &mut Vec<String>) -> PyResult<()> {
    if let Some(set) = Protocol::alias_set(name) {
        names.extend(set.iter().map(|&n| n.to_owned()));
        return Ok(());
    }
    if let Some(protocol) = Protocol::parse_text(name) {
        names.push(protocol.as_str().to_owned());
        return Ok(());
    }
    match Format::parse(name) {
        Some(format) => names.push(format.as_str().to_owned()),
        None => return Err(not_one_of("format", all_names(), name)),
    }
    Ok(())
}

/// The names `formats=` lists, or `None` for `"auto"`. `one_name` also accepts a single name
/// as a string (the `format=` of `parse_text`).
pub fn format_names(formats: &Bound<'_, PyAny>, one_name: bool) -> PyResult<Option<Vec<String>>> {
    if let Ok(s) = formats.cast::<PyString>() {
        let name = s.to_str()?;
        if name == "auto" {
            return Ok(None);
        }
        if one_name {
            let mut names = Vec::new();
            push_format_names(name, &mut names)?;
            return Ok(Some(names));
        }
        return Err(PyValueError::new_err(
            "formats must be 'auto' or a list of format names",
        ));
    }
    let mut names = Vec::new();
    for name in formats.try_iter()? {
        push_format_names(&name?.extract::<String>()?, &mut names)?;
    }
    Ok(Some(names))
}

/// `formats="auto"` or a list of names → which text tiers run.
pub fn text_options<'a>(
    formats: &Bound<'_, PyAny>,
    raw_json: &str,
    repair: bool,
    tools: Option<&'a dyn ParamTypes>,
) -> PyResult<TextOptions<'a>> {
    let mode = raw_json_mode(raw_json)?;
    let json = ParseOptions::model_text(repair);
    let Some(names) = format_names(formats, false)? else {
        return Ok(TextOptions {
            text_tagged: true,
            formats: FormatSet::ALL,
            raw_json: Some(mode),
            json,
            tools,
            starts_in_reasoning: false,
        });
    };
    let formats = names
        .iter()
        .filter_map(|n| Format::parse(n))
        .fold(FormatSet::NONE, FormatSet::with);
    Ok(TextOptions {
        text_tagged: names.iter().any(|n| n == "text_tagged"),
        formats,
        raw_json: names
            .iter()
            .any(|n| n == "raw_json" || n == "llamacpp_generic")
            .then_some(mode),
        json,
        tools,
        starts_in_reasoning: false,
    })
}

/// The text tiers `extract` runs: `formats` (default "auto"), `raw_json` and `repair`.
pub fn extract_text_options<'a>(
    formats: Option<&Bound<'_, PyAny>>,
    raw_json: &str,
    repair: bool,
    tools: Option<&'a dyn ParamTypes>,
) -> PyResult<TextOptions<'a>> {
    match formats {
        Some(formats) => text_options(formats, raw_json, repair, tools),
        None => Ok(TextOptions {
            text_tagged: true,
            formats: FormatSet::ALL,
            raw_json: Some(raw_json_mode(raw_json)?),
            json: ParseOptions::model_text(repair),
            tools,
            starts_in_reasoning: false,
        }),
    }
}

/// `native_tool_calls=True`: the provider calls natively, so the text of a response without
/// structured calls is read for `~~~tool_call` fences only (the seed's fallback for models that
/// ignore the native API); other markup and JSON in it are prose, maybe quoted, never run.
pub fn honour_native_calls(options: &mut TextOptions<'_>, native_tool_calls: Option<bool>) {
    if native_tool_calls == Some(true) {
        options.formats = FormatSet::NONE;
        options.raw_json = None;
    }
}

/// `provider=`: "auto" (any known shape) or the provider whose shape every body must have.
pub fn body_shape(provider: &str) -> PyResult<Shape> {
    Shape::parse(provider)
        .ok_or_else(|| not_one_of("provider", Shape::NAMES.map(|(name, _)| name), provider))
}

/// Runs `f`, turning a Rust panic (a bug) into a `ToolwireError` rather than letting PyO3's
/// `PanicException` (a `BaseException`) reach the caller.
pub fn guarded<R>(py: Python<'_>, f: impl FnOnce() -> PyResult<R>) -> PyResult<R> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(parse_error(
                py,
                &format!("internal error in toolwire (please report it): {detail}"),
                "internal",
                0,
                None,
                "",
            ))
        }
    }
}

/// An object of a provider SDK (the pydantic models of the `openai`, `anthropic`, LiteLLM,
/// `google-genai` or `ollama` packages) as the plain data it holds, found by duck typing so that
/// none of them is imported: `model_dump(mode="json", by_alias=True)` (the API's own field
/// names), else `to_dict()`. A list or tuple gets its items converted. Anything else, plain data
/// included, is returned as it is.
pub fn plain_data<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    // Plain data first: the usual input, and `hasattr` on a dict raises and clears an error.
    if obj.is_instance_of::<PyDict>()
        || obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
        || obj.is_none()
    {
        return Ok(obj.clone());
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'py, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        let plain: Vec<Bound<'py, PyAny>> =
            items.iter().map(plain_data).collect::<PyResult<_>>()?;
        if items.iter().zip(&plain).all(|(a, b)| a.is(b)) {
            return Ok(obj.clone());
        }
        return Ok(PyList::new(obj.py(), plain)?.into_any());
    }
    if obj.hasattr("model_dump")? {
        let kwargs = PyDict::new(obj.py());
        kwargs.set_item("mode", "json")?;
        kwargs.set_item("by_alias", true)?;
        return obj.call_method("model_dump", (), Some(&kwargs));
    }
    if obj.hasattr("to_dict")? {
        return obj.call_method0("to_dict");
    }
    Ok(obj.clone())
}

/// `plain_data` for Python callers (the codecs written in Python).
#[pyfunction]
#[pyo3(signature = (obj, /))]
pub fn sdk_plain_data<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    plain_data(obj)
}
