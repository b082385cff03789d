//! The gateway policies as Python options (`release=`, `unknown_tools=`, with the `tools=` they
//! are checked against), applied by the core's [`Gate`] to the events of a stream parser, an
//! accumulator or a translation.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use toolwire_core::calls::{Outcome, Protocol};
use toolwire_core::gate::{Gate, Policy, Release, ToolCheck, UnknownTools};
use toolwire_core::stream::Event;
use toolwire_core::validate::ArgumentValidator;

use crate::codec::compact_json;
use crate::schema::{compiled, to_value};
use crate::view::PyJson;

/// `release=` and `unknown_tools=`; a policy that needs tools without them is a `ValueError`.
pub fn read_policy(release: &str, unknown_tools: &str, has_tools: bool) -> PyResult<Policy> {
    let policy = Policy {
        release: Release::parse(release).ok_or_else(|| {
            PyValueError::new_err(format!(
                "release must be {}, not {release:?}",
                Release::NAMES
            ))
        })?,
        unknown_tools: UnknownTools::parse(unknown_tools).ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown_tools must be {}, not {unknown_tools:?}",
                UnknownTools::NAMES
            ))
        })?,
    };
    match policy.needs_tools() {
        Some(why) if !has_tools => Err(PyValueError::new_err(why)),
        _ => Ok(policy),
    }
}

/// The tools offered: their names and, for `release="valid"`, their compiled schemas.
pub struct OfferedTools {
    names: HashSet<String>,
    validators: HashMap<String, Arc<ArgumentValidator>>,
}

static TOOL_CLASS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

impl OfferedTools {
    /// Reads `tools` as `Tool.from_dict` does (a `Tool`, or a mapping in any provider's shape).
    fn read(tools: &Bound<'_, PyAny>, validate: bool) -> PyResult<Self> {
        let py = tools.py();
        let tool_class = TOOL_CLASS.get_or_try_init(py, || -> PyResult<_> {
            Ok(py.import("toolwire._types")?.getattr("Tool")?.unbind())
        })?;
        let tool_class = tool_class.bind(py);
        let mut offered = Self {
            names: HashSet::new(),
            validators: HashMap::new(),
        };
        for tool in tools.try_iter()? {
            let tool = tool?;
            let tool = if tool.is_instance(tool_class)? {
                tool
            } else {
                tool_class.call_method1("from_dict", (tool,))?
            };
            let name: String = tool.getattr("name")?.extract()?;
            if validate {
                let validator = compiled(&tool.getattr("parameters")?)?;
                offered.validators.insert(name.clone(), validator);
            }
            offered.names.insert(name);
        }
        Ok(offered)
    }
}

impl<'py> ToolCheck<PyJson<'py>> for OfferedTools {
    fn offers(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    fn errors(&self, name: &str, arguments: &PyJson<'py>) -> Vec<String> {
        let Some(validator) = self.validators.get(name) else {
            return Vec::new();
        };
        match to_value(&arguments.0, 0) {
            Ok(value) => validator.errors(name, &value),
            Err(problem) => vec![format!(
                "Arguments for tool '{name}' are not JSON: {problem}. Retry the tool call with \
                 JSON values only."
            )],
        }
    }
}

/// The gate of one stream and the tools it checks against.
pub struct Gateway {
    gate: Gate,
    tools: Option<OfferedTools>,
}

impl Gateway {
    /// `tools` may be `None` (or Python `None`) when the policy needs none. `protocol` labels
    /// the invalid calls the gate makes.
    pub fn new(
        release: &str,
        unknown_tools: &str,
        tools: Option<&Bound<'_, PyAny>>,
        protocol: Protocol,
    ) -> PyResult<Self> {
        let tools = tools.filter(|t| !t.is_none());
        let policy = read_policy(release, unknown_tools, tools.is_some())?;
        let tools = match tools {
            Some(tools) if !policy.is_transparent() => {
                Some(OfferedTools::read(tools, policy.release == Release::Valid)?)
            }
            _ => None,
        };
        Ok(Self {
            gate: Gate::new(policy, protocol),
            tools,
        })
    }

    /// Whether the policy lets every event through unchanged.
    pub fn is_transparent(&self) -> bool {
        self.gate.policy().is_transparent()
    }

    pub fn filter<'py>(&mut self, events: &mut Vec<Event<PyJson<'py>>>) {
        let tools = self
            .tools
            .as_ref()
            .map(|t| t as &dyn ToolCheck<PyJson<'py>>);
        self.gate.filter(events, tools);
    }

    pub fn reset(&mut self) {
        self.gate.reset();
    }

    /// The policy on calls read whole (`extract`, `parse_text`): the same gate, fed the events
    /// a stream makes of each call. A call's arguments that are not JSON-writable go into an
    /// invalid call's `raw` as their `repr`.
    pub fn filter_outcomes<'py>(
        &mut self,
        outcomes: Vec<Outcome<PyJson<'py>>>,
    ) -> Vec<Outcome<PyJson<'py>>> {
        let tools = self
            .tools
            .as_ref()
            .map(|t| t as &dyn ToolCheck<PyJson<'py>>);
        let text = |arguments: &PyJson<'py>| {
            compact_json(&arguments.0).unwrap_or_else(|_| arguments.0.to_string())
        };
        self.gate.filter_outcomes(outcomes, tools, text)
    }
}
