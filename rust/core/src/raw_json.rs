//! Raw JSON: calls a model wrote as bare JSON, at the start of its message, in a
//! ```` ```json ```` fence, or (when asked) anywhere in its text.

use memchr::memmem;

use crate::calls::{
    call_fields_from_text, call_fields_list_from_text, call_from_fields, call_from_object,
    call_key_conflict, json_failure_subject, push_call, push_call_at, CallFields, FailureKind,
    Invalid, Outcome, Protocol, TextCallContext, TextPlace,
};
use crate::json::{
    parse, JsonBuilder, JsonKind, JsonView, ParseError, ParseOptions, Value, ValueBuilder,
};
use crate::position::{array_item_starts, LineColumns};
use crate::scan::raw::balanced_spans;

type Outcomes<B> = Vec<Outcome<<B as JsonBuilder>::Value>>;

/// Where `parse_raw_json` looks for candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawJsonMode {
    Whole,
    Fenced,
    Anywhere,
}

impl RawJsonMode {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "whole" => Some(Self::Whole),
            "fenced" => Some(Self::Fenced),
            "anywhere" => Some(Self::Anywhere),
            _ => None,
        }
    }
}

/// Bare JSON calls anywhere in a text (`raw_json="anywhere"`): every balanced `{…}`/`[…]` span
/// that decodes to calls. The `whole` and `fenced` modes are the stream engine's
/// ([`crate::extract::parse_raw_json`]).
pub fn parse_raw_json_anywhere<B>(
    builder: &mut B,
    text: &str,
    options: ParseOptions,
) -> Result<Outcomes<B>, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let (outcomes, _) = raw_json_anywhere_at(builder, text, options)?;
    Ok(outcomes)
}

/// [`parse_raw_json_anywhere`], and where each outcome's JSON starts in the text.
pub(crate) fn raw_json_anywhere_at<B>(
    builder: &mut B,
    text: &str,
    options: ParseOptions,
) -> Result<(Outcomes<B>, Vec<usize>), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let mut outcomes = Vec::new();
    let mut starts = Vec::new();
    let scan = balanced_spans(text);
    let mut covered_until = 0;
    for span in scan.spans {
        if span.range.start < covered_until {
            continue;
        }
        let before = outcomes.len();
        raw_candidate(
            builder,
            text,
            span.range.clone(),
            TextPlace::RawJson,
            options,
            &mut outcomes,
        )?;
        if outcomes.len() > before {
            covered_until = span.range.end;
            starts.resize(outcomes.len(), span.range.start);
        }
    }
    if let Some(start) = scan.unterminated.filter(|&s| s >= covered_until) {
        let index = outcomes.len();
        outcomes.push(Outcome::invalid(Invalid {
            kind: FailureKind::Parse,
            protocol: Protocol::RawJson,
            index,
            raw: text[start..].to_owned(),
            name: None,
            subject: "unterminated raw JSON call".to_owned(),
            detail: "the object is never closed".to_owned(),
            byte_offset: Some(start),
            line_column: None,
            offset: None,
        }));
        starts.push(start);
    }
    Ok((outcomes, starts))
}

