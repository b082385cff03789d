//! The interface between the JSON parser and whatever it builds.
//!
//! The parser never materialises an intermediate tree: it calls a [`JsonBuilder`] as it reads,
//! so the Python binding builds Python objects in the same pass, while this crate's own
//! [`Value`](super::Value) builder serves tests and GIL-free batch work.

use std::str;

/// A decoded JSON string, borrowed from the input when it had no escapes.
///
/// The bytes are UTF-8, except when `has_surrogates` is set: JSON may spell lone UTF-16
/// surrogates (`"\ud800"`), which Python keeps in its `str` but UTF-8 cannot hold. Those are
/// stored as the 3-byte generalised-UTF-8 ("WTF-8") form, and [`JsonStr::code_points`] decodes
/// them back.
#[derive(Clone, Copy, Debug)]
pub struct JsonStr<'a> {
    bytes: &'a [u8],
    ascii: bool,
    has_surrogates: bool,
}

impl<'a> JsonStr<'a> {
    /// # Safety
    /// `bytes` must be valid UTF-8 when `has_surrogates` is false, and valid WTF-8 otherwise;
    /// `ascii` must be true only if every byte is below 0x80.
    pub(crate) unsafe fn new_unchecked(bytes: &'a [u8], ascii: bool, has_surrogates: bool) -> Self {
        Self {
            bytes,
            ascii,
            has_surrogates,
        }
    }

    /// A string known to be valid UTF-8.
    pub fn from_utf8(s: &'a str) -> Self {
        Self {
            bytes: s.as_bytes(),
            ascii: s.is_ascii(),
            has_surrogates: false,
        }
    }

    /// The text, or `None` when it holds lone surrogates.
    pub fn as_str(&self) -> Option<&'a str> {
        if self.has_surrogates {
            None
        } else {
            // SAFETY: guaranteed by the constructor.
            Some(unsafe { str::from_utf8_unchecked(self.bytes) })
        }
    }

    /// The raw (UTF-8 or WTF-8) bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn is_ascii(&self) -> bool {
        self.ascii
    }

    pub fn has_surrogates(&self) -> bool {
        self.has_surrogates
    }

    /// The text with each lone surrogate replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> String {
        match self.as_str() {
            Some(s) => s.to_owned(),
            None => self
                .code_points()
                .map(|c| char::from_u32(c).unwrap_or('\u{fffd}'))
                .collect(),
        }
    }

    /// Unicode code points, lone surrogates included.
    pub fn code_points(&self) -> impl Iterator<Item = u32> + 'a {
        let bytes = self.bytes;
        let mut i = 0;
        std::iter::from_fn(move || {
            let b0 = *bytes.get(i)? as u32;
            let (cp, len) = if b0 < 0x80 {
                (b0, 1)
            } else if b0 < 0xE0 {
                (((b0 & 0x1F) << 6) | (bytes[i + 1] as u32 & 0x3F), 2)
            } else if b0 < 0xF0 {
                (
                    ((b0 & 0x0F) << 12)
                        | ((bytes[i + 1] as u32 & 0x3F) << 6)
                        | (bytes[i + 2] as u32 & 0x3F),
                    3,
                )
            } else {
                (
                    ((b0 & 0x07) << 18)
                        | ((bytes[i + 1] as u32 & 0x3F) << 12)
                        | ((bytes[i + 2] as u32 & 0x3F) << 6)
                        | (bytes[i + 3] as u32 & 0x3F),
                    4,
                )
            };
            i += len;
            Some(cp)
        })
    }
}

/// A value a builder cannot make although its JSON is valid. It concerns that value alone: the
/// parser reports it at the value's offset, as it reports a syntax error
/// ([`SyntaxErrorKind::Refused`](super::SyntaxErrorKind::Refused)), so only the call holding
/// it fails, while a builder's other errors (out of memory) stop the whole parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// An integer of `digits` decimal digits, over the builder's `limit` (Python refuses to
    /// convert integers longer than `sys.get_int_max_str_digits()`, 4300 digits by default).
    IntegerTooLong { digits: usize, limit: usize },
}

