//! Batch work without the interpreter (§10): one JSON line → the outcomes of the response it
//! holds, and whole JSONL chunks → the CLI's output records, on a pool of threads.

mod node;
mod ordered;
mod packed;
mod skim;

use node::{ArenaBuilder, Node};

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
use crate::json::{
    to_compact_json, write_json_string, DeferringBuilder, JsonBuilder, JsonKind, JsonView,
    ParseError, Value,
};
use crate::position::CharOffsets;
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

/// §4.4 on one JSON line.
pub fn extract_line(line: &[u8], options: &LineOptions) -> Line {
    extract_line_to(line, options, OwnedLine)
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

pub(crate) fn locate<V: JsonView>(record: &V, locate: &Locate) -> Result<V, LineError> {
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

/// `extract`'s dispatch on a decoded value: a string is model text; anything else is a
/// response body (or, read as `Shape::Auto`, a list of structured calls).
fn extract_response<B>(
    builder: &mut B,
    response: &B::Value,
    options: &LineOptions,
) -> Result<Vec<Outcome<B::Value>>, crate::body::FormatError>
where
    B: JsonBuilder<Error = Infallible>,
    B::Value: JsonView,
{
    let text = response.as_str().filter(|_| options.shape == Shape::Auto);
    if let Some(text) = text {
        let Ok(mut outcomes) = extract_text(builder, text, &options.text);
        finish_outcomes(text, &mut outcomes);
        return Ok(outcomes);
    }
    match extract_body_as(builder, response, &options.text, options.shape) {
        Ok(outcomes) => Ok(outcomes),
        Err(BodyError::Format(e)) => Err(e),
        Err(BodyError::Build(never)) => match never {},
    }
}

/// Counts of one chunk of lines, for the CLI summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub lines: u64,
    pub calls: u64,
    pub invalid_calls: u64,
    pub bad_lines: u64,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Self) {
        self.lines += other.lines;
        self.calls += other.calls;
        self.invalid_calls += other.invalid_calls;
        self.bad_lines += other.bad_lines;
    }
}

/// Lines per task: enough work to amortise scheduling, small enough to balance the threads.
const LINES_PER_TASK: usize = 64;

/// The CLI's output for a chunk of JSONL (whole lines; the last one may lack its `\n`): one
/// record per line, `{"line", "id"?, "tool_calls", "errors"}`, in input order.
pub fn extract_jsonl(
    chunk: &[u8],
    first_line: u64,
    options: &LineOptions,
    threads: usize,
) -> Result<(Vec<u8>, Tally), String> {
    let mut lines: Vec<&[u8]> = memchr::memchr_iter(b'\n', chunk)
        .scan(0, |start, end| {
            let line = &chunk[*start..end];
            *start = end + 1;
            Some(line)
        })
        .collect();
    let consumed: usize = lines.iter().map(|l| l.len() + 1).sum();
    if consumed < chunk.len() {
        lines.push(&chunk[consumed..]);
    }
    let render = |(task, group): (usize, &[&[u8]])| {
        let mut out = String::new();
        let mut tally = Tally::default();
        for (k, line) in group.iter().enumerate() {
            let number = first_line + (task * LINES_PER_TASK + k) as u64;
            tally += write_record(&mut out, number, line, &extract_line(line, options));
        }
        (out, tally)
    };
    let parts: Vec<(String, Tally)> = run(threads, || {
        lines
            .par_chunks(LINES_PER_TASK)
            .enumerate()
            .map(render)
            .collect()
    })?;
    let mut output = Vec::with_capacity(parts.iter().map(|(s, _)| s.len()).sum());
    let mut tally = Tally::default();
    for (text, part) in parts {
        output.extend_from_slice(text.as_bytes());
        tally += part;
    }
    Ok((output, tally))
}

