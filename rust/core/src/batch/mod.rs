//! Batch work without the interpreter (docs/batch.md): one JSON line → the outcomes of the response
//! it holds, and whole JSONL chunks → the CLI's output records, on a pool of threads.

mod jsonl;
mod node;
mod ordered;
mod packed;
mod skim;

use node::{ArenaBuilder, Node};

pub use jsonl::{
    extract_jsonl, unread_line_record, write_record, Piece, Tally, MAX_LINES_PER_PIECE,
    MAX_PIECE_BYTES,
};
pub use ordered::{with_helpers, OrderedLines};
pub use packed::{ArgumentsRef, OutcomeRef, PackedCalls, PackedLines};

use std::cell::RefCell;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bumpalo::Bump;

use rayon::prelude::*;
use rayon::ThreadPool;

use crate::body::{extract_body_as, BodyError, Shape};
use crate::calls::{Call, Outcome};
use crate::extract::{extract_text, TextOptions};
use crate::finish_outcomes;
use crate::ids::with_line_ids;
use crate::json::{DeferringBuilder, JsonBuilder, JsonKind, JsonView, ParseError, Value};
use crate::position::CharOffsets;
use crate::text_body::body_in_text;
use crate::utf8::decode_utf8;

/// Where the response sits inside each line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Locate {
    /// The line is the response.
    Whole,
    /// At this path of object keys (`--field a.b`).
    Field(Vec<String>),
    /// A log record: its `response` member when that is an object, else the line itself.
    LogRecord,
}

impl Locate {
    /// What of a line to build for this place of the response.
    fn plan(&self) -> skim::Plan<'_> {
        match self {
            Locate::Whole => skim::Plan::Body,
            Locate::LogRecord => skim::Plan::Record,
            Locate::Field(path) => skim::Plan::Path { path, top: true },
        }
    }

    /// `None` → [`Locate::LogRecord`]; `"a.b"` → the path `["a", "b"]`.
    pub fn log_field(field: Option<&str>) -> Self {
        match field {
            Some(path) => Locate::Field(path.split('.').map(str::to_owned).collect()),
            None => Locate::LogRecord,
        }
    }
}

#[derive(Clone, Debug)]
pub struct LineOptions<'a> {
    pub text: TextOptions<'a>,
    /// `provider=`: how bodies are read (`Shape::Auto`: any known shape).
    pub shape: Shape,
    pub locate: Locate,
    /// Generated ids derived from the line's number and the call's index
    /// ([`with_line_ids`]), the same on every run and any number of threads, instead of random.
    pub deterministic_ids: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineErrorKind {
    /// Not UTF-8.
    Encoding,
    /// Not JSON.
    Syntax,
    /// JSON, but not a response of a known (or the requested) shape.
    Format,
}

/// Why a whole line gave no outcomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    pub kind: LineErrorKind,
    pub message: String,
    /// For format errors: where in the response, e.g. `choices[0].message`.
    pub path: String,
    /// Character offset of the failure in the line, for encoding and syntax errors.
    pub offset: Option<usize>,
}

/// What one line gave.
pub struct Line {
    /// The log record's `request_id` (read when the line is a record, not a bare response).
    pub id: Option<Value>,
    pub result: Result<Vec<Outcome<Value>>, LineError>,
}

/// `extract` on one JSON line.
pub fn extract_line(line: &[u8], options: &LineOptions) -> Line {
    extract_line_to(line, options, OwnedLine)
}

/// [`extract_line`] for line `number` of the input (counted from 1), which its generated ids
/// derive from when the options ask for deterministic ids.
pub fn extract_numbered(line: &[u8], number: u64, options: &LineOptions) -> Line {
    extract_numbered_to(line, number, options, OwnedLine)
}

/// [`extract_numbered`], its result handed to `sink`.
pub(crate) fn extract_numbered_to<S: LineSink>(
    line: &[u8],
    number: u64,
    options: &LineOptions,
    sink: S,
) -> S::Output {
    let line_ids = options.deterministic_ids.then_some(number);
    with_line_ids(line_ids, || extract_line_to(line, options, sink))
}

