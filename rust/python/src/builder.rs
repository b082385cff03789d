//! Python objects straight from the core parser: a [`JsonBuilder`] whose values are Python
//! objects, made with the C API (no intermediate tree, no second conversion).

use std::ffi::CString;
use std::sync::{Mutex, MutexGuard};

use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use toolwire_core::json::{parse, JsonBuilder, JsonStr, ParseError, ParseOptions, Refusal};

use crate::view::PyJson;

/// Builds Python objects; holds the attached-interpreter token and, from the first key on and
/// when free, the key cache.
pub struct PyBuilder<'py> {
    py: Python<'py>,
    /// `None` before the first key (a builder that decodes nothing, such as a stream chunk's,
    /// never takes the lock), and when the cache is in use further up this thread's stack (a
    /// parse re-entered from a finalizer) or poisoned: keys are then simply not cached.
    keys: Option<MutexGuard<'static, KeyCache>>,
    locked: bool,
}

impl<'py> PyBuilder<'py> {
    pub fn new(py: Python<'py>) -> Self {
        Self {
            py,
            keys: None,
            locked: false,
        }
    }

    pub fn py(&self) -> Python<'py> {
        self.py
    }

    /// The `str` for an object key, from the cache when it is available.
    pub fn key(&mut self, key: JsonStr<'_>) -> PyResult<Bound<'py, PyAny>> {
        if !self.locked {
            self.locked = true;
            self.keys = KEY_CACHE.try_lock().ok();
        }
        match self.keys.as_mut() {
            Some(cache) => cache.get(self.py, key),
            None => py_string(self.py, key),
        }
    }

    /// Wraps a new reference returned by the C API, turning NULL into the pending exception.
    fn owned(&self, ptr: *mut ffi::PyObject) -> PyResult<PyJson<'py>> {
        // SAFETY: `ptr` is a new reference (or NULL with an exception set).
        unsafe { Bound::from_owned_ptr_or_err(self.py, ptr) }.map(PyJson)
    }
}

/// Why [`PyBuilder`] did not make a value.
#[derive(Debug)]
pub enum BuildError {
    /// A value Python cannot hold (an integer over the int-string limit): that value alone
    /// fails, at its offset, and so does the call holding it.
    Refused(Refusal),
    /// Python failed (out of memory): the whole operation stops with this exception.
    Python(PyErr),
}

impl From<PyErr> for BuildError {
    fn from(error: PyErr) -> Self {
        BuildError::Python(error)
    }
}

/// A refusal that reaches Python uncaught is a `ValueError`, as Python's own conversion raises.
impl From<BuildError> for PyErr {
    fn from(error: BuildError) -> Self {
        match error {
            BuildError::Refused(refusal) => PyValueError::new_err(refusal.message()),
            BuildError::Python(error) => error,
        }
    }
}

/// The interpreter's limit on the digits of an integer converted from text
/// (`sys.get_int_max_str_digits()`; 0 means none).
fn int_max_str_digits(py: Python<'_>) -> usize {
    py.import("sys")
        .and_then(|sys| sys.call_method0("get_int_max_str_digits"))
        .and_then(|limit| limit.extract())
        .unwrap_or(0)
}

/// A Python `str` from decoded JSON text.
pub fn py_string<'py>(py: Python<'py>, s: JsonStr<'_>) -> PyResult<Bound<'py, PyAny>> {
    let bytes = s.bytes();
    // Lone surrogates are held as WTF-8 (each one a 3-byte sequence of its own), which the
    // UTF-8 decoder takes back, one code point each, under "surrogatepass".
    let errors = if s.has_surrogates() {
        c"surrogatepass".as_ptr()
    } else {
        std::ptr::null()
    };
    // SAFETY: a buffer of the stated length; NULL becomes the pending Python exception.
    unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyUnicode_DecodeUTF8(
                bytes.as_ptr().cast(),
                bytes.len() as ffi::Py_ssize_t,
                errors,
            ),
        )
    }
}

const KEY_CACHE_SLOTS: usize = 16384;
const KEY_CACHE_MAX_LEN: usize = 64;

/// A cached key: its decoded text (compared on lookup) and its `str`.
struct CachedKey {
    hash: u64,
    bytes: Box<[u8]>,
    string: Py<PyString>,
}

/// Object keys repeat across calls and documents (`"name"`, `"arguments"`, schema keys):
/// reusing the `str` saves an allocation and gives dict operations a cached hash.
pub struct KeyCache {
    slots: Vec<Option<CachedKey>>,
}

/// One cache for the process, locked for a whole parse (one lock per call, not per key).
/// Only touched while attached to the interpreter.
static KEY_CACHE: Mutex<KeyCache> = Mutex::new(KeyCache { slots: Vec::new() });

/// A fast hash for short keys: length and first/last 8 bytes, mixed. Read with fixed-size
/// loads (overlapping when the key is short), not copies of variable length.
fn key_hash(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let (head, tail) = match n {
        8.. => (load::<8>(bytes, 0), load::<8>(bytes, n - 8)),
        4..8 => (load::<4>(bytes, 0), load::<4>(bytes, n - 4)),
        1..4 => (
            u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8,
            u64::from(bytes[n - 1]),
        ),
        0 => (0, 0),
    };
    let mixed = (head ^ tail.rotate_left(29) ^ (n as u64).wrapping_mul(0x9E37_79B9))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    mixed ^ (mixed >> 32)
}

