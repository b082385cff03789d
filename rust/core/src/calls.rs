//! Canonical calls: the shapes a call may take once decoded (structured, `~~~tool_call`, bare
//! JSON), ids (docs/parsing.md) and the error policy (docs/errors.md); the arguments rule is
//! [`arguments`]'s.
//!
//! Everything here is generic over [`JsonBuilder`] + [`JsonView`], so the same rules run on this
//! crate's `Value` and on the binding's Python objects.

use std::collections::HashSet;
use std::fmt;

use crate::ids::generate_id_for;
use crate::json::{
    parse, JsonBuilder, JsonKind, JsonView, MemberText, ParseError, ParseOptions, SyntaxErrorKind,
};
use crate::position::{array_item_starts, line_column, CharOffsets, LineColumns};

pub use crate::protocol::Protocol;

mod arguments;
mod fields;
mod native;
pub use arguments::*;
pub use fields::*;
pub use native::*;

/// Which exception a failure maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The call itself could not be read (`ToolCallParseError`).
    Parse,
    /// The call was read but its arguments are unusable (`ArgumentsError`).
    Arguments,
}

/// A call that could not be turned into a `ToolCall`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    pub kind: FailureKind,
    pub protocol: Protocol,
    /// Position among the calls of the response.
    pub index: usize,
    /// The exact text (or compact JSON) of the bad call.
    pub raw: String,
    pub name: Option<String>,
    /// What the failure concerns, e.g. `invalid JSON in ~~~tool_call block 2`.
    pub subject: String,
    /// What was wrong, e.g. `expected ',' or '}'`.
    pub detail: String,
    /// Byte offset of the failure in the input text (None for structured input).
    pub byte_offset: Option<usize>,
    /// 1-based line and column of the failure within the call's own text.
    pub line_column: Option<(usize, usize)>,
    /// Character offset of the failure in the input text, filled by [`resolve_offsets`].
    pub offset: Option<usize>,
}

impl Invalid {
    /// The human message: subject, position, detail.
    pub fn message(&self) -> String {
        let mut message = self.subject.clone();
        match (self.line_column, self.offset) {
            (Some((line, column)), Some(offset)) => message.push_str(&format!(
                " at line {line} column {column} (offset {offset})"
            )),
            (None, Some(offset)) => message.push_str(&format!(" (offset {offset})")),
            _ => {}
        }
        message.push_str(": ");
        message.push_str(&self.detail);
        message
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Call<V> {
    /// The id the payload gave; `None` until [`assign_ids`] generates one.
    pub id: Option<String>,
    pub name: String,
    pub arguments: V,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome<V> {
    Call(Call<V>),
    /// Boxed: a failure is rare and several times the size of a call, and outcomes are
    /// moved and handed across threads by the thousand.
    Invalid(Box<Invalid>),
}

impl<V> Outcome<V> {
    pub fn invalid(invalid: Invalid) -> Self {
        Outcome::Invalid(Box::new(invalid))
    }
}

/// `on_error` (docs/errors.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorPolicy {
    Raise,
    Skip,
    Keep,
}

impl ErrorPolicy {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "raise" => Some(Self::Raise),
            "skip" => Some(Self::Skip),
            "keep" => Some(Self::Keep),
            _ => None,
        }
    }
}

/// Applies the policy: the first failure under `Raise`, the calls alone under `Skip`.
pub fn apply_policy<V>(
    outcomes: Vec<Outcome<V>>,
    policy: ErrorPolicy,
) -> Result<Vec<Outcome<V>>, Box<Invalid>> {
    match policy {
        ErrorPolicy::Keep => Ok(outcomes),
        ErrorPolicy::Skip => Ok(outcomes
            .into_iter()
            .filter(|o| matches!(o, Outcome::Call(_)))
            .collect()),
        ErrorPolicy::Raise => {
            let mut calls = Vec::with_capacity(outcomes.len());
            for outcome in outcomes {
                match outcome {
                    Outcome::Invalid(invalid) => return Err(invalid),
                    call => calls.push(call),
                }
            }
            Ok(calls)
        }
    }
}

