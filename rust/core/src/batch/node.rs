//! A line's values in a bump arena: what batch extraction reads of a line, built without a
//! heap allocation, reference count or destructor per value.
//!
//! A skimmed line is a small tree read once and thrown away, and [`Value`]'s shared containers
//! made that tree cost more than reading the calls from it. [`Node`]s are plain references
//! into one arena per thread, emptied before each line; what outlives the line (the calls'
//! arguments, the record's id) is turned into [`Value`]s at the end ([`Node::build`]).

use std::cell::OnceCell;
use std::convert::Infallible;

use bumpalo::collections::Vec as ArenaVec;
use bumpalo::Bump;

use crate::json::{
    dedupe_members, known_key, parse, python_float_repr, same_key, JsonBuilder, JsonKind, JsonStr,
    JsonView, ParseOptions,
};

/// One JSON value of a line, in the line's arena.
///
/// Sixteen bytes, so that functions return it in two registers: slices and strings are held
/// through a reference to their (arena) fat pointer. Returned through memory, a node was
/// written field by field and read back whole, which stalled on store forwarding.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    Null,
    // Two variants rather than `Bool(bool)`: a byte of payload beside the tag made every move
    // of a node copy that byte with odd-sized loads, which stalled on store forwarding.
    False,
    True,
    Int(i64),
    /// An integer outside `i64`, as exact decimal text.
    BigInt(&'a &'a str),
    Float(f64),
    Str(&'a &'a str),
    /// A string holding lone surrogates, in WTF-8 (see [`JsonStr`]).
    WtfStr(&'a &'a [u8]),
    Array(&'a &'a [Node<'a>]),
    /// Members in first-seen order; a repeated key keeps its first position and last value.
    /// Keys that are not UTF-8 text hold U+FFFD in place of their lone surrogates.
    Object(&'a &'a [Member<'a>]),
    /// An object kept as checked JSON text, like [`Value::Deferred`](crate::json::Value).
    Deferred(&'a DeferredObject<'a>),
}

const _: () = assert!(std::mem::size_of::<Node>() == 16);

/// An object member: its key and value.
type Member<'a> = (&'a str, Node<'a>);

/// The text of a deferred object, and the object itself once something reads inside it.
#[derive(Debug)]
pub struct DeferredObject<'a> {
    json: &'a str,
    arena: &'a Bump,
    built: OnceCell<Node<'a>>,
}

impl<'a> DeferredObject<'a> {
    /// The object's JSON text, which the strict skipper accepted.
    pub(super) fn json(&self) -> &'a str {
        self.json
    }

    fn object(&self) -> Node<'a> {
        *self.built.get_or_init(|| {
            let mut builder = ArenaBuilder::new(self.arena);
            match parse(self.json, &mut builder, ParseOptions::default()) {
                Ok(object) => object,
                Err(crate::json::ParseError::Build(never)) => match never {},
                // Not reached: only text the skipper accepted is deferred.
                Err(crate::json::ParseError::Syntax(_)) => Node::Object(self.arena.alloc(&[][..])),
            }
        })
    }
}

impl<'a> Node<'a> {
    /// This value made with another builder (a [`Value`](crate::json::Value) that outlives
    /// the arena): exactly what parsing its JSON would build.
    pub fn build<B: JsonBuilder>(&self, builder: &mut B) -> Result<B::Value, B::Error> {
        match *self {
            Node::Null => builder.null(),
            Node::False => builder.boolean(false),
            Node::True => builder.boolean(true),
            Node::Int(i) => builder.int(i),
            Node::BigInt(digits) => builder.big_int(digits),
            Node::Float(f) => builder.float(f),
            Node::Str(s) => builder.string(JsonStr::from_utf8(s)),
            // SAFETY: made by `ArenaBuilder::string` from a WTF-8 `JsonStr`.
            Node::WtfStr(bytes) => {
                builder.string(unsafe { JsonStr::new_unchecked(bytes, false, true) })
            }
            Node::Array(items) => {
                let mut array = builder.new_array()?;
                for item in *items {
                    let item = item.build(builder)?;
                    builder.array_push(&mut array, item)?;
                }
                builder.finish_array(array)
            }
            Node::Object(members) => {
                let mut object = builder.new_object()?;
                for (key, item) in *members {
                    let item = item.build(builder)?;
                    builder.object_insert(&mut object, JsonStr::from_utf8(key), item)?;
                }
                builder.finish_object(object)
            }
            Node::Deferred(deferred) => builder.checked_object(deferred.json),
        }
    }

