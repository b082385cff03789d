//! Structured calls (a provider's `tool_calls` list), recognised by shape.

use crate::json::{to_compact_json, JsonBuilder, JsonKind, JsonView, ParseOptions};

use super::*;

/// One element of a structured `tool_calls` list, recognised by shape.
pub fn native_call<B>(
    builder: &mut B,
    element: &B::Value,
    options: ParseOptions,
) -> Result<Call<B::Value>, ShapeFailure<B::Error>>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    if element.kind() != JsonKind::Object {
        return Err(ShapeFailure::parse(
            format!(
                "unrecognised tool call: expected an object, got {}",
                element.kind().name()
            ),
            "",
        ));
    }
    // Most common shape first: each probe is a dict lookup.
    if let Some(function) = element.get("function") {
        // OpenAI / OpenAI-compatible / Ollama: the id sits beside `function`.
        if function.kind() != JsonKind::Object {
            return Err(ShapeFailure::parse(
                format!(
                    "'function' must be an object, got {}",
                    function.kind().name()
                ),
                "function",
            ));
        }
        let mut call =
            call_from_object(builder, &function, options).map_err(|f| f.within("function"))?;
        call.id = id_of(element.get("id")).or(call.id);
        return Ok(call);
    }
    let responses_call =
        || element.get("type").as_ref().and_then(|t| t.as_str()) == Some("function_call");
    if element.get("name").is_some() || responses_call() {
        let mut call = call_from_object(builder, element, options)?;
        if responses_call() {
            // OpenAI Responses: the call id is `call_id`; `id` names the output item.
            call.id = id_of(element.get("call_id")).or(call.id);
        }
        // Otherwise an Anthropic `tool_use` block or a pre-parsed call.
        return Ok(call);
    }
    if let Some(function) = element.get("functionCall") {
        // Gemini: `{"functionCall": {"name", "args", "id"?}}`.
        return call_from_object(builder, &function, options).map_err(|f| f.within("functionCall"));
    }
    Err(ShapeFailure::parse(
        "unrecognised tool call shape: expected 'function' (OpenAI, Ollama), \
         a 'tool_use' block (Anthropic) or 'name' and 'arguments'"
            .to_owned(),
        "",
    ))
}

/// [`native_call`] over a whole list. Build errors (the builder's own failures) stop the parse.
pub fn parse_native<B>(
    builder: &mut B,
    elements: &[B::Value],
    options: ParseOptions,
) -> Result<Vec<Outcome<B::Value>>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut outcomes = Vec::with_capacity(elements.len());
    for (index, element) in elements.iter().enumerate() {
        match native_call(builder, element, options) {
            Ok(call) => outcomes.push(Outcome::Call(call)),
            Err(ShapeFailure { build: Some(e), .. }) => return Err(e),
            Err(failure) => outcomes.push(Outcome::invalid(native_invalid(
                index,
                element,
                failure,
                format!("tool call {index}"),
            ))),
        }
    }
    Ok(outcomes)
}

/// The `Invalid` of a structured call that [`native_call`] rejected.
pub fn native_invalid<V: JsonView, E>(
    index: usize,
    element: &V,
    failure: ShapeFailure<E>,
    subject: String,
) -> Invalid {
    Invalid {
        kind: failure.kind,
        protocol: Protocol::Native,
        index,
        raw: to_compact_json(element),
        name: failure.name,
        subject,
        detail: failure.detail,
        byte_offset: None,
        line_column: None,
        offset: None,
    }
}
