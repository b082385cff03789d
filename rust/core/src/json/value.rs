//! This crate's own JSON value: what the parser builds when no Python is attached (tests,
//! GIL-free batch work). Strings and containers are shared (`Arc`), so a value is a cheap
//! handle like a Python object reference, and can cross threads.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

use super::builder::{JsonBuilder, JsonStr};
use super::view::{JsonKind, JsonView};
use super::write::python_float_repr;

/// An object member's key. The keys that response and call readers look up are static text:
/// most members of a parsed response are built without allocating their key.
pub type Key = Cow<'static, str>;

/// The [`Key`] of decoded key text.
fn object_key(key: JsonStr<'_>) -> Key {
    match key.as_str() {
        Some(text) => known_key(text).map_or_else(|| Cow::Owned(text.to_owned()), Cow::Borrowed),
        None => Cow::Owned(key.to_string_lossy()),
    }
}

/// The static text of a key the body and call readers look up.
pub(crate) fn known_key(text: &str) -> Option<&'static str> {
    Some(match text {
        "id" => "id",
        "type" => "type",
        "name" => "name",
        "function" => "function",
        "arguments" => "arguments",
        "parameters" => "parameters",
        "input" => "input",
        "args" => "args",
        "call_id" => "call_id",
        "functionCall" => "functionCall",
        "index" => "index",
        "text" => "text",
        "content" => "content",
        "role" => "role",
        "message" => "message",
        "tool_calls" => "tool_calls",
        "choices" => "choices",
        "parts" => "parts",
        "output" => "output",
        "candidates" => "candidates",
        "response" => "response",
        "request_id" => "request_id",
        "tool_call" => "tool_call",
        "properties" => "properties",
        "required" => "required",
        "items" => "items",
        _ => return None,
    })
}

#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer outside `i64`, as exact decimal text.
    BigInt(Arc<str>),
    Float(f64),
    Str(Arc<str>),
    /// A string holding lone surrogates, in WTF-8 (see [`JsonStr`]).
    WtfStr(Arc<[u8]>),
    Array(Arc<Vec<Value>>),
    /// Members in first-seen order; a repeated key keeps its first position and last value.
    Object(Arc<Vec<(Key, Value)>>),
    /// An object kept as its JSON text, which the strict skipper accepted: built in one pass
    /// by whichever builder finally needs it (see [`DeferringBuilder`]). Reads through
    /// [`JsonView`] build it first. Only checked text of one object may be held here (made
    /// through [`JsonBuilder::checked_object`] after [`deferrable_object`](super::deferrable_object)).
    Deferred(Arc<str>),
}

impl Value {
    pub fn object<const N: usize>(members: [(&str, Value); N]) -> Self {
        Value::Object(Arc::new(
            members
                .into_iter()
                .map(|(k, v)| (object_key(JsonStr::from_utf8(k)), v))
                .collect(),
        ))
    }

    pub fn array(items: Vec<Value>) -> Self {
        Value::Array(Arc::new(items))
    }

    pub fn str(s: &str) -> Self {
        Value::Str(s.into())
    }

    /// This value with a deferred object built.
    fn expanded(&self) -> Cow<'_, Value> {
        match self {
            Value::Deferred(_) => Cow::Owned(
                self.build(&mut ValueBuilder)
                    .unwrap_or_else(|never| match never {}),
            ),
            other => Cow::Borrowed(other),
        }
    }

    /// Rebuilds this value with another builder (as Python objects, once a batch parsed with
    /// the interpreter detached is handed back): exactly what parsing its JSON would build.
    pub fn build<B: JsonBuilder>(&self, builder: &mut B) -> Result<B::Value, B::Error> {
        match self {
            Value::Null => builder.null(),
            Value::Bool(b) => builder.boolean(*b),
            Value::Int(i) => builder.int(*i),
            Value::BigInt(digits) => builder.big_int(digits),
            Value::Float(f) => builder.float(*f),
            Value::Str(s) => builder.string(JsonStr::from_utf8(s)),
            // SAFETY: built by `ValueBuilder::string` from a WTF-8 `JsonStr`.
            Value::WtfStr(bytes) => {
                builder.string(unsafe { JsonStr::new_unchecked(bytes, false, true) })
            }
            Value::Array(items) => {
                let mut array = builder.new_array()?;
                for item in items.iter() {
                    let item = item.build(builder)?;
                    builder.array_push(&mut array, item)?;
                }
                builder.finish_array(array)
            }
            Value::Object(members) => {
                let mut object = builder.new_object()?;
                for (key, item) in members.iter() {
                    let item = item.build(builder)?;
                    builder.object_insert(&mut object, JsonStr::from_utf8(key), item)?;
                }
                builder.finish_object(object)
            }
            Value::Deferred(json) => builder.checked_object(json),
        }
    }
}

