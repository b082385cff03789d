//! An incremental structural scan of JSON call text (`{call}` or `[{call}, …]`).
//!
//! It never decodes the whole value: it tracks nesting depth and strings byte by byte (a
//! `memchr` jump through string contents) and, for each object at the call level, records the
//! decoded `name` and `id` and the byte span of the arguments value (`arguments`, else
//! `parameters`, else `input`, the first one written). The final decode is done once, at the
//! end of the call text, by the same code as the batch parsers; this scan only lets the stream
//! announce a call and forward its raw argument bytes early.

use std::ops::Range;

use crate::calls::{id_of, is_arguments_key};
use crate::json::{parse, plain_run, ParseOptions, Value, ValueBuilder};

use crate::scan::find::find_any3;

/// What the scan knows about one call-level object.
#[derive(Clone, Debug, Default)]
pub(crate) struct CallRecord {
    /// Position of the object among the items of a top-level array (0 for a top object).
    pub item: usize,
    pub name: Option<String>,
    pub id: Option<String>,
    pub args_start: Option<usize>,
    pub args_end: Option<usize>,
    pub closed: bool,
    /// Set, with the id known at that byte, once the name is known and the arguments value has
    /// begun (or the object closed without one): the moment a stream announces the call.
    pub ready: Option<Option<String>>,
    /// The arguments are not JSON text the model wrote (qwen3_coder, glm45, pythonic…): the
    /// compact JSON of the decoded value is sent when the call ends.
    pub derived: bool,
}

impl CallRecord {
    fn check_ready(&mut self) {
        if self.ready.is_none() && self.name.is_some() && (self.args_start.is_some() || self.closed)
        {
            self.ready = Some(self.id.clone());
        }
    }

    pub fn args_span(&self) -> Option<Range<usize>> {
        Some(self.args_start?..self.args_end?)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Name,
    Id,
    Arguments,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Key,
    Colon,
    Value,
    After,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StringRole {
    Key,
    Value,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ValueKind {
    Container,
    Str,
    Literal,
}

/// Why [`CallScanner::scan`] returned before the end of its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Reached the end of the input.
    End,
    /// Just after a raw `\n` (the caller may check the next line).
    Newline,
    /// The top-level value closed just before this position.
    TopClosed,
    /// A byte that cannot be JSON outside a string (only with `strict_bytes`).
    NotJson,
}

#[derive(Clone, Debug)]
pub(crate) struct CallScanner {
    /// Bytes of the text scanned so far.
    pub pos: usize,
    pub depth: usize,
    pub in_string: bool,
    escaped: bool,
    /// The quote that closes the current string (`'` only in lenient mode).
    quote: u8,
    lenient: bool,
    /// Reject bytes that cannot occur in strict JSON outside strings.
    strict_bytes: bool,
    /// 1 when the top value is an object, 2 when it is an array, 0 before the first byte.
    call_depth: usize,
    top_is_array: bool,
    /// In a top-level array: the next value starts a new item.
    expect_item: bool,
    items: usize,
    in_call: bool,
    expect: Expect,
    key: Key,
    string_role: StringRole,
    string_start: usize,
    value: Option<(Key, usize, ValueKind)>,
    pub records: Vec<CallRecord>,
    /// Number of the first item of the current top-level value.
    item_base: usize,
    /// Calls are recorded (else only the structure is followed, to find where the value ends).
    track: bool,
}

impl CallScanner {
    pub fn new(options: ParseOptions, strict_bytes: bool) -> Self {
        Self::tracking(options, strict_bytes, true)
    }

    /// A scanner that records calls only when `track` (one that only finds where a value ends
    /// does not pay for names and spans).
    pub fn tracking(options: ParseOptions, strict_bytes: bool, track: bool) -> Self {
        Self {
            pos: 0,
            depth: 0,
            in_string: false,
            escaped: false,
            quote: b'"',
            lenient: options.lenient,
            strict_bytes: strict_bytes && !options.lenient,
            call_depth: 0,
            top_is_array: false,
            expect_item: false,
            items: 0,
            in_call: false,
            expect: Expect::After,
            key: Key::Other,
            string_role: StringRole::Other,
            string_start: 0,
            value: None,
            records: Vec::new(),
            item_base: 0,
            track,
        }
    }

    /// Scans another top-level value from `pos` (Llama 3 `;`-joined objects), keeping the
    /// records found so far; the new value's calls are numbered after them.
    pub fn restart(&mut self, pos: usize) {
        self.item_base = self.records.len();
        self.pos = pos;
        self.depth = 0;
        self.in_string = false;
        self.escaped = false;
        self.call_depth = 0;
        self.top_is_array = false;
        self.expect_item = false;
        self.items = 0;
        self.in_call = false;
        self.expect = Expect::After;
        self.value = None;
    }

    /// Whether any non-whitespace byte has been seen.
    pub fn started(&self) -> bool {
        self.call_depth != 0
    }

    /// Moves past `piece`, appended to a text of `len` bytes scanned to its end, when that is
    /// all [`scan`](Self::scan) would do: inside a string that `piece` does not close, with no
    /// control character (a line break, or a byte a stream sends escaped) in `piece`. Returns
    /// whether it did.
    pub fn skip_string_piece(&mut self, len: usize, piece: &str) -> bool {
        if !self.in_string || self.pos != len {
            return false;
        }
        let bytes = piece.as_bytes();
        let mut escaped = self.escaped;
        let mut i = 0;
        while i < bytes.len() {
            if escaped {
                if bytes[i] < 0x20 {
                    return false;
                }
                escaped = false;
                i += 1;
                continue;
            }
            let end = string_stop(bytes, i, self.quote);
            match bytes.get(end) {
                None => break,
                Some(b'\\') => {
                    escaped = true;
                    i = end + 1;
                }
                Some(_) => return false,
            }
        }
        self.escaped = escaped;
        self.pos += bytes.len();
        true
    }

    /// The quote of the string being scanned (`'` only in lenient mode).
    pub fn quote(&self) -> u8 {
        self.quote
    }

    /// Whether the scan stopped just after a backslash in a string.
    pub fn escaped(&self) -> bool {
        self.escaped
    }

    /// Scans `text[self.pos..]` (`text` only ever grows between calls), returning at the end or
    /// at one of the [`Stop`] points.
    pub fn scan(&mut self, text: &str) -> Stop {
        let bytes = text.as_bytes();
        while self.pos < bytes.len() {
            let i = self.pos;
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                    self.pos += 1;
                    continue;
                }
                let Some(found) = find_any3(self.quote, b'\\', b'\n', &bytes[i..]) else {
                    self.pos = bytes.len();
                    break;
                };
                let at = i + found;
                self.pos = at + 1;
                match bytes[at] {
                    b'\\' => self.escaped = true,
                    b'\n' => return Stop::Newline,
                    _ => {
                        self.in_string = false;
                        self.string_closed(text, at + 1);
                    }
                }
                continue;
            }
            let b = bytes[i];
            self.pos = i + 1;
            if let Some(stop) = self.structural(text, b, i) {
                return stop;
            }
        }
        Stop::End
    }

