//! The members of a call object, read from a decoded object or straight from its JSON text,
//! and the key conflicts (a repeated `name` or arguments key) that make it invalid.

use crate::json::{
    parse_object_with, JsonBuilder, JsonKind, JsonView, MemberAction, MemberText, ObjectVisitor,
    ParseError, ParseOptions,
};

use super::*;

/// The keys a call's arguments may be under, in order of preference.
pub(crate) const ARGUMENT_KEYS: [&str; 4] = ["arguments", "parameters", "input", "args"];

/// Keys of a call object that hold no arguments beside `name`, `id` and `function`: the
/// metadata that API shapes and models write next to a call.
const METADATA_KEYS: [&str; 5] = ["type", "index", "call_id", "tool_call_id", "status"];

/// The slot in [`ARGUMENT_KEYS`] of `key`, read with the whitespace around it trimmed: a model
/// that writes `" arguments"` means the arguments.
fn argument_slot(key: &str) -> Option<usize> {
    let key = key.trim();
    ARGUMENT_KEYS.iter().position(|k| *k == key)
}

/// Whether a call object's `key` holds its arguments ([`ARGUMENT_KEYS`], whitespace around it
/// trimmed).
pub(crate) fn is_arguments_key(key: &str) -> bool {
    argument_slot(key).is_some()
}

/// The slots of [`ARGUMENT_KEYS`] that make a JSON object a call candidate
/// ([`CallFields::is_call_like`]): `arguments` and `parameters`.
const CANDIDATE_SLOTS: usize = 2;

/// Whether `key` is one of the arguments keys that make a bare JSON object a call candidate
/// (whitespace around it trimmed).
pub(crate) fn is_candidate_arguments_key(key: &str) -> bool {
    argument_slot(key).is_some_and(|slot| slot < CANDIDATE_SLOTS)
}

/// Whether `key` (none of the arguments keys) is one a call object holds beside its arguments.
fn is_call_key(key: &str) -> bool {
    matches!(key, "name" | "id" | "function") || METADATA_KEYS.contains(&key)
}

/// The members of a call object that its rules read: from a decoded object
/// ([`CallFields::of_object`]) or straight from JSON text without building the object
/// ([`call_fields_from_text`]).
pub struct CallFields<V> {
    pub(super) name: Option<MemberText>,
    /// The values under [`ARGUMENT_KEYS`], by position.
    pub(super) arguments: [Option<V>; 4],
    pub(super) id: Option<MemberText>,
    /// An OpenAI-style `"function": {"name", "arguments"}` member, read when `name` is absent.
    pub(super) function: Option<V>,
    /// The keys read from the object's JSON text (none for a decoded object).
    pub(super) keys: CallKeys,
    /// The first key that is neither an arguments key nor a call's own ([`is_call_key`]):
    /// where no arguments key is found, the arguments may be under it.
    pub(super) stray: Option<String>,
}

impl<V> Default for CallFields<V> {
    fn default() -> Self {
        Self {
            name: None,
            arguments: [None, None, None, None],
            id: None,
            function: None,
            keys: CallKeys::default(),
            stray: None,
        }
    }
}

/// A call object written with two `name` keys, or two arguments keys: a stream announces the
/// first (its `ToolCallStart` name, its `ToolCallDelta` bytes) before the second is written,
/// so neither may be chosen silently; such a call is invalid on every path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyConflict {
    first: &'static str,
    second: &'static str,
}

impl KeyConflict {
    fn detail(self) -> String {
        if self.first == self.second {
            format!(
                "the call object has the key {:?} twice: which one counts is ambiguous",
                self.first
            )
        } else {
            format!(
                "the call object has both {:?} and {:?}: which arguments count is ambiguous",
                self.first, self.second
            )
        }
    }

    /// The call's failure, under the first name the object gave (the one a stream announced).
    pub(super) fn failure<E>(self, name: Option<String>) -> ShapeFailure<E> {
        let mut failure = ShapeFailure::parse(self.detail(), self.second);
        failure.name = name;
        failure
    }
}

