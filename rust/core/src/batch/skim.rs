//! One log line parsed once, building only the members batch extraction reads.
//!
//! A logged response is mostly metadata (`usage`, `model`, timings, ids): building values for
//! it costs more than reading the calls. [`parse_line`] walks the line's top-level objects
//! (the record, the `--field` path, the body) itself, builds the members a body's shape is read
//! from, and only checks the syntax of the rest. An object whose members were all skipped keeps
//! one placeholder member, so it still counts as non-empty (`{}` is a body shape of its own).
//!
//! Whatever the walk does not expect (a syntax error, an escaped key, nesting near the limit)
//! makes it give up, and the line is parsed in full: errors and unusual lines get exactly the
//! full parser's result.

use std::convert::Infallible;

use super::node::{ArenaBuilder, Node};
use crate::calls::ARGUMENT_KEYS;
use crate::json::{
    parse, parse_prefix, plain_run, skip_value, JsonBuilder, JsonStr, ParseError, ParseOptions,
    MAX_DEPTH,
};

/// Whether `key` is a member of a response body that [`crate::body::split_body_as`] reads,
/// for any shape.
fn is_body_key(key: &str) -> bool {
    matches!(
        key,
        "choices"
            | "output"
            | "candidates"
            | "content"
            | "message"
            | "text"
            | "tool_calls"
            | "role"
            | "parts"
    )
}

/// The key of the placeholder for skipped members: it can be neither a body key nor a
/// component of a dotted `--field` path.
const SKIPPED: &str = ".";

/// What one object of the line is, for deciding which members to build.
#[derive(Clone, Copy, Debug)]
pub enum Plan<'p> {
    /// A response body.
    Body,
    /// A log record: its `response` member is the body (when an object), else the record is.
    Record,
    /// The object at a dotted path; `top` for the line itself (which also holds `request_id`).
    Path { path: &'p [String], top: bool },
    /// An element of a body's `choices` list (OpenAI Chat): only its `message` is read.
    Choice,
    /// A chat message (`choices[i].message`, Ollama's `message`): its text and calls.
    Message,
    /// Anything that may be a call (an element of `tool_calls` or of Anthropic's `content`, a
    /// call's `function`): built whole, but for its arguments.
    Call,
}

enum Member<'p> {
    Build,
    Skip,
    /// Built, but an object is only checked and kept as text ([`Node::Deferred`]): call
    /// arguments, built once when the calls are.
    Defer,
    /// An object read with its own plan (anything else there is built).
    Nested(Plan<'p>),
    /// A list whose object elements are read with this plan (anything else there is built).
    Elements(Plan<'p>),
}

impl<'p> Plan<'p> {
    fn member(self, key: &str) -> Member<'p> {
        match self {
            Plan::Body => body_member(key),
            Plan::Record if key == "response" => Member::Nested(Plan::Body),
            Plan::Record if key == "request_id" => Member::Build,
            Plan::Record => body_member(key),
            Plan::Path { top: true, .. } if key == "request_id" => Member::Build,
            Plan::Path { path, .. } if path.first().is_some_and(|k| k == key) => {
                Member::Nested(match &path[1..] {
                    [] => Plan::Body,
                    rest => Plan::Path {
                        path: rest,
                        top: false,
                    },
                })
            }
            Plan::Choice if key == "message" => Member::Nested(Plan::Message),
            Plan::Message if key == "tool_calls" => Member::Elements(Plan::Call),
            Plan::Message if matches!(key, "content" | "text") => Member::Build,
            Plan::Call if matches!(key, "function" | "functionCall") => Member::Nested(Plan::Call),
            Plan::Call if ARGUMENT_KEYS.contains(&key) => Member::Defer,
            Plan::Call => Member::Build,
            _ => Member::Skip,
        }
    }
}

/// A body's member: chat choices, messages and calls are read part by part, other body keys
/// built.
fn body_member<'p>(key: &str) -> Member<'p> {
    match key {
        "choices" => Member::Elements(Plan::Choice),
        "message" => Member::Nested(Plan::Message),
        "content" | "tool_calls" => Member::Elements(Plan::Call),
        _ if is_body_key(key) => Member::Build,
        _ => Member::Skip,
    }
}

