//! The CLI's output (`toolwire extract`): one JSON record per input line that is not blank,
//! `{"line", "id"?, "tool_calls", "errors"}`, in input order, made a bounded piece of a chunk at
//! a time so that memory stays flat whatever the lines are.

use rayon::prelude::*;

use super::{extract_numbered, run, Line, LineError, LineErrorKind, LineOptions};
use crate::calls::Outcome;
use crate::json::{to_compact_json, write_json_string, Value};

/// Counts of a piece of lines, for the CLI summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Records written: the lines that are not blank.
    pub lines: u64,
    pub calls: u64,
    pub invalid_calls: u64,
    pub bad_lines: u64,
    /// Whitespace-only lines, skipped (they still count in the line numbers).
    pub blank_lines: u64,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Self) {
        self.lines += other.lines;
        self.calls += other.calls;
        self.invalid_calls += other.invalid_calls;
        self.bad_lines += other.bad_lines;
        self.blank_lines += other.blank_lines;
    }
}

/// Most lines one [`extract_jsonl`] call reads: a record is at least about 40 bytes, a bad
/// line's about 150, so 8 MiB of short bad lines read at once would give half a gigabyte of
/// records. Pieces of this many lines keep the output of a call to a few megabytes.
pub const MAX_LINES_PER_PIECE: usize = 16 * 1024;

/// Input bytes after which a piece ends (at the end of its line): a bad line's record holds the
/// line, escaped (up to six bytes per control character).
pub const MAX_PIECE_BYTES: usize = 2 << 20;

/// The most of an unreadable line its record shows: escaped, a line of control characters
/// grows sixfold, and a bad line says why it is bad in its first bytes.
const MAX_RAW_BYTES: usize = 1 << 20;

/// Lines per task: enough work to amortise scheduling, small enough to balance the threads.
const LINES_PER_TASK: usize = 64;

/// What [`extract_jsonl`] read of a chunk.
#[derive(Debug)]
pub struct Piece {
    /// The records, each ending in `\n`.
    pub output: Vec<u8>,
    /// The byte offset in the chunk just past the last line read.
    pub end: usize,
    pub tally: Tally,
}

impl Piece {
    /// Input lines read, blank ones included: the next line's number is `first_line` plus this.
    pub fn lines_read(&self) -> u64 {
        self.tally.lines + self.tally.blank_lines
    }
}

/// Whether a line holds only JSON whitespace (a JSONL reader skips it).
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// The records of the lines of `chunk` (whole lines; the last one may lack its `\n`) from byte
/// `start` on, line `first_line` first, up to [`MAX_LINES_PER_PIECE`] lines or
/// [`MAX_PIECE_BYTES`] bytes: call again from [`Piece::end`] until the chunk is read.
pub fn extract_jsonl(
    chunk: &[u8],
    start: usize,
    first_line: u64,
    options: &LineOptions,
    threads: usize,
) -> Result<Piece, String> {
    // Blank lines are counted here: they give no record, so no work for the threads.
    let mut lines: Vec<(u64, &[u8])> = Vec::new();
    let mut blank_lines = 0;
    let mut end = start.min(chunk.len());
    while end < chunk.len() && lines.len() < MAX_LINES_PER_PIECE && end - start < MAX_PIECE_BYTES {
        let line_end = memchr::memchr(b'\n', &chunk[end..]).map_or(chunk.len(), |i| end + i);
        let line = &chunk[end..line_end];
        let number = first_line + lines.len() as u64 + blank_lines;
        if is_blank(line) {
            blank_lines += 1;
        } else {
            lines.push((number, line));
        }
        end = (line_end + 1).min(chunk.len());
    }
    let render = |group: &[(u64, &[u8])]| {
        let mut out = String::new();
        let mut tally = Tally::default();
        for &(number, line) in group {
            let read = extract_numbered(line, number, options);
            tally += write_record(&mut out, number, line, &read);
        }
        (out, tally)
    };
    // A piece of a task or less is read here: waking the pool's threads costs more.
    let mut parts: Vec<(String, Tally)> = if lines.len() <= LINES_PER_TASK {
        vec![render(&lines)]
    } else {
        run(threads, || {
            lines.par_chunks(LINES_PER_TASK).map(render).collect()
        })?
    };
    let mut tally = Tally {
        blank_lines,
        ..Tally::default()
    };
    // One part (a piece of one long line, say) is kept, not copied.
    let output = if parts.len() == 1 {
        let (text, part) = parts.remove(0);
        tally += part;
        text.into_bytes()
    } else {
        let mut output = Vec::with_capacity(parts.iter().map(|(s, _)| s.len()).sum());
        for (text, part) in parts {
            output.extend_from_slice(text.as_bytes());
            tally += part;
        }
        output
    };
    Ok(Piece { output, end, tally })
}