/// Up to this many calls, a call's id is checked against the ids before it one by one: a
/// response holds a few calls, and comparing is cheaper than hashing. Past it, a set is kept.
pub const IDS_COMPARED_ONE_BY_ONE: usize = 16;

/// Gives every call without an id (or with an empty one, which no tool result could name) a
/// generated one, and replaces every repeat of an id within the response by a generated one
/// (docs/parsing.md).
pub fn assign_ids<V>(outcomes: &mut [Outcome<V>]) {
    if outcomes.len() <= IDS_COMPARED_ONE_BY_ONE {
        for i in 0..outcomes.len() {
            let (before, rest) = outcomes.split_at_mut(i);
            let Outcome::Call(call) = &mut rest[0] else {
                continue;
            };
            let taken = |id: &str| {
                before
                    .iter()
                    .any(|o| matches!(o, Outcome::Call(c) if c.id.as_deref() == Some(id)))
            };
            if call
                .id
                .as_deref()
                .is_none_or(|id| id.is_empty() || taken(id))
            {
                call.id = Some(generate_id_for(i));
            }
        }
        return;
    }
    let mut seen: HashSet<String> = HashSet::with_capacity(outcomes.len());
    for (i, outcome) in outcomes.iter_mut().enumerate() {
        if let Outcome::Call(call) = outcome {
            let kept = call
                .id
                .as_ref()
                .is_some_and(|id| !id.is_empty() && seen.insert(id.clone()));
            if !kept {
                let id = generate_id_for(i);
                seen.insert(id.clone());
                call.id = Some(id);
            }
        }
    }
}

/// Fills `offset` (characters) from `byte_offset` for every failure, in one pass over `text`.
pub fn resolve_offsets<V>(text: &str, outcomes: &mut [Outcome<V>]) {
    let mut chars = CharOffsets::new(text);
    for outcome in outcomes.iter_mut() {
        if let Outcome::Invalid(invalid) = outcome {
            invalid.offset = invalid.byte_offset.map(|b| chars.char_offset(b));
        }
    }
}

/// A call's id as the payload gave it: strings kept, numbers as decimal text, anything else
/// (null, "", other types) means "none given".
pub fn id_of<V: JsonView>(value: Option<V>) -> Option<String> {
    let value = value?;
    match value.kind() {
        JsonKind::String => value.as_str().filter(|s| !s.is_empty()).map(str::to_owned),
        JsonKind::Number => value.number_text(),
        _ => None,
    }
}

/// A failure of one structured or decoded call, before its position in the text is known.
pub struct ShapeFailure<E> {
    pub kind: FailureKind,
    pub detail: String,
    pub name: Option<String>,
    pub build: Option<E>,
    /// Where in the call object it failed, e.g. `function.arguments` (empty: the object).
    pub field: String,
}

impl<E> ShapeFailure<E> {
    fn parse(detail: String, field: &str) -> Self {
        ShapeFailure {
            kind: FailureKind::Parse,
            detail,
            name: None,
            build: None,
            field: field.to_owned(),
        }
    }

    /// The same failure, seen from the object that holds this one under `key`.
    fn within(mut self, key: &str) -> Self {
        self.field = if self.field.is_empty() {
            key.to_owned()
        } else {
            format!("{key}.{}", self.field)
        };
        self
    }
}

/// Reads `{"name", "arguments" | "parameters" | "input" | "args"?, "id"?}` (a call as text
/// protocols and pre-parsed lists write it).
pub fn call_from_object<B>(
    builder: &mut B,
    object: &B::Value,
    options: ParseOptions,
) -> Result<Call<B::Value>, ShapeFailure<B::Error>>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    if object.kind() != JsonKind::Object {
        return Err(ShapeFailure::parse(
            format!(
                "a tool call must be a JSON object, got {}",
                object.kind().name()
            ),
            "",
        ));
    }
    call_from_fields(builder, CallFields::of_object(object), options)
}

