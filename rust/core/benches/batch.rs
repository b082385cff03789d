//! `extract_jsonl` on the shipped sample log (all its pieces), on one and two threads
//! (docs/performance.md).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use toolwire_core::batch::{extract_jsonl, LineOptions, Locate};
use toolwire_core::body::Shape;
use toolwire_core::extract::{RawJsonMode, TextOptions};
use toolwire_core::json::ParseOptions;

fn batch(c: &mut Criterion) {
    let log = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/logs_sample.jsonl"
    ))
    .expect("the sample log");
    let options = LineOptions {
        text: TextOptions {
            text_tagged: true,
            formats: toolwire_core::formats::FormatSet::ALL,
            raw_json: Some(RawJsonMode::Fenced),
            json: ParseOptions::default(),
            tools: None,
            starts_in_reasoning: false,
        },
        shape: Shape::Auto,
        locate: Locate::LogRecord,
        deterministic_ids: false,
    };
    let mut group = c.benchmark_group("extract_jsonl");
    group.throughput(Throughput::Bytes(log.len() as u64));
    for threads in [1, 2] {
        group.bench_function(format!("threads={threads}"), |b| {
            b.iter(|| {
                // The CLI reads a chunk a bounded piece at a time.
                let (mut end, mut line, mut records) = (0, 1, 0);
                while end < log.len() {
                    let piece = extract_jsonl(&log, end, line, &options, threads).expect("pool");
                    (end, line) = (piece.end, line + piece.lines_read());
                    records += piece.output.len();
                }
                records
            })
        });
    }
    group.finish();
}

criterion_group!(benches, batch);
criterion_main!(benches);