/// Equal when the JSON is: a deferred object equals the object its text spells.
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::BigInt(a), Value::BigInt(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::WtfStr(a), Value::WtfStr(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => a == b,
            (Value::Object(a), Value::Object(b)) => a == b,
            (Value::Deferred(a), Value::Deferred(b)) if a == b => true,
            (Value::Deferred(_), _) | (_, Value::Deferred(_)) if self.kind() == other.kind() => {
                *self.expanded() == *other.expanded()
            }
            _ => false,
        }
    }
}

/// Builds [`Value`]s.
#[derive(Default)]
pub struct ValueBuilder;

impl JsonBuilder for ValueBuilder {
    type Value = Value;
    type Object = Vec<(Key, Value)>;
    type Array = Vec<Value>;
    type Error = std::convert::Infallible;

    fn null(&mut self) -> Result<Value, Self::Error> {
        Ok(Value::Null)
    }
    fn boolean(&mut self, value: bool) -> Result<Value, Self::Error> {
        Ok(Value::Bool(value))
    }
    fn int(&mut self, value: i64) -> Result<Value, Self::Error> {
        Ok(Value::Int(value))
    }
    fn big_int(&mut self, digits: &str) -> Result<Value, Self::Error> {
        Ok(Value::BigInt(digits.into()))
    }
    fn float(&mut self, value: f64) -> Result<Value, Self::Error> {
        Ok(Value::Float(value))
    }
    fn string(&mut self, value: JsonStr<'_>) -> Result<Value, Self::Error> {
        Ok(match value.as_str() {
            Some(s) => Value::Str(s.into()),
            None => Value::WtfStr(value.bytes().into()),
        })
    }
    fn new_object(&mut self) -> Result<Self::Object, Self::Error> {
        // Sized for the common object up front: growing from empty costs a call through the
        // generic growth path on the first member.
        Ok(Vec::with_capacity(4))
    }
    fn object_insert(
        &mut self,
        object: &mut Self::Object,
        key: JsonStr<'_>,
        value: Value,
    ) -> Result<(), Self::Error> {
        object.push((object_key(key), value));
        Ok(())
    }
    fn finish_object(&mut self, mut object: Self::Object) -> Result<Value, Self::Error> {
        let kept = dedupe_members(&mut object);
        object.truncate(kept);
        Ok(Value::Object(Arc::new(object)))
    }
    fn new_array(&mut self) -> Result<Self::Array, Self::Error> {
        Ok(Vec::new())
    }
    fn array_push(&mut self, array: &mut Self::Array, value: Value) -> Result<(), Self::Error> {
        array.push(value);
        Ok(())
    }
    fn finish_array(&mut self, array: Self::Array) -> Result<Value, Self::Error> {
        Ok(Value::Array(Arc::new(array)))
    }
}

/// Builds [`Value`]s like [`ValueBuilder`], but keeps the objects it is handed as checked text
/// ([`Value::Deferred`]). Batch extraction parses with it off the interpreter: call arguments
/// then cost one copy of their text there, and are built once, as Python objects, from it.
#[derive(Default)]
pub struct DeferringBuilder;

impl JsonBuilder for DeferringBuilder {
    type Value = Value;
    type Object = Vec<(Key, Value)>;
    type Array = Vec<Value>;
    type Error = std::convert::Infallible;