/// The call of a call object's fields (the arguments and id rules of docs/parsing.md).
pub fn call_from_fields<B>(
    builder: &mut B,
    mut fields: CallFields<B::Value>,
    options: ParseOptions,
) -> Result<Call<B::Value>, ShapeFailure<B::Error>>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    // `{"id", "type": "function", "function": {"name", "arguments"}}`, OpenAI's shape of a
    // call, which models also write inside call markup: the call is the inner object's. A name
    // written beside it too (`{"name": "f", "function": {"arguments": …}}`) is the inner
    // call's name, and must agree with one written inside; but where a stray key beside the
    // name may hold the arguments instead, the call is invalid (below).
    let lone_name = fields.stray.is_none() && fields.keys.conflict.is_none();
    if fields.arguments.iter().all(Option::is_none) && (fields.name.is_none() || lone_name) {
        if let Some(function) = fields
            .function
            .take()
            .filter(|f| f.kind() == JsonKind::Object)
        {
            let mut inner = CallFields::of_object(&function);
            inner.function = None;
            inner.id = inner.id.or(fields.id);
            if let Some(outer) = fields.name {
                if inner.name.as_ref().is_some_and(|name| *name != outer) {
                    let mut failure = ShapeFailure::parse(
                        "the call object names its tool twice, differently: beside and inside \
                         \"function\""
                            .to_owned(),
                        "function.name",
                    );
                    // The name a stream announced.
                    failure.name = outer.into_string();
                    return Err(failure);
                }
                inner.name = Some(outer);
            }
            return call_from_fields(builder, inner, options).map_err(|f| f.within("function"));
        }
    }
    if let Some(conflict) = fields.keys.conflict {
        return Err(conflict.failure(fields.name.and_then(MemberText::into_string)));
    }
    let name = match fields.name.take() {
        Some(MemberText::String(name)) if !name.is_empty() => name,
        other => {
            let detail = match other {
                None => "missing tool name".to_owned(),
                Some(MemberText::String(_)) => "missing tool name (empty string)".to_owned(),
                Some(MemberText::Number(_)) => format!(
                    "missing tool name (the name is {}, not a string)",
                    JsonKind::Number.name()
                ),
                Some(MemberText::Other(kind)) => format!(
                    "missing tool name (the name is {}, not a string)",
                    kind.name()
                ),
            };
            return Err(ShapeFailure::parse(detail, "name"));
        }
    };
    if let Some(failure) = fields.unread_arguments(&name) {
        return Err(failure);
    }
    let [a, b, c, d] = fields.arguments;
    let (key, arguments) = [a, b, c, d]
        .into_iter()
        .zip(ARGUMENT_KEYS)
        .find_map(|(value, key)| value.map(|value| (key, Some(value))))
        .unwrap_or(("arguments", None));
    let arguments = normalize_arguments(builder, arguments, options).map_err(|f| ShapeFailure {
        kind: f.kind,
        detail: f.detail,
        name: Some(name.clone()),
        build: f.build,
        field: key.to_owned(),
    })?;
    let id = match fields.id {
        Some(MemberText::String(id)) if !id.is_empty() => Some(id),
        Some(MemberText::Number(digits)) => Some(digits),
        _ => None,
    };
    Ok(Call {
        id,
        name,
        arguments,
    })
}

/// Which piece of a text a call came from, for messages (formatted only on failure).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextPlace {
    FenceBlock(usize),
    RawJson,
    RawJsonFence(usize),
    /// Call `index` of an open-weight format.
    FormatCall(crate::protocol::Format, usize),
}

impl fmt::Display for TextPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextPlace::FenceBlock(i) => write!(f, "~~~tool_call block {i}"),
            TextPlace::RawJson => f.write_str("raw JSON"),
            TextPlace::RawJsonFence(i) => write!(f, "raw JSON in fenced block {i}"),
            TextPlace::FormatCall(format, i) => write!(f, "{} call {i}", format.as_str()),
        }
    }
}