impl Refusal {
    pub fn message(self) -> String {
        match self {
            Refusal::IntegerTooLong { digits, limit } => format!(
                "integer of {digits} digits exceeds the limit of {limit} digits for integer \
                 conversion (Python's sys.set_int_max_str_digits)"
            ),
        }
    }
}

/// Receives the parser's output, value by value, bottom up.
///
/// Containers are opened, filled and finished explicitly so that a builder can choose its own
/// representation (a Python `list` is best made in one go from a vector of items).
pub trait JsonBuilder {
    type Value;
    type Object;
    type Array;
    /// A failure of the builder: a value it refuses ([`JsonBuilder::refusal`]), or a failure
    /// of the builder itself (e.g. a Python `MemoryError`).
    type Error;

    /// The [`Refusal`] `error` stands for, when it refuses one value rather than failing the
    /// builder. Builders that refuse nothing keep this default.
    fn refusal(&self, error: &Self::Error) -> Option<Refusal> {
        let _ = error;
        None
    }

    fn null(&mut self) -> Result<Self::Value, Self::Error>;
    fn boolean(&mut self, value: bool) -> Result<Self::Value, Self::Error>;
    fn int(&mut self, value: i64) -> Result<Self::Value, Self::Error>;
    /// An integer outside `i64`, as its exact decimal text (with a leading `-` if negative).
    fn big_int(&mut self, digits: &str) -> Result<Self::Value, Self::Error>;
    fn float(&mut self, value: f64) -> Result<Self::Value, Self::Error>;
    fn string(&mut self, value: JsonStr<'_>) -> Result<Self::Value, Self::Error>;

    fn new_object(&mut self) -> Result<Self::Object, Self::Error>;
    /// Inserts a member; a repeated key replaces the earlier value (like `json.loads`).
    fn object_insert(
        &mut self,
        object: &mut Self::Object,
        key: JsonStr<'_>,
        value: Self::Value,
    ) -> Result<(), Self::Error>;
    fn finish_object(&mut self, object: Self::Object) -> Result<Self::Value, Self::Error>;

    fn new_array(&mut self) -> Result<Self::Array, Self::Error>;
    fn array_push(
        &mut self,
        array: &mut Self::Array,
        value: Self::Value,
    ) -> Result<(), Self::Error>;
    fn finish_array(&mut self, array: Self::Array) -> Result<Self::Value, Self::Error>;

    /// A string that recurs in document after document (a type tag such as
    /// `"content_block_delta"`, the id of a stream's response): a builder may hand out one
    /// shared value. A new string by default.
    fn recurring_string(&mut self, value: &str) -> Result<Self::Value, Self::Error> {
        self.string(JsonStr::from_utf8(value))
    }

    /// An empty object, for arguments that are missing or `null` (docs/parsing.md).
    fn empty_object(&mut self) -> Result<Self::Value, Self::Error> {
        let object = self.new_object()?;
        self.finish_object(object)
    }

    /// Whether this builder takes objects as checked JSON text
    /// ([`JsonBuilder::checked_object`]): callers that can check an object cheaply (call
    /// arguments) then hand it over unbuilt, see [`deferrable_object`](super::deferrable_object).
    fn defers_objects(&self) -> bool {
        false
    }

    /// The object spelled by `json`, strict JSON text the skipper accepted. Only builders that
    /// [defer objects](JsonBuilder::defers_objects) are handed objects this way by the parser
    /// (a batch's deferred arguments reach other builders through [`Value::build`]); this
    /// default builds it. A builder that [refuses](JsonBuilder::refusal) values overrides it to
    /// return its refusals as errors.
    ///
    /// [`Value::build`]: super::Value::build
    fn checked_object(&mut self, json: &str) -> Result<Self::Value, Self::Error>
    where
        Self: Sized,
    {
        match super::parse(json, self, super::ParseOptions::default()) {
            Ok(object) => Ok(object),
            Err(super::ParseError::Build(e)) => Err(e),
            // Not reached for checked text: the parser accepts all the skipper accepts
            // (`json::skip`'s tests hold the two together).
            Err(super::ParseError::Syntax(e)) => {
                debug_assert!(false, "unchecked text handed over as an object: {e}");
                self.empty_object()
            }
        }
    }
}
