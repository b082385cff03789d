//! Throughput of the stream engine on one call with a 1 MB code-like argument, fed in 1-, 4- and
//! 64-byte chunks (events built, arguments decoded once at the end into a `Value`), against the
//! one-shot `parse_text` of the same text (the same engine fed the whole text at once): a
//! `~~~tool_call` block, a hermes `<tool_call>` and a qwen3_coder `<parameter=…>` value.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use toolwire_core::calls::Outcome;
use toolwire_core::json::ValueBuilder;
use toolwire_core::stream::{parse_text, Event, StreamOptions, StreamParser};

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
                let parsed =
                    parse_text(&mut ValueBuilder, &text, StreamOptions::default()).unwrap();
                assert!(matches!(parsed.calls[..], [Outcome::Call(_)]));
            })
        });
        for chunk in [1usize, 4, 64] {
            group.bench_with_input(BenchmarkId::from_parameter(chunk), &chunk, |b, &chunk| {
                b.iter(|| {
                    let mut parser = StreamParser::new(StreamOptions::default());
                    let mut events = Vec::new();
                    let mut calls = 0;
                    for piece in text.as_bytes().chunks(chunk) {
                        parser
                            .feed_bytes(piece, &mut ValueBuilder, &mut events)
                            .unwrap();
                        calls += events
                            .iter()
                            .filter(|e| matches!(e, Event::CallEnd { .. }))
                            .count();
                        events.clear();
                    }
                    parser.finish(&mut ValueBuilder, &mut events).unwrap();
                    assert_eq!(calls, 1);
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, stream);
criterion_main!(benches);