/// [`extract_line`], its result handed to `sink`.
pub(crate) fn extract_line_to<S: LineSink>(
    line: &[u8],
    options: &LineOptions,
    sink: S,
) -> S::Output {
    let text = match decode_utf8(line) {
        Ok(text) => text,
        Err(offset) => {
            return sink.line::<Value>(
                None,
                Err(LineError {
                    kind: LineErrorKind::Encoding,
                    message: format!("not valid UTF-8: invalid byte at byte offset {offset}"),
                    path: String::new(),
                    offset: Some(offset),
                }),
            );
        }
    };
    ARENA.with(|arena| {
        let mut arena = arena.borrow_mut();
        arena.reset();
        let line = read_line(&arena, text, options, sink);
        // A line far larger than most leaves its memory to the next ones only up to a point.
        if arena.allocated_bytes() > ARENA_KEPT_BYTES {
            *arena = Bump::new();
        }
        line
    })
}

thread_local! {
    /// Each thread's arena for the line it reads ([`node`]), emptied before each line.
    static ARENA: RefCell<Bump> = RefCell::new(Bump::new());
}

/// The arena memory a thread keeps between lines.
const ARENA_KEPT_BYTES: usize = 1 << 20;

/// [`extract_line_to`] on a line of text, its values in `arena`.
fn read_line<S: LineSink>(arena: &Bump, text: &str, options: &LineOptions, sink: S) -> S::Output {
    let mut builder = ArenaBuilder::new(arena);
    let record = match skim::parse_line(&mut builder, text, options.locate.plan()) {
        Ok(record) => record,
        Err(ParseError::Build(never)) => match never {},
        Err(ParseError::Syntax(e)) => {
            let offset = CharOffsets::new(text).char_offset(e.offset);
            return sink.line::<Value>(
                None,
                Err(LineError {
                    kind: LineErrorKind::Syntax,
                    message: format!("invalid JSON (offset {offset}): {}", e.kind.message()),
                    path: String::new(),
                    offset: Some(offset),
                }),
            );
        }
    };
    read_parsed(&mut builder, &record, options, sink)
}

/// The outcomes of a line already parsed in full (what [`extract_line`] gives, without its
/// skim).
pub fn read_record(record: &Value, options: &LineOptions) -> Line {
    read_parsed(&mut DeferringBuilder, record, options, OwnedLine)
}

/// The outcomes of a parsed line, read with `builder` (whose values the line is made of) and
/// handed to `sink`.
fn read_parsed<B, S>(
    builder: &mut B,
    record: &B::Value,
    options: &LineOptions,
    sink: S,
) -> S::Output
where
    B: JsonBuilder<Error = Infallible>,
    B::Value: JsonView + IntoValue,
    S: LineSink,
{
    let id = match options.locate {
        Locate::Whole => None,
        _ => record.get("request_id"),
    };
    let result = locate(record, &options.locate).and_then(|response| {
        extract_response(builder, &response, options).map_err(|e| LineError {
            kind: LineErrorKind::Format,
            message: e.message,
            path: e.path,
            offset: None,
        })
    });
    sink.line(id, result)
}

/// Where a line's reading goes: what outlives the line must be taken from its values.
pub(crate) trait LineSink {
    type Output;
    /// The line's `request_id` (when read) and its outcomes, or why it has none.
    fn line<V: IntoValue>(
        self,
        id: Option<V>,
        result: Result<Vec<Outcome<V>>, LineError>,
    ) -> Self::Output;
}

/// Makes each line a [`Line`] of its own.
struct OwnedLine;

impl LineSink for OwnedLine {
    type Output = Line;
    fn line<V: IntoValue>(self, id: Option<V>, result: Result<Vec<Outcome<V>>, LineError>) -> Line {
        let result = result.map(|outcomes| {
            outcomes
                .into_iter()
                .map(|outcome| match outcome {
                    Outcome::Call(call) => Outcome::Call(Call {
                        id: call.id,
                        name: call.name,
                        arguments: call.arguments.into_value(),
                    }),
                    Outcome::Invalid(invalid) => Outcome::Invalid(invalid),
                })
                .collect()
        });
        Line {
            id: id.map(IntoValue::into_value),
            result,
        }
    }
}

/// A value of a parsed line, to be kept past the line.
pub(crate) trait IntoValue {
    fn into_value(self) -> Value;
    /// The checked JSON text of an object kept as text ([`Value::Deferred`]).
    fn deferred_json(&self) -> Option<&str>;
}

impl IntoValue for Value {
    fn into_value(self) -> Value {
        self
    }
    fn deferred_json(&self) -> Option<&str> {
        match self {
            Value::Deferred(json) => Some(json),
            _ => None,
        }
    }
}