/// What a failed call's message is about: its arguments, or the call itself.
pub fn failure_subject(kind: FailureKind, what: &TextPlace) -> String {
    match kind {
        FailureKind::Arguments => format!("invalid arguments in {what}"),
        FailureKind::Parse => format!("invalid tool call in {what}"),
    }
}

/// The JSON text of a text-protocol call (a `~~~tool_call` body or a raw-JSON candidate).
/// `base` is the text's byte offset in the whole input.
pub struct TextCallContext<'t> {
    pub protocol: Protocol,
    pub what: TextPlace,
    pub text: &'t str,
    pub base: usize,
}

impl TextCallContext<'_> {
    /// An `Invalid` for this text, failing at `at` (a byte offset within `self.text`).
    pub fn invalid(
        &self,
        kind: FailureKind,
        index: usize,
        subject: String,
        detail: String,
        at: Option<usize>,
        name: Option<String>,
    ) -> Invalid {
        Invalid {
            kind,
            protocol: self.protocol,
            index,
            raw: self.text.to_owned(),
            name,
            subject,
            detail,
            byte_offset: Some(self.base + at.unwrap_or(0)),
            line_column: at.map(|at| line_column(self.text, at)),
            offset: None,
        }
    }
}

/// Adds the calls of one decoded JSON value (`{call}` or `[{call}, …]`) to `outcomes`. The
/// JSON starts at byte `json_at` of `context.text` (after a format's marker, say): a failing
/// item of an array is placed at its own start.
pub fn push_calls_of_value<B>(
    builder: &mut B,
    value: B::Value,
    context: &TextCallContext<'_>,
    json_at: usize,
    options: ParseOptions,
    outcomes: &mut Vec<Outcome<B::Value>>,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let is_array = value.kind() == JsonKind::Array;
    let items = if is_array { value.items() } else { vec![value] };
    if items.is_empty() {
        let index = outcomes.len();
        outcomes.push(Outcome::invalid(context.invalid(
            FailureKind::Parse,
            index,
            format!("empty call list in {}", context.what),
            "expected a tool call object".to_owned(),
            None,
            None,
        )));
    }
    let item_starts =
        is_array.then(|| array_item_starts(&context.text[json_at..], options.lenient));
    let mut lines = LineColumns::new(context.text);
    for (k, item) in items.iter().enumerate() {
        let start = match &item_starts {
            Some(starts) => starts.get(k).map(|start| json_at + start),
            None => Some(json_at),
        };
        // The decoded object kept one of each key: its text says whether it had two.
        let conflict = start
            .filter(|_| item.kind() == JsonKind::Object)
            .and_then(|at| call_key_conflict(builder, &context.text[at..], options));
        let call = match conflict {
            Some(failure) => Err(failure),
            None => call_from_object(builder, item, options),
        };
        match start.filter(|_| is_array) {
            Some(at) => push_call_at(call, context, at, &mut lines, outcomes)?,
            None => push_call(call, context, outcomes)?,
        }
    }
    Ok(())
}

/// [`push_call`] for the call object at byte `at` of `context.text` (an item of a list): a
/// failure is placed at the item's start.
pub fn push_call_at<V, E>(
    call: Result<Call<V>, ShapeFailure<E>>,
    context: &TextCallContext<'_>,
    at: usize,
    lines: &mut LineColumns<'_>,
    outcomes: &mut Vec<Outcome<V>>,
) -> Result<(), E> {
    let before = outcomes.len();
    push_call(call, context, outcomes)?;
    if let Some(Outcome::Invalid(invalid)) = outcomes.get_mut(before) {
        invalid.byte_offset = Some(context.base + at);
        invalid.line_column = Some(lines.at(at));
    }
    Ok(())
}

