//! Read access to decoded JSON, so that call-shape logic is written once for this crate's
//! [`Value`](super::Value) and for the binding's Python objects.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonKind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
    /// Not a JSON value (e.g. an arbitrary Python object handed to `parse_native`).
    Other,
}

impl JsonKind {
    pub fn name(self) -> &'static str {
        match self {
            JsonKind::Null => "null",
            JsonKind::Bool => "a boolean",
            JsonKind::Number => "a number",
            JsonKind::String => "a string",
            JsonKind::Array => "an array",
            JsonKind::Object => "an object",
            JsonKind::Other => "a non-JSON value",
        }
    }
}

/// Implementors are cheap handles (references, Python object pointers), hence `Clone`.
pub trait JsonView: Sized + Clone {
    fn kind(&self) -> JsonKind;
    /// A member of an object (`None` for other kinds).
    fn get(&self, key: &str) -> Option<Self>;
    /// The text of a string that holds no lone surrogates.
    fn as_str(&self) -> Option<&str>;
    fn as_bool(&self) -> Option<bool>;
    /// The items of an array (empty for other kinds).
    fn items(&self) -> Vec<Self>;
    /// The members of an object, in order (empty for other kinds).
    fn entries(&self) -> Vec<(String, Self)>;
    /// The JSON text of a number, as `json.dumps` writes it; `None` for a number whose digits
    /// cannot be written (a Python integer over the interpreter's int-string limit).
    fn number_text(&self) -> Option<String>;
    /// The text of any string, lone surrogates replaced by U+FFFD.
    fn string_lossy(&self) -> Option<String>;
    /// The members under `keys` (`None` where absent), in one pass over the object where the
    /// view can: for a reader that wants several members of a small object, most of them
    /// often absent (a stream chunk's delta).
    fn members<const N: usize>(&self, keys: [&str; N]) -> [Option<Self>; N] {
        keys.map(|key| self.get(key))
    }
    /// An integer number that fits `i64` (not a float, nor a boolean).
    fn as_i64(&self) -> Option<i64> {
        if self.kind() != JsonKind::Number {
            return None;
        }
        self.number_text()?.parse().ok()
    }
}