    fn members(&self) -> &'a [Member<'a>] {
        match *self {
            Node::Object(members) => members,
            Node::Deferred(deferred) => deferred.object().members(),
            _ => &[],
        }
    }
}

impl JsonView for Node<'_> {
    fn kind(&self) -> JsonKind {
        match self {
            Node::Null => JsonKind::Null,
            Node::False | Node::True => JsonKind::Bool,
            Node::Int(_) | Node::BigInt(_) | Node::Float(_) => JsonKind::Number,
            Node::Str(_) | Node::WtfStr(_) => JsonKind::String,
            Node::Array(_) => JsonKind::Array,
            Node::Object(_) | Node::Deferred(_) => JsonKind::Object,
        }
    }
    fn get(&self, key: &str) -> Option<Self> {
        self.members()
            .iter()
            .find(|(k, _)| same_key(k, key))
            .map(|(_, v)| *v)
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }
    fn as_bool(&self) -> Option<bool> {
        match self {
            Node::False => Some(false),
            Node::True => Some(true),
            _ => None,
        }
    }
    fn items(&self) -> Vec<Self> {
        match self {
            Node::Array(items) => items.to_vec(),
            _ => Vec::new(),
        }
    }
    fn entries(&self) -> Vec<(String, Self)> {
        self.members()
            .iter()
            .map(|(key, value)| ((*key).to_owned(), *value))
            .collect()
    }
    fn number_text(&self) -> Option<String> {
        Some(match self {
            Node::Int(i) => i.to_string(),
            Node::BigInt(digits) => (**digits).to_owned(),
            Node::Float(f) => python_float_repr(*f),
            _ => String::new(),
        })
    }
    fn string_lossy(&self) -> Option<String> {
        match self {
            Node::Str(s) => Some((**s).to_owned()),
            // SAFETY: made by `ArenaBuilder::string` from a WTF-8 `JsonStr`.
            Node::WtfStr(bytes) => {
                Some(unsafe { JsonStr::new_unchecked(bytes, false, true) }.to_string_lossy())
            }
            _ => None,
        }
    }
}

/// Builds [`Node`]s in an arena, deferring the objects it is handed as checked text (like
/// [`DeferringBuilder`](crate::json::DeferringBuilder)).
///
/// The members and items of the containers being built wait on two stacks, innermost last: a
/// container takes its values from its own span of the stack when it is finished. A parse that
/// gave up inside a container (a format trying a value one way, then another) may leave values
/// above that span; the container's next value, or its finish, cuts them off.
pub struct ArenaBuilder<'a> {
    arena: &'a Bump,
    members: ArenaVec<'a, (&'a str, Node<'a>)>,
    items: ArenaVec<'a, Node<'a>>,
}

impl<'a> ArenaBuilder<'a> {
    pub fn new(arena: &'a Bump) -> Self {
        Self {
            arena,
            members: ArenaVec::new_in(arena),
            items: ArenaVec::new_in(arena),
        }
    }

    /// A deferred object whose checked text already lives as long as the arena (a slice of
    /// the line): kept in place, not copied.
    pub fn deferred(&mut self, json: &'a str) -> Node<'a> {
        Node::Deferred(self.arena.alloc(DeferredObject {
            json,
            arena: self.arena,
            built: OnceCell::new(),
        }))
    }

    /// A reference to `fat` (a slice or `str`) that fits in one word, for a [`Node`].
    fn thin<T: ?Sized>(&self, fat: &'a T) -> &'a &'a T {
        self.arena.alloc(fat)
    }

    /// A key as [`Value`](crate::json::Value) keeps it (static text for the keys readers look
    /// up, lone surrogates replaced), in the arena.
    fn key(&self, key: JsonStr<'_>) -> &'a str {
        match key.as_str() {
            Some(text) => known_key(text).unwrap_or_else(|| self.arena.alloc_str(text)),
            None => self.arena.alloc_str(&key.to_string_lossy()),
        }
    }
}

/// Where a container's own values lie on their stack.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    start: usize,
    len: usize,
}

impl Span {
    fn at(start: usize) -> Self {
        Self { start, len: 0 }
    }