impl IntoValue for Node<'_> {
    fn into_value(self) -> Value {
        let Ok(value) = self.build(&mut DeferringBuilder);
        value
    }
    fn deferred_json(&self) -> Option<&str> {
        match self {
            Node::Deferred(deferred) => Some(deferred.json()),
            _ => None,
        }
    }
}

/// The response inside a record, as `locate` says where.
pub fn locate<V: JsonView>(record: &V, locate: &Locate) -> Result<V, LineError> {
    match locate {
        Locate::Whole => Ok(record.clone()),
        Locate::LogRecord => Ok(record
            .get("response")
            .filter(|r| r.kind() == JsonKind::Object)
            .unwrap_or_else(|| record.clone())),
        Locate::Field(path) => {
            let mut value = record.clone();
            for key in path {
                value = value.get(key).ok_or_else(|| LineError {
                    kind: LineErrorKind::Format,
                    message: format!("no field {:?} in this line", path.join(".")),
                    path: path.join("."),
                    offset: None,
                })?;
            }
            Ok(value)
        }
    }
}

/// `extract`'s dispatch on a decoded value: a string is model text, unless it is a body written
/// as JSON ([`body_in_text`]); anything else is a response body (or, read as `Shape::Auto`, a
/// list of structured calls).
fn extract_response<B>(
    builder: &mut B,
    response: &B::Value,
    options: &LineOptions,
) -> Result<Vec<Outcome<B::Value>>, crate::body::FormatError>
where
    B: JsonBuilder<Error = Infallible>,
    B::Value: JsonView,
{
    let body_text;
    let response = match response.as_str() {
        Some(text) => {
            let Ok(body) = body_in_text(builder, text, options.shape);
            match body {
                Some(body) => {
                    body_text = body;
                    &body_text
                }
                None if options.shape == Shape::Auto => {
                    let Ok(mut outcomes) = extract_text(builder, text, &options.text);
                    finish_outcomes(text, &mut outcomes);
                    return Ok(outcomes);
                }
                // Not a body of that provider: its shape error says so.
                None => response,
            }
        }
        None => response,
    };
    match extract_body_as(builder, response, &options.text, options.shape) {
        Ok(outcomes) => Ok(outcomes),
        Err(BodyError::Format(e)) => Err(e),
        Err(BodyError::Build(never)) => match never {},
    }
}

/// The number of threads "all cores" means here.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

type PoolCache = Vec<(u32, usize, Arc<ThreadPool>)>;

/// Pools by size, kept for the life of the process (the CLI calls in once per chunk), and
/// rebuilt in a forked child, where the parent's threads do not exist.
static POOLS: Mutex<PoolCache> = Mutex::new(Vec::new());

fn pool(threads: usize) -> Result<Arc<ThreadPool>, String> {
    let pid = std::process::id();
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    pools.retain(|(owner, _, _)| *owner == pid);
    if let Some((_, _, pool)) = pools.iter().find(|(_, size, _)| *size == threads) {
        return Ok(Arc::clone(pool));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("toolwire-{i}"))
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    let pool = Arc::new(pool);
    pools.push((pid, threads, Arc::clone(&pool)));
    Ok(pool)
}

/// Runs `work` (which may use rayon's parallel iterators) on a pool of `threads` threads.
pub fn run<R: Send>(threads: usize, work: impl FnOnce() -> R + Send) -> Result<R, String> {
    Ok(pool(threads.max(1))?.install(work))
}