/// Watches the keys of a call object's JSON text for a [`KeyConflict`], building nothing.
#[derive(Default)]
pub(super) struct CallKeys {
    name: bool,
    arguments: Option<&'static str>,
    pub(super) conflict: Option<KeyConflict>,
    /// The first name, when read by [`call_key_conflict`].
    first_name: Option<String>,
}

impl CallKeys {
    /// Notes `key`; true when it is the name or an arguments key.
    fn note(&mut self, key: &str) -> bool {
        if key == "name" {
            if self.name && self.conflict.is_none() {
                self.conflict = Some(KeyConflict {
                    first: "name",
                    second: "name",
                });
            }
            self.name = true;
            return true;
        }
        let Some(key) = argument_slot(key).map(|slot| ARGUMENT_KEYS[slot]) else {
            return false;
        };
        match self.arguments {
            Some(first) if self.conflict.is_none() => {
                self.conflict = Some(KeyConflict { first, second: key })
            }
            Some(_) => {}
            None => self.arguments = Some(key),
        }
        true
    }
}

impl<B: JsonBuilder> ObjectVisitor<B> for CallKeys {
    fn action(&mut self, key: &str) -> MemberAction {
        let first_name = key == "name" && !self.name;
        self.note(key);
        if first_name {
            MemberAction::Text
        } else {
            MemberAction::Skip
        }
    }
    fn built(&mut self, _: &str, _: B::Value) {}
    fn text(&mut self, _: &str, value: MemberText) {
        if let MemberText::String(name) = value {
            self.first_name = Some(name);
        }
    }
}

/// The failure of the call object whose JSON text starts `text` when it has a [`KeyConflict`]
/// (read strictly as `options` say, building nothing); `None` for a clean object or any
/// other text.
pub fn call_key_conflict<B: JsonBuilder, E>(
    builder: &mut B,
    text: &str,
    options: ParseOptions,
) -> Option<ShapeFailure<E>> {
    let mut keys = CallKeys::default();
    parse_object_with(text, builder, options, &mut keys).ok()?;
    let conflict = keys.conflict?;
    Some(conflict.failure(keys.first_name))
}

fn member_text<V: JsonView>(value: V) -> MemberText {
    match value.kind() {
        JsonKind::String => MemberText::String(value.string_lossy().unwrap_or_default()),
        JsonKind::Number => match value.number_text() {
            Some(text) => MemberText::Number(text),
            // A number without text (too long to write) is no usable id or name.
            None => MemberText::Other(JsonKind::Number),
        },
        kind => MemberText::Other(kind),
    }
}

impl<V: JsonView> CallFields<V> {
    pub fn of_object(object: &V) -> Self {
        let mut fields = Self {
            name: object.get("name").map(member_text),
            arguments: ARGUMENT_KEYS.map(|key| object.get(key)),
            id: object.get("id").map(member_text),
            function: object.get("function"),
            keys: CallKeys::default(),
            stray: None,
        };
        // Only a call without its arguments where they belong is looked at key by key.
        if fields.name.is_some() && fields.arguments.iter().all(Option::is_none) {
            for (key, value) in object.entries() {
                match argument_slot(&key) {
                    Some(slot) if fields.arguments[slot].is_none() => {
                        fields.arguments[slot] = Some(value)
                    }
                    Some(_) => {}
                    None => fields.note_stray(&key),
                }
            }
        }
        fields
    }
}

impl<V> CallFields<V> {
    /// The failure of a call named `name` whose arguments sit under a key no rule reads (no
    /// arguments key, and a [`CallFields::stray`] one): dropping them would run the call with
    /// none.
    pub(super) fn unread_arguments<E>(&self, name: &str) -> Option<ShapeFailure<E>> {
        let key = self
            .stray
            .as_ref()
            .filter(|_| self.arguments.iter().all(Option::is_none))?;
        Some(ShapeFailure {
            kind: FailureKind::Arguments,
            detail: format!(
                "the call object has no arguments key ({}) but has {key:?}, which is none of them",
                ARGUMENT_KEYS.map(|k| format!("{k:?}")).join(", ")
            ),
            name: Some(name.to_owned()),
            build: None,
            field: key.clone(),
        })
    }

