//! Arguments a model wrapped in one parameter: a call whose only parameter is `arguments`,
//! `input` or `properties`, holding the whole arguments object (as an object, or as its JSON
//! text), where the tool's schema has no such parameter but does list every key inside (vLLM's
//! DeepSeek V3.2 tests; LFM2 writes `f(properties={…})`, mlx-swift-lm's tests). Only `tools=` can tell a wrapper from a parameter of that name, so without it, or
//! when the schema says otherwise, the arguments stay as the model wrote them.

use super::schema::ParamTypes;
use crate::json::{parse, JsonBuilder, JsonKind, JsonView, ParseError, ParseOptions};

/// The names a model wraps arguments in.
const WRAPPERS: [&str; 3] = ["arguments", "input", "properties"];

/// `arguments` of a call to `tool`, unwrapped when the schema says they are wrapped (see the
/// module documentation).
pub(crate) fn unwrapped<B>(
    builder: &mut B,
    tools: Option<&dyn ParamTypes>,
    tool: &str,
    arguments: B::Value,
    options: ParseOptions,
) -> Result<B::Value, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let Some(tools) = tools else {
        return Ok(arguments);
    };
    let mut entries = arguments.entries();
    let wrapped = match (entries.pop(), entries.is_empty()) {
        (Some((key, inner)), true) if WRAPPERS.contains(&key.as_str()) => (key, inner),
        _ => return Ok(arguments),
    };
    let (wrapper, inner) = wrapped;
    if tools.has_parameter(tool, &wrapper) != Some(false) {
        return Ok(arguments);
    }
    let inner = match inner.as_str() {
        Some(text) => match parse(text.trim(), builder, options) {
            Ok(value) => value,
            Err(ParseError::Build(e)) => return Err(e),
            Err(ParseError::Syntax(_)) => return Ok(arguments),
        },
        None => inner,
    };
    let fits = inner.kind() == JsonKind::Object
        && inner
            .entries()
            .iter()
            .all(|(key, _)| tools.has_parameter(tool, key) == Some(true));
    Ok(if fits { inner } else { arguments })
}