/// The `N` (4 or 8) bytes of `bytes` at `at` as a little-endian number.
fn load<const N: usize>(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word[..N].copy_from_slice(&bytes[at..at + N]);
    u64::from_le_bytes(word)
}

impl KeyCache {
    fn get<'py>(&mut self, py: Python<'py>, key: JsonStr<'_>) -> PyResult<Bound<'py, PyAny>> {
        let bytes = key.bytes();
        if bytes.len() > KEY_CACHE_MAX_LEN {
            return py_string(py, key);
        }
        if self.slots.is_empty() {
            self.slots.resize_with(KEY_CACHE_SLOTS, || None);
        }
        let hash = key_hash(bytes);
        let slot = &mut self.slots[(hash as usize) % KEY_CACHE_SLOTS];
        if let Some(entry) = slot {
            if entry.hash == hash && *entry.bytes == *bytes {
                return Ok(entry.string.bind(py).clone().into_any());
            }
        }
        let string = py_string(py, key)?.cast_into::<PyString>()?;
        *slot = Some(CachedKey {
            hash,
            bytes: bytes.into(),
            string: string.clone().unbind(),
        });
        Ok(string.into_any())
    }
}

impl<'py> JsonBuilder for PyBuilder<'py> {
    type Value = PyJson<'py>;
    type Object = Bound<'py, PyDict>;
    type Array = Vec<Bound<'py, PyAny>>;
    type Error = BuildError;

    fn refusal(&self, error: &BuildError) -> Option<Refusal> {
        match error {
            BuildError::Refused(refusal) => Some(*refusal),
            BuildError::Python(_) => None,
        }
    }

    fn null(&mut self) -> Built<'py> {
        Ok(PyJson(self.py.None().into_bound(self.py)))
    }
    fn boolean(&mut self, value: bool) -> Built<'py> {
        Ok(PyJson(
            pyo3::types::PyBool::new(self.py, value)
                .to_owned()
                .into_any(),
        ))
    }
    fn int(&mut self, value: i64) -> Built<'py> {
        // SAFETY: returns a new reference or NULL.
        Ok(self.owned(unsafe { ffi::PyLong_FromLongLong(value) })?)
    }
    fn big_int(&mut self, digits: &str) -> Built<'py> {
        let text = CString::new(digits).map_err(|_| PyMemoryError::new_err("bad digits"))?;
        // SAFETY: a NUL-terminated decimal string.
        let int =
            self.owned(unsafe { ffi::PyLong_FromString(text.as_ptr(), std::ptr::null_mut(), 10) });
        match int {
            Ok(int) => Ok(int),
            // Valid digits are only refused for their number (a MemoryError stays one).
            Err(e) if e.is_instance_of::<PyValueError>(self.py) => {
                Err(BuildError::Refused(Refusal::IntegerTooLong {
                    digits: digits.trim_start_matches('-').len(),
                    limit: int_max_str_digits(self.py),
                }))
            }
            Err(e) => Err(e.into()),
        }
    }
    fn float(&mut self, value: f64) -> Built<'py> {
        // SAFETY: returns a new reference or NULL.
        Ok(self.owned(unsafe { ffi::PyFloat_FromDouble(value) })?)
    }
    fn string(&mut self, value: JsonStr<'_>) -> Built<'py> {
        Ok(py_string(self.py, value).map(PyJson)?)
    }
    fn recurring_string(&mut self, value: &str) -> Built<'py> {
        Ok(self.key(JsonStr::from_utf8(value)).map(PyJson)?)
    }
    fn new_object(&mut self) -> Result<Bound<'py, PyDict>, BuildError> {
        Ok(PyDict::new(self.py))
    }
    fn object_insert(
        &mut self,
        object: &mut Bound<'py, PyDict>,
        key: JsonStr<'_>,
        value: PyJson<'py>,
    ) -> Result<(), BuildError> {
        let key = self.key(key)?;
        // SAFETY: a dict, a str key and a value, all valid; SetItem does not steal.
        let status =
            unsafe { ffi::PyDict_SetItem(object.as_ptr(), key.as_ptr(), value.0.as_ptr()) };
        if status < 0 {
            return Err(PyErr::fetch(self.py).into());
        }
        Ok(())
    }
    fn finish_object(&mut self, object: Bound<'py, PyDict>) -> Built<'py> {
        Ok(PyJson(object.into_any()))
    }
    fn new_array(&mut self) -> Result<Self::Array, BuildError> {
        Ok(Vec::new())
    }
    fn array_push(
        &mut self,
        array: &mut Self::Array,
        value: PyJson<'py>,
    ) -> Result<(), BuildError> {
        array.push(value.0);
        Ok(())
    }
    fn finish_array(&mut self, array: Self::Array) -> Built<'py> {
        Ok(PyList::new(self.py, array).map(|list| PyJson(list.into_any()))?)
    }
    /// Builds the object, its refusals returned as errors (a batch's deferred arguments: the
    /// caller makes that call invalid).
    fn checked_object(&mut self, json: &str) -> Built<'py> {
        match parse(json, self, ParseOptions::default()) {
            Ok(object) => Ok(object),
            Err(ParseError::Build(e)) => Err(e),
            Err(ParseError::Syntax(e)) => match e.kind {
                toolwire_core::json::SyntaxErrorKind::Refused(refusal) => {
                    Err(BuildError::Refused(refusal))
                }
                // Not reached for checked text (see the trait's default).
                _ => self.empty_object(),
            },
        }
    }
}

type Built<'py> = Result<PyJson<'py>, BuildError>;
