//! `parse_text` and its result, `Parsed`: native for the same reason as the call types (a
//! Python dataclass and wrapper cost a third of the parse on short messages).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};
use pyo3::IntoPyObjectExt;
use toolwire_core::formats::ParamTypes;
use toolwire_core::json::ParseOptions;
use toolwire_core::stream::{parse_text_with_tools, StreamOptions};

use crate::api::calls_list;
use crate::builder::PyBuilder;
use crate::gateway::Gateway;
use crate::input::{error_policy, guarded, with_text};
use crate::stream::{policy_label, stream_options};
use crate::tool_defs::ToolDefs;
use crate::types::{InvalidToolCall, ToolCall};

/// Model text split into plain `content`, `calls` and `reasoning`.
///
/// >>> Parsed("Sure.", [ToolCall("call_1", "f", {})])
/// Parsed(content='Sure.', calls=[ToolCall(id='call_1', name='f', arguments={})], reasoning=None)
#[pyclass(frozen, module = "toolwire", name = "Parsed")]
pub struct Parsed {
    #[pyo3(get)]
    content: Py<PyString>,
    #[pyo3(get)]
    calls: Py<PyList>,
    #[pyo3(get)]
    reasoning: Option<Py<PyString>>,
}

impl Parsed {
    fn fields<'py>(&self, py: Python<'py>) -> [Bound<'py, PyAny>; 3] {
        [
            self.content.bind(py).clone().into_any(),
            self.calls.bind(py).clone().into_any(),
            self.reasoning.as_ref().map_or_else(
                || py.None().into_bound(py),
                |r| r.bind(py).clone().into_any(),
            ),
        ]
    }
}

#[pymethods]
impl Parsed {
    #[new]
    #[pyo3(signature = (content, calls, reasoning=None))]
    fn new(
        content: Bound<'_, PyString>,
        calls: Bound<'_, PyList>,
        reasoning: Option<Bound<'_, PyString>>,
    ) -> Self {
        Parsed {
            content: content.unbind(),
            calls: calls.unbind(),
            reasoning: reasoning.map(Bound::unbind),
        }
    }

    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("content", "calls", "reasoning")
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let [content, calls, reasoning] = self.fields(py);
        Ok(format!(
            "Parsed(content={}, calls={}, reasoning={})",
            content.repr()?,
            calls.repr()?,
            reasoning.repr()?
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = other.cast::<Parsed>() else {
            return Ok(py.NotImplemented());
        };
        let mut equal = true;
        for (mine, theirs) in self.fields(py).iter().zip(other.get().fields(py)) {
            equal = equal && mine.eq(theirs)?;
        }
        equal.into_py_any(py)
    }

    #[classattr]
    fn __hash__(py: Python<'_>) -> Py<PyAny> {
        // Equal by value but holding a list: unhashable.
        py.None()
    }

    /// A plain JSON-ready dict: `{"content", "calls", "reasoning"}`, each call as its
    /// `to_dict()`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let [content, calls, reasoning] = self.fields(py);
        let dicts = PyList::empty(py);
        for call in calls.try_iter()? {
            dicts.append(call?.call_method0("to_dict")?)?;
        }
        let dict = PyDict::new(py);
        dict.set_item("content", content)?;
        dict.set_item("calls", dicts)?;
        dict.set_item("reasoning", reasoning)?;
        Ok(dict)
    }

    /// The inverse of `to_dict`: the parsed text `data` holds (a call dict with an `"error"`
    /// key is an `InvalidToolCall`).
    #[classmethod]
    fn from_dict<'py>(
        cls: &Bound<'py, PyType>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = cls.py();
        // Any mapping: read through its `get`, as the dataclass this replaces did.
        let get = |key: &str| data.call_method1("get", (key,));
        let calls = PyList::empty(py);
        let items = get("calls")?;
        if !items.is_none() {
            for item in items.try_iter()? {
                let item = item?;
                let call = if item.contains("error")? {
                    py.get_type::<InvalidToolCall>()
                        .call_method1("from_dict", (item,))?
                } else {
                    py.get_type::<ToolCall>()
                        .call_method1("from_dict", (item,))?
                };
                calls.append(call)?;
            }
        }
        let content = data.call_method1("get", ("content", ""))?;
        cls.call1((content, calls, get("reasoning")?))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let args = PyTuple::new(py, self.fields(py))?;
        PyTuple::new(py, [py.get_type::<Parsed>().into_any(), args.into_any()])
    }
}