/// Appends one output record (and its newline); returns its counts.
pub fn write_record(out: &mut String, number: u64, raw: &[u8], line: &Line) -> Tally {
    let mut tally = Tally {
        lines: 1,
        ..Tally::default()
    };
    out.push_str("{\"line\":");
    out.push_str(&number.to_string());
    if let Some(id) = &line.id {
        out.push_str(",\"id\":");
        out.push_str(&to_compact_json(id));
    }
    out.push_str(",\"tool_calls\":[");
    let outcomes: &[Outcome<Value>] = line.result.as_deref().unwrap_or(&[]);
    let mut first = true;
    for outcome in outcomes {
        if let Outcome::Call(call) = outcome {
            if !first {
                out.push(',');
            }
            first = false;
            tally.calls += 1;
            out.push_str("{\"id\":");
            write_json_string(call.id.as_deref().unwrap_or_default(), out);
            out.push_str(",\"name\":");
            write_json_string(&call.name, out);
            out.push_str(",\"arguments\":");
            out.push_str(&to_compact_json(&call.arguments));
            out.push('}');
        }
    }
    out.push_str("],\"errors\":[");
    match &line.result {
        Ok(outcomes) => {
            let mut first = true;
            for outcome in outcomes {
                if let Outcome::Invalid(invalid) = outcome {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    tally.invalid_calls += 1;
                    write_error(
                        out,
                        &invalid.raw,
                        &invalid.message(),
                        invalid.protocol.as_str(),
                        invalid.index,
                        invalid.offset,
                        invalid.name.as_deref(),
                    );
                }
            }
        }
        Err(error) => {
            tally.bad_lines += 1;
            let raw = String::from_utf8_lossy(raw);
            let raw = raw.strip_suffix('\r').unwrap_or(&raw);
            write_error(out, raw, &error.message, "body", 0, error.offset, None);
        }
    }
    out.push_str("]}\n");
    tally
}

/// An error entry, with the fields (and order) of `InvalidToolCall.to_dict()`.
fn write_error(
    out: &mut String,
    raw: &str,
    message: &str,
    protocol: &str,
    index: usize,
    offset: Option<usize>,
    name: Option<&str>,
) {
    out.push_str("{\"raw\":");
    write_json_string(raw, out);
    out.push_str(",\"error\":");
    write_json_string(message, out);
    out.push_str(",\"protocol\":");
    write_json_string(protocol, out);
    out.push_str(&format!(",\"index\":{index},\"offset\":"));
    match offset {
        Some(offset) => out.push_str(&offset.to_string()),
        None => out.push_str("null"),
    }
    out.push_str(",\"name\":");
    match name {
        Some(name) => write_json_string(name, out),
        None => out.push_str("null"),
    }
    out.push('}');
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

/// [`extract_line`] over many lines, in order.
pub fn extract_lines(
    lines: &[&[u8]],
    options: &LineOptions,
    threads: usize,
) -> Result<Vec<Line>, String> {
    run(threads, || {
        lines
            .par_iter()
            .with_min_len(LINES_PER_TASK / 4)
            .map(|line| extract_line(line, options))
            .collect()
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::extract::RawJsonMode;
    use crate::json::ParseOptions;

    pub(crate) fn options(locate: Locate, shape: Shape) -> LineOptions<'static> {
        LineOptions {
            text: TextOptions {
                text_tagged: true,
                formats: crate::formats::FormatSet::ALL,
                raw_json: Some(RawJsonMode::Fenced),
                json: ParseOptions::default(),
                tools: None,
            },
            shape,
            locate,
        }
    }

    const OPENAI: &str = r#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}}]}}]}"#;

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

    #[test]
    fn jsonl_chunks_give_one_record_per_line_in_order() {
        let record = format!(r#"{{"request_id":"r1","response":{OPENAI}}}"#);
        let text = format!("{record}\nnot json\n\n{{\"text\": \"hi\"}}");
        for threads in [1, 2] {
            let (out, tally) = extract_jsonl(
                text.as_bytes(),
                7,
                &options(Locate::LogRecord, Shape::Auto),
                threads,
            )
            .unwrap();
            let out = String::from_utf8(out).unwrap();
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(lines.len(), 4);
            assert!(lines[0].starts_with(r#"{"line":7,"id":"r1","tool_calls":[{"id":"c1","name":"f","arguments":{"a":1}}],"errors":[]}"#));
            assert!(lines[1].starts_with(
                r#"{"line":8,"tool_calls":[],"errors":[{"raw":"not json","error":"invalid JSON"#
            ));
            assert!(lines[2].contains(r#""line":9"#));
            assert_eq!(lines[3], r#"{"line":10,"tool_calls":[],"errors":[]}"#);
            assert_eq!(
                tally,
                Tally {
                    lines: 4,
                    calls: 1,
                    invalid_calls: 0,
                    bad_lines: 2
                }
            );
        }
    }
}