/// The answer of llama.cpp's generic format: the string of `body` when it is the object
/// `{"response": "…"}` and nothing else.
pub(crate) fn generic_answer(body: &str, options: ParseOptions) -> Option<String> {
    let value = parse(body.trim(), &mut ValueBuilder, options).ok()?;
    match value {
        Value::Object(members) => match members.as_slice() {
            [(key, Value::Str(answer))] if key == "response" => Some(answer.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// Decodes one candidate region; adds its calls, or an error if it looks like a call but is
/// broken. Regions that are not calls add nothing.
pub(crate) fn raw_candidate<B>(
    builder: &mut B,
    text: &str,
    region: std::ops::Range<usize>,
    what: TextPlace,
    options: ParseOptions,
    outcomes: &mut Outcomes<B>,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let body = &text[region.clone()];
    if !body.starts_with(['{', '[']) {
        return Ok(());
    }
    let context = TextCallContext {
        protocol: Protocol::RawJson,
        what,
        text: body,
        base: region.start,
    };
    // The common case, one call object, is read field by field; anything else (lists,
    // wrappers, errors) takes the general path below.
    if let Ok(Some((fields, end))) = call_fields_from_text(builder, body, options) {
        if end == body.len() && fields.is_call_like() {
            let call = call_from_fields(builder, fields, options);
            return push_call(call, &context, outcomes);
        }
    } else if let Ok(Some((list, end))) = call_fields_list_from_text(builder, body, options) {
        // A list of call objects: a failing one is reported at its own start.
        if end == body.len() {
            let mut lines = LineColumns::new(body);
            for (at, fields) in list {
                let call = call_from_fields(builder, fields, options);
                push_call_at(call, &context, at, &mut lines, outcomes)?;
            }
            return Ok(());
        }
    }
    let value = match parse(body, builder, options) {
        Ok(value) => value,
        Err(ParseError::Build(e)) => return Err(e),
        Err(ParseError::Syntax(error)) => {
            if looks_like_call(body) {
                let index = outcomes.len();
                let (kind, subject) = json_failure_subject(error.kind, &what);
                outcomes.push(Outcome::invalid(context.invalid(
                    kind,
                    index,
                    subject,
                    error.kind.message().into_owned(),
                    Some(error.offset),
                    None,
                )));
            }
            return Ok(());
        }
    };
    let Some(calls) = located_calls(&value) else {
        return Ok(());
    };
    // Each call is placed at its item of a list (a wrapper's calls at the wrapper).
    let starts = match value.kind() {
        JsonKind::Array => array_item_starts(body, options.lenient),
        _ => vec![0],
    };
    let mut lines = LineColumns::new(body);
    for Located {
        call: object,
        wrapper_id,
        item,
        direct,
    } in calls
    {
        let at = starts.get(item).copied().unwrap_or(0);
        // A decoded object kept one of each key: its text says whether it had two.
        let conflict = direct
            .then(|| call_key_conflict(builder, &body[at..], options))
            .flatten();
        let call = match conflict {
            Some(failure) => Err(failure),
            None => call_from_object(builder, &object, options).map(|mut call| {
                if let Some(id) = crate::calls::id_of(wrapper_id) {
                    call.id = Some(id);
                }
                call
            }),
        };
        push_call_at(call, &context, at, &mut lines, outcomes)?;
    }
    Ok(())
}

/// A call object of a candidate, with where it sits.
struct Located<V> {
    call: V,
    /// The id of an OpenAI-style `{"id", "function"}` wrapper.
    wrapper_id: Option<V>,
    /// The item of a top-level list it belongs to (0 for a single value).
    item: usize,
    /// Whether the call object is the value or the item itself (not inside a wrapper).
    direct: bool,
}

/// The call objects of a decoded candidate, or `None` when it holds none. In a list that
/// holds calls, an item that is no call is kept, to be reported as a broken call: a list
/// with one bad item never loses its good calls.
fn located_calls<V: JsonView>(value: &V) -> Option<Vec<Located<V>>> {
    let direct = |call: &V, item: usize| Located {
        call: call.clone(),
        wrapper_id: None,
        item,
        direct: true,
    };
    if value.kind() != JsonKind::Array {
        return Some(
            candidate_calls(value)?
                .into_iter()
                .map(|(call, wrapper_id)| Located {
                    direct: is_call_object(value),
                    call,
                    wrapper_id,
                    item: 0,
                })
                .collect(),
        );
    }
    let mut calls = Vec::new();
    let mut any = false;
    for (k, item) in value.items().iter().enumerate() {
        match candidate_calls(item) {
            Some(found) => {
                any = true;
                let is_call = is_call_object(item);
                calls.extend(found.into_iter().map(|(call, wrapper_id)| Located {
                    call,
                    wrapper_id,
                    item: k,
                    direct: is_call,
                }));
            }
            None => calls.push(direct(item, k)),
        }
    }
    any.then_some(calls)
}

/// Whether a decoded value is itself a call object (a name and arguments, read by the same
/// rule as a call object's JSON text: [`CallFields::is_call_like`]).
pub(crate) fn is_call_object<V: JsonView>(value: &V) -> bool {
    value.kind() == JsonKind::Object && CallFields::of_object(value).is_call_like()
}

/// Whether broken JSON was meant as a call: it mentions a name and arguments (quoted or not,
/// since unquoted keys are a common way to break it).
pub(crate) fn looks_like_call(body: &str) -> bool {
    let bytes = body.as_bytes();
    memmem::find(bytes, b"name").is_some()
        && (memmem::find(bytes, b"arguments").is_some()
            || memmem::find(bytes, b"parameters").is_some())
}

/// The call objects of a decoded candidate (with the id of an OpenAI-style wrapper), or `None`
/// when the value is not a call, a list of calls, or a wrapper of them.
fn candidate_calls<V: JsonView>(value: &V) -> Option<Vec<(V, Option<V>)>> {
    match value.kind() {
        JsonKind::Object => {
            if is_call_object(value) {
                return Some(vec![(value.clone(), None)]);
            }
            if let Some(inner) = value
                .get("function")
                .filter(|f| f.kind() == JsonKind::Object)
            {
                let mut calls = candidate_calls(&inner)?;
                if let Some(first) = calls.first_mut() {
                    first.1 = value.get("id");
                }
                return Some(calls);
            }
            if let Some(inner) = value.get("tool_call") {
                return candidate_calls(&inner);
            }
            if let Some(list) = value
                .get("tool_calls")
                .filter(|l| l.kind() == JsonKind::Array)
            {
                return list_calls(&list);
            }
            None
        }
        JsonKind::Array => list_calls(value),
        _ => None,
    }
}

fn list_calls<V: JsonView>(list: &V) -> Option<Vec<(V, Option<V>)>> {
    let items = list.items();
    if items.is_empty() {
        return None;
    }
    let mut calls = Vec::with_capacity(items.len());
    for item in &items {
        calls.extend(candidate_calls(item)?);
    }
    Some(calls)
}
