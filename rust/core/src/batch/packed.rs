//! A chunk of extracted lines packed for the thread that reads it: the calls' names, ids and
//! argument JSON in one buffer, the calls in one array.
//!
//! A helper thread extracts a chunk and another thread (the one holding the interpreter)
//! reads it. As thousands of small allocations, every block the reader had touched had to be
//! taken back from its cache one by one when the helper freed and reused it, which made the
//! helpers parse about 17% slower (and freeing them on the reader cost more still). Packed, a
//! chunk is a handful of allocations (more only for arguments built as values, and invalid
//! calls), read front to back and freed by the reader; the small values of each line are
//! freed where they were made, while still in cache.

use std::ops::Range;

use crate::calls::{Invalid, Outcome};
use crate::json::{JsonBuilder, Value};

use super::{IntoValue, LineError, LineSink};

/// The text a line's calls usually take (names, ids, arguments): about 110 bytes on the
/// sample log.
const TEXT_PER_LINE: usize = 128;

/// The lines of one chunk, in order. Empty by default.
#[derive(Debug, Default)]
pub struct PackedLines {
    /// Names, ids and argument JSON of every call, one after the other.
    text: String,
    calls: Vec<PackedOutcome>,
    /// Per line, its calls (a range of `calls`) or why the line gave none.
    lines: Vec<Result<Range<usize>, LineError>>,
}

#[derive(Debug)]
enum PackedOutcome {
    Call {
        id: Option<Range<usize>>,
        name: Range<usize>,
        arguments: PackedArguments,
    },
    Invalid(Box<Invalid>),
}

#[derive(Debug)]
enum PackedArguments {
    /// Checked JSON text of one object ([`Value::Deferred`]), in `text`.
    Deferred(Range<usize>),
    Value(Value),
}

impl PackedLines {
    /// Room for `lines` lines of about a call each, its text included.
    pub fn with_capacity(lines: usize) -> Self {
        Self {
            text: String::with_capacity(lines * TEXT_PER_LINE),
            calls: Vec::with_capacity(lines + lines / 2),
            lines: Vec::with_capacity(lines),
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    fn append(&mut self, text: &str) -> Range<usize> {
        let start = self.text.len();
        self.text.push_str(text);
        start..self.text.len()
    }

    /// Line `index`'s outcomes, or why it gave none; `None` past the end.
    pub fn line(&self, index: usize) -> Option<Result<PackedCalls<'_>, &LineError>> {
        let line = self.lines.get(index)?;
        Some(match line {
            Ok(range) => Ok(PackedCalls {
                lines: self,
                calls: range.clone(),
            }),
            Err(error) => Err(error),
        })
    }
}

/// Appends the line (its `request_id` is not kept: the batch API has no place for it).
impl LineSink for &mut PackedLines {
    type Output = ();
    fn line<V: IntoValue>(self, _id: Option<V>, result: Result<Vec<Outcome<V>>, LineError>) {
        let packed = result.map(|outcomes| {
            let start = self.calls.len();
            for outcome in outcomes {
                let packed = match outcome {
                    Outcome::Call(call) => PackedOutcome::Call {
                        id: call.id.map(|id| self.append(&id)),
                        name: self.append(&call.name),
                        arguments: match call.arguments.deferred_json() {
                            Some(json) => PackedArguments::Deferred(self.append(json)),
                            None => PackedArguments::Value(call.arguments.into_value()),
                        },
                    },
                    Outcome::Invalid(invalid) => PackedOutcome::Invalid(invalid),
                };
                self.calls.push(packed);
            }
            start..self.calls.len()
        });
        self.lines.push(packed);
    }
}

/// One line's outcomes, read from its chunk.
#[derive(Clone, Debug)]
pub struct PackedCalls<'a> {
    lines: &'a PackedLines,
    calls: Range<usize>,
}

impl<'a> PackedCalls<'a> {
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }
}

impl<'a> Iterator for PackedCalls<'a> {
    type Item = OutcomeRef<'a>;

    fn next(&mut self) -> Option<OutcomeRef<'a>> {
        let lines = self.lines;
        let text = |range: &Range<usize>| &lines.text[range.clone()];
        let outcome = lines.calls.get(self.calls.next()?)?;
        Some(match outcome {
            PackedOutcome::Call {
                id,
                name,
                arguments,
            } => OutcomeRef::Call {
                id: id.as_ref().map(text),
                name: text(name),
                arguments: match arguments {
                    PackedArguments::Deferred(json) => {
                        ArgumentsRef(ArgumentsKind::Deferred(text(json)))
                    }
                    PackedArguments::Value(value) => ArgumentsRef(ArgumentsKind::Value(value)),
                },
            },
            PackedOutcome::Invalid(invalid) => OutcomeRef::Invalid(invalid),
        })
    }
}

/// An outcome of a packed line.
#[derive(Clone, Copy, Debug)]
pub enum OutcomeRef<'a> {
    Call {
        /// `None` when the payload gave no id (one is generated when it becomes a call).
        id: Option<&'a str>,
        name: &'a str,
        arguments: ArgumentsRef<'a>,
    },
    Invalid(&'a Invalid),
}