    fn end(&self) -> usize {
        self.start + self.len
    }

    /// Adds a value to this container, cutting off what a parse that gave up left above it.
    fn push<T>(&mut self, stack: &mut ArenaVec<'_, T>, value: T) {
        stack.truncate(self.end());
        stack.push(value);
        self.len += 1;
    }

    /// This container's values, moved off the stack into the arena; `keep` may reorder them
    /// and says how many of the first ones stay.
    fn take<'a, T: Copy>(
        self,
        stack: &mut ArenaVec<'a, T>,
        arena: &'a Bump,
        keep: impl FnOnce(&mut [T]) -> usize,
    ) -> &'a [T] {
        debug_assert!(self.end() <= stack.len(), "a container outlived its own");
        stack.truncate(self.end());
        let start = self.start.min(stack.len());
        let kept = keep(&mut stack[start..]);
        let values = arena.alloc_slice_copy(&stack[start..start + kept]);
        stack.truncate(start);
        values
    }
}

impl<'a> JsonBuilder for ArenaBuilder<'a> {
    type Value = Node<'a>;
    type Object = Span;
    type Array = Span;
    type Error = Infallible;

    fn null(&mut self) -> Result<Node<'a>, Infallible> {
        Ok(Node::Null)
    }
    fn boolean(&mut self, value: bool) -> Result<Node<'a>, Infallible> {
        Ok(if value { Node::True } else { Node::False })
    }
    fn int(&mut self, value: i64) -> Result<Node<'a>, Infallible> {
        Ok(Node::Int(value))
    }
    fn big_int(&mut self, digits: &str) -> Result<Node<'a>, Infallible> {
        Ok(Node::BigInt(self.thin(self.arena.alloc_str(digits))))
    }
    fn float(&mut self, value: f64) -> Result<Node<'a>, Infallible> {
        Ok(Node::Float(value))
    }
    fn string(&mut self, value: JsonStr<'_>) -> Result<Node<'a>, Infallible> {
        Ok(match value.as_str() {
            Some(s) => Node::Str(self.thin(self.arena.alloc_str(s))),
            None => Node::WtfStr(self.thin(self.arena.alloc_slice_copy(value.bytes()))),
        })
    }
    fn new_object(&mut self) -> Result<Span, Infallible> {
        Ok(Span::at(self.members.len()))
    }
    fn object_insert(
        &mut self,
        object: &mut Span,
        key: JsonStr<'_>,
        value: Node<'a>,
    ) -> Result<(), Infallible> {
        let key = self.key(key);
        object.push(&mut self.members, (key, value));
        Ok(())
    }
    fn finish_object(&mut self, object: Span) -> Result<Node<'a>, Infallible> {
        let members = object.take(&mut self.members, self.arena, dedupe_members);
        Ok(Node::Object(self.thin(members)))
    }
    fn new_array(&mut self) -> Result<Span, Infallible> {
        Ok(Span::at(self.items.len()))
    }
    fn array_push(&mut self, array: &mut Span, value: Node<'a>) -> Result<(), Infallible> {
        array.push(&mut self.items, value);
        Ok(())
    }
    fn finish_array(&mut self, array: Span) -> Result<Node<'a>, Infallible> {
        let items = array.take(&mut self.items, self.arena, |items| items.len());
        Ok(Node::Array(self.thin(items)))
    }
    fn defers_objects(&self) -> bool {
        true
    }
    fn checked_object(&mut self, json: &str) -> Result<Node<'a>, Infallible> {
        let json = self.arena.alloc_str(json);
        Ok(self.deferred(json))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{to_compact_json, DeferringBuilder, Value, ValueBuilder};

    fn arena_parse<'a>(arena: &'a Bump, json: &str) -> Node<'a> {
        parse(json, &mut ArenaBuilder::new(arena), ParseOptions::default()).unwrap()
    }

    fn value_parse(json: &str) -> Value {
        parse(json, &mut ValueBuilder, ParseOptions::default()).unwrap()
    }

    /// Objects with every number of members around the pairwise-check limit, some keys
    /// repeated: first position, last value, like `json.loads`.
    fn repeated_keys() -> Vec<String> {
        (1..40)
            .map(|n| {
                let members: Vec<String> = (0..n)
                    .map(|i| format!("\"k{}\": {i}", i % (n / 2 + 1)))
                    .collect();
                format!("{{{}}}", members.join(", "))
            })
            .collect()
    }

    #[test]
    fn nodes_read_and_build_like_values() {
        let mut cases = vec![
            r#"{"a": [1, -2.5, 1e400, 123456789012345678901234567890, true, null]}"#.to_owned(),
            r#"{"s": "caf\u00e9 \ud83d\ude00", "lone": "\ud800x", "\udc00": 1}"#.to_owned(),
            r#"[{"x": {"y": [[], {}]}}, "", 0]"#.to_owned(),
            r#"{"a": 1, "b": 2, "a": 3, "c": {"d": 4, "d": 5}}"#.to_owned(),
        ];
        cases.extend(repeated_keys());
        let arena = Bump::new();
        for json in &cases {
            let node = arena_parse(&arena, json);
            let value = value_parse(json);
            assert_eq!(to_compact_json(&node), to_compact_json(&value), "{json}");
            let Ok(built) = node.build(&mut ValueBuilder);
            assert_eq!(built, value, "{json}");
            for (key, member) in value.entries() {
                let read = node.get(&key).map(|n| to_compact_json(&n));
                assert_eq!(read, Some(to_compact_json(&member)), "{json} {key}");
            }
        }
    }

    #[test]
    fn deferred_objects_read_like_built_ones_and_stay_text_when_built() {
        let arena = Bump::new();
        let json = r#"{"city": "Paris", "days": [1, 2], "unit": {"c": true}}"#;
        let mut builder = ArenaBuilder::new(&arena);
        let Ok(deferred) = builder.checked_object(json);
        let in_place = builder.deferred(json);
        let built = arena_parse(&arena, json);
        for node in [deferred, in_place] {
            assert!(matches!(node, Node::Deferred(_)));
            assert_eq!(node.kind(), JsonKind::Object);
            assert_eq!(to_compact_json(&node), to_compact_json(&built));
            assert_eq!(
                node.get("unit").map(|n| to_compact_json(&n)),
                Some(r#"{"c":true}"#.into())
            );
            assert_eq!(node.entries().len(), 3);
            let Ok(value) = node.build(&mut DeferringBuilder);
            assert!(matches!(&value, Value::Deferred(text) if &**text == json));
            assert_eq!(value, value_parse(json));
        }
    }

    #[test]
    fn containers_finish_from_where_they_started() {
        let arena = Bump::new();
        let mut builder = ArenaBuilder::new(&arena);
        // An abandoned object (a parse that gave up) leaves members below the next one's.
        let Ok(mut abandoned) = builder.new_object();
        let Ok(()) = builder.object_insert(&mut abandoned, JsonStr::from_utf8("stale"), Node::Null);
        let node = parse(
            r#"{"a": [1, {"b": 2}], "c": []}"#,
            &mut builder,
            ParseOptions::default(),
        )
        .unwrap();
        assert_eq!(to_compact_json(&node), r#"{"a":[1,{"b":2}],"c":[]}"#);
    }

    #[test]
    fn values_left_by_a_container_given_up_inside_another_are_cut_off() {
        let arena = Bump::new();
        let mut builder = ArenaBuilder::new(&arena);
        let key = JsonStr::from_utf8;
        let Ok(mut outer) = builder.new_object();
        let Ok(mut list) = builder.new_array();
        let Ok(()) = builder.object_insert(&mut outer, key("a"), Node::Int(1));
        // Given up: an object and an array opened, filled, never finished.
        let Ok(mut abandoned) = builder.new_object();
        let Ok(()) = builder.object_insert(&mut abandoned, key("a"), Node::Int(666));
        let Ok(mut abandoned_items) = builder.new_array();
        let Ok(()) = builder.array_push(&mut abandoned_items, Node::Int(666));
        let Ok(()) = builder.object_insert(&mut outer, key("b"), Node::Int(2));
        let Ok(()) = builder.array_push(&mut list, Node::Int(3));
        let Ok(array) = builder.finish_array(list);
        let Ok(()) = builder.object_insert(&mut outer, key("c"), array);
        let Ok(object) = builder.finish_object(outer);
        assert_eq!(to_compact_json(&object), r#"{"a":1,"b":2,"c":[3]}"#);
    }
}
