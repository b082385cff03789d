//! `tools=` as the qwen3_coder and glm45 parsers read it: the user's tool definitions, read on
//! demand and never copied, so a later change to the list is seen by the next call.

use std::sync::{Mutex, PoisonError};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use toolwire_core::formats::{
    definition_parameters, has_property, property_types, tool_definition, tool_names, ParamTypes,
    ToolSchemas, Types,
};

use crate::view::{PyJson, ScannedJson};

/// `tools=` as given: each tool a dict (a `Tool` object as its `to_dict()`), read on demand
/// for the parameters a qwen3_coder or glm45 call names (see `tool_definition`), so a call passing
/// many tools pays only for what its text calls.
#[derive(Debug)]
pub struct ToolDefs {
    tools: Vec<Py<PyAny>>,
    /// The last tool looked up and its definition: a call's parameters are looked up one
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
    /// The definition named `tool` ([`tool_definition`]), kept for the next lookup: a call's
    /// parameters are looked up one after another.
    fn definition<'py>(&self, py: Python<'py>, tool: &str) -> Option<ScannedJson<'py>> {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        match &*last {
            Some((name, definition)) if name == tool => definition
                .as_ref()
                .map(|d| ScannedJson(PyJson(d.bind(py).clone()))),
            _ => {
                let definition = tool_definition(self.views(py), tool);
                let kept = definition.as_ref().map(|d| d.0 .0.clone().unbind());
                *last = Some((tool.to_owned(), kept));
                definition
            }
        }
    }
}

impl ParamTypes for ToolDefs {
    fn types(&self, tool: &str, parameter: &str) -> Types {
        Python::attach(|py| {
            self.definition(py, tool)
                .and_then(|d| definition_parameters(&d))
                .map_or(Types::default(), |p| property_types(&p, parameter))
        })
    }

    fn has_parameter(&self, tool: &str, parameter: &str) -> Option<bool> {
        Python::attach(|py| {
            self.definition(py, tool)
                .map(|d| has_property(&d, parameter))
        })
    }

    fn tool_names(&self) -> Vec<String> {
        Python::attach(|py| tool_names(self.views(py)))
    }
}