/// A packed call's arguments. Opaque, so that only this module can declare text checked.
#[derive(Clone, Copy, Debug)]
pub struct ArgumentsRef<'a>(ArgumentsKind<'a>);

#[derive(Clone, Copy, Debug)]
enum ArgumentsKind<'a> {
    Deferred(&'a str),
    Value(&'a Value),
}

impl<'a> ArgumentsRef<'a> {
    /// The arguments' JSON text (compact when they were built as values).
    pub fn json(&self) -> std::borrow::Cow<'a, str> {
        match self.0 {
            ArgumentsKind::Deferred(json) => json.into(),
            ArgumentsKind::Value(value) => crate::json::to_compact_json(value).into(),
        }
    }

    /// The arguments made with `builder`: exactly what [`Value::build`] makes of them.
    pub fn build<B: JsonBuilder>(&self, builder: &mut B) -> Result<B::Value, B::Error> {
        match self.0 {
            ArgumentsKind::Deferred(json) => builder.checked_object(json),
            ArgumentsKind::Value(value) => value.build(builder),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::tests::options;
    use crate::batch::{extract_line, extract_line_to, Line, Locate};
    use crate::body::Shape;
    use crate::json::{to_compact_json, ValueBuilder};

    /// An id as text; a generated one (`call_` and random characters) differs every run.
    fn id_text(id: Option<&str>) -> String {
        match id {
            Some(id) if id.starts_with("call_") => "<generated>".to_owned(),
            id => format!("{id:?}"),
        }
    }

    /// An outcome as text, from a [`Line`] or read back from a packed chunk.
    fn described(outcome: OutcomeRef<'_>) -> String {
        match outcome {
            OutcomeRef::Call {
                id,
                name,
                arguments,
            } => {
                let Ok(arguments) = arguments.build(&mut ValueBuilder);
                format!("{} {name} {}", id_text(id), to_compact_json(&arguments))
            }
            OutcomeRef::Invalid(invalid) => format!("invalid {}", invalid.detail),
        }
    }

    fn line_described(line: &Line) -> Result<Vec<String>, String> {
        match &line.result {
            Ok(outcomes) => Ok(outcomes
                .iter()
                .map(|outcome| match outcome {
                    Outcome::Call(call) => format!(
                        "{} {} {}",
                        id_text(call.id.as_deref()),
                        call.name,
                        to_compact_json(&call.arguments)
                    ),
                    Outcome::Invalid(invalid) => format!("invalid {}", invalid.detail),
                })
                .collect()),
            Err(error) => Err(error.message.clone()),
        }
    }

    #[test]
    fn a_packed_chunk_reads_back_each_lines_outcomes() {
        let texts = [
            r#"{"choices": [{"message": {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get", "arguments": "{\"a\": [1, {\"b\": \"é\"}]}"}}, {"id": "c2", "type": "function", "function": {"name": "put", "arguments": "{}"}}]}}]}"#,
            r#"{"content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"x": 1.5, "y": null}}]}"#,
            r#"{"message": {"tool_calls": [{"function": {"name": "g", "arguments": {"k": "v"}}}]}}"#,
            r#"{"text": "~~~tool_call\n{\"name\": \"h\", \"arguments\": {\"q\": true}}\n~~~"}"#,
            r#"{"choices": [{"message": {"tool_calls": [{"id": "c3", "type": "function", "function": {"name": "bad", "arguments": "{\"a\": "}}]}}]}"#,
            r#"{"choices": [{"message": {"content": "no calls here"}}]}"#,
            r#"not json"#,
            r#"[1, 2]"#,
            r#"{"text": "[get_weather(city='Paris', days=3)]"}"#,
            r#"{"message": {"tool_calls": [{"function": {"name": "n", "arguments": null}}]}}"#,
        ];
        let opts = options(Locate::Whole, Shape::Auto);
        let want: Vec<_> = texts
            .iter()
            .map(|t| line_described(&extract_line(t.as_bytes(), &opts)))
            .collect();
        let mut packed = PackedLines::with_capacity(texts.len());
        for text in texts {
            extract_line_to(text.as_bytes(), &opts, &mut packed);
        }
        assert_eq!(packed.len(), texts.len());
        let got: Vec<_> = (0..packed.len())
            .map(|i| match packed.line(i).unwrap() {
                Ok(calls) => Ok(calls.map(described).collect::<Vec<_>>()),
                Err(error) => Err(error.message.clone()),
            })
            .collect();
        assert_eq!(got, want);
        // Every kind of line is in the sample: calls, invalid calls, a line without calls, a
        // bad line; arguments kept as text and as values.
        let all = format!("{want:?}");
        for part in ["invalid", "Ok([])", "Err("] {
            assert!(all.contains(part), "{part} missing from {all}");
        }
        let kinds = |deferred: bool| {
            packed.calls.iter().any(|call| {
                matches!(call, PackedOutcome::Call { arguments, .. }
                    if matches!(arguments, PackedArguments::Deferred(_)) == deferred)
            })
        };
        assert!(kinds(true) && kinds(false));
        assert!(packed.line(texts.len()).is_none());
    }

    #[test]
    fn an_empty_chunk_has_no_lines() {
        let packed = PackedLines::default();
        assert!(packed.is_empty());
        assert!(packed.line(0).is_none());
    }
}