/// Adds one call read from `context`'s text, or its failure, to `outcomes`.
pub fn push_call<V, E>(
    call: Result<Call<V>, ShapeFailure<E>>,
    context: &TextCallContext<'_>,
    outcomes: &mut Vec<Outcome<V>>,
) -> Result<(), E> {
    match call {
        Ok(call) => outcomes.push(Outcome::Call(call)),
        Err(ShapeFailure { build: Some(e), .. }) => return Err(e),
        Err(failure) => {
            let subject = failure_subject(failure.kind, &context.what);
            let index = outcomes.len();
            outcomes.push(Outcome::invalid(context.invalid(
                failure.kind,
                index,
                subject,
                failure.detail,
                None,
                failure.name,
            )))
        }
    }
    Ok(())
}

/// The kind and subject of a call whose JSON text failed to parse: a syntax error makes the
/// call unreadable; a value the builder refused (valid JSON) makes its arguments unusable.
pub(crate) fn json_failure_subject(
    error: SyntaxErrorKind,
    what: &TextPlace,
) -> (FailureKind, String) {
    if error.is_refusal() {
        (
            FailureKind::Arguments,
            format!("invalid arguments in {what}"),
        )
    } else {
        (FailureKind::Parse, format!("invalid JSON in {what}"))
    }
}

/// Parses `context.text` as JSON and adds its calls (or one failure) to `outcomes`.
pub fn push_calls_of_text<B>(
    builder: &mut B,
    context: &TextCallContext<'_>,
    options: ParseOptions,
    outcomes: &mut Vec<Outcome<B::Value>>,
) -> Result<(), B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    push_calls_of_text_parsed(builder, context, options, outcomes).map(|_| ())
}

/// [`push_calls_of_text`], also saying whether the text was valid JSON (then one outcome was
/// added per call object or array item, in order).
pub fn push_calls_of_text_parsed<B>(
    builder: &mut B,
    context: &TextCallContext<'_>,
    options: ParseOptions,
    outcomes: &mut Vec<Outcome<B::Value>>,
) -> Result<bool, B::Error>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    match parse(context.text, builder, options) {
        Ok(value) => {
            push_calls_of_value(builder, value, context, 0, options, outcomes).map(|()| true)
        }
        Err(ParseError::Build(e)) => Err(e),
        Err(ParseError::Syntax(error)) => {
            let index = outcomes.len();
            let (kind, subject) = json_failure_subject(error.kind, &context.what);
            outcomes.push(Outcome::invalid(context.invalid(
                kind,
                index,
                subject,
                error.kind.message().into_owned(),
                Some(error.offset),
                None,
            )));
            Ok(false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Value;

    fn calls_with_ids(ids: &[Option<&str>]) -> Vec<Outcome<Value>> {
        ids.iter()
            .map(|id| {
                Outcome::Call(Call {
                    id: id.map(str::to_owned),
                    name: "f".to_owned(),
                    arguments: Value::object([]),
                })
            })
            .collect()
    }

    fn ids(outcomes: &[Outcome<Value>]) -> Vec<String> {
        outcomes
            .iter()
            .map(|o| match o {
                Outcome::Call(c) => c.id.clone().unwrap(),
                Outcome::Invalid(_) => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn assign_ids_keeps_first_of_each_id_and_replaces_repeats_and_gaps() {
        // Both strategies: a short response (scan) and a long one (hash set).
        for copies in [1, 10] {
            let given: Vec<Option<&str>> = [Some("a"), None, Some("a"), Some("b"), Some("")]
                .iter()
                .cycle()
                .take(5 * copies)
                .copied()
                .collect();
            let mut outcomes = calls_with_ids(&given);
            assign_ids(&mut outcomes);
            let ids = ids(&outcomes);
            assert_eq!(ids[0], "a");
            assert_eq!(ids[3], "b");
            let unique: HashSet<&String> = ids.iter().collect();
            assert_eq!(unique.len(), ids.len(), "{ids:?}");
            for (id, given) in ids.iter().zip(&given) {
                // An empty id is none: it is replaced too.
                if given.is_none_or(str::is_empty) || (id != "a" && id != "b") {
                    assert!(id.starts_with("call_") && id.len() == 17, "{id}");
                }
            }
        }
    }
}