/// The line as a [`Node`] tree in which only what `plan` reads is built; the full parse's
/// error when the line is not JSON.
pub fn parse_line<'a>(
    builder: &mut ArenaBuilder<'a>,
    text: &'a str,
    plan: Plan,
) -> Result<Node<'a>, ParseError<Infallible>> {
    let mut skim = Skim {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        builder,
    };
    match skim.line(plan) {
        Some(value) => Ok(value),
        None => parse(text, skim.builder, ParseOptions::default()),
    }
}

struct Skim<'a, 'b> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    builder: &'b mut ArenaBuilder<'a>,
}

impl<'a> Skim<'a, '_> {
    fn line(&mut self, plan: Plan) -> Option<Node<'a>> {
        self.skip_whitespace();
        if self.peek()? != b'{' {
            return None;
        }
        let value = self.object(plan, 1)?;
        self.skip_whitespace();
        (self.pos == self.bytes.len()).then_some(value)
    }

    fn peek(&self) -> Option<u8> {
        self.peek_at(self.pos)
    }

    fn peek_at(&self, pos: usize) -> Option<u8> {
        self.bytes.get(pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// The object at `pos` (its `{`), the `depth`-th open container of the line.
    fn object(&mut self, plan: Plan, depth: usize) -> Option<Node<'a>> {
        // Plans can nest (a call's `function` is read as a call): near the limit the full
        // parse judges.
        if depth >= MAX_DEPTH - 1 {
            return None;
        }
        let Ok(mut members) = self.builder.new_object();
        let mut built = false;
        let mut skipped = false;
        self.pos += 1;
        self.skip_whitespace();
        if self.peek()? == b'}' {
            self.pos += 1;
            let Ok(object) = self.builder.finish_object(members);
            return Some(object);
        }
        loop {
            self.skip_whitespace();
            let key = self.key()?;
            self.skip_whitespace();
            if self.peek()? != b':' {
                return None;
            }
            self.pos += 1;
            self.skip_whitespace();
            let value = match plan.member(key) {
                Member::Build => Some(self.value(depth)?),
                Member::Skip => {
                    self.pos = skip_value(self.bytes, self.pos, depth)?;
                    skipped = true;
                    None
                }
                Member::Defer if self.peek()? == b'{' => {
                    let start = self.pos;
                    self.pos = skip_value(self.bytes, start, depth)?;
                    Some(self.builder.deferred(&self.text[start..self.pos]))
                }
                Member::Defer => Some(self.value(depth)?),
                Member::Nested(inner) if self.peek()? == b'{' => {
                    Some(self.object(inner, depth + 1)?)
                }
                Member::Elements(inner) if self.peek()? == b'[' => {
                    Some(self.elements(inner, depth + 1)?)
                }
                Member::Nested(_) | Member::Elements(_) => Some(self.value(depth)?),
            };
            if let Some(value) = value {
                let Ok(()) =
                    self.builder
                        .object_insert(&mut members, JsonStr::from_utf8(key), value);
                built = true;
            }
            if !self.more_members()? {
                break;
            }
        }
        // Only emptiness is read of a whole object (`{}` is a body shape of its own).
        if skipped && !built {
            let Ok(()) =
                self.builder
                    .object_insert(&mut members, JsonStr::from_utf8(SKIPPED), Node::Null);
        }
        let Ok(object) = self.builder.finish_object(members);
        Some(object)
    }

    /// The list at `pos` (its `[`), the `depth`-th open container of the line: object
    /// elements read with `plan`, others built.
    fn elements(&mut self, plan: Plan, depth: usize) -> Option<Node<'a>> {
        if depth >= MAX_DEPTH - 1 {
            return None;
        }
        let Ok(mut items) = self.builder.new_array();
        self.pos += 1;
        self.skip_whitespace();
        if self.peek()? == b']' {
            self.pos += 1;
            let Ok(array) = self.builder.finish_array(items);
            return Some(array);
        }
        loop {
            self.skip_whitespace();
            let item = if self.peek()? == b'{' {
                self.object(plan, depth + 1)?
            } else {
                self.value(depth)?
            };
            let Ok(()) = self.builder.array_push(&mut items, item);
            self.skip_whitespace();
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    break;
                }
                _ => return None,
            }
        }
        let Ok(array) = self.builder.finish_array(items);
        Some(array)
    }

    /// After a member: `true` past a `,`, `false` past the closing `}`.
    fn more_members(&mut self) -> Option<bool> {
        self.skip_whitespace();
        let more = match self.peek()? {
            b',' => true,
            b'}' => false,
            _ => return None,
        };
        self.pos += 1;
        Some(more)
    }

    /// A key without escapes or control characters (anything else: give up).
    fn key(&mut self) -> Option<&'a str> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.pos + 1;
        // The string parser's scan: 16 bytes a step up to the first quote, backslash or
        // control character; the key is plain when that is its closing quote.
        let (end, _) = plain_run(self.bytes, start, b'"');
        if self.peek_at(end)? != b'"' {
            return None;
        }
        self.pos = end + 1;
        // Both ends are ASCII bytes of the `&str`, hence character boundaries.
        self.text.get(start..end)
    }

    /// One member value at `pos`, inside `depth` open containers.
    fn value(&mut self, depth: usize) -> Option<Node<'a>> {
        let start = self.pos;
        let (value, used) = parse_prefix(
            &self.text[start..],
            &mut *self.builder,
            ParseOptions::default(),
        )
        .ok()?;
        self.pos = start + used;
        // The value was parsed from depth 0: it may nest `MAX_DEPTH` levels, where the whole
        // line allows `MAX_DEPTH - depth`. Count brackets (an upper bound) only when it could.
        let allowed = MAX_DEPTH.saturating_sub(depth);
        let span = &self.bytes[start..self.pos];
        let too_deep =
            span.len() > allowed && memchr::memchr2_iter(b'{', b'[', span).count() > allowed;
        (!too_deep).then_some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{extract_line, locate, read_record, write_record, Locate};
    use crate::body::{split_body_as, BodyText, Shape};
    use crate::json::{to_compact_json, DeferringBuilder, JsonView, Value, ValueBuilder};

    /// The skimmed line, made a [`Value`] to compare with the full parse's.
    fn parse_line(line: &str, plan: Plan) -> Result<Value, ParseError<Infallible>> {
        let arena = bumpalo::Bump::new();
        let node = super::parse_line(&mut ArenaBuilder::new(&arena), line, plan)?;
        let Ok(value) = node.build(&mut DeferringBuilder);
        Ok(value)
    }

    const SHAPES: [Shape; 6] = [
        Shape::Auto,
        Shape::OpenAIChat,
        Shape::OpenAIResponses,
        Shape::Anthropic,
        Shape::Ollama,
        Shape::Gemini,
    ];

    /// Everything batch extraction reads of a parsed line, as text: the record's id, then the
    /// body's text, calls and error paths under every shape.
    fn reading(record: &Value, place: &Locate) -> String {
        let id = match place {
            Locate::Whole => None,
            _ => record.get("request_id").map(|id| to_compact_json(&id)),
        };
        let mut out = format!("id {id:?}\n");
        let body = match locate(record, place) {
            Ok(body) => body,
            Err(e) => return out + &format!("{e:?}"),
        };
        if let Some(text) = body.as_str() {
            out += &format!("text value {text:?}\n");
        }
        for shape in SHAPES {
            match split_body_as(&body, shape) {
                Ok(parts) => {
                    let text = match &parts.text {
                        BodyText::Absent => None,
                        BodyText::Value(v) => Some(to_compact_json(v)),
                        BodyText::Joined(s) => Some(s.clone()),
                    };
                    let calls: Vec<String> = parts.calls.iter().map(to_compact_json).collect();
                    out += &format!(
                        "{shape:?}: {text:?} {calls:?} {} {:?}\n",
                        parts.calls_at, parts.positions
                    );
                }
                Err(e) => out += &format!("{shape:?}: {e:?}\n"),
            }
        }
        out
    }

    /// `extract_line` gives the same records (calls, errors with their raw text) as a full
    /// parse of the line would, for every place of the response and every shape.
    fn assert_same_line(line: &str, place: &Locate) {
        let Ok(whole) = full(line) else { return };
        for shape in SHAPES {
            let options = crate::batch::tests::options(place.clone(), shape);
            let mut got = String::new();
            write_record(
                &mut got,
                1,
                line.as_bytes(),
                &extract_line(line.as_bytes(), &options),
            );
            let mut want = String::new();
            write_record(
                &mut want,
                1,
                line.as_bytes(),
                &read_record(&whole, &options),
            );
            assert_eq!(
                without_generated_ids(&got),
                without_generated_ids(&want),
                "{line} as {shape:?}"
            );
        }
    }

    /// A record with each generated call id (`call_` and 12 random characters) masked.
    fn without_generated_ids(record: &str) -> String {
        let mut parts = record.split("\"id\":\"call_");
        let mut out = parts.next().unwrap_or_default().to_owned();
        for part in parts {
            out += "\"id\":\"call_";
            match part.find('"') {
                Some(12) => out += &format!("<generated>{}", &part[12..]),
                _ => out += part,
            }
        }
        out
    }

    fn full(line: &str) -> Result<Value, ParseError<Infallible>> {
        parse(line, &mut ValueBuilder, ParseOptions::default())
    }

    /// The skimmed line reads exactly like the fully parsed one, or fails with the same error;
    /// `extract_line` gives the full parse's records.
    fn assert_same(line: &str, place: &Locate) {
        if assert_same_parse(line, place) {
            assert_same_line(line, place);
        }
    }

    /// The skimmed line reads like the fully parsed one (`true`: both parsed), or fails with
    /// the same error.
    fn assert_same_parse(line: &str, place: &Locate) -> bool {
        match (parse_line(line, place.plan()), full(line)) {
            (Ok(skimmed), Ok(whole)) => {
                assert_eq!(reading(&skimmed, place), reading(&whole, place), "{line}");
                true
            }
            (Err(ParseError::Syntax(a)), Err(ParseError::Syntax(b))) => {
                assert_eq!(a, b, "{line}");
                false
            }
            (a, b) => panic!("{line}: skimmed {a:?}, full {b:?}"),
        }
    }

    fn places() -> [Locate; 4] {
        [
            Locate::Whole,
            Locate::LogRecord,
            Locate::log_field(Some("response")),
            Locate::log_field(Some("response.message")),
        ]
    }

    #[test]
    fn every_line_of_the_sample_log_reads_the_same() {
        let log = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/logs_sample.jsonl"
        ))
        .expect("the sample log");
        for line in log.lines() {
            for place in places() {
                assert_same(line, &place);
            }
            // The body alone, as `extract_batch` gets it.
            if let Ok(record) = full(line) {
                if let Some(body) = record.get("response") {
                    assert_same(&to_compact_json(&body), &Locate::Whole);
                }
            }
        }
    }

    #[test]
    fn unusual_lines_read_the_same() {
        let lines = [
            r#"{}"#,
            r#" { } "#,
            r#"{"usage": {"n": 1}}"#,
            r#"{"model": "m", "text": "hi"}"#,
            r#"{"text": "a", "usage": 1, "text": "b"}"#,
            r#"{"tool_calls": [{"name": "f", "arguments": {}}], "id": 7}"#,
            r#"{"choices": [{"message": {"content": "x"}}], "choices": 3}"#,
            r#"{"content": [{"type": "text", "text": "t"}], "stop_reason": null}"#,
            r#"{"candidates": [{"content": {"parts": [{"text": "g"}]}}], "usageMetadata": {}}"#,
            r#"{"output": [], "id": "r"}"#,
            r#"{"parts": [{"text": "p"}], "id": 1}"#,
            r#"{"role": "assistant", "id": 1}"#,
            r#"{"request_id": "r1", "response": {"text": "in", "model": "m"}, "meta": [1, 2]}"#,
            r#"{"request_id": 5, "response": "just text", "text": "outer"}"#,
            r#"{"request_id": "r", "response": [1], "message": {"content": "m"}}"#,
            r#"{"response": {"message": {"content": "c", "role": "assistant"}, "done": true}}"#,
            r#"{"response": {"message": 5}}"#,
            r#"{"choices": [], "id": 1}"#,
            r#"{"choices": [ ] }"#,
            r#"{"choices": 7}"#,
            r#"{"choices": [1, "x", null, {"message": {"content": "m"}}]}"#,
            r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "a", "refusal": null}, "logprobs": null}, {"message": {"content": "second"}}]}"#,
            r#"{"choices": [{"message": 3, "finish_reason": "stop"}]}"#,
            r#"{"choices": [{"finish_reason": "stop"}]}"#,
            r#"{"choices": [{"message": {"role": "assistant"}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}], "annotations": []}}]}"#,
            r#"{"choices": [{"message": {"content": [{"type": "text", "text": "p"}], "audio": {}}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"id": "c", "type": "function", "index": 0, "extra": [1], "function": {"name": "f", "arguments": "{\"a\": [1, {\"b\": null}]}", "strict": true}}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"id": 7, "type": "function", "function": {"name": "f", "arguments": {"a": 1}, "id": "inner"}}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}", "arguments": "{\"b\": 2}"}, "type": "other"}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "argum\u0065nts": "{\"a\": 1}"}}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"typ\u0065": "function_call", "name": "f", "arguments": "{}", "call_id": "k"}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [1, "x", null, [], {"function": {"name": "f", "arguments": "{}"}}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"id": "c", "type": "function", "function": {"arguments": "{\"a\": 1}"}}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1"}}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"id": "c", "type": "function", "function": "f"}, {"id": "d", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": "[1, 2]"}}, {"function": {"name": "g", "arguments": "null"}}, {"function": {"name": "h", "arguments": " "}}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": "\"{\\\"a\\\": 1}\""}}, {"function": {"name": "g", "arguments": "{\"s\": \"\\ud800\"}"}}, {"function": {"name": "h", "arguments": "\ud800"}}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": "{'a': 1,}"}}, {"function": {"name": "g", "arguments": "{\"a\": True}"}}]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"type": "function_call", "name": "f", "arguments": "{}", "call_id": "k", "id": "item"}, {"type": 3, "name": "g"}]}}]}"#,
            r#"{"message": {"tool_calls": [{"type": "function", "name": "f", "input": {"x": 1}}, {"functionCall": {"name": "g", "args": {}}}]}}"#,
            r#"{"message": {"tool_calls": [{"type": "tool"}], "content": "no call here"}}"#,
            r#"{"message": {"tool_calls": {"function": {"name": "f"}}}}"#,
            r#"{"tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}], "text": "seed"}"#,
            r#"{"choices": [{"message": {"content": "a"}, "message": {"text": "b"}}]}"#,
            r#"{"choices": [{"message": {"content": "x"}},]}"#,
            r#"{"choices": [{"message": {"content": "x"}} {"message": {}}]}"#,
            r#"{"choices": [{"logprobs": {"a": [1,]}, "message": {"content": "x"}}]}"#,
            r#"{"choices": [{"mess\u0061ge": {"content": "escaped"}}]}"#,
            r#"{"choices": [{"message": {"cont\u0065nt": "escaped"}}]}"#,
            r#"{"choices": [{"message": {"content": "x"}}"#,
            r#"{"message": {"role": "user", "content": "ollama", "images": null}, "done": true}"#,
            r#"{"message": {"content": "x", "tool_calls": null, "thinking": "t"}}"#,
            r#"{"message": {}}"#,
            r#"{"message": {"role": "a"}}"#,
            r#"{"request_id": "r", "response": "t", "choices": [{"message": {"content": "c"}}]}"#,
            r#"{"resp\u006fnse": {"text": "escaped key"}}"#,
            r#"{"text": "tab\tin key", "a\tb": 1}"#,
            "{\"te\u{1}xt\": 1, \"text\": \"raw control character in a key\"}",
            r#"{"clé": 1, "text": "é", "usage_tokens_of_a_long_key": {"clé": "ü"}}"#,
            r#"{"a_key_longer_than_sixteen_bytes\"x": 1, "text": "t"}"#,
            r#"{"a_key_longer_than_sixteen_bytes"#,
            r#"{"text"#,
            "{\"text\" : \"spaced\" ,\n\"usage\"\t:\r{ } }",
            r#"["a", "list"]"#,
            r#""a string""#,
            r#"{"text": "x"} trailing"#,
            r#"{"text": "x",}"#,
            r#"{"usage": {"n": 1,}}"#,
            r#"{"usage": tru}"#,
            r#"{"usage": 1 "text": 2}"#,
            r#"{"text" "x"}"#,
            r#"{"text": "x""#,
            r#"{"usage": 01}"#,
            r#"{"usage": "\x"}"#,
            r#"{1: 2}"#,
            "",
        ];
        // Skipped members are only checked: the full parse's verdict on each value.
        let skipped = [
            "0",
            "-0",
            "12",
            "-12.5e+3",
            "1E-2",
            "0.5",
            "123456789012345678901234567890",
            "-",
            "--1",
            "+1",
            "01",
            "-01",
            "1.",
            "1.e5",
            ".5",
            "1e",
            "1e+",
            "1E-",
            "0x1",
            "1.5.2",
            "true",
            "false",
            "null",
            "tru",
            "nul",
            "falsey",
            "True",
            "NaN",
            "Infinity",
            r#""""#,
            r#""plain""#,
            r#""é ü \u00e9""#,
            r#""\"\\\/\b\f\n\r\t""#,
            r#""\u0041\uD83D\uDE00\ud800 lone""#,
            r#""\u12""#,
            r#""\u12G4""#,
            r#""\x41""#,
            r#""\'""#,
            "\"raw\u{1}control\"",
            "\"tab\tinside\"",
            r#""unterminated"#,
            r#""ends in a backslash\"#,
            r#""longer than sixteen bytes, with \"escapes\" in it""#,
            "[]",
            "{}",
            "[ ]",
            "{ }",
            r#"[1, [2, [3, {}]], {"a": []}]"#,
            "[1,]",
            "[,1]",
            "[1 2]",
            "[1",
            r#"{"a": 1"#,
            r#"{"a" 1}"#,
            r#"{"a":}"#,
            r#"{"a": 1,}"#,
            "{,}",
            "{1: 2}",
            "{'a': 1}",
            r#"{"a": 1 "b": 2}"#,
            r#"{"k\u0065y": {"n": [true, null]}}"#,
            "\n[\t1 ,\r2 ]\n",
            r#"["\ud800", -0.0e0]"#,
        ];
        for value in skipped {
            let line = format!(r#"{{"usage": {value}, "text": "t"}}"#);
            for place in places() {
                assert_same(&line, &place);
            }
            let in_a_choice =
                format!(r#"{{"choices": [{{"logprobs": {value}, "message": {{}}}}]}}"#);
            assert_same(&in_a_choice, &Locate::Whole);
        }
        for line in lines {
            for place in places() {
                assert_same(line, &place);
            }
        }
    }

    #[test]
    fn sample_lines_with_one_byte_changed_read_the_same() {
        let log = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/logs_sample.jsonl"
        ))
        .expect("the sample log");
        // Bytes that matter to JSON syntax, put where a fixed pseudo-random walk lands: every
        // kind of member (built, skipped, nested) gets broken in every way a byte can break it.
        let swaps = b"\"\\,:{}[]0-+.eE1 \tnu\x01";
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for line in log.lines().step_by(7) {
            for _ in 0..12 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let at = (state % line.len() as u64) as usize;
                if !line.is_char_boundary(at) || !line[at..].starts_with(|c: char| c.is_ascii()) {
                    continue;
                }
                let swap = swaps[(state >> 32) as usize % swaps.len()] as char;
                let changed = [
                    format!("{}{}", &line[..at], &line[at + 1..]),
                    format!("{}{swap}{}", &line[..at], &line[at + 1..]),
                    format!("{}{swap}{}", &line[..at], &line[at..]),
                ];
                for changed in &changed {
                    for place in [Locate::Whole, Locate::LogRecord] {
                        assert_same_parse(changed, &place);
                    }
                }
            }
        }
    }

    #[test]
    fn calls_nested_in_functions_stop_at_the_nesting_limit() {
        for depth in [MAX_DEPTH - 3, MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, 5000] {
            for inner in [r#"{}"#, r#"{"name": "f", "arguments": {"a": 1}}"#] {
                let line = format!(
                    r#"{{"tool_calls": [{}{inner}{}]}}"#,
                    r#"{"function": "#.repeat(depth),
                    "}".repeat(depth)
                );
                for place in places() {
                    assert_same(&line, &place);
                }
            }
        }
    }

    #[test]
    fn nesting_limits_are_those_of_the_full_parse() {
        for depth in [MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1] {
            let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let members = ["usage", "text", "choices"]
                .map(|member| format!(r#"{{"{member}": {nested}, "text": "t"}}"#));
            let in_a_choice = [
                format!(r#"{{"choices": [{nested}]}}"#),
                format!(r#"{{"choices": [{{"logprobs": {nested}, "message": {{}}}}]}}"#),
                format!(r#"{{"choices": [{{"message": {{"content": {nested}}}}}]}}"#),
                format!(r#"{{"choices": [{{"message": {{"audio": {nested}}}}}]}}"#),
            ];
            for line in members.iter().chain(&in_a_choice) {
                let record = format!(r#"{{"response": {line}}}"#);
                for place in places() {
                    assert_same(line, &place);
                    assert_same(&record, &place);
                }
            }
        }
    }

    #[test]
    fn call_arguments_objects_are_kept_as_checked_text() {
        let deferred = |value: Option<Value>| matches!(value, Some(Value::Deferred(_)));
        let line = r#"{"message": {"tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}, {"function": {"name": "g", "arguments": "{}"}}]}}"#;
        let calls = parse_line(line, Plan::Body)
            .unwrap()
            .get("message")
            .unwrap()
            .get("tool_calls")
            .unwrap()
            .items();
        let [ollama, openai] = &calls[..] else {
            panic!("{calls:?}")
        };
        assert!(deferred(ollama.get("function").unwrap().get("arguments")));
        assert!(!deferred(openai.get("function").unwrap().get("arguments")));
        let line = r#"{"content": [{"type": "tool_use", "id": "t", "name": "f", "input": {"a": [1]}}, {"type": "text", "text": "x"}]}"#;
        let blocks = parse_line(line, Plan::Body)
            .unwrap()
            .get("content")
            .unwrap()
            .items();
        assert!(deferred(blocks[0].get("input")));
        assert_eq!(
            blocks[0].get("input").unwrap(),
            full(r#"{"a": [1]}"#).unwrap()
        );
        assert_eq!(blocks[1].get("text"), Some(Value::str("x")));
    }

    #[test]
    fn skipped_members_are_not_built() {
        let line = r#"{"id": "x", "usage": {"a": [1, 2]}, "text": "hi"}"#;
        let value = parse_line(line, Plan::Body).unwrap();
        assert_eq!(value, Value::object([("text", Value::str("hi"))]));
        let line = r#"{"id": "x", "usage": {"a": [1, 2]}}"#;
        let value = parse_line(line, Plan::Body).unwrap();
        assert_eq!(value, Value::object([(SKIPPED, Value::Null)]));
        let line =
            r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "c"}}]}"#;
        let message = Value::object([("content", Value::str("c"))]);
        let choice = Value::object([("message", message)]);
        assert_eq!(
            parse_line(line, Plan::Body).unwrap(),
            Value::object([("choices", Value::array(vec![choice]))])
        );
    }
}
