//! Throughput of the stream engine on one call with a 1 MB code-like argument, fed in 1-, 4- and
//! 64-byte chunks (events built, arguments decoded once at the end), against the one-shot
//! `parse_text` of the same text (the same engine fed the whole text at once): a `~~~tool_call`
//! block, a hermes `<tool_call>` and a qwen3_coder `<parameter=…>` value.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use toolwire_core::json::{JsonBuilder, JsonKind, JsonStr, JsonView};
use toolwire_core::stream::{parse_text, Event, StreamOptions, StreamParser};

/// A builder that builds nothing (so the one call ends as invalid: it has no readable name):
/// the bench measures the scanner and the final parse, not value construction.
#[derive(Clone, Copy)]
struct Unit;

impl JsonView for Unit {
    fn kind(&self) -> JsonKind {
        JsonKind::Object
    }
    fn get(&self, _key: &str) -> Option<Self> {
        None
    }
    fn as_str(&self) -> Option<&str> {
        None
    }
    fn as_bool(&self) -> Option<bool> {
        None
    }
    fn items(&self) -> Vec<Self> {
        Vec::new()
    }
    fn entries(&self) -> Vec<(String, Self)> {
        Vec::new()
    }
    fn number_text(&self) -> String {
        String::new()
    }
    fn string_lossy(&self) -> Option<String> {
        None
    }
}

struct UnitBuilder;

impl JsonBuilder for UnitBuilder {
    type Value = Unit;
    type Object = ();
    type Array = ();
    type Error = std::convert::Infallible;
    fn null(&mut self) -> Result<Unit, Self::Error> {
        Ok(Unit)
    }
    fn boolean(&mut self, _: bool) -> Result<Unit, Self::Error> {
        Ok(Unit)
    }
    fn int(&mut self, _: i64) -> Result<Unit, Self::Error> {
        Ok(Unit)
    }
    fn big_int(&mut self, _: &str) -> Result<Unit, Self::Error> {
        Ok(Unit)
    }
    fn float(&mut self, _: f64) -> Result<Unit, Self::Error> {
        Ok(Unit)
    }
    fn string(&mut self, _: JsonStr<'_>) -> Result<Unit, Self::Error> {
        Ok(Unit)
    }
    fn new_object(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
    fn object_insert(&mut self, _: &mut (), _: JsonStr<'_>, _: Unit) -> Result<(), Self::Error> {
        Ok(())
    }
    fn finish_object(&mut self, _: ()) -> Result<Unit, Self::Error> {
        Ok(Unit)
    }
    fn new_array(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
    fn array_push(&mut self, _: &mut (), _: Unit) -> Result<(), Self::Error> {
        Ok(())
    }
    fn finish_array(&mut self, _: ()) -> Result<Unit, Self::Error> {
        Ok(Unit)
    }
}

const LINE: &str = r#"fn f(x: &str) -> String { format!(\"{}\\n\", x.replace(\"~~~\", \"é\")) }\n"#;

fn code(size: usize) -> String {
    LINE.repeat(size / LINE.len() + 1)
}

fn fenced(size: usize) -> String {
    let code = code(size);
    format!("Writing it.\n~~~tool_call\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.rs\", \"content\": \"{code}\"}}}}\n~~~\n")
}

fn hermes(size: usize) -> String {
    let code = code(size);
    format!("Writing it.\n<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.rs\", \"content\": \"{code}\"}}}}\n</tool_call>\n")
}

fn qwen3_coder(size: usize) -> String {
    // The value is raw text: the same code, unescaped.
    let code = code(size).replace("\\n", "\n").replace("\\\"", "\"");
    format!("Writing it.\n<tool_call>\n<function=write_file>\n<parameter=path>\na.rs\n</parameter>\n<parameter=content>\n{code}\n</parameter>\n</function>\n</tool_call>\n")
}

fn stream(c: &mut Criterion) {
    for (name, text) in [
        ("stream_1mb", fenced(1 << 20)),
        ("stream_hermes_1mb", hermes(1 << 20)),
        ("stream_qwen3_coder_1mb", qwen3_coder(1 << 20)),
    ] {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(10);
        group.bench_function("one-shot", |b| {
            b.iter(|| {
                let parsed = parse_text(&mut UnitBuilder, &text, StreamOptions::default()).unwrap();
                assert_eq!(parsed.calls.len(), 1);
            })
        });
        for chunk in [1usize, 4, 64] {
            group.bench_with_input(BenchmarkId::from_parameter(chunk), &chunk, |b, &chunk| {
                b.iter(|| {
                    let mut parser = StreamParser::new(StreamOptions::default());
                    let mut events = Vec::new();
                    let mut outcomes = 0;
                    for piece in text.as_bytes().chunks(chunk) {
                        parser
                            .feed_bytes(piece, &mut UnitBuilder, &mut events)
                            .unwrap();
                        outcomes += events
                            .iter()
                            .filter(|e| matches!(e, Event::CallEnd { .. } | Event::Invalid(_)))
                            .count();
                        events.clear();
                    }
                    parser.finish(&mut UnitBuilder, &mut events).unwrap();
                    assert_eq!(outcomes, 1);
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, stream);
criterion_main!(benches);