    fn null(&mut self) -> Result<Value, Self::Error> {
        ValueBuilder.null()
    }
    fn boolean(&mut self, value: bool) -> Result<Value, Self::Error> {
        ValueBuilder.boolean(value)
    }
    fn int(&mut self, value: i64) -> Result<Value, Self::Error> {
        ValueBuilder.int(value)
    }
    fn big_int(&mut self, digits: &str) -> Result<Value, Self::Error> {
        ValueBuilder.big_int(digits)
    }
    fn float(&mut self, value: f64) -> Result<Value, Self::Error> {
        ValueBuilder.float(value)
    }
    fn string(&mut self, value: JsonStr<'_>) -> Result<Value, Self::Error> {
        ValueBuilder.string(value)
    }
    fn new_object(&mut self) -> Result<Self::Object, Self::Error> {
        ValueBuilder.new_object()
    }
    fn object_insert(
        &mut self,
        object: &mut Self::Object,
        key: JsonStr<'_>,
        value: Value,
    ) -> Result<(), Self::Error> {
        ValueBuilder.object_insert(object, key, value)
    }
    fn finish_object(&mut self, object: Self::Object) -> Result<Value, Self::Error> {
        ValueBuilder.finish_object(object)
    }
    fn new_array(&mut self) -> Result<Self::Array, Self::Error> {
        ValueBuilder.new_array()
    }
    fn array_push(&mut self, array: &mut Self::Array, value: Value) -> Result<(), Self::Error> {
        ValueBuilder.array_push(array, value)
    }
    fn finish_array(&mut self, array: Self::Array) -> Result<Value, Self::Error> {
        ValueBuilder.finish_array(array)
    }
    fn defers_objects(&self) -> bool {
        true
    }
    fn checked_object(&mut self, json: &str) -> Result<Value, Self::Error> {
        Ok(Value::Deferred(json.into()))
    }
}

/// Key equality where it is asked most (readers looking a few known keys up in every object,
/// the check for repeated keys): the same static text (see [`object_key`]) is equal at once,
/// and most other keys differ in length or first byte before any byte comparison is called.
#[inline]
pub(crate) fn same_key(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && (a.as_ptr() == b.as_ptr() || (a.as_bytes().first() == b.as_bytes().first() && a == b))
}

/// Applies "last value wins, first position kept" to repeated keys, in linear time: the
/// members left are the first ones of the slice, and their number is returned (the caller
/// drops the rest).
pub(crate) fn dedupe_members<K: AsRef<str> + Eq + Hash, V>(members: &mut [(K, V)]) -> usize {
    let len = members.len();
    // Most objects are small and have no repeats: check pairwise without hashing.
    let repeats = |i: usize| {
        let key = members[i].0.as_ref();
        members[..i].iter().any(|(k, _)| same_key(k.as_ref(), key))
    };
    if len < 2 || (len <= 16 && !(1..len).any(repeats)) {
        return len;
    }
    // Where each member's key first appears.
    let first: Vec<usize> = {
        let mut first_index = HashMap::with_capacity(len);
        members
            .iter()
            .enumerate()
            .map(|(i, (key, _))| *first_index.entry(key).or_insert(i))
            .collect()
    };
    // Each repeat's value moves to its key's first place; in order, so the last one stays.
    for (i, &first) in first.iter().enumerate() {
        if first != i {
            let (earlier, later) = members.split_at_mut(i);
            std::mem::swap(&mut earlier[first].1, &mut later[0].1);
        }
    }
    // The first places move to the front, in order.
    let mut kept = 0;
    for (i, &first) in first.iter().enumerate() {
        if first == i {
            members.swap(kept, i);
            kept += 1;
        }
    }
    kept
}