    fn structural(&mut self, text: &str, b: u8, i: usize) -> Option<Stop> {
        let at_call_level = self.in_call && self.depth == self.call_depth;
        if at_call_level
            && matches!(self.value, Some((_, _, ValueKind::Literal)))
            && matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b',' | b'}' | b']')
        {
            self.value_end(text, i);
        }
        match b {
            b' ' | b'\t' | b'\r' => None,
            b'\n' => Some(Stop::Newline),
            b'"' | b'\'' if b == b'"' || self.lenient => {
                self.value_begins();
                self.in_string = true;
                self.quote = b;
                self.string_start = i;
                self.string_role = if self.in_call && self.depth == self.call_depth {
                    match self.expect {
                        Expect::Key => StringRole::Key,
                        Expect::Value => StringRole::Value,
                        _ => StringRole::Other,
                    }
                } else {
                    StringRole::Other
                };
                if self.string_role == StringRole::Value {
                    self.value_start(i, ValueKind::Str);
                }
                None
            }
            b'{' | b'[' => {
                if self.call_depth == 0 {
                    self.top_is_array = b == b'[';
                    self.call_depth = if self.top_is_array { 2 } else { 1 };
                    self.expect_item = self.top_is_array;
                }
                self.value_begins();
                if at_call_level && self.expect == Expect::Value {
                    self.value_start(i, ValueKind::Container);
                }
                if b == b'{' && self.depth + 1 == self.call_depth && self.track {
                    self.in_call = true;
                    self.expect = Expect::Key;
                    self.records.push(CallRecord {
                        item: self.item_base + self.items.saturating_sub(1),
                        ..CallRecord::default()
                    });
                }
                self.depth += 1;
                if self.top_is_array && self.depth == 1 {
                    self.expect_item = true;
                }
                None
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                if self.in_call && self.depth + 1 == self.call_depth {
                    self.in_call = false;
                    if let Some(record) = self.records.last_mut() {
                        record.closed = true;
                        record.check_ready();
                    }
                } else if self.in_call
                    && self.depth == self.call_depth
                    && matches!(self.value, Some((_, _, ValueKind::Container)))
                {
                    self.value_end(text, i + 1);
                }
                (self.depth == 0).then_some(Stop::TopClosed)
            }
            b',' => {
                if at_call_level {
                    self.expect = Expect::Key;
                }
                if self.top_is_array && self.depth == 1 {
                    self.expect_item = true;
                }
                None
            }
            b':' => {
                if at_call_level && self.expect == Expect::Colon {
                    self.expect = Expect::Value;
                }
                None
            }
            _ => {
                if self.strict_bytes
                    && !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'E' | b'a'..=b'z')
                {
                    return Some(Stop::NotJson);
                }
                self.value_begins();
                if at_call_level && self.expect == Expect::Value {
                    self.value_start(i, ValueKind::Literal);
                }
                None
            }
        }
    }

    /// Counts the items of a top-level array.
    fn value_begins(&mut self) {
        if self.top_is_array && self.depth == 1 && self.expect_item {
            self.items += 1;
            self.expect_item = false;
        }
    }

    fn value_start(&mut self, at: usize, kind: ValueKind) {
        self.value = Some((self.key, at, kind));
        self.expect = Expect::After;
        if self.key == Key::Arguments {
            if let Some(record) = self.records.last_mut() {
                if record.args_start.is_none() {
                    record.args_start = Some(at);
                    record.check_ready();
                } else {
                    // A second arguments key: only the first is forwarded.
                    self.value = Some((Key::Other, at, kind));
                }
            }
        }
    }

    fn value_end(&mut self, text: &str, end: usize) {
        let Some((key, start, _)) = self.value.take() else {
            return;
        };
        let Some(record) = self.records.last_mut() else {
            return;
        };
        match key {
            // Once announced, a call keeps its name: a repeated `"name"` key (broken or not)
            // must not make the name depend on where the chunks were cut.
            Key::Name if record.ready.is_some() => {}
            Key::Name => {
                if let Ok(Value::Str(name)) = parse(
                    &text[start..end],
                    &mut ValueBuilder,
                    ParseOptions::default(),
                ) {
                    record.name = (!name.is_empty()).then(|| name.to_string());
                    record.check_ready();
                }
            }
            Key::Id => {
                record.id = parse(
                    &text[start..end],
                    &mut ValueBuilder,
                    ParseOptions::default(),
                )
                .ok()
                .and_then(|v| id_of(Some(v)));
            }
            Key::Arguments => record.args_end = Some(end),
            Key::Other => {}
        }
    }

    fn string_closed(&mut self, text: &str, end: usize) {
        match self.string_role {
            StringRole::Key => {
                self.key = match &text[self.string_start + 1..end - 1] {
                    "name" => Key::Name,
                    "id" => Key::Id,
                    key if is_arguments_key(key) => Key::Arguments,
                    _ => Key::Other,
                };
                self.expect = Expect::Colon;
            }
            StringRole::Value => self.value_end(text, end),
            StringRole::Other => {}
        }
        self.string_role = StringRole::Other;
    }
}