/// The record of a line that was not read at all (longer than the CLI reads): `raw` holds
/// what it shows of the line, `message` why.
pub fn unread_line_record(number: u64, raw: &[u8], message: &str) -> String {
    let line = Line {
        id: None,
        result: Err(LineError {
            kind: LineErrorKind::Format,
            message: message.to_owned(),
            path: String::new(),
            offset: None,
        }),
    };
    let mut out = String::new();
    write_record(&mut out, number, raw, &line);
    out
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
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            if raw.len() > MAX_RAW_BYTES {
                let raw = String::from_utf8_lossy(&raw[..MAX_RAW_BYTES]);
                let message = format!("{}; raw holds the line's first MiB", error.message);
                write_error(out, &raw, &message, "body", 0, error.offset, None);
            } else {
                let raw = String::from_utf8_lossy(raw);
                write_error(out, &raw, &error.message, "body", 0, error.offset, None);
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::tests::{options, OPENAI};
    use crate::batch::Locate;
    use crate::body::Shape;

    fn all_pieces(text: &[u8], first_line: u64, options: &LineOptions, threads: usize) -> Piece {
        let mut whole = Piece {
            output: Vec::new(),
            end: 0,
            tally: Tally::default(),
        };
        let mut line = first_line;
        while whole.end < text.len() {
            let piece = extract_jsonl(text, whole.end, line, options, threads).unwrap();
            assert!(piece.end > whole.end, "no progress at {}", whole.end);
            line += piece.lines_read();
            whole.output.extend_from_slice(&piece.output);
            whole.end = piece.end;
            whole.tally += piece.tally;
        }
        whole
    }

    #[test]
    fn jsonl_chunks_give_one_record_per_line_in_order_and_skip_blank_lines() {
        let record = format!(r#"{{"request_id":"r1","response":{OPENAI}}}"#);
        let text = format!("{record}\nnot json\n\n \t\r\n{{\"text\": \"hi\"}}");
        for threads in [1, 2] {
            let piece = all_pieces(
                text.as_bytes(),
                7,
                &options(Locate::LogRecord, Shape::Auto),
                threads,
            );
            let out = String::from_utf8(piece.output).unwrap();
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(lines.len(), 3);
            assert!(lines[0].starts_with(r#"{"line":7,"id":"r1","tool_calls":[{"id":"c1","name":"f","arguments":{"a":1}}],"errors":[]}"#));
            assert!(lines[1].starts_with(
                r#"{"line":8,"tool_calls":[],"errors":[{"raw":"not json","error":"invalid JSON"#
            ));
            assert_eq!(lines[2], r#"{"line":11,"tool_calls":[],"errors":[]}"#);
            assert_eq!(
                piece.tally,
                Tally {
                    lines: 3,
                    calls: 1,
                    invalid_calls: 0,
                    bad_lines: 1,
                    blank_lines: 2,
                }
            );
        }
    }

    #[test]
    fn a_chunk_is_read_in_pieces_of_bounded_lines_and_bytes() {
        let options = options(Locate::Whole, Shape::Auto);
        let short = "x\n".repeat(MAX_LINES_PER_PIECE + 10);
        let piece = extract_jsonl(short.as_bytes(), 0, 1, &options, 1).unwrap();
        assert_eq!(piece.lines_read(), MAX_LINES_PER_PIECE as u64);
        assert_eq!(piece.end, 2 * MAX_LINES_PER_PIECE);
        let rest = extract_jsonl(short.as_bytes(), piece.end, 1, &options, 1).unwrap();
        assert_eq!((rest.lines_read(), rest.end), (10, short.len()));

        let long = format!("{}\n", "y".repeat(MAX_PIECE_BYTES / 3)).repeat(5);
        let piece = extract_jsonl(long.as_bytes(), 0, 1, &options, 1).unwrap();
        assert_eq!(
            piece.lines_read(),
            3,
            "the piece ends with the line that passes the bound"
        );

        let blank = "\n".repeat(3 * MAX_LINES_PER_PIECE);
        let whole = all_pieces(blank.as_bytes(), 1, &options, 2);
        assert!(whole.output.is_empty());
        assert_eq!(whole.tally.blank_lines, 3 * MAX_LINES_PER_PIECE as u64);
    }

    #[test]
    fn deterministic_ids_come_from_the_line_and_the_call() {
        let mut options = options(Locate::Whole, Shape::Auto);
        options.deterministic_ids = true;
        let call = r#"{"text": "~~~tool_call\n{\"name\": \"f\", \"arguments\": {}}\n~~~"}"#;
        let text = format!("{call}\n\n{OPENAI}\n{call}\n");
        for threads in [1, 2] {
            let out = String::from_utf8(all_pieces(text.as_bytes(), 1, &options, threads).output)
                .unwrap();
            let ids: Vec<&str> = out
                .match_indices("call_")
                .map(|(i, _)| &out[i..i + 8])
                .collect();
            // A given id ("c1") is kept.
            assert_eq!(ids, ["call_1_0", "call_4_0"], "{out}");
            assert!(out.contains(r#""id":"c1""#));
        }
    }

    #[test]
    fn a_long_bad_line_shows_its_first_mib() {
        let options = options(Locate::Whole, Shape::Auto);
        let line = "\u{1}".repeat(MAX_RAW_BYTES + 10);
        let piece = extract_jsonl(line.as_bytes(), 0, 1, &options, 1).unwrap();
        let record = String::from_utf8(piece.output).unwrap();
        assert_eq!(record.matches("\\u0001").count(), MAX_RAW_BYTES);
        assert!(record.contains("raw holds the line's first MiB"));
    }

    #[test]
    fn an_unread_line_is_a_bad_line_record() {
        let record = unread_line_record(5, b"{\"a\": ", "line longer than 1 byte");
        assert_eq!(
            record,
            "{\"line\":5,\"tool_calls\":[],\"errors\":[{\"raw\":\"{\\\"a\\\": \",\"error\":\"line \
             longer than 1 byte\",\"protocol\":\"body\",\"index\":0,\"offset\":null,\"name\":null}]}\n"
        );
    }
}