    fn note_stray(&mut self, key: &str) {
        if self.stray.is_none() && !is_call_key(key) {
            self.stray = Some(key.to_owned());
        }
    }
}

impl<B: JsonBuilder> ObjectVisitor<B> for CallFields<B::Value> {
    fn action(&mut self, key: &str) -> MemberAction {
        self.keys.note(key);
        match key {
            "name" | "id" => MemberAction::Text,
            "function" => MemberAction::Build,
            _ if is_arguments_key(key) => MemberAction::Build,
            _ => {
                self.note_stray(key);
                MemberAction::Skip
            }
        }
    }
    fn built(&mut self, key: &str, value: B::Value) {
        if let Some(slot) = argument_slot(key) {
            self.arguments[slot] = Some(value);
        } else if key == "function" {
            self.function = Some(value);
        }
    }
    fn text(&mut self, key: &str, value: MemberText) {
        match key {
            // A repeated name is a conflict; the first is the one a stream announced.
            "name" if self.name.is_some() => {}
            "name" => self.name = Some(value),
            _ => self.id = Some(value),
        }
    }
}

/// Call fields and the byte offset just past their object.
pub type FieldsAndEnd<V> = (CallFields<V>, usize);

/// The call fields of a list's elements, each with its byte offset, and the byte offset just
/// past the list.
pub type FieldsListAndEnd<V> = (Vec<(usize, CallFields<V>)>, usize);

/// The call fields of the JSON object at the start of `text`, read without building the object
/// (only its arguments); `Ok(None)` when the value there is not an object. Also returns the
/// byte offset just past the object.
pub fn call_fields_from_text<B>(
    builder: &mut B,
    text: &str,
    options: ParseOptions,
) -> Result<Option<FieldsAndEnd<B::Value>>, ParseError<B::Error>>
where
    B: JsonBuilder,
{
    let mut fields = CallFields::default();
    let end = parse_object_with(text, builder, options, &mut fields)?;
    Ok(end.map(|end| (fields, end)))
}

/// The call fields of each element of the JSON array at the start of `text`, when every
/// element is a call-like object (the common list form of raw JSON calls); `Ok(None)` for
/// anything else. Also returns the byte offset just past the array.
pub fn call_fields_list_from_text<B>(
    builder: &mut B,
    text: &str,
    options: ParseOptions,
) -> Result<Option<FieldsListAndEnd<B::Value>>, ParseError<B::Error>>
where
    B: JsonBuilder,
{
    let bytes = text.as_bytes();
    let skip_space = |mut i: usize| {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(i) {
            i += 1;
        }
        i
    };
    if bytes.first() != Some(&b'[') {
        return Ok(None);
    }
    let mut list = Vec::new();
    let mut pos = skip_space(1);
    loop {
        let Some((fields, len)) = call_fields_from_text(builder, &text[pos..], options)? else {
            return Ok(None);
        };
        if !fields.is_call_like() {
            return Ok(None);
        }
        list.push((pos, fields));
        pos = skip_space(pos + len);
        match bytes.get(pos) {
            Some(b',') => pos = skip_space(pos + 1),
            Some(b']') => return Ok(Some((list, pos + 1))),
            _ => return Ok(None),
        }
    }
}

impl<V> CallFields<V> {
    /// Whether this looks like a call: a name and some arguments key (candidates, docs/parsing.md).
    pub fn is_call_like(&self) -> bool {
        self.name.is_some()
            && self.arguments[..CANDIDATE_SLOTS]
                .iter()
                .any(Option::is_some)
    }

    /// Whether the object has a `"name"` member (of any type).
    pub fn has_name(&self) -> bool {
        self.name.is_some()
    }
}