impl JsonView for Value {
    fn kind(&self) -> JsonKind {
        match self {
            Value::Null => JsonKind::Null,
            Value::Bool(_) => JsonKind::Bool,
            Value::Int(_) | Value::BigInt(_) | Value::Float(_) => JsonKind::Number,
            Value::Str(_) | Value::WtfStr(_) => JsonKind::String,
            Value::Array(_) => JsonKind::Array,
            Value::Object(_) | Value::Deferred(_) => JsonKind::Object,
        }
    }
    fn get(&self, key: &str) -> Option<Self> {
        match self {
            Value::Deferred(_) => self.expanded().get(key),
            Value::Object(members) => members
                .iter()
                .rev() // duplicates are merged, so any order finds the one entry
                .find(|(k, _)| same_key(k, key))
                .map(|(_, v)| v.clone()),
            _ => None,
        }
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
    fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn items(&self) -> Vec<Self> {
        match self {
            Value::Array(items) => items.to_vec(),
            _ => Vec::new(),
        }
    }
    fn entries(&self) -> Vec<(String, Self)> {
        match self {
            Value::Object(members) => members
                .iter()
                .map(|(key, value)| (key.to_string(), value.clone()))
                .collect(),
            Value::Deferred(_) => self.expanded().entries(),
            _ => Vec::new(),
        }
    }
    fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
    fn number_text(&self) -> Option<String> {
        Some(match self {
            Value::Int(i) => i.to_string(),
            Value::BigInt(digits) => digits.to_string(),
            Value::Float(f) => python_float_repr(*f),
            _ => String::new(),
        })
    }
    fn string_lossy(&self) -> Option<String> {
        match self {
            Value::Str(s) => Some(s.to_string()),
            // SAFETY: built by `ValueBuilder::string` from a WTF-8 `JsonStr`.
            Value::WtfStr(bytes) => {
                Some(unsafe { JsonStr::new_unchecked(bytes, false, true) }.to_string_lossy())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse, ParseOptions};

    #[test]
    fn keys_are_equal_by_their_text_wherever_it_lives() {
        let owned = String::from("name");
        for (a, b, equal) in [
            ("name", "name", true),
            ("name", owned.as_str(), true),
            ("name", "type", false),
            ("name", "nams", false),
            ("name", "names", false),
            ("", "", true),
            ("é", "é", true),
            ("é", "è", false),
        ] {
            assert_eq!(same_key(a, b), equal, "{a:?} {b:?}");
            assert_eq!(same_key(b, a), equal, "{b:?} {a:?}");
        }
    }

    #[test]
    fn repeated_keys_keep_their_first_place_and_last_value() {
        for n in 1..60usize {
            for distinct in [1, 2, n / 3 + 1, n] {
                let pairs: Vec<(String, usize)> = (0..n)
                    .map(|i| (format!("k{}", (i * 7) % distinct), i))
                    .collect();
                let json = pairs
                    .iter()
                    .map(|(k, i)| format!("\"{k}\": {i}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let value = parse(
                    &format!("{{{json}}}"),
                    &mut ValueBuilder,
                    ParseOptions::default(),
                )
                .unwrap();
                let mut want: Vec<(String, Value)> = Vec::new();
                for (key, i) in &pairs {
                    let i = Value::Int(*i as i64);
                    match want.iter_mut().find(|(k, _)| k == key) {
                        Some(member) => member.1 = i,
                        None => want.push((key.clone(), i)),
                    }
                }
                assert_eq!(value.entries(), want, "{n} members, {distinct} keys");
            }
        }
    }

    #[test]
    fn keys_that_readers_look_up_are_static_and_read_like_any_other() {
        assert!(matches!(
            object_key(JsonStr::from_utf8("arguments")),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            object_key(JsonStr::from_utf8("usage")),
            Cow::Owned(_)
        ));
        let read = [
            "choices",
            "message",
            "content",
            "text",
            "tool_calls",
            "function",
            "name",
        ];
        for key in crate::calls::ARGUMENT_KEYS.into_iter().chain(read) {
            let static_key = object_key(JsonStr::from_utf8(key));
            assert!(matches!(static_key, Cow::Borrowed(k) if k == key), "{key}");
        }
        let json = r#"{"id": 1, "usage": 2, "i\u0064": 3, "\ud800": 4}"#;
        let value = parse(json, &mut ValueBuilder, ParseOptions::default()).unwrap();
        assert_eq!(value.get("id"), Some(Value::Int(3)));
        assert_eq!(value.get("usage"), Some(Value::Int(2)));
        let keys: Vec<String> = value.entries().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["id", "usage", "\u{fffd}"]);
    }
}