/// Split model text into its plain `content`, its `calls` and its `reasoning`.
///
/// This is `StreamParser` fed the whole text at once, then finished, with the events collected:
/// streaming a text and parsing it whole always agree.
///
/// * `text`: the model's output, `str` or UTF-8 `bytes`.
/// * `format`: `"auto"` (every format, recognised from the text), or a format name
///   (`"text_tagged"`, `"raw_json"`, or one of `toolwire.FORMATS`, or an alias), or a list of them.
/// * `on_error`: `"keep"` (default, as for `StreamParser`: a broken call is an `InvalidToolCall`
///   in `calls`), `"skip"` (dropped) or `"raise"` (the first one raises).
/// * `calls_in_reasoning`: whether calls written inside a think span are read (default) or
///   part of the reasoning. Read, they are returned only when the text has no call outside
///   think spans: a draft in the reasoning followed by the call gives the call once
///   (docs/formats.md, "Calls in reasoning").
/// * `starts_in_reasoning`: the prompt opened a think span (a chat template that ends with
///   `<think>`, as DeepSeek-R1's and Qwen3's thinking templates do): the text is reasoning up
///   to its first closing think tag (an opening tag the model writes first is dropped), all of
///   it when none comes.
/// * `tools`: tool definitions (`Tool`s or provider tool dicts) whose schemas type the values of
///   the XML-style formats (qwen3_coder, glm45, …), which are text on the wire.
/// * `unknown_tools`: what a call to a name that is not among `tools` becomes: `"keep"` (the
///   default: returned as written), `"invalid"` (an `InvalidToolCall` saying so) or `"drop"`
///   (left out); the last two need `tools`.
/// * `repair`: accept the JSON mistakes models make (trailing commas, single quotes,
///   `True`/`False`/`None`, unquoted keys, brackets left open at the end), as `extract` does.
///
/// >>> parsed = parse_text('<think>Paris?</think>Sure.\n~~~tool_call\n'
/// ...                     '{"name": "get_weather", "arguments": {"city": "Paris"}}\n~~~\n')
/// >>> parsed.content, parsed.reasoning, parsed.calls[0].arguments
/// ('Sure.\n', 'Paris?', {'city': 'Paris'})
#[pyfunction]
#[pyo3(
    signature = (text, format = None, *, on_error = "keep", calls_in_reasoning = true, tools = None, unknown_tools = "keep", starts_in_reasoning = false, repair = false),
    text_signature = "(text, format='auto', *, on_error='keep', calls_in_reasoning=True, tools=None, unknown_tools='keep', starts_in_reasoning=False, repair=False)"
)]
#[allow(clippy::too_many_arguments)]
pub fn parse_text<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    format: Option<&Bound<'py, PyAny>>,
    on_error: &str,
    calls_in_reasoning: bool,
    tools: Option<&Bound<'py, PyAny>>,
    unknown_tools: &str,
    starts_in_reasoning: bool,
    repair: bool,
) -> PyResult<Bound<'py, Parsed>> {
    guarded(py, || {
        let policy = error_policy(on_error)?;
        let auto = PyString::new(py, "auto");
        let options = StreamOptions {
            starts_in_reasoning,
            json: ParseOptions::model_text(repair),
            ..stream_options(format.unwrap_or(&auto), true, calls_in_reasoning)?
        };
        let mut gateway = Gateway::new("eager", unknown_tools, tools, policy_label(&options))?;
        // Read in place, as `extract` does: a stream's owned copy of the schemas is not needed
        // for one pass.
        let defs = ToolDefs::read(tools)?;
        with_text(text, "text", |text| {
            let mut builder = PyBuilder::new(py);
            let tools = defs.as_ref().map(|t| t as &dyn ParamTypes);
            let parsed = parse_text_with_tools(&mut builder, text, options, tools)?;
            let outcomes = gateway.filter_outcomes(parsed.calls);
            let calls = calls_list(&mut builder, outcomes, policy)?;
            let parsed = Parsed {
                content: PyString::new(py, &parsed.content).unbind(),
                calls: calls.unbind(),
                reasoning: parsed.reasoning.map(|r| PyString::new(py, &r).unbind()),
            };
            Bound::new(py, parsed)
        })
    })
}