/// [`extract_numbered`] over many numbered lines, in order.
pub fn extract_lines(
    lines: &[(u64, &[u8])],
    options: &LineOptions,
    threads: usize,
) -> Result<Vec<Line>, String> {
    run(threads, || {
        lines
            .par_iter()
            .with_min_len(16)
            .map(|&(number, line)| extract_numbered(line, number, options))
            .collect()
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::extract::RawJsonMode;
    use crate::json::{to_compact_json, ParseOptions};

    pub(crate) fn options(locate: Locate, shape: Shape) -> LineOptions<'static> {
        LineOptions {
            text: TextOptions {
                text_tagged: true,
                formats: crate::formats::FormatSet::ALL,
                raw_json: Some(RawJsonMode::Fenced),
                json: ParseOptions::model_text(false),
                tools: None,
                starts_in_reasoning: false,
            },
            shape,
            locate,
            deterministic_ids: false,
        }
    }

    pub(crate) const OPENAI: &str = r#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}}]}}]}"#;

    fn arena_bytes() -> usize {
        ARENA.with(|arena| arena.borrow().allocated_bytes())
    }

    /// Formats that try a parameter value as JSON and keep it as text when that fails leave
    /// the failed parse's members behind in the arena builder: they must not end up in the
    /// arguments (model text could otherwise overwrite a real argument).
    #[test]
    fn values_a_format_gave_up_on_stay_out_of_the_arguments() {
        let texts = [
            "<tool_call>\n<function=transfer>\n<parameter=to>alice</parameter>\n\
             <parameter=note>{\"to\": \"mallory\", oops}</parameter>\n</function>\n</tool_call>",
            "<tool_call>transfer\n<arg_key>to</arg_key>\n<arg_value>alice</arg_value>\n\
             <arg_key>note</arg_key>\n<arg_value>[{\"to\": \"mallory\"}, [1, oops</arg_value>\n\
             </tool_call>",
        ];
        let options = options(Locate::Whole, Shape::Auto);
        for text in texts {
            let line = Value::object([("text", Value::str(text))]);
            let json = crate::json::to_compact_json(&line);
            let Ok(calls) = extract_line(json.as_bytes(), &options).result else {
                panic!("{json}")
            };
            let Ok(want) = read_record(&line, &options).result else {
                panic!("{json}")
            };
            let arguments = |outcomes: &[Outcome<Value>]| -> Vec<String> {
                outcomes
                    .iter()
                    .map(|c| match c {
                        Outcome::Call(call) => crate::json::to_compact_json(&call.arguments),
                        Outcome::Invalid(invalid) => invalid.message(),
                    })
                    .collect()
            };
            let got = arguments(&calls);
            assert_eq!(got.len(), 1, "{text}");
            assert!(got[0].starts_with(r#"{"to":"alice","note":"#), "{}", got[0]);
            assert_eq!(got, arguments(&want), "{text}");
        }
    }

    #[test]
    fn a_huge_line_does_not_leave_its_arena_behind() {
        let options = options(Locate::Whole, Shape::Auto);
        let line = extract_line(OPENAI.as_bytes(), &options);
        assert_eq!(line.result.map(|calls| calls.len()), Ok(1));
        let small = arena_bytes();
        assert!(small < ARENA_KEPT_BYTES, "{small}");

        let text = "x".repeat(4 * ARENA_KEPT_BYTES);
        let huge = format!(r#"{{"text": "{text}"}}"#);
        let line = extract_line(huge.as_bytes(), &options);
        assert_eq!(line.result.map(|calls| calls.len()), Ok(0));
        assert!(arena_bytes() <= small, "{}", arena_bytes());
    }

    #[test]
    fn a_body_line_gives_its_calls() {
        let line = extract_line(OPENAI.as_bytes(), &options(Locate::Whole, Shape::Auto));
        let outcomes = line.result.unwrap();
        let Outcome::Call(call) = &outcomes[0] else {
            panic!("{outcomes:?}")
        };
        assert_eq!((call.id.as_deref(), call.name.as_str()), (Some("c1"), "f"));
        assert_eq!(to_compact_json(&call.arguments), r#"{"a":1}"#);
    }

    #[test]
    fn provider_restricts_the_shape() {
        let line = extract_line(OPENAI.as_bytes(), &options(Locate::Whole, Shape::Anthropic));
        let error = line.result.unwrap_err();
        assert_eq!(error.kind, LineErrorKind::Format);
        assert_eq!(error.path, "content");
        assert!(
            error.message.contains("not an Anthropic Messages body"),
            "{}",
            error.message
        );
    }

    #[test]
    fn bad_lines_say_why() {
        let opts = options(Locate::LogRecord, Shape::Auto);
        let syntax = extract_line(b"{\"a\": ", &opts).result.unwrap_err();
        assert_eq!(
            (syntax.kind, syntax.offset),
            (LineErrorKind::Syntax, Some(6))
        );
        let encoding = extract_line(b"\"\xff\"", &opts).result.unwrap_err();
        assert_eq!(encoding.kind, LineErrorKind::Encoding);
        let field = extract_line(
            b"{\"a\": {}}",
            &options(Locate::log_field(Some("a.b")), Shape::Auto),
        );
        assert_eq!(
            field.result.unwrap_err().message,
            "no field \"a.b\" in this line"
        );
    }
}