/// The first byte at or after `i` that ends a plain run of a string opened by `quote` (its
/// quote, a backslash or a control character), or `bytes.len()`. The few bytes of a small
/// stream chunk are looked at in place: the vector scan's call and set-up cost more there.
#[inline]
fn string_stop(bytes: &[u8], i: usize, quote: u8) -> usize {
    const SHORT: usize = 16;
    if bytes.len() - i >= SHORT {
        return plain_run(bytes, i, quote).0;
    }
    bytes[i..]
        .iter()
        .position(|&c| c < 0x20 || c == quote || c == b'\\')
        .map_or(bytes.len(), |n| i + n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_all(text: &str) -> CallScanner {
        let mut scanner = CallScanner::new(ParseOptions::default(), false);
        while scanner.scan(text) != Stop::End {}
        scanner
    }

    #[test]
    fn records_name_id_and_argument_spans() {
        let text = r#"[{"name": "f", "arguments": {"a": "}"}, "id": 7}, 3, {"arguments": "x", "name": "g\u0021"}]"#;
        let scanner = scan_all(text);
        let records = &scanner.records;
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].item, 0);
        assert_eq!(records[0].name.as_deref(), Some("f"));
        assert_eq!(records[0].id.as_deref(), Some("7"));
        assert_eq!(records[0].ready, Some(None));
        assert_eq!(&text[records[0].args_span().unwrap()], r#"{"a": "}"}"#);
        assert_eq!(records[1].item, 2);
        assert_eq!(records[1].name.as_deref(), Some("g!"));
        assert_eq!(&text[records[1].args_span().unwrap()], r#""x""#);
        assert!(records.iter().all(|r| r.closed));
    }

    #[test]
    fn literal_arguments_and_id_before_arguments() {
        let text = r#"{"id": "c1", "name": "f", "arguments": null }"#;
        let record = &scan_all(text).records[0];
        assert_eq!(&text[record.args_span().unwrap()], "null");
        assert_eq!(record.ready, Some(Some("c1".to_owned())));
    }

    #[test]
    fn a_repeated_name_key_does_not_rename_an_announced_call() {
        let text = r#"{"name": "a", "arguments": {}, "name": "b"}"#;
        let mut whole = CallScanner::new(ParseOptions::default(), false);
        while whole.scan(text) != Stop::End {}
        assert_eq!(whole.records[0].name.as_deref(), Some("a"));
        // Before the arguments begin, a later name replaces an earlier one.
        let text = r#"{"name": "a", "name": "b", "arguments": {}}"#;
        assert_eq!(scan_all(text).records[0].name.as_deref(), Some("b"));
    }

    #[test]
    fn nested_call_shapes_are_not_calls() {
        let text = r#"{"name": "f", "arguments": {"name": "g", "arguments": {}}}"#;
        assert_eq!(scan_all(text).records.len(), 1);
    }
}
