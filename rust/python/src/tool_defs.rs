//! `tools=` as the qwen3_coder and glm45 parsers read it: the user's tool definitions, read on
//! demand and never copied, so a later change to the list is seen by the next call.

use std::sync::{Mutex, PoisonError};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use toolwire_core::formats::{
    has_property, property_types, tool_properties, ParamTypes, ToolSchemas, Types,
};

use crate::view::{PyJson, ScannedJson};

/// What [`tool_properties`] found for a name.
type Lookup = Option<Option<Py<PyAny>>>;

/// `tools=` as given: each tool a dict (a `Tool` object as its `to_dict()`), read on demand
/// for the parameters a qwen3_coder or glm45 call names (see `tool_properties`), so a call passing
/// many tools pays only for what its text calls.
#[derive(Debug)]
pub struct ToolDefs {
    tools: Vec<Py<PyAny>>,
    /// The last tool looked up, and its `properties` when it is offered (`Some(None)`: it
    /// declares none): a call's parameters are looked up one after another. Lives for one
    /// parse only, so a later change to the list is always seen.
    last: Mutex<Option<(String, Lookup)>>,
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
    ) -> impl DoubleEndedIterator<Item = ScannedJson<'py>> + 'a
    where
        'py: 'a,
    {
        self.tools
            .iter()
            .map(move |tool| ScannedJson(PyJson(tool.bind(py).clone())))
    }

    /// The parameter types of every tool, read at once (for a stream, which asks for them
    /// chunk after chunk).
    pub fn schemas(&self, py: Python<'_>) -> ToolSchemas {
        ToolSchemas::from_tools(&self.views(py).collect::<Vec<_>>())
    }
}

impl ToolDefs {
    /// `f` of what the definitions say of `tool` ([`tool_properties`]), looked up once in a row.
    fn with_tool<R>(&self, tool: &str, f: impl FnOnce(Option<Option<ScannedJson<'_>>>) -> R) -> R {
        Python::attach(|py| {
            let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
            let found = match &*last {
                Some((name, found)) if name == tool => found.as_ref().map(|properties| {
                    properties
                        .as_ref()
                        .map(|p| ScannedJson(PyJson(p.bind(py).clone())))
                }),
                _ => {
                    let found = tool_properties(self.views(py), tool);
                    let kept = found
                        .as_ref()
                        .map(|properties| properties.as_ref().map(|p| p.0 .0.clone().unbind()));
                    *last = Some((tool.to_owned(), kept));
                    found
                }
            };
            f(found)
        })
    }
}

impl ParamTypes for ToolDefs {
    fn types(&self, tool: &str, parameter: &str) -> Types {
        self.with_tool(tool, |found| {
            found
                .flatten()
                .map_or(Types::default(), |p| property_types(&p, parameter))
        })
    }

    fn has_tool(&self, tool: &str) -> bool {
        self.with_tool(tool, |found| found.is_some())
    }

    fn has_parameter(&self, tool: &str, parameter: &str) -> bool {
        self.with_tool(tool, |found| {
            found.flatten().is_some_and(|p| has_property(&p, parameter))
        })
    }
}
